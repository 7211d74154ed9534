"""Tests of the command line: exit codes, one-line errors, output formats, stdin and --root.

``main(argv)`` runs in-process; one test runs ``python -m code_guard`` to prove the entry point.
Most diffs touch plain-text files, which only detect-secrets (in-process) reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator  # type: ignore[import-untyped]  # no stubs pinned
from processes import run_alone

from code_guard.cli import main
from code_guard.findings import Review, Silencing, Verdict

SCHEMA = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"

SECRET_DIFF = (
    "diff --git a/deploy.env b/deploy.env\nnew file mode 100644\n--- /dev/null\n"
    '+++ b/deploy.env\n@@ -0,0 +1,2 @@\n+REGION=eu-west-1\n+AWS_KEY="AKIAIOSFODNN7EXAMPLE"\n'
)
CLEAN_DIFF = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+Remember the milk.\n"

# app.py adds "import os"; its use on line 10 is outside the diff's context.
ON_DISK = (
    "import os\nimport json\n\n\ndef a():\n    return json\n\n\ndef cwd():\n"
    "    return os.getcwd()\n"
)
ROOT_DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,4 @@\n+import os\n import json\n \n \n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """Run the CLI; return its exit code, stdout and stderr."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1, err
    assert err.startswith("code-guard: error: ")
    assert "Traceback" not in err
    assert all(w in err for w in words), err


# --- exit codes -------------------------------------------------------------------------


def test_review_prints_findings_and_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    code, out, err = run(capsys, "review", diff, "--agents", "security", "--root", tmp_path)
    assert code == 0
    assert out.startswith(
        "deploy.env:2: critical hardcoded_secret: Possible hard-coded secret (AWS Access Key)."
    )
    assert "code-guard: static analysis only: no model is configured" in err
    assert "code-guard: security agent ok in " in err


def test_fail_on_high_exits_1_on_a_high_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    argv = ("review", diff, "--agents", "security", "--fail-on", "high", "-q")
    code, out, err = run(capsys, *argv)
    assert (code, err) == (1, "")
    assert "critical hardcoded_secret" in out


def test_fail_on_high_exits_0_on_a_clean_change(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", CLEAN_DIFF)
    code, out, _ = run(capsys, "review", diff, "--fail-on", "HIGH", "-q")
    assert code == 0
    assert out.startswith("verdict: approve")


def test_config_file_fail_on_is_honoured(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    config = write(tmp_path, "guard.yml", "fail-on: high\nagents: security\n")
    code, _, _ = run(capsys, "review", diff, "--config", config, "-q")
    assert code == 1


# --- usage errors: exit 2 and one line ------------------------------------------------------


def test_missing_diff_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "review", tmp_path / "nope.diff")
    assert (code, out) == (2, "")
    assert_one_error_line(err, "cannot read diff", "nope.diff", "No such file or directory")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("this is not a diff\n", ("expected a unified diff",)),
        ("--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n x\n", ("malformed diff",)),
    ],
)
def test_malformed_diff(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, words: tuple[str, ...]
) -> None:
    code, _, err = run(capsys, "review", write(tmp_path, "bad.diff", text))
    assert code == 2
    assert_one_error_line(err, *words)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--fail-on", "severe"), ("--fail-on", "unknown severity 'severe'")),
        (("--min-confidence", "high"), ("invalid float value",)),
        (("--min-confidence", "1.5"), ("invalid min-confidence",)),
        (("--agents", "security,linting"), ("invalid agents",)),
        (("--max-concurrency", "0"), ("invalid max-concurrency",)),
        (("--context-tokens", "512"), ("invalid context-tokens",)),
        (("--max-cost-usd", "-1"), ("invalid max-cost-usd",)),
        (("--format", "html"), ("invalid choice: 'html'",)),
    ],
)
def test_bad_flags(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    flags: tuple[str, ...],
    words: tuple[str, ...],
) -> None:
    diff = write(tmp_path, "change.diff", CLEAN_DIFF)
    code, out, err = run(capsys, "review", diff, *flags)
    assert (code, out) == (2, "")
    assert_one_error_line(err, *words)


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ("agents: [security]\nsevere: true\n", ("guard.yml", "unknown option 'severe'")),
        ("- just\n- a list\n", ("guard.yml", "must hold a mapping of options")),
        ("min-confidence: lots\n", ("invalid min-confidence",)),
        # one bad value in each part of the options: analysis, model, gate, publishing
        ("context-lines: 500\n", ("invalid context-lines", "(got 500)")),
        ("max-cost-usd: -1\n", ("invalid max-cost-usd", "(got -1)")),
        ("gate-disputed: maybe\n", ("invalid gate-disputed", "(got 'maybe')")),
        ("inline-confidence: 2\n", ("invalid inline-confidence", "(got 2)")),
        pytest.param(
            "fail-on: [high\nmodel: x\n",
            ("guard.yml", "is not valid YAML"),
        ),
    ],
)
def test_bad_config_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, config: str, words: tuple[str, ...]
) -> None:
    diff = write(tmp_path, "change.diff", CLEAN_DIFF)
    path = write(tmp_path, "guard.yml", config)
    code, out, err = run(capsys, "review", diff, "--config", path)
    assert (code, out) == (2, "")
    assert_one_error_line(err, *words)


