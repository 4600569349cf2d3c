"""The RLlib PPO settings a config turns into (train/rllib_train.py ``ppo_config``): the learning
rate schedule, the episode format of the env runners, and the full Paston config's groups."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ray")

from folkcards.train.rllib_config import load_rllib_config, rllib_config_from_dict  # noqa: E402
from folkcards.train.rllib_train import ppo_config  # noqa: E402

from folkcards.errors import ConfigError  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_a_linear_schedule_falls_to_zero_at_the_last_step(tmp_path: Path) -> None:
    config = rllib_config_from_dict(
        {
            "backend": "rllib",
            "algorithm": {"learning_rate": 2.0e-4, "lr_schedule": "linear"},
            "run": {"total_steps": 12345},
        }
    )
    assert ppo_config(config, tmp_path).lr == [[0, 2.0e-4], [12345, 0.0]]
    constant = rllib_config_from_dict({"backend": "rllib", "algorithm": {"learning_rate": 2e-4}})
    assert ppo_config(constant, tmp_path).lr == 2e-4


def test_episodes_reach_the_learner_as_lists_unless_asked(tmp_path: Path) -> None:
    config = rllib_config_from_dict({"backend": "rllib"})
    assert ppo_config(config, tmp_path).episodes_to_numpy is False
    assert ppo_config(config, tmp_path, episodes_to_numpy=True).episodes_to_numpy is True


def test_a_bad_schedule_is_one_clear_line() -> None:
    with pytest.raises(ConfigError, match="algorithm.lr_schedule") as error:
        rllib_config_from_dict({"backend": "rllib", "algorithm": {"lr_schedule": "cosine"}})
    assert "\n" not in str(error.value)


def test_the_full_paston_config_clones_the_heuristic_and_evaluates_duplicate() -> None:
    config = load_rllib_config(CONFIGS / "paston" / "rllib_ppo_full.yaml")
    assert config.pretrain.expert == "heuristic"
    assert config.run.eval_method == "duplicate" and config.run.eval_opponent == "heuristic"
    specs = {o.spec for o in config.policies.opponents}
    assert "heuristic" in specs


def test_dagger_is_refused_on_the_rllib_stack() -> None:
    with pytest.raises(ConfigError, match="DAgger runs on the SB3 stack only") as error:
        rllib_config_from_dict(
            {"backend": "rllib", "pretrain": {"expert": "heuristic", "dagger_rounds": 1}}
        )
    assert "\n" not in str(error.value)
