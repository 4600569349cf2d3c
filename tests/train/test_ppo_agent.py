"""PPOAgent (kind ``ppo``): loading, errors, and agreement with ``model.predict``."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from folkcards.agents import make_agent  # noqa: E402
from folkcards.agents.policy_files import MODELS_DIR, write_sidecar  # noqa: E402
from folkcards.agents.policy_network import NumpyPolicy, PPOModelError  # noqa: E402
from folkcards.train.single_seat import SingleSeatEnv  # noqa: E402

from ..helpers import walk_decisions  # noqa: E402


def _tiny_model(game: str, env_kwargs: dict | None = None):
    from sb3_contrib import MaskablePPO

    env = SingleSeatEnv(game, env_kwargs or {})
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32, 32]},
    )


@pytest.fixture(scope="module")
def paston_model(tmp_path_factory):
    model = _tiny_model("paston")
    path = tmp_path_factory.mktemp("model") / "model.zip"
    model.save(str(path))
    write_sidecar(path, {"game": "paston", "obs_size": 367, "num_actions": 45})
    return model, path


def test_missing_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(PPOModelError, match="no PPO model file"):
        make_agent(f"ppo:{tmp_path / 'nope.zip'}", "paston")


def test_packaged_model_convention() -> None:
    """``ppo:<game>`` and plain ``ppo`` load the committed model of each game."""
    for game in ("paston", "tri_palki"):
        assert (MODELS_DIR / f"{game}_ppo.zip").exists(), f"the trained {game} model is committed"
        assert (MODELS_DIR / f"{game}_ppo.json").exists(), f"the {game} model's metadata too"
        assert make_agent(f"ppo:{game}", game).game == game
        assert make_agent("ppo", game).game == game


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_committed_model_plays_legal_moves(game: str) -> None:
    """The committed model plays whole deals/rounds out of the box, always within the mask."""
    env = importlib.import_module(f"folkcards.envs.{game}_v0").raw_env()
    agents = {name: make_agent(f"ppo:{game}", game, seat=name) for name in env.possible_agents}
    played = 0
    for _seat, observation, action in walk_decisions(
        env, range(20), lambda name, obs: agents[name].act(obs)
    ):
        assert observation["action_mask"][action] == 1
        played += 1
    assert played > 100


def test_wrong_game_is_a_clear_error(paston_model, tmp_path) -> None:
    _, path = paston_model
    with pytest.raises(PPOModelError, match="trained for paston"):
        make_agent(f"ppo:{path}", "tri_palki")
    # without the sidecar: the action count tells
    bare = tmp_path / "bare.zip"
    bare.write_bytes(path.read_bytes())
    with pytest.raises(PPOModelError, match="45 actions"):
        make_agent(f"ppo:{bare}", "tri_palki")


def test_observation_size_mismatch_is_a_clear_error(paston_model) -> None:
    _, path = paston_model
    agent = make_agent(f"ppo:{path}", "paston")
    with pytest.raises(PPOModelError, match="observations of size 367"):
        agent.act({"observation": np.zeros(300, np.float32), "action_mask": np.ones(45, np.int8)})


def test_agent_matches_model_predict_and_is_legal(paston_model) -> None:
    model, path = paston_model
    agent = make_agent(f"ppo:{path}", "paston", "player_1", seed=0)
    env = SingleSeatEnv("paston", {}, opponents=["random"])
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            action = agent.act({"observation": obs, "action_mask": mask.astype(np.int8)})
            assert mask[action]
            expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert action == int(expected)
            checked += 1
            move = action if rng.random() < 0.5 else int(rng.choice(np.flatnonzero(mask)))
            obs, _, terminated, truncated, _ = env.step(move)
            done = terminated or truncated
    assert checked > 50


def test_numpy_policy_round_trip(paston_model, tmp_path) -> None:
    model, _ = paston_model
    policy = NumpyPolicy.from_sb3(model, {"game": "paston"})
    path = tmp_path / "p.npz"
    policy.save(path)
    loaded = NumpyPolicy.load(path)
    obs = np.random.default_rng(0).random((5, 367), dtype=np.float32)
    assert np.allclose(policy.logits(obs), loaded.logits(obs))
    assert loaded.meta["game"] == "paston" and loaded.num_actions == 45


def test_tri_palki_model_trained_at_three_sits_at_other_tables(tmp_path) -> None:
    """A saved model trained at 3 players plays 2, 3 and 6-player tables legally,
    and at its own size it is exactly ``model.predict``."""
    from folkcards.envs.tri_palki.observation import observation_size

    model = _tiny_model("tri_palki", {"num_players": 3})
    path = tmp_path / "model.zip"
    model.save(str(path))
    meta = {"game": "tri_palki", "env_kwargs": {"num_players": 3}, "num_actions": 13}
    write_sidecar(path, {**meta, "obs_size": observation_size(3)})
    for n in (2, 3, 6):
        env = importlib.import_module("folkcards.envs.tri_palki_v0").raw_env(num_players=n)
        agents = {
            s: make_agent(f"ppo:{path}", "tri_palki", s, num_players=n) for s in env.possible_agents
        }
        played = 0
        for seat, obs, action in walk_decisions(
            env, range(5), lambda s, o, agents=agents: agents[s].act(o)
        ):
            assert obs["action_mask"][action] == 1
            if n == 3:
                mask = obs["action_mask"].astype(bool)
                expected, _ = model.predict(
                    obs["observation"], action_masks=mask, deterministic=True
                )
                assert action == int(expected), seat
            played += 1
        assert played > 20
