"""The secret scan: narrowing to the lines a plugin may flag finds what the whole scan finds,
and the scan in its own process finds what the scan in this one does."""

from __future__ import annotations

from pathlib import Path

import pytest
from detect_secrets.core.secrets_collection import SecretsCollection
from detect_secrets.settings import default_settings

from code_guard.tools import secrets as secrets_tool
from code_guard.tools.secrets import SecretsTool
from code_guard.tools.secrets_scan import _line_test, _narrowed

_SECRET_LINES = [
    'password = "hunter2-Very-Secret!"',
    'AWS = "AKIAIOSFODNN7EXAMPLE"',
    'token = os.environ.get("TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789")',
    'blob = "c2VjcmV0LXZhbHVlLXRoYXQtaXMtbG9uZy1hbmQtcmFuZG9tLTk4NzY1"',
    "api_key: 'Zx8qP2mL9vR4tY7wK1nB'",
    "# pragma: allowlist nextline secret",
    'secret = "another-Secret-Value-42"',
]


def _filler(n: int) -> list[str]:
    return [f"def f{i}(x):" if i % 2 else f"    return x + {i}  # ok" for i in range(n)]


def _whole_scan(root: Path, name: str) -> set[tuple[int, str]]:
    with default_settings():
        collection = SecretsCollection(root=str(root))
        collection.scan_file(name)
        return {(s.line_number, s.type) for ss in collection.data.values() for s in ss}


def test_narrowing_keeps_every_line_a_plugin_flags(tmp_path: Path) -> None:
    lines = _filler(30) + _SECRET_LINES[:3] + _filler(40) + _SECRET_LINES[3:] + _filler(20)
    (tmp_path / "whole.py").write_text("".join(f"{line}\n" for line in lines))
    with default_settings():
        narrow = _narrowed(list(enumerate(lines, start=1)), _line_test())
    assert len(narrow) < len(lines)
    (tmp_path / "narrow.py").write_text("".join(f"{line}\n" for _, line in narrow))
    numbers = [n for n, _ in narrow]
    found = {(numbers[n - 1], kind) for n, kind in _whole_scan(tmp_path, "narrow.py")}
    assert found == _whole_scan(tmp_path, "whole.py")
    assert found


def test_the_scan_apart_finds_what_the_scan_here_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _filler(2600) + _SECRET_LINES + _filler(2600)
    (tmp_path / "app.py").write_text("".join(f"{line}\n" for line in lines))
    focus = {"app.py": range(1, len(lines) + 1)}
    apart = SecretsTool().run_focused(tmp_path, ["app.py"], focus)
    assert len(lines) > secrets_tool._IN_PROCESS_LINES
    monkeypatch.setattr(secrets_tool, "_IN_PROCESS_LINES", 10**9)
    here = SecretsTool().run_focused(tmp_path, ["app.py"], focus)
    assert sorted(map(repr, apart)) == sorted(map(repr, here))
    assert {h.rule for h in here} >= {"AWS Access Key", "GitHub Token", "Secret Keyword"}
