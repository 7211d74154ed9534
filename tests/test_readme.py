"""The README's quick start prints what the README says it prints, and the README stays short.

The printed example is the first thing a new user compares against; it went stale once
unnoticed, so it is checked here against a real run of the quick-start command.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARKER = "<!-- quick-start-output -->"
MAX_LINES = 300


def _quick_start_review() -> list[str]:
    """The ``code-guard review …`` part of the first quick-start command, as arguments."""
    text = README.read_text(encoding="utf-8")
    command = re.search(r"&& (code-guard review [^\n`]+)", text)
    assert command is not None, "the quick start names no `code-guard review` command"
    return shlex.split(command.group(1))[1:]


def _printed_block() -> str:
    text = README.read_text(encoding="utf-8")
    assert MARKER in text, f"the README has no {MARKER} block"
    after = text.split(MARKER, 1)[1]
    block = re.match(r"\s*```\n(.*?)```", after, re.S)
    assert block is not None, f"no fenced block follows {MARKER}"
    return block.group(1)


def test_quick_start_output_matches_the_readme() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "code_guard", *_quick_start_review()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == _printed_block(), (
        "README.md's quick-start output is stale; paste the command's stdout into the block "
        f"after {MARKER}"
    )


def test_readme_stays_a_page_for_users() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; move detail into docs/"
