"""The style agent: ruff's rules for unused code, naming, complexity and error handling."""

from __future__ import annotations

from code_guard.agents.base import Agent
from code_guard.findings import AgentName, Category
from code_guard.tools.base import Tool
from code_guard.tools.python.correctness import PythonCorrectnessTool
from code_guard.tools.ruff.tool import STYLE_RULES, RuffTool
from code_guard.tools.semgrep.tool import SemgrepTool


class StyleAgent(Agent):
    """Finds dead code, misleading names, tangled functions and swallowed errors."""

    name = AgentName.STYLE
    focus = (
        "maintainability: unused code (imports, variables, unreachable branches), misleading "
        "or ambiguous names, functions too complex to review, error handling that swallows or "
        "hides failures, and other correctness smells (mutable default arguments, comparisons "
        "to None with ==)."
    )
    categories = (
        Category.UNUSED_CODE,
        Category.NAMING,
        Category.COMPLEXITY,
        Category.ERROR_HANDLING,
        Category.OTHER,
    )

    def tools(self) -> tuple[Tool, ...]:
        """Ruff's style rules and the AST's correctness checks for Python, semgrep rules."""
        return (RuffTool(STYLE_RULES), PythonCorrectnessTool(), SemgrepTool(self.categories))
