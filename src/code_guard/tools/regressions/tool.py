"""The security-regression detector as a tool of the security agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from code_guard.knowledge.regressions import TOOL
from code_guard.tools.base import ChangeTool, ToolHit
from code_guard.tools.regressions.detector import find_regressions, language_of

if TYPE_CHECKING:
    from code_guard.change.diff import FileChange
    from code_guard.change.request import ReviewRequest


class RegressionTool(ChangeTool):
    """Reports protections (safe APIs, protective arguments, sanitisers, guards, secrets read
    without a default) that the change removed from a modified Python, JS/TS or Go file."""

    name = TOOL

    def applies_to(self, path: str) -> bool:
        """Python, JavaScript/TypeScript and Go sources. Test files are read too: their
        rules are quiet in tests, and the filters decide, on proof, what is a test."""
        return language_of(path) is not None

    def run_change(self, request: ReviewRequest, files: Sequence[FileChange]) -> list[ToolHit]:
        """The regressions of every modified file in ``files``."""
        hits: list[ToolHit] = []
        for file in files:
            if not file.has_base or not self.applies_to(file.path):
                continue
            hits.extend(
                ToolHit(
                    tool=TOOL,
                    rule=found.rule,
                    file_path=file.path,
                    line=found.line,
                    end_line=found.line,
                    message=f"{found.title}\n{found.detail}",
                    tool_severity="HIGH" if found.strong else "LOW",
                    removed_line=found.removed,
                    removed_at=found.base_line,
                    on_unchanged_line=found.unchanged,
                    silenced=found.silenced,
                )
                for found in find_regressions(file, request.text_of(file.path))
            )
        return hits
