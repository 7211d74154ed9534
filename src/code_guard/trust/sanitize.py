"""Text that crosses a trust boundary, made safe: model output and everything posted.

- ``strip_markers``: a model's answer is steered by the pull request it reads, so it may carry
  this action's hidden markers (``<!-- code-guard:fp=… -->``), which would make a later run
  believe a finding was already posted. Every HTML comment is removed from model text.
- ``redact``: provider and GitHub errors can echo a request's ``Authorization`` header, a key
  or a URL with ``user:pass@``, and a model can echo a secret the pull request showed it.
  Everything printed, posted or written goes through it at the place it leaves the process
  (the GitHub client, the workflow commands, the job summary, the SARIF writer), after every
  escaping: it also finds a secret that markdown escaping has broken up (``sk\\-proj\\-…``,
  ``ghs\\_…``, ``@\u2060``), by matching a view of the text without the escapes and mapping
  each match back.
- ``redact_review``: the same for the text of a review before it is rendered, so that no
  renderer (and no cut to a size limit) can split a secret into pieces that no longer match.
- ``redact_json``: the same for every string of a JSON document before it is serialised
  (SARIF), where JSON's escapes would otherwise stand between a secret and its pattern.
- ``secret_values`` / ``masking``: the values to hide, from variable names whatever their
  spelling (``INPUT_GITHUB-TOKEN``, ``OPENAI_API_KEY``), and those the entrypoint registers.

Every pattern here runs in linear time on any input (``tests/test_regex_fuzz.py`` checks each
regex in ``src/``): a pattern starts only where a run of its characters starts, never inside
one, so a long run is read once instead of once per position.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager

from code_guard.findings import Finding, Review

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
# Group 1 of each pattern is the secret: the words around it stay, so the text still reads.
_REDACTIONS = (
    # Credentials in a URL (``scheme://user:pass@host``); the scheme starts a run of scheme
    # characters, so a long dotted name is not retried from each of its characters.
    re.compile(r"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://([^/\s:@]+:[^/\s@]+)@"),
    # Header-like assignments (``Authorization: Bearer x``, ``api-key=x``).
    re.compile(
        r"(?i)\b(?:authorization|x-api-key|api-key)\s*[:=]\s*['\"]?"
        r"(?:(?:bearer|basic|token)\s+)?([^\s'\",}]+)"
    ),
    # Authorization schemes followed by a credential (one with a digit: not an English word).
    re.compile(r"(?i)\b(?:bearer|basic|token)\s+((?=\S*\d)[A-Za-z0-9._~+/=-]{8,})"),
    # Key formats of the common providers and of GitHub tokens; a key starts a run of key
    # characters (``\b`` would also allow each ``-`` inside one).
    re.compile(
        r"(?<![A-Za-z0-9_-])(sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}"
        r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
        r"|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{30,}"
        r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"
    ),
)
_KEY_FORMAT = _REDACTIONS[-1]
# Variables whose values are secrets, whatever joins the words: ``OPENAI_API_KEY``,
# ``INPUT_GITHUB-TOKEN`` (the runner keeps an input's hyphens), ``GITHUB_TOKEN``, ``HF_TOKEN``.
_SECRET_NAMES = re.compile(
    r"(?i)(?:^|[-_.])(?:api[-_]?key|token|secret|password|passwd|pat|credentials?"
    r"|(?:access|private|secret)[-_]?key)$"
)
# A backslash escape (CommonMark escapes any ASCII punctuation; JSON escapes ``"`` and ``\``)
# or an invisible character (``report.plain`` puts a word joiner after ``@``).
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|[\u200b-\u200d\u2060\ufeff]")
REDACTED = "***"
_SHORTEST_SECRET = 8  # shorter values would hide common words; no real key is this short

# Values registered for the run (``masking``), like the runner's ``::add-mask::`` list.
_MASKED: set[str] = set()


def strip_markers(text: str) -> str:
    """``text`` without HTML comments (where hidden markers live)."""
    return _HTML_COMMENT.sub("", text)


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the secret-looking variables in ``environ`` (default: the process's),
    and the keys of well-known formats found in any action input, longest first, ignoring
    ones too short to be a real secret."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if _SECRET_NAMES.search(k)}
    for name, value in env.items():
        if name.upper().startswith("INPUT_"):
            values.update(m.group(1) for m in _KEY_FORMAT.finditer(value))
    return sorted(
        (v for v in values if len(v.strip()) >= _SHORTEST_SECRET), key=len, reverse=True
    )


@contextmanager
def masking(values: Iterable[str]) -> Iterator[None]:
    """Redact ``values`` everywhere ``redact`` runs while the block runs.

    The entrypoint registers the secrets of the environment it was given, as the runner's
    ``::add-mask::`` does for its log: a process-wide list, so that no writer can forget it.
    """
    added = {v for v in values if len(v.strip()) >= _SHORTEST_SECRET} - _MASKED
    _MASKED.update(added)
    try:
        yield
    finally:
        _MASKED.difference_update(added)


def known_secrets() -> list[str]:
    """The process's secret variables' values and those ``masking`` registered."""
    return sorted({*secret_values(), *_MASKED}, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with known secret values, credentials in URLs, auth headers, bearer tokens
    and well-known key formats replaced by ``***``, also where backslash escapes or invisible
    characters break them up.

    ``secrets`` defaults to the process's secret variables and the values ``masking``
    registered.
    """
    values = known_secrets() if secrets is None else [v for v in secrets if v]
    spans = list(_secret_spans(text, values))
    view, seats = _unescaped(text)
    if seats:  # the escapes may hide a secret: find it in the view, then map it back
        for start, end in _secret_spans(view, values):
            spans.append(
                (start + bisect.bisect_left(seats, start), end + bisect.bisect_left(seats, end))
            )
    return _replaced(text, spans)


