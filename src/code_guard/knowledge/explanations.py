"""Why a finding matters, how to fix it, and where to read more, for every rule we map.

Texts are keyed by ``(tool, rule)`` for the common rules and fall back to the finding's
category, so a rule another engineer adds to ``tools/mapping.py`` still explains itself. The
link is the rule's own documentation where it has a stable page, else the CWE entry, else a
page on the category.
"""

from __future__ import annotations

from dataclasses import dataclass

from code_guard.knowledge.regressions import TOOL as REGRESSION_TOOL
from code_guard.knowledge.regressions import regression_rules
from code_guard.models import Category, Finding


@dataclass(frozen=True, slots=True)
class Explanation:
    """A short reason the issue matters, a concrete fix, and a documentation link."""

    why: str
    fix: str
    url: str


def cwe_url(cwe_id: str) -> str:
    """The MITRE page of ``CWE-<n>``."""
    return f"https://cwe.mitre.org/data/definitions/{cwe_id.removeprefix('CWE-')}.html"


_OWASP = "https://cheatsheetseries.owasp.org/cheatsheets/"
_RUFF = "https://docs.astral.sh/ruff/rules/"

_BY_CATEGORY: dict[Category, Explanation] = {
    Category.SQL_INJECTION: Explanation(
        "Text from outside becomes part of the SQL itself, so a crafted value can read or "
        "change any row the database user can reach.",
        "Pass values as query parameters (`cursor.execute(sql, params)`) instead of "
        "formatting them into the query string.",
        _OWASP + "SQL_Injection_Prevention_Cheat_Sheet.html",
    ),
    Category.COMMAND_INJECTION: Explanation(
        "A shell interprets the command line, so `;`, `|` or `$(...)` in a value run "
        "commands of the attacker's choosing.",
        "Pass an argument list without `shell=True` (or `execFile` / `exec.Command` with "
        "separate arguments) and validate the values.",
        _OWASP + "OS_Command_Injection_Defense_Cheat_Sheet.html",
    ),
    Category.CODE_INJECTION: Explanation(
        "Evaluating text as code lets whoever controls the text run anything the process can.",
        "Parse data with a data parser (`ast.literal_eval`, `json.loads`) or dispatch on a "
        "fixed table of allowed operations.",
        "https://cwe.mitre.org/data/definitions/95.html",
    ),
    Category.PATH_TRAVERSAL: Explanation(
        "A name with `../` or an absolute path reaches files outside the intended folder.",
        "Resolve the path and check it stays under the base folder, or look the file up by "
        "an id instead of a name.",
        "https://owasp.org/www-community/attacks/Path_Traversal",
    ),
    Category.XSS: Explanation(
        "Markup from a user is served as HTML, so their script runs in other users' sessions.",
        "Let the template engine escape the value (no `|safe`, `Markup`, `innerHTML`); "
        "sanitise with an allow-list where HTML is really wanted.",
        _OWASP + "Cross_Site_Scripting_Prevention_Cheat_Sheet.html",
    ),
    Category.SSRF: Explanation(
        "The server fetches a URL the caller chose, which can reach internal services and "
        "cloud metadata endpoints the caller cannot.",
        "Allow only known hosts and schemes, and resolve and check the address before the "
        "request.",
        _OWASP + "Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html",
    ),
    Category.INSECURE_DESERIALIZATION: Explanation(
        "Deserialising untrusted bytes with a format that can build arbitrary objects runs "
        "code chosen by the sender.",
        "Use a data-only format (JSON, `yaml.safe_load`) or sign the payload and verify the "
        "signature first.",
        _OWASP + "Deserialization_Cheat_Sheet.html",
    ),
    Category.HARDCODED_SECRET: Explanation(
        "A secret in the source is readable by everyone with the repository and stays in its "
        "history after it is removed.",
        "Read it from the environment or a secret manager, and rotate the exposed value.",
        _OWASP + "Secrets_Management_Cheat_Sheet.html",
    ),
    Category.WEAK_CRYPTO: Explanation(
        "This algorithm or random source is broken or predictable for security use.",
        "Use SHA-256 or better for integrity, a password hash (argon2, bcrypt, scrypt) for "
        "passwords, and `secrets` / `crypto.randomBytes` for tokens.",
        _OWASP + "Cryptographic_Storage_Cheat_Sheet.html",
    ),
    Category.INSECURE_CONFIG: Explanation(
        "A setting turns off a protection (TLS checks, secure cookies, debug off) that "
        "production relies on.",
        "Keep the safe default, or set it from configuration that differs per environment.",
        "https://cwe.mitre.org/data/definitions/16.html",
    ),
    Category.XXE: Explanation(
        "An XML parser that resolves external entities lets a document read local files or "
        "reach internal hosts.",
        "Parse untrusted XML with `defusedxml`, or turn off entity resolution and DTD loading.",
        _OWASP + "XML_External_Entity_Prevention_Cheat_Sheet.html",
    ),
    Category.OPEN_REDIRECT: Explanation(
        "Redirecting to a URL from the request sends users to a look-alike site with this "
        "site's credibility (phishing).",
        "Redirect only to relative paths or to an allow-list of hosts.",
        _OWASP + "Unvalidated_Redirects_and_Forwards_Cheat_Sheet.html",
    ),
    Category.N_PLUS_ONE_QUERY: Explanation(
        "One query per item makes the page as slow as the number of rows.",
        "Fetch related rows in one query (`select_related`, `prefetch_related`, a join, or "
        "`WHERE id IN (...)`).",
        "https://docs.djangoproject.com/en/stable/topics/db/optimization/",
    ),
    Category.INEFFICIENT_LOOP: Explanation(
        "The loop repeats work whose cost grows with the data.",
        "Hoist the invariant work out of the loop, or use a set/dict lookup or a "
        "comprehension.",
        _RUFF + "#perflint-perf",
    ),
    Category.BLOCKING_IO: Explanation(
        "Blocking I/O inside async code stalls every other request on the event loop.",
        "Use the async API, or move the call to a thread (`asyncio.to_thread`).",
        "https://docs.python.org/3/library/asyncio-dev.html#running-blocking-code",
    ),
    Category.MEMORY_LEAK: Explanation(
        "Something keeps growing or is never released, so a long-running process slowly "
        "runs out of memory or handles.",
        "Bound the cache, release the resource in a `with`/`defer`/cleanup, and remove "
        "listeners when done.",
        "https://cwe.mitre.org/data/definitions/401.html",
    ),
    Category.UNUSED_CODE: Explanation(
        "Unused code misleads readers and hides real mistakes such as a misspelt name.",
        "Delete it, or use it if it was meant to be used.",
        _RUFF + "#pyflakes-f",
    ),
    Category.NAMING: Explanation(
        "Names that break the language's conventions make the code harder to scan.",
        "Rename to the usual convention (snake_case functions, CapWords classes).",
        "https://peps.python.org/pep-0008/#naming-conventions",
    ),
    Category.COMPLEXITY: Explanation(
        "This function has many branches, which makes it hard to test and easy to break.",
        "Split it into smaller functions, or replace branches with a lookup table.",
        _RUFF + "complex-structure/",
    ),
    Category.ERROR_HANDLING: Explanation(
        "Swallowing errors hides failures, so bugs surface later and far from their cause.",
        "Catch the specific exception you expect, and log or re-raise the rest.",
        "https://cwe.mitre.org/data/definitions/703.html",
    ),
    Category.OTHER: Explanation(
        "The analyser flags a pattern that often hides a bug.",
        "Read the rule's documentation and adjust the code, or explain why it is safe here.",
        "https://cwe.mitre.org/",
    ),
}

