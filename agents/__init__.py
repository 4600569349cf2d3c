"""Agents for both games behind one interface: ``make_agent(spec, game, seat, seed)``."""

from .base import Agent, agent_kinds, agent_origin, make_agent, register_agent

__all__ = ["Agent", "agent_kinds", "agent_origin", "make_agent", "register_agent"]
