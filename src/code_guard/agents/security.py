"""The security agent: Bandit, secret detection, request-to-sink taint checks, removed
protections and access checks, and the model."""

from __future__ import annotations

from code_guard.agents.base import Agent
from code_guard.findings import AgentName, Category
from code_guard.knowledge.mapping import lookup
from code_guard.knowledge.placeholders import is_placeholder_value, is_test_path
from code_guard.tools.access.tool import AccessControlTool
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import Tool, ToolHit
from code_guard.tools.python.settings import PythonSettingsTool
from code_guard.tools.python.taint import PythonTaintTool
from code_guard.tools.regressions.tool import RegressionTool
from code_guard.tools.secrets.tool import GUESSING_DETECTORS, SecretsTool
from code_guard.tools.semgrep.tool import SemgrepTool


class SecurityAgent(Agent):
    """Finds injection, unsafe deserialisation, secrets, weak crypto, insecure settings and
    access checks taken away."""

    name = AgentName.SECURITY
    focus = (
        "security vulnerabilities: injection (SQL, shell, code), path traversal, XSS, SSRF, "
        "open redirects, insecure deserialisation, XXE, hard-coded secrets, weak cryptography "
        "and insecure configuration. Trace untrusted input (request data, arguments) to the "
        "dangerous call. Also broken access control and CSRF: an authorization, authentication "
        "or CSRF check (decorator, dependency, middleware, deny branch) the change takes away "
        "from a handler, or a new handler without the check its siblings have."
    )
    categories = (
        Category.SQL_INJECTION,
        Category.COMMAND_INJECTION,
        Category.CODE_INJECTION,
        Category.PATH_TRAVERSAL,
        Category.XSS,
        Category.SSRF,
        Category.INSECURE_DESERIALIZATION,
        Category.HARDCODED_SECRET,
        Category.WEAK_CRYPTO,
        Category.INSECURE_CONFIG,
        Category.XXE,
        Category.OPEN_REDIRECT,
        Category.BROKEN_ACCESS_CONTROL,
        Category.CSRF,
    )

    def tools(self) -> tuple[Tool, ...]:
        """Bandit, taint and settings checks for Python, semgrep rules for JS/TS/Go, and
        secrets for every file."""
        return (
            BanditTool(),
            SecretsTool(),
            PythonTaintTool(),
            PythonSettingsTool(),
            SemgrepTool(self.categories),
            RegressionTool(),
            AccessControlTool(),
        )

    def keep(self, hit: ToolHit, line: str) -> bool:
        """Drop name- or entropy-based secret guesses in tests or on placeholder values.

        Detectors of a specific token format (cloud keys, private keys) are always kept:
        a real token committed in a test leaks just the same.
        """
        info = lookup(hit.tool, hit.rule)
        if info is None or info.category is not Category.HARDCODED_SECRET:
            return True
        if hit.tool == "detect-secrets" and hit.rule not in GUESSING_DETECTORS:
            return True
        # In tests, a secret-looking name holds a fixture, not a credential.
        return not is_test_path(hit.file_path) and not is_placeholder_value(line)
