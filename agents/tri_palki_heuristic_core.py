"""The Tri Palki heuristic's decision rules, written once and compiled once (numba).

Every Tri Palki player built on the heuristic calls these functions: the per-game
:class:`~folkcards.agents.tri_palki_heuristic.TriPalkiHeuristicAgent` (one decoded observation),
:class:`~folkcards.agents.tri_palki_heuristic_batched.BatchedTriPalkiHeuristic` and
``tri_palki_actions_batch`` (rows of observation vectors), and the rollout and opponent policy
of ``pimc`` (:func:`core_move`, the same rules without the two small terms).

Hands, the centre and the washed or known cards are 36-bit masks. The rules (see the
heuristic's module docstring): every swap is scored by the hand it leaves (three aces, then a
safe hand, then the normal hands by the comparison key, plus the *potential* of a two-card suit),
plus a wash bonus (or +-3 when the wash ends the round), minus a *feeding* cost for the cards it
puts in reach of an opponent whose cards are publicly known; then the pass rules decide.

The scores are float64 and computed with the same operations in the same order as the Python
agent had them, so ties and ``>`` comparisons fall as they did (the recorded baseline decisions
in ``tests/baseline`` and the reference in ``tests/agents/tri_palki_heuristic_reference.py``
check it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..envs.compile_notice import install as _announce_compiles
from ..envs.tri_palki.kernels import SUIT_POINTS, hand_key, hand_kind, one_suit, swap
from ..envs.tri_palki.rules import NUM_RANKS, POINTS
from ..envs.tri_palki.vocabulary import (
    KEY_VALUE_SHIFT,
    NORMAL,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
    THREE_ACES,
)

ACE = 8  # rank id of the ace
SAFE_SCORE = 40.0  # a safe hand (never a stick) scores above every normal hand
THREE_ACES_SCORE = 45.0  # three aces score above everything
ENDS_ROUND_SCORE = 3.0  # a wash that ends the round: +3 with a good hand, else -3
MOVES = SWAP_ALL + 1  # pass, nine single swaps, swap all

_KEY_LOW = float(1 << KEY_VALUE_SHIFT)
_KEY_LOW_MASK = (1 << KEY_VALUE_SHIFT) - 1
_ALL_CARDS = (1 << (4 * NUM_RANKS)) - 1
_ACES = sum(1 << (NUM_RANKS * suit + ACE) for suit in range(4))
_RANK_POINTS = np.array(POINTS, dtype=np.int64)
_POPCOUNT9 = np.array([bin(ranks).count("1") for ranks in range(512)], dtype=np.int64)
# points of the two lowest ranks of a suit's 9-bit rank mask (two known cards of a suit)
_TWO_LOWEST = np.array(
    [
        sum([POINTS[rank] for rank in range(NUM_RANKS) if ranks >> rank & 1][:2])
        for ranks in range(512)
    ],
    dtype=np.int64,
)


@dataclass(frozen=True)
class TriPalkiParams:
    """The tuned constants of the Tri Palki heuristic."""

    potential: float = 0.25  # weight of a two-card suit's reachable value above the hand
    feed: float = 0.0  # cost per point an opponent could gain from the cards given
    next_feed: float = 0.3  # extra weight for the next player to act
    three_aces_gift: float = 15.0  # cost of handing a third ace to a known pair of aces
    wash_bonus: float = 1.5  # acting again on three fresh cards
    strong: int = 30  # pass at or above this value unless a swap reaches 31 or a special
    end_round: int = 24  # take the deciding pass with at least this value
    min_gain: float = 0.5  # a swap must beat keeping the hand by this much


P_POTENTIAL, P_FEED, P_NEXT_FEED, P_GIFT, P_WASH, P_STRONG, P_END_ROUND, P_MIN_GAIN = range(8)
F_VALUE, F_KIND, F_WASHES, F_ENDS, F_BAD = range(5)  # rows of the per-move ``facts`` table


def params_array(params: TriPalkiParams) -> np.ndarray:
    """``params`` as the float64 array the compiled functions read (``P_*`` indices)."""
    return np.array(
        [
            params.potential, params.feed, params.next_feed, params.three_aces_gift,
            params.wash_bonus, params.strong, params.end_round, params.min_gain,
        ],
        dtype=np.float64,
    )  # fmt: skip


# The core rules of pimc's rollouts and opponent model: the heuristic without a two-card suit's
# potential and without feeding costs.
CORE_PARAMS = params_array(
    TriPalkiParams(potential=0.0, feed=0.0, next_feed=0.0, three_aces_gift=0.0)
)


@njit(cache=True)
def popcount(mask: int) -> int:
    """Cards in a 36-bit mask."""
    return (
        _POPCOUNT9[mask & 511]
        + _POPCOUNT9[(mask >> 9) & 511]
        + _POPCOUNT9[(mask >> 18) & 511]
        + _POPCOUNT9[(mask >> 27) & 511]
    )


@njit(cache=True)
def suit_value_of(cards: int) -> int:
    """The best one-suit sum of points among the cards of a mask (0 for no cards)."""
    best = 0
    for s in range(4):
        points = SUIT_POINTS[(cards >> (NUM_RANKS * s)) & 511]
        if points > best:
            best = points
    return best


@njit(cache=True)
def hand_value_of(hand: int) -> int:
    """The value of a three-card hand (the high part of its comparison key)."""
    return hand_key(hand) >> KEY_VALUE_SHIFT


@njit(cache=True)
def prepare(
    hand: int,
    centre: int,
    washed: int,
    known: np.ndarray,
    flags: np.ndarray,
    n: int,
    announced: bool,
    params: np.ndarray,
    pool: np.ndarray,
    seat_cards: np.ndarray,
    seat_weight: np.ndarray,
) -> int:
    """Fill the tables every swap shares: ``pool`` (count and points of each suit's cards that
    may still come to the centre: not in the hand, centre, washed or known elsewhere) and, for
    each seat a feeding cost is counted for (alive, with a turn left and known cards; relative
    seats in order), ``seat_cards`` (known cards, two known aces, best suit value) and
    ``seat_weight``. ``known[r]`` and ``flags`` (eliminated, final turn pending) are per relative
    seat. Returns the number of feeding seats."""
    seen = hand | centre | washed
    for r in range(1, n):
        seen |= known[r]
    unseen = _ALL_CARDS & ~seen
    for s in range(4):
        ranks = (unseen >> (NUM_RANKS * s)) & 511
        pool[0, s] = _POPCOUNT9[ranks]
        pool[1, s] = SUIT_POINTS[ranks]
    next_seat = -1
    for step in range(1, n):
        if not flags[0, step]:
            next_seat = step
            break
    count = 0
    for r in range(1, n):
        if flags[0, r] or (announced and not flags[1, r]) or known[r] == 0:
            continue  # eliminated, no turn left, or nothing known
        seat_cards[0, count] = known[r]
        seat_cards[1, count] = popcount(known[r] & _ACES) == 2
        seat_cards[2, count] = suit_value_of(known[r])
        seat_weight[count] = params[P_FEED] + (params[P_NEXT_FEED] if r == next_seat else 0.0)
        count += 1
    return count


@njit(cache=True)
def hand_score(
    hand: int, kind: int, key: int, pool: np.ndarray, final: bool, potential: float
) -> float:
    """A hand's score: three aces, a safe hand, else the comparison key as value + fraction,
    plus ``potential`` times the best gain a two-card suit could make with an average card of
    that suit still in play (not on a final turn, nor at 31)."""
    if kind != NORMAL:
        return THREE_ACES_SCORE if kind == THREE_ACES else SAFE_SCORE
    value = key >> KEY_VALUE_SHIFT
    score = value + (key & _KEY_LOW_MASK) / _KEY_LOW
    if final or value >= 31:
        return score
    best_gain = 0.0
    for s in range(4):
        ranks = (hand >> (NUM_RANKS * s)) & 511
        if _POPCOUNT9[ranks] != 2 or pool[0, s] == 0:
            continue
        mean = pool[1, s] / pool[0, s]
        reach = SUIT_POINTS[ranks] + mean
        weight = min(1.0, pool[0, s] / 4.0)
        gain = weight * (reach - value)
        if gain > best_gain:
            best_gain = gain
    return score + potential * best_gain


@njit(cache=True)
def feed_cost(
    given: int, seats: int, seat_cards: np.ndarray, seat_weight: np.ndarray, gift: float
) -> float:
    """The feeding cost of the ``given`` cards that stay in the centre: ``gift`` for a third ace
    to a known pair of aces, else the points a suit of two known cards would gain, weighted."""
    cost = 0.0
    for k in range(seats):
        seen = seat_cards[0, k]
        gain = 0.0
        rest = given
        while rest:  # ascending card order
            bit = rest & -rest
            rest ^= bit
            card = popcount(bit - 1)
            suit = card // NUM_RANKS
            rank = card % NUM_RANKS
            if seat_cards[1, k] and rank == ACE:
                cost += gift
                continue
            same = (seen >> (NUM_RANKS * suit)) & 511
            if _POPCOUNT9[same] < 2:
                continue
            diff = _TWO_LOWEST[same] + _RANK_POINTS[rank] - seat_cards[2, k]
            if diff > gain:
                gain = diff
        cost += gain * seat_weight[k]
    return cost


@njit(cache=True)
def assess_moves(
    hand: int,
    centre: int,
    announced: bool,
    reserve_low: bool,
    params: np.ndarray,
    pool: np.ndarray,
    seats: int,
    seat_cards: np.ndarray,
    seat_weight: np.ndarray,
    score: np.ndarray,
    facts: np.ndarray,
) -> float:
    """The score of keeping ``hand`` (three cards, as ``centre``) and, in column ``a`` (1..10)
    of ``score`` (rows: score, feeding cost) and ``facts`` (rows ``F_*``), the assessment of swap
    ``a``. ``F_BAD`` marks a swap that would leave other than three cards in the hand or the
    centre (hand and centre share a card): not a real table. ``pool`` and the feeding tables
    come from :func:`prepare`."""
    potential = params[P_POTENTIAL]
    keep = hand_score(hand, hand_kind(hand), hand_key(hand), pool, announced, potential)
    for a in range(SWAP_BASE, SWAP_ALL + 1):
        new_hand, new_centre, given, _ = swap(hand, centre, a)
        bad = popcount(new_hand) != 3 or popcount(new_centre) != 3
        facts[F_BAD, a] = bad
        if bad:
            continue
        kind = hand_kind(new_hand)
        key = hand_key(new_hand)
        value = key >> KEY_VALUE_SHIFT
        s = hand_score(new_hand, kind, key, pool, announced, potential)
        washes = one_suit(new_centre)
        ends = washes and reserve_low
        if washes:
            if ends:
                good = kind != NORMAL or value >= params[P_END_ROUND]
                s += ENDS_ROUND_SCORE if good else -ENDS_ROUND_SCORE
            else:
                s += params[P_WASH]
                new_centre = 0  # washed: the given cards leave the game
        feed = 0.0
        if seats:
            feed = feed_cost(given & new_centre, seats, seat_cards, seat_weight, params[P_GIFT])
        score[0, a] = s - feed
        score[1, a] = feed
        facts[F_VALUE, a] = value
        facts[F_KIND, a] = kind
        facts[F_WASHES, a] = washes
        facts[F_ENDS, a] = ends
    return keep


@njit(cache=True)
def choose_move(
    hand: int,
    keep: float,
    score: np.ndarray,
    facts: np.ndarray,
    legal: int,
    announced: bool,
    pass_ends: bool,
    params: np.ndarray,
) -> int:
    """The pass rules over assessed moves (``legal``: bit ``a`` set for a legal action ``a``):
    the best legal swap by (score, id), played if it beats keeping the hand, unless the hand is
    at 31, or strong (``strong``) and no swap reaches 31 or a special hand, or the deciding pass
    is offered with ``end_round`` or more; on a final turn only the final hand matters.
    ``-1`` if a legal swap is not a real one (``F_BAD``)."""
    best = -1
    for a in range(SWAP_BASE, SWAP_ALL + 1):
        if not legal >> a & 1:
            continue
        if facts[F_BAD, a]:
            return -1
        if best < 0 or score[0, a] >= score[0, best]:  # max by (score, action)
            best = a
    if best < 0:
        return PASS
    if announced:  # final turn: only the final hand matters
        return best if score[0, best] > keep else PASS
    value = hand_key(hand) >> KEY_VALUE_SHIFT
    reaches_top = facts[F_KIND, best] != NORMAL or facts[F_VALUE, best] >= 31
    hold = value >= 31 or (
        not reaches_top
        and (value >= params[P_STRONG] or (pass_ends and value >= params[P_END_ROUND]))
    )
    if not hold and score[0, best] > keep + params[P_MIN_GAIN]:
        return best
    return PASS


@njit(cache=True)
def scratch(n: int) -> tuple[np.ndarray, ...]:
    """Work arrays for one table of ``n`` seats: known cards, seat flags, pool, feeding seats'
    cards and weights, move scores, move facts."""
    return (
        np.zeros(n, dtype=np.int64),
        np.zeros((2, n), dtype=np.bool_),
        np.zeros((2, 4), dtype=np.int64),
        np.zeros((3, n), dtype=np.int64),
        np.zeros(n, dtype=np.float64),
        np.zeros((2, MOVES), dtype=np.float64),
        np.zeros((5, MOVES), dtype=np.int64),
    )


_CORE_POOL = np.zeros((2, 4), dtype=np.int64)
_CORE_SEATS = np.zeros((3, 1), dtype=np.int64)
_CORE_WEIGHT = np.zeros(1, dtype=np.float64)
_ALL_MOVES = (1 << MOVES) - 1


@njit(cache=True)
def core_move_into(
    hand: int,
    centre: int,
    reserve_low: bool,
    announced: bool,
    deciding: bool,
    score: np.ndarray,
    facts: np.ndarray,
) -> int:
    """:func:`core_move` with the caller's ``score`` and ``facts`` work arrays."""
    if hand_kind(hand) != NORMAL:
        return PASS  # never break a special hand
    keep = assess_moves(
        hand, centre, announced, reserve_low, CORE_PARAMS, _CORE_POOL, 0, _CORE_SEATS,
        _CORE_WEIGHT, score, facts,
    )  # fmt: skip
    move = choose_move(hand, keep, score, facts, _ALL_MOVES, announced, deciding, CORE_PARAMS)
    return PASS if move < 0 else move


