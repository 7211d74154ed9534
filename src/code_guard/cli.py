"""The command line: ``code-guard review``, ``code-guard eval`` and ``code-guard feedback``.

This is the one place that talks to the user about errors: every ``CodeGuardError`` becomes one
line on stderr and exit code 2; no traceback reaches the user.

Exit codes: 0 reviewed; 1 a finding at or above ``--fail-on`` (or the eval quality gate
failed); 2 bad usage or bad input; 3 an internal error (a bug: please report it); 4 the review
was partial or failed (something was not analysed) under ``--on-error fail``, the default.
"""

from __future__ import annotations

import gc

# Loading the CLI's modules makes some 90,000 objects that live as long as the process, and the
# cyclic collector walked each of them two or three times while they loaded: 0.015 s of a
# one-line review's start-up, before semgrep-core could start. It is paused while they load,
# and what they loaded is then frozen out of its sight (``_loaded``).
_COLLECTING = gc.isenabled()
gc.disable()

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, get_args

from code_guard import package_version
from code_guard.arguments import add_model_arguments, config_values, options_from_args
from code_guard.change.diff import Change, decode_diff, parse_diff
from code_guard.change.linemap import analysed_text
from code_guard.change.patterns import matcher
from code_guard.change.request import ReviewRequest, split_lines
from code_guard.change.workspace import safe_relative
from code_guard.errors import CodeGuardError, InputError
from code_guard.findings import AgentState, AgentStatus, Severity
from code_guard.options import OnError, ReviewOptions
from code_guard.tools.bandit import prestart
from code_guard.tools.semgrep import early
from code_guard.trust.nofollow import read_beneath, write_replacing
from code_guard.trust.sanitize import redact, redact_review

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL, EXIT_INCOMPLETE = 0, 1, 2, 3, 4

