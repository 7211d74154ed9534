"""A finding about a removed line goes on that removed line (issue 29, item 4): through the
action's entrypoint with the real engine, a deleted ``@login_required`` gets its inline
comment with ``side: LEFT`` on the decorator's base line, which the stand-in accepts only if
the diff shows that line on the base side; a finding on an added line stays ``RIGHT``; a
re-run after a push does not post it again; JSON and SARIF keep the head line."""

from __future__ import annotations

import difflib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from ghfakes import FAST_RETRY, TOKEN, FindingFactory
from ghrunner import read_outputs, runner_environ
from ghstandin import FIXTURES, GitHubStandIn

from code_guard.change.diff import Change, parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentName, Finding
from code_guard.github.action import main
from code_guard.github.anchors import Anchor, anchor_for
from code_guard.github.comments import api_comment, comment_body, group_by_anchor
from code_guard.github.services import default_services
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.report.json import render_json
from code_guard.review.engine import review_sync

PATH = "shop/views.py"
NEW_SHA = "d" * 40
BASE = """import yaml
from django.contrib.auth.decorators import login_required, permission_required
from django.views.decorators.http import require_POST


@login_required
def dashboard(request):
    return render(request, "dashboard.html")


@login_required
@permission_required("shop.change_order")
@require_POST
def refund(request, order_id):
    Order.objects.get(pk=order_id).refund()
    return redirect("orders")
"""
# The pull request deletes refund's `@login_required` (base line 11) and adds an unsafe YAML
# load to dashboard, on head line 11: a LEFT and a RIGHT comment on the same number.
HEAD = BASE.replace(
    '    return render(request, "dashboard.html")',
    "    body = request.body\n"
    "    if not body:\n"
    '        body = b"{}"\n'
    "    prefs = yaml.load(body)\n"
    '    return render(request, "dashboard.html", {"prefs": prefs})',
).replace("@login_required\n@permission_required", "@permission_required")
REMOVED_AT = 11  # base line of refund's `@login_required`
REPORTED_AT = HEAD.split("\n").index('@permission_required("shop.change_order")') + 1
LOAD_AT = HEAD.split("\n").index("    prefs = yaml.load(body)") + 1


def diff() -> str:
    body = "".join(
        difflib.unified_diff(
            BASE.splitlines(keepends=True),
            HEAD.splitlines(keepends=True),
            f"a/{PATH}",
            f"b/{PATH}",
            n=3,
        )
    )
    return f"diff --git a/{PATH} b/{PATH}\nindex 1111111..2222222 100644\n{body}"


def test_the_scenario_is_what_it_says() -> None:
    assert BASE.split("\n")[REMOVED_AT - 1] == "@login_required"
    assert LOAD_AT == REMOVED_AT  # the same number on both sides
    assert "@login_required\n@permission_required" not in HEAD


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def pull(github: GitHubStandIn) -> GitHubStandIn:
    github.push(github.head_sha, diff())
    github.contents = {PATH: HEAD}
    return github


def run_real(github: GitHubStandIn, workspace: Path, event: Path) -> dict[str, str]:
    env = runner_environ(workspace, github.base_url, event, TOKEN, agents="security")
    out = io.StringIO()
    main(env, default_services(FAST_RETRY), out)
    print(out.getvalue())
    return read_outputs(Path(env["GITHUB_OUTPUT"]))


def synchronize(tmp_path: Path) -> Path:
    payload = json.loads((FIXTURES / "pull_request.opened.json").read_text(encoding="utf-8"))
    payload["action"] = "synchronize"
    payload["pull_request"]["head"]["sha"] = NEW_SHA
    path = tmp_path / "synchronize.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def places(comments: list[dict[str, Any]]) -> list[tuple[str, int, str, Any, Any]]:
    return sorted(
        (c["side"], c["line"], c["path"], c.get("start_line"), c.get("start_side"))
        for c in comments
    )


