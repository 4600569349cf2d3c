"""SB3 batched training on the bidding tables: the batched single-seat env on
``paston_bidding_v0.vector_env``, its episodes replayed through the AEC bidding env, its
duplicate baseline, the ``env.tables`` key and a short MaskablePPO run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.batched_agents import make_batched_agent
from folkcards.envs import paston_bidding_v0
from folkcards.envs.paston.rules import DISCARD
from folkcards.envs.paston_bidding import tables as T
from folkcards.train.batched_training_env import BatchedSingleSeatVecEnv

pytest.importorskip("stable_baselines3")

SHIPPED = str(T.shipped_table_path())
CONFIG = Path(__file__).resolve().parents[2] / "configs/paston/ppo_bidding_batched.yaml"


def _play(env: BatchedSingleSeatVecEnv, steps: int, choose: Any) -> list[dict[str, Any]]:
    """Every finished learner episode: its actions, rewards and final info."""
    env.seed(0)
    obs = env.reset()
    n = env.num_envs
    current: list[dict[str, Any]] = [{"rewards": [], "obs": [obs[i].copy()]} for i in range(n)]
    finished = []
    for _ in range(steps):
        masks = env.action_masks()
        actions = choose(obs, masks)
        obs, rewards, dones, infos = env.step(actions)
        for i in range(n):
            current[i]["rewards"].append(float(rewards[i]))
            if dones[i]:
                finished.append({**current[i], "info": infos[i]})
                current[i] = {"rewards": [], "obs": [obs[i].copy()]}
            else:
                current[i]["obs"].append(obs[i].copy())
    return finished


def _random(seed: int) -> Any:
    rng = np.random.default_rng(seed)
    return lambda obs, masks: np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def _aec_replay(table: T.OpenHandTable, episode: dict[str, Any]) -> float:
    """The learner's total reward in the AEC bidding env replaying the episode's deal and
    actions, the declarer discarding the table's pair (which the batched env makes itself)."""
    info = episode["info"]
    index = info["table_index"]
    env = paston_bidding_v0.raw_env()
    env.reset(options=table.deal_option(index))
    learner = info["seat"]
    total = 0.0
    decision = 0
    for seat, action in info["actions"]:
        deal = env.state_deal()
        while deal.phase == DISCARD:
            pair = table.discard_pair(index, deal.declarer, max(deal.high_bid, 0))
            env.step(pair[0] if deal.discards == 0 else pair[1])
            total += float(env.rewards[learner])
        assert env.agent_selection == f"player_{seat}"
        if env.agent_selection == learner:
            seen = env.observe(learner)["observation"]
            np.testing.assert_array_equal(seen, episode["obs"][decision])
            decision += 1
        env.step(action)
        total += float(env.rewards[learner])
    assert env.terminations[learner]
    assert decision == len(episode["rewards"])
    for key, value in env.infos[learner].items():
        assert info[key] == value, key
    return total


def test_bidding_episodes_replay_through_the_aec_bidding_env() -> None:
    """Observations and rewards are the learner's: each episode's deal, replayed in the AEC
    bidding env (which solves it) with the table's discards, gives the learner the same
    observations, final info and total reward."""
    env = BatchedSingleSeatVecEnv(
        "paston_bidding", 8, {"reward_scale": 1.0}, opponents=["random", "heuristic"],
        record=True, tables=SHIPPED,
    )  # fmt: skip
    done = _play(env, 40, _random(1))
    assert len(done) > 30
    played = 0
    for episode in done:
        total = _aec_replay(env.vec.table, episode)
        assert sum(episode["rewards"]) == pytest.approx(total, abs=1e-6)
        assert total == episode["info"]["deal_score"]
        played += episode["info"]["outcome"] == "played"
    assert played > 5, "too few deals reached the table lookup"
    assert {e["info"]["seat"] for e in done} == {"player_0", "player_1", "player_2"}


