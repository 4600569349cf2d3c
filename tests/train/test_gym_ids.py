"""Every registered game has a Gymnasium id for its single-seat env:
``gymnasium.make`` builds it with opponents as keyword arguments, it passes gymnasium's
``check_env`` and MaskablePPO trains on it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from folkcards.envs.registry import GAMES
from folkcards.train import single_seat_id
from folkcards.train.single_seat import SingleSeatEnv
from gymnasium.utils.env_checker import check_env


@pytest.mark.parametrize("name", list(GAMES))
def test_each_game_is_made_by_its_id_and_plays(name):
    spec = GAMES[name]
    env = gymnasium.make(single_seat_id(spec), opponents=["heuristic"], seat=0)
    assert isinstance(env.unwrapped, SingleSeatEnv) and env.unwrapped.game == name
    check_env(env.unwrapped, skip_render_check=True)
    observation, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = env.unwrapped.action_masks()
        action = int(rng.choice(np.flatnonzero(mask)))
        observation, reward, terminated, truncated, _ = env.step(action)
        assert env.observation_space.contains(observation)
        done = terminated or truncated


def test_the_id_is_made_with_the_module_prefix_alone():
    env = gymnasium.make("folkcards.train:folkcards/paston-single-seat-v0", opponents=["random"])
    assert env.unwrapped.game == "paston"


def test_bad_opponents_are_one_line():
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        gymnasium.make("folkcards/paston-single-seat-v0", opponents=["nobody"]).reset(seed=0)


def test_maskable_ppo_trains_on_the_made_env():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = gymnasium.make("folkcards/paston-single-seat-v0", opponents=["heuristic", "random"])
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0)
    model.learn(128)
    assert model.num_timesteps >= 128
