"""``code-guard feedback``: the reviewer's precision on a repository, from its pull requests.

Reads the action's inline comments and the dismissals on every pull request updated in the
period (``--since 30d`` or a date), and writes the table (markdown) to standard output, and,
when asked, to the job summary and as JSON. The token is read from ``GITHUB_TOKEN`` (or
``GH_TOKEN``) and needs read access to pull requests; it is never printed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from code_guard.errors import InputError
from code_guard.github.feedback import observe
from code_guard.github.history import RepoHistory
from code_guard.github.retry import RetrySettings
from code_guard.options import DismissBy
from code_guard.report.feedback import (
    RuleStats,
    render_feedback_json,
    render_feedback_markdown,
    tally,
)

DEFAULT_API_URL = "https://api.github.com"
_REPO = re.compile(r"^[\w.-]+/[\w.-]+$")
_DAYS = re.compile(r"^(\d{1,4})d$")

Connect = Callable[[str, str, str], RepoHistory]


def add_feedback_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``code-guard feedback``."""
    parser.add_argument("--repo", required=True, help="the repository, OWNER/NAME")
    parser.add_argument(
        "--since", default="30d", help="pull requests updated since: Nd (days) or YYYY-MM-DD"
    )
    parser.add_argument(
        "--api-url", help="REST API root (default: $GITHUB_API_URL, else api.github.com)"
    )
    parser.add_argument(
        "--dismiss-by",
        choices=[d.value for d in DismissBy],
        default=DismissBy.OTHERS.value,
        help="whose dismissals count, as in the action (default: others)",
    )
    parser.add_argument("--json", type=Path, help="also write the numbers here as JSON")
    parser.add_argument(
        "--job-summary",
        action="store_true",
        help="also append the table to $GITHUB_STEP_SUMMARY (in a workflow)",
    )


def since_date(text: str, now: dt.datetime) -> dt.datetime:
    """``30d`` (days before ``now``) or ``2026-11-01`` (midnight UTC) as an aware datetime."""
    days = _DAYS.match(text.strip())
    if days:
        return now - dt.timedelta(days=int(days.group(1)))
    try:
        day = dt.date.fromisoformat(text.strip())
    except ValueError:
        raise InputError(f"--since {text!r}: give days (30d) or a date (2026-11-01)") from None
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)


def run_feedback_command(
    args: argparse.Namespace,
    environ: Mapping[str, str],
    out: TextIO,
    now: dt.datetime,
    connect: Connect | None = None,
) -> int:
    """Build the report for ``args``; write it to ``out`` and where asked. Returns 0."""
    if not _REPO.match(args.repo):
        raise InputError(f"--repo {args.repo!r}: expected OWNER/NAME")
    token = environ.get("GITHUB_TOKEN") or environ.get("GH_TOKEN") or ""
    if not token:
        raise InputError("set GITHUB_TOKEN (or GH_TOKEN) to a token that can read pull requests")
    api_url = (args.api_url or environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    since = since_date(args.since, now)
    history = (connect or _connect)(token, api_url, args.repo)
    report = build_report(history, since, DismissBy(args.dismiss_by))
    markdown = report.markdown()
    out.write(markdown)
    if args.json is not None:
        _write(args.json, report.json(), "--json")
    if args.job_summary and (summary := environ.get("GITHUB_STEP_SUMMARY")):
        try:
            with Path(summary).open("a", encoding="utf-8") as handle:
                handle.write(markdown)
        except OSError as exc:
            raise InputError(f"cannot write the job summary: {exc.strerror}") from exc
    return 0


@dataclass(frozen=True, slots=True)
class FeedbackReport:
    """The rows of the report, over how many pull requests, since when."""

    rows: tuple[RuleStats, ...]
    pulls: int
    since: str

    def markdown(self) -> str:
        """The job-summary table."""
        return render_feedback_markdown(self.rows, self.pulls, self.since)

    def json(self) -> str:
        """The numbers as JSON."""
        return render_feedback_json(self.rows, self.pulls, self.since)


def build_report(history: RepoHistory, since: dt.datetime, dismiss_by: DismissBy) -> FeedbackReport:
    """Observe every pull request updated since ``since`` and tally what became of the
    action's findings."""
    pulls = history.updated_since(since)
    posted = [
        item
        for seen in pulls
        for item in observe(history.client(seen.info.number), seen.info, dismiss_by)
    ]
    return FeedbackReport(tuple(tally(posted)), len(pulls), since.date().isoformat())


def _connect(token: str, api_url: str, repository: str) -> RepoHistory:
    return RepoHistory.connect(token, api_url, repository, RetrySettings())


def _write(path: Path, text: str, flag: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {flag} {path}: {exc.strerror}") from exc