def test_bidding_duplicate_baseline_is_the_heuristic_on_the_same_table_deal() -> None:
    """Against the heuristic, the baseline is what the heuristic in every seat scores in the
    learner's seat on the same table deal; the episode's reward sums to own minus that."""
    env = BatchedSingleSeatVecEnv(
        "paston_bidding", 8, {}, opponents=["heuristic"], duplicate_baseline="heuristic",
        record=True, tables=SHIPPED,
    )  # fmt: skip
    done = _play(env, 30, _random(2))
    assert len(done) > 20
    heuristic = make_batched_agent("heuristic", "paston_bidding", 3)
    checked = 0
    for episode in done:
        info = episode["info"]
        vec = paston_bidding_v0.vector_env(1, tables=env.vec.table)
        obs, mask, _ = vec.reset(seed=0, options={"deals": [info["table_index"]]})
        seat = int(info["seat"][-1])
        while True:
            obs, mask, _, rewards, terminated, _, _ = vec.step(heuristic.act(obs, mask))
            if terminated[0]:
                break
        assert info["baseline_return"] == pytest.approx(float(rewards[0, seat]))
        assert sum(episode["rewards"]) == pytest.approx(
            info["deal_score"] - info["baseline_return"]
        )
        checked += info["baseline_return"] != info["deal_score"]
    assert checked > 5


def test_bidding_learner_playing_the_heuristic_earns_exactly_zero() -> None:
    agent = make_agent("heuristic", "paston_bidding")
    env = BatchedSingleSeatVecEnv(
        "paston_bidding", 8, {}, opponents=["heuristic", "random"],
        duplicate_baseline="heuristic", tables=SHIPPED,
    )  # fmt: skip

    def choose(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array(
            [
                agent.act({"observation": o, "action_mask": m.astype(np.int8)})
                for o, m in zip(obs, masks, strict=True)
            ]
        )

    done = _play(env, 30, choose)
    assert len(done) > 20
    for episode in done:
        assert sum(episode["rewards"]) == pytest.approx(0.0, abs=1e-6)


def test_tables_key_of_the_config() -> None:
    from folkcards.train.config import ConfigError, config_from_dict, resolve_extends

    data = resolve_extends(CONFIG)
    assert data["run"]["engine"] == "batched" and data["env"]["game"] == "paston_bidding"
    data["env"]["tables"] = SHIPPED
    assert config_from_dict(data).env.tables == SHIPPED
    missing = {**data, "env": {**data["env"], "tables": "/nonexistent.table"}}
    assert config_from_dict(missing).env.tables == "/nonexistent.table"  # made later, maybe
    with pytest.raises(ValueError, match=r"^env options .*cannot read the table /nonexis"):
        BatchedSingleSeatVecEnv("paston_bidding", 2, {}, tables="/nonexistent.table")
    cases = [
        ({**data, "run": {**data["run"], "engine": "aec"}}, "run.engine: batched"),
        (
            {"env": {"game": "paston", "tables": SHIPPED}, "run": {"engine": "batched"}},
            "reads no tables",
        ),
    ]
    for case, words in cases:
        with pytest.raises(ConfigError) as error:
            config_from_dict(case)
        assert words in str(error.value) and "\n" not in str(error.value)


def test_short_maskable_ppo_run_on_the_bidding_tables(tmp_path: Path) -> None:
    from folkcards.train.config import config_from_dict, resolve_extends
    from folkcards.train.ppo import train

    data = resolve_extends(CONFIG)
    data["env"]["tables"] = SHIPPED
    data["pretrain"]["expert"] = None
    data["algorithm"].update(n_steps=8, batch_size=256, n_epochs=1, net_arch=[16])
    data["run"].update(
        n_envs=32, total_steps=768, eval_deals=0, progress_bar=False, tensorboard=False
    )
    run = train(config_from_dict(data), tmp_path / "run", log=lambda _: None)
    rows = (run / "train_log.csv").read_text().splitlines()
    assert len(rows) == 4 and (run / "model.zip").exists()
    assert sum(int(r.split(",")[1]) for r in rows[1:]) > 100  # deals finished


def test_train_command_refuses_a_missing_table_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from folkcards.train.cli import main

    config = tmp_path / "c.yaml"
    config.write_text(f"extends: {CONFIG}\nenv:\n  tables: {tmp_path / 'none.table'}\n")
    assert main(["--config", str(config), "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "cannot read the table" in err and "env.tables" in err
    assert not (tmp_path / "run").exists()
