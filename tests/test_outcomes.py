"""Regression tests of honest outcomes: a review that analysed nothing, or less than it was
asked to, says so in every format, never approves, and fails the run under ``on-error: fail``;
odd but legal input is reviewed or listed as not reviewed, never a crash.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.cli import EXIT_INCOMPLETE, main
from code_guard.findings import Outcome, Review, Verdict
from code_guard.options import ReviewOptions
from code_guard.review.engine import review_sync

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EVAL_LINE = "x = eval(input())"


def added_file(path: str, *lines: str) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def review_json(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, Review]:
    code, out, _ = run(capsys, "review", *argv, "--format", "json", "-q")
    return code, Review.model_validate_json(out)


# --- nothing, or less, analysed --------------------------------------------------------------


@pytest.mark.parametrize("diff", ["", "\n\n"])
def test_an_empty_diff_fails_and_never_approves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], diff: str
) -> None:
    path = tmp_path / "empty.diff"
    path.write_text(diff, encoding="utf-8")
    code, review = review_json(capsys, path)
    assert code == EXIT_INCOMPLETE
    assert review.outcome is Outcome.FAILED
    assert review.verdict is not Verdict.APPROVE
    assert "the diff holds no file changes" in review.outcome_reasons[0]


def test_empty_stdin_fails_with_one_error_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code, out, err = run(capsys, "review", "-", "-q")
    assert code == EXIT_INCOMPLETE
    assert "outcome: failed" in out
    assert err.startswith("code-guard: error: review failed: no file was analysed")
    assert err.count("\n") == 1


def test_on_error_warn_reports_but_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.diff"
    path.write_text("", encoding="utf-8")
    code, out, err = run(capsys, "review", path, "-q", "--on-error", "warn")
    assert code == 0
    assert "outcome: failed" in out
    assert err.startswith("code-guard: warning: review failed")


def test_every_file_ignored_is_a_failed_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.diff"
    path.write_text(added_file("app.py", EVAL_LINE), encoding="utf-8")
    code, review = review_json(capsys, path, "--paths-ignore", "*.py")
    assert code == EXIT_INCOMPLETE
    assert review.outcome is Outcome.FAILED
    assert review.verdict is Verdict.COMMENT


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("web/app.js", "function handler(req, res) {\n  res.send(eval(req.query.x)\n"),
        ("svc/main.go", "package main\n\nfunc handler( {\n"),
    ],
)
def test_a_file_semgrep_cannot_parse_makes_the_review_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, source: str
) -> None:
    # semgrep-core is the only analyser of JavaScript and Go: a file it rejects got no review.
    diff = tmp_path / "x.diff"
    diff.write_text(added_file(path, *source.splitlines()), encoding="utf-8")
    code, review = review_json(capsys, diff)
    assert code == EXIT_INCOMPLETE
    assert review.outcome is Outcome.PARTIAL
    assert f"could not parse {path}: static findings there may be missing" in (
        review.outcome_reasons
    )
    assert review.findings == ()  # the parse error is a note, never a finding


def test_a_file_semgrep_parses_leaves_the_review_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diff = tmp_path / "x.diff"
    diff.write_text(added_file("web/app.js", "const x = 1;"), encoding="utf-8")
    code, review = review_json(capsys, diff)
    assert code == 0
    assert review.outcome is Outcome.REVIEWED


def test_an_unparsable_file_makes_the_review_partial(capsys: pytest.CaptureFixture[str]) -> None:
    # Without --root the mid-function hunks of this example cannot be parsed.
    code, review = review_json(capsys, EXAMPLES / "report-cli.diff")
    assert code == EXIT_INCOMPLETE
    assert review.outcome is Outcome.PARTIAL
    assert any("could not parse tools/report.py" in r for r in review.outcome_reasons)
    assert review.verdict is not Verdict.APPROVE


def test_a_change_that_only_deletes_files_is_reviewed() -> None:
    diff = "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n"
    diff += "@@ -1 +0,0 @@\n-x = 1\n"
    review = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    assert (review.outcome, review.verdict) == (Outcome.REVIEWED, Verdict.APPROVE)


def test_a_garbled_hunk_header_is_not_called_a_mode_change() -> None:
    diff = "diff --git a/g.py b/g.py\nindex 1..2 100644\n--- a/g.py\n+++ b/g.py\n"
    diff += f"@@ garbage @@\n+{EVAL_LINE}\n"
    review = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    assert review.outcome is Outcome.FAILED
    (skipped,) = review.files_not_reviewed
    assert "no hunk of this file could be read" in skipped.reason
    assert not skipped.deliberate


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "sarif"])
def test_every_format_says_the_review_is_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    path = tmp_path / "empty.diff"
    path.write_text("", encoding="utf-8")
    _, out, _ = run(capsys, "review", path, "-q", "--format", fmt)
    if fmt == "text":
        assert "outcome: failed" in out
    elif fmt == "markdown":
        assert "> This review failed: nothing was analysed." in out
    elif fmt == "json":
        assert json.loads(out)["outcome"] == "failed"
    else:
        (run_,) = json.loads(out)["runs"]
        assert run_["invocations"][0]["executionSuccessful"] is False
        assert run_["properties"]["outcome"] == "failed"


# --- bad usage is one line, before any work ----------------------------------------------


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("--root", "/no/such/dir"), ("--root /no/such/dir is not a directory",)),
        (("--agents", ","), ("no agent selected",)),
        (("--output", "/no/such/dir/out.txt"), ("directory /no/such/dir does not exist",)),
    ],
)
def test_bad_usage_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, "review", EXAMPLES / "flask-search.diff", "-q", *argv)
    assert (code, out) == (2, "")
    assert err.startswith("code-guard: error: ") and err.count("\n") == 1, err
    assert all(w in err for w in words), err


def test_output_onto_a_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "review", EXAMPLES / "flask-search.diff", "--output", tmp_path)
    assert code == 2
    assert err.strip().endswith("is a directory")


def test_config_problems_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yml"
    config.write_bytes(b"fail-on: \xff\xfe\n")
    code, _, err = run(capsys, "review", EXAMPLES / "flask-search.diff", "--config", config)
    assert code == 2
    assert "is not UTF-8 text" in err and err.count("\n") == 1
    config.write_text("agents: []\n", encoding="utf-8")
    code, _, err = run(capsys, "review", EXAMPLES / "flask-search.diff", "--config", config)
    assert code == 2 and "no agent selected" in err


def test_fail_on_off_in_yaml_means_never(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.yml"
    config.write_text("fail-on: off\n", encoding="utf-8")
    root = EXAMPLES / "flask-search"
    code, out, _ = run(
        capsys, "review", EXAMPLES / "flask-search.diff", "--root", root, "--config", config, "-q"
    )
    assert code == 0
    assert "sql_injection" in out


def test_a_utf16_diff_reads_like_its_utf8_twin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (EXAMPLES / "flask-search.diff").read_text(encoding="utf-8")
    utf16 = tmp_path / "ps.diff"
    utf16.write_bytes(text.encode("utf-16"))
    root = EXAMPLES / "flask-search"
    _, plain = review_json(capsys, EXAMPLES / "flask-search.diff", "--root", root)
    _, wide = review_json(capsys, utf16, "--root", root)
    assert wide.findings == plain.findings and plain.findings


# --- legal but odd paths are reviewed ----------------------------------------------------------


@pytest.mark.parametrize(
    "paths",
    [
        ["a" * 300 + ".py"],
        ["配置" * 46 + ".py"],  # 92 CJK characters: 276 bytes in UTF-8
        ["x", "x/y.py"],
        ["x/y.py", "x"],
        [".code-guard-renamed/z.py"],
    ],
)
def test_odd_paths_are_reviewed_under_their_own_names(paths: list[str]) -> None:
    diff = "".join(added_file(p, "import os", EVAL_LINE) for p in paths)
    review = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    python = [p for p in paths if p.endswith(".py")]
    flagged = {f.file_path for f in review.findings if f.category.value == "code_injection"}
    assert flagged == set(python)
    assert review.outcome is Outcome.REVIEWED
    assert set(review.files_reviewed) == set(paths)


def test_two_paths_one_name_on_disk_keep_their_own_findings() -> None:
    diff = added_file("x", "import os") + added_file("x/", EVAL_LINE)
    diff += added_file("a//b.py", EVAL_LINE) + added_file("a/b.py", "import os")
    review = review_sync(ReviewRequest(change=parse_diff(diff)), ReviewOptions())
    flagged = {f.file_path for f in review.findings if f.category.value == "code_injection"}
    assert "a//b.py" in flagged and "a/b.py" not in flagged