# ``report.OutputFormat``'s values (a test holds them equal): importing the renderers imports
# the agents, which a review imports only after it has started semgrep-core (``_review``).
OUTPUT_FORMATS = ("text", "json", "markdown", "sarif")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors raise instead of exiting, so ``main`` owns exit codes."""

    def error(self, message: str) -> Any:
        raise InputError(f"{self.prog}: {message}")


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked (see ``package_version``)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"{parser.prog} {package_version()}")
        parser.exit()


def _build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser. ``eval`` and ``feedback`` get their options only when ``command``
    names them (or is unknown, for an error that lists them): their option functions import
    the evaluation and GitHub code, about 0.1 s that a review does not need."""
    parser = _Parser(prog="code-guard", description="Review a diff the way a senior team would.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    review = commands.add_parser("review", help="review a unified diff")
    review.add_argument("diff", help="diff file, or - for standard input")
    review.add_argument("--root", type=Path, default=Path("."), help="checkout with new files")
    review.add_argument("--format", choices=OUTPUT_FORMATS, default=OUTPUT_FORMATS[0])
    review.add_argument("--output", type=Path, help="write the report here instead of stdout")
    review.add_argument(
        "--fail-on",
        help="exit 1 on a finding at or above this severity, or none "
        "(default: the config file's fail-on, else none)",
    )
    review.add_argument("--paths-ignore", action="append", default=None, metavar="GLOB")
    review.add_argument(
        "--disable-rule",
        action="append",
        default=None,
        metavar="ID",
        help="turn a rule off, as a finding's sources name it (e.g. bandit:B113); repeatable; "
        "replaces the config file's disable-rules",
    )
    review.add_argument(
        "--all-lines", action="store_true", help="also report findings on unchanged lines"
    )
    review.add_argument(
        "--all-findings",
        action="store_true",
        help="also report issues on changed lines that were there before the change",
    )
    review.add_argument(
        "--show-silenced",
        action="store_true",
        help="list each candidate held back on proof (guard, sanitiser, folding, pre-existing, "
        "test file, suppression...) with its reason",
    )
    review.add_argument(
        "--time-budget",
        type=float,
        metavar="MINUTES",
        help="stop after this long (default: 20); what was found is reported, the rest "
        "listed as not done, and the review is partial",
    )
    review.add_argument(
        "--on-error",
        choices=get_args(OnError),
        help="fail (default): exit 4 when the review is partial or failed; warn: exit 0",
    )
    review.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    add_model_arguments(review)
    _add_eval_commands(commands, with_options=command in ("eval", None))
    _add_feedback_command(commands, with_options=command in ("feedback", None))
    return parser


def _add_feedback_command(commands: Any, *, with_options: bool) -> None:
    feedback = commands.add_parser(
        "feedback", help="the reviewer's precision on a repository, from its dismissals"
    )
    if with_options:
        from code_guard.github.feedback_command import add_feedback_arguments

        add_feedback_arguments(feedback)


def _add_eval_commands(commands: Any, *, with_options: bool) -> None:
    evaluate = commands.add_parser("eval", help="score the review against a labelled dataset")
    if with_options:
        from code_guard.evaluation.command import add_eval_arguments

        add_eval_arguments(evaluate)


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, if it is a known one: the top-level parser takes no
    option with a value, so it is the first argument that is not an option."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in ("review", "eval", "feedback") else None


def _read_diff(source: str) -> str:
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read diff {source}: {exc.strerror}") from exc
    return decode_diff(data)


def _contents(change: Change, root: Path) -> dict[str, str]:
    """New-file text from ``root`` where the file there matches the diff's added lines."""
    contents: dict[str, str] = {}
    for file in change.reviewable_files:
        # Not followed: a link (to .git/config, .env...) or a path out of ``root``.
        data = read_beneath(root, file.path)
        if data is None:
            continue  # not on disk as a regular file (or a name refused): rebuilt from the diff
        text = decode_diff(data)
        lines = split_lines(text)
        if all(0 < n <= len(lines) and lines[n - 1] == t for n, t in file.added.items()):
            contents[file.path] = text
        else:
            _say(f"note: {file.path} under {root} does not match the diff; using the diff's text")
    return contents


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _say(message: str) -> None:
    print(f"code-guard: {printable(redact(message))}", file=sys.stderr)


def printable(text: str) -> str:
    """``text`` with control characters escaped: file names come from the diff, and a CR or
    an ANSI escape in one must not break the one-line message or drive the terminal."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _progress(status: AgentStatus) -> None:
    reason = f": {status.reason}" if status.state is not AgentState.OK else ""
    _say(f"{status.agent.value} agent {status.state.value} in {status.duration_ms} ms{reason}")


def _review(args: argparse.Namespace) -> int:
    config = config_values(args)
    extra: dict[str, Any] = {}
    if args.fail_on is not None:
        try:
            flag = args.fail_on.strip().lower()
            extra["fail_on"] = None if flag == "none" else Severity.parse(flag)
        except ValueError as exc:
            raise InputError(f"--fail-on: {exc}") from exc
    elif "fail_on" not in config:
        extra["fail_on"] = None  # on the command line, findings alone do not fail the run
    if args.paths_ignore:
        extra["paths_ignore"] = tuple(args.paths_ignore)
    if args.disable_rule:
        extra["disable_rules"] = tuple(args.disable_rule)
    if args.all_lines:
        extra["added_lines_only"] = False
    if args.on_error:
        extra["on_error"] = args.on_error
    if args.all_findings:
        extra["all_findings"] = True
    if args.time_budget is not None:
        extra["time_budget"] = args.time_budget
    if args.show_silenced:
        extra["show_silenced"] = True
    options = options_from_args(args, config, **extra)
    if not args.root.is_dir():
        raise InputError(f"--root {args.root} is not a directory")
    if args.output is not None:
        _check_writable(args.output)
    change = parse_diff(_read_diff(args.diff))
    request = ReviewRequest(
        change=change,
        contents=_contents(change, args.root),
        gitattributes=_read_text(args.root / ".gitattributes"),
    )
    _start_analysers(request, options)
    # Handed over in a list that ``_finish_review`` empties: no frame keeps the change alive
    # once the review has run (rendering a large review reuses its memory instead of adding
    # to it: the peak of a 3,000-file pull request was its rendering).
    handed = [request]
    del request, change
    try:
        return _finish_review(args, options, handed)
    finally:
        early.discard()


def _start_analysers(request: ReviewRequest, options: ReviewOptions) -> None:
    """Start semgrep-core on the change before the review imports its agents: its start-up
    then overlaps the reviewer's (``tools/semgrep/early.py``; the review takes an early run
    only when its own run would be the same). Bandit's and detect-secrets' workers are not
    started early: on two cores they only slowed semgrep-core (docs/performance.md)."""
    ignored = matcher(options.analysis.paths_ignore)  # as the engine reads it
    files = [
        f
        for f in request.change.reviewable_files
        if f.reviewable and safe_relative(f.path) is not None and not ignored(f.path)
    ]
    texts = {f.path: analysed_text(f.path, request.text_of(f.path)) for f in files}
    others = [f.path for f in request.change.reviewable_files if f.path not in texts]
    focus = None
    if options.analysis.added_lines_only:  # the lines each agent's Semgrep run focuses on
        focus = {f.path: request.added_focus(f) for f in files}
    early.start(texts, others, focus)


def _finish_review(
    args: argparse.Namespace, options: ReviewOptions, handed: list[ReviewRequest]
) -> int:
    # Imported here, after semgrep-core has been started: they are most of the CLI's import.
    with _loading():
        import asyncio

        from code_guard.model.factory import make_llm
        from code_guard.report import RENDERERS, OutputFormat
        from code_guard.review.engine import run_review

    if not options.model.enabled and not args.quiet:
        _say(f"static analysis only: {options.model.static_only_reason}")
    progress = None if args.quiet else _progress
    request = handed.pop()
    review = asyncio.run(run_review(request, options, make_llm(options.model), progress=progress))
    del request  # read no more: see ``_review``
    # Redacted as the action's comments are: the output is often pasted or uploaded.
    text = RENDERERS[OutputFormat(args.format)](redact_review(review))
    if args.output:
        try:
            write_replacing(args.output, text)
        except OSError as exc:
            raise InputError(f"cannot write --output {args.output}: {exc.strerror}") from exc
    else:
        sys.stdout.write(text)
    gate = options.gate
    if gate.fail_on and review.at_or_above(gate.fail_on, count_disputed=gate.count_disputed):
        return EXIT_FINDINGS
    if not review.complete:
        reason = review.outcome_reasons[0] if review.outcome_reasons else "see the report"
        if gate.on_error == "fail":
            _say(f"error: review {review.outcome.value}: {reason} (--on-error warn to allow)")
            return EXIT_INCOMPLETE
        _say(f"warning: review {review.outcome.value}: {reason}")
    return EXIT_OK


@contextlib.contextmanager
def _loading() -> Iterator[None]:
    """Modules loaded without the cyclic collector, then frozen (see ``_loaded``)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        _loaded(collecting)


