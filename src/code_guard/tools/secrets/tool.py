"""Secret detection with Yelp's detect-secrets, for every text file whatever its language.

A large scan runs in a process of its own (``tools/secrets/scan.py``), one per call for all the
files, so it uses another core than the reviewer's in-process checks; a small one runs here,
for less than the process would cost to start.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from code_guard.change.request import split_lines
from code_guard.errors import ToolError
from code_guard.knowledge.suppressions import without_allowlist_pragma
from code_guard.tools.base import Focus, Tool, ToolHit, run_process
from code_guard.tools.runtime.turns import TURN
from code_guard.tools.secrets.scan import GUESSING_DETECTORS, Hit, scan

__all__ = ["GUESSING_DETECTORS", "SecretsTool"]

# Up to this many lines the scan runs here: it then ends before Bandit, which holds the critical
# path, and costs less CPU than a process start (about 0.3 s, detect-secrets imported).
_IN_PROCESS_LINES = 5_000
# ... and up to this much text: the scan's cost follows the text, not the line count, and 60
# minified bundles (3.8 MB in 1,900 lines of 2 kB) held the reviewer's interpreter lock for
# seconds, against the checkers, where another process has a core to itself.
_IN_PROCESS_CHARS = 200_000
_LOCK = threading.Lock()
_BINARY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".zip", ".gz", ".woff2")


class SecretsTool(Tool):
    """Flags hard-coded credentials: cloud keys, tokens, private keys, password literals."""

    name = "detect-secrets"

    def applies_to(self, path: str) -> bool:
        """Every file but obvious binaries."""
        return not path.lower().endswith(_BINARY_SUFFIXES)

    def run_focused(self, workspace: Path, paths: Sequence[str], focus: Focus) -> list[ToolHit]:
        """Scan only the focus lines of each file, so the cost follows the change, not the
        file (``tools/secrets/scan.py`` says how)."""
        if not paths:
            return []
        lines = {path: _lines(workspace, path, focus) for path in paths}
        count = sum(len(pairs) for pairs in lines.values())
        chars = sum(len(text) for pairs in lines.values() for _, text in pairs)
        if count <= _IN_PROCESS_LINES and chars <= _IN_PROCESS_CHARS:
            # the in-process analysers take turns (tools/runtime/turns.py); detect-secrets
            # keeps its settings in a module global
            with TURN, _LOCK:
                try:
                    found = scan(lines)
                except Exception as exc:  # noqa: BLE001 - the library raises anything
                    raise ToolError(f"detect-secrets failed: {exc!r}"[:500]) from exc
        else:
            found = _scan_apart(workspace, lines)
        return [
            ToolHit(self.name, kind, path, line, line, f"Possible hard-coded secret ({kind}).")
            for path, line, kind in found
        ]

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Scan every line of each file: detect-secrets' default plugins and filters, then
        once more line by line for token formats alone."""
        return self.run_focused(workspace, paths, None)


def _lines(workspace: Path, path: str, focus: Focus) -> list[tuple[int, str]]:
    """The lines of ``path`` to scan, numbered: its focus lines when there is a focus."""
    file = workspace / path
    try:
        text = split_lines(file.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise ToolError(f"detect-secrets cannot read {file.name}: {exc.strerror}") from exc
    if focus is None:
        return list(enumerate(text, start=1))
    wanted = focus.get(path, ())
    keep = sorted(n for n in set(wanted) if 0 < n <= len(text))
    # The pragma is taken out so the secret is reported; whether the pragma is honoured is
    # decided later, by who wrote it (knowledge/suppressions.py).
    return [(n, without_allowlist_pragma(text[n - 1])) for n in keep]


def _scan_apart(workspace: Path, lines: dict[str, list[tuple[int, str]]]) -> list[Hit]:
    """``scan`` in a process of its own, off this process's GIL."""
    with tempfile.TemporaryDirectory(prefix="code-guard-secrets-") as tmp:
        file = Path(tmp) / "request.json"
        file.write_text(json.dumps(lines), encoding="utf-8")
        # -I: the workspace holds the pull request's files, never on sys.path.
        args = [sys.executable, "-I", "-m", "code_guard.tools.secrets.scan", str(file)]
        out = run_process(args, cwd=workspace)
    try:
        answer = json.loads(out)
    except json.JSONDecodeError as exc:
        message = f"detect-secrets printed something that is not JSON: {out[:200]!r}"
        raise ToolError(message) from exc
    if "error" in answer:
        raise ToolError(f"detect-secrets failed: {answer['error']}")
    return [(str(path), int(line), str(kind)) for path, line, kind in answer["hits"]]
