"""A stand-in for GitHub's REST API, on pytest-httpserver, for one pull request.

It keeps state (reviews, review comments, issue comments) so that re-runs see what earlier
runs posted, answers like GitHub does (payload shapes, pagination ``Link`` headers, 403, 406,
422 bodies), records every request, and validates each one against GitHub's OpenAPI
description (the vendored subset) as it arrives.

A review comment is refused (422) unless its place is one GitHub takes (``outside_diff``).
The subset types the reviews operation's ``side`` and ``start_side`` as bare strings; their
rules are in GitHub's description of the same fields of "Create a review comment" (in the
full file, not an operation the action calls): "Can be `LEFT` or `RIGHT`. Use `LEFT` for
deletions that appear in red. Use `RIGHT` for additions that appear in green or unchanged
lines that appear in white and are shown for context", ``line`` being "the line of the blob
in the pull request diff". So a ``RIGHT`` line must be a new-file line the diff shows (added
or context), a ``LEFT`` line a base-file line it shows (removed or context), and both ends of
a multi-line comment must sit in one hunk, the start first.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from openapi_core import OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

FIXTURES = Path(__file__).parent / "fixtures"
OWNER, REPO, NUMBER = "octo-org", "hello-world", 7
REPO_PATH = f"/repos/{OWNER}/{REPO}"
PAGE_SIZE = 2  # small pages, so every list call exercises pagination
# ``side``'s enum in GitHub's "Create a review comment" operation (see the module docstring).
SIDES = ("LEFT", "RIGHT")


@dataclass
class Recorded:
    """One request as the stand-in saw it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class Fault:
    """A scripted answer for the next ``times`` requests matching ``method`` and ``path``."""

    method: str
    path: str
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1


class _PathRequest(WerkzeugOpenAPIRequest):
    """openapi-core matches a path parameter within one segment, but GitHub's ``{path}`` of
    the contents API spans several (``app/db.py``); encode its slashes for matching only."""

    @property
    def path(self) -> str:
        path: str = super().path
        head, sep, rest = path.partition("/contents/")
        return head + sep + quote(unquote(rest), safe="") if sep else path


def load_spec(base_url: str) -> OpenAPI:
    """The vendored OpenAPI subset, served from ``base_url`` instead of api.github.com."""
    spec = json.loads((FIXTURES / "openapi-subset.json").read_text(encoding="utf-8"))
    spec["servers"] = [{"url": base_url}]
    return OpenAPI.from_dict(spec)


