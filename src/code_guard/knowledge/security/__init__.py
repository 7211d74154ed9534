"""The security model of each language, as data (CodeQL's "models as data"): where request data
comes from, what carries it, what neutralises it for which kind of flaw, which checks prove what,
and where it does harm. The Semgrep taint rules are generated from it
(``scripts/semgrep_rules.py``)."""

from code_guard.knowledge.security.model import (
    Guard,
    Import,
    Propagator,
    Sanitiser,
    SecurityModel,
    Sink,
    Source,
    TaintRule,
    load_model,
)

__all__ = [
    "Guard",
    "Import",
    "Propagator",
    "Sanitiser",
    "SecurityModel",
    "Sink",
    "Source",
    "TaintRule",
    "load_model",
]