_BY_RULE: dict[tuple[str, str], Explanation] = {
    ("bandit", "B113"): Explanation(
        "Without a timeout a slow or silent server blocks this worker forever, and enough of "
        "them take the service down.",
        "Pass `timeout=` (seconds) to every `requests` call.",
        "https://bandit.readthedocs.io/en/latest/plugins/b113_request_without_timeout.html",
    ),
    ("bandit", "B506"): Explanation(
        "`yaml.load` with a full loader builds arbitrary Python objects from the document.",
        "Use `yaml.safe_load`.",
        "https://bandit.readthedocs.io/en/latest/plugins/b506_yaml_load.html",
    ),
    ("bandit", "B602"): Explanation(
        "`shell=True` hands the string to `/bin/sh`, so any value in it can add commands.",
        "Pass a list of arguments and drop `shell=True`.",
        "https://bandit.readthedocs.io/en/latest/plugins/b602_subprocess_popen_with_shell_equals_true.html",
    ),
    ("bandit", "B608"): Explanation(
        "The query is built by string formatting, so a value can change the SQL itself.",
        "Use placeholders and pass the values separately to `execute`.",
        "https://bandit.readthedocs.io/en/latest/plugins/b608_hardcoded_sql_expressions.html",
    ),
    ("bandit", "B501"): Explanation(
        "`verify=False` accepts any certificate, so anyone on the path can read and change "
        "the traffic.",
        "Keep `verify=True` (the default), or point `verify=` at your CA bundle.",
        "https://bandit.readthedocs.io/en/latest/plugins/b501_request_with_no_cert_validation.html",
    ),
    ("bandit", "B201"): Explanation(
        "Flask's debugger lets anyone who reaches it run Python code on the server.",
        "Run with `debug=False` and enable debugging from local configuration only.",
        "https://bandit.readthedocs.io/en/latest/plugins/b201_flask_debug_true.html",
    ),
    ("bandit", "B324"): Explanation(
        "MD5 and SHA-1 collide cheaply, so they prove nothing about integrity.",
        "Use `hashlib.sha256` (or a password hash for passwords).",
        "https://bandit.readthedocs.io/en/latest/plugins/b324_hashlib.html",
    ),
    ("bandit", "B104"): Explanation(
        "Binding to all interfaces exposes the service on every network the host is on.",
        "Bind to `127.0.0.1` unless the service really must be reachable from outside.",
        "https://bandit.readthedocs.io/en/latest/plugins/b104_hardcoded_bind_all_interfaces.html",
    ),
    ("bandit", "B103"): Explanation(
        "World-writable or world-readable permissions let other users change or read the file.",
        "Grant only the owner access (`0o600` for files, `0o700` for folders).",
        "https://bandit.readthedocs.io/en/latest/plugins/b103_set_bad_file_permissions.html",
    ),
    ("bandit", "B311"): Explanation(
        "`random` is predictable; tokens made with it can be guessed.",
        "Use the `secrets` module for anything security-related.",
        "https://docs.python.org/3/library/secrets.html",
    ),
    ("bandit", "B307"): Explanation(
        "`eval` runs any expression, including `__import__('os').system(...)`.",
        "Use `ast.literal_eval` for literals, or parse the input explicitly.",
        "https://bandit.readthedocs.io/en/latest/blacklists/blacklist_calls.html#b307-eval",
    ),
    ("bandit", "B507"): Explanation(
        "Accepting unknown host keys lets a man in the middle impersonate the server.",
        "Use `paramiko.RejectPolicy()` and ship the known host keys.",
        "https://bandit.readthedocs.io/en/latest/plugins/b507_ssh_no_host_key_verification.html",
    ),
    ("bandit", "B701"): Explanation(
        "Jinja2 without autoescaping renders user data as raw HTML (XSS).",
        "Create the environment with `autoescape=True` (or `select_autoescape()`).",
        "https://bandit.readthedocs.io/en/latest/plugins/b701_jinja2_autoescape_false.html",
    ),
    ("ruff", "E711"): Explanation(
        "`== None` calls `__eq__`, which a class may override; identity is what is meant.",
        "Compare with `is None` / `is not None`.",
        _RUFF + "none-comparison/",
    ),
    ("ruff", "E722"): Explanation(
        "A bare `except:` also catches `KeyboardInterrupt` and `SystemExit`, so the process "
        "cannot be stopped cleanly.",
        "Catch `Exception` at most, and better the specific exception you expect.",
        _RUFF + "bare-except/",
    ),
    ("ruff", "F401"): Explanation(
        "An unused import slows start-up and suggests code that was meant to use it.",
        "Remove the import.",
        _RUFF + "unused-import/",
    ),
    ("ruff", "F841"): Explanation(
        "A variable assigned and never read is dead code, or a typo in a later use.",
        "Remove the assignment, or use the value.",
        _RUFF + "unused-variable/",
    ),
    ("ruff", "B006"): Explanation(
        "A mutable default is created once and shared between calls, so data leaks between "
        "them.",
        "Default to `None` and create the list or dict inside the function.",
        _RUFF + "mutable-argument-default/",
    ),
    ("ruff", "B019"): Explanation(
        "`lru_cache` on a method keeps every `self` alive for the cache's lifetime.",
        "Cache a module-level function, or use `functools.cached_property`.",
        _RUFF + "cached-instance-method/",
    ),
    ("ruff", "C901"): Explanation(
        "This function has many branches, which makes it hard to test and easy to break.",
        "Split it into smaller functions, or replace branches with a lookup table.",
        _RUFF + "complex-structure/",
    ),
    ("detect-secrets", "AWS Access Key"): Explanation(
        "A live cloud key in the code gives anyone with the repository your account.",
        "Revoke the key now, then read it from the environment or a secret manager.",
        "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html",
    ),
    ("semgrep", "py-insecure-deserialization-taint"): Explanation(
        "Unpickling (or loading YAML with a full loader) data from a request runs code "
        "the sender chose.",
        "Accept JSON or `yaml.safe_load`, or sign the payload and verify the signature "
        "before loading it.",
        _OWASP + "Deserialization_Cheat_Sheet.html",
    ),
    ("semgrep", "py-insecure-deserialization-yaml"): Explanation(
        "`yaml.unsafe_load` and the full loaders build arbitrary Python objects, so a "
        "YAML document can run code.",
        "Use `yaml.safe_load` (or `Loader=yaml.SafeLoader`).",
        "https://pyyaml.org/wiki/PyYAMLDocumentation",
    ),
    ("semgrep", "py-jwt-unverified-signature"): Explanation(
        "Without a signature check anyone can write a token with any claims (another "
        "user, an admin role).",
        "Decode with the key and `algorithms=[...]`, and keep signature verification on.",
        "https://pyjwt.readthedocs.io/en/stable/usage.html",
    ),
    ("semgrep", "py-jwt-none-algorithm"): Explanation(
        "A token with algorithm `none` carries no signature, so anyone can forge one.",
        "Sign with a real algorithm (HS256, RS256, EdDSA) and never accept `none` when "
        "decoding.",
        cwe_url("CWE-327"),
    ),
    ("semgrep", "py-csrf-protection-disabled"): Explanation(
        "With CSRF protection off, another site can make a logged-in user's browser send "
        "this request.",
        "Keep CSRF protection on and send the token with the request; exempt only "
        "endpoints that use no cookies.",
        _OWASP + "Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html",
    ),
    ("semgrep", "py-insecure-cookie-authtkt"): Explanation(
        "The login cookie can travel over plain HTTP or be read by scripts, where it can "
        "be stolen.",
        "Pass `secure=True` and `httponly=True` to the auth ticket helper or policy.",
        cwe_url("CWE-614"),
    ),
    ("semgrep", "py-cors-wildcard-with-credentials"): Explanation(
        "Any website can call this API with the user's cookies and read the answers.",
        "List the trusted origins explicitly, or turn credentials off for a public API.",
        _OWASP + "HTML5_Security_Cheat_Sheet.html#cross-origin-resource-sharing",
    ),
    ("semgrep", "py-cors-origin-regex-prefix-match"): Explanation(
        "`re.match` only anchors at the start, so a host that merely begins like a "
        "trusted one passes the check.",
        "Use `fullmatch` (or end the pattern with `\\Z`) for allow-list patterns.",
        cwe_url("CWE-625"),
    ),
    ("semgrep", "py-ssl-unverified-default-context"): Explanation(
        "Every HTTPS call of the process then accepts any certificate, so anyone on the "
        "path can read and change the traffic.",
        "Keep the default context; point `cafile=` or `verify=` at a CA bundle where a "
        "private CA is needed.",
        "https://docs.python.org/3/library/ssl.html#security-considerations",
    ),
    ("semgrep", "py-weak-crypto-hashids-secret-key"): Explanation(
        "Hashids is reversible encoding, and its salt can be recovered from a handful of "
        "ids, which would leak SECRET_KEY.",
        "Give Hashids its own salt, unrelated to any secret.",
        cwe_url("CWE-327"),
    ),
    ("semgrep", "py-command-injection-shell-argv"): Explanation(
        "`sh -c` interprets its argument as a command line, so a value in it can add "
        "commands.",
        "Run the program directly with an argument list and no shell, or quote with "
        "`shlex.quote`.",
        _OWASP + "OS_Command_Injection_Defense_Cheat_Sheet.html",
    ),
    ("semgrep", "py-mass-assignment-request-data"): Explanation(
        "The client can set any model field, including ones it must never control (owner, "
        "is_staff, price).",
        "Copy the allowed fields explicitly, or validate through a form or serializer "
        "with a field list.",
        _OWASP + "Mass_Assignment_Cheat_Sheet.html",
    ),
    ("semgrep", "py-sql-injection-query-builder-text"): Explanation(
        "A query-builder method given raw SQL text runs whatever the formatted value adds "
        "to it.",
        "Use column expressions (`Model.col == value`), or `text()` with bound "
        "parameters.",
        _OWASP + "SQL_Injection_Prevention_Cheat_Sheet.html",
    ),
    ("semgrep", "py-code-injection-globals-template-context"): Explanation(
        "The template can reach every module global (settings, secrets, functions), and "
        "template injection becomes code execution.",
        "Pass a dict with only the values the template needs.",
        cwe_url("CWE-96"),
    ),
    ("semgrep", "py-xss-django-autoescape-off"): Explanation(
        "Every variable every template prints is raw HTML, so one value from a user runs "
        "script in other users' browsers.",
        "Keep autoescaping on and mark only vetted values safe.",
        "https://docs.djangoproject.com/en/stable/ref/templates/language/#automatic-html-escaping",
    ),
    ("semgrep", "py-xss-safestring-subclass"): Explanation(
        "Django never escapes a safe string, so whatever this class holds is rendered as "
        "raw HTML.",
        "Escape the content (`format_html`, `escape`) before it is marked safe.",
        "https://docs.djangoproject.com/en/stable/ref/utils/#module-django.utils.safestring",
    ),
    ("semgrep", "py-xss-formatted-html-response"): Explanation(
        "The response is HTML by default, so a formatted value with markup in it runs as "
        "script.",
        "Escape the values (`format_html`, `escape`), render a template, or set "
        "`content_type='text/plain'`.",
        _OWASP + "Cross_Site_Scripting_Prevention_Cheat_Sheet.html",
    ),
    ("semgrep", "py-orm-filter-python-operator"): Explanation(
        "Python evaluates `and`, `or`, `not`, `is` and `in` itself, so the query filters "
        "on a constant and returns the wrong rows.",
        "Use `and_()`, `or_()`, `not_()`, `==`, `.is_()` or `.in_()`.",
        "https://docs.sqlalchemy.org/en/20/core/operators.html",
    ),
    ("python-correctness", "constant-condition"): Explanation(
        "A non-empty string is always true, so the branch runs whatever the other operand "
        "says.",
        "Compare each value, e.g. `x in ('a', 'b')`.",
        cwe_url("CWE-570"),
    ),
    ("python-correctness", "is-not-precedence"): Explanation(
        "`x is (not y)` compares x with a boolean, which is almost never what was meant.",
        "Write `x is not y`.",
        "https://docs.python.org/3/reference/expressions.html#is-not",
    ),
    ("python-correctness", "dict-modified-while-iterating"): Explanation(
        "Deleting keys while iterating over a dict raises `RuntimeError: dictionary "
        "changed size during iteration`.",
        "Iterate over a copy (`list(d)`) or build a new dict.",
        "https://docs.python.org/3/library/stdtypes.html#dict-views",
    ),
    ("semgrep", "py-cached-generator"): Explanation(
        "The cache keeps the first generator object, which is exhausted after one use, so "
        "later calls get nothing.",
        "Cache a list or tuple of the results instead of the generator.",
        "https://docs.python.org/3/library/functools.html#functools.lru_cache",
    ),
    ("semgrep", "py-debugger-left-in"): Explanation(
        "A breakpoint left in the code stops the process and waits for a console that "
        "never comes.",
        "Remove the breakpoint before merging.",
        cwe_url("CWE-489"),
    ),
    ("python-correctness", "duplicate-dict-key"): Explanation(
        "A repeated key keeps only its last value, so the first one is silently lost.",
        "Remove the duplicate, or fix the key that was meant.",
        _RUFF + "multi-value-repeated-key-literal/",
    ),
    ("python-correctness", "identical-branches"): Explanation(
        "Both branches do the same (or the condition repeats an earlier one), so one of "
        "them is likely a copy-paste slip.",
        "Make the branches differ as intended, or drop the test.",
        cwe_url("CWE-561"),
    ),
    ("python-correctness", "duplicate-assignment"): Explanation(
        "Assigning the same value twice in a row is a leftover copy, or hides the "
        "assignment that was meant.",
        "Remove the duplicate line, or assign what was intended.",
        cwe_url("CWE-563"),
    ),
    ("semgrep", "py-code-injection-eval-built-string"): Explanation(
        "Code built from a value at run time runs whatever that value adds to it.",
        "Parse the value (`ast.literal_eval`, `json.loads`) or dispatch on a fixed table "
        "of operations.",
        cwe_url("CWE-95"),
    ),
    ("semgrep", "py-insecure-cookie-set-cookie-header"): Explanation(
        "Without HttpOnly scripts can read the cookie, and without Secure it travels over "
        "plain HTTP, so it can be stolen.",
        "Add `HttpOnly`, `Secure` and `SameSite` to the header, or set the cookie through "
        "the framework with those flags.",
        cwe_url("CWE-1004"),
    ),
    ("semgrep", "py-hardcoded-secret-app-config"): Explanation(
        "Anyone with the source can sign sessions and tokens with this key and stays able "
        "to after it is removed from the code.",
        "Read the key from the environment or a secret store, and rotate the exposed one.",
        _OWASP + "Secrets_Management_Cheat_Sheet.html",
    ),
    ("python-correctness", "implicit-concatenation-in-collection"): Explanation(
        "Adjacent string literals are joined, so the collection silently has one item "
        "fewer than it reads.",
        "Add the missing comma, or wrap a deliberate continuation in parentheses.",
        _RUFF + "implicit-string-concatenation-in-collection-literal/",
    ),
    ("python-ast", "blocking-in-async"): Explanation(
        "A blocking call inside `async def` stalls every other request on the event loop.",
        "Use the async client, or run the call in a thread with `asyncio.to_thread`.",
        "https://docs.python.org/3/library/asyncio-dev.html#running-blocking-code",
    ),
    # JavaScript/TypeScript and Go rules whose flaw the category's text does not describe.
    ("semgrep", "js-insecure-deserialization-eval"): Explanation(
        "The deserialiser evaluates its input as code, so a crafted payload runs on the "
        "server instead of being read as data.",
        "Parse data with `JSON.parse` (with a reviver for dates or regexps), never `eval` or "
        "`new Function`.",
        "https://cwe.mitre.org/data/definitions/502.html",
    ),
    ("semgrep", "js-weak-crypto-pbkdf2-low-iterations"): Explanation(
        "With few PBKDF2 iterations a stolen password hash is cheap to brute-force.",
        "Use at least 600,000 iterations with SHA-256 (OWASP), or scrypt or argon2.",
        _OWASP + "Password_Storage_Cheat_Sheet.html#pbkdf2",
    ),
    ("semgrep", "go-weak-crypto-pbkdf2-low-iterations"): Explanation(
        "With few PBKDF2 iterations a stolen password hash is cheap to brute-force.",
        "Use at least 600,000 iterations with SHA-256 (OWASP), or argon2id.",
        _OWASP + "Password_Storage_Cheat_Sheet.html#pbkdf2",
    ),
    ("semgrep", "js-xss-url-attribute-unchecked"): Explanation(
        "HTML-escaping keeps a URL inside its attribute, but a `javascript:` URL in an href "
        "still runs script when the link is followed.",
        "Allow only `http:`, `https:` or relative URLs (parse with `new URL` and check "
        "`protocol`) before writing the link.",
        _OWASP + "Cross_Site_Scripting_Prevention_Cheat_Sheet.html",
    ),
    ("semgrep", "go-hardcoded-secret-default-credential"): Explanation(
        "An account created with a built-in password or hash can be logged into by anyone "
        "who has read the code or the docs.",
        "Generate a random one-time password at setup, show it once, and require a change at "
        "first login.",
        "https://cwe.mitre.org/data/definitions/798.html",
    ),
    ("semgrep", "js-insecure-config-cors-reflected-origin"): Explanation(
        "Echoing the request's Origin trusts every site, so any page the user visits can "
        "read responses meant for them.",
        "Compare the Origin with a fixed list of allowed origins and send it back only then.",
        _OWASP + "HTML5_Security_Cheat_Sheet.html#cross-origin-resource-sharing",
    ),
    ("semgrep", "go-insecure-config-cors"): Explanation(
        "Trusting every origin (or echoing the Origin) while allowing credentials lets any "
        "site act as the signed-in user.",
        "List the allowed origins explicitly, or drop credentials for a public API.",
        _OWASP + "HTML5_Security_Cheat_Sheet.html#cross-origin-resource-sharing",
    ),
    # JS/TS and Go taint rules from reference models (issue 22).
    ("semgrep", "go-path-traversal-archive-entry"): Explanation(
        "An archive entry's name can hold `../` or an absolute path, so extracting it can "
        "overwrite any file the process can write (zip slip).",
        "Join the name to the destination, clean it, and skip the entry unless the result "
        "stays under the destination (`filepath.IsLocal`, `strings.HasPrefix` on the cleaned "
        "path, or `securejoin.SecureJoin`).",
        "https://security.snyk.io/research/zip-slip-vulnerability",
    ),
    ("semgrep", "go-xss-html-format-parameter"): Explanation(
        "The value is formatted into markup as it came, so a name or message holding "
        "`<script>` runs in the reader's browser.",
        "Escape each value (`html.EscapeString`, `template.HTMLEscapeString`) or render the "
        "page with `html/template`, which escapes by context.",
        _OWASP + "Cross_Site_Scripting_Prevention_Cheat_Sheet.html",
    ),
    ("semgrep", "js-xss-jquery-html-property"): Explanation(
        "jQuery parses the `html` property of a new element as markup, so a value holding "
        "`<img onerror=...>` runs script.",
        "Pass the value as `text` instead, or sanitise it with DOMPurify first.",
        _OWASP + "DOM_based_XSS_Prevention_Cheat_Sheet.html",
    ),
}

