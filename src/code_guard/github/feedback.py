"""What became of the action's inline comments on one pull request, for the feedback report.

Each of the action's own, unedited inline comments ends with one marker per finding
(fingerprint, rule, agent). Dismissals are judged exactly as a review judges them
(``dismissals.Judge``: the same permission check, the same ``dismiss-by`` policy). A finding
counts as fixed by a push when its comment went outdated (GitHub gives it no ``line`` once a
push changes those lines), nobody dismissed it, and its rule did not comment on that file
again later in the pull request (the finding disappeared while its file changed).
"""

from __future__ import annotations

from collections.abc import Sequence

from code_guard.findings import DismissalKind
from code_guard.github.client import CommentRef, GitHubClient, PullRequestInfo, bot_login
from code_guard.github.comments import markers_in
from code_guard.github.dismissals import Judge
from code_guard.options import DismissBy
from code_guard.report.feedback import Posted


def observe(client: GitHubClient, pr: PullRequestInfo, dismiss_by: DismissBy) -> list[Posted]:
    """The findings the action posted inline on ``pr``, each with what became of it."""
    comments = client.comments()
    bot = bot_login()
    ours = [c for c in comments if c.inline and c.login == bot and not c.edited]
    posted = [(c, m) for c in ours for m in reversed(markers_in(c.body))]
    judge = Judge(client, pr, {m.fingerprint for _, m in posted}, dismiss_by)
    judge.remember(comments)
    dismissed: dict[str, DismissalKind] = {}
    for comment in comments:
        for judged in judge.commands(comment):
            if not isinstance(judged, str):
                fingerprints, dismissal = judged
                dismissed.update(dict.fromkeys(fingerprints, dismissal.kind))
    return [
        Posted(
            pull=pr.number,
            fingerprint=marker.fingerprint,
            rule=marker.rule or "unknown",
            agent=marker.agent or "unknown",
            path=comment.path,
            dismissed=dismissed.get(marker.fingerprint),
            fixed=marker.fingerprint not in dismissed and _fixed(comment, marker.rule, ours),
        )
        for comment, marker in posted
    ]


def _fixed(comment: CommentRef, rule: str, ours: Sequence[CommentRef]) -> bool:
    """Outdated, and the rule did not comment on the same file again afterwards."""
    if comment.line is not None:
        return False
    later = [c for c in ours if c.path == comment.path and c.created_at > comment.created_at]
    return not any(m.rule == rule for c in later for m in markers_in(c.body))
