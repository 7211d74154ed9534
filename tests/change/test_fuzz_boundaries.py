"""Property tests at the review's real boundaries: hostile file names written to disk, diffs
with odd line endings and hunk headers, anchoring, every renderer, and the CLI as a process.

``CODE_GUARD_FUZZ_EXAMPLES`` sets the number of examples of the fast properties (``.ci/run``
runs 2,000 with a fixed seed and again with a rotating one); the CLI property, a process per
example, runs a tenth of that.
"""

from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from code_guard.agents.anchoring import anchor_line
from code_guard.change.diff import parse_diff
from code_guard.change.linemap import analysed_text
from code_guard.change.request import ReviewRequest
from code_guard.change.workspace import materialize, safe_relative
from code_guard.errors import DiffError
from code_guard.findings import AgentName, Category, Finding, Review, Severity
from code_guard.report import RENDERERS, OutputFormat
from code_guard.review.synthesizer import synthesize

EXAMPLES = int(os.environ.get("CODE_GUARD_FUZZ_EXAMPLES", "150"))
FAST = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SLOW = settings(max_examples=max(EXAMPLES // 10, 10), deadline=None, database=None)

# Path components that have broken reviews: too long for a file system, a NUL, quotes and
# backslashes (git C-quotes them), CJK, spaces, a lone CR, and names that clash as file/folder.
component = st.one_of(
    st.sampled_from(["x", "x.py", "a b.py", 'q"t.py', "b\\s.py", "\r.py", "caf\u00e9.py"]),
    st.sampled_from(["a" * 300 + ".py", "配置" * 46 + ".py", "n\0ul.py", ".code-guard-renamed"]),
    st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="/\n"), max_size=12),
)
path = st.lists(component, min_size=1, max_size=3).map("/".join)
source_line = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\n"))


def new_file(path: str, lines: list[str], start: int = 1) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +{start},{len(lines)} @@\n{body}"
    )


files = st.lists(
    st.tuples(path, st.lists(source_line, min_size=1, max_size=4), st.integers(1, 10**7)),
    min_size=1,
    max_size=4,
)


@FAST
@given(files)
def test_any_file_names_are_written_or_listed(entries: list[tuple[str, list[str], int]]) -> None:
    diff = "".join(new_file(p, lines, start) for p, lines, start in entries)
    try:
        change = parse_diff(diff)
    except DiffError:
        return
    request = ReviewRequest(change=change)
    paths = tuple(f.path for f in change.files if f.reviewable and len(f.added) < 50)
    paths = tuple(p for p in paths if max(change.file(p).added, default=0) < 10_000)  # type: ignore[union-attr]
    with materialize(request, paths) as workspace:
        for p in paths:
            if safe_relative(p) is None:
                assert p not in workspace.disk
                continue
            if p in workspace.disk:
                disk = workspace.disk[p]
                assert workspace.real_path(disk) == p
                written = (workspace.root / disk).read_bytes().decode("utf-8", "surrogateescape")
                assert written == analysed_text(p, request.text_of(p))  # linemap.py
            else:
                assert any(f.path == p for f in workspace.failed)


@FAST
@given(
    st.lists(st.one_of(source_line, st.sampled_from(["\r", "a\rb", "@@ -1 +1 @@", "+", "-"]))),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.integers(0, 10**9),
)
def test_odd_line_ends_and_hunk_headers_raise_only_diff_errors(
    lines: list[str], end: str, start: int
) -> None:
    header = "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n"
    header += f"@@ -{start},0 +{start},{len(lines)} @@\n"
    try:
        change = parse_diff(header + end.join(f"+{line}" for line in lines) + end)
    except DiffError:
        return
    for file in change.files:
        for number, text in file.added.items():
            found = anchor_line(change, file.path, text, number)
            if text.strip() and text.splitlines() == [text]:
                # A line quoted exactly is found: on itself, or on an identical added line.
                assert found is not None and file.added[found] == text
            else:
                assert found is None or found in file.added


titles = st.text(min_size=1, max_size=80).filter(lambda t: t.strip())
findings = st.lists(
    st.builds(
        Finding,
        agent=st.sampled_from(AgentName),
        file_path=path.filter(bool),
        line_start=st.integers(1, 10**6),
        line_end=st.just(10**6),
        severity=st.sampled_from(Severity),
        category=st.sampled_from(Category),
        title=titles,
        description=st.text(max_size=200),
        suggested_fix=st.none() | st.text(max_size=100),
        cwe_id=st.none() | st.integers(1, 2000).map(lambda n: f"CWE-{n}"),
        confidence=st.floats(0, 1),
        sources=st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=3).map(tuple),
        anchor_text=st.text(max_size=40),
    ),
    max_size=6,
)


@FAST
@given(findings, st.lists(path, max_size=3))
def test_every_renderer_takes_any_review(found: list[Finding], reviewed: list[str]) -> None:
    from code_guard.findings import AgentReport, AgentState, AgentStatus

    report = AgentReport(status=AgentStatus(agent=AgentName.SECURITY, state=AgentState.OK))
    review = synthesize([report], files_reviewed=reviewed)
    report_with = AgentReport(status=report.status, findings=tuple(found))
    for candidate in (review, synthesize([report_with], files_reviewed=reviewed)):
        for fmt in OutputFormat:
            text = RENDERERS[fmt](candidate)
            assert isinstance(text, str) and text.endswith("\n")
        back = Review.model_validate_json(RENDERERS[OutputFormat.JSON](candidate))
        assert all(f.why and f.fix and f.help_uri for f in back.findings)
        # Apart from the rule's knowledge the JSON adds, the review reads back unchanged.
        plain = [f.model_copy(update={"why": None, "fix": None, "help_uri": None})
                 for f in back.findings]
        assert back.model_copy(update={"findings": tuple(plain)}) == candidate


@SLOW
@given(files, st.sampled_from(["text", "json", "sarif", "markdown"]))
def test_the_cli_never_crashes(entries: list[tuple[str, list[str], int]], fmt: str) -> None:
    diff = "".join(new_file(p, lines, start) for p, lines, start in entries)
    proc = subprocess.run(  # noqa: S603 - our own CLI, fixed argv
        [sys.executable, "-P", "-m", "code_guard", "review", "-", "-q", "--format", fmt],
        input=diff.encode("utf-8", "surrogateescape"),
        capture_output=True,
        timeout=120,
        check=False,
    )
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode in (0, 1, 2, 4), err
    assert "Traceback" not in err
    assert all(line.startswith("code-guard: ") for line in err.splitlines()), err
