"""The runner's protocols: workflow commands on stdout, ``$GITHUB_OUTPUT``, the step summary.

Escaping follows the workflow-command spec as ``@actions/core`` implements it: the message
escapes ``%``, ``\\r`` and ``\\n``; property values also escape ``:`` and ``,``. Without it a
finding whose text holds a newline could end the command early and inject another one.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path

from code_guard.findings import Finding, Severity
from code_guard.trust.sanitize import redact, secret_values

STEP_SUMMARY_LIMIT = 1024 * 1024  # GitHub drops a step summary over 1 MiB
_TRUNCATED = "\n\n*(truncated to fit GitHub's 1 MiB job summary limit)*\n"

_LEVELS = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "notice",
    Severity.INFO: "notice",
}


def escape_data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, properties: Mapping[str, object] | None = None) -> str:
    """Format one workflow command line, e.g. ``::error file=a.py,line=3::message``.

    The message and the properties are redacted (keys, tokens, credentials in URLs): they
    land in the log and in annotations. ``add-mask`` is the exception, since its message is
    the secret to mask.
    """
    props = ",".join(
        f"{k}={escape_property(redact(str(v)))}" for k, v in (properties or {}).items()
    )
    text = message if name == "add-mask" else redact(message)
    return f"::{name}{' ' + props if props else ''}::{escape_data(text)}"


def mask_commands(environ: Mapping[str, str], token: str) -> list[str]:
    """``::add-mask::`` for the GitHub token and every secret-looking variable, so the
    runner hides them from the log whatever prints them later."""
    values = [token, *secret_values(environ)] if token else secret_values(environ)
    return [command("add-mask", value) for value in dict.fromkeys(values) if value.strip()]


# GitHub shows at most this many annotations of each level per step and drops the rest.
ANNOTATIONS_PER_LEVEL = 10


def annotation_lines(findings: Sequence[Finding]) -> list[str]:
    """Annotation commands for ``findings``, at most ``ANNOTATIONS_PER_LEVEL`` per level (the
    worst first), then one notice naming how many were left out and where they are."""
    shown: dict[str, int] = {}
    lines: list[str] = []
    left_out = 0
    for finding in sorted(findings, key=lambda f: f.sort_key):
        level = _LEVELS[finding.severity]
        if shown.get(level, 0) >= ANNOTATIONS_PER_LEVEL:
            left_out += 1
            continue
        shown[level] = shown.get(level, 0) + 1
        lines.append(annotation(finding))
    if left_out:
        lines.append(
            command(
                "notice",
                f"{left_out} more findings are not shown as annotations (GitHub shows "
                f"{ANNOTATIONS_PER_LEVEL} per level); all are in the job summary and the SARIF "
                "file",
            )
        )
    return lines


def annotation(finding: Finding) -> str:
    """An annotation for ``finding``: error for high and critical, warning, or notice."""
    message = finding.description or finding.title
    if finding.suggested_fix:
        message += f"\n\nSuggested fix:\n{finding.suggested_fix}"
    properties = {
        "file": finding.file_path,
        "line": finding.line_start,
        "endLine": finding.line_end,
        "title": f"[{finding.severity.value}] {finding.title}",
    }
    return command(_LEVELS[finding.severity], message, properties)


def write_outputs(path: Path | None, outputs: Mapping[str, str]) -> None:
    """Append step outputs to ``$GITHUB_OUTPUT`` in the heredoc form, safe for any value."""
    if path is None:
        return
    lines = []
    for name, value in outputs.items():
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value:  # astronomically unlikely, but then the value would leak out
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines))


def fit_summary(markdown: str, limit: int = STEP_SUMMARY_LIMIT) -> str:
    """Cut ``markdown`` to ``limit`` UTF-8 bytes, saying so, without splitting a character."""
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    room = limit - len(_TRUNCATED.encode("utf-8"))
    return data[:room].decode("utf-8", errors="ignore") + _TRUNCATED


def write_step_summary(path: Path | None, markdown: str) -> None:
    """Append ``markdown``, redacted and cut to 1 MiB, to ``$GITHUB_STEP_SUMMARY``.

    Redacted before the cut, which could otherwise leave half a secret that no longer matches.
    """
    if path is None:
        return
    with path.open("a", encoding="utf-8") as handle:
        handle.write(fit_summary(redact(markdown)))
