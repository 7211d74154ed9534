"""Which findings stay quiet in test code.

Tests, fixtures and examples are written to exercise code, not to run in production: they
skip timeouts, ignore errors, loop over queries, configure apps insecurely and feed request
data through test clients on purpose, and Go names test cases ``TestX_y``. A comment on them
costs a reviewer's trust and protects nothing, so these rules are quiet in test files
(``placeholders.is_test_path``): their records say ``quiet_in_tests: true``. Rules about code
that ships from a test all the same, such as a real token format, stay on.
"""

from __future__ import annotations

from code_guard.knowledge.mapping import lookup


def quiet_in_tests(tool: str, rule: str) -> bool:
    """True when a hit of ``tool``'s ``rule`` is not reported in test code."""
    record = lookup(tool, rule)
    return record is not None and record.quiet_in_tests
