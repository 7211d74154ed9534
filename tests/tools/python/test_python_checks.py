"""The in-process Python checks added to the agents: linear scans in loops, insecure settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.options import build_options
from code_guard.review.engine import review_sync
from code_guard.tools.base import Tool, ToolHit
from code_guard.tools.python.performance import PythonAstTool
from code_guard.tools.python.settings import PythonSettingsTool

SCANS = """\
def dedupe(rows):
    seen = []
    out = []
    for row in rows:
        if row["email"] not in seen:
            seen.append(row["email"])
        match = next(r for r in out if r["id"] == row["id"])
    for row in rows:
        if row["sku"] in [p.sku for p in rows]:
            pass
    return out


def fine(rows):
    allowed = {"a", "b"}
    for row in rows:
        if row in allowed or row in ("x", "y"):
            pass
"""

SETTINGS = """\
DEBUG = True
ALLOWED_HOSTS = ["shop.example.com", "*"]
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = True
CORS_ALLOW_ALL_ORIGINS = True
"""


def run(tool: Tool, tmp_path: Path, name: str, source: str) -> list[ToolHit]:
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source, encoding="utf-8")
    return tool.run(tmp_path, [name])


def test_linear_scans_inside_loops_are_flagged_once_each(tmp_path: Path) -> None:
    hits = [h for h in run(PythonAstTool(), tmp_path, "m.py", SCANS) if h.rule.startswith("lin")]
    assert [h.line for h in hits] == [5, 7, 9]


def test_sets_tuples_and_code_outside_loops_are_not_flagged(tmp_path: Path) -> None:
    source = SCANS.split("\n\n\n")[1] + "\nitems = []\nif 3 in items:\n    pass\n"
    hits = run(PythonAstTool(), tmp_path, "m.py", source)
    assert [h for h in hits if h.rule == "linear-scan-in-loop"] == []


def test_production_settings_flag_debug_and_wildcard_hosts(tmp_path: Path) -> None:
    hits = run(PythonSettingsTool(), tmp_path, "app/settings/production.py", SETTINGS)
    assert [(h.line, h.rule) for h in hits] == [
        (1, "insecure-setting"),
        (2, "insecure-setting"),
        (3, "insecure-setting"),
        (5, "insecure-setting"),
    ]
    assert "debug pages" in hits[0].message


def test_debug_in_development_settings_is_fine(tmp_path: Path) -> None:
    hits = run(PythonSettingsTool(), tmp_path, "app/settings/dev.py", SETTINGS)
    assert [h.line for h in hits] == [2, 3, 5]


COOKIES = """\
def view(response, settings, options):
    response.set_cookie("sid", "v")
    response.set_cookie("sid", "v", secure=True, httponly=False)
    response.set_cookie("sid", "v", secure=True, httponly=True)
    response.set_cookie("sid", "v", secure=settings.SESSION_COOKIE_SECURE)
    response.set_cookie("sid", "v", **options)
    app.config["WTF_CSRF_ENABLED"] = False
    app.config["WTF_CSRF_ENABLED"] = True
