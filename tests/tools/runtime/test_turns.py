"""The in-process analysers take turns (tools/runtime/turns.py): the Python checkers, the
in-process secrets scan and access control never run side by side, whichever threads ask."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from code_guard.tools.python import checker
from code_guard.tools.python.taint import PythonTaintTool
from code_guard.tools.secrets import tool as secrets_tool
from code_guard.tools.secrets.scan import scan as secrets_scan
from code_guard.tools.secrets.tool import SecretsTool

SOURCE = 'import os\n\nTOKEN = "ghp_%s"\n\n\ndef f(x):\n    return os.path.join(x)\n' % ("a1B2" * 9)

Interval = tuple[float, float]


def _timed(func: Callable[..., Any], spans: list[Interval]) -> Callable[..., Any]:
    """``func``, noting when each call ran, and made to last long enough to meet another."""

    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        time.sleep(0.2)  # sleeping lets the other thread in, unless it must wait its turn
        try:
            return func(*args, **kwargs)
        finally:
            spans.append((start, time.monotonic()))

    return run


def _side_by_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Interval]:
    """Run the checkers and the secrets scan from two threads at once; their intervals."""
    (tmp_path / "app.py").write_text(SOURCE, encoding="utf-8")
    spans: list[Interval] = []
    monkeypatch.setattr(checker, "_check_all", _timed(checker._check_all, spans))
    monkeypatch.setattr(secrets_tool, "scan", _timed(secrets_scan, spans))
    found: dict[str, int] = {}
    ready = threading.Barrier(2)

    def taint() -> None:
        ready.wait()
        found["taint"] = len(PythonTaintTool().run(tmp_path, ["app.py"]))

    def secrets() -> None:
        ready.wait()
        found["secrets"] = len(SecretsTool().run(tmp_path, ["app.py"]))

    threads = [threading.Thread(target=taint), threading.Thread(target=secrets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found["secrets"] >= 1  # the scan ran, and found the token
    assert len(spans) == 2
    return sorted(spans)


def test_the_checkers_and_the_secrets_scan_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (first_start, first_end), (second_start, _) = _side_by_side(tmp_path, monkeypatch)
    assert second_start >= first_end > first_start


class _NoTurn:
    """A turn that never makes anyone wait."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def test_without_the_turn_they_would_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: the same two threads, the turn removed, run side by side."""
    monkeypatch.setattr(checker, "TURN", _NoTurn())
    monkeypatch.setattr(secrets_tool, "TURN", _NoTurn())
    (_, first_end), (second_start, _) = _side_by_side(tmp_path, monkeypatch)
    assert second_start < first_end
