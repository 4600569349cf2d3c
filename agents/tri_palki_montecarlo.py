"""Tri Palki's ``montecarlo`` player (:mod:`folkcards.agents.montecarlo`; the registry's
``montecarlo_agent``): worlds from :mod:`folkcards.search.tri_palki_belief`, and the rollouts'
default policy, fixed so the baseline is reproducible: each player takes the action that makes
its own hand strongest now (a safe or three-aces hand above every normal hand, normal hands by
the comparison key of the rules), passing unless a swap improves its hand strictly, and
announces whenever it may. The value is minus the sticks this seat receives when the round is
settled (``rules.settle``). A greedy rather than a random default because random swapping
almost never ends a round (the round ends after a full circle of consecutive passes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..envs.registry import game_spec
from ..envs.tri_palki import observation as tri_palki_obs
from ..envs.tri_palki.observation import TURNS_HORIZON
from ..envs.tri_palki.rules import (
    ACTION,
    ANNOUNCE,
    ANNOUNCE_DECISION,
    NORMAL,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
    TRIPLES,
    TriPalkiRound,
    next_alive,
    settle,
)
from ..envs.tri_palki.rules import OVER as TRI_PALKI_OVER
from ..envs.tri_palki.tiny import TINY_DECK, TINY_MAX_TURNS
from .base import spec_pairs
from .montecarlo import MonteCarloAgent, copy_state, montecarlo_factory

MAX_ROLLOUT_ACTIONS = 500  # a greedy Tri Palki round ends far sooner; a guard, never reached

# a hand's strength for the Tri Palki default policy: specials above every normal hand
_STRENGTH = {mask: t.key if t.kind == NORMAL else 1 << 40 for mask, t in TRIPLES.items()}
_SWAPS = {mask: t.bits for mask, t in TRIPLES.items()}
_GREEDY: dict[tuple[int, int], int] = {}  # (hand, centre) -> the default policy's action


def greedy_action(state: TriPalkiRound) -> int:
    """The Tri Palki default policy: announce when offered; else the swap (one card or all)
    that makes the hand strongest, if it beats the hand kept; else pass."""
    if state.phase == ANNOUNCE_DECISION:
        return ANNOUNCE
    hand, centre = state.hands[state.to_act], state.centre
    known = _GREEDY.get((hand, centre))
    if known is not None:
        return known
    strength = _STRENGTH
    best, best_action = strength[hand], PASS
    mine, theirs = _SWAPS[hand], _SWAPS[centre]
    for h in range(3):
        kept = hand ^ mine[h]
        for c in range(3):
            value = strength[kept | theirs[c]]
            if value > best:
                best, best_action = value, SWAP_BASE + 3 * h + c
    if strength[centre] > best:
        best_action = SWAP_ALL
    if len(_GREEDY) > 2_000_000:  # bounded memory; the policy does not depend on the cache
        _GREEDY.clear()
    _GREEDY[(hand, centre)] = best_action
    return best_action


class TriPalkiMonteCarlo(MonteCarloAgent):
    """Tri Palki: greedy rollouts, minus this seat's sticks when the round is settled."""

    _LISTS = ("hands", "known", "washes", "history")

    def _states(self, vector: np.ndarray) -> list[TriPalkiRound]:
        from ..search.tri_palki_belief import sample_worlds

        view = tri_palki_obs.decode(vector)
        worlds = sample_worlds(vector, self.worlds, self.rng, observer=self.seat_index)
        return [self._engine(world, view) for world in worlds]

    def _engine(self, world: Any, view: Any) -> TriPalkiRound:
        """The round's state in ``world`` at this seat's decision (the fields the rest of the
        round and its settlement read; the deal order and past events are not needed)."""
        state = TriPalkiRound.__new__(TriPalkiRound)
        n = world.num_players
        state.num_seats = n
        state.alive = tuple(world.alive)
        state.survivors = sum(state.alive)
        state.left = tuple(next_alive(seat, state.alive) for seat in range(n))
        state.dealer = world.dealer
        state.deck = ()
        state.hands = list(world.hands)
        state.centre = world.centre
        state.dealt_centre = 0
        state.reserve = tuple(world.reserve)
        state.top = 0
        state.washed = world.washed
        state.washes = []
        state.known = [0] * n
        state.to_act = self.seat_index
        state.phase = ANNOUNCE_DECISION if view.phase == "announce" else ACTION
        state.passes = view.passes
        state.announcer = -1 if world.announcer is None else world.announcer
        state.final_left = sum(view.final_turn_pending)
        state.turns = 0
        state.outcome = None
        state.history = []
        return state

    def _rollout(self, state: TriPalkiRound, action: int) -> float:
        round_ = copy_state(state, self._LISTS)
        round_.apply(action)
        for _ in range(MAX_ROLLOUT_ACTIONS):
            if round_.phase == TRI_PALKI_OVER:
                break
            round_.apply(greedy_action(round_))
        sticks = [0] * round_.num_seats
        result = settle(round_.hands, round_.alive, sticks, round_.dealer)
        return -float(result.stick[self.seat_index])


