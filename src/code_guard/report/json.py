"""The review as JSON: every field of the ``Review``, every finding."""

from __future__ import annotations

from code_guard.models import Review


def render_json(review: Review) -> str:
    """Serialize ``review`` as indented JSON; ``Review.model_validate_json`` reads it back."""
    return review.model_dump_json(indent=2) + "\n"
