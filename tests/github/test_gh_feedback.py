"""``code-guard feedback`` against the stand-in, over a seeded history of pull requests: the
action's inline comments, people's replies and the permission API's answers. The table must
be what the seeds imply, counted by hand below."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
from pathlib import Path

import pytest
import yaml
from ghfakes import TOKEN
from ghrunner import runner_environ, without_masks
from ghstandin import OWNER, REPO, GitHubStandIn
from test_gh_action import Fakes

from code_guard.cli import _build_parser
from code_guard.errors import InputError
from code_guard.github.action import main
from code_guard.github.comments import fingerprint_marker
from code_guard.github.feedback_command import run_feedback_command, since_date
from code_guard.github.inputs import build_review_options, read_inputs
from code_guard.options import build_options, load_config_file
from code_guard.report.feedback import (
    RuleStats,
    config_line,
    input_line,
    render_feedback_json,
    render_feedback_markdown,
)
from code_guard.trust.escaping import code_span

BOT = "github-actions[bot]"
NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)
FP = [hashlib.sha256(bytes([n])).hexdigest()[:16] for n in range(1, 8)]


def inline(
    github: GitHubStandIn,
    pull: int,
    fp: str,
    rule: str,
    agent: str,
    line: int | None = 10,
    path: str = "app/db.py",
) -> int:
    """The action's inline comment for one finding, as it writes them."""
    body = f"**finding**\n\nwhy\n{fingerprint_marker(fp, rule, agent)}"
    return github.seed_comment(pull, BOT, body, line=line, path=path)


def seed(github: GitHubStandIn) -> None:
    github.permissions.update({"alice": "write", "bob": "admin", "carol": "write"})
    github.seed_pull(11, "carol", "2026-11-27T10:00:00Z")
    github.seed_pull(12, "dave", "2026-11-20T10:00:00Z")
    github.seed_pull(13, "erin", "2026-10-01T10:00:00Z")  # before the period
    # #11: a false positive, a finding fixed by a push, and the author's own dismissal.
    c1 = inline(github, 11, FP[0], "bandit:B101", "security", line=5)
    github.seed_comment(
        11, "alice", "/code-guard dismiss false-positive asserts are on in tests only",
        association="MEMBER", in_reply_to=c1,
    )  # fmt: skip
    inline(github, 11, FP[1], "bandit:B608", "security", line=None)  # outdated: fixed
    c3 = inline(github, 11, FP[2], "bandit:B101", "security", line=9)
    github.seed_comment(
        11, "carol", "/code-guard dismiss false-positive mine", association="OWNER",
        in_reply_to=c3,
    )  # fmt: skip
    # #12: an accepted risk; an outdated finding its rule posted again on the same file
    # (not fixed), dismissed by id in the conversation.
    c4 = inline(github, 12, FP[3], "bandit:B101", "security")
    github.seed_comment(
        12, "bob", "/code-guard dismiss accepted-risk internal only", association="MEMBER",
        in_reply_to=c4,
    )  # fmt: skip
    inline(github, 12, FP[4], "ruff:F401", "style", line=None, path="app/util.py")
    inline(github, 12, FP[5], "ruff:F401", "style", path="app/util.py")
    github.seed_comment(
        12, "alice", f"/code-guard dismiss {FP[5][:8]} false-positive re-exported on purpose",
        association="MEMBER", inline=False,
    )  # fmt: skip
    inline(github, 13, FP[6], "bandit:B101", "security")


def run(github: GitHubStandIn, tmp_path: Path, *flags: str) -> tuple[str, dict[str, object]]:
    output = tmp_path / "feedback.json"
    args = _build_parser().parse_args(
        ["feedback", "--repo", f"{OWNER}/{REPO}", "--api-url", github.base_url,
         "--json", str(output), *flags]
    )  # fmt: skip
    out = io.StringIO()
    assert run_feedback_command(args, {"GITHUB_TOKEN": TOKEN}, out, NOW) == 0
    return out.getvalue(), json.loads(output.read_text(encoding="utf-8"))


def test_the_table_is_what_the_seeds_imply(github: GitHubStandIn, tmp_path: Path) -> None:
    seed(github)
    markdown, data = run(github, tmp_path)
    assert data["pull_requests"] == 2 and data["since"] == "2026-10-29"
    assert data["rules"] == [
        {"rule": "ruff:F401", "agent": "style", "posted": 2, "false_positive": 1,
         "accepted": 0, "fixed": 0, "false_positive_rate": 0.5},
        {"rule": "bandit:B101", "agent": "security", "posted": 3, "false_positive": 1,
         "accepted": 1, "fixed": 0, "false_positive_rate": 0.3333},
        {"rule": "bandit:B608", "agent": "security", "posted": 1, "false_positive": 0,
         "accepted": 0, "fixed": 1, "false_positive_rate": 0.0},
    ]  # fmt: skip
    assert data["noisiest"] == ["ruff:F401"]
    assert "| <code>bandit\\:B101</code> | security | 3 | 1 | 1 | 0 | 33% |" in markdown
    assert "| security | 4 | 1 | 1 | 1 |" in markdown
    assert "- <code>ruff\\:F401</code> (style): 1 of 2 dismissed as false positives" in markdown
    # #13 is older than the period: its comments were never read.
    assert github.calls("GET", "/pulls/13/") == []
    assert github.calls("GET", "/collaborators/carol/permission") == []  # the author