make_tri_palki_montecarlo = montecarlo_factory(TriPalkiMonteCarlo, "tri_palki")

__all__ = ["TriPalkiMonteCarlo", "greedy_action", "make_tri_palki_montecarlo"]


class TriPalkiTinyMonteCarlo(TriPalkiMonteCarlo):
    """Tri Palki tiny: every world of the ten-card deck instead of a sample (at most four
    arrangements of the four unseen cards), and rollouts scored at the table's turn limit
    (``max_turns``, the variant's default unless the spec gives another), as the variant
    scores a round reaching it. The greedy rollouts are deterministic, so each action's value
    is exact under the default policy; ``worlds`` is not used."""

    max_turns = TINY_MAX_TURNS

    def _states(self, vector: np.ndarray) -> list[TriPalkiRound]:
        from ..search.tri_palki_belief import exact_worlds

        view = tri_palki_obs.decode(vector)
        worlds = exact_worlds(vector, TINY_DECK, observer=self.seat_index)
        turns = round(view.turn_fraction * min(self.max_turns, TURNS_HORIZON))
        states = [self._engine(world, view) for world in worlds]
        for state in states:
            state.turns = turns
        return states

    def _rollout(self, state: TriPalkiRound, action: int) -> float:
        round_ = copy_state(state, self._LISTS)
        round_.apply(action)
        while round_.phase != TRI_PALKI_OVER and round_.turns < self.max_turns:
            round_.apply(greedy_action(round_))
        result = settle(round_.hands, round_.alive, [0] * round_.num_seats, round_.dealer)
        return -float(result.stick[self.seat_index])


def make_tri_palki_tiny_montecarlo(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> MonteCarloAgent:
    """``montecarlo`` on Tri Palki tiny: ``montecarlo:max_turns=N`` for a table whose turn
    limit is not the variant's default (``seed=S`` as for the other games)."""
    if game_spec(game).name != "tri_palki_tiny":
        raise ValueError(f"this montecarlo player plays tri_palki_tiny, not {game!r}")
    pairs = dict(spec_pairs(arg, ("max_turns", "seed"), "montecarlo"))
    values = {}
    for key, text in pairs.items():
        try:
            values[key] = int(text)
        except ValueError:
            raise ValueError(f"montecarlo {key} must be an integer, got {text!r}") from None
    if values.get("max_turns", TINY_MAX_TURNS) < 1:
        raise ValueError(f"montecarlo max_turns must be at least 1, got {values['max_turns']}")
    agent = TriPalkiTinyMonteCarlo(game, seat, values.get("seed", seed))
    agent.max_turns = values.get("max_turns", TINY_MAX_TURNS)
    return agent
