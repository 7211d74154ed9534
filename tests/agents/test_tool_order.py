"""Agents start the tools that wait on an analyser process before those that work in the
reviewer's own interpreter, and still report in the order of their tools (agents/base.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from code_guard.agents import AgentContext
from code_guard.agents.base import _start_rank
from code_guard.agents.performance import PerformanceAgent
from code_guard.agents.security import SecurityAgent
from code_guard.agents.style import StyleAgent
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.options import AnalysisOptions
from code_guard.tools.bandit.tool import BanditTool
from code_guard.tools.base import Focus, Tool, ToolHit
from code_guard.tools.ruff.tool import RuffTool
from code_guard.tools.semgrep.tool import SemgrepTool

DIFF = """\
diff --git a/app.py b/app.py
new file mode 100644
--- /dev/null
+++ b/app.py
@@ -0,0 +1,3 @@
+import os
+os.system(input())
+eval(input())
"""


def _order(tools: Sequence[Tool]) -> list[type[Tool]]:
    return [type(t) for t in sorted(tools, key=_start_rank)]


def test_semgrep_then_bandit_then_ruff_start_before_the_in_process_tools() -> None:
    security = _order(SecurityAgent().tools())
    assert security[:2] == [SemgrepTool, BanditTool]
    # the in-process tools keep their own order after them (the sort is stable)
    listed = [type(t) for t in SecurityAgent().tools()]
    assert security[2:] == [kind for kind in listed if kind not in (SemgrepTool, BanditTool)]
    for agent in (PerformanceAgent(), StyleAgent()):
        order = _order(agent.tools())
        assert order[:2] == [SemgrepTool, RuffTool]
        assert all(kind not in (SemgrepTool, BanditTool, RuffTool) for kind in order[2:])


class _Semgrep(SemgrepTool):
    """Semgrep's place among the tools, with a fixed answer."""

    def run_focused(self, workspace: Path, paths: Sequence[str], focus: Focus) -> list[ToolHit]:
        return [ToolHit("semgrep", "py-command-injection-taint", "app.py", 2, 2, "semgrep")]


class _Bandit(BanditTool):
    """Bandit's place among the tools, with a fixed answer."""

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        return [ToolHit("bandit", "B605", "app.py", 2, 2, "bandit")]


class _InProcess(Tool):
    """An in-process tool, listed before the process-bound ones."""

    name = "in-process"

    def applies_to(self, path: str) -> bool:
        return True

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        return [ToolHit("bandit", "B307", "app.py", 3, 3, "in-process")]


class _Scripted(SecurityAgent):
    def __init__(self, *tools: Tool) -> None:
        self._tools = tools

    def tools(self) -> tuple[Tool, ...]:
        return self._tools


def test_findings_keep_the_order_of_the_tools_not_of_their_start(tmp_path: Path) -> None:
    change = parse_diff(DIFF)
    ctx = AgentContext(
        request=ReviewRequest(change=change),
        files=change.reviewable_files,
        workspace=tmp_path,
        options=AnalysisOptions(),
    )
    tools = (_InProcess(), _Bandit(), _Semgrep(SecurityAgent.categories))
    report = asyncio.run(_Scripted(*tools).review(ctx))
    assert [f.sources for f in report.findings] == [
        ("bandit:B307",),
        ("bandit:B605",),
        ("semgrep:py-command-injection-taint",),
    ]
