"""Tests of the review pipeline: file selection, the workspace, failures and static-only runs.

The changed files are plain text, which only detect-secrets (in-process) reads, so no analyser
subprocess runs; the model is a ``FakeLLM`` that answers each agent from its own queue.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from code_guard.change.diff import Change, parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.change.workspace import materialize
from code_guard.errors import PermanentModelError
from code_guard.findings import AgentName, AgentState, AgentStatus, Review, SkippedFile, Verdict
from code_guard.model.interface import LLMClient
from code_guard.options import AnalysisOptions, ModelOptions, ReviewOptions
from code_guard.report import RENDERERS, OutputFormat
from code_guard.review.engine import review_sync, run_review, select_files

if TYPE_CHECKING:
    from conftest import FakeLLM, MakeAnswer, MakeLLM, MakeModelFinding, NewFileDiff

MIXED = (
    "diff --git a/app.txt b/app.txt\n--- a/app.txt\n+++ b/app.txt\n@@ -1 +1 @@\n-a = 1\n"
    "+a = 2\n"
    "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n"
    "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
    "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n"
    "@@ -1 +0,0 @@\n-x\n"
    "--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+owned();\n"
    "--- /dev/null\n+++ b/vendor/lib/x.txt\n@@ -0,0 +1 @@\n+vendored();\n"
    "--- /dev/null\n+++ b/docs/guide.md\n@@ -0,0 +1 @@\n+# Guide\n"
)
MODEL = ReviewOptions(
    analysis=AnalysisOptions(agents=(AgentName.SECURITY, AgentName.STYLE)),
    model=ModelOptions(name="gpt-4o-mini"),
)


def review(request: ReviewRequest, options: ReviewOptions, llm: LLMClient | None = None) -> Review:
    return asyncio.run(run_review(request, options, llm))


def request_for(diff: str) -> ReviewRequest:
    return ReviewRequest(change=parse_diff(diff), title="Change things")


# --- file selection -------------------------------------------------------------------


ESCAPE_REFUSED = SkippedFile(
    path="../escape.txt",
    reason="path refused, it has a .. component: a diff from git never names such a path",
    deliberate=False,
)


def test_select_files_gives_a_reason_for_each_skipped_file() -> None:
    keep, skipped = select_files(parse_diff(MIXED).files, ["vendor/**", "*.md"])
    assert [f.path for f in keep] == ["app.txt"]
    assert parse_diff(MIXED).not_parsed == (ESCAPE_REFUSED,)  # refused as the diff is read
    assert skipped == (
        SkippedFile(path="logo.png", reason="binary file"),
        SkippedFile(path="run.sh", reason="file mode change only"),
        SkippedFile(path="vendor/lib/x.txt", reason="matches paths-ignore"),
        SkippedFile(path="docs/guide.md", reason="matches paths-ignore"),
    )


@pytest.mark.parametrize(
    ("pattern", "path", "ignored"),
    [
        ("*.md", "a/b/README.md", True),
        ("docs/", "docs/api/x.txt", True),
        ("migrations/*.py", "migrations/0001.py", True),
        ("/migrations/*.py", "app/migrations/0001.py", False),
        ("vendor/**", "src/vendor.txt", False),
    ],
)
def test_paths_ignore_uses_gitignore_globs(pattern: str, path: str, ignored: bool) -> None:
    diff = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    keep, skipped = select_files(parse_diff(diff).files, [pattern])
    assert (len(skipped), len(keep)) == ((1, 0) if ignored else (0, 1))


def test_paths_ignore_raises_no_deprecation_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        _, skipped = select_files(parse_diff(MIXED).files, ["*.md"])
    assert [s.path for s in skipped][-1] == "docs/guide.md"


def test_deleted_files_are_neither_reviewed_nor_skipped() -> None:
    review_ = review(
        request_for(MIXED), ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.STYLE,)))
    )
    # (a vendored file the change adds is its own declaration: reviewed, see test_generated)
    assert review_.files_reviewed == ("app.txt", "vendor/lib/x.txt", "docs/guide.md")
    skipped = {s.path: s.reason for s in review_.files_not_reviewed}
    assert "gone.txt" not in skipped


# --- the workspace --------------------------------------------------------------------


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make the workspace's temporary directory a child of ``tmp_path``, to see all writes."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def all_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_workspace_never_writes_outside_itself(temp_root: Path) -> None:
    # parse_diff refuses these paths; a change built without it still writes none of them.
    ok = parse_diff("--- /dev/null\n+++ b/ok/in.py\n@@ -0,0 +1 @@\n+x = 1\n").files[0]
    escaping = [replace(ok, path=p) for p in ["../up.py", "a/../../up2.py", "/abs.py"]]
    request = ReviewRequest(change=Change(files=(*escaping, ok)), title="Change things")
    with materialize(request, tuple(f.path for f in request.change.files)) as workspace:
        root = workspace.root
        assert root.parent == temp_root
        written = all_files(temp_root)
        assert (root / "ok/in.py").read_text() == "x = 1\n"
    assert written == [f"{root.name}/ok/in.py"]
    assert all_files(temp_root.parent) == []  # and nothing is left behind


def test_traversal_path_is_skipped_by_the_review(temp_root: Path) -> None:
    result = review(
        request_for(MIXED), ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.SECURITY,)))
    )
    assert ESCAPE_REFUSED in result.files_not_reviewed
    assert all_files(temp_root.parent) == []


# --- failures ---------------------------------------------------------------------------

CLEAN = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+Ship it on Monday.\n+Then rest.\n"


def test_one_failing_agent_never_yields_approve(fake_llm: MakeLLM, answer: MakeAnswer) -> None:
    llm = fake_llm(
        per_agent={
            "security": [PermanentModelError("401 invalid api key")],
            "performance": [answer()],
            "style": [answer()],
        }
    )
    result = review(request_for(CLEAN), ReviewOptions(model=ModelOptions(name="gpt-4o-mini")), llm)
    states = {a.agent: (a.state, a.reason) for a in result.agents}
    assert states == {
        AgentName.SECURITY: (
            AgentState.FAILED,
            "model gpt-4o-mini failed: 401 invalid api key",
        ),
        AgentName.PERFORMANCE: (AgentState.OK, None),
        AgentName.STYLE: (AgentState.OK, None),
    }
    assert [len(llm.calls_of(a)) for a in ("security", "performance", "style")] == [1, 1, 1]
    assert result.findings == ()
    assert not result.complete
    assert result.verdict is Verdict.COMMENT
    assert "Incomplete: the security agent failed: model" in result.summary


def test_failed_model_still_reports_tool_findings(fake_llm: MakeLLM, answer: MakeAnswer) -> None:
    diff = '--- /dev/null\n+++ b/deploy.env\n@@ -0,0 +1 @@\n+AWS_KEY="AKIAIOSFODNN7EXAMPLE"\n'
    llm = fake_llm(per_agent={"security": [PermanentModelError("401")], "style": [answer()]})
    result = review(request_for(diff), MODEL, llm)
    assert [(f.file_path, f.line_start, f.sources) for f in result.findings] == [
        ("deploy.env", 1, ("detect-secrets:AWS Access Key",))
    ]
    assert result.verdict is Verdict.REQUEST_CHANGES


def test_model_review_is_not_static_only(fake_llm: MakeLLM, answer: MakeAnswer) -> None:
    llm = fake_llm(per_agent={"security": [answer()], "style": ["{", answer()]})
    result = review(request_for(CLEAN), MODEL, llm)
    assert (result.static_only, result.static_only_reason) == (False, None)
    assert result.verdict is Verdict.APPROVE
    assert [a.model for a in result.agents] == ["gpt-4o-mini", "gpt-4o-mini"]
    assert result.usage == llm.call_usage + llm.call_usage + llm.call_usage  # 1 + 1 repaired
    assert result.files_reviewed == ("notes.txt",)


# --- static-only reviews ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (ReviewOptions(), "no model is configured (set --model, or the action's `model` input)"),
        (
            ReviewOptions(model=ModelOptions(name="gpt-4o-mini", offline=True)),
            "offline mode was requested (--offline)",
        ),
    ],
)
def test_static_only_review_says_why_and_never_calls_the_model(
    fake_llm: MakeLLM, options: ReviewOptions, reason: str
) -> None:
    llm: FakeLLM = fake_llm()
    result = review(request_for(CLEAN), options, llm)
    assert llm.calls == []
    assert (result.static_only, result.static_only_reason) == (True, reason)
    assert result.summary.endswith(f"Static analysis only: {reason}.")
    assert all(a.model is None for a in result.agents)


def test_static_only_review_says_so_in_every_format() -> None:
    result = review(request_for(CLEAN), ReviewOptions(model=ModelOptions(offline=True)))
    reason = "offline mode was requested (--offline)"
    data = json.loads(RENDERERS[OutputFormat.JSON](result))
    assert (data["static_only"], data["static_only_reason"]) == (True, reason)
    assert f"> Static analysis only — {reason}." in RENDERERS[OutputFormat.MARKDOWN](result)
    assert f"Static analysis only: {reason}." in RENDERERS[OutputFormat.TEXT](result)
    sarif = json.loads(RENDERERS[OutputFormat.SARIF](result))
    assert sarif["runs"][0]["properties"]["staticOnly"] is True  # its reason: see test_report


def test_model_without_a_client_is_static_only() -> None:
    result = review(request_for(CLEAN), MODEL, None)
    assert result.static_only
    assert result.static_only_reason == "the model client could not be created"


def test_progress_reports_each_agent_once() -> None:
    seen: list[AgentStatus] = []
    request = request_for(CLEAN)
    asyncio.run(run_review(request, ReviewOptions(), progress=seen.append))
    assert sorted(s.agent.value for s in seen) == ["performance", "security", "style"]


def test_review_sync_runs_the_same_review() -> None:
    result = review_sync(
        request_for(CLEAN), ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.STYLE,)))
    )
    assert [a.agent for a in result.agents] == [AgentName.STYLE]
    assert result.verdict is Verdict.APPROVE


def test_min_confidence_filters_the_review(fake_llm: MakeLLM) -> None:
    diff = '--- /dev/null\n+++ b/deploy.env\n@@ -0,0 +1 @@\n+AWS_KEY="AKIAIOSFODNN7EXAMPLE"\n'
    options = ReviewOptions(
        analysis=AnalysisOptions(agents=(AgentName.SECURITY,), min_confidence=0.9)
    )
    assert review(request_for(diff), options).findings == ()


def test_model_findings_on_ignored_files_are_dropped(
    fake_llm: MakeLLM,
    answer: MakeAnswer,
    model_finding: MakeModelFinding,
    new_file_diff: NewFileDiff,
) -> None:
    diff = new_file_diff("notes.txt", "ok") + new_file_diff("vendor/lib.txt", "eval(input);")
    stray = model_finding("eval(input);", 1, file_path="vendor/lib.txt")
    llm = fake_llm(answer(stray))
    options = ReviewOptions(
        analysis=AnalysisOptions(agents=(AgentName.STYLE,), paths_ignore=("vendor/**",)),
        model=ModelOptions(name="gpt-4o-mini"),
    )
    result = review(request_for(diff), options, llm)
    assert [s.path for s in result.files_not_reviewed] == ["vendor/lib.txt"]
    assert result.findings == ()


_FREEZE_PROBE = """\
import gc, json
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.options import build_options
from code_guard.review.engine import review_sync

diff = (
    "diff --git a/a.py b/a.py\\nnew file mode 100644\\n--- /dev/null\\n+++ b/a.py\\n"
    "@@ -0,0 +1 @@\\n+x = 1\\n"
)
counts = [gc.get_freeze_count()]
for _ in range(2):
    review_sync(ReviewRequest(change=parse_diff(diff)), build_options({"offline": True}))
    counts.append(gc.get_freeze_count())
print(json.dumps(counts))
"""


def test_what_is_loaded_is_frozen_once_at_the_first_review() -> None:
    # gc.freeze at each review would keep every earlier review's cycles for good (an eval
    # reviews hundreds of cases in one process): only the first review freezes.
    proc = subprocess.run(  # noqa: S603 - our own interpreter, fixed argv
        [sys.executable, "-c", _FREEZE_PROBE], capture_output=True, text=True, check=True
    )
    before, first, second = json.loads(proc.stdout)
    assert before == 0 and first > 0 and second == first
