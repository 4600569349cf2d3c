"""The batched bidding env on open-hand tables against the AEC bidding env: the
same deals and actions give the same players, observations, masks, rewards and final infos."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from folkcards.envs import paston_bidding_v0
from folkcards.envs.paston.rules import DISCARD
from folkcards.envs.paston_bidding import tables as T
from folkcards.search import paston_table_maker as maker

SHIPPED = T.shipped_table_path()


@pytest.fixture(scope="module")
def table_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if SHIPPED.exists():
        return SHIPPED
    out = tmp_path_factory.mktemp("bidding") / "t.table"  # pragma: no cover - before shipping
    maker.generate(out, 40, seed=3)
    return out


def _aec_for(table: T.OpenHandTable, index: int) -> paston_bidding_v0.raw_env:
    env = paston_bidding_v0.raw_env()
    env.reset(seed=0, options=table.deal_option(index))
    return env


def _aec_discards(env, table: T.OpenHandTable, index: int) -> None:
    """Play the table's discard pair in the AEC env (lower card first)."""
    deal = env.state_deal()
    while deal.phase == DISCARD:
        pair = table.discard_pair(index, deal.declarer, max(deal.high_bid, 0))
        env.step(pair[0] if deal.discards == 0 else pair[1])


def _run(num_envs: int, steps: int, seed: int, table_path: Path, biased: bool) -> int:
    vec = paston_bidding_v0.vector_env(num_envs, tables=table_path)
    table = vec.table
    obs, mask, player = vec.reset(seed=seed)
    envs = [_aec_for(table, int(k)) for k in vec.table_indices()]
    rng = np.random.default_rng(seed)
    finished = 0
    for _ in range(steps):
        for i, env in enumerate(envs):
            _aec_discards(env, table, int(vec.table_indices()[i]))
            agent = env.agent_selection
            assert f"player_{player[i]}" == agent
            aec = env.observe(agent)
            assert np.array_equal(aec["observation"], obs[i]), i
            assert np.array_equal(aec["action_mask"], mask[i]), i
        actions = np.empty(num_envs, dtype=np.int64)
        for i in range(num_envs):
            legal = np.flatnonzero(mask[i])
            # bias towards bids and whists so that most deals are played out
            actions[i] = legal[-1] if biased and rng.random() < 0.6 else rng.choice(legal)
        indices = vec.table_indices()
        obs, mask, player, rewards, terminated, truncated, infos = vec.step(actions)
        assert not truncated.any()
        for i, env in enumerate(envs):
            before = {a: env.rewards[a] for a in env.agents}
            env.step(int(actions[i]))
            _aec_discards(env, table, int(indices[i]))
            done = all(env.terminations.values())
            assert bool(terminated[i]) == done
            if done:
                got = rewards[i].tolist()
                want = [env.rewards[f"player_{s}"] for s in range(3)]
                assert got == pytest.approx(want), (i, got, want, before)
                for s in range(3):
                    expected = dict(env.infos[f"player_{s}"])
                    info = dict(infos[i][f"player_{s}"])
                    assert info.pop("table_index") == int(indices[i])
                    assert info == expected
                finished += 1
                envs[i] = _aec_for(table, int(vec.table_indices()[i]))
            else:
                assert rewards[i].tolist() == [0.0, 0.0, 0.0]
    return finished


def test_batched_bidding_equals_the_aec_env(table_path: Path):
    assert _run(64, 60, seed=1, table_path=table_path, biased=True) > 300


@pytest.mark.slow
def test_batched_bidding_equals_the_aec_env_on_thousands_of_deals(table_path: Path):
    assert _run(256, 120, seed=2, table_path=table_path, biased=True) > 3000


def test_where_moves_only_the_chosen_games(table_path: Path):
    vec = paston_bidding_v0.vector_env(8, tables=table_path)
    obs, mask, player = vec.reset(seed=4)
    before = obs.copy(), mask.copy(), player.copy(), vec.table_indices()
    where = np.zeros(8, dtype=bool)
    where[::2] = True
    actions = np.array([np.flatnonzero(m)[0] for m in mask])
    obs, mask, player, rewards, *_ = vec.step(actions, where=where)
    assert np.array_equal(obs[1::2], before[0][1::2]) and np.array_equal(
        player[1::2], before[2][1::2]
    )
    assert not rewards[1::2].any()


def test_seeded_draws_and_given_deals(table_path: Path):
    a = paston_bidding_v0.vector_env(16, tables=table_path)
    b = paston_bidding_v0.vector_env(4, tables=table_path)
    a.reset(seed=9)
    b.reset(seed=9)
    assert a.table_indices()[:4].tolist() == b.table_indices().tolist()
    b.reset(seed=9, options={"deals": [5, None, 7, None]})
    assert b.table_indices()[[0, 2]].tolist() == [5, 7]
    assert b.deal_options(0) == b.table.deal_option(5)


def test_bad_input_is_refused(table_path: Path, tmp_path: Path):
    vec = paston_bidding_v0.vector_env(2, tables=table_path)
    with pytest.raises(ValueError, match="before reset"):
        vec.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="outside the table"):
        vec.reset(options={"deals": [10**9, None]})
    with pytest.raises(ValueError, match="table index"):
        vec.reset(options={"deals": ["x", None]})
    obs, mask, player = vec.reset(seed=0)
    illegal = np.array([np.flatnonzero(m == 0)[0] for m in mask])
    with pytest.raises(ValueError, match="illegal action"):
        vec.step(illegal)
    with pytest.raises(ValueError, match="not a folkcards"):
        bad = tmp_path / "bad.table"
        bad.write_bytes(b"nope")
        paston_bidding_v0.vector_env(2, tables=bad)
    with pytest.raises(ValueError, match="episode='deal'"):
        paston_bidding_v0.vector_env(2, tables=table_path, episode="game")