def _loaded(collecting: bool) -> None:
    """End a pause of the cyclic collector begun before modules were loaded: what they made
    lives as long as the process, so it is frozen (``gc.freeze``: a collection would only walk
    it, as the first review's freeze says), and collection resumes if it ran before."""
    gc.freeze()
    if collecting:
        gc.enable()


def _check_writable(path: Path) -> None:
    """Refuse an ``--output`` that cannot be written before the review runs, not after."""
    if path.is_dir():
        raise InputError(f"--output {path} is a directory")
    if not path.parent.is_dir():
        raise InputError(f"--output {path}: directory {path.parent} does not exist")


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "review":
        return _review(args)
    if args.command == "feedback":
        import datetime as dt

        from code_guard.github.feedback_command import run_feedback_command

        now = dt.datetime.now(dt.UTC)
        return run_feedback_command(args, os.environ, sys.stdout, now)
    from code_guard.evaluation.command import run_eval_command

    return run_eval_command(args)


def run() -> NoReturn:
    """The ``code-guard`` command and ``python -m code_guard``: ``main``, then an exit that
    skips the interpreter's teardown. Freeing every module and object of a review took 0.05 to
    0.08 s a user waits for and nothing needs: the report is written and flushed, the early
    Semgrep runs are ended and the warm analyser workers closed (so their time is still this
    process's children's) before the process ends."""
    code = main()
    if "code_guard.tools.runtime.warm" in sys.modules:
        from code_guard.tools.runtime.warm import close_warm_pools

        close_warm_pools()
    prestart.discard()  # a Bandit worker started with the process that no review took
    early.discard()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code."""
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        args = _build_parser(_command(words)).parse_args(words)
        return _dispatch(args)
    except CodeGuardError as exc:
        _say(f"error: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except Exception as exc:
        if os.environ.get("CODE_GUARD_DEBUG"):
            raise
        _say(f"internal error: {exc!r} (set CODE_GUARD_DEBUG=1 for a traceback)")
        return EXIT_INTERNAL


_loaded(_COLLECTING)  # the pause begun above the imports
