"""The uniform-random agent."""

from __future__ import annotations

import numpy as np

from .base import Agent, legal_actions


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions of the mask."""

    name = "random"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        return legal[int(self.rng.integers(len(legal)))]
