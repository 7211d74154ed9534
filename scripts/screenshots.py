"""Render what a reviewer sees (summary comment, an inline comment, the eval job summary) the
way GitHub shows it, in headless Chromium at 1,000 px, and check nothing overflows sideways.

Markdown is rendered with markdown-it-py (CommonMark + GFM tables, raw HTML allowed, as
GitHub allows ``<details>``/``<sub>``) inside a page styled like GitHub's markdown CSS. A
script in the page measures the document's and every table's scroll width against the
viewport and writes the figures into the DOM, which ``--dump-dom`` returns.

Usage: ``python scripts/screenshots.py [--out docs/screenshots] [--no-png]``. Prints one
line per page; exits 1 when something overflows, 2 when Chromium is missing.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from code_guard.change.diff import Change, parse_diff
from code_guard.evaluation.dataset import ExpectedFinding
from code_guard.evaluation.metrics import score_case, summarize
from code_guard.evaluation.report import render_markdown as render_eval
from code_guard.evaluation.schema import CaseResult, EvalResults, RunMetadata
from code_guard.findings import (
    AgentName,
    AgentState,
    AgentStatus,
    Category,
    Finding,
    Review,
    Severity,
    Usage,
    Verdict,
)
from code_guard.github.anchors import Anchor
from code_guard.github.comments import comment_body
from code_guard.github.summary import blob_url, summary_comment
from code_guard.report.markdown import render_markdown

WIDTH = 1000
HEIGHT = 1400
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    f"--window-size={WIDTH},{HEIGHT}",
)
# The parts of GitHub's markdown CSS (github-markdown-css) that decide widths and wrapping.
CSS = """
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; max-width: 1000px; padding: 16px 24px; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, "DejaVu Sans",
  sans-serif, "Noto Color Emoji"; word-wrap: break-word; }
