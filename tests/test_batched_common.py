"""The pieces both batched engines share (folkcards.envs._batched)."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.envs._batched import (
    PARALLEL_FROM,
    FinalInfos,
    check_actions,
    random_legal_actions,
    seed_states,
)


def test_random_legal_actions_are_legal_and_uniform():
    """Each game draws only its legal actions, each equally often (chi-square, p = 1e-4)."""
    num_envs = 2 * PARALLEL_FROM  # stepped on threads
    rng = np.random.default_rng(0)
    mask = (rng.random((num_envs, 13)) < 0.4).astype(np.int8)
    mask[np.arange(num_envs), rng.integers(13, size=num_envs)] = 1
    streams = seed_states(1, num_envs)
    counts = np.zeros((num_envs, 13))
    out = np.zeros(num_envs, dtype=np.int64)
    draws = 400
    for _ in range(draws):
        random_legal_actions(mask, streams, out)
        counts[np.arange(num_envs), out] += 1
    assert not counts[mask == 0].any()
    legal = mask.sum(axis=1)
    expected = (draws / legal)[:, None] * mask
    chi2 = float(((counts - expected) ** 2 / np.where(mask, expected, 1)).sum())
    dof = int((legal - 1).sum())
    assert chi2 < dof + 4 * np.sqrt(2 * dof)


def test_seed_states_are_a_prefix_and_reject_bad_seeds():
    assert np.array_equal(seed_states(5, 3), seed_states(5, 100)[:3])
    assert not np.array_equal(seed_states(5, 3), seed_states(6, 3))
    assert not np.array_equal(seed_states(None, 3), seed_states(None, 3))
    for bad in (-1, 1.5, "1", True):
        with pytest.raises(ValueError, match="seed"):
            seed_states(bad, 2)  # type: ignore[arg-type]


def test_check_actions_names_the_game():
    assert check_actions([1, 2], 2, 5).dtype == np.int64
    assert check_actions(np.array([1.0, 2.0]), 2, 5).tolist() == [1, 2]
    with pytest.raises(ValueError, match="game 1: action 5"):
        check_actions([0, 5], 2, 5)
    with pytest.raises(ValueError, match="shape"):
        check_actions([[0, 1]], 2, 5)
    with pytest.raises(ValueError, match="integers"):
        check_actions(["a", "b"], 2, 5)


def test_final_infos_build_each_game_once_on_demand():
    built = []

    def build(k: int) -> dict:
        built.append(k)
        return {"player_0": {"k": k}}

    infos = FinalInfos(np.array([4, 9]), build)
    assert list(infos) == [4, 9] and len(infos) == 2 and built == []
    assert infos[9] == {"player_0": {"k": 1}} and infos[9] is infos[9]
    assert built == [1]
    assert 3 not in infos
    with pytest.raises(KeyError):
        infos[3]
