"""A Tri Palki round as explicit chance events: the deal card by card, every reserve draw.

The env deals a shuffled 36-card deck (§3: one card to each player from the dealer's left, then
one to the centre, three times) and keeps the rest as the reserve, from which a one-suit centre
is replaced three cards at a time (§4). Here the deck is drawn card by card, each chance event
uniform over the cards not drawn yet: the ``3n + 3`` cards of the deal first, and the reserve's
cards only when a wash takes them (at the deal or after a swap), so no reserve card exists
before the table sees it. The rules decide when a wash happens (the round is tried on a copy).

:class:`TriPalkiChance` is the registry's ``explicit_chance`` piece of Tri Palki
(:class:`TriPalkiTinyChance` of Tri Palki tiny, which deals whole hands);
``folkcards.openspiel`` builds its chance nodes from it.
"""

from __future__ import annotations

import copy
from typing import Any

from ..cards import TRI_PALKI_CARDS
from .rules import MAX_RESERVE, NUM_CARDS, TriPalkiRound, deal_order
from .tiny import TINY_DECK, TINY_HANDS

WASH = 3  # cards a wash draws from the reserve


class TriPalkiChance:
    """The chance events of one Tri Palki round for an env in the ``round`` episode.

    ``outcomes()`` lists ``(card, probability)`` while cards are to be drawn; ``apply(card)``
    draws one. ``ready(env, action)`` says whether the env can start the round (``action``
    None) or take ``action`` with the cards drawn so far; when a wash needs more, it asks for
    them (``outcomes()`` is no longer empty) and the caller tries again once they are drawn.
    """

    max_outcomes = NUM_CARDS
    env_parameters = ("max_turns",)  # env options offered as game parameters (a round is cut there)

    def __init__(self, env: Any, dealer: int):
        self.num_players = env.num_players
        self.dealer = dealer
        self.dealt: list[int] = []  # the deal's cards, in deck order
        self.draws: list[int] = []  # the reserve's cards drawn so far, in order
        self.wanted = 0  # reserve cards the pending wash needs drawn

    @staticmethod
    def max_events(num_players: int, env: Any) -> int:
        """The most chance events one round holds: the whole deck."""
        return NUM_CARDS

    @staticmethod
    def max_decisions(num_players: int, env: Any) -> int:
        """The most player decisions one round holds: an action and an announce decision per
        turn up to the env's ``max_turns``, and an action again after each wash."""
        return 2 * env.max_turns + MAX_RESERVE // WASH

    @staticmethod
    def utility_range(num_players: int) -> tuple[float, float]:
        """A round gives at most one stick to each seat."""
        return -1.0, 0.0

    @property
    def deal_size(self) -> int:
        return 3 * self.num_players + 3

    def outcomes(self) -> list[tuple[int, float]]:
        if len(self.dealt) == self.deal_size and len(self.draws) >= self.wanted:
            return []
        seen = set(self.dealt) | set(self.draws)
        left = [card for card in range(NUM_CARDS) if card not in seen]
        return [(card, 1.0 / len(left)) for card in left]

    def apply(self, outcome: int) -> None:
        if not any(card == outcome for card, _ in self.outcomes()):
            raise ValueError(f"{outcome!r} is not a chance outcome here")
        (self.dealt if len(self.dealt) < self.deal_size else self.draws).append(int(outcome))

    def outcome_to_string(self, outcome: int) -> str:
        name = TRI_PALKI_CARDS.name(outcome)
        return f"deal {name}" if len(self.dealt) < self.deal_size else f"reserve {name}"

    def _deck(self) -> list[int]:
        """The deck as far as it is drawn; the undrawn reserve in card order (never read)."""
        seen = set(self.dealt) | set(self.draws)
        return self.dealt + self.draws + [c for c in range(NUM_CARDS) if c not in seen]

    def _known(self, top: int) -> bool:
        """Whether a round that has drawn ``top`` reserve cards drew only known ones; if not,
        the next wash's cards are wanted."""
        if top <= len(self.draws):
            return True
        self.wanted = len(self.draws) + WASH
        return False

    def ready(self, env: Any, action: int | None) -> bool:
        """Whether the env can start the round (``action`` None) or take ``action`` now."""
        if self.outcomes():
            return False
        if action is None:
            alive = [True] * self.num_players
            return self._known(TriPalkiRound(self._deck(), self.dealer, alive).top)
        live = env.state_round()
        live.reserve = tuple(self._deck()[self.deal_size :])
        trial = copy.deepcopy(live)
        trial.apply(action)
        return self._known(trial.top)

    def reset(self, env: Any) -> None:
        """Start the env's round with the deck drawn so far."""
        env.reset(seed=0, options={"deck": self._deck(), "dealer": self.dealer})

    @staticmethod
    def outcomes_of(env: Any) -> list[int]:
        """The chance outcomes, in order, that draw ``env``'s deck (the deal, then the reserve
        top first, as far as the round draws it)."""
        return [int(card) for card in env.state_round().deck]


