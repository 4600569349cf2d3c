"""Test helpers shared by both games' suites."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def play_random_episode(
    env: Any,
    rng: np.random.Generator,
    on_step: Callable[[Any, str, int], None] | None = None,
    max_steps: int = 100_000,
) -> dict[str, float]:
    """Play ``env`` (already reset) to the end with uniform legal actions; return summed rewards.

    ``on_step(env, agent, action)`` is called after each live step.
    """
    totals: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=max_steps):
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) > 0, f"{agent} is to act with an empty mask"
        action = int(legal[rng.integers(len(legal))])
        env.step(action)
        if on_step is not None:
            on_step(env, agent, action)
    return totals


def cards_text(names: str) -> list[str]:
    """``"7S 8S AH"`` -> ``["7S", "8S", "AH"]``."""
    return names.split()
