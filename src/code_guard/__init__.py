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

import functools  # noqa: E402 - after the guard


@functools.cache
def package_version() -> str:
    """The installed package's version, "0.0.0" in a source tree that was never installed.

    Looked up when asked (``--version``, SARIF's tool version), not at import:
    ``importlib.metadata`` and its search of ``sys.path`` cost about 25 ms, a tenth of a
    one-line review's start."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ninja-code-guard")
    except PackageNotFoundError:
        return "0.0.0"


def __getattr__(name: str) -> str:
    """``code_guard.__version__``, looked up on first use (see ``package_version``)."""
    if name == "__version__":
        return package_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
