"""Suppression comments (``# nosec``, ``nosemgrep``, ``pragma: allowlist secret``) and who
may use them.

A suppression is a statement by whoever wrote it. One that was already in the code is the
project's decision and is honoured. One that the pull request adds sits on a line its author
controls: it does not silence a finding of high severity or above; the finding is reported,
marked "suppressed in this PR", so a reviewer sees both the finding and the attempt. The
``pr-suppressions: honor`` option restores the analysers' own behaviour.
"""

from __future__ import annotations

import re

# The suppression comment each analyser honours, by tool name.
_SUPPRESSIONS = {
    "bandit": re.compile(r"#\s*nosec\b"),
    "semgrep": re.compile(r"\bnosemgrep\b"),
    "detect-secrets": re.compile(r"pragma:\s*allowlist\s+secret\b"),
}


def suppression(tool: str, line: str) -> str | None:
    """The suppression comment for ``tool`` on ``line`` (as written), or None."""
    pattern = _SUPPRESSIONS.get(tool)
    match = pattern.search(line) if pattern is not None else None
    return match.group(0) if match else None


def without_allowlist_pragma(line: str) -> str:
    """``line`` with detect-secrets' allowlist pragma removed, so the scan reports the
    secret and the policy above decides."""
    return _SUPPRESSIONS["detect-secrets"].sub("", line)
