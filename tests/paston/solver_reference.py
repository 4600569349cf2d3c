"""A plain minimax over every legal card: the oracle the tests hold the compiled solver to.

No pruning, no rank equivalence, no heuristics; positions are memoised on their exact cards only.
The trick winner is the engine's :func:`folkcards.envs.paston.rules.trick_winner`. Fine for
endings of a few tricks; far too slow for full deals.
"""

from __future__ import annotations

from folkcards.envs.cards import mask_to_cards
from folkcards.envs.paston.rules import trick_winner
from folkcards.search.paston_solver import Position

_SUIT = 0xFF


def _legal(hand: int, trick: tuple[tuple[int, int], ...], trump: int) -> list[int]:
    if trick:
        follow = hand & (_SUIT << (8 * (trick[0][1] >> 3)))
        if follow:
            return mask_to_cards(follow)
        trumps = hand & (_SUIT << (8 * trump))
        if trumps:
            return mask_to_cards(trumps)
    return mask_to_cards(hand)


class _Minimax:
    def __init__(self, position: Position):
        self.trump = position.trump
        self.declarer = position.declarer
        self.active = position.active
        self.memo: dict[tuple, int] = {}

    def next_seat(self, seat: int) -> int:
        nxt = (seat + 1) % 3
        return nxt if nxt in self.active else (nxt + 1) % 3

    def value(self, hands: tuple[int, ...], trick: tuple[tuple[int, int], ...], to_act: int) -> int:
        """Declarer's tricks from here on (the current trick included)."""
        key = (hands, trick, to_act)
        if key in self.memo:
            return self.memo[key]
        if not trick and hands[to_act] == 0:
            return 0
        values = [
            self.after(hands, trick, to_act, card)
            for card in _legal(hands[to_act], trick, self.trump)
        ]
        best = max(values) if to_act == self.declarer else min(values)
        self.memo[key] = best
        return best

    def after(
        self, hands: tuple[int, ...], trick: tuple[tuple[int, int], ...], seat: int, card: int
    ) -> int:
        """Declarer's tricks from here on if ``seat`` plays ``card`` now."""
        new_hands = tuple(h & ~(1 << card) if s == seat else h for s, h in enumerate(hands))
        new_trick = (*trick, (seat, card))
        if len(new_trick) == len(self.active):
            winner = trick_winner(new_trick, self.trump)
            return (winner == self.declarer) + self.value(new_hands, (), winner)
        return self.value(new_hands, new_trick, self.next_seat(seat))


def _start(position: Position) -> tuple[_Minimax, tuple[int, ...], tuple[tuple[int, int], ...]]:
    search = _Minimax(position)
    order = position.play_order()
    trick = tuple(zip(order, position.trick, strict=False))
    return search, position.play_hands(), trick


def reference_solve(position: Position) -> int:
    """The declarer's total tricks under optimal play, by exhaustive minimax."""
    search, hands, trick = _start(position)
    return position.declarer_tricks + search.value(hands, trick, position.to_act)


def reference_move_values(position: Position) -> dict[int, int]:
    """For every legal card of the seat to act, the declarer's total tricks after it."""
    search, hands, trick = _start(position)
    seat = position.to_act
    if not trick and hands[seat] == 0:
        return {}
    return {
        card: position.declarer_tricks + search.after(hands, trick, seat, card)
        for card in _legal(hands[seat], trick, position.trump)
    }
