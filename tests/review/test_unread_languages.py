"""Code that no analyser reads (issue 27): a Java, Ruby or C# file gets the secret scan only,
so its review is never `reviewed`/`approve` unless a model read it, and the review says which
languages went unread. Config and prose are not code, and their reviews are unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.cli import EXIT_INCOMPLETE, main
from code_guard.findings import AgentName, Outcome, Review, Verdict
from code_guard.options import AnalysisOptions, ModelOptions, ReviewOptions
from code_guard.review.engine import run_review

if TYPE_CHECKING:
    from conftest import MakeAnswer, MakeLLM, NewFileDiff

SERVLET = "src/main/java/app/FileServlet.java"
SERVLET_TEXT = (
    "package app;\n"
    "import java.io.*;\n"
    "import javax.servlet.http.*;\n"
    "public class FileServlet extends HttpServlet {\n"
    "  protected void doGet(HttpServletRequest req, HttpServletResponse resp)\n"
    "      throws IOException {\n"
    '    File f = new File("/srv/files/" + req.getParameter("name"));\n'
    "    new FileInputStream(f).transferTo(resp.getOutputStream());\n"
    "  }\n"
    "}\n"
)
PYTHON = "import sys\nexec(sys.stdin.read())\n"


def review(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, diff: str, *flags: str
) -> tuple[int, Review]:
    path = tmp_path / "pr.diff"
    path.write_text(diff, encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    code = main(["review", str(path), "--format", "json", "-q", "--root", str(root), *flags])
    return code, Review.model_validate_json(capsys.readouterr().out)


def test_a_java_only_change_is_partial_and_names_java(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, new_file_diff: NewFileDiff
) -> None:
    code, result = review(capsys, tmp_path, new_file_diff(SERVLET, SERVLET_TEXT))
    assert code == EXIT_INCOMPLETE
    assert result.outcome is Outcome.PARTIAL
    assert result.verdict is Verdict.COMMENT
    assert result.files_reviewed == (SERVLET,)  # the secret scan did read it
    [unread] = result.unread_code
    assert (unread.path, unread.language, unread.model_read) == (SERVLET, "Java", False)
    [reason] = result.outcome_reasons
    assert SERVLET in reason and "Java" in reason
    assert "Java (1 file)" in result.summary


@pytest.mark.parametrize(
    ("path", "language"),
    [("app/models/user.rb", "Ruby"), ("Api/Files.cs", "C#"), ("src/lib.rs", "Rust"),
     ("web/index.php", "PHP"), ("native/buf.c", "C")],
)  # fmt: skip
def test_each_language_no_analyser_reads_is_named(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    new_file_diff: NewFileDiff,
    path: str,
    language: str,
) -> None:
    code, result = review(capsys, tmp_path, new_file_diff(path, "x = 1\n"))
    assert (code, result.outcome) == (EXIT_INCOMPLETE, Outcome.PARTIAL)
    assert [(u.path, u.language) for u in result.unread_code] == [(path, language)]


def test_python_findings_stand_beside_unread_java(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, new_file_diff: NewFileDiff
) -> None:
    _, alone = review(capsys, tmp_path, new_file_diff("app/run.py", PYTHON))
    both = new_file_diff("app/run.py", PYTHON) + new_file_diff(SERVLET, SERVLET_TEXT)
    code, result = review(capsys, tmp_path, both, "--fail-on", "high")
    assert alone.findings and alone.outcome is Outcome.REVIEWED
    assert [f.fingerprint for f in result.findings] == [f.fingerprint for f in alone.findings]
    assert code == 1  # the Python finding fails the gate, which comes first
    assert result.outcome is Outcome.PARTIAL
    assert [u.path for u in result.unread_code] == [SERVLET]
    assert result.verdict is Verdict.REQUEST_CHANGES


def test_config_and_prose_are_not_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, new_file_diff: NewFileDiff
) -> None:
    diff = (
        new_file_diff("README.md", "# Title\nSome words.\n")
        + new_file_diff("deploy/app.yaml", "replicas: 2\n")
        + new_file_diff("config/app.json", '{"debug": false}\n')
    )
    code, result = review(capsys, tmp_path, diff)
    assert (code, result.outcome, result.verdict) == (0, Outcome.REVIEWED, Verdict.APPROVE)
    assert result.unread_code == ()
    assert result.outcome_reasons == ()


def model_review(
    llm_factory: MakeLLM, answer: MakeAnswer, diff: str, *, context_tokens: int = 128_000
) -> tuple[Review, list[str]]:
    """The review with a fake model, and the user messages the model was sent."""
    request = ReviewRequest(change=parse_diff(diff))
    options = ReviewOptions(
        analysis=AnalysisOptions(agents=(AgentName.SECURITY,)),
        model=ModelOptions(name="gpt-4o-mini"),
    )
    llm = llm_factory(otherwise=answer(), context_tokens=context_tokens, max_output_tokens=512)
    result = asyncio.run(run_review(request, options, llm))
    return result, [call.user for call in llm.calls]


def test_a_model_that_read_the_java_file_was_its_only_reader(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    result, sent = model_review(fake_llm, answer, new_file_diff(SERVLET, SERVLET_TEXT))
    assert any(f"### {SERVLET}" in user for user in sent)
    assert result.outcome is Outcome.REVIEWED
    [unread] = result.unread_code
    assert (unread.path, unread.model_read) == (SERVLET, True)
    assert "model was the only reader" in unread.reason
    assert "Read by the model only" in result.summary and "Java" in result.summary


def test_a_java_file_the_model_could_not_take_stays_unread(
    fake_llm: MakeLLM, answer: MakeAnswer, new_file_diff: NewFileDiff
) -> None:
    # The model's context leaves no room for code: no file is sent, so nothing read the Java.
    result, sent = model_review(
        fake_llm, answer, new_file_diff(SERVLET, SERVLET_TEXT),
        context_tokens=600,
    )  # fmt: skip
    assert sent == []
    assert result.outcome is Outcome.PARTIAL
    assert result.verdict is not Verdict.APPROVE
    [unread] = result.unread_code
    assert not unread.model_read
    assert any("not analysed for code" in r and "Java" in r for r in result.outcome_reasons)


@pytest.mark.parametrize(
    ("path", "first", "language"),
    [("bin/deploy", "#!/usr/bin/env python3", "Python"), ("tools/gui.pyw", "import sys", "Python"),
     ("scripts/sync", "#!/bin/bash", "Shell"), ("web/server.mts", "import fs from 'fs';",
     "TypeScript")],
)  # fmt: skip
def test_code_under_a_name_no_analyser_selects_is_unread(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    new_file_diff: NewFileDiff,
    path: str,
    first: str,
    language: str,
) -> None:
    # Python's analysers would flag this exec in a .py file; under this name none reads it.
    code, result = review(capsys, tmp_path, new_file_diff(path, f"{first}\n{PYTHON}"))
    assert (code, result.outcome, result.verdict) == (
        EXIT_INCOMPLETE, Outcome.PARTIAL, Verdict.COMMENT,
    )  # fmt: skip
    assert [(u.path, u.language) for u in result.unread_code] == [(path, language)]


def test_a_file_without_a_suffix_or_a_shebang_is_not_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, new_file_diff: NewFileDiff
) -> None:
    code, result = review(capsys, tmp_path, new_file_diff("LICENSE", "MIT License\n"))
    assert (code, result.outcome, result.unread_code) == (0, Outcome.REVIEWED, ())