def test_a_deleted_login_required_is_commented_on_its_removed_line(
    pull: GitHubStandIn, workspace: Path, tmp_path: Path
) -> None:
    outputs = run_real(pull, workspace, FIXTURES / "pull_request.opened.json")
    assert outputs["outcome"] == "reviewed"
    [review] = pull.visible_reviews()
    # Two comments on the same number: the removed line (LEFT) and the added load (RIGHT).
    assert places(review["comments"]) == [
        ("LEFT", REMOVED_AT, PATH, None, None),
        ("RIGHT", LOAD_AT, PATH, None, None),
    ]
    left = next(c for c in review["comments"] if c["side"] == "LEFT")
    assert "login_required" in left["body"]
    assert f"reported at line {REPORTED_AT} of the new file" in left["body"]
    assert "```suggestion" not in left["body"]
    right = next(c for c in review["comments"] if c["side"] == "RIGHT")
    assert "login_required" not in right["body"]
    # Every request matched GitHub's OpenAPI description, and the places its rules.
    assert pull.invalid == []
    assert all(pull.outside_diff(c) is None for c in review["comments"])
    # SARIF keeps the head line at the deletion point.
    sarif = json.loads((workspace / outputs["sarif-file"]).read_text(encoding="utf-8"))
    regions = {
        r["ruleId"]: r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in sarif["runs"][0]["results"]
    }
    assert regions["code-guard/broken_access_control"] == REPORTED_AT

    # A push that leaves the file as it is: nothing is posted again, on either side.
    comments = len(pull.review_comments)
    pull.push(NEW_SHA, diff())
    pull.comparisons[f"{pull.base_sha}...{NEW_SHA}"] = ("ahead", [PATH])
    again = run_real(pull, workspace, synchronize(tmp_path))
    assert again["outcome"] == "reviewed"
    assert len(pull.visible_reviews()) == 1
    assert len(pull.review_comments) == comments
    assert pull.invalid == []


def test_json_carries_the_removed_line_and_keeps_the_head_line() -> None:
    request = ReviewRequest(change=parse_diff(diff()), contents={PATH: HEAD})
    options = ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.SECURITY,)))
    data = json.loads(render_json(review_sync(request, options)))
    access = [f for f in data["findings"] if f["category"] == "broken_access_control"]
    assert [(f["line_start"], f["removed_at"]) for f in access] == [(REPORTED_AT, REMOVED_AT)]
    others = [f for f in data["findings"] if f["category"] != "broken_access_control"]
    assert others and all(f["removed_at"] is None for f in others)


# --- anchoring and the stand-in's rules, without the engine ------------------------------


@pytest.fixture
def change() -> Change:
    return parse_diff(diff())


def about_removal(make: FindingFactory, **overrides: Any) -> Finding:
    fields = {
        "file_path": PATH,
        "line_start": REPORTED_AT,
        "line_end": REPORTED_AT,
        "category": "broken_access_control",
        "anchor_text": '@permission_required("shop.change_order")',
        "removed_line": "@login_required",
        "removed_at": REMOVED_AT,
    }
    return make(**{**fields, **overrides})


def test_only_a_removed_line_behind_an_unchanged_one_goes_left(
    make_finding: FindingFactory, change: Change
) -> None:
    assert anchor_for(about_removal(make_finding), change) == Anchor(PATH, REMOVED_AT, side="LEFT")
    # Not a removed line of the diff (a context line, a line past the hunks): the head line.
    for at in (REMOVED_AT - 1, 400):
        moved = anchor_for(about_removal(make_finding, removed_at=at), change)
        assert moved == Anchor(PATH, REPORTED_AT)
    # On the added line that replaced it: that line, where a suggestion can apply.
    on_added = about_removal(make_finding, line_start=LOAD_AT, line_end=LOAD_AT)
    assert anchor_for(on_added, change) == Anchor(PATH, LOAD_AT)


