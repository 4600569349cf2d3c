"""What one Paston observation fixes about the deal, and drawing deals that respect it.

**The deal distribution (checked against the engine).** ``random_deal`` draws a uniform
permutation of the 32 cards, reshuffles while the bottom card (deck position 31, which goes to
the dealer) is 7♠, deals, and starts again while a dealt hand is a six-spade hand (7–Q♠ without
K♠/A♠) or, on a game's first deal, J♠ and 7♠ both lie in the prikup. Every split of the cards
into hands and prikup comes from the same number of permutations, and when the dealer holds 7♠
exactly 1 in 10 of them has it at position 31, so the prior weight of a split is 9/10 if the
dealer's dealt hand holds 7♠, else 1, and 0 for a redealt split. Constraints used:

- hand sizes; the cards played by each seat; the observer's own hand (and, for the declarer,
  the prikup and discards);
- revealed voids (the ``voids`` piece): a seat void in a suit holds none of it now (the
  declarer's discards are not constrained: they were made before play);
- the prikup is any 2 of the declarer's 12 cards (dealt hand + prikup), played cards included;
- all-pass: the declarer is the holder of J♠ in the dealt hand, or of 7♠ with J♠ in the
  prikup (after a redeal, J♠ and 7♠ are both in the prikup);
- a game's first deal (``first_deal``): the first bidder is designated the same way, and J♠ and
  7♠ are not both in the prikup;
- no dealt hand is a six-spade hand; the 9/10 weight above.

**How.** :func:`plan_worlds` checks an observation and fixes what its worlds share; the unknown
cards are split among the hidden slots (hands now, the prikup before it is taken, the discards)
uniformly among the splits that respect the voids and sizes, exactly, by
:class:`folkcards.search.belief.PartitionSampler`; a non-declarer observer's world also picks
which 2 of the declarer's 12 cards were the prikup, uniformly. :func:`draw_worlds` then accepts
each draw with probability equal to its prior weight (1, 9/10 or 0). This rejection step is the
only one: it is fast except where the designation rules reject most draws (e.g. an all-pass
declarer who turned out void in spades while J♠ is unseen).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..envs.cards import cards_to_mask, mask_to_cards, popcount
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import (
    ALL_CARDS,
    JACK_OF_SPADES,
    NUM_SEATS,
    SEVEN_OF_SPADES,
    left_of,
    right_of,
)
from .belief import PartitionSampler, check_seat
from .paston_history import history_items

__all__ = [
    "DEALER_SEVEN_WEIGHT",
    "Plan",
    "absolute_totals",
    "draw_worlds",
    "first_deal_flag",
    "plan_worlds",
]

DEALER_SEVEN_WEIGHT = 0.9
"""Prior weight of a deal where the dealer holds 7♠ (the bottom card is never 7♠)."""


@dataclass
class Plan:
    """Everything the worlds of one observation share: the sampler of its unknown cards and
    the known fields."""

    observer: int
    dealer: int
    first_bidder: int
    first_deal: bool
    all_pass: bool
    declarer: int | None
    case: str  # "auction", "declarer", "defender"
    sampler: PartitionSampler
    own_dealt: int  # the observer's dealt hand (cases "declarer" and "defender")
    hand_o: int
    played: tuple[int, int, int]
    prikup: int  # known prikup (case "declarer")
    discards: int  # known discards (case "declarer")
    others: tuple[int, ...]  # seats of the sampler's hand slots
    base: dict[str, Any]


def _check_card_pieces(vector: np.ndarray) -> None:
    pieces = vector[: obs_mod.CARD_PIECES_SIZE]
    if not np.all((pieces == 0) | (pieces == 1)):
        raise ValueError("the observation's card pieces must be 0 or 1")


class _Slots(NamedTuple):
    """What one case of :func:`plan_worlds` fixes: the hidden slots and the observer's known cards."""

    case: str  # "auction", "declarer", "defender"
    sampler: PartitionSampler
    own_dealt: int
    others: tuple[int, ...]  # seats of the sampler's hand slots
    prikup: int = 0
    discards: int = 0


def _absolute(observer: int, rel: int) -> int:
    return (observer + rel) % NUM_SEATS


