"""The derived observation features: computed from the observation alone, checked against the
spec's hand values (tests/tri_palki/spec_helpers.py, not the engine or the heuristic)."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.features import FEATURE_SETS, get_feature_set
from folkcards.envs import tri_palki_v0
from folkcards.envs.tri_palki.observation import decode, observation_size

from ..helpers import walk_decisions
from ..tri_palki.spec_helpers import hand_kind, hand_value

FEATURES = get_feature_set("tri_palki_actions", "tri_palki")
MOVE_FEATURES = 7
MOVES = 11


def _states(num_players: int = 4, rounds: int = 40, seed: int = 0):
    """(observation dict, heuristic action) for every decision of mixed random/heuristic rounds."""
    env = tri_palki_v0.raw_env(num_players=num_players)
    seats = env.possible_agents
    heuristics = {s: make_agent("heuristic", "tri_palki", s, i) for i, s in enumerate(seats)}
    randoms = {s: make_agent("random", "tri_palki", s, seed + i) for i, s in enumerate(seats)}
    choices: list[int] = []  # the heuristic's answer in the last state
    played = [0]  # rounds started

    def choose(seat: str, obs: dict) -> int:
        choices[:] = [heuristics[seat].act(obs)]
        # every other round is played by random agents, for more varied states
        return choices[0] if played[0] % 2 else randoms[seat].act(obs)

    def count_round() -> None:
        played[0] += 1

    for _, obs, _ in walk_decisions(env, range(seed, seed + rounds), choose, count_round):
        yield obs, choices[0]


def _move_rows(vector: np.ndarray, num_players: int) -> np.ndarray:
    start = observation_size(num_players) + 5 + 2 * (num_players - 1)
    return vector[start : start + MOVES * MOVE_FEATURES].reshape(MOVES, MOVE_FEATURES)


@pytest.mark.parametrize("num_players", [2, 4, 7, 11])
def test_size_and_the_observation_comes_first(num_players: int) -> None:
    size = observation_size(num_players)
    for obs, _ in _states(num_players, rounds=3):
        vector = FEATURES(obs["observation"])
        assert vector.shape == (FEATURES.size(size),)
        assert FEATURES.size(size) == size + 5 + 2 * (num_players - 1) + MOVES * MOVE_FEATURES
        np.testing.assert_array_equal(vector[:size], obs["observation"])
        assert np.isfinite(vector).all()


def test_move_rows_give_the_hand_each_move_leaves() -> None:
    checked = 0
    for obs, _ in _states():
        view = decode(obs["observation"])
        if view.phase != "action" or len(view.hand) != 3:
            continue
        rows = _move_rows(FEATURES(obs["observation"]), 4)
        hand, centre = view.hand, view.centre
        after = {0: list(hand), 10: list(centre)}
        for h in range(3):
            for c in range(3):
                after[1 + 3 * h + c] = [x for x in hand if x != hand[h]] + [centre[c]]
        for action, cards in after.items():
            assert rows[action, 0] == 1.0  # legal in the action phase
            assert rows[action, 1] == pytest.approx(hand_value(cards) / 31.0)
            assert rows[action, 2] == (hand_kind(cards) != "normal")
            if action:
                given = list(hand) if action == 10 else [hand[(action - 1) // 3]]
                left = [x for x in centre if x not in cards] + given
                assert rows[action, 4] == (len({c // 9 for c in left}) == 1)  # washes
        checked += 1
    assert checked > 500


def test_known_cards_of_others_are_summarised() -> None:
    seen_known = 0
    for obs, _ in _states():
        view = decode(obs["observation"])
        if len(view.hand) != 3:
            continue
        vector = FEATURES(obs["observation"])
        base = observation_size(4) + 5
        for r in range(1, 4):
            known = view.known[r]
            assert vector[base + 2 * (r - 1) + 1] == pytest.approx(len(known) / 3.0)
            assert vector[base + 2 * (r - 1)] == pytest.approx(
                hand_value(known) / 31.0 if known else 0.0
            )
            seen_known += bool(known)
    assert seen_known > 100


def test_the_heuristics_swap_has_the_best_score_feature() -> None:
    """The score column is the heuristic's own: its chosen swap is the best-scored one."""
    swaps = 0
    for obs, choice in _states():
        if not 1 <= choice <= 10:
            continue
        rows = _move_rows(FEATURES(obs["observation"]), 4)
        assert rows[choice, 3] == pytest.approx(rows[1:11, 3].max())
        assert rows[choice, 3] > 0  # better than keeping the hand
        swaps += 1
    assert swaps > 100


def test_unknown_or_foreign_feature_sets_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown feature set 'nope'"):
        get_feature_set("nope")
    with pytest.raises(ValueError, match="is for tri_palki, not paston"):
        get_feature_set("tri_palki_actions", "paston")
    assert set(FEATURE_SETS) == {"tri_palki_actions"}
