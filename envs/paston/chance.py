"""A Paston deal as explicit chance events, with the exact probabilities of the env's deal.

The env shuffles its variant's deck (again while its bottom card is 7♠, §2.2), deals it by the
variant's ``deal_targets`` and, in the full game, deals again while a hand holds the six spades
7-Q without K or A (§2.4). Only the hands and the prikup matter to the game, so the deal is
written here card by card in card-id order (7♠ 8♠ … A♠, then clubs, diamonds, hearts; the
variant's cards only): each chance event places the next card with the seat that receives it
(0, 1, 2) or the prikup (3). Its probability is that place's share of the places left, 7♠
counting one place fewer in the dealer's hand (it is never the bottom card, which is the
dealer's), conditioned on the deal standing: the six-spade redeal is folded into the
probabilities, so no event leads to a deal that would be dealt again.

:class:`PastonChance` is the registry's ``explicit_chance`` piece of Paston (and of its variants
played with Paston's deal); ``folkcards.openspiel`` builds its chance nodes from it.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from ..cards import PASTON_CARDS
from .rules import LEVEL_FACTOR, NUM_SEATS, declarer_score, defender_score
from .variant import PASTON, PASTON_TINY, PastonVariant

PRIKUP = NUM_SEATS  # the place index of the prikup
LOW_SPADES = 6  # 7♠..Q♠: card ids 0..5; K♠ and A♠ are ids 6 and 7
SPADES = 8


@cache
def _redeal_probability(card: int, places: tuple[int, ...], holder: int) -> float:
    """Probability that the cards from ``card`` on complete a six-spade hand, given the places
    left and ``holder``: the seat holding every low spade dealt so far and neither high spade
    (-1 when no seat can any more; any seat, as -2, before the first card)."""
    if card >= SPADES or holder == -1:
        return 1.0 if card >= SPADES and holder >= 0 else 0.0
    total = 0.0
    whole = sum(places)
    for place, weight in enumerate(places):
        if weight:
            rest = list(places)
            rest[place] -= 1
            following = _next_holder(card, place, holder)
            total += weight / whole * _redeal_probability(card + 1, tuple(rest), following)
    return total


def _next_holder(card: int, place: int, holder: int) -> int:
    if card == 0:
        return place if place != PRIKUP else -1
    if card < LOW_SPADES:
        return holder if place == holder else -1
    return holder if place != holder else -1  # K♠ or A♠ in the holder's hand: no six spades


def _places(variant: PastonVariant) -> tuple[int, ...]:
    """The cards each seat and the prikup receive."""
    return (variant.hand_size,) * NUM_SEATS + (variant.prikup_size,)


def _deal_weights(card: int, places: tuple[int, ...], dealer: int, banned: int | None) -> list[int]:
    """Each place's weight for ``card``: the places left there."""
    weights = list(places)
    if card == banned:
        weights[dealer] -= 1  # §2.2: 7♠ is never the bottom card, the dealer's last
    return weights


