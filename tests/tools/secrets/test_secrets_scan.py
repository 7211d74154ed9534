"""The secret scan: narrowing to the lines a plugin may flag finds what the whole scan finds,
the token-format pass finds what it finds on every line, no string an entropy plugin would
flag is passed over, and the scan in its own process finds what the scan in this one does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from detect_secrets.core.scan import scan_line
from detect_secrets.core.secrets_collection import SecretsCollection
from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
from detect_secrets.settings import default_settings, get_plugins, transient_settings
from hypothesis import given, settings
from hypothesis import strategies as st

from code_guard.tools.secrets import scan as scan_module
from code_guard.tools.secrets import tool as secrets_tool
from code_guard.tools.secrets.scan import _line_test, _narrowed, _token_plugins, scan
from code_guard.tools.secrets.tool import SecretsTool

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
        narrow = _narrowed(list(enumerate(lines, start=1)), _line_test(), set())
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


def test_long_lines_are_scanned_apart_and_give_what_the_scan_here_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few hundred minified lines are most of a megabyte: the text, not the line count,
    sends the scan to its own process, and it finds there what it finds here."""
    wide = ";".join(f"var a{n}=b(c,{n})" for n in range(200))  # about 3 kB a line
    lines = [wide] * 100 + _SECRET_LINES + [wide] * 100
    (tmp_path / "bundle.js").write_text("".join(f"{line}\n" for line in lines))
    focus = {"bundle.js": range(1, len(lines) + 1)}
    assert len(lines) <= secrets_tool._IN_PROCESS_LINES
    assert sum(map(len, lines)) > secrets_tool._IN_PROCESS_CHARS
    calls: list[int] = []
    real_apart = secrets_tool._scan_apart

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real_apart(*args)

    monkeypatch.setattr(secrets_tool, "_scan_apart", counted)
    apart = SecretsTool().run_focused(tmp_path, ["bundle.js"], focus)
    assert calls == [1]
    monkeypatch.setattr(secrets_tool, "_IN_PROCESS_CHARS", 10**9)
    here = SecretsTool().run_focused(tmp_path, ["bundle.js"], focus)
    assert calls == [1]  # this time in the reviewer's process
    assert sorted(map(repr, apart)) == sorted(map(repr, here))
    assert {h.rule for h in here} >= {"AWS Access Key", "GitHub Token"}


def test_the_token_pass_finds_what_it_finds_on_every_line() -> None:
    lines = [
        *_filler(10),
        *_SECRET_LINES,
        'KEY = os.getenv("K", "AKIAIOSFODNN7EXAMPLE")   ',  # trailing blanks
        'headers = {"Authorization": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}\t',
        *_filler(10),
    ]
    numbered = list(enumerate(lines, start=1))
    found = set(scan({"app.py": numbered}))
    plugins = [{"name": name} for name in _token_plugins()]
    with transient_settings({"plugins_used": plugins}):
        every_line = {
            ("app.py", number, secret.type)
            for number, line in numbered
            for secret in scan_line(line)
        }
    assert every_line
    assert every_line <= found


def test_a_small_scan_reads_every_line_and_finds_what_the_narrowed_scan_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Until a scan of this process has compiled the line tests, a scan of a few lines reads
    every line instead (compiling them would cost more): it must find the same."""
    lines = _filler(20) + _SECRET_LINES + ['KEY = os.getenv("K", "AKIAIOSFODNN7EXAMPLE")  ']
    numbered = list(enumerate([*lines, *_filler(20)], start=1))
    assert len(numbered) < scan_module._NARROW_FROM
    built: list[int] = []
    real = scan_module._line_test

    def counted() -> scan_module.LineTest:
        built.append(1)
        return real()

    monkeypatch.setattr(scan_module, "_line_test", counted)
    monkeypatch.setattr(scan_module, "_compiled", False)
    every = scan({"app.py": numbered})
    assert built == []  # no test compiled: every line read
    monkeypatch.setattr(scan_module, "_compiled", True)
    narrowed = scan({"app.py": numbered})
    assert built == [1, 1]  # both passes narrowed
    assert sorted(every) == sorted(narrowed)
    assert {kind for _, _, kind in every} >= {"AWS Access Key", "GitHub Token", "Secret Keyword"}
    # a scan of more lines compiles the tests, and later small scans narrow too
    monkeypatch.setattr(scan_module, "_compiled", False)
    scan({"big.py": list(enumerate(_filler(scan_module._NARROW_FROM), start=1))})
    assert built == [1, 1, 1, 1] and scan_module._compiled
    assert sorted(scan({"app.py": numbered})) == sorted(narrowed)
    assert len(built) == 6


_ALPHABETS = st.sampled_from(
    ["0123456789abcdef", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"]
)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_no_string_an_entropy_plugin_flags_is_passed_over(data: st.DataObject) -> None:
    alphabet = data.draw(_ALPHABETS)
    value = data.draw(st.text(alphabet, min_size=1, max_size=40))
    line = f'value = "{value}"'
    with default_settings():
        may_hold = _line_test()
        flagged = any(
            plugin.calculate_shannon_entropy(value) > plugin.entropy_limit
            for plugin in get_plugins()
            if isinstance(plugin, HighEntropyStringsPlugin) and plugin.regex.search(line)
        )
        assert may_hold(line) or not flagged


def test_a_file_with_no_line_to_scan_is_neither_written_nor_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from code_guard.tools.secrets import scan as scan_module

    files = {f"clean{n}.py": _filler(12) for n in range(5)}
    files["leaky.py"] = _filler(12) + _SECRET_LINES + _filler(12)
    files["empty.py"] = []
    files["config.yaml"] = ["name: app", "password: hunter2-Very-Secret!"]
    written: list[str] = []
    real_write = scan_module._write

    def counting(target: Path, numbered: Any) -> None:
        written.append(target.name)
        real_write(target, numbered)

    monkeypatch.setattr(scan_module, "_write", counting)
    found = set(scan({path: list(enumerate(lines, start=1)) for path, lines in files.items()}))
    assert sorted(written) == ["config.yaml", "leaky.py"]
    for path, lines in files.items():  # each file scanned whole, on its own, finds the same
        (tmp_path / path).write_text("".join(f"{line}\n" for line in lines))
        whole = {(path, n, kind) for n, kind in _whole_scan(tmp_path, path)}
        assert {hit for hit in found if hit[0] == path} >= whole
        if not path.startswith("leaky"):
            assert not {hit for hit in found if hit[0] == path} - whole
    assert {hit[0] for hit in found} == {"leaky.py", "config.yaml"}
