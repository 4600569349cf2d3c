"""The Paston rules engine: deals, auction, prikup, contract, defence, play and the score table.

Free of PettingZoo and gymnasium: seats are ints 0..2 (clockwise), cards are ids
``8 * suit + rank`` (see ``folkcards.envs.cards``) and hands are 32-bit masks. Legal actions are
returned as a 45-bit mask over the action ids of :mod:`.vocabulary`. Every size (deck, hand,
ladder, trick needs, special cards) is read from a :class:`~.variant.PastonVariant`: the full
game (:data:`~.variant.PASTON`) unless a deal is given another.

The rules are explained in ``docs/rules/paston.md``; the ``§`` marks in comments number them as
the original specification did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..cards import PASTON_CARDS, check_no_repeats, mask_to_cards
from .variant import JACK_OF_SPADES, PASTON, SEVEN_OF_SPADES, PastonVariant  # noqa: F401
from .vocabulary import (  # noqa: F401  (the vocabulary is re-exported: rules.PASS etc.)
    AUCTION,
    BEST_SPADES,
    BID_BASE,
    CLUBS,
    CONTRACT,
    CONTRACT_BASE,
    DEFENCE,
    DIAMONDS,
    DISCARD,
    HEARTS,
    LEVEL_FACTOR,
    LEVEL_NAMES,
    LEVEL_TRUMP,
    NUM_ACTIONS,
    NUM_LEVELS,
    NUM_SEATS,
    OUTCOMES,
    OVER,
    PASS,
    PHASE_NAMES,
    PLAY,
    SPADES,
    SURRENDER,
    WHIST,
    Phase,
)

# The full game's sizes (envs/paston/variant.py writes them once; these names are the full
# game's, for the batched engine, the solver and the agents, which are full-size only).
NUM_CARDS = PASTON.num_cards
HAND_SIZE = PASTON.hand_size
NUM_TRICKS = PASTON.num_tricks

DECLARER_NEED = PASTON.declarer_need  # tricks the declarer needs to score (§7)
DEFENDER_NEED = PASTON.defender_need  # tricks each of two defenders needs to avoid a loss
SOLE_DEFENDER_NEED = PASTON.sole_defender_need  # tricks a sole defender needs to avoid a loss
SURRENDER_SCORE = PASTON.surrender_score  # the declarer who surrenders
SURRENDER_OPPONENT_SCORE = PASTON.surrender_opponent_score  # each other seat, on a surrender

SIX_SPADES_RUN = 0b00111111  # 7♠..Q♠
SPADE_HONOURS = 0b11000000  # K♠ A♠
SUIT_MASKS = tuple(0xFF << (8 * suit) for suit in range(4))
ALL_CARDS = PASTON.all_cards

# deck positions dealt to (dealer + 1, dealer + 2, dealer, prikup) as offsets; §2.3
DEAL_TARGETS: tuple[int, ...] = PASTON.deal_targets


def left_of(seat: int) -> int:
    return (seat + 1) % NUM_SEATS


def right_of(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


def deal_deck(
    deck: Sequence[int], dealer: int, variant: PastonVariant = PASTON
) -> tuple[list[int], int]:
    """Split a deck order into three hand masks and the prikup mask (§2.3)."""
    hands = [0, 0, 0]
    prikup = 0
    targets = variant.deal_targets
    for position, card in enumerate(deck):
        target = targets[position]
        if target == 3:
            prikup |= 1 << card
        else:
            hands[(dealer + target) % NUM_SEATS] |= 1 << card
    return hands, prikup


def has_six_spades(hand: int) -> bool:
    """§2.4: 7♠ 8♠ 9♠ 10♠ J♠ Q♠ and neither K♠ nor A♠."""
    spades = hand & 0xFF
    return spades & SIX_SPADES_RUN == SIX_SPADES_RUN and not spades & SPADE_HONOURS


def spade_designee(hands: Sequence[int], variant: PastonVariant = PASTON) -> int:
    """The holder of J♠, else of 7♠; -1 if both are in the prikup (§2.5, §3 all-pass)."""
    for card in variant.designees:
        for seat in range(NUM_SEATS):
            if hands[seat] >> card & 1:
                return seat
    return -1


def redeal_reason(
    hands: Sequence[int], first_deal: bool, variant: PastonVariant = PASTON
) -> str | None:
    """Why this deal must be dealt again at once, or ``None`` if it stands (§2.4, §2.5)."""
    if variant.six_spade_redeal:
        for seat in range(NUM_SEATS):
            if has_six_spades(hands[seat]):
                return f"player_{seat} holds the six spades 7-Q without K or A (six-spade redeal)"
    if first_deal and spade_designee(hands, variant) < 0:
        names = " and ".join(PASTON_CARDS.symbol(card) for card in variant.designees)
        return f"{names} are both in the prikup on a first deal (first-deal redeal)"
    return None


def random_deal(
    rng: np.random.Generator, dealer: int, first_deal: bool, variant: PastonVariant = PASTON
) -> tuple[list[int], int]:
    """Shuffle and deal until the deal stands: bottom card not 7♠, no six spades, §2.5 on deal 1."""
    cards = np.asarray(variant.deck)
    banned = variant.bottom_card_banned
    while True:
        deck = cards[rng.permutation(len(cards))]
        while deck[-1] == banned:  # §2.2: reshuffle while the bottom card is 7♠
            deck = cards[rng.permutation(len(cards))]
        hands, prikup = deal_deck(deck.tolist(), dealer, variant)
        if redeal_reason(hands, first_deal, variant) is None:
            return hands, prikup


def parse_deal(deal: Any, variant: PastonVariant = PASTON) -> tuple[list[int], int]:
    """Validate a user-given ``{"hands": [[10 cards] x 3], "prikup": [2 cards]}``."""
    if not isinstance(deal, dict):
        raise ValueError(f"option 'deal' must be a dict with 'hands' and 'prikup', got {deal!r}")
    unknown = set(deal) - {"hands", "prikup"}
    if unknown:
        raise ValueError(f"option 'deal' has unknown keys {sorted(unknown)}")
    if "hands" not in deal or "prikup" not in deal:
        raise ValueError("option 'deal' needs both 'hands' and 'prikup'")
    hands_in = deal["hands"]
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != NUM_SEATS:
        raise ValueError(f"deal 'hands' must be a list of 3 hands, got {hands_in!r}")
    hands_cards = [
        PASTON_CARDS.parse_cards(hand, f"hand of player_{seat}", variant.hand_size)
        for seat, hand in enumerate(hands_in)
    ]
    prikup_cards = PASTON_CARDS.parse_cards(deal["prikup"], "prikup", variant.prikup_size)
    all_cards = [card for hand in hands_cards for card in hand] + prikup_cards
    check_deck(all_cards, variant, "deal")
    hands = [sum(1 << card for card in hand) for hand in hands_cards]
    prikup = sum(1 << card for card in prikup_cards)
    return hands, prikup


def check_deck(cards: Sequence[int], variant: PastonVariant, what: str) -> None:
    """Raise ``ValueError`` unless ``cards`` is every card of the variant's deck once each."""
    check_no_repeats(cards, PASTON_CARDS, what)
    strangers = [card for card in cards if not variant.all_cards >> card & 1]
    if strangers:
        raise ValueError(
            f"{what}: {PASTON_CARDS.name(strangers[0])} is not a card of {variant.name}; its "
            f"deck is {' '.join(variant.card_names)}"
        )
    if len(cards) != variant.num_cards:
        missing = [card for card in variant.deck if card not in cards]
        names = " ".join(PASTON_CARDS.name(card) for card in missing)
        raise ValueError(
            f"{what} must hold all {variant.num_cards} cards once each; "
            f"got {len(cards)}" + (f", missing {names}" if missing else "")
        )


