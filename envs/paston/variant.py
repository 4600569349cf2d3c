"""The sizes of a Paston variant: its deck, the deal, the ladder, the trick needs and which
special-card rules it keeps.

The rules engine (:mod:`.rules`) reads every size from a :class:`PastonVariant`; :data:`PASTON`
is the full game of ``docs/rules/paston.md`` and :data:`PASTON_TINY` the variant of
``docs/rules/paston_tiny.md``. A variant keeps the full game's card ids (``8 * suit + rank``) and
action ids: its deck is a subset of the 32 cards, its ladder a subset of the five levels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import PASTON_CARDS
from .vocabulary import (
    BEST_SPADES,
    CLUBS,
    CONTRACT_BASE,
    LEVEL_TRUMP,
    NUM_LEVELS,
    SPADES,
)

SEVEN_OF_SPADES = 0
JACK_OF_SPADES = 4


@dataclass(frozen=True)
class PastonVariant:
    """One variant's sizes and special cards; the derived tables are computed once."""

    name: str
    suits: tuple[int, ...]  # suit indices (S=0 C=1 D=2 H=3) of the deck
    ranks: tuple[int, ...]  # rank indices (7=0 .. A=7) of the deck
    hand_size: int  # cards in each hand; also the number of tricks
    # where each deck position goes: 0 the dealer, 1 the dealer's left, 2 the right, 3 the prikup
    deal_targets: tuple[int, ...]
    ladder: tuple[int, ...]  # the levels that can be bid, lowest first; the last ends the auction
    declarer_need: int  # tricks the declarer needs
    defender_need: int  # tricks each of two defenders needs to avoid a loss
    sole_defender_need: int  # tricks a sole defender needs to avoid a loss
    six_spade_redeal: bool  # §2.4: a hand of 7♠..Q♠ without K♠ and A♠ is dealt again
    omitted: tuple[int, ...] = ()  # card ids of the suits and ranks that are not in the deck
    # §2.5 and the all-pass rule: the holder of the first of these declares, else the second's
    designees: tuple[int, ...] = (JACK_OF_SPADES, SEVEN_OF_SPADES)
    bottom_card_banned: int | None = SEVEN_OF_SPADES  # §2.2: never the deck's last card
    surrender_score: int = -10  # the declarer who surrenders
    surrender_opponent_score: int = 2  # each other seat, when the declarer surrenders
    # derived in __post_init__
    deck: tuple[int, ...] = field(init=False)
    prikup_size: int = field(init=False)
    all_cards: int = field(init=False)
    next_bid: tuple[int, ...] = field(init=False)
    contract_bits: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        cards = tuple(8 * suit + rank for suit in self.suits for rank in self.ranks)
        if any(card not in cards for card in self.omitted):
            raise ValueError(f"{self.name}: an omitted card must be of the suits and ranks")
        deck = tuple(card for card in cards if card not in self.omitted)
        set_ = object.__setattr__
        set_(self, "deck", deck)
        set_(self, "prikup_size", self.deal_targets.count(3))
        set_(self, "all_cards", sum(1 << card for card in deck))
        if len(self.deal_targets) != len(deck) or any(
            self.deal_targets.count(seat) != self.hand_size for seat in range(3)
        ):
            raise ValueError(f"{self.name}: the deal must give {self.hand_size} cards to each seat")
        if self.bottom_card_banned is not None and self.deal_targets[-1] != 0:
            raise ValueError(f"{self.name}: the bottom card must go to the dealer")
        if self.six_spade_redeal and deck[:8] != tuple(range(8)):
            raise ValueError(f"{self.name}: the six-spade redeal needs the eight spades 7..A")
        if any(LEVEL_TRUMP[level] not in self.suits for level in self.ladder):
            raise ValueError(f"{self.name}: every level of the ladder needs its trump suit")
        if self.ladder[0] != SPADES or self.ladder[-1] != BEST_SPADES:
            raise ValueError(f"{self.name}: the ladder runs from spades to best spades")
        # the level the next bid names, by the highest bid so far (+1: -1 is no bid yet)
        next_bid = [self.ladder[0]] + [-1] * NUM_LEVELS
        for low, high in zip(self.ladder, self.ladder[1:], strict=False):
            next_bid[low + 1] = high
        set_(self, "next_bid", tuple(next_bid))
        # the legal contracts as action bits, by the highest bid (+1); §4.2
        contracts = []
        for high in range(-1, NUM_LEVELS):
            if high == BEST_SPADES:
                contracts.append(1 << (CONTRACT_BASE + BEST_SPADES))
                continue
            low = max(high, 0)
            contracts.append(
                sum(1 << (CONTRACT_BASE + level) for level in self.ladder[:-1] if level >= low)
            )
        set_(self, "contract_bits", tuple(contracts))

    @property
    def num_cards(self) -> int:
        return len(self.deck)

    @property
    def num_tricks(self) -> int:
        return self.hand_size

    @property
    def card_names(self) -> tuple[str, ...]:
        return tuple(PASTON_CARDS.name(card) for card in self.deck)


# The full game: 32 cards, 10 each, dealt 2-2-2, prikup, then four circuits of 2.
PASTON = PastonVariant(
    name="paston",
    suits=(0, 1, 2, 3),
    ranks=tuple(range(8)),
    hand_size=10,
    deal_targets=tuple([1, 1, 2, 2, 0, 0, 3, 3] + [1, 1, 2, 2, 0, 0] * 4),
    ladder=tuple(range(NUM_LEVELS)),
    declarer_need=6,
    defender_need=2,
    sole_defender_need=4,
    six_spade_redeal=True,
)

# docs/rules/paston_tiny.md: 7, J, K, A of spades and J, K, A of clubs; 2 cards each, dealt one
# at a time with the one-card prikup after the first circuit; the ladder spades, clubs, best
# spades.
PASTON_TINY = PastonVariant(
    name="paston_tiny",
    suits=(0, 1),
    ranks=(0, 4, 6, 7),
    omitted=(8,),  # 7♣
    hand_size=2,
    deal_targets=(1, 2, 0, 3, 1, 2, 0),
    ladder=(SPADES, CLUBS, BEST_SPADES),
    declarer_need=2,
    defender_need=1,
    sole_defender_need=1,
    six_spade_redeal=False,
)

__all__ = ["JACK_OF_SPADES", "PASTON", "PASTON_TINY", "SEVEN_OF_SPADES", "PastonVariant"]
