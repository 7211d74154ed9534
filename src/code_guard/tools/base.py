"""The tool interface: a static analyser run over a workspace of the change's new files."""

from __future__ import annotations

import contextvars
import functools
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, ParamSpec, TypeVar

from code_guard.errors import ToolError
from code_guard.findings import clip
from code_guard.languages import suffixes_read_by

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from code_guard.change.diff import FileChange
    from code_guard.change.request import ReviewRequest

# What the Python analysers read (``languages.py``): sources and stubs.
PYTHON_SUFFIXES = suffixes_read_by("bandit")
# The ``time.monotonic()`` by which the review must end, if it has a time budget. A context
# variable, because ``in_tool_thread`` carries it into the threads that run the tools.
DEADLINE: ContextVar[float | None] = ContextVar("code_guard_deadline", default=None)
_PROCESS_TIMEOUT_S = 300.0
# Which lines of each file matter (the lines the change added), for tools whose cost grows
# with the lines they read; None means every line.
Focus = Mapping[str, Collection[int]] | None


P = ParamSpec("P")
R = TypeVar("R")


@functools.cache
def _tool_threads() -> ThreadPoolExecutor:
    """The threads that run tools: enough for every tool of every agent at once, so each
    analyser process starts as soon as its agent asks for it (asyncio's default pool has
    cores + 4 threads, and tools waiting on a shared run would hold them). Made on first use,
    as asyncio and the pool's module are imported then: the CLI imports this module before it
    starts semgrep-core (``tools/semgrep/early.py``), and they are not needed by then."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=32, thread_name_prefix="code-guard-tool")


async def in_tool_thread(func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``asyncio.to_thread`` on the tools' own thread pool: ``func`` runs there with this
    task's context variables (the deadline)."""
    import asyncio

    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
    return await loop.run_in_executor(_tool_threads(), call)


@dataclass(frozen=True, slots=True)
class ToolHit:
    """One raw result of a tool: which rule fired where, in the tool's own words."""

    tool: str
    rule: str
    file_path: str
    line: int
    end_line: int
    message: str
    tool_severity: str = ""  # the tool's own severity word, where it gives one
    removed_line: str = ""  # for a protection the change removed: the removed line that held it
    removed_at: int = 0  # and that removed line's number in the base file (0: none or unknown)
    # The hit sits on an unchanged line of a hunk on purpose: the change deleted a protection
    # above it and added no line to comment on. Reported although only added lines are.
    on_unchanged_line: bool = False
    # The file whose analysis found the hit, when it is reported in another (a flow through a
    # function of another file, reported at its sink there): the base side must read it too.
    found_in: str = ""
    # The mechanism that proved this candidate harmless (a ``Silencing`` value), with the
    # proof in ``message``; empty for a live hit. A tool returns what it silenced instead of
    # dropping it, so the review can count and list it; it never becomes a finding.
    silenced: str = ""
    # Where the tool's analysis put the value it reports, as the file it read numbers lines
    # and columns (first line, first column, last line, column after it; columns from 1, in
    # UTF-8 bytes): empty where the tool does not say. Two tools' spans are equal only when
    # they speak of the same expression (agents/corroboration.py).
    span: tuple[int, int, int, int] | tuple[()] = ()


# The rule of a hit that says an analyser skipped a file or gave up on part of it (a timeout,
# a crash, a file too deeply nested for it); its message says which and why. Like a parse
# error it is never a finding: the agent notes the file and the review is partial.
NOT_ANALYSED_RULE = "code-guard-not-analysed"


def not_analysed(tool: str, path: str, why: str) -> ToolHit:
    """The hit saying ``tool`` did not analyse (all of) ``path``, ``why`` a short clause such
    as "skipped it (exception while scanning file)"."""
    message = " ".join(f"{tool} {why}".split())
    return ToolHit(tool, NOT_ANALYSED_RULE, path, 1, 1, clip(message, 300))


