"""The uniform-random agent."""

from __future__ import annotations

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions of the mask."""

    name = "random"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 0:
            raise ValueError("the action mask has no legal action: this agent is not to act")
        return int(legal[self.rng.integers(len(legal))])