def trick_winner(trick: Sequence[tuple[int, int]], trump: int) -> int:
    """The seat that wins a trick of ``(seat, card)`` pairs (§6)."""
    led_suit = trick[0][1] >> 3
    best_seat, best_card = trick[0]
    best_key = (best_card >> 3 == trump) * 16 + (best_card & 7) + 8
    for seat, card in trick[1:]:
        suit = card >> 3
        if suit == trump:
            key = 16 + (card & 7) + 8
        elif suit == led_suit:
            key = (card & 7) + 8
        else:
            key = 0
        if key > best_key:
            best_seat, best_key = seat, key
    return best_seat


def defender_score(tricks: int, sole: bool, variant: PastonVariant = PASTON) -> int:
    """Points before the factor for a defender who played (§7): below the need −10, −9, −8, −7
    by tricks taken, from the need on +10 a trick above it."""
    need = variant.sole_defender_need if sole else variant.defender_need
    if tricks < need:
        return (-10, -9, -8, -7)[tricks]
    return 10 * (tricks - need)


def declarer_score(tricks: int, level: int, variant: PastonVariant = PASTON) -> int:
    """Declarer's points with the factor applied (§7)."""
    if tricks >= variant.declarer_need:
        return 10 if level == BEST_SPADES else 10 * LEVEL_FACTOR[level]
    return -10 * LEVEL_FACTOR[level]


