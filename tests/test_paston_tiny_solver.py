"""The open-hand solver on Paston tiny's two-card hands, against a plain minimax over the two
tricks played by the rules engine itself."""

from __future__ import annotations

import numpy as np
from folkcards.envs.paston.rules import OVER, PLAY, PastonDeal, deal_deck
from folkcards.envs.paston.variant import PASTON_TINY
from folkcards.search.paston_solver import PastonSolver, Position


def _minimax(deal: PastonDeal) -> int:
    """The declarer's total tricks with best play by all, the engine stepping every card."""
    if deal.phase == OVER:
        return deal.tricks[deal.declarer]
    values = []
    bits = deal.legal_bits()
    for card in range(32):
        if bits >> card & 1:
            after = deal.copy()
            after.apply(card)
            values.append(_minimax(after))
    return max(values) if deal.to_act == deal.declarer else min(values)


def _play_states(seed: int):
    """Every play-phase state of one random Paston tiny deal played by random legal actions."""
    rng = np.random.default_rng(seed)
    deck = list(PASTON_TINY.deck)
    while True:
        order = rng.permutation(deck).tolist()
        if order[-1] != PASTON_TINY.bottom_card_banned:
            break
    dealer = int(rng.integers(3))
    hands, prikup = deal_deck(order, dealer, PASTON_TINY)
    deal = PastonDeal(hands, prikup, dealer, (dealer + 1) % 3, PASTON_TINY)
    while deal.phase != OVER:
        if deal.phase == PLAY:
            yield deal.copy()
        legal = [a for a in range(45) if deal.legal_bits() >> a & 1]
        deal.apply(int(rng.choice(legal)))


def test_the_solver_agrees_with_minimax_on_two_card_hands():
    solver = PastonSolver()
    checked = set()
    for seed in range(3000):
        for deal in _play_states(seed):
            position = Position.from_deal(deal)
            key = repr(position)
            if key in checked:
                continue
            checked.add(key)
            assert solver.solve(position) == _minimax(deal), position
            values = {}
            bits = deal.legal_bits()
            for card in range(32):
                if bits >> card & 1:
                    after = deal.copy()
                    after.apply(card)
                    values[card] = _minimax(after)
            assert solver.move_values(position) == values, position
    assert len(checked) > 1000  # first leads, second and third hands, the last trick
