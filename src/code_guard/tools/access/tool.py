"""The access-control detector as a tool of the security agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from code_guard.tools.access.detector import find_access_issues
from code_guard.tools.access.model import Language, access_model
from code_guard.tools.base import ChangeTool, ToolHit
from code_guard.tools.regressions.detector import language_of as regression_language
from code_guard.tools.runtime.turns import TURN

if TYPE_CHECKING:
    from code_guard.change.diff import FileChange
    from code_guard.change.request import ReviewRequest

TOOL = "access-control"
_STRONG = frozenset(
    {
        "deny-branch-removed",
        "decorator-removed",
        "permission-dropped",
        "csrf-protection-removed",
        "csrf-exempted",
    }
)


def language_of(path: str) -> Language | None:
    """The model's language of ``path``, or None: the security-regression detector's, so the
    two tools that compare both sides of a hunk read the same files alike."""
    return regression_language(path)


class AccessControlTool(ChangeTool):
    """Reports authorization, authentication and CSRF checks that the change took away from a
    modified Python, JS/TS or Go file: deny branches, decorators and dependencies,
    middleware and handler wrappers, and CSRF protection."""

    name = TOOL

    def applies_to(self, path: str) -> bool:
        """Python, JavaScript/TypeScript and Go sources. Test files are read too: the rules
        are quiet in tests, and the filters decide, on proof, what is a test."""
        return language_of(path) is not None

    def run_change(self, request: ReviewRequest, files: Sequence[FileChange]) -> list[ToolHit]:
        """The access checks every modified file in ``files`` lost."""
        with TURN:  # the in-process analysers take turns (tools/runtime/turns.py)
            return self._lost(request, files)

    def _lost(self, request: ReviewRequest, files: Sequence[FileChange]) -> list[ToolHit]:
        model = access_model()
        hits: list[ToolHit] = []
        for file in files:
            language = language_of(file.path)
            if not file.has_base or language is None:
                continue
            hits.extend(
                ToolHit(
                    tool=TOOL,
                    rule=found.rule,
                    file_path=file.path,
                    line=found.line,
                    end_line=found.line,
                    message=f"{found.title}\n{found.detail}",
                    tool_severity="HIGH" if found.rule in _STRONG else "MEDIUM",
                    removed_line=found.removed,
                    removed_at=found.removed_at,
                    on_unchanged_line=found.unchanged,
                    silenced=found.silenced,
                )
                for found in find_access_issues(file, request.text_of(file.path), language, model)
            )
        return hits
