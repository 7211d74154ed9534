"""The eval case format, validated where it enters, and the listing and sharding of case files.

A case is one JSON file at the top level of a dataset directory (sub-folders such as
``dataset/sources/`` hold authoring material, not cases) with ``pr_id``, ``diff`` (a unified
diff), ``file_contents`` (path to the full text after the PR) and ``expected_findings`` (the
ground truth: file, line and category only, because severity and wording are subjective).

A dataset that cannot be listed at all raises ``DatasetError``. One malformed case raises
``CaseError`` naming the file and the reason; the runner records it and goes on with the others.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field, StrictInt, ValidationError, model_validator

from code_guard.errors import ConfigError, DatasetError
from code_guard.findings import Category, Frozen

# Strict: a line given as "5" or 5.0 is a mistake in the ground truth, not something to coerce.
ExpectedLine = Annotated[StrictInt, Field(ge=1)]


class ExpectedFinding(Frozen):
    """One ground-truth issue: a file, a line of its new version, and a category."""

    file_path: str = Field(min_length=1)
    line_start: ExpectedLine
    category: Category


class EvalCase(Frozen):
    """One eval case: a change, the files after it, and the findings a reviewer should report."""

    pr_id: str = Field(min_length=1)
    diff: str
    file_contents: dict[str, str]
    expected_findings: tuple[ExpectedFinding, ...]

    @model_validator(mode="after")
    def _expected_lines_exist(self) -> EvalCase:
        # An expected finding outside the files can never be matched: it would count as a
        # false negative forever and silently depress recall.
        for index, expected in enumerate(self.expected_findings):
            text = self.file_contents.get(expected.file_path)
            if text is None:
                raise ValueError(
                    f"expected_findings.{index}: {expected.file_path!r} is not in file_contents"
                )
            if expected.line_start > len(text.splitlines()):
                raise ValueError(
                    f"expected_findings.{index}: line {expected.line_start} is past the end "
                    f"of {expected.file_path}"
                )
        return self


class CaseError(Exception):
    """A case file that is unreadable or invalid; ``file`` is its name, ``reason`` says why.

    Not a ``CodeGuardError``: it never reaches the user as a fatal error, it becomes the
    ``error`` of that case's result.
    """

    def __init__(self, file: str, reason: str) -> None:
        super().__init__(f"{file}: {reason}")
        self.file = file
        self.reason = reason


def load_case(path: Path) -> EvalCase:
    """Read and validate one case file, raising ``CaseError`` with a one-line reason."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise CaseError(path.name, f"cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise CaseError(path.name, f"not UTF-8 at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise CaseError(
            path.name, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    try:
        return EvalCase.model_validate(data)
    except ValidationError as exc:
        raise CaseError(path.name, _describe(exc)) from exc


def _describe(exc: ValidationError, limit: int = 3) -> str:
    """Summarise pydantic's errors as ``where: what`` parts on one line."""
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"])
        parts.append(f"{where}: {error['msg']}" if where else str(error["msg"]))
    more = exc.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def list_case_files(directory: Path) -> tuple[Path, ...]:
    """Return the dataset's case files (top-level ``*.json``), sorted by name.

    Raises ``DatasetError`` when the directory is missing, unreadable or holds no case.
    """
    if not directory.is_dir():
        raise DatasetError(f"dataset directory {directory} does not exist or is not a directory")
    try:
        files = sorted(
            (p for p in directory.iterdir() if p.suffix == ".json" and p.is_file()),
            key=lambda p: p.name,
        )
    except OSError as exc:
        raise DatasetError(f"cannot read dataset directory {directory}: {exc.strerror}") from exc
    if not files:
        raise DatasetError(f"dataset directory {directory} holds no case files (*.json)")
    return tuple(files)


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based): case file k (0-based, sorted) goes to k % count."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ConfigError(f"invalid shard {self.index}/{self.count}: need 1 <= I <= N")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """Parse ``I/N`` (for example ``2/4``), raising ``ConfigError``."""
        index, sep, count = text.partition("/")
        if not sep or not index.strip().isdigit() or not count.strip().isdigit():
            raise ConfigError(f"invalid shard {text!r}: expected I/N, for example 2/4")
        return cls(int(index), int(count))

    def select(self, files: Sequence[Path]) -> tuple[Path, ...]:
        """Return this shard's files out of the sorted list of all case files."""
        return tuple(f for k, f in enumerate(files) if k % self.count == self.index - 1)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