class PastonChance:
    """The chance events of one Paston deal for an env in the ``deal`` episode.

    ``outcomes()`` lists ``(place, probability)`` while cards are still to be dealt;
    ``apply(place)`` deals the next card there; ``ready(env, None)`` is true once every card is
    dealt, and ``reset(env)`` then starts the env's deal with these hands and prikup.
    """

    max_outcomes = NUM_SEATS + 1  # a seat or the prikup
    variant: PastonVariant = PASTON  # the variant whose deal this is
    given: dict[int, int] = {}  # cards whose place is given (see given_cards)

    def __init__(self, env: Any, dealer: int):
        if env.variant is not self.variant:
            raise ValueError(
                f"{type(self).__name__} deals {self.variant.name}, not {env.variant.name}"
            )
        self.num_players = NUM_SEATS
        self.dealer = dealer
        self.places: list[int] = []  # the place of the deck's first, second ... card so far

    def __deepcopy__(self, memo: dict[int, Any]) -> PastonChance:
        """An independent copy (OpenSpiel copies the chance events at every node of a tree)."""
        new = copy.copy(self)
        new.places = self.places.copy()
        return new

    @classmethod
    def max_events(cls, num_players: int, env: Any) -> int:
        """The most chance events one deal holds: one per card."""
        return cls.variant.num_cards

    @classmethod
    def max_decisions(cls, num_players: int, env: Any) -> int:
        """The most player decisions one deal holds: the auction, the discards, the contract,
        the defence and the cards of the play."""
        variant = cls.variant
        auction = 2 * (len(variant.ladder) + 1)
        return auction + variant.prikup_size + 1 + 2 + NUM_SEATS * variant.hand_size

    @classmethod
    def utility_range(cls, num_players: int) -> tuple[float, float]:
        """The lowest and highest table points a seat can score in one deal."""
        variant = cls.variant
        tricks = range(variant.num_tricks + 1)
        scores = [declarer_score(t, level, variant) for t in tricks for level in variant.ladder]
        scores += [
            defender_score(t, sole, variant) * LEVEL_FACTOR[level]
            for t in tricks
            for sole in (False, True)
            for level in variant.ladder
        ]
        scores += [variant.surrender_score, variant.surrender_opponent_score, 0]
        return float(min(scores)), float(max(scores))

    def _left(self) -> tuple[int, ...]:
        left = list(_places(self.variant))
        for place in self.places:
            left[place] -= 1
        return tuple(left)

    def _holder(self) -> int:
        holder = -2
        for card, place in enumerate(self.places[:SPADES]):
            holder = _next_holder(card, place, holder)
        return holder

    @classmethod
    def given_cards(cls, given: dict[int, int]) -> type[PastonChance]:
        """This deal with the places of some cards given (card id -> seat, or 3 for the prikup):
        a smaller game for exact computation, the other cards dealt to the places left as the
        whole deal deals them. Not offered where the six-spade redeal conditions the deal."""
        variant = cls.variant
        if variant.six_spade_redeal:
            raise ValueError(f"{variant.name}: given cards need a deal without six-spade redeals")
        places = _places(variant)
        for card, place in given.items():
            if card not in variant.deck or place not in range(len(places)):
                raise ValueError(f"cannot give card {card!r} to place {place!r} in {variant.name}")
        for place, room in enumerate(places):
            if sum(1 for p in given.values() if p == place) > room:
                raise ValueError(f"{variant.name}: place {place} holds only {room} cards")
        return type(f"{cls.__name__}Given", (cls,), {"given": dict(given)})

    def outcomes(self) -> list[tuple[int, float]]:
        variant = self.variant
        index = len(self.places)
        if index == variant.num_cards:
            return []
        card = variant.deck[index]
        left = self._left()
        if self.given:
            if card in self.given:
                return [(self.given[card], 1.0)]
            for later in variant.deck[index + 1 :]:
                if later in self.given:
                    left = tuple(n - (p == self.given[later]) for p, n in enumerate(left))
        weights = _deal_weights(card, left, self.dealer, variant.bottom_card_banned)
        whole = sum(weights)
        if card >= SPADES or not variant.six_spade_redeal:
            return [(p, w / whole) for p, w in enumerate(weights) if w]
        holder = self._holder()
        shares = []
        for place, weight in enumerate(weights):
            if weight:
                rest = list(left)
                rest[place] -= 1
                following = _next_holder(card, place, holder)
                stand = 1.0 - _redeal_probability(card + 1, tuple(rest), following)
                if stand > 0:
                    shares.append((place, weight * stand))
        total = sum(share for _, share in shares)
        return [(place, share / total) for place, share in shares]

    def apply(self, outcome: int) -> None:
        if not any(place == outcome for place, _ in self.outcomes()):
            raise ValueError(f"{outcome!r} is not a chance outcome here")
        self.places.append(int(outcome))

    def outcome_to_string(self, outcome: int) -> str:
        card = PASTON_CARDS.name(self.variant.deck[len(self.places)])
        return f"{card} to the prikup" if outcome == PRIKUP else f"{card} to player_{outcome}"

    def ready(self, env: Any, action: int | None) -> bool:
        """Whether the env can start the deal (``action`` None) or take ``action`` now."""
        return len(self.places) == self.variant.num_cards

    def reset(self, env: Any) -> None:
        """Start the env's deal with the dealt hands and prikup."""
        hands: list[list[str]] = [[] for _ in range(NUM_SEATS)]
        prikup: list[str] = []
        for card, place in zip(self.variant.deck, self.places, strict=True):
            (prikup if place == PRIKUP else hands[place]).append(PASTON_CARDS.name(card))
        env.reset(
            seed=0, options={"deal": {"hands": hands, "prikup": prikup}, "dealer": self.dealer}
        )

    @staticmethod
    def outcomes_of(env: Any) -> list[int]:
        """The chance outcomes that deal what ``env`` (after its reset) dealt, in order."""
        deal = env.state_deal()
        places = []
        for card in env.variant.deck:
            bit = 1 << card
            seats = [s for s in range(NUM_SEATS) if deal.hands[s] >> card & 1]
            places.append(seats[0] if seats else PRIKUP if deal.prikup & bit else -1)
        return places


class PastonTinyChance(PastonChance):
    """The chance events of one Paston tiny deal (``docs/rules/paston_tiny.md``): its seven
    cards placed one by one, as :class:`PastonChance` places the full game's 32."""

    variant = PASTON_TINY
