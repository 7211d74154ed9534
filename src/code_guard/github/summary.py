"""The summary comment and the job summary, each within GitHub's size limit.

Both wrap the project's markdown report (``report.markdown.render_markdown``, passed in) with
what only the action knows: where the review was published, which findings could not be
posted inline and why, and why the token could not write when it could not.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from code_guard.findings import Review
from code_guard.github.comments import BADGES, MAX_BODY, fit
from code_guard.github.dismissals import Dismissals
from code_guard.github.publish import SUMMARY_MARKER, PublishResult, Unplaced
from code_guard.github.workflow import fit_summary
from code_guard.report.markdown import dismissal_mark, location
from code_guard.review.dismissals import DISMISSALS_FILE, entries_yaml, file_entry
from code_guard.trust.escaping import code_span, plain_line

Render = Callable[[Review], str]


FULL_LIST = (
    "\n\n> [!NOTE]\n> This comment is cut to GitHub's size limit. Every finding is in the "
    "run's job summary and in the SARIF file (`code-guard.sarif`, output `sarif-file`)."
)


def summary_comment(
    review: Review,
    head_sha: str,
    unplaced: Unplaced,
    render: Render,
    note: str = "",
    limit: int = MAX_BODY,
    decided: str = "",
) -> str:
    """The pull request's summary comment: the report plus the findings not posted inline,
    the dismissals (``decided``, from ``dismissals_section``), and ``note`` (whether the
    model's review was incremental) in its footer.

    Past GitHub's size limit it is cut, and says where the full list is.
    """
    scope = f" ({note})" if note else ""  # the action's own words and commit ids
    footer = f"\n\n<sub>Updated for commit {head_sha} by Ninja Code Guard{scope}.</sub>"
    body = f"{SUMMARY_MARKER}\n{render(review)}{unplaced_section(unplaced)}{decided}"
    if len(body) + len(footer) > limit:
        footer = FULL_LIST + footer
    return fit(body, limit, keep=footer)


def blob_url(pr_html_url: str, head_sha: str) -> str:
    """``https://github.com/o/r/blob/<sha>`` from the pull request's page URL, or ""."""
    repo, sep, _ = pr_html_url.rpartition("/pull/")
    return f"{repo}/blob/{head_sha}" if sep and repo and head_sha else ""


def unplaced_section(unplaced: Unplaced) -> str:
    """The findings that are in the summary only, with the reason for each, folded."""
    if not unplaced:
        return ""
    rows = [
        f"- {BADGES[f.severity]} {code_span(location(f))} {plain_line(f.title)}: {plain_line(why)}"
        for f, why in unplaced
    ]
    head = [
        "",
        "",
        "<details>",
        f"<summary>Not posted inline ({len(unplaced)})</summary>",
        "",
    ]
    return "\n".join([*head, *rows, "", "</details>"]) + "\n"


def job_summary(
    review: Review,
    render: Render,
    result: PublishResult | None,
    problem: str | None = None,
    decided: str = "",
) -> str:
    """The step's job summary: how publishing went, then the report and the dismissals
    (``decided``), within 1 MiB."""
    lines = _publication_lines(result, problem)
    markdown = ("\n".join(lines) + "\n\n" if lines else "") + render(review)
    if result is not None:
        markdown += unplaced_section(result.in_summary)
    return fit_summary(markdown + decided + "\n")


def _publication_lines(result: PublishResult | None, problem: str | None) -> list[str]:
    lines: list[str] = []
    # GitHub's error messages can quote what was sent (a path, a comment): plain text too.
    if problem:
        lines.append(f"> [!WARNING]\n> {plain_line(problem)}")
    if result is None:
        return lines
    lines += [f"> [!WARNING]\n> {plain_line(p)}" for p in result.problems]
    if result.denied:
        lines.append(
            "> [!WARNING]\n> The token cannot write to this pull request, so findings are shown "
            f"as annotations instead. GitHub said: {plain_line(result.denied)}"
        )
    if result.review_url:
        lines.append(f"- Review: {result.review_url} ({result.inline_posted} inline comments)")
    if result.already_commented:
        lines.append(f"- {result.already_commented} findings were already commented earlier")
    if result.summary_url:
        lines.append(f"- Summary comment: {result.summary_url}")
    return lines


# Ignored commands listed one by one; anyone may comment, so the list must stay bounded.
IGNORED_LISTED = 30
HOW_TO_DISMISS = (
    "<sub>To dismiss a finding, someone with write access other than the author replies "
    "`/code-guard dismiss false-positive|accepted-risk|wont-fix <reason>` to its inline "
    "comment, or comments `/code-guard dismiss <id> <kind> <reason>` with the id in its "
    "footer.</sub>"
)


def dismissals_section(dismissals: Dismissals, review: Review) -> str:
    """The dismissed findings (who, when, kind, why), the entries that would keep them on
    every pull request, the commands ignored and why, and the dismissals file's problems:
    one line each. A hint on how to dismiss when a finding still stands."""
    parts: list[str] = []
    dismissed = [f for f in review.findings if f.dismissal is not None]
    if dismissed:
        rows = [
            f"- {BADGES[f.severity]} {code_span(location(f))} {plain_line(f.title)}"
            + dismissal_mark(f)
            for f in dismissed
        ]
        parts.append(f"#### Dismissed ({len(dismissed)})\n\n" + "\n".join(rows))
    offered = [
        file_entry(f, f.dismissal)
        for f in dismissed
        if f.dismissal is not None and f.fingerprint in dismissals.from_comments
    ]
    if offered:
        text = entries_yaml(offered)
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
        parts.append(
            "<details>\n<summary>Keep these dismissals on every pull request</summary>\n\n"
            f"Add to the `dismissals:` list of {code_span(DISMISSALS_FILE)} on the base branch "
            "(a pull request's own additions count once it is merged):\n\n"
            f"{fence}yaml\n{text}{fence}\n\n</details>"
        )
    shown = dismissals.ignored[:IGNORED_LISTED]
    notes = [f"- {_ignored_line(i.who, i.where, i.why)}" for i in shown]
    if len(dismissals.ignored) > len(shown):
        notes.append(f"- …and {len(dismissals.ignored) - len(shown)} more")
    notes += [f"- {plain_line(p)}" for p in dismissals.problems]
    if dismissals.pr_edits_file:
        notes.append(
            f"- this pull request edits {code_span(DISMISSALS_FILE)}: only the base branch's "
            "copy counts, so its changes apply once it is merged"
        )
    if notes:
        count = len(dismissals.ignored) + len(dismissals.problems) + dismissals.pr_edits_file
        head = f"#### Dismissals not applied ({count})"
        parts.append(head + "\n\n" + "\n".join(notes))
    if any(f.dismissal is None for f in review.findings):
        parts.append(HOW_TO_DISMISS)
    return "".join(f"\n\n{p}" for p in parts) + ("\n" if parts else "")


def _ignored_line(who: str, where: str, why: str) -> str:
    """``@login ([comment](url)): why``, or ``path:line: why`` for a command in the diff."""
    if not who:
        return f"{code_span(where)}: {plain_line(why)}" if where else plain_line(why)
    link = f" ([comment]({where}))" if where.startswith("https://") else ""
    return f"{plain_line(who)}{link}: {plain_line(why)}"
