"""The review agents, registered explicitly in one tuple."""

from __future__ import annotations

from code_guard.agents.base import Agent, AgentContext
from code_guard.agents.performance import PerformanceAgent
from code_guard.agents.security import SecurityAgent
from code_guard.agents.style import StyleAgent
from code_guard.findings import AgentName

AGENTS: tuple[type[Agent], ...] = (SecurityAgent, PerformanceAgent, StyleAgent)


def agent_for(name: AgentName) -> Agent:
    """Instantiate the agent called ``name``."""
    return next(cls for cls in AGENTS if cls.name is name)()


__all__ = ["AGENTS", "Agent", "AgentContext", "agent_for"]
