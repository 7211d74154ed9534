"""Ninja Code Guard: an AI code reviewer for pull requests."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ninja-code-guard")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