def absolute_totals(view: obs_mod.PastonView, o: int) -> tuple[int, ...] | None:
    """Game mode totals by absolute seat (``None`` in deal mode)."""
    if view.totals is None:
        return None
    return tuple(int(round(view.totals[(s - o) % NUM_SEATS])) for s in range(NUM_SEATS))


def first_deal_flag(
    first_deal: Any, dealer: int, first_bidder: int, totals: tuple[int, ...] | None
) -> bool:
    """Whether this is a game's first deal: ``first_deal`` checked against the observation, or
    inferred from it where it tells (a first bidder other than the dealer's left, or a score)."""
    if first_deal is not None and not isinstance(first_deal, (bool, np.bool_)):
        raise ValueError(f"first_deal must be True, False or None, got {first_deal!r}")
    if totals is None:
        if first_deal:
            raise ValueError(
                "first_deal=True applies to game mode only (a deal-mode deal never is)"
            )
        is_first = False
    elif first_deal is not None:
        is_first = bool(first_deal)
        if not is_first and first_bidder != left_of(dealer):
            raise ValueError("first_deal=False, but the first bidder is not the dealer's left")
    elif first_bidder != left_of(dealer):
        is_first = True
    elif any(totals):
        is_first = False
    else:
        raise ValueError(
            "cannot tell from the observation whether this is the game's first deal: "
            "pass first_deal=True or False"
        )
    if not is_first and first_bidder != left_of(dealer):
        raise ValueError("the first bidder is not the dealer's left on a later deal")
    return is_first


def _observed_cards(
    view: obs_mod.PastonView, o: int
) -> tuple[tuple[int, int, int], list[int], int]:
    """Cards played and suit voids by absolute seat, and the observer's hand; checks that no
    card is shown twice."""
    played: list[int] = [0, 0, 0]
    voids = [0, 0, 0]
    for r in range(NUM_SEATS):
        played[_absolute(o, r)] = cards_to_mask(view.played[r])
        voids[_absolute(o, r)] = sum(1 << s for s in range(4) if view.voids[r][s])
    hand_o = cards_to_mask(view.hand)
    seen = hand_o
    for mask in played:
        if seen & mask:
            raise ValueError("the observation shows a card both in hand and played")
        seen |= mask
    return (played[0], played[1], played[2]), voids, hand_o


def _public_fields(
    view: obs_mod.PastonView,
    o: int,
    played: tuple[int, int, int],
    history: Any,
    items: list[tuple[int | None, Any]] | None,
) -> dict[str, Any]:
    """The :class:`PastonWorld` fields every world of the observation shares, apart from the
    deal's dealer, first bidder, first-deal flag and totals."""
    declarer = _absolute(o, view.declarer) if view.declarer is not None else None
    fields: dict[str, Any] = {
        "observer": o,
        "phase": view.phase,
        "played": played,
        "trick": tuple((_absolute(o, r), c) for r, c in view.trick),
        "declarer": declarer,
        "trump": view.trump,
        "active": (),
        "to_act": _absolute(o, view.to_act) if view.to_act is not None else None,
        "tricks": tuple(view.tricks[(s - o) % NUM_SEATS] for s in range(NUM_SEATS)),
        "history": tuple(history) if history is not None else None,
        "parsed_history": tuple(items) if items is not None else None,
    }
    if view.phase == "play" or (view.phase == "over" and any(view.whist)):
        whisters = [_absolute(o, r) for r in range(NUM_SEATS) if view.whist[r]]
        if declarer is not None:
            fields["active"] = tuple(sorted([declarer, *whisters]))
    return fields


def _auction_slots(
    view: obs_mod.PastonView, o: int, played: tuple[int, int, int], hand_o: int
) -> _Slots:
    """No declarer yet: the two other hands and the prikup are all unknown."""
    if any(played) or view.phase not in ("auction", "over"):
        raise ValueError("the observation has no declarer but is past the auction")
    if popcount(hand_o) != 10:
        raise ValueError(f"the observer holds {popcount(hand_o)} cards in the auction, not 10")
    sampler = PartitionSampler(mask_to_cards(ALL_CARDS & ~hand_o), [10, 10, 2], [0, 0, 0], 8)
    return _Slots("auction", sampler, hand_o, (left_of(o), right_of(o)))


