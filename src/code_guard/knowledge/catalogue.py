"""The rule catalogue: every rule's record, read from data and validated once, on first use.

The records come from three places, all data:

- ``knowledge/rules/<tool>.yml``, one file per analyser: its ``rules`` (records, or
  ``ignored: true`` with a reason) and an optional ``fallback``, the facts of any rule of
  that analyser the file does not list;
- the ``metadata:`` block of each bundled Semgrep rule (``tools/semgrep/rules/*.yml``), so a
  Semgrep rule is one entry of one file, beside ``knowledge/rules/semgrep.yml`` for the ids
  Semgrep reports that are no rule of ours;
- the security-regression detector's protections (``knowledge/protections.yml``), one
  rule per protection and category, with the facts ``knowledge/rules/security-regression.yml``
  adds (``regressions.py``).

An analyser's table is loaded the first time one of its rules is looked up, so a review
reads only the tables of the analysers that found something. A bad record fails the load
with one line naming its file and rule (``CatalogueError``).
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from code_guard.findings import Category
from code_guard.knowledge import regressions
from code_guard.knowledge.fixes import REWRITES
from code_guard.knowledge.loading import load_yaml
from code_guard.knowledge.records import CategoryText, IgnoredRule, RuleRecord

Entry = RuleRecord | IgnoredRule

_PACKAGE = resources.files("code_guard")
_RULES = _PACKAGE / "knowledge" / "rules"
# The Semgrep rules are read as data here; the analyser that runs them is not imported.
SEMGREP_RULES = _PACKAGE / "tools" / "semgrep" / "rules"
SEMGREP = "semgrep"
_LOCK = threading.RLock()
_Model = TypeVar("_Model", bound=BaseModel)


class CatalogueError(ValueError):
    """A data file of the catalogue does not load: one line saying which file, which rule
    and why."""


@dataclass(frozen=True, slots=True)
class Table:
    """One analyser's rules by id, and the facts of the rules it does not list, if any."""

    tool: str
    rules: Mapping[str, Entry]
    fallback: RuleRecord | None = None


def _yaml(text: str, where: str) -> Any:
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        raise CatalogueError(f"{where} is not YAML: {' '.join(str(exc).split())}") from exc


def _valid(model: type[_Model], data: object, where: str) -> _Model:
    """``data`` validated as ``model``, or a ``CatalogueError`` naming the first problem."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "record"
        raise CatalogueError(f"{where}: {field}: {first['msg']}") from exc


def record(tool: str, data: object, where: str) -> Entry:
    """One rule's ``data`` (a mapping from a rules file) as the record of ``tool``'s rule."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data["id"]:
        raise CatalogueError(f"{where}: a rule is a mapping with a string `id`, not {data!r:.80}")
    at = f"{where}: rule {data['id']!r}"
    if "tool" in data:
        raise CatalogueError(f"{at}: tool: the file says which analyser a rule is of")
    if data.get("ignored") is True:
        return _valid(IgnoredRule, {"tool": tool, **data}, at)
    found = _valid(RuleRecord, {"tool": tool, **data}, at)
    if found.rewrite is not None and found.rewrite not in REWRITES:
        raise CatalogueError(f"{at}: rewrite: no rewrite is named {found.rewrite!r}")
    return found


def _add(rules: dict[str, Entry], entry: Entry, where: str) -> None:
    if entry.id in rules:
        raise CatalogueError(f"{where}: rule {entry.id!r} is listed twice")
    rules[entry.id] = entry


def parse_rules(tool: str, text: str, where: str) -> Table:
    """A rules file of ``knowledge/rules/`` (``text``, read from ``where``) as ``tool``'s
    table: ``rules``, a list of records, and an optional ``fallback``."""
    data = _yaml(text, where)
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise CatalogueError(f"{where}: a rules file is a mapping with a `rules` list")
    if extra := sorted(set(data) - {"rules", "fallback"}):
        raise CatalogueError(f"{where}: unknown key {extra[0]!r}")
    rules: dict[str, Entry] = {}
    for item in data["rules"]:
        _add(rules, record(tool, item, where), where)
    fallback = None
    if "fallback" in data:
        if not isinstance(data["fallback"], dict):
            raise CatalogueError(f"{where}: `fallback` is a mapping of facts")
        fallback = _valid(RuleRecord, {**data["fallback"], "tool": tool, "id": ""}, where)
    return Table(tool, rules, fallback)


# A rule of a Semgrep rules file, and its metadata block: every rule file of ours writes its
# rules as ``  - id:`` entries whose keys are indented four spaces, so the block is the lines
# after ``    metadata:`` that are blank, comments, or indented further.
_RULE_ID = "\n  - id:"
_METADATA = "\n    metadata:\n"


def _block_end(text: str, at: int) -> int:
    """Where the metadata block starting at ``at`` ends: at the first line back at a rule's
    own keys (four spaces in, or fewer) that is neither blank nor a comment."""
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[at:end]
        code = line.lstrip()
        if code and not code.startswith("#") and len(line) - len(line.lstrip(" ")) <= 4:
            return at
        at = end + 1
    return len(text)


