"""Paston's card-play rules as compiled kernels: the one copy every fast path calls.

The batched engine (:mod:`.batched`), the open-hand solver (:mod:`folkcards.search.paston_solver`)
and the heuristic (:mod:`folkcards.agents.paston_heuristic_core`) take these rules from here;
:mod:`.rules` states them in plain Python and stays the reference the differential tests compare
against (``tests/paston/test_kernels.py``). Cards are ids ``8 * suit + rank``, hands bitmasks.

- :func:`card_key`: how strongly a card plays in a trick (§6): a trump above every card of the
  led suit, a card of another suit nowhere. The trick's winner is the card with the highest key
  (:func:`trick_winner`); :func:`beats` compares a card with the trick's winning card.
- :func:`legal_cards`: follow suit if able, else trump if able, else any card (§5).
- :func:`declarer_points`, :func:`defender_points`: the score table (§7) by tricks taken, read
  from the tables :mod:`.rules` builds from its score functions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..compile_notice import install as _announce_compiles
from .rules import DECLARER_POINTS, LEVEL_FACTOR, SOLE_DEFENDER_POINTS, TWO_DEFENDER_POINTS

DECLARER_POINTS_ARRAY = np.array(DECLARER_POINTS, dtype=np.int64)  # [level, tricks]
DEFENDER_POINTS_ARRAY = np.array(  # [sole, tricks], before the level's factor
    [TWO_DEFENDER_POINTS, SOLE_DEFENDER_POINTS], dtype=np.int64
)
LEVEL_FACTOR_ARRAY = np.array(LEVEL_FACTOR, dtype=np.int64)


@njit(cache=True, inline="always")
def card_key(card: int, led: int, trump: int) -> int:
    """A card's strength in a trick whose led suit is ``led``: 16 + rank for a trump, 8 + rank
    for the led suit, 0 for any other card (it cannot win)."""
    suit = card >> 3
    if suit == trump:
        return 16 + (card & 7)
    if suit == led:
        return 8 + (card & 7)
    return 0


@njit(cache=True, inline="always")
def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` takes the trick from ``best``, the card winning it so far."""
    return card_key(card, best >> 3, trump) > card_key(best, best >> 3, trump)


@njit(cache=True)
def trick_winner(cards: np.ndarray, count: int, trump: int) -> int:
    """The index of the winning card among ``cards[:count]``, in play order from the lead."""
    best = 0
    for j in range(1, count):
        if beats(cards[j], cards[best], trump):
            best = j
    return best


@njit(cache=True, inline="always")
def legal_cards(hand: int, led: int, trump: int) -> int:
    """The cards of ``hand`` (a bitmask) that may be played; ``led`` is the led suit, -1 on
    lead."""
    if led >= 0:
        follow = hand & (0xFF << (8 * led))
        if follow != 0:
            return follow
        trumps = hand & (0xFF << (8 * trump))
        if trumps != 0:
            return trumps
    return hand


@njit(cache=True, inline="always")
def declarer_points(tricks: int, level: int) -> int:
    """The declarer's score with ``tricks`` tricks at contract ``level`` (factor applied)."""
    return DECLARER_POINTS_ARRAY[level, tricks]


@njit(cache=True, inline="always")
def defender_points(tricks: int, sole: bool, level: int) -> int:
    """A defender's score with ``tricks`` tricks (``sole``: the only defender), factor applied."""
    return DEFENDER_POINTS_ARRAY[1 if sole else 0, tricks] * LEVEL_FACTOR_ARRAY[level]


__all__ = [
    "beats",
    "card_key",
    "declarer_points",
    "defender_points",
    "legal_cards",
    "trick_winner",
]

_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
