"""The named filters between a tool hit and a finding (agents/filtering.py)."""

from __future__ import annotations

from code_guard.agents.filtering import finding_for, honoured_suppression, judge, out_of_scope
from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import REASON_CHARS, AgentName, Category, Finding, Silenced, Silencing
from code_guard.knowledge.mapping import lookup
from code_guard.options import AnalysisOptions
from code_guard.review.synthesizer import deduplicate
from code_guard.tools.base import NOT_ANALYSED_RULE, ToolHit

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


def test_a_rule_declines_the_hits_its_record_says_are_harmless() -> None:
    diff = (
        "diff --git a/run.py b/run.py\nnew file mode 100644\n--- /dev/null\n+++ b/run.py\n"
        "@@ -0,0 +1,3 @@\n+subprocess.run('ls -l', shell=True)\n"
        '+sql = f"SELECT * FROM t WHERE id = ?"\n+assert ready\n'
    )
    req, options = request(diff), AnalysisOptions()

    def found(rule: str, line: int, rated: str = "", path: str = "run.py") -> bool:
        shell = ToolHit("bandit", rule, path, line, line, "m", tool_severity=rated)
        return finding_for(AgentName.SECURITY, shell, req, options, keep_all) is not None

    # B602 on a literal command line: Bandit itself rates it LOW ("seems safe").
    assert not found("B602", 1, "LOW") and found("B602", 1, "HIGH")
    # B608 on an f-string with no fields: a constant query.
    assert not found("B608", 2) and found("B608", 1)
    # B101, an assert: quiet in tests only.
    assert found("B101", 3)
    tests = request(diff.replace("run.py", "tests/test_run.py"))
    quiet = ToolHit("bandit", "B101", "tests/test_run.py", 3, 3, "assert")
    assert finding_for(AgentName.SECURITY, quiet, tests, options, keep_all) is None


def test_each_filter_that_silences_on_proof_says_which_and_why() -> None:
    options = AnalysisOptions()

    def judged(one: ToolHit, diff: str = DIFF) -> Finding | Silenced | None:
        return judge(AgentName.SECURITY, one, request(diff), options, keep_all)

    quiet = judged(ToolHit("bandit", "B113", "tests/test_load.py", 3, 3, "m"), TEST_DIFF)
    assert isinstance(quiet, Silenced) and quiet.mechanism is Silencing.TEST_FILE
    assert (quiet.tool, quiet.rule, quiet.file_path, quiet.line) == (
        "bandit", "B113", "tests/test_load.py", 3,
    )
    # The PR's own `# nosec` on a medium B113 is honoured: silenced, with the comment named.
    nosec = judged(ToolHit("bandit", "B113", "app/load.py", 2, 2, "no timeout"))
    assert isinstance(nosec, Silenced) and nosec.mechanism is Silencing.SUPPRESSION
    assert "`# nosec`" in nosec.reason and "pull request adds" in nosec.reason
    # ...on a high B506 it is not: a finding, marked, and nothing silenced.
    assert isinstance(judged(hit(2)), Finding)
    rated = judged(ToolHit("bandit", "B602", "app/load.py", 3, 3, "m", tool_severity="LOW"))
    assert isinstance(rated, Silenced) and rated.mechanism is Silencing.RULE_DECLINED
    assert "LOW" in rated.reason
    # A filter that is no proof silences nothing: out of scope, the agent's say, a note.
    assert judged(hit(1)) is None
    assert judge(AgentName.SECURITY, hit(3), request(), options, lambda h, line: False) is None
    assert judged(hit(3, NOT_ANALYSED_RULE)) is None


