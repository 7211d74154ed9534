"""Insecure settings in Python code: framework configuration (Django's deployment checklist,
Flask-WTF), cookie flags, and XML parsers configured to resolve external entities."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import PurePosixPath

from code_guard.tools.python.checker import Check, PythonChecker
from code_guard.tools.python.nodes import walk

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
        """Module-level ``NAME = value``, ``app.config["NAME"] = value`` anywhere, and
        ``set_cookie`` calls without the Secure and HttpOnly flags."""
        production = _is_production_module(path)
        stdlib_xml, lxml = _xml_aliases(tree)
        for node in walk(tree):
            if isinstance(node, ast.Call) and _parses_with(node, stdlib_xml, _STDLIB_PARSE):
                yield (
                    "stdlib-xml-parse",
                    node,
                    "XML is parsed with the standard library's ElementTree, which expands "
                    "entities: a crafted document can exhaust memory (billion laughs) or, with "
                    "other parsers behind it, reach files (XXE). Parse untrusted XML with "
                    "defusedxml.",
                )
                continue
            if isinstance(node, ast.Call) and _parses_with(node, lxml, {"XMLParser"}):
                if not _keyword_is(node, "resolve_entities", False):
                    yield (
                        "xxe-parser",
                        node,
                        "This lxml parser resolves entities (its default): a crafted document "
                        "can read local files or reach internal hosts (XXE). Pass "
                        "resolve_entities=False and no_network=True, or use defusedxml.",
                    )
                continue
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                name = _setting_name(node.targets[0], module_level=node in tree.body)
                reason = _insecure(name, node.value, production) if name else None
                if reason:
                    yield "insecure-setting", node, f"`{name}` is insecure here: {reason}."
            elif isinstance(node, ast.Call) and _resolves_entities(node):
                yield (
                    "xxe-parser",
                    node,
                    "The XML parser resolves entities or loads DTDs: a crafted document can read "
                    "local files or reach internal hosts (XXE). Use defusedxml, or keep "
                    "resolve_entities and load_dtd off.",
                )
            elif isinstance(node, ast.Call) and _is_insecure_cookie(node):
                yield (
                    "insecure-cookie",
                    node,
                    "The cookie is set without `secure=True` (or with `httponly=False`): it can "
                    "travel over plain HTTP or be read by scripts.",
                )


_STDLIB_XML = {"xml.etree.ElementTree", "xml.etree.cElementTree"}
_STDLIB_PARSE = {"fromstring", "fromstringlist", "parse", "XML", "XMLID", "iterparse"}


def _xml_aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names bound, anywhere in the module, to the stdlib ElementTree modules and to
    ``lxml.etree``; a name also bound to a defusedxml module is left out (it may be safe)."""
    stdlib: set[str] = set()
    lxml: set[str] = set()
    defused: set[str] = set()
    for node in walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name in _STDLIB_XML and alias.asname:
                    stdlib.add(bound)
                elif alias.name == "lxml.etree" and alias.asname:
                    lxml.add(bound)
                elif alias.name.startswith("defusedxml"):
                    defused.add(bound)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                bound = alias.asname or alias.name
                full = f"{node.module}.{alias.name}"
                if full in _STDLIB_XML:
                    stdlib.add(bound)
                elif full == "lxml.etree":
                    lxml.add(bound)
                elif node.module.startswith("defusedxml"):
                    defused.add(bound)
    return stdlib - defused, lxml - defused


def _parses_with(call: ast.Call, modules: set[str], functions: set[str]) -> bool:
    """``<module>.<function>(...)`` for one of ``modules`` and ``functions``."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in functions
        and isinstance(func.value, ast.Name)
        and func.value.id in modules
    )


def _keyword_is(call: ast.Call, name: str, value: object) -> bool:
    return any(
        k.arg == name and isinstance(k.value, ast.Constant) and k.value.value is value
        for k in call.keywords
    )


def _setting_name(target: ast.expr, *, module_level: bool) -> str | None:
    """``NAME`` for a module-level ``NAME = ...`` or any ``<x>.config["NAME"] = ...``."""
    if isinstance(target, ast.Name):
        return target.id if module_level else None
    if (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr == "config"
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
    ):
        return target.slice.value
    return None


def _resolves_entities(call: ast.Call) -> bool:
    """``XMLParser(resolve_entities=True)``, ``load_dtd=True`` or ``no_network=False`` (lxml)."""
    if not isinstance(call.func, ast.Attribute | ast.Name):
        return False
    name = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id
    if name != "XMLParser":
        return False
    risky = {"resolve_entities": True, "load_dtd": True, "no_network": False}
    return any(
        k.arg in risky and isinstance(k.value, ast.Constant) and k.value.value is risky[k.arg]
        for k in call.keywords
    )


def _is_insecure_cookie(call: ast.Call) -> bool:
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "set_cookie"):
        return False
    """``secure`` missing or false, or ``httponly`` false. A flag set from an expression
    (``secure=settings.SESSION_COOKIE_SECURE``) is configuration, not a mistake."""
    if any(k.arg is None for k in call.keywords):
        return False  # **options may carry the flags
    flags = {k.arg: k.value for k in call.keywords}
    secure, httponly = flags.get("secure"), flags.get("httponly")
    return secure is None or _is_false(secure) or (httponly is not None and _is_false(httponly))


def _is_false(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value in (False, None, 0)


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
