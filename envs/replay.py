"""Replaying a record into an env: reset as the record says, then step every recorded action.

A module of its own so that both the AEC layer (:mod:`._aec`) and the text form of records
(:mod:`.notation`) use it without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def replay_record(
    env: Any,
    record: dict[str, Any],
    before_step: Callable[[Any, str, int], None] | None = None,
) -> Any:
    """Reset ``env`` as ``record`` says and step every recorded action; returns ``env``.

    Dead agents (eliminated between rounds) take their ``None`` steps on the way.
    ``before_step(env, agent, action)`` is called before each recorded action is stepped (the
    env is then at that agent's decision).
    """
    env.reset(seed=record["seed"], options=record.get("options") or None)
    for agent, action in record["actions"]:
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
        if env.agent_selection != agent:
            raise ValueError(
                f"record does not replay: expected {agent} to act, got {env.agent_selection}"
            )
        if before_step is not None:
            before_step(env, agent, action)
        env.step(action)
    return env


__all__ = ["replay_record"]
