"""Property test of the action entrypoint with the real engine against the GitHub stand-in:
whatever the pull request's files are called and hold, the run ends with a review or a clear
``::error::`` line, never an internal error, and every request fits GitHub's OpenAPI contract.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from ghfakes import FAST_RETRY, TOKEN
from ghrunner import runner_environ
from ghstandin import FIXTURES, GitHubStandIn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from code_guard.github.action import main
from code_guard.github.services import default_services

EXAMPLES = max(int(os.environ.get("CODE_GUARD_FUZZ_EXAMPLES", "150")) // 100, 8)

# Names a file system and a URL can carry, with the shapes that broke reviews before.
component = st.one_of(
    st.sampled_from(["x", "x.py", "a b.py", "caf\u00e9.py", "配置.py", "a" * 120 + ".py"]),
    st.text(st.characters(whitelist_categories=["L", "N"]), min_size=1, max_size=10),
)
path = st.lists(component, min_size=1, max_size=3).map("/".join)
line = st.one_of(
    st.sampled_from(['x = eval(input())', 'KEY = "AKIAIOSFODNN7EXAMPLE"', "import os", ""]),
    st.text(st.characters(blacklist_categories=["Cs", "Cc"]), max_size=40),
)
files = st.lists(
    st.tuples(path, st.lists(line, min_size=1, max_size=4)), min_size=1, max_size=3,
    unique_by=lambda entry: entry[0],
)  # fmt: skip


def new_file(name: str, lines: list[str]) -> str:
    body = "".join(f"+{text}\n" for text in lines)
    return (
        f"diff --git a/{name} b/{name}\nnew file mode 100644\n--- /dev/null\n+++ b/{name}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(entries=files)
def test_the_action_never_crashes(
    github: GitHubStandIn,
    tmp_path_factory: pytest.TempPathFactory,
    entries: list[tuple[str, list[str]]],
) -> None:
    workspace: Path = tmp_path_factory.mktemp("workspace")
    github.push(f"{len(github.requests):040x}", "".join(new_file(p, ls) for p, ls in entries))
    env = runner_environ(
        workspace, github.base_url, FIXTURES / "pull_request.opened.json", TOKEN,
        fail_on="none", on_error="warn",
    )  # fmt: skip
    out = io.StringIO()
    code = main(env, default_services(FAST_RETRY), out)
    printed = out.getvalue()
    assert code == 0, printed
    assert "internal error" not in printed
    assert github.invalid == []
