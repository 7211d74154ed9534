"""Generate docs/coverage.md: what our rules model, against what a reference analyser models.

The rules are read as data: the bundled Semgrep rules (``tools/semgrep/rules/*.yml``: the
sources, sinks and sanitisers of taint rules; the patterns of pattern rules, whose
``pattern-not`` branches count as sanitisers), the tables of the Python taint and settings checkers
(``tools/python/taint.py``, ``tools/python/settings.py``) and Bandit's call blacklist and
shell-injection lists, each rule mapped to its category through its record in the rule
catalogue (``knowledge/``). The reference (``docs/coverage-reference.yml``) lists, per language
and category, the API names that CodeQL's framework models, Bandit and the OWASP cheat sheets
treat as sources, sinks and sanitisers for the frameworks the README claims.

A reference name counts as covered when a rule of the same language, category and role models
it: a dotted name in one of the rule's patterns matches it, metavariables standing for any
name (or for the names their ``metavariable-regex`` allows). The table gives, per category and
language, how many patterns model each role and how many reference names they cover; the
names left uncovered follow, for whoever adds rules next.

    python scripts/coverage.py            # print the page
    python scripts/coverage.py --write    # write docs/coverage.md
    python scripts/coverage.py --check    # exit 1 when docs/coverage.md is out of date
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # the checkout's code_guard, not an installed copy

from code_guard.agents.security import SecurityAgent  # noqa: E402
from code_guard.findings import Category  # noqa: E402
from code_guard.knowledge.mapping import lookup  # noqa: E402

RULES_DIR = ROOT / "src" / "code_guard" / "tools" / "semgrep" / "rules"
REFERENCE = ROOT / "docs" / "coverage-reference.yml"
OUTPUT = ROOT / "docs" / "coverage.md"

LANGUAGES = ("python", "javascript", "go")
ROLES = ("sources", "sinks", "sanitizers")
# The categories a review reports as security findings: the security agent's, in its order.
CATEGORIES = SecurityAgent.categories
_SEMGREP_LANGUAGES = {
    "python": "python", "javascript": "javascript", "js": "javascript",
    "typescript": "javascript", "ts": "javascript", "go": "go", "golang": "go",
}  # fmt: skip
# A dotted name in a pattern: `a.b`, `$X.attr`, `os.path.join`.
_DOTTED = re.compile(r"[$\w]+(?:\s*\.\s*[$\w]+)*")
_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`""")
_CALL_ARGS = re.compile(r"\([^()]*\)")
# Semgrep's metavariables are upper case: `$queryRawUnsafe` is a name, `$Q` a metavariable.
_METAVARIABLE = re.compile(r"^\$[A-Z_][A-Z0-9_]*$")


@dataclass(frozen=True, slots=True)
class Unit:
    """One modelled pattern: its text, the regexes its metavariables must match, and how to
    read it (a Semgrep pattern, a ``pattern-inside`` around a guarded value, a ``pattern-regex``
    over code, or a regex over a call name)."""

    text: str
    regexes: tuple[tuple[str, str], ...] = ()
    kind: str = "pattern"

    def covers(self, name: str, *, leading: bool = False) -> bool:
        """Whether this unit models the API ``name`` (a dotted name such as ``os.system``);
        with ``leading``, also when ``name`` is a leading part of a modelled name (a source
        ``r.URL`` is read by a rule on ``$R.URL.Query()``)."""
        if self.kind == "regex":
            return _search(self.text, name + "(") or _search(self.text, name)
        if self.kind == "name":
            return _search(self.text, name)
        regexes = dict_of(self.regexes)
        return any(_head_matches(h, name, regexes, leading) for h in _heads(self.text))


