"""The batched single-seat training env: the VecEnv contract, the
learner's episodes replayed through the AEC env, the duplicate baseline, repeated positions,
snapshots, determinism, the config key and short MaskablePPO runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.batched_agents import (
    BatchedPolicy,
    BatchedRandom,
    make_batched_agent,
    masked_logits_choice,
)
from folkcards.agents.policy_network import NumpyPolicy
from folkcards.envs.registry import game_spec
from folkcards.train.batched_training_env import BatchedSingleSeatVecEnv

pytest.importorskip("stable_baselines3")

PASTON = {"shaping": True, "reward_scale": 0.05}
TRI_PALKI = {"num_players": 4, "max_turns": 200}
GAMES = [("paston", PASTON), ("tri_palki", TRI_PALKI)]

Chooser = Callable[[np.ndarray, np.ndarray], np.ndarray]


def random_chooser(seed: int) -> Chooser:
    rng = np.random.default_rng(seed)

    def choose(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)

    return choose


def heuristic_chooser(game: str) -> Chooser:
    agent = make_agent("heuristic", game)

    def choose(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array(
            [
                agent.act({"observation": o, "action_mask": m.astype(np.int8)})
                for o, m in zip(obs, masks, strict=True)
            ],
            dtype=np.int64,
        )

    return choose


def episodes(
    env: BatchedSingleSeatVecEnv, steps: int, choose: Chooser, seed: int = 0
) -> list[dict[str, Any]]:
    """Play ``steps`` vector steps; every finished learner episode with its observations,
    masks, actions, rewards and final info."""
    env.seed(seed)
    obs = env.reset()
    n = env.num_envs
    current = [
        {"obs": [obs[i].copy()], "masks": [], "actions": [], "rewards": []} for i in range(n)
    ]
    finished = []
    for _ in range(steps):
        masks = env.action_masks()
        assert masks.shape == (n, env.action_space.n) and masks.dtype == bool
        assert masks.any(axis=1).all()
        actions = choose(obs, masks)
        for i in range(n):
            current[i]["masks"].append(masks[i].copy())
            current[i]["actions"].append(int(actions[i]))
        obs, rewards, dones, infos = env.step(actions)
        assert obs.shape == (n, *env.observation_space.shape) and obs.dtype == np.float32
        assert rewards.shape == (n,) and rewards.dtype == np.float32 and dones.dtype == bool
        for i in range(n):
            current[i]["rewards"].append(float(rewards[i]))
            if dones[i]:
                finished.append({**current[i], "info": infos[i]})
                current[i] = {"obs": [obs[i].copy()], "masks": [], "actions": [], "rewards": []}
            else:
                assert infos[i] == {}
                current[i]["obs"].append(obs[i].copy())
    return finished


def replay(game: str, kwargs: dict[str, Any], episode: dict[str, Any]) -> float:
    """Replay a recorded episode's deal and actions in the AEC env: check every learner decision
    (observation, mask, action) and the final info; the learner's AEC rewards, summed."""
    info = episode["info"]
    aec = game_spec(game).raw_env(**kwargs)
    aec.reset(options=info["deal_options"])
    learner = info["seat"]
    total = float(aec.rewards[learner])
    decision = 0
    for seat, action in info["actions"]:
        agent = f"player_{seat}"
        assert aec.agent_selection == agent
        if agent == learner:
            seen = aec.observe(learner)
            np.testing.assert_array_equal(
                seen["observation"], episode["obs"][decision][: len(seen["observation"])]
            )
            np.testing.assert_array_equal(
                seen["action_mask"].astype(bool), episode["masks"][decision]
            )
            assert action == episode["actions"][decision]
            decision += 1
        aec.step(action)
        total += float(aec.rewards[learner])
    assert decision == len(episode["actions"]) > 0
    assert aec.terminations[learner] or aec.truncations[learner]
    final = aec.infos[learner]
    for key, value in final.items():
        assert info[key] == value, key
    return total