def test_a_hit_its_tool_proved_harmless_is_recorded_with_the_tools_proof() -> None:
    proof = "x" * (REASON_CHARS + 50)
    proved = ToolHit("python-taint", "taint-sql", "app/load.py", 3, 3, proof, silenced="guard")
    record = judge(AgentName.SECURITY, proved, request(), AnalysisOptions(), keep_all)
    assert isinstance(record, Silenced) and record.mechanism is Silencing.GUARD
    assert len(record.reason) == REASON_CHARS and record.reason.endswith("...")
    # never a finding, and not counted off the lines the review looks at
    off = ToolHit("python-taint", "taint-sql", "app/load.py", 1, 1, "p", silenced="guard")
    assert judge(AgentName.SECURITY, off, request(), AnalysisOptions(), keep_all) is None
    assert finding_for(AgentName.SECURITY, proved, request(), AnalysisOptions(), keep_all) is None
    unknown = ToolHit("python-taint", "taint-sql", "app/load.py", 3, 3, "p", silenced="hope")
    assert judge(AgentName.SECURITY, unknown, request(), AnalysisOptions(), keep_all) is None

def test_a_hits_removed_line_number_reaches_the_finding_and_survives_a_merge() -> None:
    about = ToolHit(
        "bandit", "B506", "app/load.py", 3, 3, "Unsafe load.", removed_line="data = 1", removed_at=2
    )
    found = finding_for(AgentName.SECURITY, about, request(), AnalysisOptions(), keep_all)
    assert found is not None and (found.removed_line, found.removed_at) == ("data = 1", 2)
    plain = finding_for(AgentName.SECURITY, hit(3), request(), AnalysisOptions(), keep_all)
    assert plain is not None and plain.removed_at is None
    # Merged with a finding that has none (the model's, say), either way round, it is kept.
    other = plain.model_copy(update={"confidence": 1.0, "sources": ("model",)})
    assert other.merge(found).removed_at == 2 and found.merge(other).removed_at == 2


def test_a_disabled_rules_hit_is_held_back_as_the_owners_choice_and_no_other_rule_is() -> None:
    options = AnalysisOptions(disable_rules=("bandit:B506",))

    def judged(one: ToolHit, diff: str = DIFF) -> Finding | Silenced | None:
        return judge(AgentName.SECURITY, one, request(diff), options, keep_all)

    off = judged(hit(3))
    assert isinstance(off, Silenced) and off.mechanism is Silencing.DISABLED
    assert (off.tool, off.rule, off.file_path, off.line) == ("bandit", "B506", "app/load.py", 3)
    assert "bandit:B506 off (disable-rules)" in off.reason and "not proof" in off.reason
    # Another rule, on the same line, is unaffected.
    assert isinstance(judged(ToolHit("bandit", "B113", "app/load.py", 3, 3, "m")), Finding)
    # Out of scope it is no candidate at all, as before: nothing counted.
    assert judged(hit(1)) is None
    # It comes after scope and before the test-file policy (the order is otherwise unchanged).
    quiet = judge(
        AgentName.SECURITY,
        ToolHit("bandit", "B113", "tests/test_load.py", 3, 3, "m"),
        request(TEST_DIFF),
        AnalysisOptions(disable_rules=("bandit:B113",)),
        keep_all,
    )
    assert isinstance(quiet, Silenced) and quiet.mechanism is Silencing.DISABLED
    # Only the exact id counts: a rule the catalogue maps to B506's record by prefix is not off.
    assert isinstance(judged(hit(3, "B5060")), Finding)


def test_a_merged_finding_keeps_the_sources_that_are_not_disabled() -> None:
    semgrep = ToolHit(
        "semgrep", "py-insecure-deserialization-yaml", "app/load.py", 3, 3, "yaml.load is unsafe"
    )
    both = [hit(3), semgrep]

    def findings(options: AnalysisOptions) -> list[Finding]:
        judged = [judge(AgentName.SECURITY, h, request(), options, keep_all) for h in both]
        return deduplicate(f for f in judged if isinstance(f, Finding))

    [merged] = findings(AnalysisOptions())
    assert set(merged.sources) == {"bandit:B506", "semgrep:py-insecure-deserialization-yaml"}
    options = AnalysisOptions(disable_rules=("semgrep:py-insecure-deserialization-yaml",))
    [kept] = findings(options)
    assert kept.sources == ("bandit:B506",) and kept.line_start == 3
    held = judge(AgentName.SECURITY, semgrep, request(), options, keep_all)
    assert isinstance(held, Silenced) and held.mechanism is Silencing.DISABLED
