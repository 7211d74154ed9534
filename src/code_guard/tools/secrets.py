"""Secret detection with Yelp's detect-secrets, for every text file whatever its language."""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from code_guard.errors import ToolError
from code_guard.request import split_lines
from code_guard.tools.base import Focus, Tool, ToolHit, run_process_input
from code_guard.tools.batches import MIN_PARALLEL_BYTES, file_size, run_in_batches
from code_guard.tools.suppressions import without_allowlist_pragma

# detect-secrets keeps its plugin settings in a module global; agents run tools in threads,
# so scans are serialised.
_LOCK = threading.Lock()
# Detectors that guess from a variable's name or a string's entropy rather than a token format.
GUESSING_DETECTORS = frozenset(
    {"Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String"}
)
_BINARY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".zip", ".gz", ".woff2")


class SecretsTool(Tool):
    """Flags hard-coded credentials: cloud keys, tokens, private keys, password literals."""

    name = "detect-secrets"

    def applies_to(self, path: str) -> bool:
        """Every file but obvious binaries."""
        return not path.lower().endswith(_BINARY_SUFFIXES)

    def run_focused(self, workspace: Path, paths: Sequence[str], focus: Focus) -> list[ToolHit]:
        """Scan only the focus lines of each file, so the cost follows the change, not the
        file: detect-secrets spends about as long on a blank line as on a real one.

        Its plugins and filters read one line at a time, so the focus lines are written, in
        order, to stand-in files of the same names in a scratch folder, scanned there, and
        the hits mapped back to their true line numbers.
        """
        if focus is None:
            return self.run(workspace, paths)
        with tempfile.TemporaryDirectory(prefix="code-guard-secrets-") as tmp:
            scratch = Path(tmp)
            numbers: dict[str, list[int]] = {}
            for path in paths:
                lines = split_lines(_read(workspace / path))
                keep = sorted(n for n in focus.get(path, ()) if 0 < n <= len(lines))
                target = scratch / path
                target.parent.mkdir(parents=True, exist_ok=True)
                # The pragma is taken out so the secret is reported; whether the pragma is
                # honoured is decided later, by who wrote it (tools/suppressions.py).
                text = "".join(without_allowlist_pragma(lines[n - 1]) + "\n" for n in keep)
                target.write_text(text, encoding="utf-8")
                numbers[path] = keep
            size = file_size(scratch)
            if sum(size(p) for p in paths) < MIN_PARALLEL_BYTES:
                hits = self.run(scratch, paths)
            else:  # out of this process's GIL, one process per core
                hits = run_in_batches(paths, size, lambda part: self._scan(scratch, part))
        return [
            ToolHit(h.tool, h.rule, h.file_path, line, line, h.message)
            for h in hits
            if 0 < h.line <= len(numbers.get(h.file_path, ()))
            for line in [numbers[h.file_path][h.line - 1]]
        ]

    def _scan(self, workspace: Path, paths: list[str]) -> list[ToolHit]:
        """``run`` over one batch of a large change's files, in a process of its own."""
        out = run_process_input(
            [sys.executable, "-I", "-m", "code_guard.tools.secrets_worker", str(workspace)],
            json.dumps(paths),
            cwd=workspace,
        )
        try:
            rows = json.loads(out)
            return [
                ToolHit(self.name, str(k), str(p), int(n), int(n), _message(str(k)))
                for k, p, n in rows
            ]
        except (ValueError, TypeError) as exc:
            raise ToolError(f"detect-secrets worker printed {out[:200]!r}") from exc

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Scan each file with detect-secrets' default plugins and filters, then once more
        line by line for token formats alone.

        The file scan's heuristics drop any value on a line that reads another value
        (``os.environ.get("TOKEN", "ghp_...")``), which hides real tokens used as defaults; a
        token with a known format is a leak wherever it sits, so the second pass keeps those.
        """
        from detect_secrets.core.scan import scan_line
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings, transient_settings

        found: dict[tuple[str, int, str], None] = {}
        texts: dict[str, str] = {}
        with _LOCK:
            with default_settings():
                collection = SecretsCollection(root=str(workspace))
                for path in paths:
                    try:
                        collection.scan_file(path)
                        texts[path] = _read(workspace / path)
                    except Exception as exc:  # noqa: BLE001 - the library raises anything
                        raise ToolError(f"detect-secrets failed on {path}: {exc}") from exc
                for filename, secrets in collection.data.items():
                    for secret in secrets:
                        if secret.line_number:
                            key = (Path(filename).as_posix(), secret.line_number, secret.type)
                            found[key] = None
            # The second pass looks for token formats only: the guessing detectors already
            # ran above, and they cost more than all the token formats together.
            with transient_settings({"plugins_used": [{"name": n} for n in _token_plugins()]}):
                for path, text in texts.items():
                    for number, line in enumerate(split_lines(text), start=1):
                        if not line.strip():
                            continue  # nothing to find, and scan_line costs as much on blanks
                        for secret in scan_line(line):
                            found[(path, number, secret.type)] = None
        return [
            ToolHit(self.name, kind, path, line, line, _message(kind)) for path, line, kind in found
        ]


def _message(kind: str) -> str:
    return f"Possible hard-coded secret ({kind})."


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ToolError(f"detect-secrets cannot read {path.name}: {exc.strerror}") from exc


def _token_plugins() -> list[str]:
    """detect-secrets' plugins that recognise a token format (not a name or an entropy)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    return sorted(cls.__name__ for kind, cls in plugins.items() if kind not in GUESSING_DETECTORS)
