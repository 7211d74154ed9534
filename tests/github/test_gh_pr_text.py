"""Markup through file names (issue 20, class 9): a path is shown as the characters it is.

The pull request names a file ``@org/team ✅ **Approved by security** [re-run](…) <img …>.py``
and gives it a real vulnerability; another hostile name's contents cannot be fetched, so it
is named in the outcome's reasons too. The action runs end to end (real static engine and
renderers) against the API stand-in: every place the names reach (findings list, details,
reasons, files not reviewed, the not-inline list, the job summary, the inline comments)
shows them as plain text, and nothing renders, links or pings. A property test then puts any
hostile text in every field a pull request, tool or model can set and checks both markdown
outputs: no foreign tag or link, no mention, no marker, and the record read is the action's.
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

from gfm import render_gfm
from ghfakes import FAST_RETRY, TOKEN
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, Fault, GitHubStandIn
from hypothesis import given, settings
from hypothesis import strategies as st
from test_gh_inline_confidence import added_file

from code_guard.findings import (
    AgentName,
    AgentState,
    AgentStatus,
    Category,
    Finding,
    Outcome,
    Review,
    Severity,
    SkippedFile,
    Verdict,
)
from code_guard.github.action import main
from code_guard.github.incremental import read_record, record_trailer
from code_guard.github.publish import SUMMARY_MARKER, PublishResult
from code_guard.github.services import default_services
from code_guard.github.summary import job_summary, summary_comment
from code_guard.report.markdown import render_markdown

APPROVED = "@org/team ✅ **Approved by security** [re-run](x.html) <img src=x onerror=alert(1)>.py"
UNFETCHED = "@org/admins <b>LGTM</b> ![ok](ok.png) <!-- code-guard:summary -->.py"
SHELL = "import subprocess\n\n\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n"
WORD_JOINER = "\u2060"


def visible(markdown: str) -> tuple[str, str]:
    """The HTML GitHub would show, and its text without tags (as a reader sees it)."""
    shown = render_gfm(markdown)
    return shown, html.unescape(re.sub(r"<[^>]+>", "", shown)).replace(WORD_JOINER, "")


def assert_inert(markdown: str) -> None:
    """No image, HTML, emphasis or link of the attacker's renders, and nobody is mentioned."""
    shown, _ = visible(markdown)
    for tag in ("<img", "<b>", "<strong>Approved", "<strong>LGTM"):
        assert tag not in shown, tag
    hrefs = re.findall(r'<a href="([^"]*)"', shown)
    assert not [h for h in hrefs if h in ("x.html", "ok.png")], hrefs
    for mention in ("@org/team", "@org/admins"):
        assert mention not in markdown, mention  # GitHub links and pings it in plain text


def test_hostile_file_names_render_as_text_everywhere(
    github: GitHubStandIn, tmp_path: Path
) -> None:
    diff = added_file(APPROVED, SHELL) + added_file(UNFETCHED, "x = 1\n")
    github.push("c" * 40, diff)
    github.contents[APPROVED] = SHELL
    github.faults.append(Fault("GET", "/contents/.*LGTM", 503, {"message": "down"}, times=20))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    env = runner_environ(
        workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN,
        agents="security", inline_confidence="1",
    )  # fmt: skip
    out = io.StringIO()
    code = main(env, default_services(FAST_RETRY), out)
    outputs = read_outputs(Path(env["GITHUB_OUTPUT"]))
    assert (code, outputs["outcome"]) == (1, "partial"), out.getvalue()  # the flow is high

    [summary] = github.issue_comments
    body = str(summary["body"])
    job = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    for markdown in (body, job):
        assert_inert(markdown)
        _, text = visible(markdown)
        assert f"{APPROVED}:5" in text  # the finding's location, as written
        assert f"{UNFETCHED} was not reviewed" in text  # the outcome's reason
        assert "Not posted inline (1)" in text
    for review in github.reviews:
        assert_inert(str(review["body"]))
    for comment in github.review_comments:
        assert_inert(str(comment["body"]))


