"""Text that crosses a trust boundary, made safe: model output and error messages.

- ``strip_markers``: a model's answer is steered by the pull request it reads, so it may carry
  this action's hidden markers (``<!-- code-guard:fp=… -->``), which would make a later run
  believe a finding was already posted. Every HTML comment is removed from model text.
- ``redact``: provider and GitHub errors can echo a request's ``Authorization`` header, a key
  or a URL with ``user:pass@``. Everything printed, posted or written goes through it first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
# Authorization schemes followed by a credential (one with a digit: not an English word).
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+(?=\S*\d)[A-Za-z0-9._~+/=-]{8,}")
_AUTH_HEADER = re.compile(r"(?i)\b(authorization|x-api-key|api-key)\s*[:=]\s*['\"]?[^\s'\",}]+")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@")
# Key formats of the common providers and of GitHub tokens.
_KEY_FORMATS = re.compile(
    r"\b(sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16})"
)
# Environment variables whose values are secrets: the provider keys litellm reads, tokens.
_SECRET_NAMES = re.compile(r"(?i)(_API_KEY|_TOKEN|_SECRET|_PASSWORD|API_KEY|ACCESS_KEY)$")
REDACTED = "***"


def strip_markers(text: str) -> str:
    """``text`` without HTML comments (where hidden markers live)."""
    return _HTML_COMMENT.sub("", text)


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the secret-looking variables in ``environ`` (default: the process's),
    longest first, ignoring ones too short to be a real secret."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if _SECRET_NAMES.search(k) and len(v.strip()) >= 8}
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with known secret values, credentials in URLs, auth headers, bearer tokens
    and well-known key formats replaced by ``***``."""
    for value in secret_values() if secrets is None else secrets:
        text = text.replace(value, REDACTED)
    text = _URL_CREDENTIALS.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}: {REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return _KEY_FORMATS.sub(REDACTED, text)