class TriPalkiTinyChance:
    """The chance events of one Tri Palki tiny round: each hand and the centre dealt whole.

    The first event deals the hand of the seat on the dealer's left (120 three-card hands of
    the ten cards, each 1/120), the second the dealer's (the 35 of the seven left, each 1/35),
    the third the centre (the 4 of the four left, each 1/4); the card left is the reserve. An
    outcome is the hand's index in :data:`~.tiny.TINY_HANDS`. A wash needs three reserve cards
    and the reserve holds one, so no card is drawn later and the reserve's card stays hidden.
    """

    max_outcomes = len(TINY_HANDS)
    env_parameters = ("max_turns",)

    def __init__(self, env: Any, dealer: int):
        self.num_players = env.num_players
        self.dealer = dealer
        self.order = deal_order(dealer, [True] * self.num_players)
        self.hands: list[int] = []  # outcome ids: the hands in deal order, then the centre

    @staticmethod
    def max_events(num_players: int, env: Any) -> int:
        return num_players + 1

    @staticmethod
    def max_decisions(num_players: int, env: Any) -> int:
        """An action and an announce decision per turn up to ``max_turns`` (no wash can be
        replaced, so a wash ends the round instead of giving another action)."""
        return 2 * env.max_turns

    @staticmethod
    def utility_range(num_players: int) -> tuple[float, float]:
        return -1.0, 0.0

    def outcomes(self) -> list[tuple[int, float]]:
        if len(self.hands) == self.num_players + 1:
            return []
        taken = {card for index in self.hands for card in TINY_HANDS[index]}
        left = [i for i, hand in enumerate(TINY_HANDS) if taken.isdisjoint(hand)]
        return [(i, 1.0 / len(left)) for i in left]

    def apply(self, outcome: int) -> None:
        if not any(index == outcome for index, _ in self.outcomes()):
            raise ValueError(f"{outcome!r} is not a chance outcome here")
        self.hands.append(int(outcome))

    def outcome_to_string(self, outcome: int) -> str:
        cards = " ".join(TRI_PALKI_CARDS.name(c) for c in TINY_HANDS[outcome])
        if len(self.hands) == self.num_players:
            return f"deal centre: {cards}"
        return f"deal player_{self.order[len(self.hands)]}: {cards}"

    def _deck(self) -> list[int]:
        """The ten cards in deal order (one to each seat from the dealer's left, then one to
        the centre, three times), then the reserve."""
        taken = [card for index in self.hands for card in TINY_HANDS[index]]
        piles = [list(TINY_HANDS[index]) for index in self.hands]
        dealt = [pile[i] for i in range(3) for pile in piles]
        return dealt + [card for card in TINY_DECK if card not in taken]

    def ready(self, env: Any, action: int | None) -> bool:
        return not self.outcomes()

    def reset(self, env: Any) -> None:
        env.reset(seed=0, options={"deck": self._deck(), "dealer": self.dealer})

    @staticmethod
    def outcomes_of(env: Any) -> list[int]:
        """The chance outcomes that deal ``env``'s round: each seat's hand in deal order, then
        the centre as dealt."""
        deck = env.state_round().deck
        stride = env.num_players + 1
        return [
            TINY_HANDS.index(tuple(sorted(deck[position : 3 * stride : stride])))
            for position in range(stride)
        ]
