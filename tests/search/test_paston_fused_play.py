"""The strategy-fusion correction of Paston card play (``folkcards.search.paston_fused_play``).

Checked against a plain Python minimax written here (every card of every trick enumerated), on
small end positions, and against the property that defines it: a player that must pick one card
for worlds it cannot tell apart never does better than one that picks per world.
"""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.search.paston_fused_play import fused_card_values
from folkcards.search.paston_solver import PastonSolver, Position, legal_cards


def minimax(position: Position) -> int:
    """The declarer's total tricks under open-hand play, by enumeration."""
    if not position.tricks_left:
        return position.declarer_tricks
    values = [minimax(position.play(card)) for card in legal_cards(position)]
    return max(values) if position.to_act == position.declarer else min(values)


def reference(positions: list[Position]) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Fused and per-world (PIMC) values of the declarer's tricks, from minimax alone."""
    seat = positions[0].to_act
    cards = legal_cards(positions[0])
    fused, pimc = [], []
    for card in cards:
        groups: dict[tuple[int, ...], list[dict[int, int]]] = {}
        for world in positions:
            p, seen = world.play(card), []
            while p.tricks_left and p.to_act != seat:
                options = {c: minimax(p.play(c)) for c in legal_cards(p)}
                best = (max if p.to_act == p.declarer else min)(options.values())
                reply = min(c for c, v in options.items() if v == best)
                seen.append(reply)
                p = p.play(reply)
            row = (
                {c: minimax(p.play(c)) for c in legal_cards(p)}
                if p.tricks_left
                else {-1: p.declarer_tricks}
            )
            groups.setdefault(tuple(seen), []).append(row)
        f = s = 0.0
        for rows in groups.values():
            options = list(rows[0])
            f += max(sum(r[c] for r in rows) for c in options)
            s += sum(max(r.values()) for r in rows)
        fused.append(f / len(positions))
        pimc.append(s / len(positions))
    return cards, np.array(fused), np.array(pimc)


def small_worlds(rng: np.random.Generator, tricks: int, n_worlds: int) -> list[Position]:
    """Worlds of a 3-player end position: the declarer (seat 0) leads with ``tricks`` cards
    each; its hand is fixed, the other two hands are redealt from the same cards per world."""
    cards = rng.permutation(32)[: 3 * tricks]
    mine, others = cards[:tricks], cards[tricks:]
    trump = int(rng.integers(4))
    worlds = []
    for _ in range(n_worlds):
        shuffled = rng.permutation(others)
        hands = [mine, shuffled[:tricks], shuffled[tricks:]]
        worlds.append(Position([sum(1 << int(c) for c in h) for h in hands], trump, 0))
    return worlds


def identity(totals: np.ndarray) -> np.ndarray:
    return totals


@pytest.mark.parametrize("seed", range(6))
def test_the_values_match_a_plain_minimax(seed):
    worlds = small_worlds(np.random.default_rng(seed), tricks=3, n_worlds=5)
    got = fused_card_values(PastonSolver(), worlds, identity)
    cards, fused, pimc = reference(worlds)
    assert got.cards == cards
    assert np.allclose(got.fused, fused) and np.allclose(got.pimc, pimc)


def test_fusing_never_beats_choosing_per_world_and_sometimes_costs():
    solver, costs = PastonSolver(), []
    rng = np.random.default_rng(11)
    for _ in range(25):
        values = fused_card_values(solver, small_worlds(rng, tricks=4, n_worlds=8), identity)
        assert np.all(values.fusion_cost >= -1e-9)
        assert np.all(values.groups >= 1) and np.all(values.groups <= 8)
        costs.extend(values.fusion_cost)
    assert max(costs) > 0  # the correction is not always zero on such positions


def test_one_world_has_no_fusion_and_matches_the_solver():
    world = small_worlds(np.random.default_rng(3), tricks=4, n_worlds=1)
    solver = PastonSolver()
    values = fused_card_values(solver, world, identity)
    assert np.allclose(values.fusion_cost, 0)
    expected = solver.move_values(world[0])
    assert np.allclose(values.pimc, [expected[c] for c in values.cards])


def test_worlds_that_show_the_player_different_cards_are_refused():
    rng = np.random.default_rng(5)
    a = small_worlds(rng, tricks=3, n_worlds=1)[0]
    b = small_worlds(rng, tricks=3, n_worlds=1)[0]
    with pytest.raises(ValueError, match="differ"):
        fused_card_values(PastonSolver(), [a, b], identity)
    with pytest.raises(ValueError, match="at least one"):
        fused_card_values(PastonSolver(), [], identity)