class Tool(ABC):
    """A static analyser. ``run`` is synchronous and is called from a worker thread."""

    name: ClassVar[str]
    # Whether a result in one file depends on the other files of the change (a flow through a
    # function defined in another file). The base-side run then gets every base file it
    # applies to, the ones it reports on in ``focus`` and the rest only to be read.
    reads_other_files: ClassVar[bool] = False

    @abstractmethod
    def applies_to(self, path: str) -> bool:
        """True when this tool can analyse the file at ``path``."""

    @abstractmethod
    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Analyse ``paths`` (relative to ``workspace``), raising ``ToolError`` on a crash."""

    def run_focused(self, workspace: Path, paths: Sequence[str], focus: Focus) -> list[ToolHit]:
        """Like ``run``, told which lines matter; a tool whose cost grows with every line it
        reads overrides this to read only those. By default, the whole files."""
        return self.run(workspace, paths)

    def with_rules(self, rules: frozenset[str]) -> Tool:
        """This tool, needing the results of ``rules`` only (rule names as its hits give
        them): a tool that pays for every rule it runs returns one that runs only those; it
        may still report others. By default, itself."""
        return self


class ChangeTool(Tool):
    """A tool that reads the change itself (both sides of every hunk), not files on disk.

    The agent calls ``run_change``; on a workspace alone there is no change to compare, so
    ``run`` (which the agent's base-side run calls) finds nothing.
    """

    @abstractmethod
    def run_change(self, request: ReviewRequest, files: Sequence[FileChange]) -> list[ToolHit]:
        """Analyse the change of ``files`` (those this tool applies to, among the reviewed)."""

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Nothing: a workspace holds one side of the change only."""
        return []


def is_python(path: str) -> bool:
    """True for Python source files."""
    return path.endswith(PYTHON_SUFFIXES)


def process_timeout() -> float:
    """Seconds an analyser process may take now: its cap, or less if the review's time
    budget ends sooner."""
    deadline = DEADLINE.get()
    if deadline is None:
        return _PROCESS_TIMEOUT_S
    return min(_PROCESS_TIMEOUT_S, max(deadline - time.monotonic(), 0.1))


class ProcessCrash(ToolError):
    """An analyser process that ran but ended with a code it never ends with on success (a
    crash, such as a stack overflow on one file); ``detail`` is how it ended, ``code`` its
    exit code (negative: the signal that ended it)."""

    def __init__(self, message: str, detail: str, code: int) -> None:
        super().__init__(message)
        self.detail = detail
        self.code = code


def run_process(args: Sequence[str], cwd: Path, ok_codes: tuple[int, ...] = (0,)) -> str:
    """Run an analyser and return its stdout, wrapping every failure in ``ToolError`` (a
    process that ran and failed in ``ProcessCrash``)."""
    try:
        process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            list(args),
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    except OSError as exc:
        raise ToolError(f"{args[0]} could not run: {exc}") from exc
    return finish_process(process, ok_codes)


def finish_process(process: subprocess.Popen[str], ok_codes: tuple[int, ...] = (0,)) -> str:
    """Wait for an analyser process (within ``process_timeout``) and return its stdout, as
    ``run_process`` does: for one started earlier (``tools/semgrep/early.py``) too."""
    timeout = process_timeout()
    name = Path(str(process.args[0] if isinstance(process.args, list) else process.args)).name
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        process.kill()
        process.communicate()
        raise ToolError(f"{name} ran out of time after {timeout:.0f} s") from exc
    except BaseException:
        process.kill()
        process.wait()
        raise
    if process.returncode not in ok_codes:
        last = (stderr or stdout).strip().splitlines()[-1:] or ["no output"]
        detail = f"exited {process.returncode}: {last[0][:300]}"
        raise ProcessCrash(f"{name} {detail}", detail, process.returncode)
    return stdout


K = TypeVar("K", bound=Hashable)


class RunCache(Generic[K]):
    """The hits of recent analyser runs by key, so the agents that need the same run share
    one: the first computes it, the others wait for its result. Keys start with the
    workspace, a fresh temporary directory, so a key never refers to stale content."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, list[ToolHit]] = OrderedDict()
        self._pending: dict[K, threading.Lock] = {}

    def get(self, key: K, compute: Callable[[], list[ToolHit]]) -> list[ToolHit]:
        """The hits stored under ``key``, computed by ``compute`` on the first call."""
        with self._lock:
            if key in self._entries:
                return self._entries[key]
            gate = self._pending.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                if key in self._entries:
                    return self._entries[key]
            hits = compute()
            with self._lock:
                self._entries[key] = hits
                self._pending.pop(key, None)
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)
            return hits
