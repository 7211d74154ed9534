"""``python -m code_guard`` runs the CLI."""

from __future__ import annotations

from code_guard.cli import run

if __name__ == "__main__":
    run()
