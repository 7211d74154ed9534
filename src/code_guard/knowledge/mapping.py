"""The one explicit table from tool rules to the category vocabulary.

Every rule a tool can report is looked up here: by exact rule id, then by the longest listed
prefix. A rule mapped to ``IGNORED`` is deliberately not reported (noise such as "imports
subprocess"); a rule with no entry at all is still reported, as ``other``, so a new tool
version can never make a finding vanish silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from code_guard.knowledge.regressions import TOOL as REGRESSION_TOOL
from code_guard.knowledge.regressions import regression_rules
from code_guard.models import (
    FIX_CHARS,
    MARK_CHARS,
    TEXT_CHARS,
    TITLE_CHARS,
    AgentName,
    Finding,
    clip,
)
from code_guard.models import Category as C
from code_guard.models import Severity as S

if TYPE_CHECKING:
    from code_guard.tools.base import ToolHit


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """How one tool rule reads as a finding."""

    category: C
    severity: S
    confidence: float
    cwe: str | None = None


IGNORED = None

_HIGH, _MED, _LOW = 0.8, 0.6, 0.4

BANDIT: dict[str, RuleInfo | None] = {
    "B101": RuleInfo(C.OTHER, S.LOW, _LOW, "CWE-703"),
    "B102": RuleInfo(C.CODE_INJECTION, S.HIGH, _HIGH, "CWE-78"),
    "B103": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-732"),
    "B104": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _LOW, "CWE-605"),
    "B105": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _MED, "CWE-259"),
    "B106": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _MED, "CWE-259"),
    "B107": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _MED, "CWE-259"),
    "B108": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _LOW, "CWE-377"),
    "B110": RuleInfo(C.ERROR_HANDLING, S.MEDIUM, _HIGH, "CWE-703"),
    "B112": RuleInfo(C.ERROR_HANDLING, S.LOW, _MED, "CWE-703"),
    "B113": RuleInfo(C.OTHER, S.MEDIUM, _MED, "CWE-400"),
    "B201": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _HIGH, "CWE-94"),
    "B202": RuleInfo(C.PATH_TRAVERSAL, S.HIGH, _MED, "CWE-22"),
    "B301": RuleInfo(C.INSECURE_DESERIALIZATION, S.HIGH, _HIGH, "CWE-502"),
    "B302": RuleInfo(C.INSECURE_DESERIALIZATION, S.HIGH, _HIGH, "CWE-502"),
    "B303": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    "B304": RuleInfo(C.WEAK_CRYPTO, S.HIGH, _HIGH, "CWE-327"),
    "B305": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    "B306": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-377"),
    "B307": RuleInfo(C.CODE_INJECTION, S.HIGH, _HIGH, "CWE-95"),
    "B308": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-79"),
    # "Audit url open for permitted schemes" fires on every urlopen, whatever the URL; the
    # semgrep rules py-ssrf-taint and py-insecure-transport-cleartext-url follow the URL instead.
    "B310": IGNORED,
    "B311": RuleInfo(C.WEAK_CRYPTO, S.LOW, _LOW, "CWE-330"),
    "B312": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _MED, "CWE-319"),
    "B313": RuleInfo(C.XXE, S.MEDIUM, _MED, "CWE-611"),
    "B314": RuleInfo(C.XXE, S.MEDIUM, _MED, "CWE-611"),
    "B315": RuleInfo(C.XXE, S.MEDIUM, _MED, "CWE-611"),
    "B316": RuleInfo(C.XXE, S.MEDIUM, _MED, "CWE-611"),
    "B317": RuleInfo(C.XXE, S.MEDIUM, _MED, "CWE-611"),
    "B318": RuleInfo(C.XXE, S.MEDIUM, _MED, "CWE-611"),
    "B319": RuleInfo(C.XXE, S.MEDIUM, _MED, "CWE-611"),
    "B320": RuleInfo(C.XXE, S.HIGH, _MED, "CWE-611"),
    "B321": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _MED, "CWE-319"),
    "B323": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-295"),
    "B324": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    # Imports of a module are not findings: the call that misuses it is.
    "B401": IGNORED,
    "B402": IGNORED,
    "B403": IGNORED,
    "B404": IGNORED,
    "B405": IGNORED,
    "B406": IGNORED,
    "B407": IGNORED,
    "B408": IGNORED,
    "B409": IGNORED,
    "B410": IGNORED,
    "B411": IGNORED,
    "B412": IGNORED,
    "B413": IGNORED,
    "B415": IGNORED,
    "B501": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _HIGH, "CWE-295"),
    "B502": RuleInfo(C.WEAK_CRYPTO, S.HIGH, _HIGH, "CWE-327"),
    "B503": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    "B504": RuleInfo(C.WEAK_CRYPTO, S.LOW, _LOW, "CWE-327"),
    "B505": RuleInfo(C.WEAK_CRYPTO, S.HIGH, _HIGH, "CWE-326"),
    "B506": RuleInfo(C.INSECURE_DESERIALIZATION, S.HIGH, _HIGH, "CWE-502"),
    "B507": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _MED, "CWE-295"),
    "B508": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-319"),
    "B509": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-319"),
    "B601": RuleInfo(C.COMMAND_INJECTION, S.MEDIUM, _MED, "CWE-78"),
    "B602": RuleInfo(C.COMMAND_INJECTION, S.HIGH, _HIGH, "CWE-78"),
    # A list argv with no shell is the safe form; flagging it teaches people to ignore us.
    "B603": IGNORED,
    "B604": RuleInfo(C.COMMAND_INJECTION, S.MEDIUM, _MED, "CWE-78"),
    "B605": RuleInfo(C.COMMAND_INJECTION, S.HIGH, _MED, "CWE-78"),
    "B606": IGNORED,
    "B607": IGNORED,
    "B608": RuleInfo(C.SQL_INJECTION, S.HIGH, _MED, "CWE-89"),
    "B609": RuleInfo(C.COMMAND_INJECTION, S.HIGH, _MED, "CWE-78"),
    "B610": RuleInfo(C.SQL_INJECTION, S.MEDIUM, _MED, "CWE-89"),
    "B611": RuleInfo(C.SQL_INJECTION, S.MEDIUM, _MED, "CWE-89"),
    "B612": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-94"),
    "B613": RuleInfo(C.OTHER, S.HIGH, _MED, "CWE-838"),
    "B614": RuleInfo(C.INSECURE_DESERIALIZATION, S.HIGH, _MED, "CWE-502"),
    "B615": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _LOW, "CWE-494"),
    "B701": RuleInfo(C.XSS, S.HIGH, _MED, "CWE-94"),
    "B702": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-80"),
    "B703": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-80"),
    "B704": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-79"),
}

# Ruff: the rules each agent selects, mapped by exact code or by prefix.
RUFF: dict[str, RuleInfo | None] = {
    # A file the parser rejects is not a finding: rebuilt-from-diff files lack context, and
    # a real syntax error fails the project's own build long before review.
    "invalid-syntax": IGNORED,
    # performance
    "PERF": RuleInfo(C.INEFFICIENT_LOOP, S.LOW, _MED),
    "PERF203": RuleInfo(C.INEFFICIENT_LOOP, S.LOW, _LOW),
    "ASYNC": RuleInfo(C.BLOCKING_IO, S.MEDIUM, _HIGH),
    "ASYNC100": RuleInfo(C.OTHER, S.LOW, _MED),
    "ASYNC105": RuleInfo(C.OTHER, S.MEDIUM, _HIGH),
    "ASYNC109": RuleInfo(C.OTHER, S.LOW, _MED),
    "ASYNC110": RuleInfo(C.INEFFICIENT_LOOP, S.MEDIUM, _MED),
    "ASYNC115": RuleInfo(C.OTHER, S.LOW, _MED),
    "ASYNC116": RuleInfo(C.OTHER, S.LOW, _MED),
    "B019": RuleInfo(C.MEMORY_LEAK, S.MEDIUM, _MED, "CWE-401"),
    # A file opened without a context manager leaks its handle when an exception escapes.
    "SIM115": RuleInfo(C.MEMORY_LEAK, S.LOW, _MED, "CWE-775"),
    # style: unused code
    "F401": RuleInfo(C.UNUSED_CODE, S.LOW, _HIGH, "CWE-1164"),
    "F811": RuleInfo(C.UNUSED_CODE, S.LOW, _MED, "CWE-1164"),
    "F841": RuleInfo(C.UNUSED_CODE, S.LOW, _HIGH, "CWE-563"),
    # style: naming
    "N8": RuleInfo(C.NAMING, S.INFO, _MED),
    "E741": RuleInfo(C.NAMING, S.LOW, _MED),
    "E742": RuleInfo(C.NAMING, S.LOW, _MED),
    "E743": RuleInfo(C.NAMING, S.LOW, _MED),
    # style: complexity
    "C901": RuleInfo(C.COMPLEXITY, S.LOW, _MED),
    "PLR09": RuleInfo(C.COMPLEXITY, S.LOW, _LOW),
    # style: error handling
    "E722": RuleInfo(C.ERROR_HANDLING, S.MEDIUM, _HIGH, "CWE-396"),
    "BLE001": RuleInfo(C.ERROR_HANDLING, S.LOW, _MED, "CWE-396"),
    "S110": RuleInfo(C.ERROR_HANDLING, S.MEDIUM, _HIGH, "CWE-703"),
    "S112": RuleInfo(C.ERROR_HANDLING, S.LOW, _MED, "CWE-703"),
    "B012": RuleInfo(C.ERROR_HANDLING, S.MEDIUM, _HIGH, "CWE-584"),
    # style: everything else worth a word
    "B006": RuleInfo(C.OTHER, S.MEDIUM, _HIGH),
    "B023": RuleInfo(C.OTHER, S.MEDIUM, _MED),
    "E711": RuleInfo(C.OTHER, S.LOW, _MED),
    "E712": RuleInfo(C.OTHER, S.LOW, _MED),
    "E721": RuleInfo(C.OTHER, S.LOW, _MED),
}

# detect-secrets plugin names. A private key or cloud token is critical; a "password = ..."
# keyword match or a high-entropy string is only a suspicion.
SECRETS: dict[str, RuleInfo | None] = {
    "Private Key": RuleInfo(C.HARDCODED_SECRET, S.CRITICAL, _HIGH, "CWE-798"),
    "AWS Access Key": RuleInfo(C.HARDCODED_SECRET, S.CRITICAL, _HIGH, "CWE-798"),
    "Secret Keyword": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _LOW, "CWE-798"),
    "Base64 High Entropy String": RuleInfo(C.HARDCODED_SECRET, S.MEDIUM, _LOW, "CWE-798"),
    "Hex High Entropy String": RuleInfo(C.HARDCODED_SECRET, S.MEDIUM, _LOW, "CWE-798"),
    "": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _HIGH, "CWE-798"),
}

# Our own AST checks (tools/python/performance.py).
PYTHON_AST: dict[str, RuleInfo | None] = {
    "n-plus-one": RuleInfo(C.N_PLUS_ONE_QUERY, S.MEDIUM, 0.7),
    "blocking-in-async": RuleInfo(C.BLOCKING_IO, S.MEDIUM, 0.7),
    "unbounded-cache": RuleInfo(C.MEMORY_LEAK, S.MEDIUM, 0.5, "CWE-401"),
    "linear-scan-in-loop": RuleInfo(C.INEFFICIENT_LOOP, S.LOW, 0.6, "CWE-1050"),
    "insecure-setting": RuleInfo(C.INSECURE_CONFIG, S.HIGH, 0.7, "CWE-16"),
    "insecure-cookie": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, 0.5, "CWE-614"),
    "xxe-parser": RuleInfo(C.XXE, S.HIGH, 0.8, "CWE-611"),
    "stdlib-xml-parse": RuleInfo(C.XXE, S.MEDIUM, 0.6, "CWE-776"),
    # Request data reaching a dangerous call in the same function (tools/python/taint.py).
    "taint-sql_injection": RuleInfo(C.SQL_INJECTION, S.HIGH, 0.6, "CWE-89"),
    "taint-command_injection": RuleInfo(C.COMMAND_INJECTION, S.HIGH, 0.6, "CWE-78"),
    "taint-code_injection": RuleInfo(C.CODE_INJECTION, S.HIGH, 0.6, "CWE-95"),
    "taint-path_traversal": RuleInfo(C.PATH_TRAVERSAL, S.HIGH, 0.6, "CWE-22"),
    "taint-ssrf": RuleInfo(C.SSRF, S.HIGH, 0.6, "CWE-918"),
    "taint-open_redirect": RuleInfo(C.OPEN_REDIRECT, S.MEDIUM, 0.6, "CWE-601"),
    "taint-xss": RuleInfo(C.XSS, S.MEDIUM, 0.5, "CWE-79"),
    # Correctness mistakes (tools/python/correctness.py).
    "constant-condition": RuleInfo(C.OTHER, S.MEDIUM, _HIGH, "CWE-570"),
    "is-not-precedence": RuleInfo(C.OTHER, S.MEDIUM, _HIGH, "CWE-480"),
    "dict-modified-while-iterating": RuleInfo(C.OTHER, S.MEDIUM, _HIGH, "CWE-664"),
    "implicit-concatenation-in-collection": RuleInfo(C.OTHER, S.LOW, _MED, "CWE-665"),
    "duplicate-dict-key": RuleInfo(C.UNUSED_CODE, S.LOW, _HIGH, "CWE-561"),
    "identical-branches": RuleInfo(C.UNUSED_CODE, S.LOW, _MED, "CWE-561"),
    "duplicate-assignment": RuleInfo(C.UNUSED_CODE, S.LOW, _MED, "CWE-563"),
}

# Our semgrep rules for JavaScript/TypeScript and Go (tools/semgrep/rules/*.yml).
SEMGREP: dict[str, RuleInfo | None] = {
    # A file semgrep-core cannot parse: noted by the agents (the review is partial), never a
    # finding (``tools/semgrep/tool.py`` reports it under ruff's name for the same thing).
    "invalid-syntax": IGNORED,
    "js-sql-injection-string-query": RuleInfo(C.SQL_INJECTION, S.HIGH, _MED, "CWE-89"),
    "js-command-injection-exec": RuleInfo(C.COMMAND_INJECTION, S.HIGH, _MED, "CWE-78"),
    "js-code-injection-eval": RuleInfo(C.CODE_INJECTION, S.HIGH, _MED, "CWE-95"),
    "js-path-traversal-request-path": RuleInfo(C.PATH_TRAVERSAL, S.HIGH, _MED, "CWE-22"),
    "js-xss-html-from-input": RuleInfo(C.XSS, S.HIGH, _MED, "CWE-79"),
    "js-xss-raw-html-sink": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-79"),
    "js-ssrf-request-url": RuleInfo(C.SSRF, S.HIGH, _MED, "CWE-918"),
    "js-open-redirect-request-url": RuleInfo(C.OPEN_REDIRECT, S.MEDIUM, _MED, "CWE-601"),
    "js-open-redirect-request-location": RuleInfo(C.OPEN_REDIRECT, S.MEDIUM, _MED, "CWE-601"),
    "js-insecure-deserialization-unserialize": RuleInfo(
        C.INSECURE_DESERIALIZATION, S.CRITICAL, _HIGH, "CWE-502"
    ),
    "js-weak-crypto-hash": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    "js-weak-crypto-math-random-token": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-338"),
    "js-weak-crypto-math-random-secret-var": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-338"),
    "js-insecure-config-tls": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _HIGH, "CWE-295"),
    "js-insecure-config-cookie": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _LOW, "CWE-614"),
    "js-insecure-config-cors": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-942"),
    "js-xxe-external-entities": RuleInfo(C.XXE, S.HIGH, _HIGH, "CWE-611"),
    "js-error-handling-empty-catch": RuleInfo(C.ERROR_HANDLING, S.MEDIUM, _MED, "CWE-390"),
    "js-memory-leak-listener-without-cleanup": RuleInfo(C.MEMORY_LEAK, S.MEDIUM, _MED, "CWE-401"),
    "js-memory-leak-per-request-listener": RuleInfo(C.MEMORY_LEAK, S.MEDIUM, _LOW, "CWE-401"),
    "js-n-plus-one-await-in-loop": RuleInfo(C.N_PLUS_ONE_QUERY, S.MEDIUM, _MED),
    "js-blocking-io-sync-fs-in-handler": RuleInfo(C.BLOCKING_IO, S.MEDIUM, _HIGH),
    "js-insecure-deserialization-eval": RuleInfo(
        C.INSECURE_DESERIALIZATION, S.HIGH, _MED, "CWE-502"
    ),
    "js-weak-crypto-pbkdf2-low-iterations": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _HIGH, "CWE-916"),
    "js-weak-crypto-math-random-bytes": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-338"),
    "js-xss-html-template-property": RuleInfo(C.XSS, S.MEDIUM, _LOW, "CWE-79"),
    "js-xss-url-attribute-unchecked": RuleInfo(C.XSS, S.MEDIUM, _LOW, "CWE-79"),
    "js-xss-jquery-html-string": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-79"),
    # a full flow from the page URL to an HTML sink
    "js-xss-dom-source": RuleInfo(C.XSS, S.HIGH, _HIGH, "CWE-79"),
    "js-open-redirect-dom-source": RuleInfo(C.OPEN_REDIRECT, S.MEDIUM, _HIGH, "CWE-601"),
    "js-insecure-config-cors-reflected-origin": RuleInfo(
        C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-942"
    ),
    "go-sql-injection-formatted-query": RuleInfo(C.SQL_INJECTION, S.HIGH, _MED, "CWE-89"),
    "go-command-injection-shell": RuleInfo(C.COMMAND_INJECTION, S.HIGH, _MED, "CWE-78"),
    "go-path-traversal-request-path": RuleInfo(C.PATH_TRAVERSAL, S.HIGH, _MED, "CWE-22"),
    "go-ssrf-request-url": RuleInfo(C.SSRF, S.HIGH, _MED, "CWE-918"),
    "go-open-redirect-request-url": RuleInfo(C.OPEN_REDIRECT, S.MEDIUM, _MED, "CWE-601"),
    "go-xss-unescaped-html": RuleInfo(C.XSS, S.MEDIUM, _LOW, "CWE-79"),
    "go-xss-template-trusted-type": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-79"),
    "go-weak-crypto-math-rand-secret": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-338"),
    "go-hardcoded-secret-flag-default": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _MED, "CWE-1188"),
    "go-weak-crypto-hash": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    "go-insecure-config-tls": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _HIGH, "CWE-295"),
    "go-error-handling-discarded": RuleInfo(C.ERROR_HANDLING, S.MEDIUM, _MED, "CWE-391"),
    "go-memory-leak-ticker-not-stopped": RuleInfo(C.MEMORY_LEAK, S.MEDIUM, _MED, "CWE-401"),
    "go-memory-leak-defer-in-loop": RuleInfo(C.MEMORY_LEAK, S.MEDIUM, _MED, "CWE-772"),
    "go-inefficient-loop-regexp-compile": RuleInfo(C.INEFFICIENT_LOOP, S.LOW, _HIGH),
    "go-inefficient-loop-string-concat": RuleInfo(C.INEFFICIENT_LOOP, S.LOW, _MED),
    "go-n-plus-one-query-in-loop": RuleInfo(C.N_PLUS_ONE_QUERY, S.MEDIUM, _MED),
    "go-naming-underscore": RuleInfo(C.NAMING, S.INFO, _MED),
    "go-sql-injection-builder-concat": RuleInfo(C.SQL_INJECTION, S.HIGH, _MED, "CWE-89"),
    # full flows from request data to the sink
    "go-sql-injection-request-taint": RuleInfo(C.SQL_INJECTION, S.HIGH, _HIGH, "CWE-89"),
    "go-command-injection-request-taint": RuleInfo(
        C.COMMAND_INJECTION, S.CRITICAL, _HIGH, "CWE-78"
    ),
    "go-hardcoded-secret-default-credential": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _MED, "CWE-798"),
    "go-weak-crypto-pbkdf2-low-iterations": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _HIGH, "CWE-916"),
    "go-insecure-config-cors": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-942"),
    # Python: request data reaching a sink within a function (semgrep-core's taint mode).
    "py-sql-injection-taint": RuleInfo(C.SQL_INJECTION, S.HIGH, _MED, "CWE-89"),
    "py-command-injection-taint": RuleInfo(C.COMMAND_INJECTION, S.HIGH, _MED, "CWE-78"),
    "py-code-injection-taint": RuleInfo(C.CODE_INJECTION, S.HIGH, _MED, "CWE-95"),
    "py-path-traversal-taint": RuleInfo(C.PATH_TRAVERSAL, S.HIGH, _MED, "CWE-22"),
    "py-ssrf-taint": RuleInfo(C.SSRF, S.HIGH, _MED, "CWE-918"),
    "py-open-redirect-taint": RuleInfo(C.OPEN_REDIRECT, S.MEDIUM, _MED, "CWE-601"),
    "py-xss-taint": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-79"),
    "py-insecure-deserialization-taint": RuleInfo(
        C.INSECURE_DESERIALIZATION, S.CRITICAL, _HIGH, "CWE-502"
    ),
    # XPath, LDAP and trust-boundary flaws have no category of their own.
    "py-xpath-injection-taint": RuleInfo(C.OTHER, S.HIGH, _MED, "CWE-643"),
    "py-ldap-injection-taint": RuleInfo(C.OTHER, S.HIGH, _MED, "CWE-90"),
    "py-trust-boundary-session-key": RuleInfo(C.OTHER, S.MEDIUM, _LOW, "CWE-501"),
    "py-sql-injection-formatted-query": RuleInfo(C.SQL_INJECTION, S.HIGH, _MED, "CWE-89"),
    "py-path-traversal-commonprefix": RuleInfo(C.PATH_TRAVERSAL, S.HIGH, _MED, "CWE-22"),
    "py-insecure-transport-cleartext-url": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-319"),
    "py-weak-crypto-hash": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    "py-weak-crypto-random-secret": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-338"),
    # Python: insecure calls and settings by their shape.
    "py-insecure-deserialization-yaml": RuleInfo(
        C.INSECURE_DESERIALIZATION, S.HIGH, _HIGH, "CWE-502"
    ),
    "py-jwt-unverified-signature": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _HIGH, "CWE-347"),
    "py-jwt-none-algorithm": RuleInfo(C.WEAK_CRYPTO, S.HIGH, _HIGH, "CWE-327"),
    "py-csrf-protection-disabled": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-352"),
    "py-insecure-cookie-authtkt": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _MED, "CWE-614"),
    "py-cors-wildcard-with-credentials": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _HIGH, "CWE-942"),
    "py-cors-origin-regex-prefix-match": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _LOW, "CWE-625"),
    "py-ssl-unverified-default-context": RuleInfo(C.INSECURE_CONFIG, S.HIGH, _HIGH, "CWE-295"),
    "py-weak-crypto-hashids-secret-key": RuleInfo(C.WEAK_CRYPTO, S.MEDIUM, _MED, "CWE-327"),
    "py-command-injection-shell-argv": RuleInfo(C.COMMAND_INJECTION, S.HIGH, _MED, "CWE-78"),
    "py-mass-assignment-request-data": RuleInfo(C.OTHER, S.MEDIUM, _MED, "CWE-915"),
    "py-sql-injection-query-builder-text": RuleInfo(C.SQL_INJECTION, S.HIGH, _MED, "CWE-89"),
    "py-code-injection-globals-template-context": RuleInfo(
        C.CODE_INJECTION, S.MEDIUM, _MED, "CWE-96"
    ),
    "py-xss-django-autoescape-off": RuleInfo(C.XSS, S.HIGH, _HIGH, "CWE-79"),
    "py-xss-safestring-subclass": RuleInfo(C.XSS, S.MEDIUM, _LOW, "CWE-79"),
    "py-xss-formatted-html-response": RuleInfo(C.XSS, S.MEDIUM, _LOW, "CWE-79"),
    "py-code-injection-eval-built-string": RuleInfo(C.CODE_INJECTION, S.HIGH, _LOW, "CWE-95"),
    "py-insecure-cookie-set-cookie-header": RuleInfo(C.INSECURE_CONFIG, S.MEDIUM, _LOW, "CWE-1004"),
    "py-hardcoded-secret-app-config": RuleInfo(C.HARDCODED_SECRET, S.HIGH, _MED, "CWE-798"),
    # Python: correctness mistakes that change what the code does.
    "py-orm-filter-python-operator": RuleInfo(C.OTHER, S.MEDIUM, _HIGH, "CWE-480"),
    "py-cached-generator": RuleInfo(C.OTHER, S.MEDIUM, _HIGH),
    "py-debugger-left-in": RuleInfo(C.OTHER, S.MEDIUM, _HIGH, "CWE-489"),
    # Python taint coverage from reference models (issue 22): request data into an XML parser.
    "py-xxe-taint": RuleInfo(C.XXE, S.HIGH, _MED, "CWE-611"),
    # JS/TS and Go taint rules from reference models (issue 22).
    "go-path-traversal-archive-entry": RuleInfo(C.PATH_TRAVERSAL, S.HIGH, _MED, "CWE-22"),
    "js-xss-jquery-html-property": RuleInfo(C.XSS, S.MEDIUM, _MED, "CWE-79"),
    "go-xss-html-format-parameter": RuleInfo(C.XSS, S.MEDIUM, _LOW, "CWE-79"),
}

TABLES: dict[str, dict[str, RuleInfo | None]] = {
    "bandit": BANDIT,
    "ruff": RUFF,
    "detect-secrets": SECRETS,
    "python-ast": PYTHON_AST,
    "python-taint": PYTHON_AST,
    "python-settings": PYTHON_AST,
    "python-correctness": PYTHON_AST,
    "semgrep": SEMGREP,
}

# Security regressions (issue 22): the rules are read from the protections catalogue.
TABLES[REGRESSION_TOOL] = {
    rule: RuleInfo(info.category, info.severity, info.confidence, info.cwe)
    for rule, info in regression_rules().items()
}

UNMAPPED = RuleInfo(C.OTHER, S.LOW, _LOW)
# The rule ruff reports for a file it cannot parse, which semgrep's parse errors borrow
# (ignored above, but noted by the agent).
UNPARSABLE_RULE = "invalid-syntax"
# The rule of a hit that says an analyser skipped a file or gave up on part of it (a timeout,
# a crash, a file too deeply nested for it); its message says which and why. Like a parse
# error it is never a finding: the agent notes the file and the review is partial.
NOT_ANALYSED_RULE = "code-guard-not-analysed"


def not_analysed(tool: str, path: str, why: str) -> ToolHit:
    """The hit saying ``tool`` did not analyse (all of) ``path``, ``why`` a short clause such
    as "skipped it (exception while scanning file)"."""
    from code_guard.tools.base import ToolHit

    message = " ".join(f"{tool} {why}".split())
    return ToolHit(tool, NOT_ANALYSED_RULE, path, 1, 1, clip(message, 300))


def lookup(tool: str, rule: str) -> RuleInfo | None:
    """Map ``rule`` of ``tool``: exact id, else the longest listed prefix, else ``UNMAPPED``.

    Returns None only for rules the table deliberately ignores.
    """
    table = TABLES.get(tool, {})
    if rule in table:
        return table[rule]
    prefixes = [key for key in table if key and rule.startswith(key)]
    if prefixes:
        return table[max(prefixes, key=len)]
    return table.get("", UNMAPPED)


def hit_finding(
    agent: AgentName,
    hit: ToolHit,
    info: RuleInfo,
    anchor: str,
    *,
    suggested_fix: str | None = None,
    fix_lines: tuple[int, int] | None = None,
    suppressed_in_pr: str | None = None,
) -> Finding:
    """The finding ``agent`` reports for ``hit``, mapped to ``info``, on source line
    ``anchor``: the form the agents and Bandit alone share, optionally with a one-line fix
    over ``fix_lines`` and the suppression the PR added.

    Every text is bounded here, so no hit can fail to become a finding: the title and the
    description are cut to their limits, and a fix too long to hold (one rewritten line of
    a very long line) is left out, with a sentence in the description saying so.
    """
    first = hit.message.strip().split("\n", 1)[0]
    description = f"{hit.message} ({hit.tool} {hit.rule})"
    if suggested_fix is not None and len(suggested_fix) > FIX_CHARS:
        note = (
            f" A one-line fix is not attached: at {len(suggested_fix):,} characters it is over "
            f"the {FIX_CHARS:,}-character limit of a suggested fix."
        )
        description = clip(description, TEXT_CHARS - len(note)) + note
        suggested_fix, fix_lines = None, None
    return Finding(
        agent=agent,
        file_path=hit.file_path,
        line_start=hit.line,
        line_end=max(hit.end_line, hit.line),
        severity=info.severity,
        category=info.category,
        title=clip(first, TITLE_CHARS) or "Issue",
        description=clip(description, TEXT_CHARS),
        suggested_fix=suggested_fix,
        fix_lines=fix_lines,
        cwe_id=info.cwe,
        confidence=info.confidence,
        sources=(f"{hit.tool}:{hit.rule}",),
        anchor_text=anchor.strip(),
        removed_line=hit.removed_line[:500] or None,
        suppressed_in_pr=clip(suppressed_in_pr, MARK_CHARS) if suppressed_in_pr else None,
    )
