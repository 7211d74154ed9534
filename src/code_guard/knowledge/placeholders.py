"""Recognising values and files that only look sensitive: test fixtures and placeholders.

Secret detectors match on names (``password = "..."``) and entropy; a senior reviewer does not
flag ``SECRET_KEY = "test-secret-key"`` or an ``assert`` in a pytest file. These predicates are
general conventions, applied to every repository alike.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "fixtures"})
_TEST_FILE = re.compile(
    r"(^test_.*\.py$)|(_test\.(py|go)$)|(\.(test|spec)\.[jt]sx?$)|(^conftest\.py$)"
)
_PLACEHOLDER_WORDS = re.compile(
    r"test|dummy|placeholder|example|sample|changeme|change-me|fake|mock|dev-|local|"
    r"your[-_]|<|\$\{|\{\{|xxx|\*\*\*",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"""(["'])(?P<value>(?:(?!\1).){0,200})\1""")


def is_test_dir(name: str) -> bool:
    """True for a folder name that holds tests or test fixtures by the usual conventions."""
    return name.lower() in _TEST_DIRS


def is_test_path(path: str) -> bool:
    """True for files that look like tests or test fixtures by the usual naming conventions.

    This is the path's word only: production code may live under such a name. The rules
    quiet in tests ask ``testfiles.TestFiles``, which also shows no production file of the
    change loads the file.
    """
    pure = PurePosixPath(path)
    return any(is_test_dir(p) for p in pure.parts[:-1]) or bool(_TEST_FILE.search(pure.name))


def is_placeholder_value(line: str) -> bool:
    """True when every string literal on ``line`` is a placeholder rather than a credential.

    Empty values, values naming themselves as test/example/dummy data, and template
    references (``${VAR}``, ``{{ var }}``) are placeholders. A line without a literal (a value
    read from the environment) is not a hard-coded secret either. Short values are not
    exempt: ``password = "s3cr3t"`` is exactly the mistake to catch.
    """
    values = [m.group("value") for m in _QUOTED.finditer(line)]
    if not values:
        return True
    return all(not v.strip() or _PLACEHOLDER_WORDS.search(v) for v in values)
