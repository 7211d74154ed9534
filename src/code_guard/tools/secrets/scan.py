"""The detect-secrets scan itself, run by ``tools/secrets/tool.py`` in a process of its own.

    python -I -m code_guard.tools.secrets.scan REQUEST.json

The request maps each file to its lines to scan, as [line number, text] pairs. The answer, on
stdout, is ``{"hits": [[path, line, type], ...]}`` or ``{"error": ...}``.
In its own process the scan neither holds the reviewer's GIL nor shares detect-secrets' global
settings with another thread.

Most lines cannot hold a secret, yet detect-secrets costs as much on them as on any other:
each plugin is called through its dependency injection. So each file is first narrowed to the
lines some plugin's own patterns match, with the five lines either side that its filters read
as context; the library then scans only those, with its own plugins, filters and settings, and
finds exactly what it finds in the whole file. A file that one of its transformers (YAML, INI)
can parse is scanned whole, since the transformed lines are not the file's lines.
"""

from __future__ import annotations

import io
import json
import math
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import cast

# Detectors that guess from a variable's name or a string's entropy rather than a token format.
GUESSING_DETECTORS = frozenset(
    {"Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String"}
)
# How many lines either side of a line detect-secrets' filters read (its default).
_CONTEXT = 5
Hit = tuple[str, int, str]  # path, line, secret type
LineTest = Callable[[str], bool]
# Below this many lines, a scan reads every line rather than compile the line tests first, as
# long as no scan of this process has compiled them (``re`` keeps them compiled after): that
# costs about 6 ms, and scanning a line 0.06 ms. The scan finds the same either way, since the
# tests only pass over lines no plugin can flag.
_NARROW_FROM = 100
_compiled = False
_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=")
_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")


def scan(lines: Mapping[str, Sequence[tuple[int, str]]]) -> list[Hit]:
    """The secrets in ``lines`` (each file's lines to scan, as (line number, text) in order):
    detect-secrets' default plugins and filters, then once more line by line for token
    formats alone.

    The file scan's heuristics drop any value on a line that reads another value
    (``os.environ.get("TOKEN", "ghp_...")``), which hides real tokens used as defaults; a
    token with a known format is a leak wherever it sits, so the second pass keeps those.
    """
    from detect_secrets.core.scan import scan_line
    from detect_secrets.core.secrets_collection import SecretsCollection
    from detect_secrets.settings import default_settings, get_plugins, transient_settings

    found: dict[Hit, None] = {}
    count = sum(len(numbered) for numbered in lines.values())
    # The lines the first pass's test let through: the second pass's plugins are among the
    # first pass's, so no other line can hold what they look for.
    flagged: dict[str, set[int]] = {}
    with tempfile.TemporaryDirectory(prefix="code-guard-secrets-") as tmp:
        scratch = Path(tmp)
        with default_settings():
            may_hold = _test_for(count)
            first_pass = {type(plugin).__name__ for plugin in get_plugins()}
            collection = SecretsCollection(root=str(scratch))
            numbers: dict[str, list[int]] = {}
            for path, every in lines.items():
                target = scratch / path
                numbered = _narrowest(target, every, may_hold, flagged.setdefault(path, set()))
                numbers[path] = [n for n, _ in numbered]
                if numbered:  # an empty file holds nothing, and costs a file to write
                    collection.scan_file(path)
            for filename, secrets in collection.data.items():
                path = Path(filename).as_posix()
                for secret in secrets:
                    if secret.line_number and secret.line_number <= len(numbers[path]):
                        found[(path, numbers[path][secret.line_number - 1], secret.type)] = None
        # The second pass looks for token formats only: the guessing detectors already ran
        # above, and they cost more than all the token formats together.
        tokens = _token_plugins()
        narrowed = set(tokens) <= first_pass
        with transient_settings({"plugins_used": [{"name": n} for n in tokens]}):
            may_hold = _test_for(count)
            for path, numbered in lines.items():
                for number, line in numbered:
                    # The first pass tested the line without trailing blanks.
                    if narrowed and number not in flagged[path] and line == line.rstrip():
                        continue
                    if line.strip() and may_hold(line):
                        for secret in scan_line(line):
                            found[(path, number, secret.type)] = None
    return list(found)


def _text(numbered: Sequence[tuple[int, str]]) -> str:
    return "".join(line + "\n" for _, line in numbered)


def _write(target: Path, numbered: Sequence[tuple[int, str]]) -> None:
    target.write_text(_text(numbered), encoding="utf-8")


class _NamedText(io.StringIO):
    """Text read as from a file named ``name``: what detect-secrets' transformers read, with
    the universal newlines of a file opened for reading, and no file to write first."""

    def __init__(self, text: str, name: str) -> None:
        super().__init__(text, newline=None)
        self.name = name


def _narrowest(
    target: Path, numbered: Sequence[tuple[int, str]], may_hold: LineTest, flagged: set[int]
) -> Sequence[tuple[int, str]]:
    """Write the lines to scan at ``target`` and return them: the narrowed lines, or all of
    them when a transformer would read either version as structured data; nothing is written
    when there is no line to scan. The numbers of the lines ``may_hold`` let through are added
    to ``flagged``."""
    narrow = _narrowed(numbered, may_hold, flagged)
    if (
        len(narrow) < len(numbered)
        and not _transformed(target, _text(narrow))
        and not _transformed(target, _text(numbered))
    ):
        numbered = narrow
    if numbered:
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, numbered)
    return numbered


