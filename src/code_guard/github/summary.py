"""The summary comment and the job summary, each within GitHub's size limit.

Both wrap the project's markdown report (``report.markdown.render_markdown``, passed in) with
what only the action knows: where the review was published, which findings could not be
posted inline and why, and why the token could not write when it could not.
"""

from __future__ import annotations

from collections.abc import Callable

from code_guard.github.comments import BADGES, MAX_BODY, fit
from code_guard.github.publish import SUMMARY_MARKER, PublishResult, Unplaced
from code_guard.github.workflow import fit_summary
from code_guard.models import Review
from code_guard.report.markdown import location
from code_guard.report.plain import code_span, plain_line

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
) -> str:
    """The pull request's summary comment: the report plus the findings not posted inline,
    and ``note`` (whether the model's review was incremental) in its footer.

    Past GitHub's size limit it is cut, and says where the full list is.
    """
    scope = f" ({note})" if note else ""  # the action's own words and commit ids
    footer = f"\n\n<sub>Updated for commit {head_sha} by Ninja Code Guard{scope}.</sub>"
    body = f"{SUMMARY_MARKER}\n{render(review)}{unplaced_section(unplaced)}"
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
) -> str:
    """The step's job summary: how publishing went, then the report, within 1 MiB."""
    lines = _publication_lines(result, problem)
    markdown = ("\n".join(lines) + "\n\n" if lines else "") + render(review)
    if result is not None:
        markdown += unplaced_section(result.in_summary)
    return fit_summary(markdown + "\n")


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
