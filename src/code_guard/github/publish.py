"""Publish a review on a pull request: one review, one summary comment, nothing lost.

The steps, each idempotent so a re-run on the same or a new commit adds nothing twice:

1. Read the fingerprints of the review comments already on the pull request.
2. Place the findings (``anchors.place_findings``): new, anchorable and confident ones
   inline, worst first, up to the limit; the rest are listed in the summary comment.
3. Post one review, event ``COMMENT``, pinned to the diffed head SHA. If GitHub answers 422,
   find the comments it rejects by bisecting with *pending* reviews (created, then deleted,
   never shown to anyone), post the rest as the one review, and list the rejected ones in the
   summary comment.
4. Create the summary comment, or edit the one found by its hidden marker.

The review is always a ``COMMENT``: the action's exit code (``fail-on``) is the merge gate, and
a ``REQUEST_CHANGES`` from a bot stays on the pull request after the problem is fixed.

A 403 (a read-only token: fork pull requests, or no ``pull-requests: write``) is not an error
here: the result says why, and the entrypoint falls back to annotations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from code_guard.change.diff import Change
from code_guard.errors import GitHubError, PermissionDenied
from code_guard.findings import Finding, Review
from code_guard.github.anchors import place_findings
from code_guard.github.client import GitHubClient, PostedReview
from code_guard.github.comments import api_comment, fingerprints_in, group_by_anchor
from code_guard.trust.sanitize import redact

SUMMARY_MARKER = "<!-- code-guard:summary -->"
REVIEW_EVENT = "COMMENT"
REJECTED_REASON = "GitHub refused a comment at this position (422)"

T = TypeVar("T")
Unplaced = tuple[tuple[Finding, str], ...]


@dataclass(frozen=True, slots=True)
class PublishResult:
    """What was published, what went to the summary only, and why anything could not be."""

    review_url: str = ""
    summary_url: str = ""
    inline_posted: int = 0
    already_commented: int = 0
    in_summary: Unplaced = ()
    denied: str | None = None  # why the token could not write, when it could not
    posted_fingerprints: frozenset[str] = frozenset()
    # GitHub failures that did not stop the rest from being published (a 5xx on one step).
    problems: tuple[str, ...] = ()

    @property
    def published(self) -> bool:
        """True when a review or the summary comment reached the pull request."""
        return bool(self.review_url or self.summary_url)


def publish_review(
    client: GitHubClient,
    review: Review,
    change: Change,
    head_sha: str,
    max_inline: int,
    summary_body: Callable[[Unplaced], str],
    *,
    inline_confidence: float = 0.0,
    trust_disputes: bool = False,
) -> PublishResult:
    """Publish ``review`` on the pull request; ``summary_body`` renders the summary comment.

    ``inline_confidence`` and ``trust_disputes`` choose what goes inline (``place_findings``).
    """
    already = fingerprints_in(client.review_comment_bodies())
    # A dismissed finding is listed with its dismissal in the summary, never posted inline.
    standing = tuple(f for f in review.findings if f.dismissal is None)
    placement = place_findings(
        standing,
        change,
        max_inline,
        already,
        min_confidence=inline_confidence,
        trust_disputes=trust_disputes,
    )
    in_summary = list(placement.in_summary)
    posted: PostedReview | None = None
    posted_fps: set[str] = set()
    denied: str | None = None
    problems: list[str] = []
    if placement.inline:
        # Findings on the same lines read as one comment.
        groups = group_by_anchor(placement.inline)
        comments = [api_comment(found, a, change) for found, a in groups]
        body = _review_body(len(comments), head_sha)
        try:
            posted, rejected = post_review(client, head_sha, body, comments)
        except PermissionDenied as exc:
            denied = str(exc)
            in_summary[:0] = [(f, "the token cannot post reviews") for f, _ in placement.inline]
        except GitHubError as exc:
            # The summary comment still lists every finding, so nothing is lost.
            problems.append(f"posting the review failed: {exc}")
            in_summary[:0] = [(f, "posting the review failed") for f, _ in placement.inline]
        else:
            bad = set(rejected)
            for index, (found, _) in enumerate(groups):
                for finding in found:
                    if index in bad:
                        in_summary.append((finding, REJECTED_REASON))
                    elif posted is not None:
                        posted_fps.add(finding.fingerprint)
    summary_url = ""
    try:
        summary_url = upsert_summary(client, summary_body(tuple(in_summary)))
    except PermissionDenied as exc:
        denied = denied or str(exc)
    except GitHubError as exc:
        problems.append(f"updating the summary comment failed: {exc}")
    return PublishResult(
        problems=tuple(problems),
        review_url=posted.html_url if posted else "",
        summary_url=summary_url,
        inline_posted=len(posted_fps),
        already_commented=len(placement.already_commented),
        in_summary=tuple(in_summary),
        denied=denied,
        posted_fingerprints=frozenset(posted_fps),
    )


def _review_body(count: int, head_sha: str) -> str:
    noun = "comment" if count == 1 else "comments"
    return (
        f"**Ninja Code Guard** left {count} inline {noun} on commit {head_sha[:7]}. "
        "The summary comment on this pull request lists every finding."
    )


def post_review(
    client: GitHubClient, commit_id: str, body: str, comments: Sequence[dict[str, object]]
) -> tuple[PostedReview | None, list[int]]:
    """Post one review; on 422, bisect out the rejected comments and post the rest.

    Returns the posted review (None when GitHub accepted no comment at all) and the indices
    of the comments it rejected.
    """
    try:
        return client.create_review(commit_id, body, comments, REVIEW_EVENT), []
    except GitHubError as exc:
        if exc.status != 422 or isinstance(exc, PermissionDenied):
            raise

    def accepts(batch: Sequence[dict[str, object]]) -> bool:
        try:
            pending = client.create_review(commit_id, body, batch, event=None)
        except GitHubError as exc:
            if exc.status != 422:
                raise
            return False
        client.delete_review(pending.id)
        return True

    # A review with no comments at all that is still refused means the review itself is the
    # problem (the commit moved on, or a pending review is stuck): no comment is to blame alone.
    rejected = find_rejected(comments, accepts) if accepts([]) else list(range(len(comments)))
    good = [c for i, c in enumerate(comments) if i not in set(rejected)]
    if not good:
        return None, rejected
    try:
        return client.create_review(commit_id, body, good, REVIEW_EVENT), rejected
    except GitHubError as exc:
        if exc.status != 422:
            raise
        return None, list(range(len(comments)))


def find_rejected(items: Sequence[T], accepts: Callable[[Sequence[T]], bool]) -> list[int]:
    """Indices of the items ``accepts`` refuses, given that the whole batch is refused.

    Assumes a batch is accepted exactly when each of its items is; asks ``accepts`` about
    O(k log n) batches for k refused items among n.
    """

    def search(lo: int, hi: int, known_bad: bool) -> list[int]:
        if hi <= lo or (not known_bad and accepts(items[lo:hi])):
            return []
        if hi - lo == 1:
            return [lo]
        mid = (lo + hi) // 2
        left = search(lo, mid, known_bad=False)
        # When the left half is clean, the refusal must come from the right half.
        return left + search(mid, hi, known_bad=not left)

    return search(0, len(items), known_bad=True)


def upsert_summary(client: GitHubClient, body: str) -> str:
    """Edit the summary comment found by its marker, or create it; return its URL."""
    if SUMMARY_MARKER not in body:
        body = f"{SUMMARY_MARKER}\n{body}"
    body = redact(body)  # as the client posts it, so that an unchanged summary is not edited
    existing = client.find_issue_comment(SUMMARY_MARKER)
    if existing is None:
        return client.create_issue_comment(body).html_url
    if existing.body == body:
        return existing.html_url
    return client.edit_issue_comment(existing.id, body).html_url
