"""SingleSeatEnv: the Gymnasium contract, reward accounting, seats, determinism, snapshots."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from folkcards.train.single_seat import SingleSeatEnv, SingleSeatEnvFactory

pytest.importorskip("stable_baselines3")


def _play(
    env: SingleSeatEnv, seed: int, rng: np.random.Generator
) -> tuple[float, dict, list[np.ndarray]]:
    obs, info = env.reset(seed=seed)
    total, observations = 0.0, [obs]
    while True:
        mask = env.action_masks()
        legal = np.flatnonzero(mask)
        assert len(legal) > 0 and mask.dtype == bool and mask.shape == (env.action_space.n,)
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        assert env.observation_space.contains(obs)
        observations.append(obs)
        total += reward
        if terminated or truncated:
            assert not env.action_masks().any()
            return total, info, observations


def test_check_env_paston() -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(SingleSeatEnv("paston", {"shaping": True, "reward_scale": 0.05}), warn=True)


def test_check_env_tri_palki() -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(SingleSeatEnv("tri_palki", {"num_players": 4}), warn=True)


@pytest.mark.parametrize("shaping", [False, True])
def test_paston_rewards_sum_to_scaled_table_score(shaping: bool) -> None:
    scale = 0.05
    env = SingleSeatEnv(
        "paston", {"shaping": shaping, "reward_scale": scale}, opponents=["random", "heuristic"]
    )
    rng = np.random.default_rng(1)
    ended_by_opponent = 0
    for seed in range(150):
        total, info, _ = _play(env, seed, rng)
        assert total == pytest.approx(scale * info["deal_score"], abs=1e-9)
        assert info["seat"] == env.learner and "role" in info and "outcome" in info
        last_actor = env.aec.record()["actions"][-1][0]
        ended_by_opponent += last_actor != env.learner
    assert ended_by_opponent > 10  # the final reward reaches the learner after an opponent's card


def test_paston_game_mode_rewards_sum_to_total_change() -> None:
    env = SingleSeatEnv("paston", {"episode": "game", "reward_scale": 0.01, "max_deals": 3})
    rng = np.random.default_rng(2)
    for seed in range(5):
        total, info, _ = _play(env, seed, rng)
        assert total == pytest.approx(0.01 * info["total"], abs=1e-9)


def test_tri_palki_rewards_are_minus_the_stick() -> None:
    env = SingleSeatEnv("tri_palki", {"num_players": 4})
    rng = np.random.default_rng(3)
    for seed in range(60):
        total, info, _ = _play(env, seed, rng)
        assert total == (-1.0 if info["stick"] else 0.0)
        assert "sticks" in info and info["seat"] == env.learner


def test_seat_varies_and_same_seed_same_episode() -> None:
    env = SingleSeatEnv("paston", {"shaping": True}, opponents=["random"])
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == {"player_0", "player_1", "player_2"}
    a = _play(env, 7, np.random.default_rng(0))
    b = _play(env, 7, np.random.default_rng(0))
    assert a[0] == b[0] and a[1] == b[1]
    assert all(np.array_equal(x, y) for x, y in zip(a[2], b[2], strict=True))
    # without a seed, reset continues the RNG of the last seeded reset: still reproducible
    env.reset(seed=11)
    first = [env.reset()[0] for _ in range(3)]
    env.reset(seed=11)
    assert all(np.array_equal(x, env.reset()[0]) for x in first)


def test_fixed_seat_and_opponents_options() -> None:
    env = SingleSeatEnv("paston", seat=2)
    assert env.reset(seed=0)[1]["seat"] == "player_2"
    _, info = env.reset(seed=0, options={"seat": 1, "opponents": ["heuristic", "random"]})
    assert info["seat"] == "player_1"
    assert sorted(info["opponents"]) == ["player_0", "player_2"]
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"opponents": ["random"]})


def test_illegal_action_ends_episode_with_penalty() -> None:
    env = SingleSeatEnv("paston", illegal_reward=-3.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-3.0, True, False, True)
    with pytest.raises(RuntimeError):
        env.step(0)


def test_snapshots_join_the_pool(tmp_path) -> None:
    from folkcards.agents.policy_network import NumpyPolicy

    rng = np.random.default_rng(0)
    policy = NumpyPolicy(
        [
            rng.normal(size=(16, 367)).astype(np.float32),
            rng.normal(size=(45, 16)).astype(np.float32),
        ],
        [np.zeros(16, np.float32), np.zeros(45, np.float32)],
        "tanh",
        {"game": "paston"},
    )
    path = tmp_path / "snapshot_000000001.npz"
    policy.save(path)
    env = SingleSeatEnv("paston", opponents=[("self", 1.0)], max_snapshots=2)
    assert all(v == "random" for v in env.reset(seed=0)[1]["opponents"].values())  # none yet
    for _ in range(3):
        env.add_snapshot(str(path))
    assert env.snapshot_count() == 2
    _, info = env.reset(seed=0)
    assert all(v.startswith("snapshot") for v in info["opponents"].values())
    _play(env, 1, rng)


def test_factory_pickles() -> None:
    factory = SingleSeatEnvFactory(
        "paston", {"shaping": True, "reward_scale": 0.05}, (("random", 1.0), ("heuristic", 2.0))
    )
    env = pickle.loads(pickle.dumps(factory))()
    assert isinstance(env, SingleSeatEnv) and env.observation_space.shape == (367,)


def test_batched_vec_env_matches_dummy() -> None:
    from folkcards.train.vec_env import BatchedSubprocVecEnv
    from stable_baselines3.common.vec_env import DummyVecEnv

    factory = SingleSeatEnvFactory(
        "paston", {"shaping": True}, (("random", 1.0), ("heuristic", 1.0))
    )
    dummy = DummyVecEnv([factory] * 3)
    batched = BatchedSubprocVecEnv([factory] * 3, n_workers=2)
    try:
        trajectories = []
        for venv in (dummy, batched):
            venv.seed(5)
            rng = np.random.default_rng(0)
            obs = venv.reset()
            steps = [obs]
            for _ in range(40):
                masks = np.stack(venv.env_method("action_masks"))
                actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
                obs, rewards, dones, infos = venv.step(actions)
                steps += [obs, rewards, dones]
                steps += [
                    info["terminal_observation"] for info in infos if "terminal_observation" in info
                ]
            assert venv.env_method("snapshot_count", indices=[2]) == [0]
            assert venv.get_attr("game") == ["paston"] * 3
            trajectories.append(steps)
        assert all(np.array_equal(a, b) for a, b in zip(*trajectories, strict=True))
    finally:
        dummy.close()
        batched.close()


def test_truncation_is_bootstrapped_or_penalised() -> None:
    rng = np.random.default_rng(4)
    plain = SingleSeatEnv("tri_palki", {"max_turns": 6}, opponents=["random"])
    penalised = SingleSeatEnv(
        "tri_palki", {"max_turns": 6}, opponents=["random"], truncation_reward=-1.0
    )
    seen = 0
    for seed in range(30):
        for env in (plain, penalised):
            env.reset(seed=seed)
            total, done = 0.0, False
            while not done:
                legal = np.flatnonzero(env.action_masks())
                _, reward, terminated, truncated, info = env.step(
                    int(legal[rng.integers(len(legal))])
                )
                total += reward
                done = terminated or truncated
            if info.get("outcome") == "truncated":
                seen += 1
                if env is plain:
                    assert truncated and not terminated and total == 0.0
                else:
                    assert (
                        terminated and not truncated and total == -1.0 and info["truncated_by_env"]
                    )
    assert seen > 0


def _episode_reward(env, seed: int, policy) -> tuple[float, dict]:
    env.reset(seed=seed)
    total, done, info = 0.0, False, {}
    while not done:
        observation = env.learner_observation()
        _, reward, terminated, truncated, info = env.step(policy(env, observation))
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_duplicate_baseline_subtracts_the_baselines_result_on_the_same_deal(game: str) -> None:
    """reward(with baseline) = reward(learner) − reward(heuristic in the learner's seat), for
    the same seat, deal and opponents' random choices; exactly 0 when the learner plays as the
    baseline would."""
    from folkcards.agents import make_agent

    pool = (("random", 1.0), ("heuristic", 1.0))
    plain = SingleSeatEnv(game, opponents=pool, truncation_reward=-1.0)
    dup = SingleSeatEnv(
        game, opponents=pool, truncation_reward=-1.0, duplicate_baseline="heuristic"
    )
    experts = {s: make_agent("heuristic", game, s) for s in plain.seats}

    def heuristic(env, observation):
        return experts[env.learner].act(observation)

    def random_policy(seed):
        rng = np.random.default_rng(seed)
        return lambda env, observation: int(rng.choice(np.flatnonzero(observation["action_mask"])))

    nonzero = 0
    for seed in range(40):
        assert _episode_reward(dup, seed, heuristic)[0] == pytest.approx(0.0, abs=1e-9)
        mine, _ = _episode_reward(plain, seed, random_policy(seed))
        base, _ = _episode_reward(plain, seed, heuristic)
        diff, info = _episode_reward(dup, seed, random_policy(seed))
        assert diff == pytest.approx(mine - base, abs=1e-9)
        assert info["baseline_return"] == pytest.approx(base, abs=1e-9)
        nonzero += diff != 0
    assert nonzero > 5


def test_repeat_penalty_marks_returns_to_a_decision_already_faced() -> None:
    """Same seed and actions with and without the penalty: the rewards differ by exactly -p on
    the steps after which the learner faces an observation (turn counter aside) seen before."""
    from folkcards.envs.tri_palki.observation import observation_offsets

    turns = observation_offsets(4)["turns"]
    pool = (("heuristic", 1.0),)
    plain = SingleSeatEnv("tri_palki", opponents=pool, truncation_reward=-1.0)
    penalised = SingleSeatEnv(
        "tri_palki", opponents=pool, truncation_reward=-1.0, repeat_penalty=0.25
    )
    repeats = 0
    for seed in range(30):
        plain.reset(seed=seed)
        penalised.reset(seed=seed)
        seen = set()
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            vector = plain.learner_observation()["observation"].copy()
            vector[turns] = 0
            seen.add(vector.tobytes())
            mask = plain.action_masks()
            # swap the first hand card with the first centre card (which undoes itself when the
            # others pass), now and then anything legal
            action = 1 if mask[1] and rng.random() < 0.9 else int(rng.choice(np.flatnonzero(mask)))
            _, r_plain, term, trunc, _ = plain.step(action)
            _, r_pen, term2, trunc2, _ = penalised.step(action)
            assert (term, trunc) == (term2, trunc2)
            done = term or trunc
            if done:
                assert r_pen == r_plain
                continue
            after = plain.learner_observation()["observation"].copy()
            after[turns] = 0
            repeated = after.tobytes() in seen
            assert r_pen == pytest.approx(r_plain - (0.25 if repeated else 0.0))
            repeats += repeated
    assert repeats > 20
    with pytest.raises(ValueError, match="repeat_penalty"):
        SingleSeatEnv("tri_palki", repeat_penalty=-1.0)
