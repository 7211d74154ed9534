"""Who dismissed what on this pull request: commands read from its comments, judged, and the
base branch's dismissals file.

A command counts only when every one of these holds; otherwise it is listed as ignored,
with why:

- it is a line of its own in a person's comment (``commands.parse_commands``), not in the
  diff, a file, a code or suggestion block, a quote, or one of this action's own comments;
- the comment was not edited after it was posted: GitHub's REST API does not say who edited
  a comment, and a maintainer can edit anyone's, so an edit could put words in a trusted
  person's mouth;
- its author may dismiss (``DismissBy``): write, maintain or admin permission, asked of the
  collaborator permission API, and by default not the pull request's author;
- it names a finding of this review: as a reply to the finding's inline comment, or by the
  finding's short id.

Later commands on the same finding win. The dismissals file is read at the base commit
through the API, never from the checkout: a pull request's own additions to it do not count
for that pull request.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence, Set
from dataclasses import dataclass

from code_guard.change.diff import Change
from code_guard.errors import GitHubError
from code_guard.findings import Dismissal, Finding
from code_guard.github.client import CommentRef, GitHubClient, PullRequestInfo, bot_login
from code_guard.github.commands import PREFIX, Command, Rejected, parse_commands
from code_guard.github.comments import fingerprints_in
from code_guard.options import DismissBy
from code_guard.review.dismissals import (
    DISMISSALS_FILE,
    match_file_entries,
    read_dismissals_file,
)

# Associations a person with write access has; anyone else is not asked about.
_ASSOCIATED = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
DIFF_LISTED = 5  # commands in the diff listed one by one; the rest are counted
_ROLE_WORDS = {
    DismissBy.OTHERS: "write, maintain or admin",
    DismissBy.WRITERS: "write, maintain or admin",
    DismissBy.MAINTAINERS: "maintain or admin",
}


@dataclass(frozen=True, slots=True)
class Ignored:
    """A command that did not count: who wrote it, where, and why it did not count."""

    who: str
    where: str
    why: str


@dataclass(frozen=True, slots=True)
class Dismissals:
    """The dismissals that apply to this review, by fingerprint; the commands ignored; one
    line per problem with the dismissals file; and which dismissals came from comments (the
    entries the summary offers to add to the file)."""

    by_fingerprint: dict[str, Dismissal]
    ignored: tuple[Ignored, ...] = ()
    problems: tuple[str, ...] = ()
    from_comments: frozenset[str] = frozenset()
    pr_edits_file: bool = False


def collect(
    client: GitHubClient,
    pr: PullRequestInfo,
    change: Change,
    findings: Sequence[Finding],
    dismiss_by: DismissBy,
    today: dt.date,
) -> Dismissals:
    """Read the base branch's dismissals file and the pull request's commands, and judge
    them against ``findings`` (none of that when there is no finding to dismiss)."""
    if not findings:
        return Dismissals({})
    by_fp, problems = _from_file(client, pr.base_sha, findings, today)
    ignored = _in_diff(change)
    from_comments: set[str] = set()
    judge = Judge(client, pr, {f.fingerprint for f in findings}, dismiss_by)
    try:
        comments = client.comments()
    except GitHubError as exc:
        problems += (f"reading the pull request's comments failed: {exc}",)
        comments = []
    judge.remember(comments)
    for comment in comments:
        for judged in judge.commands(comment):
            if isinstance(judged, str):
                ignored.append(Ignored(comment.login, comment.html_url, judged))
                continue
            fingerprints, dismissal = judged
            for fp in fingerprints:
                by_fp[fp] = dismissal
                from_comments.add(fp)
    edits = change.file(DISMISSALS_FILE) is not None
    return Dismissals(by_fp, tuple(ignored), problems, frozenset(from_comments), edits)


def _in_diff(change: Change) -> list[Ignored]:
    """The added lines that hold a command, as ignored (the first few, then a count)."""
    where = [
        f"{f.path}:{n}"
        for f in change.files
        for n, line in sorted(f.added.items())
        if f"{PREFIX} dismiss" in line.lower()
    ]
    why = "in the diff: commands count only in comments"
    listed = [Ignored("", w, why) for w in where[:DIFF_LISTED]]
    if len(where) > DIFF_LISTED:
        listed.append(Ignored("", "", f"{len(where) - DIFF_LISTED} more such lines in the diff"))
    return listed


def _from_file(
    client: GitHubClient, base_sha: str, findings: Sequence[Finding], today: dt.date
) -> tuple[dict[str, Dismissal], tuple[str, ...]]:
    try:
        text = client.file_text(DISMISSALS_FILE, base_sha) if base_sha else None
    except GitHubError as exc:
        return {}, (f"reading {DISMISSALS_FILE} at the base commit failed: {exc}",)
    if text is None:
        return {}, ()
    read = read_dismissals_file(text, today)
    matched, problems = match_file_entries(read.entries, findings)
    return matched, read.problems + problems


# A command that counts (the fingerprints it dismisses, and how), or why it does not.
Judged = tuple[tuple[str, ...], Dismissal] | str


class Judge:
    """Decides, comment by comment, which commands count, for the findings whose
    fingerprints it is given (those of this review, or those a past review posted)."""

    def __init__(
        self,
        client: GitHubClient,
        pr: PullRequestInfo,
        fingerprints: Set[str],
        dismiss_by: DismissBy,
    ) -> None:
        self._client = client
        self._pr = pr
        self._fps = fingerprints
        self._dismiss_by = dismiss_by
        self._ours: dict[int, str] = {}
        self._bot = bot_login()

    def remember(self, comments: Sequence[CommentRef]) -> None:
        """Note this action's inline comments, which replies point to. The action never
        edits one, so an edited one holds someone else's words and names nothing."""
        for c in comments:
            if c.inline and c.login == self._bot and not c.edited:
                self._ours[c.id] = c.body

    def commands(self, comment: CommentRef) -> list[Judged]:
        """Each command of ``comment``: the fingerprints it dismisses and how, or why not."""
        parsed = parse_commands(comment.body)
        if comment.login == self._bot:
            # Its own comments quote the pull request's code; a command there only counts as
            # news when someone wrote one into the comment outside any block.
            if any(isinstance(item, Command) for item in parsed):
                return ["in this action's own comment: commands count only in people's comments"]
            return []
        if not parsed:
            return []
        refusal = self._refusal(comment)
        judged: list[Judged] = []
        for item in parsed:
            if isinstance(item, Rejected):
                judged.append(item.why)
            elif refusal is not None:
                judged.append(refusal)
            else:
                judged.append(self._target(comment, item))
        return judged

    def _refusal(self, comment: CommentRef) -> str | None:
        """Why nothing ``comment`` says can dismiss, or None when its author may."""
        if not comment.login:
            return "the comment's author is unknown (a deleted account?)"
        if comment.edited:
            return "the comment was edited after it was posted; post the command as a new comment"
        if comment.login == self._pr.author and not self._dismiss_by.author_may:
            setting = self._dismiss_by.value
            return f"the pull request's author cannot dismiss its findings (dismiss-by: {setting})"
        needed = _ROLE_WORDS[self._dismiss_by]
        if comment.association not in _ASSOCIATED:
            return f"not a collaborator of the repository; dismissing needs {needed} permission"
        role = self._client.role_of(comment.login)
        if role not in self._dismiss_by.roles:
            return f"has {role or 'no'} permission; dismissing needs {needed}"
        return None

    def _target(self, comment: CommentRef, command: Command) -> Judged:
        dismissal = Dismissal(
            kind=command.kind,
            reason=command.reason,
            by=comment.login,
            at=comment.created_at[:40],
            source=comment.html_url[:500],
        )
        candidates: Set[str]
        if comment.in_reply_to is not None and comment.in_reply_to in self._ours:
            candidates = fingerprints_in([self._ours[comment.in_reply_to]])
        elif command.target is None and comment.in_reply_to is not None:
            return "replies to a comment that is not this action's own (unedited) comment"
        elif command.target is None:
            return "names no finding: reply to its inline comment, or give its id"
        else:
            candidates = self._fps
        if command.target is not None:
            candidates = {fp for fp in candidates if fp.startswith(command.target)}
            if len(candidates) > 1:
                return f"the id {command.target} matches several findings"
        live = tuple(sorted(fp for fp in candidates if fp in self._fps))
        if not live:
            what = f"id {command.target}" if command.target else "the comment it replies to"
            return f"{what} names no finding of this review (fixed, or changed)"
        return live, dismissal