# The full game's scores as tables by tricks taken (0..10), from the two functions above: a
# defender's points before the factor (two defenders, a sole defender) and a declarer's, by
# level. The batched engine and the heuristic read these instead of restating the score rules.
TWO_DEFENDER_POINTS = tuple(defender_score(t, False) for t in range(NUM_TRICKS + 1))
SOLE_DEFENDER_POINTS = tuple(defender_score(t, True) for t in range(NUM_TRICKS + 1))
DECLARER_POINTS = tuple(
    tuple(declarer_score(t, level) for t in range(NUM_TRICKS + 1)) for level in range(NUM_LEVELS)
)


class PastonDeal:
    """The state of one deal, from the auction to the score. Mutated in place by :meth:`apply`."""

    __slots__ = (
        "dealer",
        "first_bidder",
        "hands",
        "prikup",
        "phase",
        "to_act",
        "passed",
        "bids",
        "high_bid",
        "high_bidder",
        "all_pass",
        "declarer",
        "level",
        "surrendered",
        "discards",
        "defence",
        "active",
        "trump",
        "trick",
        "leader",
        "tricks",
        "played",
        "voids",
        "trick_count",
        "outcome",
        "scores",
        "history",
        "prikup_taken",
        "variant",
    )

    def __init__(
        self,
        hands: Sequence[int],
        prikup: int,
        dealer: int,
        first_bidder: int,
        variant: PastonVariant = PASTON,
    ):
        self.variant = variant
        self.dealer = dealer
        self.first_bidder = first_bidder
        self.hands = list(hands)
        self.prikup = prikup
        self.phase = AUCTION
        self.to_act = first_bidder
        self.passed = [False, False, False]
        self.bids = [0, 0, 0]  # bitmask of the levels each seat bid
        self.high_bid = -1
        self.high_bidder = -1
        self.all_pass = False
        self.declarer = -1
        self.level = -1  # the contract's level once named
        self.surrendered = False
        self.discards = 0
        self.prikup_taken = False
        self.defence = [-1, -1, -1]  # -1 not asked, 0 pass, 1 whist
        self.active: tuple[int, ...] = ()
        self.trump = -1
        self.trick: list[tuple[int, int]] = []
        self.leader = -1
        self.tricks = [0, 0, 0]
        self.played = [0, 0, 0]
        self.voids = [0, 0, 0]  # publicly known voids: bit s = cannot hold suit s
        self.trick_count = 0
        self.outcome: str | None = None
        self.scores = [0, 0, 0]
        self.history: list[tuple[int, int]] = []

    def copy(self) -> PastonDeal:
        """An independent copy (its lists copied; the tuples and the variant are immutable)."""
        new = object.__new__(PastonDeal)
        for name in PastonDeal.__slots__:
            value = getattr(self, name)
            setattr(new, name, value.copy() if type(value) is list else value)
        return new

    # --- legal actions ---------------------------------------------------------------------

    def legal_bits(self) -> int:
        """The legal actions of the seat to act, as a bitmask over the 45 action ids."""
        phase = self.phase
        if phase == AUCTION:
            next_level = self.variant.next_bid[self.high_bid + 1]
            return (1 << PASS) | (1 << (BID_BASE + next_level))
        if phase == PLAY:
            hand = self.hands[self.to_act]
            if self.trick:
                follow = hand & SUIT_MASKS[self.trick[0][1] >> 3]
                if follow:
                    return follow
                trumps = hand & SUIT_MASKS[self.trump]
                if trumps:
                    return trumps
            return hand
        if phase == DISCARD:
            return self.hands[self.to_act]
        if phase == CONTRACT:
            return self.variant.contract_bits[self.high_bid + 1] | (1 << SURRENDER)
        if phase == DEFENCE:
            return (1 << PASS) | (1 << WHIST)
        return 0

    # --- transitions -----------------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Apply a legal action of the seat to act (the caller checks legality)."""
        seat = self.to_act
        self.history.append((seat, action))
        phase = self.phase
        if phase == PLAY:
            self._play(seat, action)
        elif phase == AUCTION:
            self._auction(seat, action)
        elif phase == DISCARD:
            self.hands[seat] &= ~(1 << action)
            self.discards |= 1 << action
            if self.discards.bit_count() == self.variant.prikup_size:  # all discards made
                self.phase = CONTRACT
        elif phase == CONTRACT:
            self._contract(seat, action)
        elif phase == DEFENCE:
            self._defence(seat, action)

    def _auction(self, seat: int, action: int) -> None:
        if action == PASS:
            self.passed[seat] = True
        else:
            level = action - BID_BASE
            self.bids[seat] |= 1 << level
            self.high_bid = level
            self.high_bidder = seat
            if level == BEST_SPADES:
                self._declare(seat)
                return
        remaining = [s for s in range(NUM_SEATS) if not self.passed[s]]
        if not remaining:
            self.all_pass = True
            designee = spade_designee(self.hands, self.variant)
            if designee < 0:
                self.outcome = "redeal"
                self.phase = OVER
                self.to_act = -1
            else:
                self._declare(designee)
            return
        if len(remaining) == 1 and self.high_bidder == remaining[0]:
            self._declare(remaining[0])
            return
        nxt = left_of(seat)
        while self.passed[nxt]:
            nxt = left_of(nxt)
        self.to_act = nxt

    def _declare(self, seat: int) -> None:
        self.declarer = seat
        self.hands[seat] |= self.prikup
        self.prikup_taken = True
        self.phase = DISCARD
        self.to_act = seat

    def _contract(self, seat: int, action: int) -> None:
        if action == SURRENDER:
            self.surrendered = True
            self.outcome = "surrender"
            self.scores = [self.variant.surrender_opponent_score] * NUM_SEATS
            self.scores[seat] = self.variant.surrender_score
            self.phase = OVER
            self.to_act = -1
            return
        self.level = action - CONTRACT_BASE
        self.trump = LEVEL_TRUMP[self.level]
        self.phase = DEFENCE
        self.to_act = left_of(seat)

    def _defence(self, seat: int, action: int) -> None:
        self.defence[seat] = 1 if action == WHIST else 0
        if seat == left_of(self.declarer):
            self.to_act = right_of(self.declarer)
            return
        declarer = self.declarer
        whisters = [s for s in (left_of(declarer), right_of(declarer)) if self.defence[s] == 1]
        if not whisters:
            self.outcome = "auto_win"
            self.scores = [0, 0, 0]
            self.scores[declarer] = declarer_score(
                self.variant.num_tricks, self.level, self.variant
            )
            self.phase = OVER
            self.to_act = -1
            return
        self.active = tuple(s for s in range(NUM_SEATS) if s == declarer or self.defence[s] == 1)
        self.phase = PLAY
        self.leader = declarer
        self.to_act = declarer

    def next_active(self, seat: int) -> int:
        nxt = left_of(seat)
        if nxt not in self.active:
            nxt = left_of(nxt)
        return nxt

    def _play(self, seat: int, card: int) -> None:
        bit = 1 << card
        self.hands[seat] &= ~bit
        self.played[seat] |= bit
        trick = self.trick
        if trick:
            led = trick[0][1] >> 3
            suit = card >> 3
            if suit != led:
                self.voids[seat] |= 1 << led
                if suit != self.trump:
                    self.voids[seat] |= 1 << self.trump
        trick.append((seat, card))
        if len(trick) < len(self.active):
            self.to_act = self.next_active(seat)
            return
        winner = trick_winner(trick, self.trump)
        self.tricks[winner] += 1
        self.trick_count += 1
        self.trick = []
        if self.trick_count == self.variant.num_tricks:
            self._score_play()
            return
        self.leader = winner
        self.to_act = winner

    def _score_play(self) -> None:
        declarer, level, variant = self.declarer, self.level, self.variant
        factor = LEVEL_FACTOR[level]
        sole = len(self.active) == 2
        scores = [0, 0, 0]
        scores[declarer] = declarer_score(self.tricks[declarer], level, variant)
        for seat in self.active:
            if seat != declarer:
                scores[seat] = defender_score(self.tricks[seat], sole, variant) * factor
        self.scores = scores
        self.outcome = "played"
        self.phase = OVER
        self.to_act = -1

    # --- derived facts ---------------------------------------------------------------------

    def role(self, seat: int) -> str:
        """``declarer`` / ``defender`` / ``passer`` / ``opponent`` / ``none`` (the env page's infos)."""
        if self.outcome == "redeal" or self.declarer < 0:
            return "none"
        if seat == self.declarer:
            return "declarer"
        if self.surrendered:
            return "opponent"
        if self.defence[seat] == 1:
            return "defender"
        if self.defence[seat] == 0:
            return "passer"
        return "none"

    def need(self, seat: int) -> int:
        """Tricks this seat needs to avoid a loss (full game: declarer 6, defenders 2, sole
        defender 4)."""
        variant = self.variant
        if seat == self.declarer:
            return variant.declarer_need
        if self.defence[seat] == 1:
            return variant.sole_defender_need if len(self.active) == 2 else variant.defender_need
        return 0

    def contract_name(self) -> str | None:
        return LEVEL_NAMES[self.level] if self.level >= 0 else None

    def bid_name(self) -> str | None:
        return LEVEL_NAMES[self.high_bid] if self.high_bid >= 0 else None

    def hand_cards(self, seat: int) -> list[int]:
        return mask_to_cards(self.hands[seat])
