"""Which reviewed files hold code that no code analyser reads, and whether a model read them.

Offline, a Java or Ruby file gets the secret scan only: nothing looked at its code, so a
servlet with a path traversal would pass as "reviewed, no findings". Each such file is named
with its language (``languages.py`` says which analysers read which language); a review where
one went unread is partial, unless a model read the file, which then was its only reader.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from code_guard.findings import AgentReport, AgentState, UnreadCode
from code_guard.languages import SECRET_SCAN, Kind, interpreted_language, language_of


def find_unread(
    reports: Sequence[AgentReport], files: Sequence[str], first_line: Callable[[str], str]
) -> tuple[UnreadCode, ...]:
    """Each of ``files`` that holds code no code analyser reads, with why, and whether an
    agent's model read it (the agent ran its model and did not list the file as not sent for
    a cap or a failure). ``first_line`` gives a file's first line, where a ``#!`` line says
    what runs a file whose name says nothing."""
    secrets_ran = any(SECRET_SCAN in r.status.tools for r in reports)
    found = []
    for path in files:
        unread = _unread_language(path, first_line)
        if unread is None:
            continue
        language, why = unread
        model_read = any(_model_read(r, path) for r in reports)
        found.append(
            UnreadCode(
                path=path,
                language=language,
                reason=_reason(why, model_read=model_read, secrets_ran=secrets_ran),
                model_read=model_read,
            )
        )
    return tuple(found)


def _unread_language(path: str, first_line: Callable[[str], str]) -> tuple[str, str] | None:
    """The language of ``path``'s code and why no analyser reads it, or None when one does
    or it is not code. The analysers choose files by suffix, so a script named without one
    is read by none, whatever its language."""
    language = language_of(path)
    if language is not None:
        if language.kind is not Kind.CODE or language.code_analysed:
            return None
        return language.name, f"no code analyser reads {language.name}"
    interpreted = interpreted_language(first_line(path))
    if interpreted is None:
        return None
    return interpreted, (
        f"no code analyser reads a {interpreted} file named without its suffix "
        "(its #! line says what runs it)"
    )


def _model_read(report: AgentReport, path: str) -> bool:
    """Whether ``report``'s agent had its model read ``path``. A file an incremental review
    left out on purpose (deliberately not sent) was read by the model at an earlier commit."""
    status = report.status
    if status.model is None or status.state is not AgentState.OK:
        return False
    return not any(f.path == path and not f.deliberate for f in status.not_sent)


def _reason(why: str, *, model_read: bool, secrets_ran: bool) -> str:
    if model_read:
        return f"{why}; the model was the only reader of its code"
    return f"{why}; only the secret scan ran" if secrets_ran else f"{why}; nothing read its code"


def outcome_reasons(unread: Sequence[UnreadCode]) -> list[str]:
    """One reason per file whose code nothing read: each makes the review partial."""
    return [f"{u.path} was not analysed for code: {u.reason}" for u in unread if not u.model_read]


def summary_sentence(unread: Sequence[UnreadCode]) -> str:
    """A sentence naming the languages whose code went unread, and those only a model read;
    empty when there are none."""
    text = ""
    if unread_by_all := Counter(u.language for u in unread if not u.model_read):
        text += f" Code not analysed (no analyser reads it): {_languages(unread_by_all)}."
    if model_only := Counter(u.language for u in unread if u.model_read):
        text += f" Read by the model only (no analyser reads it): {_languages(model_only)}."
    return text


def _languages(counts: Counter[str]) -> str:
    named = sorted(counts.items())
    return ", ".join(f"{name} ({n} file{'s' if n > 1 else ''})" for name, n in named)
