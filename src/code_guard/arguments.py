"""Command-line flags shared by ``review`` and ``eval``, and the options they build.

Its own module so that the eval command and the CLI both use it without importing each other.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from code_guard.options import ReviewOptions, build_options, load_config_file


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared by review and eval: the model and offline mode."""
    parser.add_argument("--model", help="litellm model name, e.g. gpt-4o-mini or ollama/qwen2.5")
    parser.add_argument("--api-base", help="base URL of an OpenAI-compatible or local server")
    parser.add_argument(
        "--offline", action="store_true", help="never call a model: static analysis only"
    )
    parser.add_argument("--agents", help="comma-separated agents (default: all three)")
    parser.add_argument("--min-confidence", type=float, help="drop findings below this (0-1)")
    parser.add_argument(
        "--context-tokens",
        type=int,
        metavar="N",
        help="the model's context window (default: litellm's model info, else 16384)",
    )
    parser.add_argument(
        "--max-concurrency", type=int, metavar="N", help="model calls at once (default: 4)"
    )
    parser.add_argument(
        "--max-tokens", type=int, metavar="N", help="tokens one review may spend on the model"
    )
    parser.add_argument(
        "--max-cost-usd", type=float, metavar="X", help="dollars one review may spend on the model"
    )
    parser.add_argument("--config", type=Path, help="YAML file of review options")


def config_values(args: argparse.Namespace) -> dict[str, Any]:
    """The options in ``--config``, or none."""
    return load_config_file(args.config) if args.config else {}


def options_from_args(
    args: argparse.Namespace, config: dict[str, Any] | None = None, **extra: Any
) -> ReviewOptions:
    """Config file values (``config``, else read from ``--config``), then flags given on the
    command line, then ``extra``, by flat option name (``options.FLAT_KEYS``)."""
    values = dict(config_values(args) if config is None else config)
    for name in (
        "model", "api_base", "agents", "min_confidence",
        "context_tokens", "max_concurrency", "max_tokens", "max_cost_usd",
    ):  # fmt: skip
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    if args.offline:
        values["offline"] = True
    values.update(extra)
    return build_options(values)
