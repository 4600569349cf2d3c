"""A Paston deal as explicit chance events, with the exact probabilities of the env's deal.

The env shuffles a 32-card deck (again while its bottom card is 7♠, §2.2), deals it by
:data:`~.rules.DEAL_TARGETS` and deals again while a hand holds the six spades 7-Q without K or
A (§2.4). Only the hands and the prikup matter to the game, so the deal is written here card by
card in card-id order (7♠ 8♠ … A♠, then clubs, diamonds, hearts): each chance event places the
next card with the seat that receives it (0, 1, 2) or the prikup (3). Its probability is that
place's share of the places left, 7♠ counting one place fewer in the dealer's hand (it is never
the bottom card, which is the dealer's), conditioned on the deal standing: the six-spade redeal
is folded into the probabilities, so no event leads to a deal that would be dealt again.

:class:`PastonChance` is the registry's ``explicit_chance`` piece of Paston (and of its variants
played with Paston's deal); ``folkcards.openspiel`` builds its chance nodes from it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..cards import PASTON_CARDS
from .rules import (
    DECLARER_POINTS,
    HAND_SIZE,
    LEVEL_FACTOR,
    NUM_CARDS,
    NUM_SEATS,
    SEVEN_OF_SPADES,
    SOLE_DEFENDER_POINTS,
    SURRENDER_OPPONENT_SCORE,
    SURRENDER_SCORE,
    TWO_DEFENDER_POINTS,
)

PRIKUP = NUM_SEATS  # the place index of the prikup
PLACES = (HAND_SIZE, HAND_SIZE, HAND_SIZE, NUM_CARDS - NUM_SEATS * HAND_SIZE)  # seats, prikup
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


def _deal_weights(card: int, places: tuple[int, ...], dealer: int) -> list[int]:
    """Each place's weight for ``card``: the places left there."""
    weights = list(places)
    if card == SEVEN_OF_SPADES:
        weights[dealer] -= 1  # §2.2: 7♠ is never the bottom card, the dealer's last
    return weights


class PastonChance:
    """The chance events of one Paston deal for an env in the ``deal`` episode.

    ``outcomes()`` lists ``(place, probability)`` while cards are still to be dealt;
    ``apply(place)`` deals the next card there; ``ready(env, None)`` is true once every card is
    dealt, and ``reset(env)`` then starts the env's deal with these hands and prikup.
    """

    max_outcomes = len(PLACES)

    def __init__(self, env: Any, dealer: int):
        self.num_players = NUM_SEATS
        self.dealer = dealer
        self.places: list[int] = []  # the place of card 0, 1, ... so far

    @staticmethod
    def max_events(num_players: int, env: Any) -> int:
        """The most chance events one deal holds."""
        return NUM_CARDS

    @staticmethod
    def max_decisions(num_players: int, env: Any) -> int:
        """The most player decisions one deal holds: the auction, two discards, the contract,
        the defence and the 30 cards of the play."""
        return 2 * 6 + 2 + 1 + 2 + NUM_SEATS * HAND_SIZE

    @staticmethod
    def utility_range(num_players: int) -> tuple[float, float]:
        """The lowest and highest table points a seat can score in one deal."""
        scores = [p for row in DECLARER_POINTS for p in row]
        scores += [p * f for p in TWO_DEFENDER_POINTS + SOLE_DEFENDER_POINTS for f in LEVEL_FACTOR]
        scores += [SURRENDER_SCORE, SURRENDER_OPPONENT_SCORE, 0]
        return float(min(scores)), float(max(scores))

    def _left(self) -> tuple[int, ...]:
        left = list(PLACES)
        for place in self.places:
            left[place] -= 1
        return tuple(left)

    def _holder(self) -> int:
        holder = -2
        for card, place in enumerate(self.places[:SPADES]):
            holder = _next_holder(card, place, holder)
        return holder

    def outcomes(self) -> list[tuple[int, float]]:
        card = len(self.places)
        if card == NUM_CARDS:
            return []
        left = self._left()
        weights = _deal_weights(card, left, self.dealer)
        whole = sum(weights)
        if card >= SPADES:
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
        card = PASTON_CARDS.name(len(self.places))
        return f"{card} to the prikup" if outcome == PRIKUP else f"{card} to player_{outcome}"

    def ready(self, env: Any, action: int | None) -> bool:
        """Whether the env can start the deal (``action`` None) or take ``action`` now."""
        return len(self.places) == NUM_CARDS

    def reset(self, env: Any) -> None:
        """Start the env's deal with the dealt hands and prikup."""
        hands: list[list[str]] = [[] for _ in range(NUM_SEATS)]
        prikup: list[str] = []
        for card, place in enumerate(self.places):
            (prikup if place == PRIKUP else hands[place]).append(PASTON_CARDS.name(card))
        env.reset(
            seed=0, options={"deal": {"hands": hands, "prikup": prikup}, "dealer": self.dealer}
        )

    @staticmethod
    def outcomes_of(env: Any) -> list[int]:
        """The chance outcomes that deal what ``env`` (after its reset) dealt, in order."""
        deal = env.state_deal()
        places = []
        for card in range(NUM_CARDS):
            bit = 1 << card
            seats = [s for s in range(NUM_SEATS) if deal.hands[s] >> card & 1]
            places.append(seats[0] if seats else PRIKUP if deal.prikup & bit else -1)
        return places
