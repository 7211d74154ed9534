"""Secret detection with Yelp's detect-secrets, for every text file whatever its language."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from code_guard.errors import ToolError
from code_guard.request import split_lines
from code_guard.tools.base import Tool, ToolHit

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

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Scan each file with detect-secrets' default plugins and filters, then once more
        line by line for token formats alone.

        The file scan's heuristics drop any value on a line that reads another value
        (``os.environ.get("TOKEN", "ghp_...")``), which hides real tokens used as defaults; a
        token with a known format is a leak wherever it sits, so the second pass keeps those.
        """
        from detect_secrets.core.scan import scan_line
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings

        found: dict[tuple[str, int, str], None] = {}
        with _LOCK, default_settings():
            collection = SecretsCollection(root=str(workspace))
            for path in paths:
                try:
                    collection.scan_file(path)
                    text = (workspace / path).read_text(encoding="utf-8", errors="replace")
                except Exception as exc:  # noqa: BLE001 - the library raises anything
                    raise ToolError(f"detect-secrets failed on {path}: {exc}") from exc
                for number, line in enumerate(split_lines(text), start=1):
                    for secret in scan_line(line):
                        if secret.type not in GUESSING_DETECTORS:
                            found[(path, number, secret.type)] = None
            for filename, secrets in collection.data.items():
                for secret in secrets:
                    if secret.line_number:
                        key = (Path(filename).as_posix(), secret.line_number, secret.type)
                        found[key] = None
        return [
            ToolHit(self.name, kind, path, line, line, f"Possible hard-coded secret ({kind}).")
            for path, line, kind in found
        ]