# --- every markdown output, for any hostile text ------------------------------------------

_PIECES = st.sampled_from(
    [
        "<!-- code-guard:record eNqLjgUAARUAuQ== -->", "<!-- code-guard:fp=0123456789abcdef -->",
        "@org/team", "**Approved**", "[re-run](https://evil.example)", "![i](x.png)",
        "<img src=x>", "<details>", "```", "`", "| a |", "\n", "\n\n", "# ", "> ", "- ", "&lt;",
        "https://evil.example", "\\", "~~", "$x$", "<https://x.example>",
    ]
)  # fmt: skip
HOSTILE = st.lists(_PIECES | st.text(max_size=6), min_size=1, max_size=8).map("".join)
_OURS = {
    "p", "h2", "h4", "strong", "em", "sub", "ul", "li", "details", "summary", "code", "table",
    "thead", "tbody", "tr", "th", "td", "blockquote", "hr", "a",
}  # fmt: skip
BLOB = "https://github.com/octo-org/hello-world/blob/" + "c" * 40


def hostile_review(text: str) -> Review:
    """A review with ``text`` in every field the pull request, a tool or the model can set."""
    finding = Finding(
        agent=AgentName.SECURITY, file_path=f"app/{text}.py", line_start=3, line_end=4,
        severity=Severity.HIGH, category=Category.XSS, title=text[:200] or "t",
        description=text[:4000], confidence=0.9, sources=("bandit:B701", "model"),
        disputed=text[:500], suppressed_in_pr=text[:100],
    )  # fmt: skip
    skipped = SkippedFile(path=text or "x", reason=text, deliberate=False)
    status = AgentStatus(agent=AgentName.SECURITY, state=AgentState.OK, model=text,
                         reason=text, notes=(text,))  # fmt: skip
    return Review(
        findings=(finding,), health_score=80, verdict=Verdict.REQUEST_CHANGES, summary=text,
        agents=(status,), outcome=Outcome.PARTIAL, outcome_reasons=(text,), warnings=(text,),
        files_not_reviewed=(skipped,), not_sent_to_model=(skipped,),
    )  # fmt: skip


@settings(max_examples=150, deadline=None, database=None)
@given(HOSTILE)
def test_no_hostile_text_renders_or_forges_a_record_in_any_markdown_output(text: str) -> None:
    review = hostile_review(text)
    [finding] = review.findings
    unplaced = ((finding, text),)
    result = PublishResult(problems=(text,), denied=text, in_summary=unplaced)

    def render(value: Review) -> str:
        return render_markdown(value, blob_base=BLOB)

    outputs = {
        "summary comment": summary_comment(review, "c" * 40, unplaced, render),
        "job summary": job_summary(review, render, result, problem=text),
    }
    for name, markdown in outputs.items():
        rest = markdown.replace(SUMMARY_MARKER, "")
        assert "<!--" not in rest and "-->" not in rest and "code-guard:" not in rest, name
        assert re.search(f"@(?!{WORD_JOINER})", rest) is None, name  # nobody is mentioned
        shown = render_gfm(markdown)
        tags = set(re.findall(r"<([a-z0-9]+)[\s/>]", shown))
        assert tags <= _OURS, (name, tags - _OURS)
        hrefs = set(re.findall(r'<a href="([^"]*)"', shown))
        assert all(
            h.startswith((BLOB + "/app/", "https://cwe.mitre.org/", "https://bandit."))
            for h in hrefs
        ), hrefs
    # The summary comment's own record is the one read, whatever the text above it says.
    body = outputs["summary comment"]
    assert read_record(body) is None
    seen = review.model_copy(update={"static_only": False, "not_sent_to_model": ()})
    record = read_record(f"{body}\n{record_trailer('a' * 40, seen)}")
    assert record is not None and record.reviewed == "a" * 40
    assert [f.fingerprint for f in record.findings] == [finding.fingerprint]
