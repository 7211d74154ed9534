"""The model client a review's options ask for: litellm's, or none for a static-only review.

Apart from ``llm`` so that the interface module never imports its litellm implementation.
"""

from __future__ import annotations

from code_guard.model.interface import LLMClient, LLMSettings
from code_guard.options import ModelOptions


def make_llm(options: ModelOptions) -> LLMClient | None:
    """The client for a review's model options, or None when the review is static-only."""
    if not options.enabled:
        return None
    from code_guard.model.litellm_client import LiteLLMClient, start_import

    start_import()
    return LiteLLMClient(LLMSettings.from_options(options))
