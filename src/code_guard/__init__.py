"""Ninja Code Guard: an AI code reviewer for pull requests."""

from __future__ import annotations

import os
import sys

# ``python -m code_guard`` puts the working directory first on sys.path, and a review runs in
# the checkout of the pull request it reviews: a PR adding ``json.py`` would then run its
# code in the reviewer. Drop that entry before anything else is imported (``-P`` and
# PYTHONSAFEPATH do the same; the action's image sets both). Only for ``-m`` (argv[0] is
# "-m" while the package imports) and ``-c``/the REPL (""): a script run from its own
# folder has that folder first, and its sibling modules are the script's, not the PR's.
_ARGV0 = getattr(sys, "argv", [""])[:1]
if not sys.flags.safe_path and sys.path and (
    sys.path[0] == "" or (_ARGV0 == ["-m"] and sys.path[0] == os.getcwd())
):
    del sys.path[0]

from importlib.metadata import PackageNotFoundError, version  # noqa: E402 - after the guard

try:
    __version__ = version("ninja-code-guard")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