# Security regressions (issue 22): why and fix come from the protections catalogue.
_BY_RULE.update(
    {
        (REGRESSION_TOOL, rule): Explanation(info.why, info.fix, _BY_CATEGORY[info.category].url)
        for rule, info in regression_rules().items()
    }
)


def rule_of(finding: Finding) -> tuple[str, str] | None:
    """The first ``(tool, rule)`` among the finding's sources (``"bandit:B113"``), if any."""
    for source in finding.sources:
        tool, sep, rule = source.partition(":")
        if sep:
            return tool, rule
    return None


def explain(finding: Finding) -> Explanation:
    """The explanation of ``finding``: its rule's own, else its category's, with its CWE link."""
    tool, rule = rule_of(finding) or ("", "")
    return explain_rule(tool, rule, finding.category, finding.cwe_id)


def explain_rule(tool: str, rule: str, category: Category, cwe_id: str | None) -> Explanation:
    """The explanation of a mapped rule, by ``(tool, rule)`` with the category fallback."""
    known = _BY_RULE.get((tool, rule))
    if known is not None:
        return known
    base = explain_category(category)
    return Explanation(base.why, base.fix, cwe_url(cwe_id) if cwe_id else base.url)


def explain_category(category: Category) -> Explanation:
    """The category-level explanation (every category has one)."""
    return _BY_CATEGORY[category]
