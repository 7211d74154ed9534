"""The security agent: Bandit, secret detection, request-to-sink taint checks, and the model."""

from __future__ import annotations

from code_guard.agents.base import Agent
from code_guard.models import AgentName, Category
from code_guard.tools.bandit import BanditTool
from code_guard.tools.base import Tool
from code_guard.tools.python_taint import PythonTaintTool
from code_guard.tools.secrets import SecretsTool


class SecurityAgent(Agent):
    """Finds injection, unsafe deserialisation, secrets, weak crypto and insecure settings."""

    name = AgentName.SECURITY
    focus = (
        "security vulnerabilities: injection (SQL, shell, code), path traversal, XSS, SSRF, "
        "open redirects, insecure deserialisation, XXE, hard-coded secrets, weak cryptography "
        "and insecure configuration. Trace untrusted input (request data, arguments) to the "
        "dangerous call."
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
    )

    def tools(self) -> tuple[Tool, ...]:
        """Bandit for Python, secrets for every file, taint checks for Python handlers."""
        return (BanditTool(), SecretsTool(), PythonTaintTool())