def test_missing_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    diff = write(tmp_path, "change.diff", CLEAN_DIFF)
    code, _, err = run(capsys, "review", diff, "--config", tmp_path / "none.yml")
    assert code == 2
    assert_one_error_line(err, "cannot read config file", "none.yml")


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2
    assert_one_error_line(err, "required: command")


# --- output formats ----------------------------------------------------------------------


def test_json_output_parses_as_a_review(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    code, out, _ = run(capsys, "review", diff, "--agents", "security", "--format", "json", "-q")
    review = Review.model_validate_json(out)
    assert code == 0
    assert review.verdict is Verdict.REQUEST_CHANGES
    assert [(f.file_path, f.line_start) for f in review.findings] == [("deploy.env", 2)]
    assert review.static_only


def test_sarif_output_validates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    code, out, _ = run(capsys, "review", diff, "--agents", "security", "--format", "sarif", "-q")
    log = json.loads(out)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert list(Draft4Validator(schema).iter_errors(log)) == []
    assert code == 0
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["code-guard/hardcoded_secret"]


def test_output_file_instead_of_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    diff = write(tmp_path, "change.diff", CLEAN_DIFF)
    report = tmp_path / "out" / "review.md"
    report.parent.mkdir()
    code, out, _ = run(capsys, "review", diff, "--format", "markdown", "--output", report, "-q")
    assert (code, out) == (0, "")
    assert report.read_text(encoding="utf-8").startswith("## Ninja Code Guard review\n")


def test_paths_ignore_flag_skips_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF + CLEAN_DIFF)
    argv = ("review", diff, "--paths-ignore", "*.env", "--format", "json", "-q")
    code, out, _ = run(capsys, *argv)
    review = Review.model_validate_json(out)
    assert code == 0
    assert review.findings == ()
    assert [(s.path, s.reason) for s in review.files_not_reviewed] == [
        ("deploy.env", "matches paths-ignore")
    ]


def test_disable_rule_flag_holds_the_rules_hits_back_as_disabled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    rule = "detect-secrets:AWS Access Key"
    code, out, _ = run(capsys, "review", diff, "--format", "json", "-q")
    assert code == 0 and [f.sources for f in Review.model_validate_json(out).findings] == [(rule,)]
    argv = ("review", diff, "--format", "json", "-q", "--show-silenced")
    code, out, _ = run(capsys, *argv, "--disable-rule", rule, "--disable-rule", "bandit:B113")
    review = Review.model_validate_json(out)
    assert code == 0 and review.findings == ()
    assert review.silenced[Silencing.DISABLED] == sum(review.silenced.values()) == 1
    [held] = review.silenced_candidates
    assert (held.mechanism, f"{held.tool}:{held.rule}", held.line) == (Silencing.DISABLED, rule, 2)
    assert "not proof" in held.reason


