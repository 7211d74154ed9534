"""Workflow commands, step outputs and the job summary, in the runner's formats."""

from __future__ import annotations

import re
from pathlib import Path

from gfm import render_gfm
from ghfakes import FindingFactory, make_review, render_stub
from ghrunner import read_outputs

from code_guard.findings import AgentName, Category, Finding, Severity
from code_guard.github.publish import PublishResult
from code_guard.github.summary import blob_url, job_summary, summary_comment
from code_guard.github.workflow import (
    ANNOTATIONS_PER_LEVEL,
    STEP_SUMMARY_LIMIT,
    annotation,
    annotation_lines,
    command,
    escape_data,
    escape_property,
    fit_summary,
    write_outputs,
)
from code_guard.report.markdown import render_markdown


def test_escaping_follows_the_workflow_command_spec() -> None:
    assert escape_data("50% done\r\nnext::line") == "50%25 done%0D%0Anext::line"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_a_newline_in_a_finding_cannot_inject_a_command(make_finding: FindingFactory) -> None:
    finding = make_finding(
        severity=Severity.LOW,
        title="x, y: z",
        description="bad\n::error::injected",
        file_path="src/a,b.py",
    )
    line = annotation(finding)
    assert "\n" not in line
    assert line == (
        "::notice file=src/a%2Cb.py,line=10,endLine=10,title=[low] x%2C y%3A z"
        "::bad%0A::error::injected"
    )


def test_levels_by_severity(make_finding: FindingFactory) -> None:
    levels = [annotation(make_finding(severity=s)).split(" ", 1)[0] for s in Severity]
    assert levels == ["::error", "::error", "::warning", "::notice", "::notice"]
    assert command("notice", "hi") == "::notice::hi"


def test_outputs_use_heredoc_delimiters(tmp_path: Path) -> None:
    path = tmp_path / "out"
    write_outputs(path, {"one": "1", "multi": "a\nb\nEOF"})
    write_outputs(path, {"two": ""})
    assert read_outputs(path) == {"one": "1", "multi": "a\nb\nEOF", "two": ""}
    assert path.read_text(encoding="utf-8").startswith("one<<ghadelimiter_")
    write_outputs(None, {"ignored": "x"})


def test_job_summary_is_cut_to_one_mebibyte_on_a_character_boundary() -> None:
    text = "é" * STEP_SUMMARY_LIMIT  # two bytes each
    cut = fit_summary(text)
    assert len(cut.encode("utf-8")) <= STEP_SUMMARY_LIMIT
    assert cut.endswith("job summary limit)*\n")
    assert fit_summary("small") == "small"


def test_job_summary_says_how_publishing_went(make_finding: FindingFactory) -> None:
    finding = make_finding()
    review = make_review(finding)
    result = PublishResult(
        review_url="https://github.com/r/pull/7#pullrequestreview-1",
        summary_url="https://github.com/r/pull/7#issuecomment-2",
        inline_posted=1,
        already_commented=2,
    )
    assert job_summary(review, render_stub, result) == (
        "- Review: https://github.com/r/pull/7#pullrequestreview-1 (1 inline comments)\n"
        "- 2 findings were already commented earlier\n"
        "- Summary comment: https://github.com/r/pull/7#issuecomment-2\n\n"
        + render_stub(review)
        + "\n"
    )


def test_summary_comment_lists_unplaced_findings_and_fits(make_finding: FindingFactory) -> None:
    finding = make_finding(title="Pipe | in title")
    review = make_review(finding)
    body = summary_comment(review, "abc123", ((finding, "over the limit"),), render_stub)
    assert body.startswith("<!-- code-guard:summary -->\n## Report")
    assert "- 🟠 High <code>app/db\\.py\\:10</code> Pipe \\| in title: over the limit\n" in body
    assert "<summary>Not posted inline (1)</summary>" in body
    assert body.endswith("<sub>Updated for commit abc123 by Ninja Code Guard.</sub>")
    huge = summary_comment(review, "abc123", (), lambda r: "x" * 100_000)
    assert len(huge) == 65_536 and huge.endswith("Ninja Code Guard.</sub>")


def test_annotations_are_capped_per_level_with_a_notice_of_the_rest() -> None:
    findings = [
        Finding(
            agent=AgentName.SECURITY,
            file_path="a.py",
            line_start=n,
            line_end=n,
            severity=Severity.HIGH if n % 2 else Severity.LOW,
            category=Category.SQL_INJECTION,
            title=f"issue {n}",
            description="",
            confidence=0.9,
            sources=("test",),
        )
        for n in range(1, 31)
    ]
    lines = annotation_lines(findings)
    assert sum(line.startswith("::error ") for line in lines) == ANNOTATIONS_PER_LEVEL
    assert sum(line.startswith("::notice ") for line in lines) == ANNOTATIONS_PER_LEVEL
    assert lines[-1].startswith("::notice::10 more findings are not shown as annotations")


def test_summary_locations_link_to_the_lines_at_the_head_commit(
    make_finding: FindingFactory,
) -> None:
    base = blob_url("https://github.com/octo/shop/pull/7", "abc123")
    assert base == "https://github.com/octo/shop/blob/abc123"
    assert blob_url("", "abc123") == ""
    finding = make_finding(file_path="app/my db.py", line_start=10, line_end=12)
    review = make_review(finding)
    body = summary_comment(review, "abc123", (), lambda r: render_markdown(r, blob_base=base))
    link = "https://github.com/octo/shop/blob/abc123/app/my%20db.py#L10-L12"
    assert f"[<code>app/my db\\.py\\:10\\-12</code>]({link})" in body


def test_a_backtick_in_a_file_name_stays_inside_its_code_span(make_finding: FindingFactory) -> None:
    finding = make_finding(file_path="app/x`y``z.py", title="Title")
    body = summary_comment(make_review(finding), "abc", ((finding, "why"),), render_markdown)
    html = render_gfm(body)
    spans = re.findall(r"<code>(.*?)</code>", html)
    # In the list, the details and the not-inline list, each time whole.
    assert [s for s in spans if "app" in s] == ["app/x`y``z.py:10"] * 3
