"""action.yml, the Dockerfile and the vendored OpenAPI subset agree with the code."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from ghrunner import ROOT, action_metadata
from ghstandin import FIXTURES

from code_guard.github.inputs import ActionInputs

REVIEW_OUTPUTS = {
    "findings", "verdict", "health-score", "sarif-file", "review-url", "outcome",
    "files-not-reviewed",
}
EVAL_OUTPUTS = {"precision", "recall", "f1", "latency-p50-ms", "latency-p95-ms"}
OPENAPI_VERSION = "23.0.2"


def test_every_input_is_a_field_and_every_field_an_input() -> None:
    inputs = action_metadata()["inputs"]
    assert {name.replace("-", "_") for name in inputs} == set(ActionInputs.model_fields)
    assert all(spec.get("description") for spec in inputs.values())
    assert inputs["github-token"]["default"] == "${{ github.token }}"


def test_input_defaults_parse() -> None:
    env = {f"INPUT_{k.upper()}": str(v.get("default", "")) for k, v in _inputs().items()}
    env["INPUT_GITHUB-TOKEN"] = "x"
    assert (
        ActionInputs.model_validate(
            {k[6:].lower().replace("-", "_"): v for k, v in env.items() if v}
        ).mode
        == "review"
    )


def _inputs() -> dict[str, Any]:
    inputs: dict[str, Any] = action_metadata()["inputs"]
    return inputs


def test_outputs_are_the_ones_written() -> None:
    outputs = action_metadata()["outputs"]
    assert set(outputs) == REVIEW_OUTPUTS | EVAL_OUTPUTS
    assert all(spec.get("description") for spec in outputs.values())


def test_runs_the_dockerfile() -> None:
    metadata = action_metadata()
    assert metadata["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert {"icon", "color"} <= set(metadata["branding"])


def test_dockerfile_pins_its_base_and_runs_the_package() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    [base] = [line.split()[1] for line in text.splitlines() if line.startswith("FROM ")]
    assert base.startswith("python:3.11.") and base.count(".") >= 2  # an exact patch release
    assert "pip install --no-cache-dir ." in text
    assert 'ENTRYPOINT ["python", "-P", "-m", "code_guard.github.action"]' in text


def _subset() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (FIXTURES / "openapi-subset.json").read_text(encoding="utf-8")
    )
    return data


def test_openapi_subset_is_self_contained() -> None:
    subset = _subset()
    assert subset["info"]["x-trimmed-from"].startswith(f"@octokit/openapi@{OPENAPI_VERSION} ")
    text = json.dumps(subset)
    for ref in {part.split('"')[0] for part in text.split('"$ref": "')[1:]}:
        _, section, name = ref.split("/", 3)[1:]
        assert name in subset["components"][section], ref


def _full_description() -> Path | None:
    given = os.environ.get("CODE_GUARD_OPENAPI_FULL")
    cached = Path.home() / ".cache" / "code-guard" / f"openapi-{OPENAPI_VERSION}"
    for candidate in (Path(given) if given else None, cached / "api.github.com.json"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def test_openapi_subset_matches_upstream() -> None:
    full_path = _full_description()
    if full_path is None:
        pytest.skip("full OpenAPI description not cached: python scripts/trim_openapi.py --fetch")
    full = json.loads(full_path.read_text(encoding="utf-8"))
    assert full["info"]["version"] == OPENAPI_VERSION
    subset = _subset()
    for path, operations in subset["paths"].items():
        for method, operation in operations.items():
            assert _canonical(operation) == _canonical(full["paths"][path][method]), (path, method)
    for section, items in subset["components"].items():
        for name, value in items.items():
            assert _canonical(value) == _canonical(full["components"][section][name]), name


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")
