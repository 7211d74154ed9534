"""Bandit's worker started with ``python -m code_guard review``: only for a diff that touches a
file Bandit reads, before the CLI's modules load, taken by the review's pool (one worker in
all), and ended when no review takes it; the report is ``main``'s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from processes import run_alone

from code_guard.cli import main
from code_guard.languages import suffixes_read_by
from code_guard.tools.bandit import prestart
from code_guard.tools.runtime.warm import WarmPool

PYTHON_DIFF = (
    "diff --git a/app/run.py b/app/run.py\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/app/run.py\n@@ -0,0 +1,2 @@\n+def run(x):\n+    exec(x)\n"
)
JS_DIFF = (
    "diff --git a/web/app.js b/web/app.js\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/web/app.js\n@@ -0,0 +1 @@\n+export const DEBUG = false;\n"
)
DELETED_PYTHON = (
    "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n"
    "@@ -1 +0,0 @@\n-x = 1\n"
)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_suffixes_are_those_bandit_reads() -> None:
    assert set(prestart.SUFFIXES) == set(suffixes_read_by("bandit"))


def test_a_worker_is_wanted_only_for_a_diff_that_touches_python(tmp_path: Path) -> None:
    python = _write(tmp_path, "py.diff", PYTHON_DIFF)
    stub = _write(tmp_path, "pyi.diff", PYTHON_DIFF.replace("run.py", "run.pyi"))
    js = _write(tmp_path, "js.diff", JS_DIFF)
    deleted = _write(tmp_path, "deleted.diff", DELETED_PYTHON)
    assert prestart.wanted(["review", python, "--offline"])
    assert prestart.wanted(["review", "--root", str(tmp_path), stub])
    assert prestart.wanted(["review", "-", "--offline"])  # stdin: not read here
    assert not prestart.wanted(["review", js, "--offline"])
    assert not prestart.wanted(["review", deleted])  # no new version to read
    assert not prestart.wanted(["review", str(tmp_path / "missing.diff")])
    assert not prestart.wanted(["review", "--format", "json", str(tmp_path)])  # a folder
    compiled = _write(tmp_path, "pyc.diff", PYTHON_DIFF.replace("run.py", "run.pyc"))
    assert not prestart.wanted(["review", compiled])  # not a file Bandit reads


def test_a_pool_takes_a_started_worker_as_its_first(tmp_path: Path) -> None:
    echo = (
        "import json, os, sys\nfor line in sys.stdin:\n"
        "    print(json.dumps({'pid': os.getpid()}), flush=True)\n"
    )
    argv = [sys.executable, "-I", "-c", echo]
    started = subprocess.Popen(  # noqa: S603 - our own interpreter, fixed argv
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
    )
    pool = WarmPool("echo", argv, keep=1)
    pool.adopt(started)
    try:
        assert pool.ask({})["pid"] == started.pid  # no other process started
        assert pool.ask({})["pid"] == started.pid
    finally:
        pool.close()
    assert started.returncode == 0


def test_a_started_worker_no_pool_took_is_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prestart, "_started", None)
    prestart.start()
    started = prestart._started
    assert started is not None and started.poll() is None
    prestart.discard()
    assert started.returncode == 0  # ended by the end of its input, not killed
    assert prestart.take() is None


# ``python -m code_guard`` in a fresh interpreter, its processes' starts logged on stderr with
# whether the CLI was loaded yet.
_ENTRY_PROBE = """\
import runpy, subprocess, sys
real = subprocess.Popen.__init__
def logged(self, args, *rest, **named):
    name = str(args[-1] if "worker.py" in str(args[-1]) else args[0])
    loaded = "code_guard.cli" in sys.modules
    print("START", name.rsplit("/", 1)[-1], loaded, file=sys.stderr, flush=True)
    real(self, args, *rest, **named)
subprocess.Popen.__init__ = logged
sys.argv = ["code_guard", *sys.argv[1:]]
runpy.run_module("code_guard", run_name="__main__")
"""


def _entry(tmp_path: Path, *argv: str) -> tuple[int, list[list[str]], str]:
    code, out, err = run_alone([sys.executable, "-c", _ENTRY_PROBE, *argv], tmp_path)
    starts = [line.split()[1:] for line in err.splitlines() if line.startswith("START ")]
    return code, starts, out


def test_a_review_of_python_starts_one_worker_before_the_cli_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "run.py").write_text("def run(x):\n    exec(x)\n", encoding="utf-8")
    diff = _write(tmp_path, "change.diff", PYTHON_DIFF)
    argv = ["review", diff, "--offline", "-q", "--root", str(tmp_path), "--format", "json"]
    code, starts, out = _entry(tmp_path, *argv)
    workers = [s for s in starts if s[0] == "worker.py"]
    assert workers == [["worker.py", "False"]]  # one, started before the CLI was imported
    assert starts[0] == ["worker.py", "False"]
    expected_code = main(argv)
    expected = json.loads(capsys.readouterr().out)
    assert code == expected_code == 0
    got = json.loads(out)
    assert "bandit:B102" in {s for f in got["findings"] for s in f["sources"]}
    assert [f["fingerprint"] for f in got["findings"]] == [
        f["fingerprint"] for f in expected["findings"]
    ]


def test_a_worker_no_review_takes_is_ended_and_none_is_started_without_python(
    tmp_path: Path,
) -> None:
    diff = _write(tmp_path, "change.diff", PYTHON_DIFF)
    # the style agent alone runs no Bandit: the worker started with the process is ended
    code, starts, _ = _entry(tmp_path, "review", diff, "--offline", "-q", "--agents", "style")
    assert code == 0
    assert [s for s in starts if s[0] == "worker.py"] == [["worker.py", "False"]]
    js = _write(tmp_path, "js.diff", JS_DIFF)
    code, starts, _ = _entry(tmp_path, "review", js, "--offline", "-q")
    assert code == 0
    assert [s for s in starts if s[0] == "worker.py"] == []
