"""Paston card play that does not pretend it will see every card later.

Perfect-information Monte Carlo (PIMC) solves each sampled world open-handed and averages: the
value of a card is the mean over worlds of the best play *in that world*. That credits the
player with choosing its later cards knowing the world, which it cannot: *strategy fusion*
(Frank & Basin 1998). The classic case is a guess met later (which way to finesse, which
card to keep in an end position): every world's solution guesses right, so PIMC cannot tell a
card that forces the guess now from one that avoids it.

This module's correction looks one of the player's own decisions ahead, as the αμ search of
Cazenave and Ventos (2019) does with ``M = 2``: after each candidate card the other seats reply
as the open-hand solver would in each world (the declarer maximising its tricks, a defender
minimising them: they are given the world, the pessimistic assumption of αμ), up to the
player's next decision. There the player has seen the same cards in some worlds and not in
others; worlds it cannot tell apart (the same cards played since) get **one** card, the one
best over that group, instead of each world's own best. The card's *fused value* is the mean
over worlds of the score so reached; the PIMC value of the same worlds is the mean of each
world's best. Their difference (≥ 0) is what PIMC over-credits the card for fused choices one
decision ahead: :func:`fused_card_values` returns both.

Scores are the acting seat's (a ``score`` callable turns the declarer's trick totals into
them, e.g. :func:`folkcards.agents.pimc.table_scores`), so "best" means best table score.
Deterministic: ties between equally good replies go to the lowest card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .paston_solver import PastonSolver, Position, legal_cards

__all__ = ["FusedValues", "fused_card_values"]


@dataclass(frozen=True)
class FusedValues:
    """Per candidate card (``cards``, ascending): ``fused`` is the mean score when the player
    must choose its next card without seeing the world, ``pimc`` the mean when it may (PIMC's
    value of the same worlds); ``groups`` how many groups of worlds the player can tell apart
    at its next decision."""

    cards: list[int]
    fused: np.ndarray
    pimc: np.ndarray
    groups: np.ndarray

    @property
    def fusion_cost(self) -> np.ndarray:
        """``pimc - fused`` per card: PIMC's over-credit for choosing later cards per world."""
        return self.pimc - self.fused


def _next_decision(
    solver: PastonSolver, position: Position, seat: int
) -> tuple[tuple[int, ...], dict[int, int]]:
    """Play the other seats' open-hand replies until ``seat`` acts again. Returns the cards
    seen on the way and the declarer's totals after each of ``seat``'s cards there (one entry,
    keyed -1, when the play ends first)."""
    seen: list[int] = []
    while position.tricks_left and position.to_act != seat:
        card = solver.best_moves(position)[0]  # the open-hand reply; ties: the lowest card
        seen.append(card)
        position = position.play(card)
    if not position.tricks_left:
        return tuple(seen), {-1: position.declarer_tricks}
    return tuple(seen), solver.move_values(position)


def fused_card_values(
    solver: PastonSolver,
    positions: Sequence[Position],
    score: Callable[[np.ndarray], np.ndarray],
) -> FusedValues:
    """The fused and PIMC values of each legal card of the seat to act (see the module
    docstring). ``positions`` are the sampled worlds (the same seat to act, the same cards in
    its hand and the same trick in each; ``ValueError`` otherwise); ``score`` maps an array of
    the declarer's trick totals to that seat's scores, element by element."""
    if not positions:
        raise ValueError("fused_card_values needs at least one world")
    first = positions[0]
    seat = first.to_act
    for position in positions[1:]:
        if (
            position.to_act != seat
            or position.hands[seat] != first.hands[seat]
            or position.trick != first.trick
        ):
            raise ValueError("the worlds differ in what the seat to act sees (its hand or trick)")
    cards = legal_cards(first)
    n = len(positions)
    fused = np.zeros(len(cards))
    pimc = np.zeros(len(cards))
    groups = np.zeros(len(cards), dtype=np.int64)
    for i, card in enumerate(cards):
        by_seen: dict[tuple[int, ...], list[dict[int, int]]] = {}
        for position in positions:
            seen, totals = _next_decision(solver, position.play(card), seat)
            by_seen.setdefault(seen, []).append(totals)
        for rows in by_seen.values():
            options = list(rows[0])  # the same hand and trick: the same legal cards
            table = score(np.array([[row[c] for c in options] for row in rows], dtype=float))
            fused[i] += table.sum(axis=0).max()
            pimc[i] += table.max(axis=1).sum()
        groups[i] = len(by_seen)
    return FusedValues(cards, fused / n, pimc / n, groups)
