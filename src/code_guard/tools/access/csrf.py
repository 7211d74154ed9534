"""CSRF protection a change removes (the framework's middleware, ``CSRFProtect``, csurf,
gorilla/csrf, nosurf) or turns off (``csrf_exempt``, ``WTF_CSRF_ENABLED = False``), counted over
the whole file: protection moved within the file is kept, an exemption already there is not new."""

from __future__ import annotations

import re
from collections.abc import Iterator

from code_guard.change.diff import FileChange
from code_guard.tools.access.model import AccessModel
from code_guard.tools.access.sides import IMPORT, Found, Side, count, file_count, is_code


def csrf_changes(
    file: FileChange,
    base: Side,
    head: Side,
    removed: set[int],
    where: dict[int, tuple[int, bool]],
    model: AccessModel,
) -> Iterator[Found]:
    for entry in model.csrf.protect:
        rx = re.compile(entry.pattern)
        hit = next(
            (
                n
                for n in sorted(removed)
                if n in where
                and rx.search(base.lines[n - 1])
                and is_code(base.lines[n - 1])
                and not IMPORT.match(base.lines[n - 1])
            ),
            None,
        )
        if hit is None or file_count(head.lines, entry.pattern, True) >= file_count(
            base.lines, entry.pattern, True
        ):
            continue
        line, unchanged = where[hit]
        quote = base.lines[hit - 1].strip()
        yield Found(
            "csrf-protection-removed",
            line,
            f"CSRF protection removed: {entry.name} (`{quote}`) is gone",
            f"Base line {hit} turned on {entry.name}; the head file no longer does, so "
            "state-changing requests are accepted without a CSRF token.",
            quote,
            unchanged,
            removed_at=hit,
        )
    for entry in model.csrf.disable:
        rx = re.compile(entry.pattern)
        # The head holds more of it only through an added line: look there first, so the
        # whole-file counts are paid only by a change that may have added an exemption.
        if not any(rx.search(text) for text in file.added.values()):
            continue
        # Imports count: `import csrf_exempt as public` is how an exemption hides its name.
        if count(head.lines, rx) <= count(base.lines, rx):
            continue
        added = sorted(file.added.items(), key=lambda a: (bool(IMPORT.match(a[1])), a[0]))
        for number, text in added:
            if rx.search(text) and is_code(text):
                yield Found(
                    "csrf-exempted",
                    number,
                    f"CSRF protection turned off: {entry.name} (`{text.strip()}`)",
                    f"The change adds `{text.strip()}`, which turns CSRF checking off; a "
                    "state-changing request from another site is then taken as the user's.",
                    "",
                    False,
                )
                break