@pytest.mark.parametrize(("game", "kwargs"), GAMES)
def test_episodes_replay_through_the_aec_env(game: str, kwargs: dict[str, Any]) -> None:
    """Observations, masks and rewards are the learner's: each episode replays exactly in the
    AEC env from its deal, and the learner's rewards sum to what the AEC env pays its seat."""
    env = BatchedSingleSeatVecEnv(game, 8, kwargs, opponents=["random", "heuristic"], record=True)
    done = episodes(env, 150, random_chooser(1))
    assert len(done) > 40
    seats = set()
    for episode in done:
        total = replay(game, kwargs, episode)
        assert sum(episode["rewards"]) == pytest.approx(total, abs=1e-5)
        info = episode["info"]
        seats.add(info["seat"])
        assert info["TimeLimit.truncated"] is False or game == "tri_palki"
        assert info["terminal_observation"].shape == env.observation_space.shape
        key = "deal_score" if game == "paston" else "stick"
        assert key in info
        if game == "paston":
            assert total == pytest.approx(PASTON["reward_scale"] * info["deal_score"], abs=1e-5)
    assert seats == {f"player_{s}" for s in range(env.num_players)}


def test_rewards_reach_the_learner_when_an_opponent_ends_the_deal() -> None:
    env = BatchedSingleSeatVecEnv("paston", 8, PASTON, opponents=["random"], record=True)
    done = episodes(env, 120, random_chooser(2))
    ended_by_opponent = [
        e for e in done if f"player_{e['info']['actions'][-1][0]}" != e["info"]["seat"]
    ]
    assert len(ended_by_opponent) > 5
    for episode in ended_by_opponent:
        assert sum(episode["rewards"]) == pytest.approx(
            0.05 * episode["info"]["deal_score"], abs=1e-5
        )


def test_features_extend_the_observation() -> None:
    from folkcards.agents.features import get_feature_set

    features = get_feature_set("tri_palki_actions", "tri_palki")
    env = BatchedSingleSeatVecEnv("tri_palki", 4, TRI_PALKI, features="tri_palki_actions")
    env.seed(3)
    obs = env.reset()
    assert env.observation_space.shape == obs.shape[1:]
    for _ in range(5):
        raw = env._raw.copy()
        expected = np.stack([features(row) for row in raw])
        np.testing.assert_allclose(obs, expected, atol=1e-6)
        obs, _, _, _ = env.step(random_chooser(0)(obs, env.action_masks()))


@pytest.mark.parametrize(("game", "kwargs"), GAMES)
def test_same_seed_same_run(game: str, kwargs: dict[str, Any]) -> None:
    def run(seed: int) -> list[Any]:
        env = BatchedSingleSeatVecEnv(game, 6, kwargs, opponents=["random", "heuristic"])
        out = []
        env.seed(seed)
        obs = env.reset()
        choose = random_chooser(7)
        for _ in range(40):
            obs, rewards, dones, _ = env.step(choose(obs, env.action_masks()))
            out.append((obs.copy(), rewards.copy(), dones.copy()))
        return out

    first, again, other = run(5), run(5), run(6)
    for a, b in zip(first, again, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(a[0], b[0]) for a, b in zip(first, other, strict=True))


def test_fixed_seat_and_illegal_action() -> None:
    env = BatchedSingleSeatVecEnv("paston", 4, PASTON, seat=2, illegal_reward=-3.0)
    env.seed(0)
    env.reset()
    assert {i["seat"] for i in env.reset_infos} == {"player_2"}
    masks = env.action_masks()
    actions = np.argmax(masks, axis=1)
    actions[1] = int(np.argmin(masks[1]))  # an illegal action in game 1 only
    assert not masks[1, actions[1]]
    _, rewards, dones, infos = env.step(actions)
    assert dones[1] and rewards[1] == -3.0 and infos[1]["illegal_action"] is True
    assert env.action_masks()[1].any()  # game 1 goes on with a new episode
    for _ in range(30):
        _, _, dones, infos = env.step(np.argmax(env.action_masks(), axis=1))
        assert not any(i.get("illegal_action") for i in infos)


def test_duplicate_baseline_is_zero_when_the_learner_plays_the_baseline() -> None:
    env = BatchedSingleSeatVecEnv(
        "tri_palki",
        8,
        TRI_PALKI,
        opponents=["heuristic", "random"],
        truncation_reward=-1.0,
        duplicate_baseline="heuristic",
    )
    done = episodes(env, 80, heuristic_chooser("tri_palki"))
    assert len(done) > 20
    for episode in done:
        assert sum(episode["rewards"]) == pytest.approx(0.0, abs=1e-6)
        info = episode["info"]
        own = -1.0 if info["stick"] or info.get("truncated_by_env") else 0.0
        assert info["baseline_return"] == pytest.approx(own)