@njit(cache=True)
def core_move(hand: int, centre: int, reserve_low: bool, announced: bool, deciding: bool) -> int:
    """The heuristic's core rules on a turn (all 11 moves legal): the heuristic without a
    two-card suit's potential and without feeding costs. ``hand`` and ``centre`` are three-card
    masks; ``reserve_low``: fewer than 3 reserve cards; ``announced``: this is a final turn;
    ``deciding``: a pass would end the round."""
    score = np.zeros((2, MOVES), dtype=np.float64)
    facts = np.zeros((5, MOVES), dtype=np.int64)
    return core_move_into(hand, centre, reserve_low, announced, deciding, score, facts)


@njit(cache=True)
def core_moves(
    hand: np.ndarray,
    centre: np.ndarray,
    reserve_low: np.ndarray,
    announced: np.ndarray,
    deciding: np.ndarray,
) -> np.ndarray:
    """:func:`core_move` for arrays of tables at once (int64 masks, bools): int64 moves."""
    score = np.zeros((2, MOVES), dtype=np.float64)
    facts = np.zeros((5, MOVES), dtype=np.int64)
    out = np.empty(hand.shape[0], dtype=np.int64)
    for i in range(hand.shape[0]):
        out[i] = core_move_into(
            hand[i], centre[i], reserve_low[i], announced[i], deciding[i], score, facts
        )
    return out


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
