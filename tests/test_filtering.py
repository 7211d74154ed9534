"""The named filters between a tool hit and a finding (agents/filtering.py)."""

from __future__ import annotations

from code_guard.agents.filtering import finding_for, honoured_suppression, out_of_scope
from code_guard.diff import parse_diff
from code_guard.knowledge.mapping import NOT_ANALYSED_RULE, lookup
from code_guard.models import AgentName, Category
from code_guard.options import AnalysisOptions
from code_guard.request import ReviewRequest
from code_guard.tools.base import ToolHit

DIFF = """\
diff --git a/app/load.py b/app/load.py
--- a/app/load.py
+++ b/app/load.py
@@ -1,2 +1,3 @@
 import yaml
-data = 1
+config = yaml.load(text)  # nosec
+other = yaml.load(text)
"""
TEST_DIFF = DIFF.replace("app/load.py", "tests/test_load.py")


def request(diff: str = DIFF) -> ReviewRequest:
    return ReviewRequest(change=parse_diff(diff))


def hit(line: int, rule: str = "B506", path: str = "app/load.py") -> ToolHit:
    return ToolHit("bandit", rule, path, line, line, "Use of unsafe yaml load.")


def keep_all(_hit: ToolHit, _line: str) -> bool:
    return True


def test_an_unsuppressed_hit_on_an_added_line_is_a_finding_with_its_rewrite() -> None:
    found = finding_for(AgentName.SECURITY, hit(3), request(), AnalysisOptions(), keep_all)
    assert found is not None and found.category is Category.INSECURE_DESERIALIZATION
    assert found.suggested_fix is not None and "safe_load" in found.suggested_fix
    assert found.suppressed_in_pr is None


def test_a_suppression_the_pull_request_adds_marks_a_high_finding_instead_of_hiding_it() -> None:
    found = finding_for(AgentName.SECURITY, hit(2), request(), AnalysisOptions(), keep_all)
    assert found is not None and found.suppressed_in_pr == "# nosec"
    honour = AnalysisOptions(pr_suppressions="honor")
    assert finding_for(AgentName.SECURITY, hit(2), request(), honour, keep_all) is None


def test_each_filter_drops_what_it_names() -> None:
    req, options = request(), AnalysisOptions()
    file = req.change.file("app/load.py")
    assert file is not None
    assert out_of_scope(hit(1), file, options)  # a context line
    assert not out_of_scope(hit(1), file, AnalysisOptions(added_lines_only=False))
    info = lookup("bandit", "B506")
    assert info is not None
    assert not honoured_suppression(None, hit(2), info, file, options)
    note = hit(3, NOT_ANALYSED_RULE)
    assert finding_for(AgentName.SECURITY, note, req, options, keep_all) is None
    # The agent's own say, and a production rule in a test file.
    assert finding_for(AgentName.SECURITY, hit(3), req, options, lambda h, line: False) is None
    quiet = ToolHit("bandit", "B113", "tests/test_load.py", 3, 3, "no timeout")
    assert finding_for(AgentName.SECURITY, quiet, request(TEST_DIFF), options, keep_all) is None
    loud = ToolHit("bandit", "B113", "app/load.py", 3, 3, "no timeout")
    assert finding_for(AgentName.SECURITY, loud, req, options, keep_all) is not None
