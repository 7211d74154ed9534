"""Secret detection with Yelp's detect-secrets, for every text file whatever its language."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from code_guard.errors import ToolError
from code_guard.tools.base import Tool, ToolHit

# detect-secrets keeps its plugin settings in a module global; agents run tools in threads,
# so scans are serialised.
_LOCK = threading.Lock()
_BINARY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".zip", ".gz", ".woff2")


class SecretsTool(Tool):
    """Flags hard-coded credentials: cloud keys, tokens, private keys, password literals."""

    name = "detect-secrets"

    def applies_to(self, path: str) -> bool:
        """Every file but obvious binaries."""
        return not path.lower().endswith(_BINARY_SUFFIXES)

    def run(self, workspace: Path, paths: Sequence[str]) -> list[ToolHit]:
        """Scan each file with detect-secrets' default plugins and filters."""
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings

        hits: list[ToolHit] = []
        with _LOCK, default_settings():
            collection = SecretsCollection(root=str(workspace))
            for path in paths:
                try:
                    collection.scan_file(path)
                except Exception as exc:  # noqa: BLE001 - the library raises anything
                    raise ToolError(f"detect-secrets failed on {path}: {exc}") from exc
            for filename, secrets in collection.data.items():
                hits.extend(
                    ToolHit(
                        tool=self.name,
                        rule=secret.type,
                        file_path=Path(filename).as_posix(),
                        line=secret.line_number,
                        end_line=secret.line_number,
                        message=f"Possible hard-coded secret ({secret.type}).",
                    )
                    for secret in secrets
                    if secret.line_number
                )
        return hits
