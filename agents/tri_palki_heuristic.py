"""A rule-based Tri Palki agent that reads only its observation.

Every decision starts from ``decode(observation["observation"])`` (the env's own decoder) and
ends with a legal action of ``observation["action_mask"]``; the agent keeps no memory.

Design:

- **Announce** whenever offered (a normal 31 is the best normal hand there is).
- **Hand value.** Every legal action (pass, the nine single swaps, swap all) is scored by the
  hand it leaves: three aces first, then a safe hand (never a stick), then the normal hands by
  the rules' comparison key (value, ranks top down, suit), plus a little *potential*: the value
  a suit of two held cards would reach with an average card of that suit still in play.
- **Feeding.** Cards put into the centre are checked against what every opponent is publicly
  known to hold (their swaps): a third ace for a known pair of aces costs a lot (three aces
  give every normal hand a stick); a card completing a suit of two known cards costs in
  proportion to the gain, for the next player to act (``next_feed``; ``feed`` weighs the
  others and is 0: measured on duplicate self-play, a larger weight kept weak cards in hand
  and cost more sticks than it saved).
- **Washes.** A swap that leaves a one-suit centre washes it: with enough reserve the agent
  acts again on three fresh cards (a small bonus); with fewer than three it ends the round at
  once, which is good only with a strong hand.
- **Passing.** Never break a safe hand or three aces; pass with a strong hand (value >=
  ``strong``, 30) unless a swap reaches 31 or a special hand; take the deciding pass (the one
  that ends the round) with a decent hand (``end_round``, 24); otherwise pass only if no swap
  is worth ``min_gain`` more than keeping the hand. On a final turn (after an announcement)
  only the final hand matters. (Measured: passing from 27 up, as first planned, gave slightly
  more sticks in self-play than improving up to 30.)

The rules themselves are compiled once in :mod:`~folkcards.agents.tri_palki_heuristic_core` and
shared with the batched heuristic and ``pimc``; this agent turns its decoded observation into
the masks they read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..envs.cards import cards_to_mask
from ..envs.tri_palki.observation import TriPalkiView, decode
from ..envs.tri_palki.rules import TRIPLES
from ..envs.tri_palki.vocabulary import ANNOUNCE, KIND_NAMES, NORMAL, PASS, SWAP_ALL, SWAP_BASE
from .base import RuleBasedAgent
from .tri_palki_heuristic_core import (
    ACE,
    F_BAD,
    F_ENDS,
    F_KIND,
    F_VALUE,
    F_WASHES,
    SAFE_SCORE,
    THREE_ACES_SCORE,
    TriPalkiParams,
    assess_moves,
    choose_move,
    params_array,
    prepare,
    scratch,
    suit_value_of,
)

__all__ = [
    "ACE",
    "SAFE_SCORE",
    "THREE_ACES_SCORE",
    "ActionAssessment",
    "TriPalkiHeuristicAgent",
    "TriPalkiParams",
    "hand_info",
    "suit_value",
]


def hand_info(cards: tuple[int, ...]) -> tuple[int, int, str]:
    """``(value, key, kind)`` of a three-card hand: the rules' value and comparison key, and the
    kind's name (normal / safe / three_aces)."""
    triple = TRIPLES[cards_to_mask(cards)]
    return triple.value, triple.key, KIND_NAMES[triple.kind]


def suit_value(cards: list[int]) -> int:
    """The best one-suit sum of points among any number of cards (0 without cards)."""
    return int(suit_value_of(cards_to_mask(cards)))


@dataclass(frozen=True)
class ActionAssessment:
    """How the heuristic sees one swap: the hand it leaves and the score it gives it."""

    action: int
    value: int  # value of the hand after the swap
    kind: str  # normal / safe / three_aces
    score: float  # hand score + potential + wash bonus/penalty - feeding cost
    washes: bool  # the centre left behind is one suit
    ends_round: bool  # ... and the reserve cannot replace it
    feed: float  # the feeding cost included in score


class TriPalkiHeuristicAgent(RuleBasedAgent):
    """Rule-based Tri Palki player; see the module docstring for the rules it follows."""

    name = "heuristic"
    game_name = "tri_palki"

    def __init__(
        self,
        game: str = "tri_palki",
        seat: str = "player_0",
        seed: int | None = None,
        params: TriPalkiParams | None = None,
    ):
        super().__init__(game, seat, seed)
        self.params = params or TriPalkiParams()
        self._params = params_array(self.params)

    def _decide(self, vector: np.ndarray, legal: list[int]) -> int | None:
        if ANNOUNCE in legal:
            return ANNOUNCE
        return self._choose(decode(vector), legal)

    def _fallback(self, legal: list[int]) -> int:
        return PASS if PASS in legal else legal[0]

    def _assessed(self, view: TriPalkiView) -> tuple[int, float, np.ndarray, np.ndarray]:
        """The hand mask, the score of keeping it, and the shared rules' move scores and facts
        (needs a three-card hand and a three-card centre)."""
        n = view.num_players
        known, flags, pool, seat_cards, seat_weight, score, facts = scratch(n)
        for r in range(n):
            known[r] = cards_to_mask(view.known[r])
            flags[0, r] = view.eliminated[r]
            flags[1, r] = view.final_turn_pending[r]
        hand, centre = cards_to_mask(view.hand), cards_to_mask(view.centre)
        announced = bool(view.announced)
        seats = prepare(
            hand, centre, cards_to_mask(view.washed), known, flags, n, announced, self._params,
            pool, seat_cards, seat_weight,
        )  # fmt: skip
        keep = assess_moves(
            hand, centre, announced, bool(view.reserve_low), self._params, pool, seats,
            seat_cards, seat_weight, score, facts,
        )  # fmt: skip
        return hand, keep, score, facts

    def assess(self, view: TriPalkiView, legal: list[int]) -> tuple[float, list[ActionAssessment]]:
        """The score of keeping the hand and an :class:`ActionAssessment` of every legal swap.

        Needs a three-card hand and a three-card centre that share no card (``ValueError``
        otherwise); the scores are the heuristic's own (hand key, potential, wash bonus or round
        end, feeding cost).
        """
        _, keep, score, facts = self._assessed(view)
        options = []
        for action in legal:
            if not SWAP_BASE <= action <= SWAP_ALL:
                continue
            if facts[F_BAD, action]:
                raise ValueError("not a Tri Palki table: the hand and the centre share a card")
            options.append(
                ActionAssessment(
                    action,
                    int(facts[F_VALUE, action]),
                    KIND_NAMES[int(facts[F_KIND, action])],
                    float(score[0, action]),
                    bool(facts[F_WASHES, action]),
                    bool(facts[F_ENDS, action]),
                    float(score[1, action]),
                )
            )
        return keep, options

    def _choose(self, view: TriPalkiView, legal: list[int]) -> int | None:
        if len(view.hand) != 3 or len(view.centre) != 3:
            return PASS
        if TRIPLES[cards_to_mask(view.hand)].kind != NORMAL:
            return PASS  # never break a special hand
        hand, keep, score, facts = self._assessed(view)
        bits = sum(1 << a for a in legal)
        move = choose_move(
            hand, keep, score, facts, bits, bool(view.announced), bool(view.pass_ends_round),
            self._params,
        )  # fmt: skip
        return None if move < 0 else int(move)  # None: not a real table, the fallback plays
