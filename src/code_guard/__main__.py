"""``python -m code_guard`` runs the CLI."""

from __future__ import annotations

import sys

from code_guard.cli import main

if __name__ == "__main__":
    sys.exit(main())
