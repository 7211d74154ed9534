"""A detect-secrets scan in a process of its own, for a batch of a large change's files.

detect-secrets is pure Python: in the review's process it holds the GIL while the other
analysers wait. For large changes ``SecretsTool`` runs it here instead, one process per core:

    python -I -m code_guard.tools.secrets_worker WORKSPACE < paths.json > hits.json

Standard input holds the JSON list of paths (relative to WORKSPACE); standard output gets the
JSON list of hits, each ``[rule, path, line]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    """Scan the paths on standard input and print their hits."""
    from code_guard.tools.secrets import SecretsTool

    workspace = Path(sys.argv[1])
    paths = [str(p) for p in json.load(sys.stdin)]
    hits = SecretsTool().run(workspace, paths)
    json.dump([[h.rule, h.file_path, h.line] for h in hits], sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