def test_disable_rules_from_the_config_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    config = write(tmp_path, "code-guard.yml", "disable-rules: [detect-secrets:AWS Access Key]\n")
    code, out, _ = run(capsys, "review", diff, "--config", config, "--format", "json", "-q")
    review = Review.model_validate_json(out)
    assert code == 0 and review.findings == () and review.silenced[Silencing.DISABLED] == 1


@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("flag", ("invalid disable-rules", "'bandit:B999' is not a rule of the catalogue")),
        ("config", ("invalid disable-rules", "'semgrep:no-such-rule' is not a rule of")),
        ("malformed", ("invalid disable-rules", "'B113' is not a rule id: write tool:rule")),
    ],
)
def test_an_unknown_or_malformed_rule_id_is_one_error_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str, words: tuple[str, ...]
) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    config = write(tmp_path, "bad.yml", "disable-rules:\n  - semgrep:no-such-rule\n")
    extra: dict[str, tuple[str, str | Path]] = {
        "flag": ("--disable-rule", "bandit:B999"),
        "config": ("--config", config),
        "malformed": ("--disable-rule", "B113"),
    }
    code, out, err = run(capsys, "review", diff, "-q", *extra[where])
    assert (code, out) == (2, "")
    assert_one_error_line(err, *words)


# --- --root -------------------------------------------------------------------------------


def unused_imports(out: str) -> list[int]:
    review = Review.model_validate_json(out)
    return [f.line_start for f in review.findings if "ruff:F401" in f.sources]


def test_root_contents_are_used_when_they_match_the_diff(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", ROOT_DIFF)
    root = tmp_path / "checkout"
    write(root, "app.py", ON_DISK)
    argv = ("review", diff, "--root", root, "--agents", "style", "--format", "json")
    code, out, err = run(capsys, *argv)
    assert code == 0
    assert unused_imports(out) == []  # `os` is used on line 10, which only the disk shows
    assert "does not match the diff" not in err


def test_root_contents_that_differ_fall_back_to_the_diff(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    diff = write(tmp_path, "change.diff", ROOT_DIFF)
    root = tmp_path / "checkout"
    write(root, "app.py", ON_DISK.replace("import os", "import sys", 1))
    argv = ("review", diff, "--root", root, "--agents", "style", "--format", "json")
    code, out, err = run(capsys, *argv)
    assert code == 0
    assert unused_imports(out) == [1]  # rebuilt from the diff, line 10 is blank
    assert f"code-guard: note: app.py under {root} does not match the diff" in err


# --- the entry point -------------------------------------------------------------------------


def test_python_m_code_guard_reads_the_diff_from_stdin(tmp_path: Path) -> None:
    argv = ["review", "-", "--agents", "security", "--format", "json", "--fail-on", "critical"]
    proc = subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, "-m", "code_guard", *argv],
        input=SECRET_DIFF.encode(),
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    review = Review.model_validate_json(proc.stdout)
    assert [f.file_path for f in review.findings] == ["deploy.env"]
    assert b"Traceback" not in proc.stderr


TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyzABCDEF0123"  # split: not a token in this file


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "sarif"])
def test_no_output_format_repeats_a_token_the_change_hard_codes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    """The finding is reported, on its line, but the token itself is not written out: not
    in the quoted code line (JSON's ``anchor_text``), not in any text a renderer prints."""
    diff = write(
        tmp_path,
        "change.diff",
        f'--- /dev/null\n+++ b/conf.py\n@@ -0,0 +1,2 @@\n+DEBUG = False\n+GITHUB = "{TOKEN}"\n',
    )
    code, out, _ = run(capsys, "review", diff, "--agents", "security", "--format", fmt, "-q")
    assert code == 0
    assert TOKEN not in out and TOKEN[4:20] not in out
    assert ("hard-coded secret" if fmt != "markdown" else "hard\\-coded secret") in out
    if fmt == "json":
        (finding,) = Review.model_validate_json(out).findings
        assert (finding.line_start, finding.anchor_text) == (2, 'GITHUB = "***"')


