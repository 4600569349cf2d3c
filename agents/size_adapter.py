"""Let a Tri Palki model trained at one table size play any other: an observation size adapter.

A Tri Palki observation has one block per seat, so a network trained at ``m`` players reads
only ``m``-player vectors. :func:`adapt_view` translates an ``n``-player
:class:`~folkcards.envs.tri_palki.observation.TriPalkiView` into the ``m``-player view the
model knows, from the observer's point of view (relative seats, clockwise):

- the observer stays seat 0, the next surviving player to act after it (its left) stays the
  first seat and the surviving player who acts just before it (its right) the last seat;
- the seats between are filled with the other survivors whose publicly known cards threaten
  most (best single-suit value of the known cards, then how many are known, then the nearest),
  in their clockwise order;
- a survivor left out is folded in: the cards publicly known to be in its hand are shown as
  washed (out of play for this hand, which is what they are to the observer), and the dealer,
  announcer or player to act, if left out, becomes the nearest kept seat before it;
- a table with fewer survivors than the model's seats is padded with eliminated seats between
  the left and right neighbours (a lone opponent is the left seat);
- the consecutive passes are shifted so that the passes still needed to end the round stay the
  same (``pass_ends_round`` is kept as it is).

Everything else (own hand, centre, reserve, announcement, phase, turn count) is copied. The
adapter sees only the observation, so it cannot leak anything.

Measured (duplicate tournaments of 300 rounds, seed 5, the committed 4-player model against
heuristics; sticks per round, PPO minus the heuristics at its tables, 95% t interval over
rounds): 3 players -0.005 [-0.025, +0.015], 5 players -0.015 [-0.029, +0.000], 8 players
-0.012 [-0.021, -0.003] (at its own size, 4 players: -0.010 [-0.027, +0.008]). At 8 players,
choosing the nearest middle seats instead of the most threatening one, or dropping instead of
folding the left-out seats' known cards, changed nothing measurable (-0.011, -0.012).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..envs.tri_palki.observation import TriPalkiView, decode, encode_view
from ..envs.tri_palki.rules import ELIMINATED_STICKS
from .features import FeatureSet, tri_palki_action_extra
from .tri_palki_heuristic import suit_value


def kept_seats(view: TriPalkiView, num_players: int) -> list[int | None]:
    """For each seat 1..``num_players``-1 of the adapted view, the relative seat of ``view`` it
    shows (``None`` = a padded eliminated seat)."""
    if num_players < 2:
        raise ValueError(f"a Tri Palki table has at least 2 players, not {num_players}")
    slots = num_players - 1
    living = [r for r in range(1, view.num_players) if not view.eliminated[r]]
    if len(living) <= slots:
        if len(living) <= 1:  # a lone opponent is the next to act: the left seat
            return [*living, *([None] * (slots - len(living)))]
        head, last = living[:-1], living[-1]
        return [*head, *([None] * (slots - len(living))), last]
    if slots == 1:
        return [living[0]]
    middle = living[1:-1]
    threat = sorted(middle, key=lambda r: (-suit_value(view.known[r]), -len(view.known[r]), r))[
        : slots - 2
    ]
    return [living[0], *sorted(threat), living[-1]]


def adapt_view(view: TriPalkiView, num_players: int) -> TriPalkiView:
    """``view`` as the ``num_players``-player view a model trained at that size reads."""
    if view.num_players == num_players:
        return view
    seats: list[int | None] = [0, *kept_seats(view, num_players)]
    real = [r for r in seats if r is not None]
    dropped = [r for r in range(1, view.num_players) if r not in real and not view.eliminated[r]]

    def nearest(r: int | None) -> int | None:
        """The adapted seat showing ``r``, or the nearest kept seat before it clockwise."""
        if r is None:
            return None
        return max(a for a, s in enumerate(seats) if s is not None and s <= r)  # seats ascend

    washed = sorted({*view.washed, *(c for r in dropped for c in view.known[r])})
    survivors = 1 + sum(1 for r in seats[1:] if r is not None)
    passes = view.passes
    if not view.announced:
        to_go = view.survivors - 1 - view.passes  # passes still needed to end the round
        passes = max(0, survivors - 1 - to_go)
    return replace(
        view,
        num_players=num_players,
        washed=washed,
        known=[[] if r is None else list(view.known[r]) for r in seats],
        sticks=[ELIMINATED_STICKS if r is None else view.sticks[r] for r in seats],
        eliminated=[r is None for r in seats],
        dealer=nearest(view.dealer) or 0,
        to_act=nearest(view.to_act),
        announcer=nearest(view.announcer),
        final_turn_pending=[r is not None and view.final_turn_pending[r] for r in seats],
        passes=passes,
    )


class TriPalkiSizeAdapter:
    """The Tri Palki registry entry's ``size_adapter``: a model's input at another table size."""

    # feature sets whose per-seat part it can translate
    features: tuple[str, ...] = ("tri_palki_actions",)

    @staticmethod
    def adapt(
        vector: np.ndarray, players: int, model_players: int, features: FeatureSet | None
    ) -> np.ndarray:
        """The ``model_players``-player model input for an observation of ``players`` players
        (with ``features``' extra elements, the per-seat block from the adapted table)."""
        view = decode(vector, players)
        adapted = adapt_view(view, model_players)
        obs = encode_view(adapted)
        if features is None:
            return obs
        return np.concatenate([obs, tri_palki_action_extra(view, adapted)])


SIZE_ADAPTER = TriPalkiSizeAdapter()

__all__ = ["SIZE_ADAPTER", "TriPalkiSizeAdapter", "adapt_view", "kept_seats"]