.markdown-body h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
.markdown-body h4 { font-size: 1em; margin: 16px 0 8px; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse; }
.markdown-body td, .markdown-body th { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body code { padding: .2em .4em; font-size: 85%; white-space: break-spaces;
  background: #818b981f; border-radius: 6px;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
.markdown-body pre { padding: 16px; overflow: auto; background: #f6f8fa; border-radius: 6px; }
.markdown-body pre code { padding: 0; background: transparent; white-space: pre; }
.markdown-body blockquote { margin: 0; padding: 0 1em; color: #59636e;
  border-left: .25em solid #d1d9e0; }
.markdown-body details { margin: 8px 0; }
"""
MEASURE = """
<script>
window.addEventListener("load", () => {
  document.querySelectorAll("details").forEach(d => d.open = true);
  const cut = [...document.querySelectorAll("table")]
    .filter(t => t.scrollWidth > t.clientWidth + 1)
    .map(t => t.innerText.slice(0, 60));
  const out = document.createElement("pre");
  out.id = "cg-measure";
  out.style.display = "none";
  out.textContent = JSON.stringify({
    scrollWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
    height: Math.ceil(document.querySelector("article").getBoundingClientRect().bottom) + 16,
    cutTables: cut});
  document.body.appendChild(out);
});
</script>
"""
_MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


@dataclass(frozen=True)
class Measure:
    """What the page measured in Chromium."""

    scroll_width: int
    viewport: int
    height: int
    cut_tables: tuple[str, ...]

    @property
    def overflows(self) -> bool:
        """True when the page or a table is wider than its box."""
        return self.scroll_width > self.viewport or bool(self.cut_tables)


def page(markdown: str) -> str:
    """A standalone HTML page showing ``markdown`` as GitHub would."""
    body = _MD.render(markdown)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{CSS}</style></head>"
        f"<body><article class='markdown-body'>{body}</article>{MEASURE}</body></html>"
    )


def chromium() -> str | None:
    """The Chromium binary, if installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(binary: str, args: list[str]) -> str:
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(  # noqa: S603 - fixed argv
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"chromium exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return proc.stdout


def measure(binary: str, html_file: Path) -> Measure:
    """Load ``html_file`` and read back the figures its script wrote into the DOM."""
    dom = _run(binary, ["--virtual-time-budget=3000", "--dump-dom", html_file.as_uri()])
    found = re.search(r'<pre id="cg-measure"[^>]*>(.*?)</pre>', dom, re.DOTALL)
    if found is None:
        raise RuntimeError("the page did not report its measurements")
    data = json.loads(html.unescape(found.group(1)))
    return Measure(data["scrollWidth"], data["viewport"], data["height"], tuple(data["cutTables"]))


def screenshot(binary: str, html_file: Path, png: Path, height: int) -> None:
    """Save a PNG of the page, as tall as its content."""
    size = f"--window-size={WIDTH},{min(max(height, 200), 6000)}"
    _run(binary, [size, f"--screenshot={png}", html_file.as_uri()])


def samples() -> dict[str, str]:
    """The three views, from representative values: long names, a failed agent, 21 rows."""
    change = _sample_change()
    review = _sample_review()
    base = blob_url("https://github.com/octo-org/shop/pull/42", "4f9c2d1e" * 5)
    unplaced = ((review.findings[-1], "over the limit of 10 inline comments"),)
    summary = summary_comment(
        review, "4f9c2d1e" * 5, unplaced, lambda r: render_markdown(r, blob_base=base)
    )
    inline = comment_body(review.findings[1], Anchor("shop/rates/client.py", 4), change)
    return {"summary": summary, "inline": inline, "eval": _sample_eval()}


def _sample_change() -> Change:
    return parse_diff(
        "diff --git a/shop/rates/client.py b/shop/rates/client.py\n"
        "--- a/shop/rates/client.py\n+++ b/shop/rates/client.py\n"
        "@@ -1,3 +1,6 @@\n import requests\n \n def fetch_rates(url):\n"
        "+    resp = requests.get(url, headers={'Accept': 'application/json'})\n"
        "+    data = resp.json()\n+    return data\n"
    )


def _finding(path: str, line: int, severity: Severity, category: Category, title: str,
             source: str, cwe: str | None, fix: str | None = None) -> Finding:  # fmt: skip
    return Finding(
        agent=AgentName.SECURITY if cwe else AgentName.STYLE, file_path=path,
        line_start=line, line_end=line, severity=severity, category=category, title=title,
        description=f"{title} ({source.replace(':', ' ')})", suggested_fix=fix, cwe_id=cwe,
        confidence=0.8, sources=(source,),
    )  # fmt: skip


def _sample_review() -> Review:
    long_path = "services/billing/adapters/payment_providers/legacy_gateway/reconciliation.py"
    findings = (
        _finding("config/settings/production.py", 12, Severity.CRITICAL,
                 Category.HARDCODED_SECRET, "AWS Access Key", "detect-secrets:AWS Access Key",
                 "CWE-798"),
        _finding("shop/rates/client.py", 4, Severity.MEDIUM, Category.OTHER,
                 "Call to requests without timeout", "bandit:B113", "CWE-400",
                 "    resp = requests.get(url, headers={'Accept': 'application/json'}, "
                 "timeout=10)"),
        _finding(long_path, 88, Severity.HIGH, Category.SQL_INJECTION,
                 "Possible SQL injection vector through string-based query construction",
                 "bandit:B608", "CWE-89"),
        _finding("shop/views.py", 30, Severity.LOW, Category.UNUSED_CODE,
                 "`os` imported but unused", "ruff:F401", "CWE-1164"),
    )  # fmt: skip
    reason = (
        "model openrouter/anthropic/claude-3.5-sonnet failed: litellm.RateLimitError: "
        "RateLimitError: OpenrouterException - {\"error\":{\"message\":\"Rate limit exceeded: "
        "free-models-per-day-high-balance\",\"code\":429}}"
    )
    agents = (
        AgentStatus(agent=AgentName.SECURITY, state=AgentState.FAILED, reason=reason,
                    tools=("bandit", "detect-secrets", "semgrep", "python-taint"),
                    model="openrouter/anthropic/claude-3.5-sonnet", duration_ms=2410),
        AgentStatus(agent=AgentName.PERFORMANCE, state=AgentState.OK, tools=("ruff",),
                    duration_ms=310),
        AgentStatus(agent=AgentName.STYLE, state=AgentState.OK, tools=("ruff",), duration_ms=290),
    )  # fmt: skip
    return Review(
        findings=findings, health_score=41, verdict=Verdict.REQUEST_CHANGES,
        summary="4 finding(s).", agents=agents, usage=Usage(prompt_tokens=5200,
        completion_tokens=640, cost_usd=0.0213), duration_ms=3120, static_only=False,
        files_reviewed=("shop/rates/client.py", "shop/views.py"),
    )  # fmt: skip


def _sample_eval() -> str:
    cases: list[CaseResult] = []
    for index, category in enumerate(Category):
        found = [_finding("a.py", 10, Severity.HIGH, category, "t", "x:y", None)]
        expected = [ExpectedFinding(file_path="a.py", line_start=10 + 20 * (index % 3),
                                    category=category)]  # fmt: skip
        matches, score = score_case(found, expected, tolerance=3)
        name = f"case_{category.value}_with_a_long_name"
        cases.append(CaseResult(case_file=f"{name}.json", pr_id=name, findings=tuple(found),
                                expected=tuple(expected), matches=matches, score=score,
                                latency_ms=100.0 + index))  # fmt: skip
    meta = RunMetadata(tolerance=3, model="static-only", static_only_reason="offline",
                       dataset="dataset", dataset_cases=len(cases))  # fmt: skip
    results = EvalResults(metadata=meta, summary=summarize(cases), cases=tuple(cases))
    return render_eval(results, results)


def main(argv: list[str] | None = None) -> int:
    """Render, measure and (unless ``--no-png``) photograph each view."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--no-png", action="store_true")
    args = parser.parse_args(argv)
    binary = chromium()
    if binary is None:
        print("screenshots: chromium is not installed", file=sys.stderr)
        return 2
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, markdown in samples().items():
            html_file = Path(tmp) / f"{name}.html"
            html_file.write_text(page(markdown), encoding="utf-8")
            figures = measure(binary, html_file)
            verdict = "OVERFLOWS" if figures.overflows else "fits"
            print(f"{name}: {verdict} (scrollWidth {figures.scroll_width} / viewport "
                  f"{figures.viewport}, cut tables {list(figures.cut_tables)})")  # fmt: skip
            failed = failed or figures.overflows
            if not args.no_png:
                args.out.mkdir(parents=True, exist_ok=True)
                screenshot(binary, html_file, args.out / f"{name}.png", figures.height)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
