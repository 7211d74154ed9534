"""Cut GitHub's OpenAPI description down to the operations the action calls.

The full description (``generated/api.github.com.json`` in the ``@octokit/openapi`` npm
package) is about 13 MB; the tests only need the handful of operations the action uses, plus
the components they reference. This script writes that subset, with every operation and
component copied unchanged, so ``tests/github/test_openapi_subset.py`` can prove it matches
upstream whenever the full file is at hand.

Usage::

    python scripts/trim_openapi.py --fetch            # npm pack the pinned version, then trim
    python scripts/trim_openapi.py path/to/api.github.com.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
MEMBER = "package/generated/api.github.com.json"
ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tests" / "github" / "fixtures" / "openapi-subset.json"

# (path, method) of every REST operation the action calls; keep in step with client.py.
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("/repos/{owner}/{repo}/pulls", "get"),
    ("/repos/{owner}/{repo}/pulls/{pull_number}", "get"),
    ("/repos/{owner}/{repo}/pulls/{pull_number}/files", "get"),
    ("/repos/{owner}/{repo}/pulls/{pull_number}/comments", "get"),
    ("/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "post"),
    ("/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}", "delete"),
    ("/repos/{owner}/{repo}/contents/{path}", "get"),
    ("/repos/{owner}/{repo}/compare/{basehead}", "get"),
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "get"),
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "post"),
    ("/repos/{owner}/{repo}/issues/comments/{comment_id}", "patch"),
    ("/repos/{owner}/{repo}/collaborators/{username}/permission", "get"),
)


def fetch_full(cache: Path) -> Path:
    """Download the pinned package with ``npm pack`` into ``cache`` and return the JSON path."""
    target = cache / f"openapi-{VERSION}" / "api.github.com.json"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["npm", "pack", f"{PACKAGE}@{VERSION}", "--silent", "--pack-destination", tmp],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        tarball = next(Path(tmp).glob("*.tgz"))
        with tarfile.open(tarball) as tar:
            member = tar.extractfile(MEMBER)
            if member is None:
                raise SystemExit(f"{MEMBER} is missing from {tarball.name}")
            target.write_bytes(member.read())
    return target


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def trim(full: dict[str, Any]) -> dict[str, Any]:
    """Return the subset of ``full`` holding ``OPERATIONS`` and every component they use."""
    paths: dict[str, dict[str, Any]] = {}
    for path, method in OPERATIONS:
        paths.setdefault(path, {})[method] = full["paths"][path][method]
    components: dict[str, dict[str, Any]] = {}
    pending = list(_refs(paths))
    while pending:
        ref = pending.pop()
        _, section, name = ref.split("/", 3)[1:]
        if name in components.get(section, {}):
            continue
        value = full["components"][section][name]
        components.setdefault(section, {})[name] = value
        pending.extend(_refs(value))
    return {
        "openapi": full["openapi"],
        "info": {
            "title": full["info"]["title"],
            "version": full["info"]["version"],
            "x-trimmed-from": f"{PACKAGE}@{VERSION} generated/api.github.com.json",
        },
        "servers": full["servers"],
        "paths": paths,
        "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())},
    }


def main(argv: list[str] | None = None) -> int:
    """Write the subset; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("full", nargs="?", type=Path, help="path of api.github.com.json")
    parser.add_argument("--fetch", action="store_true", help=f"npm pack {PACKAGE}@{VERSION}")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "code-guard")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if args.full is None and not args.fetch:
        parser.error("give the path of api.github.com.json, or --fetch")
    full_path = args.full or fetch_full(args.cache)
    subset = trim(json.loads(full_path.read_text(encoding="utf-8")))
    args.output.write_text(json.dumps(subset, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {args.output} ({args.output.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
