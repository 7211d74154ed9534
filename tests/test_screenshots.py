"""What a person sees: the summary comment, an inline comment and the eval summary, rendered
like GitHub in headless Chromium at 1,000 px, must not overflow sideways."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "screenshots.py"
sys.path.insert(0, str(SCRIPT.parent))

import screenshots  # noqa: E402 - a script, not a package

CHROMIUM = screenshots.chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
)


@needs_chromium
def test_nothing_overflows_at_desktop_width() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--no-png"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line.split(":")[0] for line in proc.stdout.splitlines()] == [
        "summary", "inline", "eval",
    ]  # fmt: skip


@needs_chromium
def test_the_measurement_catches_a_table_that_is_too_wide(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    wide = "| " + " | ".join(f"column-{i}-with-a-long-unbreakable-name" for i in range(12)) + " |"
    markdown = f"{wide}\n|{'---|' * 12}\n{wide.replace('column', 'value')}\n"
    page = tmp_path / "wide.html"
    page.write_text(screenshots.page(markdown), encoding="utf-8")
    figures = screenshots.measure(CHROMIUM, page)
    assert figures.overflows and figures.cut_tables
    assert figures.viewport == screenshots.WIDTH

