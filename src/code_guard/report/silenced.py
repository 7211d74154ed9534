"""What a review held back on proof, in the words every renderer shares: the count per
mechanism, and one line per silenced candidate."""

from __future__ import annotations

from collections.abc import Mapping

from code_guard.findings import Review, Silenced, Silencing

# Where a listed candidate is explained, as the command line and the action both name it.
SHOW_SILENCED = "show-silenced"


def silenced_total(review: Review) -> int:
    """How many candidates the review held back on proof."""
    return sum(review.silenced.values())


def breakdown(counts: Mapping[Silencing, int]) -> str:
    """``pre-existing 9, test-file 3``: each mechanism that silenced something, most first
    (ties by name)."""
    shown = sorted((m for m, n in counts.items() if n), key=lambda m: (-counts[m], m.value))
    return ", ".join(f"{m.value} {counts[m]}" for m in shown)


def count_line(review: Review) -> str | None:
    """``12 candidate(s) silenced on proof (pre-existing 9, test-file 3)``, or None when the
    review silenced nothing."""
    total = silenced_total(review)
    if not total:
        return None
    disabled = review.silenced.get(Silencing.DISABLED, 0)
    if disabled:  # the owner's choice is no proof: say which is which
        return (
            f"{total} candidate(s) held back: {disabled} by disable-rules, the rest on proof "
            f"({breakdown(review.silenced)})"
        )
    return f"{total} candidate(s) silenced on proof ({breakdown(review.silenced)})"


def record_line(record: Silenced) -> str:
    """``path:line mechanism tool:rule — reason``, for a person reading a list."""
    return (
        f"{record.file_path}:{record.line} {record.mechanism.value} "
        f"{record.tool}:{record.rule} — {record.reason}"
    )