"""


def test_cookies_without_secure_and_config_overrides_are_flagged(tmp_path: Path) -> None:
    hits = run(PythonSettingsTool(), tmp_path, "web/views.py", COOKIES)
    assert sorted((h.line, h.rule) for h in hits) == [
        (2, "insecure-cookie"),
        (3, "insecure-cookie"),
        (7, "insecure-setting"),
    ]


def test_constant_shell_commands_are_quiet_and_dynamic_ones_are_flagged() -> None:
    diff = (
        "diff --git a/ops.py b/ops.py\nnew file mode 100644\n--- /dev/null\n+++ b/ops.py\n"
        "@@ -0,0 +1,5 @@\n+import os\n+\n+os.system(\"ls -la\")\n+\n"
        "+os.system(\"tar czf \" + name)\n"
    )
    options = build_options({"agents": "security"})
    review = review_sync(ReviewRequest(change=parse_diff(diff)), options)
    assert [(f.line_start, f.category.value) for f in review.findings] == [
        (5, "command_injection")
    ]


def test_xml_parsers_that_resolve_entities_are_flagged(tmp_path: Path) -> None:
    source = (
        "from lxml import etree\n"
        "RISKY = etree.XMLParser(load_dtd=True, resolve_entities=True)\n"
        "SAFE = etree.XMLParser(resolve_entities=False, no_network=True)\n"
    )
    hits = run(PythonSettingsTool(), tmp_path, "importers/ubl.py", source)
    assert [(h.line, h.rule) for h in hits] == [(2, "xxe-parser")]


def test_annotated_module_caches_that_only_grow_are_flagged(tmp_path: Path) -> None:
    source = (
        "from collections import defaultdict\n"
        "_hits: dict[str, list[float]] = defaultdict(list)\n"
        "_seen: dict[str, int] = {}\n"
        "def hit(key, now):\n"
        "    _hits[key] = [now]\n"
        "    _seen[key] = 1\n"
        "def forget(key):\n"
        "    _seen.pop(key, None)\n"
    )
    hits = run(PythonAstTool(), tmp_path, "ratelimit.py", source)
    assert [(h.line, h.rule) for h in hits] == [(5, "unbounded-cache")]



def test_taint_findings_name_the_source_the_sink_and_their_lines() -> None:
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from code_guard.tools.python.taint import PythonTaintTool

    code = (
        "from flask import redirect, request\n"
        "\n"
        "@app.route('/login')\n"
        "def login():\n"
        "    target = request.args['next']\n"
        "    audit(target)\n"
        "    return redirect(target)\n"
        "\n"
        "@app.get('/u/<name>')\n"
        "def user(name):\n"
        "    return redirect(name)\n"
    )
    with TemporaryDirectory() as tmp:
        (Path(tmp) / "views.py").write_text(code, encoding="utf-8")
        hits = PythonTaintTool().run(Path(tmp), ["views.py"])
    messages = sorted(h.message for h in hits)
    assert messages == [
        "`request.args['next']` (line 5) reaches `redirect()` (line 7): open redirect; "
        "validate or parameterise it first.",
        "route parameter `name` (line 10) reaches `redirect()` (line 11): open redirect; "
        "validate or parameterise it first.",
    ]


def test_xml_parsers_that_expand_or_resolve_entities() -> None:
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from code_guard.tools.python.settings import PythonSettingsTool

    files = {
        "unsafe.py": (
            "try:\n"
            "    from xml.etree import cElementTree as ET\n"
            "except ImportError:\n"
            "    from xml.etree import ElementTree as ET\n"
            "from lxml import etree\n"
            "\n"
            "def load(text):\n"
            "    parser = etree.XMLParser(strip_cdata=False)\n"
            "    return ET.fromstring(text), etree.fromstring(text, parser)\n"
        ),
        "safe.py": (
            "import defusedxml.ElementTree as ET\n"
            "from lxml import etree\n"
            "\n"
            "def load(text):\n"
            "    parser = etree.XMLParser(resolve_entities=False, no_network=True)\n"
            "    return ET.fromstring(text), etree.fromstring(text, parser)\n"
        ),
    }
    with TemporaryDirectory() as tmp:
        for name, code in files.items():
            (Path(tmp) / name).write_text(code, encoding="utf-8")
        hits = PythonSettingsTool().run(Path(tmp), sorted(files))
    assert sorted((h.file_path, h.line, h.rule) for h in hits) == [
        ("unsafe.py", 8, "xxe-parser"),
        ("unsafe.py", 9, "stdlib-xml-parse"),
    ]


def test_the_checkers_share_one_parse_of_each_file(tmp_path: Path) -> None:
    from code_guard.rewrites.python_parse import parse_count
    from code_guard.tools.python.taint import PythonTaintTool

    paths = []
    for index in range(3):
        path = f"app/views_{index}.py"
        (tmp_path / "app").mkdir(exist_ok=True)
        (tmp_path / path).write_text(
            f"import requests\n\ndef view_{index}(request):\n"
            "    return requests.get(request.GET['url'])\n",
            encoding="utf-8",
        )
        paths.append(path)
    before = parse_count()
    hits = [hit for tool in (PythonAstTool(), PythonTaintTool(), PythonSettingsTool())
            for hit in tool.run(tmp_path, paths)]  # fmt: skip
    assert parse_count() - before == len(paths)  # one parse per file
    assert {hit.file_path for hit in hits} == set(paths)  # and the taint check sees each


def test_a_file_that_does_not_parse_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import ast

    from code_guard.rewrites.python_parse import parse_failure, parse_python

    calls: list[str] = []
    real = ast.parse

    def counting(source: str) -> ast.Module:
        calls.append(source)
        return real(source)

    monkeypatch.setattr(ast, "parse", counting)
    source = "def broken(:\n    pass\n"
    assert parse_python(source) is None
    assert parse_failure(source) is None  # a syntax error: ruff names it
    assert len(calls) == 1  # why it failed was found by the same parse
