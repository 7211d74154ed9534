"""Which findings stay quiet in test code.

Tests, fixtures and examples are written to exercise code, not to run in production: they
skip timeouts, ignore errors, loop over queries, configure apps insecurely and feed request
data through test clients on purpose, and Go names test cases ``TestX_y``. A comment on them
costs a reviewer's trust and protects nothing, so these rules are quiet in test files
(``placeholders.is_test_path``). Rules about code that ships from a test all the same, such
as a real token format, stay on.
"""

from __future__ import annotations

_QUIET_RULES: frozenset[tuple[str, str]] = frozenset(
    {
        ("bandit", "B113"),  # request without a timeout
        ("python-ast", "n-plus-one"),
        ("python-ast", "blocking-in-async"),
        ("python-ast", "unbounded-cache"),
        ("python-ast", "linear-scan-in-loop"),
        ("semgrep", "js-n-plus-one-await-in-loop"),
        ("semgrep", "go-error-handling-discarded"),
        ("semgrep", "go-memory-leak-defer-in-loop"),
        ("semgrep", "go-n-plus-one-query-in-loop"),
        ("semgrep", "go-naming-underscore"),
        ("semgrep", "go-sql-injection-request-taint"),
        ("semgrep", "go-command-injection-request-taint"),
        # accounts and CORS set up for a test server are fixtures
        ("semgrep", "go-hardcoded-secret-default-credential"),
        ("semgrep", "go-insecure-config-cors"),
        ("semgrep", "js-insecure-config-cors-reflected-origin"),
        # request data from a test client is the point of a test
        ("semgrep", "py-sql-injection-taint"),
        ("semgrep", "py-command-injection-taint"),
        ("semgrep", "py-code-injection-taint"),
        ("semgrep", "py-path-traversal-taint"),
        ("semgrep", "py-ssrf-taint"),
        ("semgrep", "py-open-redirect-taint"),
        ("semgrep", "py-xss-taint"),
        ("semgrep", "py-xpath-injection-taint"),
        ("semgrep", "py-ldap-injection-taint"),
        ("semgrep", "py-trust-boundary-session-key"),
        ("semgrep", "py-weak-crypto-random-secret"),
        ("semgrep", "py-insecure-deserialization-taint"),
        ("semgrep", "py-xss-formatted-html-response"),
        # test apps and test clients turn protections off on purpose, and tests read a
        # token's claims without verifying it
        ("semgrep", "py-csrf-protection-disabled"),
        ("semgrep", "py-insecure-cookie-authtkt"),
        ("semgrep", "py-cors-wildcard-with-credentials"),
        ("semgrep", "py-jwt-unverified-signature"),
        # tests fetch from fixture servers over plain http on purpose
        ("semgrep", "py-insecure-transport-cleartext-url"),
        # user:password@host URLs in tests are fixtures of URL parsing, not credentials.
        ("detect-secrets", "Basic Auth Credentials"),
        # Python taint coverage from reference models (issue 22)
        ("semgrep", "py-xxe-taint"),
    }
)
# Whole checkers about production behaviour: request data from a test client, settings of an
# app built for a test.
_QUIET_TOOLS = frozenset({"python-taint", "python-settings"})


def quiet_in_tests(tool: str, rule: str) -> bool:
    """True when a hit of ``tool``'s ``rule`` is not reported in test code."""
    return tool in _QUIET_TOOLS or (tool, rule) in _QUIET_RULES
