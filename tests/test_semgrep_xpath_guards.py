"""XPath injection: a value kept free of quotes cannot leave the quoted literal it is put in
(SonarSource RSPEC S2091's validation, ESAPI's encodeForXPath); the unguarded twin fires."""

from __future__ import annotations

from pathlib import Path

import pytest
from semgrep_snippets import assert_reported, line_containing, run_snippets

from code_guard.models import Category

HEAD = """\
import lxml.etree
from flask import request


def find(root):
    name = request.args.get("name", "")
"""
REJECTED = """\
    if "'" in name:
        return "no quotes"
    return root.xpath(f"/users/user[@name='{name}']")  # sink
"""
RAISED = """\
    if '"' in name:
        raise ValueError(name)
    return root.xpath('/users/user[@name="' + name + '"]')  # sink
"""
REPLACED = """\
    return root.xpath(f"/users/user[@name='{name.replace("'", "&apos;")}']")  # sink
"""
SAFE = {"rejected": REJECTED, "raised": RAISED, "replaced": REPLACED}
# The twins: the check does not stop the request, or cleans another character.
TAINTED = {
    "rejected": REJECTED.replace('        return "no quotes"\n', '        print("quote")\n'),
    "raised": RAISED.replace("if '\"' in name", "if '\"' in name.upper()").replace(
        "raise ValueError(name)", "print(name)"
    ),
    "replaced": REPLACED.replace('"\'", "&apos;"', '"<", "&lt;"'),
}


@pytest.mark.parametrize("case", sorted(SAFE))
def test_a_value_kept_free_of_quotes_is_not_reported(tmp_path: Path, case: str) -> None:
    safe, tainted = HEAD + SAFE[case], HEAD + TAINTED[case]
    hits = run_snippets(tmp_path, {"safe.py": safe, "tainted.py": tainted})
    assert [h for h in hits["safe.py"] if h.rule == "py-xpath-injection-taint"] == []
    sink = line_containing(tainted, "# sink")
    assert_reported(hits["tainted.py"], sink, "py-xpath-injection-taint", Category.OTHER)
