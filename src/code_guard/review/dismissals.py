"""Dismissed findings: a trusted person's reasoned decision, applied to a review.

Only proof silences, and a trusted person's reasoned decision is proof. A dismissal never
removes a finding: the finding stays in every output, marked with who dismissed it, when,
of which kind and why, and it no longer counts for ``fail-on`` or the verdict
(``findings.at_or_above`` leaves dismissed findings out). It is matched by the finding's
fingerprint (file, category and the anchored line's text), so it survives line moves, and a
finding whose line changes is a new finding that gates again.

Dismissals come from two places: commands in the pull request's comments
(``github.dismissals``), and the base branch's ``.code-guard/dismissals.yml``, read here. The
file is validated entry by entry: a bad entry is one clear line and the others still count.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import yaml
from pydantic import Field, ValidationError

from code_guard.findings import Dismissal, DismissalKind, Finding, Frozen, Review, Severity
from code_guard.knowledge.loading import load_yaml
from code_guard.review.synthesizer import health_score, verdict

DISMISSALS_FILE = ".code-guard/dismissals.yml"
SHORT_ID_CHARS = 8
# A file larger than this is refused whole: it is read on every review.
MAX_FILE_ENTRIES = 1000


def short_id(fingerprint: str) -> str:
    """The finding's id as people type it: the first 8 hex digits of its fingerprint."""
    return fingerprint[:SHORT_ID_CHARS]


def rule_name(finding: Finding) -> str:
    """The rule a dismissals file entry names: the finding's category (its SARIF rule is
    ``code-guard/<category>``)."""
    return finding.category.value


def apply_dismissals(
    review: Review,
    dismissals: Mapping[str, Dismissal],
    fail_on: Severity | None,
    *,
    count_disputed: bool = True,
) -> Review:
    """``review`` with each finding whose fingerprint ``dismissals`` holds marked dismissed,
    and the verdict and health score taken again without the dismissed ones. A dismissal the
    findings already carried (a record of an earlier run) is dropped unless ``dismissals``
    holds it again: every run judges its dismissals afresh."""
    if not any(f.fingerprint in dismissals or f.dismissal for f in review.findings):
        return review
    findings = tuple(
        f.model_copy(update={"dismissal": dismissals.get(f.fingerprint)}) for f in review.findings
    )
    standing = [f for f in findings if f.dismissal is None]
    return review.model_copy(
        update={
            "findings": findings,
            "health_score": health_score(standing),
            "verdict": verdict(findings, review.complete, fail_on, count_disputed=count_disputed),
        }
    )


class FileEntry(Frozen):
    """One entry of the dismissals file: which finding, and the decision about it."""

    fingerprint: str = Field(pattern=r"^[0-9a-f]{16}$")
    rule: str = Field(min_length=1, max_length=100)
    path: str = Field(min_length=1, max_length=1000)
    kind: DismissalKind
    reason: str = Field(min_length=1, max_length=500)
    by: str = Field(min_length=1, max_length=100)
    expires: dt.date | None = None


@dataclass(frozen=True, slots=True)
class FileDismissals:
    """What the dismissals file holds: its valid, unexpired entries, and one line per problem."""

    entries: tuple[FileEntry, ...] = ()
    problems: tuple[str, ...] = ()


def read_dismissals_file(text: str, today: dt.date, name: str = DISMISSALS_FILE) -> FileDismissals:
    """Parse the dismissals file ``text``: a mapping with a ``dismissals`` list of entries.

    A file that does not read is one problem and no entry; a bad or expired entry is one
    problem each, and the others count.
    """
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        return FileDismissals(problems=(f"{name} is not valid YAML{where}; it was not read",))
    if data is None:
        return FileDismissals()
    if not isinstance(data, dict) or set(data) - {"version", "dismissals"}:
        return FileDismissals(
            problems=(f"{name} must be a mapping with a `dismissals` list; it was not read",)
        )
    raw = data.get("dismissals") or []
    if not isinstance(raw, list) or len(raw) > MAX_FILE_ENTRIES:
        limit = f"a list of at most {MAX_FILE_ENTRIES} entries"
        return FileDismissals(problems=(f"{name}: `dismissals` must be {limit}; not read",))
    entries: list[FileEntry] = []
    problems: list[str] = []
    for number, item in enumerate(raw, start=1):
        try:
            entry = FileEntry.model_validate(item)
        except ValidationError as exc:
            problems.append(f"{name} entry {number}: {_first_error(exc)}; not honoured")
            continue
        if entry.expires is not None and entry.expires < today:
            problems.append(
                f"{name} entry {number} ({short_id(entry.fingerprint)}) expired on "
                f"{entry.expires.isoformat()}; not honoured"
            )
            continue
        entries.append(entry)
    return FileDismissals(tuple(entries), tuple(problems))


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "entry"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if first["loc"] else message


def match_file_entries(
    entries: Sequence[FileEntry], findings: Sequence[Finding], name: str = DISMISSALS_FILE
) -> tuple[dict[str, Dismissal], tuple[str, ...]]:
    """The dismissals the file's ``entries`` make for ``findings``, by fingerprint, and one
    problem per entry whose fingerprint matches a finding of another rule or path (a
    mistyped entry must not dismiss something else). Entries matching no finding are
    simply not used: most describe code this pull request does not touch."""
    by_fp = {f.fingerprint: f for f in findings}
    dismissed: dict[str, Dismissal] = {}
    problems: list[str] = []
    for entry in entries:
        finding = by_fp.get(entry.fingerprint)
        if finding is None:
            continue
        if (entry.rule, entry.path) != (rule_name(finding), finding.file_path):
            problems.append(
                f"{name}: the entry for {short_id(entry.fingerprint)} names "
                f"{entry.rule} in {entry.path}, but that finding is {rule_name(finding)} in "
                f"{finding.file_path}; not honoured"
            )
            continue
        dismissed[entry.fingerprint] = Dismissal(
            kind=entry.kind, reason=entry.reason, by=entry.by, source=name
        )
    return dismissed, tuple(problems)


def file_entry(finding: Finding, dismissal: Dismissal) -> FileEntry:
    """The dismissals file entry that would keep ``dismissal`` of ``finding`` on every
    pull request."""
    return FileEntry(
        fingerprint=finding.fingerprint,
        rule=rule_name(finding),
        path=finding.file_path,
        kind=dismissal.kind,
        reason=dismissal.reason,
        by=dismissal.by,
    )


def entries_yaml(entries: Sequence[FileEntry]) -> str:
    """``entries`` as the YAML list items to add under ``dismissals:``."""
    data = [e.model_dump(mode="json", exclude_none=True) for e in entries]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
