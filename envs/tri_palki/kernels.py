"""Tri Palki's rules as compiled kernels: the one copy every fast path calls.

The batched engine (:mod:`.batched`), the heuristic (:mod:`folkcards.agents.tri_palki_heuristic_core`,
:mod:`folkcards.agents.tri_palki_heuristic_batched`) and the belief's likelihood
(:mod:`folkcards.search.tri_palki_likelihood`) take these rules from here; :mod:`.rules` states them
in plain Python and stays the reference the differential tests compare against
(``tests/tri_palki/test_kernels.py``). A hand is a bitmask over card ids ``9 * suit + rank``.

- :func:`hand_key`: a hand's value and rank as one comparable int (§3): the best suit's points,
  then its ranks, then the suit (``rules.hand_key``); :func:`hand_kind`: normal, safe or three
  aces (§3); :func:`may_announce`: a normal hand of 31 (§5).
- :func:`one_suit`: three cards of one suit (a centre that is washed, §4).
- :func:`swap`: what a swap action does to the hand and the centre (§4); :func:`swapped_cards`
  the same for card ids.
- :func:`stick_receivers`: who takes a stick when a round ends, and who deals next (§6).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from ..compile_notice import install as _announce_compiles
from .rules import (
    ACES,
    ANNOUNCE_VALUE,
    KEY_RANKS_SHIFT,
    KEY_VALUE_SHIFT,
    NORMAL,
    NUM_RANKS,
    RANK_BITS,
    SAFE,
    SIX_SEVEN_EIGHT,
    SIXES,
    SUIT_MASKS,
    SWAP_ALL,
    SWAP_BASE,
    THREE_ACES,
)
from .rules import SUIT_POINTS as _RULES_SUIT_POINTS

SUIT_POINTS = np.array(_RULES_SUIT_POINTS, dtype=np.int64)  # value of each 9-bit rank mask
LOW_BIT = np.array(
    [(r & -r).bit_length() - 1 if r else 0 for r in range(1 << NUM_RANKS)], dtype=np.int64
)
SUIT_MASK = np.array(SUIT_MASKS, dtype=np.int64)
SIX_SEVEN_EIGHT_ARRAY = np.array(SIX_SEVEN_EIGHT, dtype=np.int64)


@njit(cache=True)
def hand_key(mask: int) -> int:
    """The hand's key (``rules.hand_key``): a higher key is a better normal hand; the value is
    ``key >> KEY_VALUE_SHIFT``."""
    best = -1
    for s in range(4):
        ranks = (mask >> (NUM_RANKS * s)) & RANK_BITS
        if ranks:
            key = (SUIT_POINTS[ranks] << KEY_VALUE_SHIFT) | (ranks << KEY_RANKS_SHIFT) | s
            if key > best:
                best = key
    return best


@njit(cache=True)
def hand_kind(mask: int) -> int:
    """``SAFE`` (three sixes, or 6-7-8 of one suit), ``THREE_ACES`` or ``NORMAL``."""
    if mask & SIXES == mask:
        return SAFE
    for s in range(4):
        if mask == SIX_SEVEN_EIGHT_ARRAY[s]:
            return SAFE
    if mask & ACES == mask:
        return THREE_ACES
    return NORMAL


@njit(cache=True)
def may_announce(mask: int) -> bool:
    """Whether the hand is a normal hand of 31, which may announce."""
    return hand_kind(mask) == NORMAL and (hand_key(mask) >> KEY_VALUE_SHIFT) == ANNOUNCE_VALUE


@njit(cache=True)
def one_suit(mask: int) -> bool:
    """Whether every card of ``mask`` is of one suit (a centre of one suit is washed)."""
    for s in range(4):  # noqa: SIM110 - numba compiles the loop, not any() over a generator
        if mask & ~SUIT_MASK[s] == 0:
            return True
    return False


@njit(cache=True, inline="always")
def nth_card(mask: int, k: int) -> int:
    """The ``1 << card`` of the ``k``-th lowest card of ``mask`` (0 if it has fewer): card ids
    ``9 * suit + rank`` order the cards by suit, then rank."""
    for _ in range(k):
        mask &= mask - 1  # without its lowest card
    return mask & -mask


@njit(cache=True, inline="always")
def swap(hand: int, centre: int, action: int) -> tuple[int, int, int, int]:
    """(hand, centre, given, taken) after the swap ``action`` (``SWAP_BASE + 3 * h + c``: the
    hand's ``h``-th lowest card for the centre's ``c``-th lowest; ``SWAP_ALL``: all three)."""
    if action == SWAP_ALL:
        return centre, hand, hand, centre
    gave = nth_card(hand, (action - SWAP_BASE) // 3)
    took = nth_card(centre, (action - SWAP_BASE) % 3)
    return (hand & ~gave) | took, (centre & ~took) | gave, gave, took


def swapped_cards(hand: Sequence[int], centre: Sequence[int], action: int) -> tuple[int, int]:
    """(hand card, centre card) that the single swap ``action`` exchanges, from the card ids of
    the hand and the centre before it (for views and records)."""
    _, _, gave, took = swap(sum(1 << c for c in hand), sum(1 << c for c in centre), action)
    return int(gave).bit_length() - 1, int(took).bit_length() - 1


@njit(cache=True)
def stick_receivers(hands: np.ndarray) -> tuple[int, int]:
    """(seats that take a stick as a bitmask, the seat with the best normal hand or -1) when a
    round ends with ``hands`` (one per seat in the round): with three aces on the table every
    normal hand takes one, else the lowest normal hand."""
    any_aces = False
    low_seat = -1
    low_key = 0
    high_seat = -1
    high_key = 0
    for seat in range(len(hands)):
        hand = hands[seat]
        kind = hand_kind(hand)
        if kind == THREE_ACES:
            any_aces = True
        elif kind == NORMAL:
            key = hand_key(hand)
            if low_seat < 0 or key < low_key:
                low_seat, low_key = seat, key
            if high_seat < 0 or key > high_key:
                high_seat, high_key = seat, key
    receivers = 0
    for seat in range(len(hands)):
        if (any_aces and hand_kind(hands[seat]) == NORMAL) or (not any_aces and seat == low_seat):
            receivers |= 1 << seat
    return receivers, high_seat


__all__ = [
    "hand_key",
    "hand_kind",
    "may_announce",
    "nth_card",
    "one_suit",
    "stick_receivers",
    "swap",
    "swapped_cards",
]

_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