def semgrep_metadata(text: str, where: str) -> dict[str, object]:
    """The ``metadata:`` block of every rule in Semgrep rules ``text``, by rule id (None for
    a rule without one).

    Only the blocks are parsed: the patterns are most of the file, and only semgrep-core
    reads them (reading the whole file would cost a review several times as much). The test
    suite checks that this gives what a full parse of the file gives.
    """
    text = "\n" + text
    ids: list[tuple[int, str]] = []
    at = text.find(_RULE_ID)
    while at >= 0:
        end = text.find("\n", at + 1)
        ids.append((at, text[at + len(_RULE_ID) : end if end >= 0 else len(text)].strip()))
        at = text.find(_RULE_ID, at + 1)
    if repeated := sorted({i for _, i in ids if sum(i == j for _, j in ids) > 1}):
        raise CatalogueError(f"{where}: rule {repeated[0]!r} is listed twice")
    starts = [start for start, _ in ids]
    blocks: list[str] = []
    at = text.find(_METADATA)
    while at >= 0:
        owner = bisect.bisect(starts, at) - 1
        body = at + len(_METADATA)
        end = _block_end(text, body)
        if owner >= 0:
            blocks.append(f"{ids[owner][1]!r}:\n{text[body:end]}\n")
        at = text.find(_METADATA, end - 1)  # from the newline that ends the block
    found = _yaml("".join(blocks), where) or {}
    return {rule: found.get(rule) for _, rule in ids}


def semgrep_records(text: str, where: str) -> Iterator[Entry]:
    """The records of the Semgrep rules in ``text``: each rule's ``metadata:`` block."""
    for rule, metadata in semgrep_metadata(text, where).items():
        if not isinstance(metadata, dict):
            raise CatalogueError(f"{where}: rule {rule!r} has no `metadata:` block")
        yield record(SEMGREP, {"id": rule, **metadata}, where)


def _read(file: Traversable) -> str:
    return file.read_text(encoding="utf-8")


def _name(file: Traversable) -> str:
    """``file`` as the catalogue names it in an error: from the package folder down."""
    return "/".join(file.parts[-3:]) if hasattr(file, "parts") else file.name


def _load(tool: str) -> Table | None:
    file = _RULES / f"{tool}.yml"
    if not tool or "/" in tool or not file.is_file():
        return None
    if tool == regressions.TOOL:
        facts = _valid(regressions.Facts, _yaml(_read(file), _name(file)), _name(file))
        links = {c: category_text(c).link for c in Category}
        where = f"{_name(file)} with knowledge/protections.yml"
        rules: dict[str, Entry] = {}
        try:
            for derived in regressions.derive(facts, links):
                _add(rules, derived, where)
        except ValueError as exc:
            raise CatalogueError(f"{where}: {exc}") from exc
        return Table(tool, rules)
    table = parse_rules(tool, _read(file), _name(file))
    if tool != SEMGREP:
        return table
    rules = dict(table.rules)
    for path in sorted(SEMGREP_RULES.iterdir(), key=lambda p: p.name):
        if path.name.endswith(".yml"):
            for entry in semgrep_records(_read(path), _name(path)):
                _add(rules, entry, _name(path))
    return Table(tool, rules, table.fallback)


_TABLES: dict[str, Table | None] = {}


def table(tool: str) -> Table | None:
    """The table of ``tool`` (None for an analyser the catalogue does not know), loaded and
    validated on first use."""
    try:
        return _TABLES[tool]
    except KeyError:
        pass
    with _LOCK:  # the agents' threads look rules up at once; each table is read once
        if tool not in _TABLES:
            _TABLES[tool] = _load(tool)
        return _TABLES[tool]


def tools() -> tuple[str, ...]:
    """Every analyser the catalogue has a table for, in the order of their files' names."""
    names = (f.name for f in _RULES.iterdir())
    return tuple(sorted(n.removesuffix(".yml") for n in names if n.endswith(".yml")))


def entries() -> tuple[Entry, ...]:
    """Every entry of every table, ignored rules included (this loads them all)."""
    return tuple(e for tool in tools() if (t := table(tool)) for e in t.rules.values())


def records() -> tuple[RuleRecord, ...]:
    """Every rule the review reports, with its facts (this loads every table)."""
    return tuple(e for e in entries() if isinstance(e, RuleRecord))


def parse_categories(text: str, where: str) -> dict[Category, CategoryText]:
    """The category texts file (``text``, read from ``where``): every category's why, fix
    and link."""
    data = _yaml(text, where)
    if not isinstance(data, dict):
        raise CatalogueError(f"{where}: a mapping from each category to its texts")
    names = {c.value for c in Category}
    texts: dict[Category, CategoryText] = {}
    for key, value in data.items():
        if key not in names:
            raise CatalogueError(f"{where}: {key!r} is not a category")
        texts[Category(key)] = _valid(CategoryText, value, f"{where}: category {key!r}")
    if missing := [c.value for c in Category if c not in texts]:
        raise CatalogueError(f"{where}: no text for category {missing[0]!r}")
    return texts


_CATEGORIES: dict[Category, CategoryText] | None = None


def category_text(category: Category) -> CategoryText:
    """The why, fix and link of ``category``: what a rule without its own text says."""
    global _CATEGORIES
    if _CATEGORIES is None:
        with _LOCK:
            if _CATEGORIES is None:
                file = _PACKAGE / "knowledge" / "categories.yml"
                _CATEGORIES = parse_categories(_read(file), _name(file))
    return _CATEGORIES[category]