@pytest.mark.parametrize(("game", "kwargs"), GAMES)
def test_duplicate_baseline_replays_the_deal_with_the_baseline_in_the_seat(
    game: str, kwargs: dict[str, Any]
) -> None:
    """Against deterministic opponents the baseline's result is the AEC env's result of the
    deal with the heuristic in every seat; the episode's rewards are own result minus it."""
    truncation = -1.0 if game == "tri_palki" else None
    env = BatchedSingleSeatVecEnv(
        game,
        8,
        kwargs,
        opponents=["heuristic"],
        truncation_reward=truncation,
        duplicate_baseline="heuristic",
        record=True,
    )
    done = episodes(env, 60, random_chooser(4))
    assert len(done) > 10
    for episode in done:
        info = episode["info"]
        aec = game_spec(game).raw_env(**kwargs)
        aec.reset(options=info["deal_options"])
        table = {a: make_agent("heuristic", game, a) for a in aec.possible_agents}
        seat, expected = info["seat"], 0.0
        while not (aec.terminations[seat] or aec.truncations[seat]):
            agent = aec.agent_selection
            aec.step(table[agent].act(aec.observe(agent)))
            expected += float(aec.rewards[seat])
        if aec.truncations[seat] and not aec.terminations[seat] and truncation is not None:
            expected += truncation
        assert info["baseline_return"] == pytest.approx(expected, abs=1e-5)
        own = replay(game, kwargs, episode)
        if info.get("truncated_by_env"):
            own += truncation or 0.0
        assert sum(episode["rewards"]) == pytest.approx(own - expected, abs=1e-5)


def test_repeat_penalty_marks_returns_to_a_decision_already_faced() -> None:
    def run(penalty: float) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        env = BatchedSingleSeatVecEnv(
            "tri_palki", 8, TRI_PALKI, opponents=["heuristic"], repeat_penalty=penalty
        )
        env.seed(9)
        obs = env.reset()
        choose = random_chooser(9)
        seen, rewards, dones = [obs.copy()], [], []
        for _ in range(120):
            obs, r, d, _ = env.step(choose(obs, env.action_masks()))
            seen.append(obs.copy())
            rewards.append(r)
            dones.append(d)
        return seen, rewards, dones

    seen, penalised, dones = run(0.25)
    _, plain, _ = run(0.0)
    turn = game_spec("tri_palki").turn_counter_index(4)
    positions: list[set[bytes]] = [set() for _ in range(8)]
    repeats = 0
    for i in range(8):
        key = seen[0][i].copy()
        key[turn] = 0
        positions[i].add(key.tobytes())
    for step, (p, q, d) in enumerate(zip(penalised, plain, dones, strict=True)):
        for i in range(8):
            key = seen[step + 1][i].copy()
            key[turn] = 0
            if d[i]:
                positions[i] = set()
                assert p[i] == q[i]
            else:
                repeated = key.tobytes() in positions[i]
                repeats += repeated
                assert p[i] == pytest.approx(q[i] - (0.25 if repeated else 0.0))
            positions[i].add(key.tobytes())
    assert repeats > 0


def test_snapshots_reach_the_pool_through_the_wrapped_env(tmp_path: Path) -> None:
    from stable_baselines3.common.vec_env import VecMonitor

    env = BatchedSingleSeatVecEnv("paston", 6, PASTON, opponents=["self"], max_snapshots=2)
    rng = np.random.default_rng(0)
    paths = []
    for k in range(3):
        policy = NumpyPolicy(
            [rng.normal(size=(16, 367)), rng.normal(size=(45, 16))],
            [np.zeros(16), np.zeros(45)],
        )
        paths.append(tmp_path / f"snapshot_{k}.npz")
        policy.save(paths[-1])
    wrapped = VecMonitor(env)
    wrapped.seed(0)
    wrapped.reset()
    assert all(
        "random" in i["opponents"]["player_1" if i["seat"] != "player_1" else "player_0"]
        for i in env.reset_infos
    )  # only "self" and no snapshot yet: random
    for path in paths:
        counts = wrapped.env_method("add_snapshot", str(path))
    assert counts == [2] * 6 and env.snapshot_count() == 2
    wrapped.seed(1)
    wrapped.reset()
    labels = {label for i in env.reset_infos for label in i["opponents"].values()}
    assert labels <= {"snapshot snapshot_1.npz", "snapshot snapshot_2.npz"} and labels
    for _ in range(20):
        wrapped.step(np.argmax(env.action_masks(), axis=1))


