"""The performance agent: ruff's PERF/ASYNC rules, AST checks for N+1 and blocking I/O."""

from __future__ import annotations

from code_guard.agents.base import Agent
from code_guard.findings import AgentName, Category
from code_guard.tools.base import Tool
from code_guard.tools.python.performance import PythonAstTool
from code_guard.tools.ruff.tool import PERFORMANCE_RULES, RuffTool
from code_guard.tools.semgrep.tool import SemgrepTool


class PerformanceAgent(Agent):
    """Finds N+1 queries, blocking calls in async code, wasteful loops and leaks."""

    name = AgentName.PERFORMANCE
    focus = (
        "performance: N+1 database queries (a query per loop iteration), blocking I/O inside "
        "async functions or hot paths, inefficient loops and data structures (quadratic "
        "membership tests, repeated work), and memory leaks (unbounded caches, listeners or "
        "timers never removed)."
    )
    categories = (
        Category.N_PLUS_ONE_QUERY,
        Category.INEFFICIENT_LOOP,
        Category.BLOCKING_IO,
        Category.MEMORY_LEAK,
    )

    def tools(self) -> tuple[Tool, ...]:
        """Ruff's performance rules and our AST checks for Python, semgrep rules for JS/TS/Go."""
        return (RuffTool(PERFORMANCE_RULES), PythonAstTool(), SemgrepTool(self.categories))
