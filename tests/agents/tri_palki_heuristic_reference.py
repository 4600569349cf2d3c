"""The Python Tri Palki heuristic as it was before its rules moved to the compiled shared core
(``agents/tri_palki_heuristic_core.py``): an independent reference for the differential test in
``tests/agents/test_tri_palki_heuristic_batched.py``. Not used by the package."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from folkcards.agents.base import RuleBasedAgent
from folkcards.agents.tri_palki_heuristic import TriPalkiParams
from folkcards.envs.cards import TRI_PALKI_CARDS, cards_to_mask
from folkcards.envs.tri_palki.observation import TriPalkiView, decode
from folkcards.envs.tri_palki.rules import POINTS, TRIPLES, key_score
from folkcards.envs.tri_palki.vocabulary import (
    ANNOUNCE,
    KIND_NAMES,
    NORMAL,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
    THREE_ACES,
)

ACE = 8
SAFE_SCORE = 40.0
THREE_ACES_SCORE = 45.0


_suit = TRI_PALKI_CARDS.suit
_rank = TRI_PALKI_CARDS.rank


def hand_info(cards: tuple[int, ...]) -> tuple[int, int, str]:
    """``(value, key, kind)`` of a three-card hand: the rules' value and comparison key, and the
    kind's name (normal / safe / three_aces)."""
    triple = TRIPLES[cards_to_mask(cards)]
    return triple.value, triple.key, KIND_NAMES[triple.kind]


def suit_value(cards: list[int]) -> int:
    """The best one-suit sum of points among any number of cards (0 without cards)."""
    by_suit = [0, 0, 0, 0]
    for card in cards:
        by_suit[_suit(card)] += POINTS[_rank(card)]
    return max(by_suit)


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


class ReferenceTriPalkiHeuristic(RuleBasedAgent):
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

    def _decide(self, vector: np.ndarray, legal: list[int]) -> int | None:
        if ANNOUNCE in legal:
            return ANNOUNCE
        return self._choose(decode(vector), legal)

    def _fallback(self, legal: list[int]) -> int:
        return PASS if PASS in legal else legal[0]

    # --- evaluation --------------------------------------------------------------------------

    def _hand_score(self, hand: list[int], pool_by_suit: list[list[int]], final: bool) -> float:
        triple = TRIPLES[cards_to_mask(hand)]
        if triple.kind != NORMAL:
            return THREE_ACES_SCORE if triple.kind == THREE_ACES else SAFE_SCORE
        value = triple.value
        score = key_score(triple.key)
        if final or value >= 31:
            return score
        # potential: a suit of two held cards completed by an average card of that suit in play
        best_gain = 0.0
        for suit in range(4):
            held = [c for c in hand if _suit(c) == suit]
            if len(held) != 2:
                continue
            pool = pool_by_suit[suit]
            if not pool:
                continue
            mean = sum(POINTS[_rank(c)] for c in pool) / len(pool)
            reach = sum(POINTS[_rank(c)] for c in held) + mean
            weight = min(1.0, len(pool) / 4.0)
            best_gain = max(best_gain, weight * (reach - value))
        return score + self.params.potential * best_gain

    def _feed_cost(self, view: TriPalkiView, given: list[int], centre_after: list[int]) -> float:
        """What the cards put into the centre could give the opponents, by their known cards."""
        if not given:
            return 0.0
        p = self.params
        n = view.num_players
        cost = 0.0
        next_seat = self._next_seat(view)
        for r in range(1, n):
            if view.eliminated[r]:
                continue
            if view.announced and not view.final_turn_pending[r]:
                continue  # no turn left for them
            known = view.known[r]
            if not known:
                continue
            gain = 0.0
            aces = sum(1 for c in known if _rank(c) == ACE)
            for card in given:
                if card not in centre_after:
                    continue
                if aces == 2 and _rank(card) == ACE:
                    cost += p.three_aces_gift  # three aces: every normal hand gets a stick
                    continue
                same = [c for c in known if _suit(c) == _suit(card)]
                if len(same) < 2:
                    continue  # only a suit of two known cards is completed by one card
                base = suit_value(known)
                with_card = sum(POINTS[_rank(c)] for c in same[:2]) + POINTS[_rank(card)]
                gain = max(gain, with_card - base)
            cost += gain * (p.feed + (p.next_feed if r == next_seat else 0.0))
        return cost

    @staticmethod
    def _next_seat(view: TriPalkiView) -> int | None:
        n = view.num_players
        for step in range(1, n):
            if not view.eliminated[step]:
                return step
        return None

    # --- choice ------------------------------------------------------------------------------

    def assess(self, view: TriPalkiView, legal: list[int]) -> tuple[float, list[ActionAssessment]]:
        """The score of keeping the hand and an :class:`ActionAssessment` of every legal swap.

        Needs a three-card hand and a three-card centre; the scores are the heuristic's own
        (hand key, potential, wash bonus or round end, feeding cost).
        """
        p = self.params
        hand = view.hand
        centre = view.centre
        final = view.announced  # after an announcement this is my last turn
        # cards that may still come to the centre: not mine, not washed, not known elsewhere
        seen = set(hand) | set(centre) | set(view.washed)
        for r in range(1, view.num_players):
            seen.update(view.known[r])
        pool_by_suit: list[list[int]] = [[] for _ in range(4)]
        for card in range(36):
            if card not in seen:
                pool_by_suit[_suit(card)].append(card)

        keep = self._hand_score(hand, pool_by_suit, final)
        options: list[ActionAssessment] = []
        for action in legal:
            if action == PASS or action > SWAP_ALL:
                continue
            if action == SWAP_ALL:
                new_hand, new_centre, given = list(centre), list(hand), list(hand)
            else:
                h, c = divmod(action - SWAP_BASE, 3)
                new_hand = [x for x in hand if x != hand[h]] + [centre[c]]
                new_centre = [x for x in centre if x != centre[c]] + [hand[h]]
                given = [hand[h]]
            score = self._hand_score(new_hand, pool_by_suit, final)
            nv, _, nk = hand_info(tuple(sorted(new_hand)))
            washes = TRIPLES[cards_to_mask(new_centre)].one_suit
            ends_round = washes and view.reserve_low
            if washes:
                if ends_round:
                    # the round ends at once with this hand
                    score += 3.0 if nk != "normal" or nv >= p.end_round else -3.0
                else:
                    score += p.wash_bonus
                    new_centre = []  # washed: the given cards leave the game
            feed = self._feed_cost(view, given, new_centre)
            options.append(ActionAssessment(action, nv, nk, score - feed, washes, ends_round, feed))
        return keep, options

    def _choose(self, view: TriPalkiView, legal: list[int]) -> int:
        p = self.params
        hand = view.hand
        if len(hand) != 3 or len(view.centre) != 3:
            return PASS
        value, _, kind = hand_info(tuple(hand))
        if kind in ("safe", "three_aces"):
            return PASS  # never break a special hand
        keep, options = self.assess(view, legal)
        if not options:
            return PASS
        best = max(options, key=lambda o: (o.score, o.action))
        reaches_top = best.kind != "normal" or best.value >= 31
        if view.announced:  # final turn: only the final hand matters
            return best.action if best.score > keep else PASS
        if value >= 31:
            return PASS
        if value >= p.strong and not reaches_top:
            return PASS
        if view.pass_ends_round and value >= p.end_round and not reaches_top:
            return PASS
        if best.score > keep + p.min_gain:
            return best.action
        return PASS


