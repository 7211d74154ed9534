"""Text the pull request controls costs time in proportion to its size, never more.

Two cases from an audit: redacting a SARIF log of 100 long dotted imports took 3.8 s (a
quadratic regex), and an error message about a config value nested through YAML anchors took
exponential time (its repr was built in full before being cut). ``tests/test_regex_fuzz.py``
covers every regex; these reproduce the two cases, the second through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cputime import cpu_budget, cpu_seconds

from code_guard.cli import main
from code_guard.errors import ConfigError
from code_guard.options import _shown, build_options
from code_guard.trust.sanitize import redact

CLEAN_DIFF = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+Remember the milk.\n"


def dotted_imports_sarif(count: int) -> str:
    """A SARIF-like log whose messages quote ``count`` long dotted imports."""
    name = ".".join(f"module{i}" for i in range(300))
    results = [{"message": {"text": f"import {name}.m{n}"}} for n in range(count)]
    return json.dumps({"runs": [{"results": results}]}, indent=2)


def test_redacting_long_dotted_names_is_linear() -> None:
    small, big = dotted_imports_sarif(10), dotted_imports_sarif(100)
    small_s, big_s = cpu_seconds(lambda: redact(small), 3), cpu_seconds(lambda: redact(big), 3)
    # 10x the text: linear is ~10x; the quadratic pattern was ~100x. Under 0.05 s the big
    # case is fast whatever the ratio says (it took 3.8 s).
    assert big_s < 0.05 or big_s < 30 * small_s, (small_s, big_s)
    assert redact(big) == big


def nested_anchors(levels: int, width: int = 10) -> str:
    """A YAML config whose ``agents`` holds an alias repeated ``width`` times per level, to
    ``levels`` levels: a few hundred bytes that stand for ``width ** levels`` strings."""
    lines = ["agents:", "  - &x0 [" + ", ".join(["security"] * width) + "]"]
    lines += [
        f"  - &x{level} [" + ", ".join([f"*x{level - 1}"] * width) + "]"
        for level in range(1, levels + 1)
    ]
    return "\n".join(lines) + "\n"


def test_a_bad_value_is_shown_short_and_at_once_however_deeply_it_nests() -> None:
    value = yaml.safe_load(nested_anchors(9))["agents"]  # 10**10 strings, if expanded
    with cpu_budget(2.0):  # microseconds; in full it would take hours
        shown = _shown(value)
    assert len(shown) <= 60 and shown.startswith("[['security'")
    with cpu_budget(2.0), pytest.raises(ConfigError, match=r"^invalid agents: nested lists"):
        build_options({"agents": value})


@pytest.mark.parametrize("value", ["x" * 10_000, list(range(10_000)), {"k": "v" * 10_000}])
def test_a_shown_value_is_at_most_60_characters(value: object) -> None:
    assert len(_shown(value)) <= 60


def test_a_credential_in_a_long_value_is_redacted_before_it_is_cut() -> None:
    url = "http://user:" + "p" * 80 + "@models.example/v1"
    shown = _shown(url)
    assert "ppppp" not in shown and len(shown) <= 60


def test_the_cli_rejects_a_config_of_nested_anchors_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = tmp_path / "change.diff"
    diff.write_text(CLEAN_DIFF, encoding="utf-8")
    config = tmp_path / "guard.yml"
    config.write_text(nested_anchors(9), encoding="utf-8")
    with cpu_budget(10.0):
        code = main(["review", str(diff), "--config", str(config)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("code-guard: error: invalid agents: nested lists or mappings")
    assert err.count("\n") == 1 and len(err) < 200