def _declarer_slots(
    view: obs_mod.PastonView, o: int, played: tuple[int, int, int], voids: list[int], hand_o: int
) -> _Slots:
    """The observer declares: it knows the prikup and its discards; the defenders' unplayed
    cards are unknown."""
    x, y = left_of(o), right_of(o)
    seen = hand_o | played[0] | played[1] | played[2]
    prikup = cards_to_mask(view.prikup)
    discards = cards_to_mask(view.discards)
    if popcount(prikup) != 2:
        raise ValueError("the declarer's observation must show the two prikup cards")
    if discards & (hand_o | seen) or prikup & ~(hand_o | played[o] | discards):
        raise ValueError("the declarer's prikup and discards contradict the hand")
    own_dealt = (hand_o | played[o] | discards) & ~prikup
    if popcount(own_dealt) != 10:
        raise ValueError("the declarer's hand, plays and discards do not add up to 12 cards")
    unknown = ALL_CARDS & ~(hand_o | discards | played[0] | played[1] | played[2])
    sizes = [10 - popcount(played[x]), 10 - popcount(played[y])]
    sampler = PartitionSampler(mask_to_cards(unknown), sizes, [voids[x], voids[y]], 8)
    return _Slots("declarer", sampler, own_dealt, (x, y), prikup, discards)


def _discards_made(view: obs_mod.PastonView, items: list[tuple[int | None, Any]] | None) -> int:
    """How many cards the declarer has discarded (2 once past the discard phase)."""
    if view.phase != "discard":
        return 2
    if items is None:
        raise ValueError(
            "in the discard phase the history is needed to tell how many cards the "
            "declarer has discarded"
        )
    k = sum(1 for _, a in items if a is None or (isinstance(a, (int, np.integer)) and a < 32))
    if k > 1:
        raise ValueError("history has the declarer's discards finished but the phase is discard")
    return k


def _defender_slots(
    view: obs_mod.PastonView,
    o: int,
    d: int,
    played: tuple[int, int, int],
    voids: list[int],
    hand_o: int,
    items: list[tuple[int | None, Any]] | None,
) -> _Slots:
    """Another seat ``d`` declares: the other non-declarer's hand, the declarer's hand and its
    ``k`` discards so far are unknown (which 2 of the declarer's 12 were the prikup is drawn
    later)."""
    x, y = left_of(o), right_of(o)
    other = x if d == y else y
    k = _discards_made(view, items)
    own_dealt = hand_o | played[o]
    if popcount(own_dealt) != 10:
        raise ValueError("the observer's hand and plays do not add up to 10 cards")
    unknown = ALL_CARDS & ~(hand_o | played[0] | played[1] | played[2])
    sizes = [10 - popcount(played[other]), 12 - k - popcount(played[d]), k]
    sampler = PartitionSampler(mask_to_cards(unknown), sizes, [voids[other], voids[d], 0], 8)
    return _Slots("defender", sampler, own_dealt, (other, d))


def _check_observer_fits(items: list[tuple[int | None, Any]] | None, first_bidder: int) -> None:
    """The history's first actor is the first bidder: with agent names in the history, a wrong
    ``observer`` puts the observation's first bidder at another seat."""
    if items and items[0][0] is not None and items[0][0] != first_bidder:
        raise ValueError(
            f"observer does not match the observation: with this observer the first bidder "
            f"is player_{first_bidder}, but the history starts with player_{items[0][0]}"
        )


def plan_worlds(vector: np.ndarray, history: Any, observer: Any, first_deal: Any) -> Plan:
    """Check one observation and fix everything its worlds share: the sampler of the unknown
    cards and the known fields."""
    if observer is None:
        raise ValueError(
            "sample_worlds needs observer= (the observer's seat, e.g. 2 or 'player_2'): the "
            "observation is relative to its player"
        )
    o = check_seat(observer, NUM_SEATS)
    _check_card_pieces(vector)
    view = obs_mod.decode(vector)
    dealer = _absolute(o, view.dealer)
    first_bidder = _absolute(o, view.first_bidder)
    totals = absolute_totals(view, o)
    is_first = first_deal_flag(first_deal, dealer, first_bidder, totals)
    played, voids, hand_o = _observed_cards(view, o)
    items = history_items(history) if history is not None else None
    _check_observer_fits(items, first_bidder)
    base = {
        "dealer": dealer,
        "first_bidder": first_bidder,
        "first_deal": is_first,
        "totals": totals,
        **_public_fields(view, o, played, history, items),
    }
    declarer = base["declarer"]
    if declarer is None:
        slots = _auction_slots(view, o, played, hand_o)
    elif declarer == o:
        slots = _declarer_slots(view, o, played, voids, hand_o)
    else:
        slots = _defender_slots(view, o, declarer, played, voids, hand_o, items)
    return Plan(
        observer=o,
        dealer=dealer,
        first_bidder=first_bidder,
        first_deal=is_first,
        all_pass=view.all_pass,
        declarer=declarer,
        case=slots.case,
        sampler=slots.sampler,
        own_dealt=slots.own_dealt,
        hand_o=hand_o,
        played=played,
        prikup=slots.prikup,
        discards=slots.discards,
        others=slots.others,
        base=base,
    )


