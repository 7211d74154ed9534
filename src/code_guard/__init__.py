"""Ninja Code Guard: an AI code reviewer for pull requests."""

from __future__ import annotations

import os
import sys

# ``python -m code_guard`` puts the working directory first on sys.path, and a review runs in
# the checkout of the pull request it reviews: a PR adding ``json.py`` would then run its
# code in the reviewer. Drop that entry before anything else is imported (``-P`` and
# PYTHONSAFEPATH do the same; the action's image sets both).
if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from importlib.metadata import PackageNotFoundError, version  # noqa: E402 - after the guard

try:
    __version__ = version("ninja-code-guard")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
