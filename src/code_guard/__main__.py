"""``python -m code_guard`` runs the CLI.

A review starts Bandit's worker first, before the CLI's modules load: their loading keeps one
core busy and leaves the other idle, and the worker loads Bandit there
(``tools/bandit/prestart.py``).
"""

from __future__ import annotations

import sys
from typing import NoReturn


def main() -> NoReturn:
    """Start Bandit's worker for a review, then run the CLI (``cli.run``)."""
    # The subcommand is the first argument that is not an option (``cli._command``).
    command = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    if command == "review":
        from code_guard.tools.bandit import prestart

        if prestart.wanted(sys.argv[1:]):
            prestart.start()
    from code_guard.cli import run

    run()


if __name__ == "__main__":
    main()