# --- start-up --------------------------------------------------------------------------------

# Runs the CLI in a fresh interpreter, then prints which of the watched packages it imported.
_IMPORT_PROBE = """\
import json, sys
from code_guard.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
watched = ("litellm", "github", "code_guard.evaluation", "code_guard.github", "jwt")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in watched or m.startswith(watched))
print(json.dumps({"code": code, "loaded": loaded}))
"""


def _probe(tmp_path: Path, script: str, *argv: str) -> dict[str, Any]:
    """What ``script``, run with ``argv`` in a fresh interpreter, printed last, as JSON."""
    proc = subprocess.run(  # noqa: S603 - our own interpreter, fixed argv
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    answer: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return answer


def _imported_by(tmp_path: Path, *argv: str) -> tuple[int, list[str]]:
    """Exit code of the CLI run with ``argv`` in a fresh interpreter, and the modules of the
    model client, PyGithub and the eval code it imported."""
    answer = _probe(tmp_path, _IMPORT_PROBE, *argv)
    return int(answer["code"]), list(answer["loaded"])


def test_an_offline_review_imports_no_model_client_github_or_eval_code(tmp_path: Path) -> None:
    """Start-up is paid by every review: an offline one has no use for litellm (about a
    second to import), PyGithub or the eval code, and must not import them."""
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    code, loaded = _imported_by(
        tmp_path, "review", str(diff), "--offline", "-q", "--format", "sarif", "--fail-on", "high"
    )
    assert code == 1  # the review ran, every agent, and found the key
    assert loaded == []


def test_the_import_probe_sees_a_command_that_does_import_them(tmp_path: Path) -> None:
    """The probe above can fail: ``eval`` needs the eval code, and it shows up."""
    code, loaded = _imported_by(tmp_path, "eval", "--help")
    assert code == 0
    assert "code_guard.evaluation.command" in loaded


# What a review needs only after semgrep-core has been started (``tools/semgrep/early.py``):
# importing them before would make every review wait for them first.
_AFTER_EARLY_START = ("asyncio", "code_guard.agents", "code_guard.report", "code_guard.review")
_ORDER_PROBE = f"""\
import json, sys
from code_guard.cli import main
watched = {_AFTER_EARLY_START!r}
before = sorted(m for m in sys.modules if m.startswith(watched))
code = main(sys.argv[1:])
after = sorted(m for m in sys.modules if m.startswith(watched))
print(json.dumps({{"code": code, "before": before, "after": after}}))
"""


def test_the_cli_imports_the_agents_only_after_starting_semgrep(tmp_path: Path) -> None:
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    answer = _probe(tmp_path, _ORDER_PROBE, "review", str(diff), "--offline", "-q")
    assert answer["code"] == 0
    assert answer["before"] == []
    # the review itself imports every one of them (the probe can fail)
    for package in _AFTER_EARLY_START:
        assert any(m == package or m.startswith(package + ".") for m in answer["after"]), package


# Imports a module in a fresh interpreter and prints how many times the cyclic collector ran
# meanwhile, whether it runs after, and how many objects were frozen.
_COLLECTION_PROBE = """\
import gc, importlib, json, sys
runs = [0]
gc.callbacks.append(lambda stage, info: runs.__setitem__(0, runs[0] + (stage == "start")))
importlib.import_module(sys.argv[1])
print(json.dumps({"runs": runs[0], "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def _collections(tmp_path: Path, module: str) -> dict[str, Any]:
    """``_COLLECTION_PROBE`` on ``module``, its bytecode read from a cache as an installed
    package's is (compiling a module's source, before it runs, makes collections of its own)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for _ in range(2):  # the first run writes the cache
        proc = subprocess.run(  # noqa: S603 - our own interpreter, fixed argv
            [sys.executable, "-c", _COLLECTION_PROBE, module],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=120,
            check=True,
        )
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


