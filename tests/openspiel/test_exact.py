"""CFR+ and NashConv on Tri Palki tiny in OpenSpiel's C++ code (folkcards.openspiel.exact), in a
small setting that runs in seconds: one fixed hand for the first seat (140 deals) and a
one-turn limit. The full size is ``benchmarks/tri_palki_tiny_exact.py``."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

import folkcards.openspiel as fo  # noqa: E402
from folkcards.envs.tri_palki.chance import TriPalkiTinyChance  # noqa: E402
from folkcards.openspiel.exact import (  # noqa: E402
    agent_policy,
    best_response_gains,
    cached_game,
    information_states,
    nash_conv,
    solve_cfr_plus,
    uniform_policy,
)
from open_spiel.python.algorithms import exploitability  # noqa: E402
from open_spiel.python.policy import UniformRandomPolicy  # noqa: E402

from tests.helpers import load_script  # noqa: E402

FIRST_HAND = 5  # the first seat's hand in every deal of the small setting: 10S KS KD
SECOND_HAND = 71  # the dealer's in the smallest setting: AS KC 10D


@pytest.fixture
def small_deals(monkeypatch):
    """Tri Palki tiny with the first hand fixed: 140 deals instead of 16,800."""
    outcomes = TriPalkiTinyChance.outcomes

    def fixed_first(self):
        return [(FIRST_HAND, 1.0)] if not self.hands else outcomes(self)

    monkeypatch.setattr(TriPalkiTinyChance, "outcomes", fixed_first)


@pytest.fixture
def four_deals(monkeypatch):
    """Tri Palki tiny with the first hand and the dealer's fixed: the four
    centres of the four cards left."""
    outcomes = TriPalkiTinyChance.outcomes

    def fixed_hands(self):
        if len(self.hands) < 2:
            return [((FIRST_HAND, SECOND_HAND)[len(self.hands)], 1.0)]
        return outcomes(self)

    monkeypatch.setattr(TriPalkiTinyChance, "outcomes", fixed_hands)


def test_cfr_plus_converges_and_random_is_exploitable(small_deals):
    python_game, cached = cached_game("tri_palki_tiny", max_turns=1)
    policy, curve = solve_cfr_plus(cached, 200, [1, 10, 100])
    values = [value for _, value, _ in curve]
    assert [i for i, _, _ in curve] == [1, 10, 100, 200]
    assert all(v >= -1e-9 for v in values)
    assert values[-1] < values[0] and values[-1] < 1e-3
    states, histories = information_states(cached)
    assert histories > len(states) > 0
    assert nash_conv(cached, uniform_policy(states)) > 100 * values[-1]
    assert nash_conv(cached, policy) == pytest.approx(values[-1])


def test_agent_policy_gives_as_policys_probabilities(four_deals):
    """The tabular policy built from information state strings and ``as_policy`` on live
    states agree at every decision of the game."""
    python_game, cached = cached_game("tri_palki_tiny", max_turns=2)
    states, _ = information_states(cached)
    table = agent_policy("heuristic", python_game, states)
    live = fo.as_policy("heuristic", python_game)
    checked = 0
    stack = [python_game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        key = state.information_state_string()
        expected = live.action_probabilities(state)
        got = dict(table.get_state_policy(key))
        assert {a: p for a, p in got.items() if p} == {a: p for a, p in expected.items() if p}
        checked += 1
        stack.extend(state.child(a) for a in state.legal_actions())
    assert checked > 50


def test_cpp_nash_conv_and_each_seats_gain_match_openspiels_python(small_deals):
    """Two implementations: NashConv and each seat's best-response gain in C++ on the cached
    tree, and OpenSpiel's Python best response on the Python game."""
    python_game, cached = cached_game("tri_palki_tiny", max_turns=1)
    states, _ = information_states(cached)
    gains = best_response_gains(cached, uniform_policy(states))
    expected = exploitability.nash_conv(
        python_game, UniformRandomPolicy(python_game), return_only_nash_conv=False
    )
    assert gains == pytest.approx(list(expected.player_improvements), abs=1e-9)
    assert nash_conv(cached, uniform_policy(states)) == pytest.approx(expected.nash_conv, abs=1e-9)
    assert sum(gains) == pytest.approx(expected.nash_conv, abs=1e-9)
    assert gains[0] > 0.1  # the dealer decides at max_turns=1: a best response gains there


def test_the_dealers_decision_enumerated_gives_the_trees_nash_conv(small_deals):
    """At max_turns=1 only the dealer decides: ``benchmarks/tri_palki_tiny_exact.py``'s
    enumeration of that decision over the deals (the rules engine, no tree) and OpenSpiel's
    NashConv on the cached tree agree, for random and for the heuristic."""
    from folkcards.envs.tri_palki.tiny import TINY_HANDS

    module = load_script("benchmarks/tri_palki_tiny_exact.py")
    python_game, cached = cached_game("tri_palki_tiny", max_turns=1)
    states, _ = information_states(cached)
    left = [TINY_HANDS[FIRST_HAND]]
    values = []
    for spec, policy in (
        (None, uniform_policy(states)),
        ("heuristic", agent_policy("heuristic", python_game, states)),
    ):
        values.append(nash_conv(cached, policy))
        assert module.dealer_gain(spec, left_hands=left) == pytest.approx(values[-1], abs=1e-12)
    assert values[0] > 0.1  # random as the dealer is exploitable: the check is not 0 == 0
