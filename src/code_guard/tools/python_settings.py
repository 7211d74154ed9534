"""Insecure framework settings in Python configuration modules (Django's deployment
checklist, Flask-WTF): values that are safe on a laptop and dangerous in production."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import PurePosixPath

from code_guard.tools.python_ast import Check, PythonChecker

# Setting name -> (the insecure value, why it matters).
_INSECURE: dict[str, tuple[object, str]] = {
    "CORS_ORIGIN_ALLOW_ALL": (True, "any origin may call the API with the user's cookies"),
    "CORS_ALLOW_ALL_ORIGINS": (True, "any origin may call the API with the user's cookies"),
    "SESSION_COOKIE_SECURE": (False, "the session cookie travels over plain HTTP"),
    "CSRF_COOKIE_SECURE": (False, "the CSRF cookie travels over plain HTTP"),
    "SESSION_COOKIE_HTTPONLY": (False, "scripts can read the session cookie"),
    "WTF_CSRF_ENABLED": (False, "forms accept cross-site requests"),
    "SECURE_SSL_REDIRECT": (False, "HTTP requests are not redirected to HTTPS"),
}


def _is_production_module(path: str) -> bool:
    """Settings meant for production, by the usual names (``settings/production.py``...)."""
    return any(word in part.lower() for part in PurePosixPath(path).parts for word in ("prod",))


class PythonSettingsTool(PythonChecker):
    """Flags module-level assignments of insecure settings, and ``DEBUG = True`` or a
    wildcard ``ALLOWED_HOSTS`` in production settings."""

    name = "python-settings"

    def check(self, tree: ast.Module, path: str) -> Iterator[Check]:
        """Look at every module-level ``NAME = value``."""
        production = _is_production_module(path)
        for stmt in tree.body:
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                continue
            target = stmt.targets[0]
            if not isinstance(target, ast.Name):
                continue
            reason = _insecure(target.id, stmt.value, production)
            if reason:
                yield "insecure-setting", stmt, f"`{target.id}` is insecure here: {reason}."


def _insecure(name: str, value: ast.expr, production: bool) -> str | None:
    literal = value.value if isinstance(value, ast.Constant) else None
    if name in _INSECURE and isinstance(value, ast.Constant):
        bad, why = _INSECURE[name]
        return why if literal is bad else None
    if production and name == "DEBUG" and literal is True:
        return "debug pages leak settings, source and stack traces to every visitor"
    if name == "ALLOWED_HOSTS" and isinstance(value, ast.List | ast.Tuple):
        hosts = [e.value for e in value.elts if isinstance(e, ast.Constant)]
        if "*" in hosts:
            return "any Host header is accepted (host-header poisoning of password-reset links)"
    return None
