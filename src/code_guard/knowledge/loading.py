"""Reading the YAML the review ships and the YAML a repository gives it."""

from __future__ import annotations

from typing import Any

import yaml

# libyaml's safe loader when PyYAML was built with it: the pure-Python one takes several times
# as long (the Python security model: 41 ms against 6 ms, most of a review's start-up budget).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, with libyaml's loader where there is one; a malformed
    document raises ``yaml.YAMLError`` as ``safe_load`` does."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
