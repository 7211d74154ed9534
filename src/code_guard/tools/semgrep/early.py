"""semgrep-core started while the reviewer is still importing (issue 30: start analysers
early and overlap their start-up).

The CLI knows a change's new files as soon as it has read the diff, but the review starts
only once the agents, checkers and rewrites are imported, and on a small change that import
is as long as semgrep-core's whole run (reading a rules file is most of it). ``start`` runs
semgrep-core at once, per rules file, on its own copy of the text the review will give it
(and of the rewritten copies ``readable_copies`` makes of it), with the command line
``run_rules`` builds. ``run_rules`` takes an early run only when its own run would be the same
one: the same command line (its ``-targets`` file aside, which lists the same files in the
same order), the same files read from a rewritten copy, and every file's bytes equal to what
the early run read. Anything else ends the early run and the review runs semgrep-core
itself, so an early run can make a review sooner, never different. (semgrep-core sorts its
results by file; a copy's name is the same folder-and-index path under each run's own
absolute scratch folder, so the two runs list their results in the same order.)

A run is started for a language only when the CLI can give it every file of that language
the review will read, with the lines each agent's run focuses on (a modified Python file is
read from a copy with its untouched functions emptied, ``rewrites/focus.py``), and only for a
change of at most ``MAX_FILES`` files and ``MAX_CHARACTERS``: a large change gains nothing from
the head start that would pay for a run it might not take.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_guard.tools.base import Focus, finish_process
from code_guard.tools.semgrep.command import (
    command,
    language_of,
    readable_copies,
    rules_file,
    targets_json,
)

# A change larger than this is not started early: its review lasts long enough that
# semgrep-core's start-up is no part of what a user waits for.
MAX_FILES = 100
MAX_CHARACTERS = 1_000_000

_TARGETS = 4  # the index of the -targets file in ``command``'s command line


@dataclass
class EarlyRun:
    """One semgrep-core process started by ``start``, with the files it reads."""

    process: subprocess.Popen[str]
    argv: tuple[str, ...]
    paths: tuple[str, ...]
    root: Path  # the files, under ``scratch``
    copies: Mapping[str, Path]  # the rewritten copies read instead, by path
    scratch: Path

    def original(self) -> dict[str, str]:
        """The path of each file semgrep-core read from a copy, by the copy's name."""
        return {str(copy): path for path, copy in self.copies.items()}

    def finish(self) -> str:
        """Its output, as ``run_process`` returns it (its errors too), then its files gone."""
        try:
            return finish_process(self.process)
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def end(self) -> None:
        """Stop it unused and remove its files."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()
        shutil.rmtree(self.scratch, ignore_errors=True)


_LOCK = threading.Lock()
_RUNS: dict[str, EarlyRun] = {}  # by the command line, -targets file aside


def _key(argv: Sequence[str]) -> str:
    return "\0".join(arg for i, arg in enumerate(argv) if i != _TARGETS)


def start(texts: Mapping[str, str], others: Iterable[str] = (), focus: Focus = None) -> int:
    """Start semgrep-core on ``texts`` (files by path, as the analysers will read them), with
    ``focus`` as the review's runs will have it, one run per bundled rules file, except a rules
    file one of ``others`` (the change's other files) is read by: the review's run would read
    that file too, and never take this one. Returns how many runs started. A change too large,
    a path a file system cannot hold as it is, or any failure starts nothing: the review then
    runs semgrep-core as it always does."""
    if len(texts) > MAX_FILES or sum(map(len, texts.values())) > MAX_CHARACTERS:
        return 0
    taken = {found[1] for path in others if (found := language_of(path)) is not None}
    groups: dict[str, list[str]] = {}
    for path in texts:
        found = language_of(path)
        if found is not None and found[1] not in taken:
            groups.setdefault(found[1], []).append(path)
    started = 0
    for rules, group in sorted(groups.items()):
        try:
            run = _start(rules_file(rules), tuple(sorted(group)), texts, focus)
        except Exception:  # noqa: BLE001 - an early run is an optimisation, never a failure
            continue
        with _LOCK:
            previous = _RUNS.pop(_key(run.argv), None)
            _RUNS[_key(run.argv)] = run
        if previous is not None:
            previous.end()
        started += 1
    return started


def _start(rules: Path, paths: tuple[str, ...], texts: Mapping[str, str], focus: Focus) -> EarlyRun:
    scratch = Path(tempfile.mkdtemp(prefix="code-guard-early-"))
    root = scratch / "files"
    try:
        for path in paths:
            target = (root / path).resolve()
            if path.startswith("/") or root.resolve() not in target.parents:
                raise ValueError(f"{path!r} is not a plain relative path")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(texts[path], encoding="utf-8")
        (scratch / "copies").mkdir()
        copies = readable_copies(root, paths, scratch / "copies", focus)
        targets = scratch / "targets.json"
        targets.write_text(targets_json(paths, copies), encoding="utf-8")
        argv = command(rules, targets)
        process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            argv,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return EarlyRun(
        process=process, argv=tuple(argv), paths=paths, root=root, copies=copies, scratch=scratch
    )


def take(
    argv: Sequence[str], workspace: Path, paths: Sequence[str], copies: Mapping[str, Path]
) -> EarlyRun | None:
    """The early run that is exactly ``argv`` over ``paths`` under ``workspace``, read from
    ``copies`` where the review has them, if one was started: the same command line but for
    its ``-targets`` file, the same files in the same order, the same of them read from a
    copy, and every byte semgrep-core reads the same. A run of that command that differs in
    anything is ended."""
    with _LOCK:
        run = _RUNS.pop(_key(argv), None)
    if run is None:
        return None
    if (
        run.paths == tuple(paths)
        and run.copies.keys() == copies.keys()
        and all(_same(copies.get(p, workspace / p), run.copies.get(p, run.root / p)) for p in paths)
    ):
        return run
    run.end()
    return None


def _same(mine: Path, early: Path) -> bool:
    try:
        return mine.read_bytes() == early.read_bytes()
    except OSError:
        return False


def pending() -> int:
    """How many early runs no review has taken or ended yet."""
    with _LOCK:
        return len(_RUNS)


def discard() -> None:
    """End every early run no review took (a change whose files differed, or a review that
    ended before Semgrep ran)."""
    with _LOCK:
        runs = list(_RUNS.values())
        _RUNS.clear()
    for run in runs:
        run.end()


atexit.register(discard)
