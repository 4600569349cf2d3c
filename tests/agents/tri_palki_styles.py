"""Tri Palki opponents with styles unlike the heuristic's, written for the ``pimc`` time-bound
tests and ``benchmarks/pimc_decision_time.py``: seeded, legal, reading only the observation
(the action mask, and the hand and centre of the decoded view).

- ``rare_pass``: never passes while a swap is legal (a random swap);
- ``back_and_forth``: swaps a card, then takes it back the next turn (giving the card it took);
- ``swap_all``: swaps all three cards half the time, else a random move;
- ``long_rounds``: never passes, never announces and never washes the centre when it can avoid
  it, so rounds run on towards ``max_turns``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import numpy as np
from folkcards.agents import make_agent
from folkcards.agents.base import Agent, legal_actions
from folkcards.envs import tri_palki_v0
from folkcards.envs.tri_palki import observation as obs_mod
from folkcards.envs.tri_palki.rules import (
    ANNOUNCE,
    NO_ANNOUNCE,
    SWAP_ALL,
    SWAP_BASE,
    TRIPLES,
)

STYLES = ("rare_pass", "back_and_forth", "swap_all", "long_rounds")


def _mask(cards) -> int:
    return sum(1 << int(c) for c in cards)


class StyledOpponent(Agent):
    """A seeded Tri Palki player of one of :data:`STYLES`."""

    name = "styled"

    def __init__(self, style: str, seat: str = "player_0", seed: int | None = None):
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}; choose from {', '.join(STYLES)}")
        super().__init__("tri_palki", seat, seed)
        self.style = style
        self._last: tuple[int, int] | None = None  # (card given, card taken) of my last swap

    def reset(self) -> None:
        self._last = None

    def act(self, observation: dict) -> int:
        legal = legal_actions(observation)
        if len(legal) == 1:
            return legal[0]
        if ANNOUNCE in legal:
            return NO_ANNOUNCE if self.style == "long_rounds" else ANNOUNCE
        swaps = [a for a in legal if SWAP_BASE <= a <= SWAP_ALL]
        if not swaps:
            return legal[0]
        view = obs_mod.decode(np.asarray(observation["observation"]))
        hand, centre = list(view.hand), list(view.centre)
        if self.style == "swap_all":
            if SWAP_ALL in legal and self.rng.random() < 0.5:
                return SWAP_ALL
            return int(self.rng.choice(legal))
        if self.style == "back_and_forth" and self._last is not None:
            gave, took = self._last
            if gave in centre and took in hand:
                return self._swap(hand, centre, took, gave)
        if self.style == "long_rounds":
            quiet = [a for a in swaps if not self._washes(a, hand, centre)]
            swaps = quiet or swaps
        action = int(self.rng.choice(swaps))
        if action != SWAP_ALL:
            h, c = divmod(action - SWAP_BASE, 3)
            self._last = (hand[h], centre[c])
        return action

    def _swap(self, hand: list[int], centre: list[int], give: int, take: int) -> int:
        self._last = (give, take)
        return SWAP_BASE + 3 * hand.index(give) + centre.index(take)

    @staticmethod
    def _washes(action: int, hand: list[int], centre: list[int]) -> bool:
        if action == SWAP_ALL:
            new_centre = _mask(hand)
        else:
            h, c = divmod(action - SWAP_BASE, 3)
            new_centre = _mask(centre) & ~(1 << centre[c]) | (1 << hand[h])
        return TRIPLES[new_centre].one_suit


def style_opponents(style: str, num_players: int, seed: int) -> list[Agent]:
    """Seats 1..n-1: players of ``style``, or the package's heuristic for ``"heuristic"``."""
    if style == "heuristic":
        return [make_agent("heuristic", "tri_palki", f"player_{i}") for i in range(1, num_players)]
    return [StyledOpponent(style, f"player_{i}", seed=seed + i) for i in range(1, num_players)]


def play_rounds(
    spec: str | Agent,
    opponents: Sequence[Agent],
    round_seeds: Sequence[int],
    seed: int,
    max_turns: int,
    episode: str = "round",
) -> Iterator[tuple[Agent, dict, int, float]]:
    """Rounds (one per seed of ``round_seeds``) of agent ``spec`` (a spec, or an agent for seat
    0) in seat 0 against ``opponents`` in the other seats; yields (agent, observation, action,
    seconds) at each of seat 0's decisions, the seconds being the wall clock around ``act``
    (``episode="match"``: one whole match per seed)."""
    env = tri_palki_v0.raw_env(num_players=len(opponents) + 1, max_turns=max_turns, episode=episode)
    agent = make_agent(spec, "tri_palki", "player_0", seed=seed) if isinstance(spec, str) else spec
    for round_seed in round_seeds:
        env.reset(seed=round_seed)
        agent.reset()
        for other in opponents:
            other.reset()
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            obs = env.observe(name)
            if name == "player_0":
                started = time.perf_counter()
                action = agent.act(obs)
                seconds = time.perf_counter() - started
                assert obs["action_mask"][action], f"{spec} chose an illegal move {action}"
                yield agent, obs, action, seconds
            else:
                action = opponents[int(name.split("_")[1]) - 1].act(obs)
            env.step(action)


__all__ = ["STYLES", "StyledOpponent", "play_rounds", "style_opponents"]