# The Python policy_core pimc had before it called the shared compiled rules.
_STRONG, _END_ROUND, _MIN_GAIN, _WASH_BONUS = 30, 24, 0.5, 1.5
_SCORES: dict[int, float] = {
    mask: THREE_ACES_SCORE
    if t.kind == THREE_ACES
    else SAFE_SCORE
    if t.kind != NORMAL
    else key_score(t.key)
    for mask, t in TRIPLES.items()
}


def reference_policy_core(
    hand: int, centre: int, reserve_low: bool, announced: bool, deciding: bool
) -> int:
    """The heuristic's core rules (no potential, no feeding cost) on masks, as pimc had them."""
    th = TRIPLES[hand]
    if th.kind != NORMAL:
        return PASS
    tc = TRIPLES[centre]
    best_score = -1e9
    best_action = PASS
    best_mask = hand
    for action in range(SWAP_ALL, SWAP_BASE - 1, -1):  # ties: the highest id, as the heuristic
        if action == SWAP_ALL:
            new, new_centre = centre, hand
        else:
            h, c = divmod(action - SWAP_BASE, 3)
            moved = th.bits[h] ^ tc.bits[c]
            new, new_centre = hand ^ moved, centre ^ moved
        score = _SCORES[new]
        if TRIPLES[new_centre].one_suit:
            if reserve_low:
                t = TRIPLES[new]
                score += 3.0 if t.kind != NORMAL or t.value >= _END_ROUND else -3.0
            else:
                score += _WASH_BONUS
        if score > best_score:
            best_score, best_action, best_mask = score, action, new
    keep = _SCORES[hand]
    if announced:
        return best_action if best_score > keep else PASS
    best = TRIPLES[best_mask]
    reaches_top = best.kind != NORMAL or best.value >= 31
    value = th.value
    if value >= 31 or (value >= _STRONG and not reaches_top):
        return PASS
    if deciding and value >= _END_ROUND and not reaches_top:
        return PASS
    return best_action if best_score > keep + _MIN_GAIN else PASS