def test_a_left_and_a_right_anchor_on_one_number_are_two_comments(
    make_finding: FindingFactory, change: Change
) -> None:
    removal = about_removal(make_finding)
    load = make_finding(file_path=PATH, line_start=LOAD_AT, line_end=LOAD_AT, anchor_text="x")
    inline = [(f, a) for f in (removal, load) if (a := anchor_for(f, change)) is not None]
    groups = group_by_anchor(inline)
    assert [(found, anchor.side) for found, anchor in groups] == [
        ((removal,), "LEFT"),
        ((load,), "RIGHT"),
    ]
    left = api_comment(removal, groups[0][1], change)
    assert (left["side"], left["line"], "start_line" in left) == ("LEFT", REMOVED_AT, False)


def test_a_left_comment_offers_no_suggestion(make_finding: FindingFactory, change: Change) -> None:
    # The fix's lines are head lines; on a base line they must not become a one-click rewrite.
    finding = about_removal(
        make_finding,
        line_start=REMOVED_AT,
        line_end=REMOVED_AT,
        suggested_fix="@login_required",
        anchor_text="",
    )
    anchor = Anchor(PATH, REMOVED_AT, side="LEFT")
    body = comment_body(finding, anchor, change)
    assert "```suggestion" not in body and "**Fix** (for line" in body


def test_the_stand_in_takes_each_side_only_where_the_diff_shows_it(pull: GitHubStandIn) -> None:
    def refused(**place: Any) -> bool:
        return pull.outside_diff({"path": PATH, "body": "b", **place}) is not None

    assert not refused(line=REMOVED_AT, side="LEFT")  # removed
    assert not refused(line=REMOVED_AT - 2, side="LEFT")  # context, on the base side
    assert not refused(line=LOAD_AT, side="RIGHT")  # added
    assert refused(line=REPORTED_AT + 40, side="LEFT")  # past the hunks
    assert refused(line=1, side="LEFT") and refused(line=1, side="RIGHT")  # outside the diff
    # A number the diff shows on the new side only (the hunk is longer there).
    head_only = REPORTED_AT + 1
    assert not refused(line=head_only, side="RIGHT") and refused(line=head_only, side="LEFT")
    assert refused(line=REMOVED_AT, side="left") and refused(line=REMOVED_AT, side="BOTH")
    assert refused(line=LOAD_AT, side="RIGHT", start_line=LOAD_AT, start_side="RIGHT")
    assert not refused(line=LOAD_AT, side="RIGHT", start_line=LOAD_AT - 1, start_side="RIGHT")


GUARDED = """import os


def read(root, name):
    path = os.path.realpath(os.path.join(root, name))
    if not path.startswith(root + os.sep):
        raise PermissionError(name)
    with open(path) as handle:
        return handle.read()
"""


def test_a_guard_the_regression_detector_sees_deleted_goes_left_too(
    github: GitHubStandIn,
) -> None:
    head = GUARDED.replace(
        "    if not path.startswith(root + os.sep):\n        raise PermissionError(name)\n", ""
    )
    path = "app/files.py"
    body = "".join(
        difflib.unified_diff(
            GUARDED.splitlines(keepends=True),
            head.splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
        )
    )
    text = f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n{body}"
    github.push(github.head_sha, text)
    request = ReviewRequest(change=parse_diff(text), contents={path: head})
    options = ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.SECURITY,)))
    review = review_sync(request, options)
    [finding] = [f for f in review.findings if f.removed_at is not None]
    assert finding.line_start == 6  # the sink below, unchanged, that now runs without it
    anchor = anchor_for(finding, request.change)
    assert anchor == Anchor(path, 6, side="LEFT")  # the guard's `if`, on the base side
    comment = api_comment(finding, anchor, request.change)
    assert (comment["side"], comment["line"]) == ("LEFT", 6)
    assert github.outside_diff(comment) is None