class GitHubStandIn:
    """GitHub's REST API for ``octo-org/hello-world`` pull request #7."""

    def __init__(self, server: HTTPServer, spec: OpenAPI) -> None:
        self.server = server
        self.spec = spec
        self.base_url = server.url_for("").rstrip("/")
        event = json.loads((FIXTURES / "pull_request.opened.json").read_text(encoding="utf-8"))
        self.pr: dict[str, Any] = self._rest_pr(event["pull_request"])
        self.diff = (FIXTURES / "pull_request.diff").read_text(encoding="utf-8")
        self.diff_too_large = False
        self.files: list[dict[str, Any]] = _files_from_diff(self.diff)
        self.contents: dict[str, str] = {
            "app/db.py": (FIXTURES / "app_db_head.py.txt").read_text(encoding="utf-8"),
            "docs/notes.md": "# Notes\nSome notes.\n",
        }
        # The files at the pull request's base commit, served for ``ref=<base sha>``.
        self.base_contents: dict[str, str] = {}
        self.reviews: list[dict[str, Any]] = []
        # The compare API's answers, by "base...head": (status, changed file names).
        self.comparisons: dict[str, tuple[str, list[str]]] = {}
        self.review_comments: list[dict[str, Any]] = []
        self.issue_comments: list[dict[str, Any]] = []
        # The collaborator permission API's answers, by login ("admin", "write", "read",
        # "none"); a login not listed is not a collaborator: 404.
        self.permissions: dict[str, str] = {}
        # Other pull requests of the repository, for the feedback report: the list the pulls
        # API answers (newest update first, as asked), and each one's comments.
        self.pull_list: list[dict[str, Any]] = []
        self.history: dict[int, dict[str, list[dict[str, Any]]]] = {}
        self.read_only = False
        self.rejects: Callable[[dict[str, Any]], bool] = lambda comment: False
        self.faults: list[Fault] = []
        self.requests: list[Recorded] = []
        self.invalid: list[str] = []
        self._next_id = 1000
        self._seconds = 0  # the stand-in's clock: each comment is a second after the last
        server.expect_request(re.compile(r"^/.*")).respond_with_handler(self._handle)

    @property
    def head_sha(self) -> str:
        """The pull request's current head commit."""
        return str(self.pr["head"]["sha"])

    @property
    def base_sha(self) -> str:
        """The pull request's base commit."""
        return str(self.pr["base"]["sha"])

    def push(self, sha: str, diff: str) -> None:
        """Simulate a new commit on the pull request's branch."""
        self.pr["head"]["sha"] = sha
        self.diff = diff
        self.files = _files_from_diff(diff)

    def add_comment_by(
        self,
        login: str,
        association: str,
        body: str,
        review: bool,
        kind: str = "User",
        in_reply_to: int | None = None,
    ) -> dict[str, Any]:
        """A comment by someone else: a review comment on app/db.py (a reply to the review
        comment ``in_reply_to``, if given), or an issue comment. Returns it."""
        now = self._now()
        comment: dict[str, Any] = {
            "id": self._new_id(),
            "body": body,
            "user": {"login": login, "id": 1, "type": kind},
            "author_association": association,
            "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#c{self._next_id}",
            "created_at": now,
            "updated_at": now,
        }
        if review:
            comment.update(path="app/db.py", line=10, side="RIGHT", commit_id=self.head_sha)
            if in_reply_to is not None:
                comment["in_reply_to_id"] = in_reply_to
            self.review_comments.append(comment)
        else:
            self.issue_comments.append(comment)
        return comment

    def edit_comment(self, comment: dict[str, Any], body: str) -> None:
        """Someone edits ``comment``: its body changes and ``updated_at`` moves on."""
        comment["body"] = body
        comment["updated_at"] = self._now()

    def seed_pull(self, number: int, author: str, updated_at: str) -> None:
        """Another pull request, last updated at ``updated_at``; the list stays sorted."""
        sha = f"{number:040x}"
        self.pull_list.append(
            {
                "number": number,
                "title": f"Change {number}",
                "state": "closed",
                "draft": False,
                "user": {"login": author, "id": 1, "type": "User"},
                "head": {"sha": sha, "ref": f"topic-{number}"},
                "base": {"sha": "b" * 40, "ref": "main"},
                "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{number}",
                "updated_at": updated_at,
            }
        )
        self.pull_list.sort(key=lambda pr: str(pr["updated_at"]), reverse=True)
        self.history[number] = {"review": [], "issue": []}

    def seed_comment(
        self,
        number: int,
        login: str,
        body: str,
        *,
        association: str = "NONE",
        inline: bool = True,
        line: int | None = 10,
        path: str = "app/db.py",
        in_reply_to: int | None = None,
    ) -> int:
        """A comment on pull request ``number`` (seeded with ``seed_pull``); its id.
        ``line=None`` is an outdated review comment."""
        now = self._now()
        comment: dict[str, Any] = {
            "id": self._new_id(),
            "body": body,
            "user": {"login": login, "id": 1, "type": "Bot" if "[bot]" in login else "User"},
            "author_association": association,
            "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{number}#c{self._next_id}",
            "created_at": now,
            "updated_at": now,
        }
        if inline:
            comment.update(path=path, line=line, side="RIGHT", original_line=line or 3)
            if in_reply_to is not None:
                comment["in_reply_to_id"] = in_reply_to
        self.history[number]["review" if inline else "issue"].append(comment)
        return int(comment["id"])

    def calls(self, method: str, path_pattern: str) -> list[Recorded]:
        """The recorded requests whose method and path (a regex) match."""
        return [r for r in self.requests if r.method == method and re.search(path_pattern, r.path)]

    def visible_reviews(self) -> list[dict[str, Any]]:
        """Reviews that were submitted (not pending, not deleted)."""
        return [r for r in self.reviews if r["state"] != "PENDING"]

    # -- request handling ----------------------------------------------------------------

    def _handle(self, request: Request) -> Response:
        body = request.get_json(silent=True) if request.data else None
        self.requests.append(
            Recorded(request.method, request.path, dict(request.args), dict(request.headers), body)
        )
        try:
            self.spec.validate_request(_PathRequest(request))
        except Exception as exc:  # noqa: BLE001 - every validation failure is recorded
            self.invalid.append(f"{request.method} {request.full_path}: {exc}")
        for fault in self.faults:
            hit = fault.method == request.method and re.search(fault.path, request.path)
            if fault.times and hit:
                fault.times -= 1
                return _json(fault.body, fault.status, fault.headers)
        return self._route(request, body)

    def _route(self, request: Request, body: Any) -> Response:
        method, path = request.method, request.path
        pr_path = f"{REPO_PATH}/pulls/{NUMBER}"
        routes: list[tuple[str, str, Callable[[], Response]]] = [
            ("GET", rf"^{pr_path}$", lambda: self._get_pr(request)),
            ("GET", rf"^{pr_path}/files$", lambda: self._page(request, self.files)),
            ("GET", rf"^{pr_path}/comments$", lambda: self._page(request, self.review_comments)),
            ("POST", rf"^{pr_path}/reviews$", lambda: self._create_review(body)),
            ("DELETE", rf"^{pr_path}/reviews/\d+$", lambda: self._delete_review(path)),
            (
                "GET",
                rf"^{REPO_PATH}/issues/{NUMBER}/comments$",
                lambda: self._page(request, self.issue_comments),
            ),
            (
                "POST",
                rf"^{REPO_PATH}/issues/{NUMBER}/comments$",
                lambda: self._create_issue_comment(body),
            ),
            (
                "PATCH",
                rf"^{REPO_PATH}/issues/comments/\d+$",
                lambda: self._edit_issue_comment(path, body),
            ),
            ("GET", rf"^{REPO_PATH}/contents/.+$", lambda: self._get_contents(request)),
            ("GET", rf"^{REPO_PATH}/pulls$", lambda: self._page(request, self.pull_list)),
            (
                "GET",
                rf"^{REPO_PATH}/pulls/\d+/comments$",
                lambda: self._page(request, self._seeded(path, "review")),
            ),
            (
                "GET",
                rf"^{REPO_PATH}/issues/\d+/comments$",
                lambda: self._page(request, self._seeded(path, "issue")),
            ),
            ("GET", rf"^{REPO_PATH}/compare/.+$", lambda: self._compare(path)),
            (
                "GET",
                rf"^{REPO_PATH}/collaborators/[^/]+/permission$",
                lambda: self._permission(path),
            ),
        ]
        for verb, pattern, answer in routes:
            if verb == method and re.match(pattern, path):
                return answer()
        return _json({"message": "Not Found", "status": "404"}, 404)

    def _seeded(self, path: str, kind: str) -> list[dict[str, Any]]:
        number = int(path.split("/")[5])
        return self.history.get(number, {}).get(kind, [])

    def _get_pr(self, request: Request) -> Response:
        if request.headers.get("Accept") != "application/vnd.github.v3.diff":
            return _json(self.pr)
        if self.diff_too_large:
            return _json(
                {
                    "message": "Sorry, the diff exceeded the maximum number of lines (20000)",
                    "errors": [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                    "documentation_url": "https://docs.github.com/rest/pulls/pulls#get-a-pull-request",
                    "status": "406",
                },
                406,
            )
        return Response(self.diff, 200, content_type="text/plain; charset=utf-8")

    def _page(self, request: Request, items: list[dict[str, Any]]) -> Response:
        page = int(request.args.get("page", "1"))
        chunk = items[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        headers = {}
        if page * PAGE_SIZE < len(items):
            nxt = f"{self.base_url}{request.path}?per_page={PAGE_SIZE}&page={page + 1}"
            headers["Link"] = f'<{nxt}>; rel="next"'
        return _json(chunk, 200, headers)

    def _create_review(self, body: dict[str, Any]) -> Response:
        if self.read_only:
            return _forbidden("pulls/reviews#create-a-review-for-a-pull-request")
        comments = body.get("comments", [])
        refused = any(self.outside_diff(c) or self.rejects(c) for c in comments)
        if refused or body.get("commit_id") != self.head_sha:
            return _json(
                {
                    "message": "Unprocessable Entity",
                    "errors": ["Pull request review thread line must be part of the diff"],
                    "documentation_url": "https://docs.github.com/rest/pulls/reviews",
                    "status": "422",
                },
                422,
            )
        review = {
            "id": self._new_id(),
            "node_id": "PRR_kwDOABII586dpMBR",
            "user": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
            "body": body.get("body", ""),
            "state": "COMMENTED" if body.get("event") else "PENDING",
            "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#pullrequestreview-0",
            "commit_id": body.get("commit_id"),
            "comments": comments,
        }
        review["html_url"] = review["html_url"][:-1] + str(review["id"])
        self.reviews.append(review)
        if review["state"] != "PENDING":
            self.review_comments.extend(self._review_comment(review, c) for c in comments)
        return _json({k: v for k, v in review.items() if k != "comments"})

    def _review_comment(self, review: dict[str, Any], comment: dict[str, Any]) -> dict[str, Any]:
        comment_id = self._new_id()
        return {
            "id": comment_id,
            "pull_request_review_id": review["id"],
            "path": comment["path"],
            "line": comment["line"],
            "side": comment.get("side", "RIGHT"),
            "start_line": comment.get("start_line"),
            "start_side": comment.get("start_side"),
            "commit_id": review["commit_id"],
            "body": comment["body"],
            "user": review["user"],
            "author_association": "NONE",
            "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#discussion_r{comment_id}",
            "created_at": (now := self._now()),
            "updated_at": now,
        }

    def outside_diff(self, comment: dict[str, Any]) -> str | None:
        """Why GitHub would refuse ``comment``'s place (see the module docstring), or None."""
        side = comment.get("side", "RIGHT")
        start_side = comment.get("start_side", side)
        if side not in SIDES or start_side not in SIDES:
            return f"side {side!r} / start_side {start_side!r}: not one of {SIDES}"
        patch = next((f["patch"] for f in self.files if f["filename"] == comment["path"]), None)
        line, start = comment.get("line"), comment.get("start_line")
        hunk = next((h for h in _hunk_sides(patch or "") if line in h[side]), None)
        if hunk is None:
            return f"{side} line {line} of {comment['path']} is not part of the diff"
        if start is None:
            return None
        if start not in hunk[start_side]:
            return f"{start_side} start_line {start} is not in the hunk of line {line}"
        if start_side == side and start >= line:
            return f"start_line {start} does not come before line {line}"
        return None

    def _delete_review(self, path: str) -> Response:
        review_id = int(path.rsplit("/", 1)[1])
        for review in self.reviews:
            if review["id"] == review_id and review["state"] == "PENDING":
                self.reviews.remove(review)
                return _json({k: v for k, v in review.items() if k != "comments"})
        return _json({"message": "Unprocessable Entity", "status": "422"}, 422)

    def _create_issue_comment(self, body: dict[str, Any]) -> Response:
        if self.read_only:
            return _forbidden("issues/comments#create-an-issue-comment")
        comment_id = self._new_id()
        comment = {
            "id": comment_id,
            "body": body["body"],
            "user": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
            "author_association": "NONE",
            "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#issuecomment-{comment_id}",
            "url": f"{self.base_url}{REPO_PATH}/issues/comments/{comment_id}",
            "created_at": (now := self._now()),
            "updated_at": now,
        }
        self.issue_comments.append(comment)
        return _json(comment, 201)

    def _edit_issue_comment(self, path: str, body: dict[str, Any]) -> Response:
        comment_id = int(path.rsplit("/", 1)[1])
        for comment in self.issue_comments:
            if comment["id"] == comment_id:
                self.edit_comment(comment, body["body"])
                return _json(comment)
        return _json({"message": "Not Found", "status": "404"}, 404)

    def _get_contents(self, request: Request) -> Response:
        name = unquote(request.path.split("/contents/", 1)[1])
        ref = request.args.get("ref")
        files = {self.head_sha: self.contents, self.base_sha: self.base_contents}.get(ref or "")
        if files is None or name not in files:
            return _json({"message": "Not Found", "status": "404"}, 404)
        raw = files[name].encode("utf-8")
        return _json(
            {
                "type": "file",
                "encoding": "base64",
                "size": len(raw),
                "name": name.rsplit("/", 1)[-1],
                "path": name,
                "content": base64.encodebytes(raw).decode("ascii"),
                "sha": "3d21ec53a331a6f037a91c368710b99387d012c1",
                "url": f"{self.base_url}{request.full_path}",
            }
        )

    def _compare(self, path: str) -> Response:
        basehead = unquote(path.split("/compare/", 1)[1])
        if basehead not in self.comparisons:
            return _json({"message": "Not Found", "status": "404"}, 404)
        status, names = self.comparisons[basehead]
        files = [{"filename": name, "status": "modified", "changes": 1} for name in names]
        return _json({"status": status, "ahead_by": 1, "behind_by": 0, "files": files})

    def _permission(self, path: str) -> Response:
        login = unquote(path.split("/collaborators/", 1)[1].rsplit("/", 1)[0])
        if login not in self.permissions:
            return _json(
                {
                    "message": f"{login} is not a user",
                    "documentation_url": "https://docs.github.com/rest/collaborators/collaborators",
                    "status": "404",
                },
                404,
            )
        permission = self.permissions[login]
        # The legacy ``permission`` maps maintain to write and triage to read; ``role_name``
        # keeps the role's own name.
        legacy = {"maintain": "write", "triage": "read"}.get(permission, permission)
        user = {"login": login, "id": 1, "node_id": "MDQ6VXNlcjE=", "type": "User"}
        return _json({"permission": legacy, "role_name": permission, "user": user})

    def _rest_pr(self, payload: dict[str, Any]) -> dict[str, Any]:
        pr = copy.deepcopy(payload)
        pr["url"] = f"{self.base_url}{REPO_PATH}/pulls/{NUMBER}"
        pr["issue_url"] = f"{self.base_url}{REPO_PATH}/issues/{NUMBER}"
        return pr

    def _now(self) -> str:
        self._seconds += 1
        minutes, seconds = divmod(self._seconds, 60)
        return f"2026-11-28T00:{minutes:02d}:{seconds:02d}Z"

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(data), status, headers or {}, content_type="application/json")


def _forbidden(doc: str) -> Response:
    return _json(
        {
            "message": "Resource not accessible by integration",
            "documentation_url": f"https://docs.github.com/rest/{doc}",
            "status": "403",
        },
        403,
    )


def _hunk_sides(patch: str) -> list[dict[str, set[int]]]:
    """For each hunk of a file's ``patch``: the lines it shows on each side, by number (``LEFT``:
    the base's removed and context lines, ``RIGHT``: the new file's added and context lines)."""
    hunks: list[dict[str, set[int]]] = []
    old = new = 0
    for text in patch.split("\n"):
        header = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", text)
        if header:
            old, new = int(header.group(1)), int(header.group(2))
            hunks.append({"LEFT": set(), "RIGHT": set()})
        elif hunks and text[:1] in (" ", "", "-"):  # a blank context line may lose its space
            hunks[-1]["LEFT"].add(old)
            old += 1
            if text[:1] != "-":
                hunks[-1]["RIGHT"].add(new)
                new += 1
        elif hunks and text[:1] == "+":
            hunks[-1]["RIGHT"].add(new)
            new += 1
    return hunks


def _files_from_diff(diff: str) -> list[dict[str, Any]]:
    """The files API's entries for ``diff``: each file's patch is its text from the first @@."""
    entries = []
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        if not chunk.strip():
            continue
        name = re.search(r"^\+\+\+ b/(.+)$", chunk, re.M)
        status = "added" if "\nnew file mode" in chunk else "modified"
        if "\ndeleted file mode" in chunk:  # a deletion's name is on its --- line
            name, status = re.search(r"^--- a/(.+)$", chunk, re.M), "removed"
        patch = chunk[chunk.index("@@") :].rstrip("\n") if "@@" in chunk else None
        changes = sum(1 for line in (patch or "").splitlines() if line[:1] in "+-")
        entries.append(
            {
                "sha": "bbcd538c8e72b8c175046e27cc8f907076331401",
                "filename": name.group(1) if name else "",
                "status": status,
                "additions": changes,
                "deletions": 0,
                "changes": changes,
                "patch": patch,
            }
        )
    return entries
