"""The parts of the pipeline the entrypoint wires together, injectable for tests.

``default_services`` binds the real engine, renderers and GitHub client. Their imports sit
inside the functions so that loading the entrypoint stays cheap and the eval module, which
eval dependencies, are only loaded in the mode that needs them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from code_guard.change.diff import Change
from code_guard.findings import Review
from code_guard.github.client import GitHubClient
from code_guard.github.retry import RetrySettings
from code_guard.options import ReviewOptions

if TYPE_CHECKING:
    from code_guard.evaluation.command import EvalOutcome

Connect = Callable[[str, str, str, int], GitHubClient]


class RunReview(Protocol):
    """Review a change; ``model_paths`` limits what the model sees (None: every file)."""

    def __call__(
        self,
        change: Change,
        contents: Mapping[str, str],
        title: str,
        body: str,
        options: ReviewOptions,
        model_paths: frozenset[str] | None = None,
    ) -> Review: ...


@dataclass(frozen=True, slots=True)
class Services:
    """Connect to GitHub, review a change, render reports, run an eval."""

    connect: Connect
    review: RunReview
    render_markdown: Callable[[Review], str]
    render_sarif: Callable[[Review], str]
    run_eval: Callable[..., EvalOutcome]
    # The markdown report with locations linked under a blob URL (``.../blob/<sha>``).
    render_linked: Callable[[Review, str], str] | None = None
    # The clock, in UTC: for the dismissals file's expiry dates and the feedback period.
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)


def default_services(retry: RetrySettings | None = None) -> Services:
    """The real implementations, with ``retry`` (or the default) for GitHub calls."""
    settings = retry or RetrySettings()

    def connect(token: str, api_url: str, repository: str, number: int) -> GitHubClient:
        return GitHubClient.connect(token, api_url, repository, number, settings)

    return Services(
        connect=connect,
        review=engine_review,
        render_markdown=_render_markdown,
        render_sarif=_render_sarif,
        run_eval=run_eval,
        render_linked=_render_linked,
    )


def engine_review(
    change: Change,
    contents: Mapping[str, str],
    title: str,
    body: str,
    options: ReviewOptions,
    model_paths: frozenset[str] | None = None,
) -> Review:
    """Review ``change`` with the engine and the model the options name (if any)."""
    from code_guard.model.factory import make_llm
    from code_guard.review.engine import ReviewRequest, review_sync

    request = ReviewRequest(
        change=change, contents=contents, title=title, body=body, model_paths=model_paths
    )
    return review_sync(request, options, make_llm(options.model))


def _render_markdown(review: Review) -> str:
    from code_guard.report.markdown import render_markdown

    return render_markdown(review)


def _render_linked(review: Review, blob_base: str) -> str:
    from code_guard.report.markdown import render_markdown

    return render_markdown(review, blob_base=blob_base)


def _render_sarif(review: Review) -> str:
    from code_guard.report.sarif import render_sarif

    return render_sarif(review)


def run_eval(**kwargs: Any) -> EvalOutcome:
    """Call ``code_guard.evaluation.command.run_eval_for_action`` with ``kwargs``."""
    from code_guard.evaluation.command import run_eval_for_action

    return run_eval_for_action(**kwargs)