_U1 = np.uint64(1)
_SIX_RUN = np.uint64(0b00111111)
_HONOURS = np.uint64(0b11000000)


def _nth_card(masks: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Per row, the card id of the ``index``-th (0-based, ascending) set bit of ``masks``."""
    bits = (masks[:, None] >> np.arange(32, dtype=np.uint64)[None, :]) & _U1
    ranks = np.cumsum(bits, axis=1) - 1
    return np.argmax((ranks == index[:, None]) & (bits == 1), axis=1).astype(np.uint64)


def _designee(dealt: np.ndarray) -> np.ndarray:
    """Vectorised :func:`spade_designee` over rows of three dealt hands."""
    out = np.full(len(dealt), -1, dtype=np.int64)
    for card in (SEVEN_OF_SPADES, JACK_OF_SPADES):  # J♠ last, so it wins
        for seat in range(NUM_SEATS):
            out[((dealt[:, seat] >> np.uint64(card)) & _U1) == 1] = seat
    return out


def draw_worlds(
    plan: Plan, rng: np.random.Generator, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``m`` candidate worlds as arrays; the rows the deal constraints accept are returned."""
    masks = plan.sampler.sample_many(rng, m)
    o = plan.observer
    played = [np.uint64(p) for p in plan.played]
    dealt = np.zeros((m, NUM_SEATS), dtype=np.uint64)
    hands = np.zeros((m, NUM_SEATS), dtype=np.uint64)
    discards = np.zeros(m, dtype=np.uint64)
    if plan.case == "auction":
        x, y = plan.others
        dealt[:, o], dealt[:, x], dealt[:, y] = plan.own_dealt, masks[:, 0], masks[:, 1]
        prikup = masks[:, 2]
        hands[:] = dealt
    elif plan.case == "declarer":
        x, y = plan.others
        prikup = np.full(m, plan.prikup, dtype=np.uint64)
        discards[:] = plan.discards
        dealt[:, o] = plan.own_dealt
        dealt[:, x] = masks[:, 0] | played[x]
        dealt[:, y] = masks[:, 1] | played[y]
        hands[:, o], hands[:, x], hands[:, y] = plan.hand_o, masks[:, 0], masks[:, 1]
    else:
        x, d = plan.others
        discards = masks[:, 2]
        twelve = masks[:, 1] | played[d] | discards
        i = rng.integers(12, size=m)
        j = rng.integers(11, size=m)
        j += j >= i
        prikup = (_U1 << _nth_card(twelve, i)) | (_U1 << _nth_card(twelve, j))
        dealt[:, o] = plan.own_dealt
        dealt[:, x] = masks[:, 0] | played[x]
        dealt[:, d] = twelve & ~prikup
        hands[:, o], hands[:, x], hands[:, d] = plan.hand_o, masks[:, 0], masks[:, 1]
    accept = np.ones(m, dtype=bool)
    for seat in range(NUM_SEATS):
        accept &= ~(((dealt[:, seat] & _SIX_RUN) == _SIX_RUN) & ((dealt[:, seat] & _HONOURS) == 0))
    if plan.first_deal:
        accept &= _designee(dealt) == plan.first_bidder
    if plan.all_pass:
        accept &= _designee(dealt) == (plan.declarer if plan.declarer is not None else -1)
    dealer_seven = ((dealt[:, plan.dealer] >> np.uint64(SEVEN_OF_SPADES)) & _U1) == 1
    accept &= ~dealer_seven | (rng.random(m) < DEALER_SEVEN_WEIGHT)
    return dealt[accept], hands[accept], prikup[accept], discards[accept]
