"""Distilled players: behaviour-cloning-only runs (``run.total_steps: 0``) and the ``distilled``
agent kind that plays the network committed for a game."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from folkcards.agents import make_agent, policy_files  # noqa: E402
from folkcards.agents.batched_agents import make_batched_agent  # noqa: E402
from folkcards.train.config import ConfigError, config_from_dict, load_config  # noqa: E402
from folkcards.train.ppo import train  # noqa: E402

from ..helpers import walk_decisions  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _cloning_config(samples: int = 4000) -> dict:
    return {
        "env": {"game": "paston", "episode": "deal", "reward_scale": 0.05},
        "opponents": {"pool": [{"spec": "heuristic", "weight": 1.0}]},
        "pretrain": {"expert": "heuristic", "samples": samples, "epochs": 20, "batch_size": 128},
        "algorithm": {"net_arch": [64, 64]},
        "run": {
            "total_steps": 0,
            "n_envs": 1,
            "seed": 3,
            "eval_deals": 4,
            "tensorboard": False,
            "progress_bar": False,
        },
    }


@pytest.fixture(scope="module")
def cloned_run(tmp_path_factory) -> Path:
    """A cloning-only run of the Paston heuristic (a teacher whose actions are cheap)."""
    run_dir = tmp_path_factory.mktemp("distill") / "run"
    train(config_from_dict(_cloning_config()), run_dir, log=lambda _: None)
    return run_dir


def test_cloning_only_needs_a_teacher() -> None:
    config = _cloning_config()
    config["pretrain"] = {}
    with pytest.raises(ConfigError, match="behaviour cloning only"):
        config_from_dict(config)


def test_a_cloning_only_run_saves_the_cloned_network_and_evaluates_it(cloned_run) -> None:
    meta = json.loads((cloned_run / "model.json").read_text())
    assert meta["num_timesteps"] == 0  # no PPO step was taken
    state = json.loads((cloned_run / "state.json").read_text())
    assert state["complete"] is True
    pretrain = json.loads((cloned_run / "pretrain.json").read_text())
    assert pretrain["samples"] >= 4000
    # the heuristic is a deterministic rule of the observation: fitted to 4,000 of its decisions
    # for 20 epochs the network agreed with it on 75% of the held-out ones, after one epoch on
    # 58% (many decisions have few legal actions)
    assert pretrain["agreement"] > 0.7
    rows = (cloned_run / "eval.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("0,")  # one evaluation, at step 0


def test_resuming_a_finished_cloning_run_does_nothing(cloned_run) -> None:
    before = (cloned_run / "model.zip").stat().st_mtime_ns
    lines: list[str] = []
    train(load_config(cloned_run / "config.yaml"), cloned_run, resume=True, log=lines.append)
    assert any("nothing to do" in line for line in lines)
    assert (cloned_run / "model.zip").stat().st_mtime_ns == before


def test_distilled_plays_the_committed_network_like_ppo_path(cloned_run, tmp_path, monkeypatch):
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(cloned_run / "model.zip", models / "paston_distilled.zip")
    shutil.copy(cloned_run / "model.json", models / "paston_distilled.json")
    monkeypatch.setattr(policy_files, "MODELS_DIR", models)
    from folkcards.envs import paston_v0

    env = paston_v0.raw_env()
    # the network alone (calls=0,endgame=0): by default learned calls and a search take part
    distilled = {
        s: make_agent("distilled:calls=0,endgame=0", "paston", seat=s) for s in env.possible_agents
    }
    same = make_agent(f"ppo:{models / 'paston_distilled.zip'}", "paston")
    batched = make_batched_agent("distilled:calls=0,endgame=0", "paston")
    decisions = 0
    for _seat, observation, action in walk_decisions(
        env, range(4), lambda name, obs: distilled[name].act(obs)
    ):
        assert observation["action_mask"][action] == 1
        assert same.act(observation) == action
        row = np.asarray(observation["observation"], dtype=np.float32)[None]
        mask = np.asarray(observation["action_mask"], dtype=bool)[None]
        assert int(batched.act(row, mask)[0]) == action
        decisions += 1
    assert decisions > 20
    # the variant without a network of its own plays its base game's
    assert make_agent("distilled", "paston_bidding").path == models / "paston_distilled.zip"


def test_distilled_refuses_an_argument_and_names_the_recipe_when_missing(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="is not key=value.*ppo:PATH"):
        make_agent("distilled:foo.zip", "paston")
    monkeypatch.setattr(policy_files, "MODELS_DIR", tmp_path)
    with pytest.raises(ValueError, match=r"configs/tri_palki/distill\.yaml"):
        make_agent("distilled", "tri_palki")
    with pytest.raises(ValueError, match=r"configs/tri_palki/distill\.yaml"):
        make_batched_agent("distilled", "tri_palki", 3)
    with pytest.raises(ValueError, match=r"configs/tri_palki/ppo_full\.yaml"):
        make_batched_agent("ppo", "tri_palki", 3)


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_the_distillation_configs_load(game: str) -> None:
    config = load_config(CONFIGS / game / "distill.yaml")
    assert config.run.total_steps == 0 and config.pretrain.expert is not None


def test_the_paston_dagger_recipe_loads_with_its_rounds_and_soft_targets() -> None:
    config = load_config(CONFIGS / "paston" / "distill_dagger.yaml")
    assert config.pretrain.dagger_rounds == 2 and config.pretrain.value_temperature == 0.5
    assert config.run.total_steps == 0


def test_the_tri_palki_soft_target_recipe_loads_with_its_temperature() -> None:
    config = load_config(CONFIGS / "tri_palki" / "distill_soft.yaml")
    assert config.pretrain.value_temperature == 0.05 and config.run.total_steps == 0
    assert config.pretrain.keep_demonstrations
    # the teacher the shipped network was cloned from: the 0.4.0 expert, named in full
    assert config.pretrain.expert == "expert:samples=96,infer=8,endgame_samples=0,infer_epsilon=0.1"


def test_the_tri_palki_more_decisions_recipe_fits_both_kept_collections_to_the_best_epoch() -> None:
    collect = load_config(CONFIGS / "tri_palki" / "distill_more_collect.yaml")
    assert collect.pretrain.keep_demonstrations and collect.pretrain.samples == 110000
    fit = load_config(CONFIGS / "tri_palki" / "distill_more.yaml")
    assert fit.pretrain.best_epoch and fit.run.total_steps == 0
    assert isinstance(fit.pretrain.demonstrations, list) and len(fit.pretrain.demonstrations) == 2