def test_writers_counts_the_authors_dismissal(github: GitHubStandIn, tmp_path: Path) -> None:
    seed(github)
    _, data = run(github, tmp_path, "--dismiss-by", "writers")
    rules = data["rules"]
    assert isinstance(rules, list)
    b101 = next(r for r in rules if r["rule"] == "bandit:B101")
    assert (b101["false_positive"], b101["accepted"]) == (2, 1)


def test_the_job_summary_gets_the_table(github: GitHubStandIn, tmp_path: Path) -> None:
    seed(github)
    summary = tmp_path / "summary.md"
    args = _build_parser().parse_args(
        ["feedback", "--repo", f"{OWNER}/{REPO}", "--api-url", github.base_url, "--job-summary"]
    )
    out = io.StringIO()
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_STEP_SUMMARY": str(summary)}
    assert run_feedback_command(args, env, out, NOW) == 0
    assert summary.read_text(encoding="utf-8") == out.getvalue()


def test_bad_input_is_one_clear_line() -> None:
    assert since_date("7d", NOW) == NOW - dt.timedelta(days=7)
    assert since_date("2026-11-01", NOW) == dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    with pytest.raises(InputError, match="give days"):
        since_date("last week", NOW)
    args = _build_parser().parse_args(["feedback", "--repo", "not a repo"])
    with pytest.raises(InputError, match="expected OWNER/NAME"):
        run_feedback_command(args, {"GITHUB_TOKEN": TOKEN}, io.StringIO(), NOW)


def test_the_actions_feedback_mode_writes_the_job_summary_and_json(
    github: GitHubStandIn, tmp_path: Path
) -> None:
    seed(github)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    event = tmp_path / "schedule.json"
    event.write_text("{}", encoding="utf-8")
    env = runner_environ(
        workspace, github.base_url, event, TOKEN, event_name="schedule", mode="feedback",
        since="2026-11-01",
    )  # fmt: skip
    out = io.StringIO()
    assert main(env, Fakes(()).services(), out) == 0
    assert "::notice::feedback: 6 finding(s) posted on 2 pull request(s)" in out.getvalue()
    data = json.loads((workspace / "code-guard-feedback.json").read_text(encoding="utf-8"))
    assert [r["rule"] for r in data["rules"]] == ["ruff:F401", "bandit:B101", "bandit:B608"]
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert "precision on this repository" in summary and "| style | 2 | 1 | 0 | 0 |" in summary


def test_a_bad_since_input_is_one_error_line(github: GitHubStandIn, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    env = runner_environ(
        workspace, github.base_url, tmp_path / "none.json", TOKEN, event_name="schedule",
        mode="feedback", since="last week",
    )  # fmt: skip
    out = io.StringIO()
    assert main(env, Fakes(()).services(), out) == 2
    assert without_masks(out.getvalue()) == "::error::invalid action input 'since': 'last week'\n"


def test_the_noisiest_rules_come_with_the_line_that_turns_each_off(
    github: GitHubStandIn, tmp_path: Path
) -> None:
    seed(github)
    markdown, data = run(github, tmp_path)
    assert data["noisiest"] == data["disable_rules"] == ["ruff:F401"]
    line, given = "disable-rules: [ruff:F401]", "disable-rules: ruff:F401"
    assert (config_line(["ruff:F401"]), input_line(["ruff:F401"])) == (line, given)
    # Per rule, rendered verbatim (a code span); for all of them, fenced to copy as it is.
    assert (
        f"- {code_span('ruff:F401')} (style): 1 of 2 dismissed as false positives; off with "
        f"{code_span(line)} in the config file, or the action input {code_span(given)}\n"
    ) in markdown
    assert f"```yaml\n{line}\n```" in markdown
    assert f"```yaml\nwith:\n  {given}\n```" in markdown
    assert "no switch that turns off a single rule" not in markdown
    # The line is one the review takes, from a config file and as the action's input.
    config = tmp_path / "code-guard.yml"
    config.write_text(line + "\n", encoding="utf-8")
    assert build_options(load_config_file(config)).analysis.disable_rules == ("ruff:F401",)
    workflow = yaml.safe_load(f"with:\n  {given}\n")["with"]
    inputs = read_inputs({"INPUT_DISABLE-RULES": workflow["disable-rules"]})
    assert build_review_options(inputs, tmp_path).analysis.disable_rules == ("ruff:F401",)


def test_a_noisy_rule_the_switch_cannot_name_gets_no_line() -> None:
    rows = [
        RuleStats("sql_injection", "security", 2, 2, 0, 0),  # the model's own: its category
        RuleStats("bandit:B999", "security", 2, 2, 0, 0),  # not in this version's catalogue
        RuleStats("semgrep:py-open-redirect-taint", "security", 3, 2, 0, 0),
        RuleStats("detect-secrets:Secret Keyword", "security", 2, 1, 0, 0),
    ]
    markdown = render_feedback_markdown(rows, 2, "2026-11-01")
    assert markdown.count("so no switch turns it off") == 2
    off = ["semgrep:py-open-redirect-taint", "detect-secrets:Secret Keyword"]
    assert json.loads(render_feedback_json(rows, 2, "2026-11-01"))["disable_rules"] == off
    both = "disable-rules: [semgrep:py-open-redirect-taint, detect-secrets:Secret Keyword]"
    assert f"```yaml\n{both}\n```" in markdown
    assert yaml.safe_load(both) == {"disable-rules": off}
    assert build_options({"disable_rules": off}).analysis.disable_rules == tuple(off)
    # With no rule it can name, the report says how else to quiet them.
    alone = render_feedback_markdown(rows[:1], 1, "2026-11-01")
    assert "disable-rules" not in alone and "`.code-guard/dismissals.yml`" in alone
