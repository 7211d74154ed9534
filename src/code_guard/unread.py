"""Which reviewed files hold code that no code analyser reads, and whether a model read them.

Offline, a Java or Ruby file gets the secret scan only: nothing looked at its code, so a
servlet with a path traversal would pass as "reviewed, no findings". Each such file is named
with its language (``languages.py`` says which analysers read which language); a review where
one went unread is partial, unless a model read the file, which then was its only reader.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from code_guard.languages import SECRET_SCAN, unread_code
from code_guard.models import AgentReport, AgentState, UnreadCode


def find_unread(reports: Sequence[AgentReport], files: Sequence[str]) -> tuple[UnreadCode, ...]:
    """Each of ``files`` in a language no code analyser reads, with why, and whether an agent's
    model read it (the agent ran its model and did not list the file as not sent for a cap or
    a failure)."""
    secrets_ran = any(SECRET_SCAN in r.status.tools for r in reports)
    found = []
    for path in files:
        language = unread_code(path)
        if language is None:
            continue
        model_read = any(_model_read(r, path) for r in reports)
        found.append(
            UnreadCode(
                path=path,
                language=language.name,
                reason=_reason(language.name, model_read=model_read, secrets_ran=secrets_ran),
                model_read=model_read,
            )
        )
    return tuple(found)


def _model_read(report: AgentReport, path: str) -> bool:
    """Whether ``report``'s agent had its model read ``path``. A file an incremental review
    left out on purpose (deliberately not sent) was read by the model at an earlier commit."""
    status = report.status
    if status.model is None or status.state is not AgentState.OK:
        return False
    return not any(f.path == path and not f.deliberate for f in status.not_sent)


def _reason(language: str, *, model_read: bool, secrets_ran: bool) -> str:
    head = f"no code analyser reads {language}"
    if model_read:
        return f"{head}; the model was the only reader of its code"
    return f"{head}; only the secret scan ran" if secrets_ran else f"{head}; nothing read its code"


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