def test_batched_agents_pick_legal_moves_and_policies_match_the_per_game_policy() -> None:
    rng = np.random.default_rng(0)
    masks = rng.random((500, 13)) < 0.3
    masks[np.arange(500), rng.integers(13, size=500)] = True
    obs = rng.normal(size=(500, 40)).astype(np.float32)
    random_agent = BatchedRandom(1)
    picks = random_agent.act(obs, masks)
    assert masks[np.arange(500), picks].all()
    streams = np.random.SeedSequence(3).generate_state(2000, np.uint64).reshape(500, 4)
    again = streams.copy()
    a, b = random_agent.act(obs, masks, streams), random_agent.act(obs, masks, again)
    np.testing.assert_array_equal(a, b)
    assert masks[np.arange(500), a].all()
    np.testing.assert_array_equal(streams, again)  # both advanced the same way
    policy = NumpyPolicy(
        [rng.normal(size=(8, 40)), rng.normal(size=(13, 8))], [np.zeros(8), np.zeros(13)]
    )
    batched = BatchedPolicy(policy, "tri_palki", deterministic=True)
    expected = [policy.act(o, m) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(batched.act(obs, masks), expected)
    # sampling follows the masked softmax
    logits = np.array([[0.0, 1.0, 2.0, 5.0]])
    mask = np.array([[True, True, True, False]])
    many = np.repeat(logits, 20000, axis=0), np.repeat(mask, 20000, axis=0)
    states = np.random.SeedSequence(5).generate_state(80000, np.uint64).reshape(20000, 4)
    sampled = masked_logits_choice(*many, deterministic=False, streams=states)
    p = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    freq = np.bincount(sampled, minlength=4) / 20000
    assert freq[3] == 0 and np.allclose(freq[:3], p, atol=0.015)
    with pytest.raises(ValueError, match="pimc"):
        make_batched_agent("pimc", "paston")


def test_bad_configs_fail_in_one_line() -> None:
    from folkcards.train.config import ConfigError, config_from_dict

    cases = [
        ({"env": {"game": "paston", "episode": "game"}}, "episode"),
        ({"env": {"game": "paston"}, "opponents": {"pool": ["pimc"]}}, "pimc"),
        ({"env": {"game": "paston_bidding", "episode": "game"}}, "episode"),
        ({"env": {"game": "tri_palki", "episode": "match"}}, "episode"),
    ]
    for data, word in cases:
        with pytest.raises(ConfigError) as error:
            config_from_dict({**data, "run": {"engine": "batched"}})
        message = str(error.value)
        assert "\n" not in message and word in message and "batched" in message
    with pytest.raises(ConfigError, match="engine"):
        config_from_dict({"run": {"engine": "fast"}})
    assert config_from_dict({}).run.engine == "aec"


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_short_maskable_ppo_run_on_the_batched_env(game: str, tmp_path: Path) -> None:
    from folkcards.train.config import load_config
    from folkcards.train.ppo import train

    config = load_config(Path(__file__).resolve().parents[2] / f"configs/{game}/ppo_full.yaml")
    config.run.engine = "batched"
    config.run.n_envs = 16
    config.run.total_steps = 2048
    config.algorithm.n_steps = 64
    config.algorithm.batch_size = 256
    config.algorithm.n_epochs = 1
    config.algorithm.net_arch = [32, 32]
    config.opponents.snapshot_every = 512
    config.pretrain.expert = None
    config.run.eval_deals = 0
    config.run.checkpoint_every = 0
    config.run.progress_bar = False
    config.run.tensorboard = False
    run = train(config, tmp_path / "run", log=lambda _: None)
    assert len(list((run / "snapshots").glob("*.npz"))) == 4
    rows = (run / "train_log.csv").read_text().splitlines()
    assert len(rows) == 3 and (run / "model.zip").exists()
    episodes_logged = sum(int(r.split(",")[1]) for r in rows[1:])
    assert episodes_logged > 50


def test_same_config_same_trained_weights(tmp_path: Path) -> None:
    import torch
    from folkcards.train.config import config_from_dict
    from folkcards.train.ppo import train

    data = {
        "env": {"game": "paston", **PASTON},
        "opponents": {"pool": ["heuristic", "random", "self"], "snapshot_every": 256},
        "algorithm": {"n_steps": 32, "batch_size": 128, "n_epochs": 1, "net_arch": [16]},
        "run": {
            "engine": "batched", "n_envs": 16, "total_steps": 1024, "eval_deals": 0,
            "checkpoint_every": 0, "progress_bar": False, "tensorboard": False,
        },
    }  # fmt: skip
    from sb3_contrib import MaskablePPO

    runs = [train(config_from_dict(data), tmp_path / name, log=lambda _: None) for name in "ab"]
    a, b = (MaskablePPO.load(str(run / "model.zip"), device="cpu") for run in runs)
    for (name, x), (_, y) in zip(
        a.policy.state_dict().items(), b.policy.state_dict().items(), strict=True
    ):
        assert torch.equal(x, y), name


def test_pool_draws_by_weight_per_seat_or_per_game() -> None:
    from folkcards.train.batched_training_env import BatchedOpponentPool

    pool = BatchedOpponentPool("tri_palki", [("random", 3.0), ("heuristic", 1.0)], 4)
    rng = np.random.default_rng(0)
    ids = pool.draw(rng, 4000, 3)
    labels = np.array([[pool.label(int(x)) for x in row] for row in ids])
    share = (labels == "random").mean()
    assert abs(share - 0.75) < 0.02
    mixed = (labels != labels[:, :1]).any(axis=1).mean()
    assert mixed > 0.3  # seats drawn independently
    together = BatchedOpponentPool(
        "tri_palki", [("random", 1.0), ("heuristic", 1.0)], 4, per_seat=False
    )
    ids = together.draw(rng, 2000, 3)
    assert (ids == ids[:, :1]).all() and 0.45 < (ids[:, 0] == ids[0, 0]).mean() < 0.55
    with pytest.raises(ValueError, match="weight"):
        BatchedOpponentPool("paston", [("random", -1.0)], 3)


def _random_play_observations(env, episodes: int, seed: int) -> tuple[list, list]:
    """Every observation vector and mask met in ``episodes`` AEC episodes of random play."""
    rows, masks = [], []
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        env.reset(seed=episode)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            rows.append(observation["observation"])
            masks.append(observation["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return rows, masks


def test_batched_rllib_policy_plays_as_the_per_game_agent_row_by_row() -> None:
    """``rllib:paston`` on a batch makes the per-game agent's move in every row (observations
    from real AEC episodes with random play), and refuses another table size."""
    pytest.importorskip("torch")
    from folkcards.agents import make_agent
    from folkcards.envs import paston_v0

    rows, masks = _random_play_observations(paston_v0.env(), episodes=6, seed=5)
    per_game = make_agent("rllib:paston", "paston", "player_0")
    expected = [
        per_game.act({"observation": o, "action_mask": m}) for o, m in zip(rows, masks, strict=True)
    ]
    batched = make_batched_agent("rllib:paston", "paston", 3)
    assert batched.act(np.array(rows), np.array(masks)).tolist() == expected
    assert len(set(expected)) > 10  # bids, discards, contracts and cards all occur
    with pytest.raises(ValueError, match="3 players, not 4"):
        make_batched_agent("rllib:paston", "paston", 4)


@pytest.mark.parametrize("players", [3, 5])
def test_batched_ppo_of_another_table_size_plays_as_the_per_game_agent(players: int) -> None:
    """The committed 4-player ``ppo:tri_palki`` on a batch of 3- or 5-player rows makes the
    per-game agent's move (both translate rows with the size adapter)."""
    from folkcards.agents import make_agent
    from folkcards.envs import tri_palki_v0

    env = tri_palki_v0.env(num_players=players, max_turns=60)
    rows, masks = _random_play_observations(env, episodes=4, seed=players)
    per_game = make_agent("ppo:tri_palki", "tri_palki", "player_0")
    expected = [
        per_game.act({"observation": o, "action_mask": m}) for o, m in zip(rows, masks, strict=True)
    ]
    batched = make_batched_agent("ppo:tri_palki", "tri_palki", players)
    assert batched.act(np.array(rows), np.array(masks)).tolist() == expected
    assert len(set(expected)) > 3