def redact_review(review: Review) -> Review:
    """``review`` with its free text (titles, explanations, fixes, reasons) redacted."""
    values = known_secrets()

    def clean(text: str) -> str:
        return redact(text, values)

    return review.model_copy(
        update={
            "findings": tuple(_redact_finding(f, clean) for f in review.findings),
            "summary": clean(review.summary),
            "outcome_reasons": tuple(clean(r) for r in review.outcome_reasons),
            "warnings": tuple(clean(w) for w in review.warnings),
            # A pre-existing match quotes its code line, which may hold a token.
            "silenced_candidates": tuple(
                s.model_copy(update={"reason": clean(s.reason)}) for s in review.silenced_candidates
            ),
        }
    )


def redact_json(value: object, secrets: Iterable[str] | None = None) -> object:
    """``value`` (JSON-like data: dicts, lists, strings) with every string redacted."""
    values = known_secrets() if secrets is None else list(secrets)
    if isinstance(value, str):
        return redact(value, values)
    if isinstance(value, dict):
        return {key: redact_json(item, values) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(item, values) for item in value]
    return value


def _redact_finding(finding: Finding, clean: Callable[[str], str]) -> Finding:
    # model_copy keeps the fingerprint, which hashes the anchored line, not these texts.
    fix, disputed = finding.suggested_fix, finding.disputed
    return finding.model_copy(
        update={
            "title": clean(finding.title),
            "description": clean(finding.description),
            "suggested_fix": clean(fix) if fix is not None else None,
            "disputed": clean(disputed) if disputed is not None else None,
        }
    )


def _secret_spans(text: str, values: Iterable[str]) -> Iterator[tuple[int, int]]:
    """Where ``text`` holds one of ``values`` or matches a credential pattern."""
    for value in values:
        at = text.find(value)
        while at != -1:
            yield at, at + len(value)
            at = text.find(value, at + len(value))
    for pattern in _REDACTIONS:
        for match in pattern.finditer(text):
            yield match.span(1)


def _unescaped(text: str) -> tuple[str, list[int]]:
    """``text`` without its escapes, and for each character removed, how many characters of
    the view come before it (sorted), which maps a position in the view back to ``text``."""
    pieces: list[str] = []
    seats: list[int] = []
    last = kept = 0
    for match in _ESCAPE.finditer(text):
        pieces.append(text[last : match.start()])
        kept += match.start() - last
        seats.append(kept)  # the backslash or the invisible character
        last = match.start() + 1
    pieces.append(text[last:])
    return "".join(pieces), seats


def _replaced(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (merged where they overlap or touch) replaced by ``***``."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out: list[str] = []
    done = 0
    for start, end in merged:
        out += [text[done:start], REDACTED]
        done = end
    out.append(text[done:])
    return "".join(out)
