"""``montecarlo``: the textbook one-ply Monte Carlo player, written apart from the heuristics.

At every decision with more than one legal action the agent draws ``worlds`` complete hidden
states consistent with its observation from the game's exact belief sampler (uniform over what
the player cannot see, its opponents' choices treated as uninformative). For each legal action
and each world it plays the action in the rules engine, finishes the deal or round with a
fixed default policy for every seat, its own included, and scores the end with the engine's own
scoring rule. It plays the action with the best mean over the worlds (every action is tried on
the same worlds: common random numbers); ties go to the lowest id. Each game's worlds, default
policy and score are its registry entry's ``montecarlo_agent`` piece
(:mod:`folkcards.agents.paston_montecarlo`, :mod:`folkcards.agents.tri_palki_montecarlo`),
fixed and documented there so the baseline is reproducible.

Nothing here reads the package's heuristic or search agents: the two baselines share only the
belief samplers and the rules engines with them, so a blind spot of the heuristic family is not
built in. Parameters come from the spec: ``montecarlo:worlds=64,seed=3`` (``worlds`` default
32). The agent is deterministic given its seed. If the sampler reports the observation
inconsistent (which a legal table never produces), the decision is uniformly random among the
legal actions and counted in ``fallbacks``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..envs.registry import game_spec
from .base import Agent, legal_actions, spec_pairs

DEFAULT_WORLDS = 32


def parse_spec(arg: str | None) -> tuple[int, int | None]:
    """``worlds`` and ``seed`` of a ``montecarlo:worlds=N,seed=S`` spec (one line if bad)."""
    worlds, seed = DEFAULT_WORLDS, None
    for key, text in spec_pairs(arg, ("worlds", "seed"), "montecarlo"):
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"montecarlo {key} must be an integer, got {text!r}") from None
        if key == "worlds":
            if value < 1:
                raise ValueError(f"montecarlo worlds must be at least 1, got {value}")
            worlds = value
        else:
            seed = value
    return worlds, seed


class MonteCarloAgent(Agent):
    """One-ply Monte Carlo over sampled worlds (see the module docstring); the game-specific
    part is how a world becomes an engine state, the rollout policy and the score."""

    name = "montecarlo"

    def __init__(
        self,
        game: str,
        seat: str = "player_0",
        seed: int | None = None,
        worlds: int = DEFAULT_WORLDS,
    ):
        super().__init__(game, seat, seed)
        self.worlds = worlds
        self.seat_index = int(seat.rpartition("_")[2])
        self.fallbacks = 0
        self._draw = random.Random(int(self.rng.integers(2**63)))

    def reseed(self, seed: int) -> None:
        """As a fresh agent seeded ``seed``: ``rng`` and the draws derived from it."""
        super().reseed(seed)
        self._draw = random.Random(int(self.rng.integers(2**63)))

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.last_action_values = None
        legal = legal_actions(observation)
        if len(legal) == 1:
            return legal[0]
        vector = np.asarray(observation["observation"])
        try:
            states = self._states(vector)
        except ValueError:  # the sampler found the observation inconsistent
            self.fallbacks += 1
            return legal[self._draw.randrange(len(legal))]
        totals = dict.fromkeys(legal, 0.0)
        for state in states:
            for action in legal:
                totals[action] += self._rollout(state, action)
        self.last_action_values = {a: totals[a] / len(states) for a in legal}
        return max(legal, key=lambda a: (totals[a], -a))

    def _states(self, vector: np.ndarray) -> list[Any]:
        """Engine states of ``worlds`` sampled worlds at this decision."""
        raise NotImplementedError

    def _rollout(self, state: Any, action: int) -> float:
        """This seat's value after ``action`` in a copy of ``state`` and the default play."""
        raise NotImplementedError


def copy_state(state: Any, lists: tuple[str, ...]) -> Any:
    """A copy of a slotted engine state whose ``lists`` are copied (the rest is immutable)."""
    cls: Any = type(state)
    new = object.__new__(cls)
    for name in cls.__slots__:
        value = getattr(state, name)
        setattr(new, name, list(value) if name in lists else value)
    return new


def montecarlo_factory(cls: type[MonteCarloAgent], family: str) -> Callable[..., MonteCarloAgent]:
    """The registry's ``montecarlo_agent`` factory of ``cls``, which plays the game ``family``."""

    def make(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> MonteCarloAgent:
        if game_spec(game).name != family:
            raise ValueError(f"this montecarlo player plays {family}, not {game!r}")
        worlds, spec_seed = parse_spec(arg)
        return cls(game, seat, spec_seed if spec_seed is not None else seed, worlds)

    return make


__all__ = ["DEFAULT_WORLDS", "MonteCarloAgent", "copy_state", "montecarlo_factory", "parse_spec"]