def dict_of(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Regexes by metavariable."""
    out: dict[str, list[str]] = defaultdict(list)
    for var, regex in pairs:
        out[var].append(regex)
    return out


@dataclass(frozen=True, slots=True)
class Model:
    """A unit that models ``role`` for ``category`` in ``language``, and where it comes from."""

    language: str
    category: Category
    role: str
    unit: Unit
    origin: str


@dataclass
class Cell:
    """One category in one language: what we model and what the reference lists."""

    models: dict[str, set[Unit]] = field(default_factory=lambda: {r: set() for r in ROLES})
    reference: dict[str, list[tuple[str, str]]] = field(
        default_factory=lambda: {r: [] for r in ROLES}
    )

    def uncovered(self, role: str) -> list[tuple[str, str]]:
        """The reference names of ``role`` no model covers, with where each comes from."""
        return [
            (name, ref)
            for name, ref in self.reference[role]
            if not any(u.covers(name, leading=role == "sources") for u in self.models[role])
        ]


# --- reading the rules ----------------------------------------------------------------


def semgrep_models(files: Iterable[Path]) -> list[Model]:
    """The units of every security rule in the Semgrep rule ``files``."""
    found: list[Model] = []
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for rule in data.get("rules", []):
            info = lookup("semgrep", str(rule.get("id", "")))
            if info is None or info.category not in CATEGORIES:
                continue
            languages = {_SEMGREP_LANGUAGES.get(str(x).lower()) for x in rule.get("languages", [])}
            origin = f"semgrep {rule['id']}"
            for language in sorted(lang for lang in languages if lang):
                for role, unit in rule_units(rule):
                    found.append(Model(language, info.category, role, unit, origin))
    return found


def rule_units(rule: Mapping[str, Any]) -> Iterator[tuple[str, Unit]]:
    """Each unit of one rule with its role: a taint rule's sources, sinks and sanitisers; a
    pattern rule's patterns as sinks and its ``pattern-not`` branches as sanitisers."""
    if rule.get("mode") == "taint":
        for key, role in (("pattern-sources", "sources"), ("pattern-sinks", "sinks"),
                          ("pattern-sanitizers", "sanitizers")):  # fmt: skip
            for item in rule.get(key) or []:
                # a guard is written as the `if` it sits in: its check is in a pattern-inside
                for positive, unit in _units(item, (), inside=role == "sanitizers"):
                    if positive:
                        yield role, unit
        return
    for positive, unit in _units(rule, ()):
        yield ("sinks" if positive else "sanitizers"), unit


def _units(
    node: Any, regexes: tuple[tuple[str, str], ...], *, inside: bool = False
) -> Iterator[tuple[bool, Unit]]:
    """The pattern units under ``node``, each marked positive (``pattern``, and with
    ``inside`` also ``pattern-inside``) or negative (``pattern-not``), with the metavariable
    regexes of the ``patterns`` blocks around it."""
    if not isinstance(node, Mapping):
        return
    if isinstance(node.get("pattern"), str):
        yield True, Unit(node["pattern"], regexes)
    if inside and isinstance(node.get("pattern-inside"), str):
        yield True, Unit(node["pattern-inside"], regexes, "inside")
    if isinstance(node.get("pattern-regex"), str):
        yield True, Unit(node["pattern-regex"], regexes, "regex")
    for key in ("pattern-not", "pattern-not-inside"):
        if isinstance(node.get(key), str):
            yield False, Unit(node[key], regexes)
    for item in node.get("pattern-either") or []:
        yield from _units(item, regexes, inside=inside)
    items = node.get("patterns") or []
    inner = regexes + tuple(
        (str(item["metavariable-regex"]["metavariable"]), str(item["metavariable-regex"]["regex"]))
        for item in items
        if isinstance(item, Mapping) and isinstance(item.get("metavariable-regex"), Mapping)
    )
    for item in items:
        yield from _units(item, inner, inside=inside)


def python_taint_models() -> list[Model]:
    """The sources, sinks and sanitisers of the Python taint checker's tables."""
    module = importlib.import_module("code_guard.tools.python.taint")
    sinks: Mapping[str, str] = getattr(module, "_SINKS", {})
    shell: Sequence[str] = getattr(module, "_SHELL_SINKS", ())
    attrs: Iterable[str] = getattr(module, "_SOURCE_ATTRS", ())
    clean: Iterable[str] = getattr(module, "_SANITIZERS", ())
    words: Sequence[str] = getattr(module, "_SANITIZER_WORDS", ())
    guards: Mapping[str, Sequence[str]] = getattr(module, "_GUARDS", {})
    # Methods the checker matches on any receiver (cursor.execute, Model.objects.raw).
    any_receiver = ("execute", "executemany", "raw", "executescript")
    by_category: dict[Category, list[tuple[str, Unit]]] = defaultdict(list)
    for name, value in sinks.items():
        text = f"$X.{name}" if name in any_receiver else name
        by_category[Category(value)].append(("sinks", Unit(text)))
    for name in shell:
        by_category[Category.COMMAND_INJECTION].append(("sinks", Unit(name)))
    for value, names in guards.items():
        by_category[Category(value)] += [("sanitizers", Unit(f"$X.{n}")) for n in names]
        by_category[Category(value)] += [("sanitizers", Unit(n)) for n in names]
    shared = [("sources", Unit(f"{receiver}.{a}")) for a in sorted(attrs)
              for receiver in ("request", "req", "self.request")]  # fmt: skip
    shared += [("sanitizers", Unit(n)) for n in sorted(clean)]
    if words:
        pattern = r"(?i)^([\w.]*\.)?\w*(" + "|".join(map(re.escape, words)) + r")\w*$"
        shared.append(("sanitizers", Unit(pattern, (), "name")))
    return [
        Model("python", category, role, unit, "python-taint")
        for category, own in by_category.items()
        for role, unit in [*own, *shared]
    ]


def python_settings_models() -> list[Model]:
    """The settings the Python settings checker knows to be insecure at some value."""
    module = importlib.import_module("code_guard.tools.python.settings")
    info = lookup("python-settings", "insecure-setting")
    if info is None or info.category not in CATEGORIES:
        return []
    names: Iterable[str] = getattr(module, "_INSECURE", {})
    return [
        Model("python", info.category, "sinks", Unit(n), "python-settings") for n in sorted(names)
    ]


def bandit_models() -> list[Model]:
    """Bandit's blacklisted calls and shell-injection lists, by the category each rule maps to."""
    # Bandit's plugin loader warns about its own use of stevedore: not this script's concern.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            from bandit.blacklists import calls
            from bandit.plugins import injection_shell
        except ImportError:  # Bandit is a dependency; without it the page says less
            return []
        blacklist = calls.gen_blacklist()["Call"]
        shell = injection_shell.gen_config("shell_injection")
    found: list[Model] = []
    lists: list[tuple[str, Sequence[str]]] = [
        (str(entry["id"]), entry["qualnames"]) for entry in blacklist
    ]
    lists += [("B602", shell["subprocess"]), ("B605", shell["shell"])]
    for rule, names in lists:
        info = lookup("bandit", rule)
        if info is not None and info.category in CATEGORIES:
            found += [
                Model("python", info.category, "sinks", Unit(n), f"bandit {rule}") for n in names
            ]
    return found


def all_models(rules_dir: Path = RULES_DIR, *, tools: bool = True) -> list[Model]:
    """Every model of the bundled rules; ``tools`` adds the taint checker's and Bandit's."""
    paths = sorted(rules_dir.glob("*.yml"))
    if not paths:  # a moved folder must fail the check, not publish an empty table
        raise SystemExit(f"coverage.py: no rules files in {rules_dir}")
    found = semgrep_models(paths)
    if tools:
        found += python_taint_models() + python_settings_models() + bandit_models()
    return found


# --- matching ---------------------------------------------------------------------------


def _search(regex: str, text: str) -> bool:
    try:
        return re.search(regex, text) is not None
    except re.error:
        return False


def _heads(pattern: str) -> set[str]:
    """The dotted names a pattern mentions: as written, and with call arguments taken out
    (``$R.URL.Query().Get(...)`` also gives ``$R.URL.Query.Get``). Strings are not names."""
    text = _STRING.sub('""', pattern)
    collapsed = text
    while _CALL_ARGS.search(collapsed):
        collapsed = _CALL_ARGS.sub("", collapsed)
    names = {re.sub(r"\s+", "", m) for m in _DOTTED.findall(text) + _DOTTED.findall(collapsed)}
    # A lone metavariable names an API only where it is called (`$SAFE(...)`, its name
    # constrained by a regex); elsewhere (`$EL.innerHTML = $X`) it is any value.
    return {
        n
        for n in names
        if not n.replace(".", "").isdigit()
        and (not _METAVARIABLE.match(n) or re.search(re.escape(n) + r"\s*\(", text))
    }


def _head_matches(
    head: str, name: str, regexes: Mapping[str, Sequence[str]], leading: bool
) -> bool:
    """Whether ``name`` is ``head`` (or, with ``leading``, a leading part of it), metavariables
    standing for any name their regexes allow. A head made only of unconstrained
    metavariables (``$F``) matches nothing: it names no API."""
    parts = head.split(".")
    for end in range(len(parts), 0 if leading else len(parts) - 1, -1):
        prefix = parts[:end]
        if all(_METAVARIABLE.match(p) and p not in regexes for p in prefix):
            continue
        groups: list[str] = []
        pieces = []
        for index, part in enumerate(prefix):
            if _METAVARIABLE.match(part):
                groups.append(part)
                pieces.append(r"([\w.]*\w)" if index == 0 else r"(\w+)")
            else:
                pieces.append(re.escape(part))
        match = re.fullmatch(r"\.".join(pieces), name)
        if match is None:
            continue
        values = dict(zip(groups, match.groups(), strict=True))
        if all(_allowed(values[var], regexes.get(var, ())) for var in groups):
            return True
    return False


def _allowed(value: str, regexes: Sequence[str]) -> bool:
    # Semgrep's metavariable-regex matches from the start of the value, like re.match.
    try:
        return all(re.match(regex, value) is not None for regex in regexes)
    except re.error:
        return False


# --- the reference and the page ---------------------------------------------------------


def load_reference(path: Path) -> dict[tuple[str, Category], dict[str, list[tuple[str, str]]]]:
    """The reference names by (language, category) and role, each with where it comes from.

    A language's ``sources`` apply to each of its categories listed under ``tainted`` (a
    source group with ``only`` to the categories it names)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    cells: dict[tuple[str, Category], dict[str, list[tuple[str, str]]]] = {}
    for language in LANGUAGES:
        section = data.get(language) or {}
        groups = section.get("sources") or []
        tainted = {Category(c) for c in section.get("tainted") or []}
        categories = section.get("categories") or {}
        for category in sorted({Category(c) for c in categories} | tainted):
            roles = categories.get(category.value) or {}
            sources = [
                g for g in groups if category.value in g.get("only", [category.value])
            ]
            cells[(language, category)] = {
                "sources": _entries(sources) if category in tainted else [],
                "sinks": _entries(roles.get("sinks") or []),
                "sanitizers": _entries(roles.get("sanitizers") or []),
            }
    return cells


def _entries(groups: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """``[{ref: where, names: [...]}, ...]`` as (name, where) pairs, each name once."""
    seen: dict[str, str] = {}
    for group in groups:
        for name in group.get("names") or []:
            seen.setdefault(str(name), str(group.get("ref", "")))
    return list(seen.items())


def build_cells(
    models: Iterable[Model],
    reference: Mapping[tuple[str, Category], Mapping[str, list[tuple[str, str]]]],
) -> dict[tuple[str, Category], Cell]:
    """Every category × language cell, with its models and its reference names."""
    cells = {(lang, cat): Cell() for cat in CATEGORIES for lang in LANGUAGES}
    for model in models:
        if (model.language, model.category) in cells:
            cells[(model.language, model.category)].models[model.role].add(model.unit)
    for key, roles in reference.items():
        if key in cells:
            for role in ROLES:
                cells[key].reference[role] = list(roles.get(role, []))
    return cells


def _figure(cell: Cell, role: str) -> str:
    # the `if` shapes a guard is rendered in cover names, but are one guard, not many patterns
    modelled = len([u for u in cell.models[role] if u.kind != "inside"])
    total = len(cell.reference[role])
    if not total:
        return f"{modelled} · —" if modelled else "—"
    covered = total - len(cell.uncovered(role))
    return f"{modelled} · {covered}/{total}"


def render(cells: Mapping[tuple[str, Category], Cell]) -> str:
    """The whole page, as markdown."""
    out = [
        "<!-- Generated by `python scripts/coverage.py --write`: do not edit; CI fails when it is"
        " stale. -->",
        "# Coverage of sources, sinks and sanitisers",
        "",
        "What the bundled rules model (the Semgrep rules in `src/code_guard/tools/semgrep/rules/`,",
        "the tables of `tools/python/taint.py` and `tools/python/settings.py`, Bandit's call",
        "lists), per security category and language, against what a reference analyser models",
        "for the frameworks we claim",
        "(`docs/coverage-reference.yml`: CodeQL's framework models, Bandit, OWASP cheat sheets).",
        "",
        "Each cell reads `patterns · covered/reference`: how many patterns of our rules model the",
        "role, and how many of the reference's API names one of them matches. A dash: neither",
        "side lists anything. A name counts as covered when a rule of the same language, category",
        "and role mentions it (metavariables stand for any name their `metavariable-regex`",
        "allows); that is a name match, not proof that every spelling of the call is caught.",
        "",
        "| category | language | sources | sinks | sanitisers |",
        "|---|---|---|---|---|",
    ]
    totals = {r: [0, 0] for r in ROLES}
    for category in CATEGORIES:
        for language in LANGUAGES:
            cell = cells[(language, category)]
            figures = [_figure(cell, role) for role in ROLES]
            out.append(f"| {category.value} | {language} | " + " | ".join(figures) + " |")
            for role in ROLES:
                totals[role][0] += len(cell.reference[role]) - len(cell.uncovered(role))
                totals[role][1] += len(cell.reference[role])
    summary = ", ".join(f"{role} {c}/{t}" for role, (c, t) in totals.items())
    out += ["", f"Reference names covered, all cells: {summary}.", "", "## Not covered yet", ""]
    out.append("Reference names no rule models yet, by cell and role, after where they come from.")
    for category in CATEGORIES:
        for language in LANGUAGES:
            cell = cells[(language, category)]
            missing = [(role, cell.uncovered(role)) for role in ROLES]
            if not any(names for _, names in missing):
                continue
            out += ["", f"### {category.value} · {language}", ""]
            for role, names in missing:
                by_ref: dict[str, list[str]] = defaultdict(list)
                for name, ref in names:
                    by_ref[ref].append(f"`{name}`")
                out += [f"- {role}, {ref}: {', '.join(listed)}" for ref, listed in by_ref.items()]
    return "\n".join(out) + "\n"


def generate(
    rules_dir: Path = RULES_DIR, reference: Path = REFERENCE, *, tools: bool = True
) -> str:
    """The page for the rules in ``rules_dir`` against ``reference``."""
    return render(build_cells(all_models(rules_dir, tools=tools), load_reference(reference)))


def main(argv: Sequence[str] | None = None) -> int:
    """Print, write or check the page; 1 when ``--check`` finds it out of date."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"write {OUTPUT.relative_to(ROOT)}")
    mode.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    parser.add_argument("--rules", type=Path, default=RULES_DIR, help="the Semgrep rules folder")
    parser.add_argument("--reference", type=Path, default=REFERENCE, help="the reference file")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the page to write or check")
    args = parser.parse_args(argv)
    page = generate(args.rules, args.reference)
    if args.write:
        args.output.write_text(page, encoding="utf-8")
        return 0
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != page:
            print(
                f"{args.output.name} is out of date with the rules: "
                "run `python scripts/coverage.py --write` and commit it"
            )
            return 1
        return 0
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
