"""Semgrep's taint findings on Python, weighed against the Python taint check's proof.

Both start from the same security model (knowledge/security/python.yml): the same request
sources and the same library sanitisers. The Python check proves more: a validator or a
sanitiser the change itself defines counts there when its body proves it (cleaners.py,
checks.py), and a guard only where it controls the path to the sink. Semgrep's rules cannot
read a body, so they flag a redirect through the project's own `get_safe_redirect`.

A Semgrep taint finding is held back only on this proof, none of it a name or a shape the
author picks: the Python check analysed the very value Semgrep's sink reads (the same file
and the same span, line and column), found request data reaching it, and proved every such
flow stopped for the finding's category; and every way into that value is one the Python
check follows (``taint._followed``: no field, item, in-place change, ``global`` or binding
form it does not read), so that no flow Semgrep saw can have escaped it. Anything less and
Semgrep's finding stands.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from code_guard.findings import Silencing
from code_guard.knowledge.security.model import load_model
from code_guard.tools.base import ToolHit

_PROOFS = frozenset({Silencing.GUARD.value, Silencing.SANITISER.value})
_SEMGREP = "semgrep"
_TAINT = "python-taint"


@functools.cache
def _categories() -> dict[str, str]:
    """The generated Python taint rules of Semgrep, by id, and the category of each."""
    model = load_model("python")
    return {rule.id: model.kinds[rule.kind].value for rule in model.rules}


def corroborated(results: Sequence[list[ToolHit]]) -> list[list[ToolHit]]:
    """``results`` (one list of hits per tool), with each Semgrep taint hit on Python that
    the Python taint check proved stopped (above) turned into a silenced hit carrying that
    proof; every other hit unchanged."""
    proofs: dict[tuple[str, str, tuple[int, ...]], ToolHit] = {}
    live: set[tuple[str, str, tuple[int, ...]]] = set()
    for hits in results:
        for hit in hits:
            if hit.tool != _TAINT or not hit.rule.startswith("taint-") or not hit.span:
                continue
            key = (hit.file_path, hit.rule.removeprefix("taint-"), tuple(hit.span))
            if hit.silenced in _PROOFS:
                proofs[key] = hit
            elif not hit.silenced:
                live.add(key)
    if not proofs:
        return [list(hits) for hits in results]
    rules = _categories()
    out: list[list[ToolHit]] = []
    for hits in results:
        kept: list[ToolHit] = []
        for hit in hits:
            category = rules.get(hit.rule) if hit.tool == _SEMGREP and not hit.silenced else None
            key = (hit.file_path, category or "", tuple(hit.span))
            proof = proofs.get(key) if category and hit.span and key not in live else None
            if proof is not None:
                reason = f"the Python taint check follows every flow into it: {proof.message}"
                hit = dataclasses.replace(hit, silenced=proof.silenced, message=reason)
            kept.append(hit)
        out.append(kept)
    return out
