"""The package's import graph: no module imports itself back through others, and no folder
imports one above it, so ``ls src/code_guard`` reads as the pipeline, lowest stage first in
``LAYERS``.

Every import counts, lazy ones inside functions too (they run all the same); only imports under
``if TYPE_CHECKING:`` are left out, as they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import code_guard

PACKAGE = Path(code_guard.__file__).resolve().parent
# Lowest first: a unit may import its own modules and those of the units before it. A unit is
# a folder of the package, or a module of its root; the tools' shared interface (tools.base)
# sits below the change it reads, the analysers above it.
LAYERS: tuple[str, ...] = (
    "errors",
    "languages",
    "findings",
    "trust",
    "rewrites",
    "knowledge",
    "options",
    "tools.base",
    "change",
    "tools",
    "model",
    "agents",
    "review",
    "report",
    "arguments",
    "evaluation",
    "github",
    "cli",
    "__main__",
)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(("code_guard", *parts))] = path
    return found


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(inner) for inner in ast.walk(node))
    return hidden


def _imports(path: Path, modules: dict[str, Path]) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("code_guard"):
                continue
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                yield child if child in modules else node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("code_guard"))


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: {target for target in _imports(path, modules) if target != "code_guard"}
        for name, path in modules.items()
    }


def _unit(module: str) -> str:
    parts = module.split(".")[1:]
    if parts[:2] == ["tools", "base"]:
        return "tools.base"
    return parts[0]


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (module names), or [] when there is none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_module_imports_itself_back() -> None:
    assert _cycle(_graph()) == []


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []


def test_every_unit_has_its_layer() -> None:
    units = {_unit(module) for module in _modules() if module != "code_guard"}
    assert units <= set(LAYERS), sorted(units - set(LAYERS))


def test_no_import_runs_up_a_layer() -> None:
    rank = {unit: index for index, unit in enumerate(LAYERS)}
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in _graph().items()
        if source != "code_guard"
        for target in targets
        if rank[_unit(target)] > rank[_unit(source)]
    )
    assert upward == []


def test_the_root_holds_at_most_ten_modules() -> None:
    assert len(list(PACKAGE.glob("*.py"))) <= 10
