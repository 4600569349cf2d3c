"""Paston's ``montecarlo`` player (:mod:`folkcards.agents.montecarlo`; the registry's
``montecarlo_agent``): worlds from :mod:`folkcards.search.paston_belief`, and the rollouts' default
policy, fixed so the baseline is reproducible: uniformly random among the legal actions, for
every decision (auction, discards, contract or surrender, whist or pass, cards). The value is
this seat's table score of the deal (a redeal scores 0).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..envs.paston import observation as paston_obs
from ..envs.paston.rules import OVER as PASTON_OVER
from ..envs.paston.rules import PLAY as PASTON_PLAY
from ..envs.paston.rules import PastonDeal
from .montecarlo import MonteCarloAgent, copy_state, montecarlo_factory


def _random_bit(bits: int, draw: random.Random) -> int:
    """A uniformly random set bit's index of ``bits`` (non-zero)."""
    ids = []
    while bits:
        low = bits & -bits
        ids.append(low.bit_length() - 1)
        bits ^= low
    return ids[draw.randrange(len(ids))]


class PastonMonteCarlo(MonteCarloAgent):
    """Paston: random rollouts, the deal's table score."""

    _LISTS = (
        "hands",
        "passed",
        "bids",
        "defence",
        "trick",
        "tricks",
        "played",
        "voids",
        "scores",
        "history",
    )

    def _states(self, vector: np.ndarray) -> list[PastonDeal]:
        from ..search.paston_belief import sample_worlds
        from ..search.paston_history import public_prefix

        view = paston_obs.decode(vector)
        try:
            worlds = sample_worlds(vector, self.worlds, self.rng, observer=self.seat_index)
        except ValueError as exc:  # a game's deal that may or may not be its first
            if "first deal" not in str(exc):
                raise
            worlds = sample_worlds(
                vector, self.worlds, self.rng, observer=self.seat_index, first_deal=False
            )
        own_discards = iter(view.discards)  # the declarer (only) sees its own discards
        prefix = [next(own_discards, None) if a is None else a for a in public_prefix(view)]
        return [self._engine(world, prefix, view.phase) for world in worlds]

    @staticmethod
    def _engine(world: Any, prefix: list[Any], phase: str) -> PastonDeal:
        deal = world.to_engine(prefix)
        if phase == "play":
            # the observation does not tell the order of the past tricks: the play's state is
            # set from the world (every field the rest of the play and its score read)
            deal.hands = list(world.hands)
            deal.played = list(world.played)
            deal.trick = list(world.trick)
            deal.tricks = list(world.tricks)
            deal.trick_count = sum(world.tricks)
            deal.to_act = world.to_act
            deal.leader = world.trick[0][0] if world.trick else world.to_act
            deal.phase = PASTON_PLAY
        return deal

    def _rollout(self, state: PastonDeal, action: int) -> float:
        deal = copy_state(state, self._LISTS)
        deal.apply(action)
        draw = self._draw
        while deal.phase != PASTON_OVER:
            deal.apply(_random_bit(deal.legal_bits(), draw))
        return float(deal.scores[self.seat_index])


make_paston_montecarlo = montecarlo_factory(PastonMonteCarlo, "paston")

__all__ = ["PastonMonteCarlo", "make_paston_montecarlo"]
