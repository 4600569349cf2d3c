"""Cards shared by both games: ids, strings, suits and validation of user-given cards.

A card id is ``len(ranks) * suit + rank`` with suits in the order S, C, D, H.
Paston uses ranks 7..A (32 cards), Tri Palki 6..A (36 cards).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SUIT_LETTERS = "SCDH"
SUIT_SYMBOLS = "♠♣♦♥"
SUIT_NAMES = ("spades", "clubs", "diamonds", "hearts")


class CardSet:
    """A deck description: converts between card ids and strings like ``"10H"`` or ``"AS"``."""

    def __init__(self, rank_names: Sequence[str]):
        self.rank_names = tuple(rank_names)
        self.num_ranks = len(self.rank_names)
        self.num_cards = 4 * self.num_ranks
        self.names = tuple(rank + suit for suit in SUIT_LETTERS for rank in self.rank_names)
        self.symbols = tuple(rank + symbol for symbol in SUIT_SYMBOLS for rank in self.rank_names)
        self._ids = {name: i for i, name in enumerate(self.names)}
        for i, symbol in enumerate(self.symbols):
            self._ids[symbol] = i

    def suit(self, card: int) -> int:
        return card // self.num_ranks

    def rank(self, card: int) -> int:
        return card % self.num_ranks

    def name(self, card: int) -> str:
        return self.names[card]

    def symbol(self, card: int) -> str:
        return self.symbols[card]

    def card_id(self, card: int | str) -> int:
        """Parse one card given as an id or a string (case-insensitive); ``ValueError`` if unknown."""
        if isinstance(card, bool):
            raise ValueError(f"unknown card {card!r}")
        if isinstance(card, int) or (hasattr(card, "__index__") and not isinstance(card, str)):
            value = int(card)  # numpy integers too
            if 0 <= value < self.num_cards:
                return value
            raise ValueError(
                f"unknown card id {value}: card ids run from 0 to {self.num_cards - 1}"
            )
        if isinstance(card, str):
            key = card.strip().upper()
            if key in self._ids:
                return self._ids[key]
            raise ValueError(
                f"unknown card {card!r}: expected a rank in {'/'.join(self.rank_names)} "
                f"followed by a suit in S/C/D/H, e.g. {self.names[-1]!r}"
            )
        raise ValueError(f"unknown card {card!r}: give a card id or a string like 'AS'")

    def parse_cards(self, cards: object, what: str, count: int | None = None) -> list[int]:
        """Parse a list of cards, checking its length and that no card repeats within it."""
        if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
            raise ValueError(f"{what} must be a list of cards, got {cards!r}")
        parsed = [self.card_id(card) for card in cards]
        if count is not None and len(parsed) != count:
            raise ValueError(f"{what} must hold {count} cards, got {len(parsed)}")
        check_no_repeats(parsed, self, what)
        return parsed


def check_no_repeats(cards: Sequence[int], card_set: CardSet, what: str) -> None:
    """Raise ``ValueError`` naming the first card that appears twice in ``cards``."""
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"{what}: card {card_set.name(card)} appears more than once")
        seen.add(card)


def check_full_deck(cards: Sequence[int], card_set: CardSet, what: str) -> None:
    """Raise ``ValueError`` unless ``cards`` is every card of the deck exactly once."""
    check_no_repeats(cards, card_set, what)
    if len(cards) != card_set.num_cards:
        missing = sorted(set(range(card_set.num_cards)) - set(cards))
        names = " ".join(card_set.name(card) for card in missing)
        raise ValueError(
            f"{what} must hold all {card_set.num_cards} cards once each; "
            f"got {len(cards)}" + (f", missing {names}" if missing else "")
        )


def mask_to_cards(mask: int) -> list[int]:
    """The card ids set in a bitmask, ascending."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def cards_to_mask(cards: Iterable[int]) -> int:
    """The bitmask of card ids (numpy integers too)."""
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def popcount(mask: int) -> int:
    """How many cards a bitmask holds (numpy integers too)."""
    return int(mask).bit_count()


PASTON_CARDS = CardSet(("7", "8", "9", "10", "J", "Q", "K", "A"))
TRI_PALKI_CARDS = CardSet(("6", "7", "8", "9", "10", "J", "Q", "K", "A"))
