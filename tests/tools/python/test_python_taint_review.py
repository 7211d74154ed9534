"""The attacks of issue 27 on the taint check's guards and sanitisers, each reproduced through
the command line: a pull request that writes code to look guarded or sanitised. Each flow must
still be a finding of the taint check (its sources name ``python-taint``) and fail the review
at ``--fail-on high``; the real guards beside them stay silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from code_guard.cli import EXIT_FINDINGS, main
from code_guard.findings import Review

HEAD = [
    "import html",
    "import os",
    "from urllib.parse import quote, urlparse",
    "",
    "import requests",
    "from flask import Flask, abort, request, send_file",
    "",
    "app = Flask(__name__)",
    'BASE = "/srv/files"',
    'ALLOWED = {"https://api.example.com/status"}',
    "",
    "",
]
# Each attack: the lines after HEAD, the category, and the sink's line within them.
ATTACKS = {
    "ignored.py": (
        [
            "def is_safe_url(url):",
            '    return urlparse(url).hostname in {"api.example.com"}',
            "",
            "",
            '@app.route("/a")',
            "def view():",
            '    url = request.args["url"]',
            "    is_safe_url(url)",
            "    return requests.get(url, timeout=5).text",
        ],
        "ssrf",
    ),
    "word.py": (
        [
            '@app.route("/b")',
            "def view():",
            '    url = request.args["url"]',
            "    if not app.cache.invalidate(url):",
            "        abort(400)",
            "    return requests.get(url, timeout=5).text",
        ],
        "ssrf",
    ),
    "disjunction.py": (
        [
            '@app.route("/c")',
            "def view():",
            '    url = request.args["url"]',
            '    if url in ALLOWED or request.args.get("preview"):',
            "        return requests.get(url, timeout=5).text",
        ],
        "ssrf",
    ),
    "scheme.py": (
        [
            '@app.route("/d")',
            "def view():",
            '    url = request.args["url"]',
            '    if urlparse(url).scheme not in {"http", "https"}:',
            "        abort(400)",
            "    return requests.get(url, timeout=5).text",
        ],
        "ssrf",
    ),
    "identity.py": (
        [
            "def sanitize_path(p):",
            "    return p",
            "",
            "",
            '@app.route("/e")',
            "def view():",
            '    name = sanitize_path(request.args["name"])',
            "    return send_file(os.path.join(BASE, name))",
        ],
        "path_traversal",
    ),
    "lambda.py": (
        [
            "clean = lambda v: v  # noqa: E731",
            "",
            "",
            '@app.route("/f")',
            "def view():",
            '    name = clean(request.args["name"])',
            "    return send_file(os.path.join(BASE, name))",
        ],
        "path_traversal",
    ),
    "quoted.py": (
        [
            '@app.route("/g")',
            "def view():",
            '    name = quote(request.args["name"])',
            "    return send_file(os.path.join(BASE, name))",
        ],
        "path_traversal",
    ),
    "escaped.py": (
        [
            '@app.route("/h")',
            "def view():",
            '    name = html.escape(request.args["name"])',
            "    return send_file(os.path.join(BASE, name))",
        ],
        "path_traversal",
    ),
}
SAFE = [
    '@app.route("/s")',
    "def view():",
    '    url = request.args["url"]',
    "    if url not in ALLOWED:",
    "        abort(400)",
    "    return requests.get(url, timeout=5).text",
    "",
    "",
    '@app.route("/t")',
    "def name_view():",
    '    name = request.args["name"]',
    "    path = os.path.realpath(os.path.join(BASE, name))",
    "    if not path.startswith(BASE + os.sep):",
    "        abort(404)",
    "    return send_file(path)",
]


def added_file(path: str, lines: list[str]) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def review(capsys: pytest.CaptureFixture[str], tmp_path: Path, diff: str) -> tuple[int, Review]:
    path = tmp_path / "pr.diff"
    path.write_text(diff, encoding="utf-8")
    code = main(["review", str(path), "--format", "json", "-q", "--fail-on", "high"])
    out, _ = capsys.readouterr()
    return code, Review.model_validate_json(out)


def taint_findings(result: Review) -> set[tuple[str, int, str]]:
    """(file, line, rule) of each finding the taint check reported."""
    return {
        (f.file_path, f.line_start, source.partition(":")[2])
        for f in result.findings
        for source in f.sources
        if source.startswith("python-taint:")
    }


def test_code_written_to_look_guarded_or_sanitised_is_still_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = "".join(added_file(name, HEAD + lines) for name, (lines, _) in ATTACKS.items())
    code, result = review(capsys, tmp_path, diff)
    assert code == EXIT_FINDINGS
    found = taint_findings(result)
    for name, (lines, category) in ATTACKS.items():
        sink = len(HEAD) + len(lines)  # the sink is each handler's last line
        assert (name, sink, f"taint-{category}") in found, name


def test_real_guards_keep_the_taint_check_silent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, result = review(capsys, tmp_path, added_file("safe.py", HEAD + SAFE))
    assert taint_findings(result) == set()
