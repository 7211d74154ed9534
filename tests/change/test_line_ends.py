"""Issue 27, "line numbers are git's": a lone ``\\r`` ends a line for Python's tokenizer and
detect-secrets but not for git, so a few of them in a comment moved every result after it onto
another, unchanged line, where it was dropped. Each attack here goes through the command line
and must be reported on git's line, failing the check."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from code_guard.change.linemap import analysed_text, line_map
from code_guard.change.request import split_lines
from code_guard.cli import EXIT_FINDINGS, main
from code_guard.findings import Category, Review

# Every character some reader takes for a line end (str.splitlines, Unicode, ECMAScript).
SEPARATORS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")


def _diff(path: str, old: str | None, new: str) -> str:
    """The git diff from ``old`` (None: a new file) to ``new``, lines split on ``\\n`` only."""
    before = split_lines(old) if old is not None else []
    body = "\n".join(
        difflib.unified_diff(
            before, split_lines(new), "/dev/null" if old is None else f"a/{path}", f"b/{path}",
            lineterm="",
        )
    )  # fmt: skip
    mode = "new file mode 100644\n" if old is None else ""
    return f"diff --git a/{path} b/{path}\n{mode}{body}\n"


def _review(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: dict[str, tuple[str | None, str]]
) -> tuple[int, Review]:
    root = tmp_path / "root"
    diff = "".join(_diff(path, old, new) for path, (old, new) in files.items())
    for path, (_, new) in files.items():
        _write(root / path, new)
    _write(tmp_path / "pr.diff", diff)
    args = ["review", str(tmp_path / "pr.diff"), "--root", str(root), "--format", "json", "-q"]
    code = main([*args, "--offline", "--fail-on", "high"])
    out, _ = capsys.readouterr()
    return code, Review.model_validate_json(out)


def _at(review: Review, category: Category) -> list[int]:
    return sorted(f.line_start for f in review.findings if f.category is category)


PYTHON = """\
import os
from flask import request
{comment}
def run():
    os.system(request.args["c"])
    return eval(request.args["x"])
"""


def test_a_lone_carriage_return_in_a_python_comment_moves_no_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = PYTHON.format(comment="# looks like one line\r#\r#\r#\r#\r#")
    code, review = _review(capsys, tmp_path, {"app.py": (None, text)})
    assert code == EXIT_FINDINGS
    assert _at(review, Category.COMMAND_INJECTION) == [5]
    assert _at(review, Category.CODE_INJECTION) == [6]


def test_no_separator_in_python_comments_moves_a_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    comments = "\n".join(f"# a{sep}# b{sep}# c" for sep in SEPARATORS)
    text = PYTHON.format(comment=comments)
    sink = len(SEPARATORS) + 4
    code, review = _review(capsys, tmp_path, {"app.py": (None, text)})
    assert code == EXIT_FINDINGS
    assert _at(review, Category.COMMAND_INJECTION) == [sink]
    assert _at(review, Category.CODE_INJECTION) == [sink + 1]


def test_a_kept_python_flaw_below_carriage_returns_still_excuses_only_itself(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = PYTHON.format(comment="# one\r#\r#\r#")
    new = old.replace(
        '    return eval(request.args["x"])',
        '    if request:\n        return eval(request.args["x"])',
    )
    new += '\n\ndef again():\n    return eval(request.args["y"])\n'
    code, review = _review(capsys, tmp_path, {"app.py": (old, new)})
    assert code == EXIT_FINDINGS
    assert _at(review, Category.CODE_INJECTION) == [11]
    assert review.preexisting >= 1


def test_a_lone_carriage_return_in_a_javascript_comment_moves_no_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (
        'const app = require("express")();\n// one\r//\r//\r//\n'
        'app.get("/run", (req, res) => {\n  res.send(String(eval(req.query.code)));\n});\n'
    )
    code, review = _review(capsys, tmp_path, {"app.js": (None, text)})
    assert code == EXIT_FINDINGS
    assert _at(review, Category.CODE_INJECTION) == [4]
    assert review.files_not_reviewed == ()


def test_a_lone_carriage_return_above_a_secret_moves_no_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = "# settings\r#\r#\r#\ndebug: true\naws_access_key_id: AKIA2JXQ7M4PLR8ZWB3N\n"
    code, review = _review(capsys, tmp_path, {"deploy/prod.yaml": (None, text)})
    assert code == EXIT_FINDINGS
    assert _at(review, Category.HARDCODED_SECRET) == [3]


def test_a_carriage_return_in_go_is_white_space_and_moves_no_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (
        'package main\n\nimport (\n\t"net/http"\n\t"os/exec"\n)\n\n// one\r//\r//\n'
        "func run(w http.ResponseWriter, r *http.Request) {\n"
        '\tout, _ := exec.Command("sh", "-c", r.URL.Query().Get("cmd")).Output()\n'
        "\tw.Write(out)\n}\n"
    )
    code, review = _review(capsys, tmp_path, {"main.go": (None, text)})
    assert code == EXIT_FINDINGS
    assert _at(review, Category.COMMAND_INJECTION) == [10]


@pytest.mark.parametrize(
    "text",
    [
        "a\rb\r\nc\n",
        "a\r\rb\nc",
        "a\r\r\nb\r\n",
        "\r\r\n\rx\r",
        "one\ntwo\rthree\rfour\nfive\n",
    ],
)
def test_the_line_map_takes_each_analysed_line_back_to_gits(text: str) -> None:
    lines = split_lines(text)
    mapping = line_map("f.py", lines)
    assert mapping is not None
    analysed = analysed_text("f.py", text).split("\n")
    for number, line in enumerate(lines, 1):
        copy = sorted(mapping.to_analysed([number]))
        assert [mapping.to_git(n) for n in copy] == [number] * len(copy)
        assert "\r".join(analysed[n - 1].removesuffix("\r") for n in copy) == line


def test_go_keeps_its_lines_and_reads_a_space() -> None:
    text = "// a\rb\nx := 1\r\n"
    assert analysed_text("main.go", text) == "// a b\nx := 1\r\n"
    assert line_map("main.go", split_lines(text)) is None
    assert line_map("f.py", split_lines("a\r\nb\n")) is None  # CRLF is one line end for all
