"""CFR+ and NashConv on Paston tiny in OpenSpiel's C++ code, in a small setting that runs in
seconds: one deal, every hand and the prikup given. The whole game and its larger sub-games
are ``benchmarks/paston_tiny_exact.py``."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from folkcards.envs.cards import PASTON_CARDS  # noqa: E402
from folkcards.envs.paston.chance import PastonTinyChance  # noqa: E402
from folkcards.openspiel import load_game  # noqa: E402
from folkcards.openspiel.exact import (  # noqa: E402
    information_states,
    nash_conv,
    solve_cfr_plus,
    uniform_policy,
)

# dealer player_0: JS KS; player_1 (bids first): AS KC; player_2: 7S JC; the prikup: 7C AC
ONE_DEAL = {"JS": 0, "KS": 0, "AS": 1, "KC": 1, "7S": 2, "JC": 2, "7C": 3, "AC": 3}


@pytest.fixture(scope="module")
def one_deal():
    game = load_game("paston_tiny")
    game.chance = PastonTinyChance.given_cards(
        {PASTON_CARDS.card_id(card): place for card, place in ONE_DEAL.items()}
    )
    cached = pyspiel.convert_to_cached_tree(game)
    states, histories = information_states(cached)
    return game, cached, states, histories


def test_the_deal_is_the_given_one(one_deal):
    game, _, _, _ = one_deal
    state = game.new_initial_state()
    while state.is_chance_node():
        [(outcome, probability)] = state.chance_outcomes()
        assert probability == 1.0
        state.apply_action(outcome)
    assert "player_1: A♠ K♣" in str(state) and state.current_player() == 1


def test_cfr_plus_converges_and_random_is_exploitable(one_deal):
    _, cached, states, histories = one_deal
    assert histories > len(states) > 1000
    policy, curve = solve_cfr_plus(cached, 40, [1, 10])
    values = [value for _, value, _ in curve]
    assert [i for i, _, _ in curve] == [1, 10, 40]
    assert all(v >= -1e-9 for v in values)
    assert values[-1] < values[1] < values[0]
    assert values[-1] < 1.0  # table points, summed over the three seats
    assert nash_conv(cached, uniform_policy(states)) > 10 * values[-1]
    assert nash_conv(cached, policy) == pytest.approx(values[-1])
