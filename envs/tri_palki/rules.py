"""The Tri Palki rules engine: hand values, the deal, washes, turns, announcing and sticks.

Free of PettingZoo and gymnasium: seats are ints ``0..n-1`` (clockwise), cards are ids
``9 * suit + rank`` (see ``folkcards.envs.cards``) and hands, the centre and the washed cards
are 36-bit masks. Every three-card mask (hand or centre) is looked up in :data:`TRIPLES`, a
table precomputed at import, so a step costs a few dict look-ups and bit operations.

Legal actions are a 13-bit mask over the action ids of :mod:`.vocabulary`. The rules are
explained in ``docs/rules/tri_palki.md``; the ``§`` marks in comments number them as the original
specification did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..cards import TRI_PALKI_CARDS, check_full_deck, mask_to_cards
from .vocabulary import (  # noqa: F401  (the vocabulary is re-exported: rules.PASS etc.)
    ACTION,
    ACTION_BITS,
    ANNOUNCE,
    ANNOUNCE_BITS,
    ANNOUNCE_DECISION,
    KEY_RANKS_SHIFT,
    KEY_VALUE_SHIFT,
    KIND_NAMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_ANNOUNCE,
    NORMAL,
    NUM_ACTIONS,
    OUTCOMES,
    OVER,
    PASS,
    PHASE_NAMES,
    SAFE,
    SWAP_ALL,
    SWAP_BASE,
    THREE_ACES,
    Phase,
)

NUM_CARDS = 36
NUM_RANKS = 9
MAX_STICKS = 3  # a fourth stick eliminates (§6)
ELIMINATED_STICKS = 4  # what `sticks` reads for an eliminated player
MAX_RESERVE = NUM_CARDS - 3 * MIN_PLAYERS - 3  # 27, the reserve after a 2-player deal

POINTS = (6, 7, 8, 9, 10, 10, 10, 10, 11)  # ranks 6 7 8 9 10 J Q K A (§1)
RANK_BITS = (1 << NUM_RANKS) - 1  # one suit's ranks in a card mask, shifted down
SUIT_MASKS = tuple(RANK_BITS << (NUM_RANKS * suit) for suit in range(4))
SIXES = sum(1 << (NUM_RANKS * suit) for suit in range(4))
ACES = sum(1 << (NUM_RANKS * suit + 8) for suit in range(4))
SIX_SEVEN_EIGHT = tuple(0b111 << (NUM_RANKS * suit) for suit in range(4))
ALL_CARDS = (1 << NUM_CARDS) - 1
ANNOUNCE_VALUE = 31  # a normal hand of this value may announce (§5)

# Comparison key of one suit's cards: value, then the 9-bit rank mask (comparing the masks as
# integers is comparing the ranks from the top down), then the suit (H > D > C > S):
# ``value << KEY_VALUE_SHIFT | ranks << KEY_RANKS_SHIFT | suit`` (the shifts are the vocabulary's;
# the batched engine and the heuristics build and read keys with these names).
SUIT_POINTS = tuple(
    sum(POINTS[rank] for rank in range(NUM_RANKS) if ranks >> rank & 1) for ranks in range(512)
)


def _suit_key(hand: int, suit: int) -> int:
    ranks = (hand >> (NUM_RANKS * suit)) & 511
    if not ranks:
        return -1
    return (SUIT_POINTS[ranks] << KEY_VALUE_SHIFT) | (ranks << KEY_RANKS_SHIFT) | suit


def _kind(hand: int) -> int:
    if hand & SIXES == hand or hand in SIX_SEVEN_EIGHT:
        return SAFE
    if hand & ACES == hand:
        return THREE_ACES
    return NORMAL


@dataclass(frozen=True)
class Triple:
    """Precomputed facts about a three-card mask (a hand or the centre)."""

    cards: tuple[int, int, int]  # ascending card ids: the h and c of the swap actions
    bits: tuple[int, int, int]  # 1 << card for each of ``cards``
    key: int  # the comparison key of the hand: higher beats lower, never equal for two hands
    value: int  # best single-suit value (§2)
    suit: int  # the scoring suit
    kind: int  # NORMAL, SAFE or THREE_ACES
    one_suit: bool  # all three cards of one suit (a centre like this is washed, §4)
    normal_31: bool  # a normal hand worth 31: may announce (§5)


def _triple(mask: int) -> Triple:
    cards = tuple(mask_to_cards(mask))
    key = max(_suit_key(mask, suit) for suit in range(4))
    kind = _kind(mask)
    value = key >> KEY_VALUE_SHIFT
    return Triple(
        cards=cards,  # type: ignore[arg-type]
        bits=tuple(1 << c for c in cards),  # type: ignore[arg-type]
        key=key,
        value=value,
        suit=key & 3,
        kind=kind,
        one_suit=any(mask & ~suit_mask == 0 for suit_mask in SUIT_MASKS),
        normal_31=kind == NORMAL and value == ANNOUNCE_VALUE,
    )


TRIPLES: dict[int, Triple] = {
    sum(1 << c for c in combo): _triple(sum(1 << c for c in combo))
    for combo in combinations(range(NUM_CARDS), 3)
}
_ONE_SUIT = {mask: t.one_suit for mask, t in TRIPLES.items()}


# --- hands, for users and tests ---------------------------------------------------------------


def _hand_mask(hand: int | Sequence[int | str]) -> int:
    if isinstance(hand, int):
        mask = hand
    else:
        cards = TRI_PALKI_CARDS.parse_cards(hand, "hand", 3)
        mask = sum(1 << c for c in cards)
    if mask not in TRIPLES:
        raise ValueError(f"a hand is three different cards, got mask {mask:#x}")
    return mask


def hand_value(hand: int | Sequence[int | str]) -> int:
    """Best single-suit value of a three-card hand (a mask, or card ids / strings) (§2)."""
    return TRIPLES[_hand_mask(hand)].value


def hand_key(hand: int | Sequence[int | str]) -> int:
    """Comparison key (§2): value, scoring ranks top down, scoring suit. Higher is better."""
    return TRIPLES[_hand_mask(hand)].key


def hand_kind(hand: int | Sequence[int | str]) -> str:
    """``normal``, ``safe`` (three sixes, or 6-7-8 of one suit) or ``three_aces`` (§2)."""
    return KIND_NAMES[TRIPLES[_hand_mask(hand)].kind]


def key_score(key: int) -> float:
    """A comparison key as one float: the hand's value, then a fraction for its ranks and suit."""
    low = key & ((1 << KEY_VALUE_SHIFT) - 1)
    return (key >> KEY_VALUE_SHIFT) + low / float(1 << KEY_VALUE_SHIFT)