def _test_for(count: int) -> LineTest:
    """The line test of the active plugins for a scan of ``count`` lines: every line, for a
    few lines while the tests have not been compiled here yet (``_NARROW_FROM``)."""
    global _compiled
    if count < _NARROW_FROM and not _compiled:
        return _every_line
    _compiled = True
    return _line_test()


def _every_line(line: str) -> bool:
    return True


def _line_test() -> LineTest:
    """True for a line where one of the active plugins could find something: a superset of
    what they find, from the patterns each plugin searches a line with (scan_file's, not the
    eager ones of ad hoc scans). A plugin of unknown shape makes every line a candidate."""
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
    from detect_secrets.plugins.keyword import (
        DENYLIST,
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        REGEX_BY_FILETYPE,
        KeywordDetector,
    )
    from detect_secrets.settings import get_plugins

    patterns: list[re.Pattern[str]] = []
    keyworded: list[re.Pattern[str]] = []
    words = "|".join(DENYLIST)
    keyword = re.compile(words, re.IGNORECASE)
    # Each entropy plugin, its limit, and the length up to which no string can pass it.
    entropy: list[tuple[HighEntropyStringsPlugin, float, int]] = []
    for plugin in get_plugins():
        if isinstance(plugin, HighEntropyStringsPlugin):
            # A quoted string of its alphabet, above its entropy limit. A string of n
            # characters has an entropy of at most log2(n), so one of up to 2**limit
            # characters cannot pass; one fewer, in case rounding lifts log2(n) above it.
            limit = plugin.entropy_limit
            entropy.append((plugin, limit, max(math.ceil(2**limit) - 2, 0)))
        elif isinstance(plugin, KeywordDetector):
            for table in (*REGEX_BY_FILETYPE.values(), QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP):
                for pattern in table:
                    # Each needs a keyword first; those that do are searched only after one.
                    needs_word = words in pattern.pattern and pattern.flags & re.IGNORECASE
                    (keyworded if needs_word else patterns).append(pattern)
        elif isinstance(plugin, RegexBasedDetector):
            patterns.extend(plugin.denylist)
        else:
            return lambda line: True
    unique = _combined(dict.fromkeys(patterns))
    after_keyword = _combined(dict.fromkeys(keyworded))

    def may_hold(line: str) -> bool:
        if any(p.search(line) for p in unique):
            return True
        if keyword.search(line) and any(p.search(line) for p in after_keyword):
            return True
        return any(
            len(match[1]) > shortest and plugin.calculate_shannon_entropy(match[1]) > limit
            for plugin, limit, shortest in entropy
            for match in plugin.regex.findall(line)
        )

    return may_hold


def _combined(patterns: Iterable[re.Pattern[str]]) -> list[re.Pattern[str]]:
    """Fewer patterns that match where any of ``patterns`` does: one alternation per set of
    flags, except patterns that refer back to their own groups, which stay apart."""
    apart: list[re.Pattern[str]] = []
    by_flags: dict[int, list[str]] = {}
    for pattern in patterns:
        if _BACKREFERENCE.search(pattern.pattern) or _GLOBAL_FLAGS.match(pattern.pattern):
            apart.append(pattern)
        else:
            by_flags.setdefault(pattern.flags, []).append(f"(?:{pattern.pattern})")
    for flags, sources in by_flags.items():
        try:
            apart.append(re.compile("|".join(sources), flags))
        except re.error:
            apart.extend(re.compile(source, flags) for source in sources)
    return apart


def _narrowed(
    numbered: Sequence[tuple[int, str]], may_hold: LineTest, flagged: set[int]
) -> list[tuple[int, str]]:
    """The lines a plugin may flag, with the context their filters read around them; the
    numbers of the lines themselves are added to ``flagged``."""
    keep = [False] * len(numbered)
    for index, (number, line) in enumerate(numbered):
        if may_hold(line.rstrip()):
            flagged.add(number)
            for near in range(max(index - _CONTEXT, 0), min(index + _CONTEXT + 1, len(keep))):
                keep[near] = True
    return [pair for pair, kept in zip(numbered, keep, strict=True) if kept]


def _transformed(target: Path, text: str) -> bool:
    """True when one of detect-secrets' transformers would read ``text``, as the content of
    ``target``, as structured data (YAML, or INI-like config) instead of as lines."""
    from detect_secrets.transformers import get_transformers
    from detect_secrets.transformers.base import BaseTransformer
    from detect_secrets.transformers.exceptions import ParsingError
    from detect_secrets.types import NamedIO

    transformers: Iterable[BaseTransformer] = get_transformers()
    with _NamedText(text, str(target)) as handle:
        for transformer in transformers:
            if not transformer.should_parse_file(str(target)):
                continue
            try:
                if transformer.parse_file(cast(NamedIO, handle)):
                    return True
            except ParsingError:
                pass
            finally:
                handle.seek(0)
    return False


def _token_plugins() -> list[str]:
    """detect-secrets' plugins that recognise a token format (not a name or an entropy)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    return sorted(cls.__name__ for kind, cls in plugins.items() if kind not in GUESSING_DETECTORS)


def main(argv: Sequence[str]) -> int:
    """Read the request file named by ``argv[0]``, print the answer as JSON."""
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        hits = scan({path: [(n, line) for n, line in pairs] for path, pairs in request.items()})
    except Exception as exc:  # noqa: BLE001 - the library raises anything; report it as data
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"[:500]}))
        return 0
    print(json.dumps({"hits": hits}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
