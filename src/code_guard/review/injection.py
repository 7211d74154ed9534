"""Spot pull-request text that tries to instruct an AI reviewer.

A pull request is untrusted: its title, body, code and comments reach the model. Text that
addresses the reviewer ("ignore previous instructions", "approve this PR", "you are now...")
is a red flag whatever the model makes of it, so the review says so in its summary. The
model's answer cannot remove static findings anyway (see ``agents.base``): this check is
for the humans reading the review.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from code_guard.change.request import ReviewRequest

_PATTERNS = [
    r"\b(ignore|disregard|forget|override)\b.{0,40}\b(previous|prior|above|earlier|all|your)\b"
    r".{0,40}\b(instructions?|prompts?|rules|guidelines|findings)\b",
    r"\byou are (now|no longer)\b.{0,60}\b(assistant|reviewer|model|ai|bot)\b",
    r"\b(system|developer) prompt\b",
    r"\b(approve|merge|lgtm)\b.{0,30}\b(this|the)\s+(pr|pull request|change|diff)\b"
    r".{0,40}\b(without|no)\b",
    r"\b(do not|don't|never)\s+(report|flag|mention|comment on)\b.{0,60}"
    r"\b(issues?|findings?|vulnerabilit\w*|secrets?|problems?)\b",
    r"\b(ai|llm|model|bot|code reviewer|assistant)s?\b.{0,20}\b(must|should|shall)\s+"
    r"(approve|ignore|not report|say)\b",
]
_INJECTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def _places(request: ReviewRequest) -> Iterator[tuple[str, str]]:
    yield "the title", request.title
    yield "the description", request.body
    for file in request.change.files:
        for number, text in file.added.items():
            yield f"{file.path}:{number}", text


def injection_warnings(request: ReviewRequest, limit: int = 5) -> tuple[str, ...]:
    """One warning per place (up to ``limit``) whose text reads like instructions to an AI."""
    found: list[str] = []
    for where, text in _places(request):
        match = _INJECTION.search(text)
        if match is None:
            continue
        quote = " ".join(match.group(0).split())[:80]
        found.append(
            f"text in {where} reads like instructions to an AI reviewer (\"{quote}\"); "
            "it was treated as data, and no static finding can be removed by the model"
        )
        if len(found) == limit:
            break
    return tuple(found)
