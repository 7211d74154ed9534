"""Which file of the change an import names, resolved by path alone.

The taint check follows a call into a function of another file of the same change
(``from pkg.mod import helper``, ``import pkg.mod as m; m.helper(x)``, ``from .mod import
helper``). It never runs Python's import machinery and never reads a file outside the
change: a module is one of the change's files when its dotted name is a path of one of them
(``pkg/mod.py`` or ``pkg/mod/__init__.py``), below any folder (``src/``, the project's root).
A relative import is resolved from the importing file's folder. A name that fits no file, or
fits several equally well, is not followed.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass
class Bindings:
    """What the imports of one file bind to files of the change: names bound to a function
    of another file (local name -> (file, function name)), and names bound to a module
    (local dotted name, as calls spell it -> file)."""

    functions: dict[str, tuple[str, str]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)


class ModuleIndex:
    """The change's Python files by the dotted module names they may be imported as."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = set(paths)
        self._by_name: dict[str, list[str]] = {}
        for path in self._paths:
            parts = _module_parts(path)
            for start in range(len(parts)):
                self._by_name.setdefault(".".join(parts[start:]), []).append(path)

    def resolve(self, module: str, importer: str) -> str | None:
        """The file ``module`` (absolute, dotted) names when ``importer`` imports it."""
        found = self._by_name.get(module, [])
        if "." not in module:
            # a bare name is a module in the importer's folder or in a folder above it (the
            # root, ``src/``), not any file of that name elsewhere in the tree (``import
            # json`` in ``app.py`` is not ``lib/vendored/json.py``)
            here = posixpath.dirname(importer)
            found = [p for p in found if _within(here, posixpath.dirname(_package_file(p)))]
        if len(found) == 1:
            return found[0]
        # several files fit: the one nearest the importer, when one is nearest
        ranked = sorted(found, key=lambda p: -_shared_depth(p, importer))
        if len(ranked) > 1 and _shared_depth(ranked[0], importer) > _shared_depth(
            ranked[1], importer
        ):
            return ranked[0]
        return None

    def relative(self, level: int, module: str | None, importer: str) -> str | None:
        """The file a relative import (``level`` dots, then ``module``) in ``importer``
        names, or None."""
        folder = posixpath.dirname(importer)
        for _ in range(level - 1):
            if not folder:
                return None
            folder = posixpath.dirname(folder)
        parts = [p for p in (module or "").split(".") if p]
        return self._file(posixpath.join(folder, *parts) if parts else folder)

    def _file(self, stem: str) -> str | None:
        candidates = [posixpath.join(stem, "__init__.py")]
        if stem:
            candidates.insert(0, f"{stem}.py")
        for candidate in candidates:
            candidate = posixpath.normpath(candidate)
            if candidate in self._paths:
                return candidate
        return None

    def bindings(self, tree: ast.Module, importer: str) -> Bindings:
        """What the imports in ``tree`` (the file ``importer``) bind to other files of the
        change."""
        found = Bindings()
        for node in _imports(tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = self.resolve(alias.name, importer)
                    if target is not None and target != importer:
                        # `import a.b` binds `a`, and calls spell `a.b.f()`
                        found.modules[alias.asname or alias.name] = target
                continue
            if node.level:
                base = self.relative(node.level, node.module, importer)
            else:
                base = self.resolve(node.module, importer) if node.module else None
            for alias in node.names:
                local = alias.asname or alias.name
                submodule = (
                    self.relative(node.level, f"{node.module or ''}.{alias.name}", importer)
                    if node.level
                    else self.resolve(f"{node.module}.{alias.name}", importer)
                    if node.module
                    else None
                )
                if submodule is not None and submodule != importer:
                    found.modules[local] = submodule
                elif base is not None and base != importer and alias.name != "*":
                    found.functions[local] = (base, alias.name)
        return found


def _imports(body: Sequence[ast.stmt]) -> Iterable[ast.Import | ast.ImportFrom]:
    """The imports a module runs: at its top level and in its top-level ``if``/``try``
    blocks (``try: import x except ImportError:``); not those inside functions."""
    for stmt in body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            yield stmt
        elif isinstance(stmt, ast.If):
            yield from _imports([*stmt.body, *stmt.orelse])
        elif isinstance(stmt, ast.Try):
            yield from _imports(
                [*stmt.body, *stmt.orelse, *(s for h in stmt.handlers for s in h.body)]
            )


def _module_parts(path: str) -> list[str]:
    stem = path[: -len(".py")] if path.endswith(".py") else path
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return parts


def _package_file(path: str) -> str:
    """``pkg/__init__.py`` stands for the folder ``pkg``, a module file for itself."""
    return posixpath.dirname(path) if posixpath.basename(path) == "__init__.py" else path


def _within(folder: str, root: str) -> bool:
    """Whether ``folder`` is ``root`` or below it (``""`` is the top)."""
    return not root or folder == root or folder.startswith(root + "/")


def _shared_depth(path: str, other: str) -> int:
    a, b = posixpath.dirname(path).split("/"), posixpath.dirname(other).split("/")
    depth = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        depth += 1
    return depth