def scoring_suit(hand: int | Sequence[int | str]) -> int:
    """The suit (S=0 C=1 D=2 H=3) whose key is the hand's key (§2)."""
    return TRIPLES[_hand_mask(hand)].suit


# --- the deal (§3) ----------------------------------------------------------------------------


def parse_deck(deck: Any) -> list[int]:
    """Validate a user-given deck: all 36 cards once each, as ids or strings (any case)."""
    cards = TRI_PALKI_CARDS.parse_cards(deck, "option 'deck'")
    check_full_deck(cards, TRI_PALKI_CARDS, "option 'deck'")
    return cards


def deal_order(dealer: int, alive: Sequence[bool]) -> list[int]:
    """Surviving seats in the order they receive cards: from the dealer's left, dealer last."""
    n = len(alive)
    order = []
    seat = dealer
    for _ in range(n):
        seat = (seat + 1) % n
        if alive[seat]:
            order.append(seat)
    return order


def next_alive(seat: int, alive: Sequence[bool]) -> int:
    """The next surviving seat clockwise after ``seat`` (``seat`` itself need not survive)."""
    n = len(alive)
    for step in range(1, n + 1):
        nxt = (seat + step) % n
        if alive[nxt]:
            return nxt
    raise ValueError("nobody survives")


class TriPalkiRound:
    """The state of one round, from the deal to the revealed hands. Mutated by :meth:`apply`.

    ``alive`` marks the seats that take part (eliminated seats hold no cards and never act).
    """

    __slots__ = (
        "num_seats",
        "alive",
        "survivors",
        "dealer",
        "deck",
        "hands",
        "centre",
        "dealt_centre",
        "reserve",
        "top",
        "washed",
        "washes",
        "known",
        "left",
        "to_act",
        "phase",
        "passes",
        "announcer",
        "final_left",
        "turns",
        "outcome",
        "history",
    )

    def __init__(self, deck: Sequence[int], dealer: int, alive: Sequence[bool]):
        n = len(alive)
        if not alive[dealer]:
            raise ValueError(f"the dealer player_{dealer} has been eliminated")
        self.num_seats = n
        self.alive = tuple(bool(a) for a in alive)
        order = deal_order(dealer, self.alive)
        self.survivors = len(order)
        self.left = tuple(next_alive(seat, self.alive) for seat in range(n))
        self.dealer = dealer
        self.deck = tuple(int(c) for c in deck)
        hands = [0] * n
        centre = 0
        position = 0
        for _ in range(3):  # §3: one card to each player from the dealer's left, then the centre
            for seat in order:
                hands[seat] |= 1 << self.deck[position]
                position += 1
            centre |= 1 << self.deck[position]
            position += 1
        self.hands = hands
        self.centre = centre
        self.reserve = self.deck[position:]  # top first
        self.top = 0  # reserve cards drawn so far
        self.washed = 0
        self.washes: list[int] = []  # each washed centre, in order
        self.known = [0] * n  # cards each seat is publicly known to hold (§9)
        self.dealt_centre = centre
        self.to_act = dealer  # §5: the dealer acts first
        self.phase = ACTION
        self.passes = 0
        self.announcer = -1
        self.final_left = 0  # final turns still to complete after an announcement
        self.turns = 0  # completed turns (an action, its wash repeats, the announce decision)
        self.outcome: str | None = None
        self.history: list[tuple[int, int]] = []
        if _ONE_SUIT[centre] and not self._wash():  # §4: washes at the deal too
            self._finish("reserve_empty")

    # --- legal actions ---------------------------------------------------------------------

    def legal_bits(self) -> int:
        """The legal actions of the seat to act, as a bitmask over the 13 action ids."""
        phase = self.phase
        if phase == ACTION:
            return ACTION_BITS
        if phase == ANNOUNCE_DECISION:
            return ANNOUNCE_BITS
        return 0

    def swap_cards(self, action: int) -> tuple[int, int]:
        """``(hand card, centre card)`` that swap action ``action`` (1..9) exchanges now."""
        h, c = divmod(action - SWAP_BASE, 3)
        return TRIPLES[self.hands[self.to_act]].cards[h], TRIPLES[self.centre].cards[c]

    # --- transitions -----------------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Apply a legal action of the seat to act (the caller checks legality)."""
        seat = self.to_act
        self.history.append((seat, action))
        if self.phase == ANNOUNCE_DECISION:
            if action == ANNOUNCE:
                self.announcer = seat
                self.final_left = self.survivors - 1
                self._end_turn(seat, announced_now=True)
            else:
                self._end_turn(seat, announced_now=False)
            return
        if action == PASS:
            self.passes += 1
            if self.announcer < 0 and self.passes >= self.survivors:
                self._finish("all_passed")  # the n-th consecutive pass ends at once
                return
            self._action_done(seat)
            return
        self.passes = 0  # §5: any swap resets the count
        hand = self.hands[seat]
        centre = self.centre
        if action == SWAP_ALL:
            self.hands[seat] = centre
            self.centre = hand
            self.known[seat] = centre
        else:
            h, c = divmod(action - SWAP_BASE, 3)
            gave = TRIPLES[hand].bits[h]
            took = TRIPLES[centre].bits[c]
            self.hands[seat] = hand ^ gave ^ took
            self.centre = centre ^ took ^ gave
            self.known[seat] = (self.known[seat] & ~gave) | took
        if _ONE_SUIT[self.centre]:
            if not self._wash():
                self._finish("reserve_empty")
            return  # §4: the same player acts again after the replacement
        self._action_done(seat)

    def _action_done(self, seat: int) -> None:
        """An action that caused no wash: the turn ends, after the announce decision if offered."""
        if self.announcer < 0 and TRIPLES[self.hands[seat]].normal_31:
            self.phase = ANNOUNCE_DECISION
            return
        self._end_turn(seat, announced_now=False)

    def _end_turn(self, seat: int, announced_now: bool) -> None:
        self.turns += 1
        self.phase = ACTION
        if self.announcer >= 0 and not announced_now:
            self.final_left -= 1
            if self.final_left <= 0:
                self._finish("announced")
                return
        self.to_act = self.left[seat]

    def _wash(self) -> bool:
        """Wash until the centre shows two suits; ``False`` if the reserve runs short (§4)."""
        while _ONE_SUIT[self.centre]:
            top = self.top
            if len(self.reserve) - top < 3:
                return False
            self.washed |= self.centre
            self.washes.append(self.centre)
            reserve = self.reserve
            self.centre = (1 << reserve[top]) | (1 << reserve[top + 1]) | (1 << reserve[top + 2])
            self.top = top + 3
        return True

    def end(self, outcome: str) -> None:
        """End the round now with ``outcome``: the hands are scored as they stand."""
        self._finish(outcome)

    def _finish(self, outcome: str) -> None:
        self.outcome = outcome
        self.phase = OVER
        self.to_act = -1

    # --- derived facts ---------------------------------------------------------------------

    @property
    def reserve_count(self) -> int:
        return len(self.reserve) - self.top

    def reserve_cards(self) -> list[int]:
        """The undrawn reserve, top first (hidden from every player)."""
        return list(self.reserve[self.top :])

    def final_pending(self) -> list[int]:
        """Seats still owed a final turn after the announcement, the one taking it first."""
        if self.announcer < 0 or self.phase == OVER:
            return []
        seats = []
        seat = self.to_act
        for _ in range(self.final_left):
            seats.append(seat)
            seat = self.left[seat]
        return seats

    def hand_cards(self, seat: int) -> list[int]:
        return mask_to_cards(self.hands[seat])


