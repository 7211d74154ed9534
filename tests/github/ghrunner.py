"""The environment the Actions runner gives a container action, built as the runner does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from ghstandin import OWNER, REPO

ROOT = Path(__file__).resolve().parents[2]


def action_metadata() -> dict[str, Any]:
    """``action.yml``, parsed."""
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def input_environ(token: str, **inputs: str) -> dict[str, str]:
    """``INPUT_<NAME>`` for every input, from ``action.yml``'s defaults and ``inputs``.

    Like the runner: upper-cased, hyphens kept; ``${{ github.token }}`` evaluates to ``token``.
    """
    env = {}
    for name, spec in action_metadata()["inputs"].items():
        default = str(spec.get("default", ""))
        if default == "${{ github.token }}":
            default = token
        env[f"INPUT_{name.upper()}"] = default
    for key, value in inputs.items():
        env[f"INPUT_{key.replace('_', '-').upper()}"] = value
    return env


def runner_environ(
    workspace: Path,
    api_url: str,
    event_path: Path,
    token: str,
    event_name: str = "pull_request",
    **inputs: str,
) -> dict[str, str]:
    """The ``GITHUB_*`` variables plus the inputs, with files under ``workspace``'s parent."""
    files = workspace.parent / "_runner_file_commands"
    files.mkdir(exist_ok=True)
    (files / "output").touch()
    (files / "summary").touch()
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": f"{OWNER}/{REPO}",
        "GITHUB_API_URL": api_url,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(files / "summary"),
        "GITHUB_OUTPUT": str(files / "output"),
        "GITHUB_SHA": "a" * 40,
        **input_environ(token, **inputs),
    }


def read_outputs(path: Path) -> dict[str, str]:
    """Parse a ``$GITHUB_OUTPUT`` file written in the heredoc form."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").split("\n"))
    for line in lines:
        if not line:
            continue
        name, delimiter = line.split("<<", 1)
        value: list[str] = []
        for body in lines:
            if body == delimiter:
                break
            value.append(body)
        outputs[name] = "\n".join(value)
    return outputs


def without_masks(stdout: str) -> str:
    """``stdout`` without the ``::add-mask::`` lines the action prints first."""
    return "".join(
        line for line in stdout.splitlines(keepends=True) if not line.startswith("::add-mask::")
    )
