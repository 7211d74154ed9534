"""How semgrep-core is run: the binary, the bundled rules file of each language, the
rewritten copies of Python files it reads, the ``-targets`` file and the command line. Kept
apart from the tool so that the CLI can start a run (``early.py``) before it imports the
agents."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path

from code_guard.errors import ToolError
from code_guard.languages import read_by
from code_guard.rewrites.focus import emptied_outside
from code_guard.rewrites.folding import pruned_source
from code_guard.rewrites.syntax import for_semgrep
from code_guard.rewrites.type_assertions import with_any_for_object_types
from code_guard.tools.base import Focus

# The time one rule may spend on one file, and how many rules may run out of it before the
# file is given up (semgrep's own defaults are 5 s and 3; semgrep-core alone has no limit,
# and one crafted file, thousands of lines of one expression full of request data, held a
# rules file's run for minutes). Generous, since a review runs its analysers side by side on
# a shared runner; every file that hits it is named and makes the review partial.
RULE_TIMEOUT_S = 10.0
_TIMEOUT_THRESHOLD = 3

# semgrep-core's name of each language it reads (``languages.py`` says which those are).
_CORE_NAMES = {"Python": "python", "JavaScript": "js", "TypeScript": "ts", "Go": "go"}


def language_of(path: str) -> tuple[str, str] | None:
    """semgrep-core's language name and the bundled rules file for ``path``, or None when
    Semgrep does not read it."""
    language = read_by("semgrep", path)
    if language is None or language.family is None:
        return None
    return _CORE_NAMES[language.name], f"{language.family}.yml"


def read_as(path: str) -> tuple[str, str]:
    """``language_of`` a path already known to be Semgrep's."""
    found = language_of(path)
    assert found is not None, path  # only files applies_to selected get here
    return found


def semgrep_core() -> Path:
    """Locate the semgrep-core binary shipped in the ``semgrep`` package."""
    try:
        import semgrep
    except ImportError as exc:
        raise ToolError("semgrep is not installed (pip install semgrep)") from exc
    binary = Path(semgrep.__file__).parent / "bin" / "semgrep-core"
    if not binary.is_file():
        raise ToolError(f"semgrep-core not found at {binary}")
    return binary


def rules_file(name: str) -> Path:
    """Path of a bundled rules file."""
    return Path(str(files("code_guard.tools.semgrep") / "rules" / name))


def core_rules(path: Path) -> Path:
    """The file semgrep-core reads for the rules file at ``path``: the JSON twin
    ``scripts/semgrep_rules.py --write`` compiled from exactly this text (its name holds the
    text's digest, so an edited rules file never meets a stale twin), else ``path`` itself.
    semgrep-core reads the same rules from JSON in a third of the time (``python.yml``: 0.04
    against 0.12 s), and every run pays it."""
    try:
        twin = compiled_path(path, path.read_bytes())
    except OSError:
        return path
    return twin if twin.is_file() else path


def compiled_path(path: Path, text: bytes) -> Path:
    """Where the JSON twin of the rules file at ``path`` holding ``text`` lives."""
    digest = hashlib.sha256(text).hexdigest()[:16]
    return path.parent / "compiled" / f"{path.stem}-{digest}.json"


def targets_json(paths: Sequence[str], copies: Mapping[str, Path] | None = None) -> str:
    """semgrep-core's ``-targets`` file: one code target per file, with its analyser (the
    ``targets`` type of semgrep's ``semgrep_output_v1`` interface); a file with a copy in
    ``copies`` is read from the copy."""
    copies = copies or {}
    return json.dumps(
        [
            "Targets",
            [
                [
                    "CodeTarget",
                    {
                        "path": {"fpath": str(copies.get(path, path)), "ppath": "/" + path},
                        "analyzer": read_as(path)[0],
                        "products": ["sast"],
                    },
                ]
                for path in paths
            ],
        ]
    )


def command(rules: Path, targets: Path, rule_timeout: float = RULE_TIMEOUT_S) -> list[str]:
    """The command line of one run of ``rules`` (read from its compiled twin when there is
    one) over the ``targets`` file."""
    # One core (-j 1): a review already runs its analysers side by side, a run per rules
    # file among them, and an eval runs cases side by side. Left to spread over every
    # core, semgrep-core only competed with them: on 2 cores the 3,000-file pull request
    # took 27 s of CPU instead of 20, and 15.6 s instead of 13.8.
    return [
        str(semgrep_core()),
        "-rules",
        str(core_rules(rules)),
        "-targets",
        str(targets),
        "-timeout",
        f"{rule_timeout:g}",
        "-timeout_threshold",
        str(_TIMEOUT_THRESHOLD),
        "-json",
        "-j",
        "1",
    ]


def readable_copies(
    workspace: Path, paths: Sequence[str], scratch: Path, focus: Focus = None
) -> dict[str, Path]:
    """Rewritten copies, under ``scratch``, of the Python files among ``paths`` that have
    ``match`` statements or ``except*`` handlers, code that cannot run, or (with ``focus``)
    functions outside it, and of the TypeScript files with type assertions to object literal
    types (``rewrites/type_assertions.py``), by path; a file that cannot be read is left to
    semgrep-core."""
    copies: dict[str, Path] = {}
    for index, path in enumerate(paths):
        analyser = read_as(path)[0]
        if analyser not in ("python", "ts"):
            continue
        try:
            text = (workspace / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if analyser == "ts":
            typed = with_any_for_object_types(text, tsx=path.endswith(".tsx"))
            if typed is not None:
                copies[path] = _write_copy(scratch, index, path, typed)
            continue
        rewritten = for_semgrep(text)
        # Dead branches and literal elements (``rewrites/folding/``): Semgrep's taint
        # rules join every branch and treat a container as one value.
        pruned = pruned_source(text, rewritten)
        rewritten = pruned if pruned is not None else rewritten
        if focus is not None:
            emptied = emptied_outside(text, focus.get(path, ()), rewritten)
            rewritten = emptied if emptied is not None else rewritten
        if rewritten is None:
            continue
        copies[path] = _write_copy(scratch, index, path, rewritten)
    return copies


def _write_copy(scratch: Path, index: int, path: str, text: str) -> Path:
    """Write the copy of the ``index``-th file under ``scratch``; return its path."""
    # One folder per file keeps its name (and so its suffix) without clashes.
    copy = scratch / str(index) / Path(path).name
    copy.parent.mkdir()
    copy.write_text(text, encoding="utf-8")
    return copy
