"""action.yml, the Dockerfile and the vendored OpenAPI subset agree with the code."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from ghrunner import ROOT, action_metadata
from ghstandin import FIXTURES

from code_guard.github.inputs import ActionInputs

REVIEW_OUTPUTS = {
    "findings", "verdict", "health-score", "sarif-file", "review-url", "outcome",
    "files-not-reviewed", "dismissed",
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


def test_dockerfile_pins_its_base_by_digest_and_installs_the_lock() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    [default] = re.findall(r"^ARG BASE_IMAGE=(\S+)$", text, re.MULTILINE)
    image, _, digest = default.partition("@")
    assert image.startswith("python:3.11.") and image.count(".") >= 2  # an exact patch release
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest)
    bases = [line.split()[1] for line in text.splitlines() if line.startswith("FROM ")]
    assert bases and all(base == "${BASE_IMAGE}" for base in bases)
    assert "--require-hashes" in text and "-r requirements/image.lock" in text
    assert 'ENTRYPOINT ["python", "-P", "-m", "code_guard.github.action"]' in text


def test_lock_pins_every_distribution_with_hashes() -> None:
    lock = (ROOT / "requirements" / "image.lock").read_text(encoding="utf-8")
    entries = re.split(r"\n(?=[a-z0-9])", lock.strip())
    pins = {entry.split("==")[0] for entry in entries}
    assert all(re.match(r"^[a-z0-9._-]+==\S+ \\\n", e) for e in entries), entries[:3]
    assert all("--hash=sha256:" in entry for entry in entries)
    for requirement in _project()["dependencies"]:
        name = re.split(r"[=<>~! \[]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        assert name in pins, f"{name} is in pyproject.toml but not in the lock"


def _project() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        project: dict[str, Any] = tomllib.load(file)["project"]
    return project


def test_every_third_party_action_is_pinned_by_commit_sha() -> None:
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    uses = [
        (path.name, match)
        for path in workflows
        for match in re.findall(r"uses:\s*(\S+.*)$", path.read_text(encoding="utf-8"), re.M)
    ]
    third_party = [(name, use) for name, use in uses if not use.startswith("./")]
    assert third_party
    for name, use in third_party:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*", use), (name, use)


def test_dependabot_watches_every_pinned_ecosystem() -> None:
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text(encoding="utf-8"))
    ecosystems = {update["package-ecosystem"] for update in config["updates"]}
    assert ecosystems == {"pip", "docker", "github-actions"}


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
