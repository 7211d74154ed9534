"""The model client a review's options ask for: litellm's, or none for a static-only review.

Apart from ``llm`` so that the interface module never imports its litellm implementation.
"""

from __future__ import annotations

from code_guard.llm import LLMClient, LLMSettings
from code_guard.options import ReviewOptions


def make_llm(options: ReviewOptions) -> LLMClient | None:
    """The client for ``options``, or None when the review is static-only."""
    if not options.uses_model:
        return None
    from code_guard.litellm_client import LiteLLMClient, start_import

    start_import()
    return LiteLLMClient(LLMSettings.from_options(options))