def test_the_cli_loads_its_modules_without_the_cyclic_collector(tmp_path: Path) -> None:
    """Its modules live as long as the process: the collector would only walk them (0.015 s
    of a one-line review, before semgrep-core starts). It runs again after, on what is new."""
    answer = _collections(tmp_path, "code_guard.cli")
    assert answer["runs"] == 0
    assert answer["enabled"] is True
    assert answer["frozen"] > 10_000  # what was loaded is out of its sight
    # the probe can fail: loading the engine alone, without a pause, is seen collecting
    control = _collections(tmp_path, "code_guard.review.engine")
    assert control["runs"] > 10 and control["frozen"] == 0


_PAUSE_PROBE = """\
import gc, json
from code_guard.cli import _loading
runs = [0]
gc.callbacks.append(lambda stage, info: runs.__setitem__(0, runs[0] + (stage == "start")))
seen = []
for enabled in (True, False):
    (gc.enable if enabled else gc.disable)()
    before = runs[0]
    with _loading():
        kept = [[] for _ in range(50_000)]
        for item in kept:
            item.append(item)  # cycles: what the collector looks for
    seen.append({"runs": runs[0] - before, "enabled": gc.isenabled(), "kept": len(kept)})
print(json.dumps(seen))
"""


def test_the_modules_a_review_loads_late_load_without_the_collector_too(tmp_path: Path) -> None:
    """``_finish_review`` loads the agents, the engine and the renderers under ``_loading``:
    no collection meanwhile, and the collector is left as it was found (on, or off)."""
    result = subprocess.run(  # noqa: S603 - our own interpreter, fixed argv
        [sys.executable, "-c", _PAUSE_PROBE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    on, off = json.loads(result.stdout)
    assert on == {"runs": 0, "enabled": True, "kept": 50_000}
    assert off == {"runs": 0, "enabled": False, "kept": 50_000}


# Runs the CLI in a fresh interpreter, then prints which of the given modules it imported.
_LAZY = ("pathspec", "tenacity")
_LAZY_PROBE = f"""\
import json, sys
from code_guard.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in {_LAZY!r} if m in sys.modules)
print(json.dumps({{"code": code, "loaded": loaded}}))
"""


def test_an_offline_review_imports_neither_pathspec_nor_tenacity(tmp_path: Path) -> None:
    """pathspec reads ``paths-ignore`` and ``.gitattributes`` patterns, tenacity retries model
    calls: a review with neither has no use for them (5 ms and 3 ms of start-up)."""
    write(tmp_path, "app/settings.py", "DEBUG = False\n")
    diff = write(
        tmp_path,
        "change.diff",
        "diff --git a/app/settings.py b/app/settings.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/app/settings.py\n@@ -0,0 +1 @@\n+DEBUG = False\n",
    )
    argv = ["review", str(diff), "--offline", "-q", "--root", str(tmp_path)]
    answer = _probe(tmp_path, _LAZY_PROBE, *argv)
    assert answer == {"code": 0, "loaded": []}
    # the probe can fail: a pattern to match loads pathspec
    answer = _probe(tmp_path, _LAZY_PROBE, *argv, "--paths-ignore", "docs/")
    assert answer == {"code": 0, "loaded": ["pathspec"]}


def test_the_command_writes_everything_and_leaves_no_process_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m code_guard`` ends without the interpreter's teardown (``cli.run``): the
    report, the exit code and the progress lines must be those ``main`` gives, and no analyser
    process (the Bandit worker, an early semgrep-core run) may outlive it."""
    diff = write(tmp_path, "change.diff", SECRET_DIFF)
    argv = ["review", str(diff), "--offline", "--format", "json", "--fail-on", "high"]
    expected_code = main(argv)
    expected = json.loads(capsys.readouterr().out)
    # run_alone fails if any process of its group (a worker, an early run) outlives it.
    code, out, err = run_alone([sys.executable, "-m", "code_guard", *argv], tmp_path)
    assert code == expected_code == 1
    got = json.loads(out)
    assert [f["line_start"] for f in got["findings"]] == [
        f["line_start"] for f in expected["findings"]
    ]
    assert got["findings"] and got["verdict"] == expected["verdict"]
    assert "security agent ok" in err