@dataclass(frozen=True)
class Settlement:
    """What the revealed hands decide (§6, §7). Lists are indexed by seat."""

    stick: list[bool]
    sticks: list[int]  # after the round; 4 = eliminated
    eliminated: list[bool]  # eliminated in this round
    alive: list[bool]  # surviving after this round
    next_dealer: int
    values: list[int]
    kinds: list[int]  # -1 for seats that took no part


def settle(
    hands: Sequence[int], alive: Sequence[bool], sticks: Sequence[int], dealer: int
) -> Settlement:
    """Give the sticks and choose the next dealer from the final hands (§6, §7)."""
    n = len(alive)
    players = [seat for seat in range(n) if alive[seat]]
    info = {seat: TRIPLES[hands[seat]] for seat in players}
    normals = [seat for seat in players if info[seat].kind == NORMAL]
    if any(info[seat].kind == THREE_ACES for seat in players):
        receivers = normals
    elif normals:
        receivers = [min(normals, key=lambda seat: info[seat].key)]
    else:
        receivers = []
    stick = [False] * n
    new_sticks = list(sticks)
    eliminated = [False] * n
    for seat in receivers:
        stick[seat] = True
        if new_sticks[seat] >= MAX_STICKS:
            new_sticks[seat] = ELIMINATED_STICKS
            eliminated[seat] = True
        else:
            new_sticks[seat] += 1
    alive_after = [alive[seat] and not eliminated[seat] for seat in range(n)]
    if normals:
        best = max(normals, key=lambda seat: info[seat].key)
        next_dealer = best if alive_after[best] else next_alive(best, alive_after)
    else:
        next_dealer = dealer  # §6: nobody gets a stick and the same dealer deals again
    return Settlement(
        stick=stick,
        sticks=new_sticks,
        eliminated=eliminated,
        alive=alive_after,
        next_dealer=next_dealer,
        values=[info[seat].value if seat in info else 0 for seat in range(n)],
        kinds=[info[seat].kind if seat in info else -1 for seat in range(n)],
    )


class TriPalkiMatch:
    """A match: rounds until one player survives. Holds the sticks, who survives and who deals
    next; :meth:`deal` starts a round among the survivors and :meth:`settle` scores it (§6, §7)."""

    __slots__ = ("sticks", "alive", "next_dealer")

    def __init__(self, sticks: Sequence[int]):
        self.sticks = [int(s) for s in sticks]  # 4 = eliminated
        self.alive = [s < ELIMINATED_STICKS for s in self.sticks]
        self.next_dealer = -1  # set by settle()

    def deal(self, deck: Sequence[int], dealer: int) -> TriPalkiRound:
        """A new round among the surviving seats."""
        return TriPalkiRound(deck, dealer, self.alive)

    def settle(self, rnd: TriPalkiRound) -> Settlement:
        """Give the sticks of a finished round and choose the next dealer."""
        result = settle(rnd.hands, rnd.alive, self.sticks, rnd.dealer)
        self.sticks[:] = result.sticks
        self.alive[:] = result.alive
        self.next_dealer = result.next_dealer
        return result

    @property
    def survivors(self) -> list[int]:
        return [seat for seat, alive in enumerate(self.alive) if alive]
