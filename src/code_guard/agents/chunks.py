"""Spreading an agent's files and candidates over model calls that each fit the model.

Files go in the order the engine gives (riskiest first), each as its fenced diff and context,
with the tool candidates on it. A call takes files while they fit the room left in the
model's context and at most ``max_candidates`` candidates, the answer schema's limit. A file
whose candidates do not fit one call is repeated in as many calls as its candidates need.
Nothing is dropped for size: a file too large for a call on its own is cut to fit, and only
a context too small for any file at all leaves files out, each named by the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Counter = Callable[[str], int]

# Below this, a file part would be too cut down to review: the file is named as not sent.
MIN_PART_TOKENS = 256


@dataclass(frozen=True, slots=True)
class Part:
    """One file as the model sees it, and what it costs in tokens."""

    path: str
    text: str
    tokens: int


@dataclass(frozen=True, slots=True)
class Candidate:
    """One tool candidate: its index in the agent's list, its file and its prompt cost."""

    index: int
    path: str
    tokens: int


@dataclass(slots=True)
class Chunk:
    """The files and candidates of one model call."""

    parts: list[Part] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)
    tokens: int = 0

    def fits(self, tokens: int, candidates: int, room: int, max_candidates: int) -> bool:
        """Whether ``tokens`` more and ``candidates`` more still fit this call."""
        return self.tokens + tokens <= room and len(self.candidates) + candidates <= max_candidates


def cut_to_fit(text: str, budget: int, count: Counter) -> str:
    """``text`` cut at a line end so that it counts at most ``budget`` tokens, marked as cut."""
    if count(text) <= budget:
        return text
    marker = "\n  ... (cut to fit the model's context)"
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits, by bisection on characters
        middle = (low + high + 1) // 2
        if count(text[:middle] + marker) <= budget:
            low = middle
        else:
            high = middle - 1
    cut = text[:low]
    if "\n" in cut:
        cut = cut[: cut.rindex("\n")]
    return cut + marker


def plan(
    parts: Sequence[Part],
    candidates: Sequence[Candidate],
    room: int,
    max_candidates: int,
) -> tuple[list[Chunk], list[str]]:
    """Spread ``parts`` and their ``candidates`` over calls of at most ``room`` tokens each.

    Returns the calls and the paths of files that could not be sent (a part larger than the
    room; callers cut parts to fit first, so this only happens when the room is tiny).
    """
    by_path: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        by_path.setdefault(candidate.path, []).append(candidate)
    chunks: list[Chunk] = []
    not_sent: list[str] = []
    for part in parts:
        if part.tokens > room:
            not_sent.append(part.path)
            continue
        for group in _groups(by_path.get(part.path, []), room - part.tokens, max_candidates):
            cost = part.tokens + sum(c.tokens for c in group)
            if not chunks or not chunks[-1].fits(cost, len(group), room, max_candidates):
                chunks.append(Chunk())
            chunk = chunks[-1]
            if part not in chunk.parts:
                chunk.parts.append(part)
            chunk.candidates.extend(c.index for c in group)
            chunk.tokens += cost
    return chunks, not_sent


def _groups(
    candidates: Sequence[Candidate], room: int, max_candidates: int
) -> list[list[Candidate]]:
    """The file's candidates in groups that each fit one call beside the file (one empty group
    for a file without candidates). A candidate larger than the room on its own still gets a
    group: its line is cut short in the prompt anyway."""
    groups: list[list[Candidate]] = [[]]
    used = 0
    for candidate in candidates:
        if groups[-1] and (used + candidate.tokens > room or len(groups[-1]) >= max_candidates):
            groups.append([])
            used = 0
        groups[-1].append(candidate)
        used += candidate.tokens
    return groups
