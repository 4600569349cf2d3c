"""``pretrain.start_model``: a run starts from an existing network (PPO from a clone)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from folkcards.agents import make_agent  # noqa: E402
from folkcards.agents.episode import Decision, play_episode  # noqa: E402
from folkcards.envs import tri_palki_v0  # noqa: E402
from folkcards.train.config import ConfigError, load_config  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``configs/tri_palki/distill_ppo.yaml`` as step 2 reads it: from a folder where step 1's
    run directory exists (here a copy of the committed network stands in for it)."""
    from folkcards.agents.policy_files import distilled_model_path

    step1 = tmp_path / "runs" / "distill" / "tri_palki"
    step1.mkdir(parents=True)
    path = distilled_model_path("tri_palki")
    shutil.copy(path, step1 / "model.zip")
    shutil.copy(path.with_suffix(".json"), step1 / "model.json")
    monkeypatch.chdir(tmp_path)
    return load_config(CONFIGS / "tri_palki" / "distill_ppo.yaml")


def test_the_ppo_recipe_starts_from_step_ones_clone(tmp_path: Path, monkeypatch) -> None:
    config = _recipe(tmp_path, monkeypatch)
    assert config.pretrain.start_model == "runs/distill/tri_palki/model.zip"
    assert config.pretrain.expert is None and config.run.total_steps > 0
    assert "ppo:runs/distill/tri_palki/model.zip" in [o.spec for o in config.opponents.pool]


@pytest.fixture
def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def make(**pretrain: object):
        return _small(_recipe(tmp_path / "recipe", monkeypatch), **pretrain)

    return make


def _small(config, **pretrain: object):
    config.pretrain.start_model = "distilled"
    config.run.engine = "aec"
    config.run.n_envs = 1
    config.run.vec_env = "dummy"
    config.run.eval_deals = 0
    config.run.eval_every = 0
    config.run.checkpoint_every = 0
    config.run.progress_bar = False
    config.run.tensorboard = False
    config.opponents.pool = config.opponents.pool[:1]
    config.opponents.snapshot_every = 0
    config.env.duplicate_baseline = None
    for key, value in pretrain.items():
        setattr(config.pretrain, key, value)
    return config


def _actions(spec: str, rounds: int = 12) -> list[int]:
    """The actions ``spec`` takes in seat 0 of a few rounds against the heuristic."""
    env = tri_palki_v0.raw_env(num_players=4, episode="round")
    seen: list[Decision] = []
    for r in range(rounds):
        table = [make_agent(spec, "tri_palki", "player_0", seed=0)] + [
            make_agent("heuristic", "tri_palki", f"player_{i}") for i in (1, 2, 3)
        ]
        play_episode(env, table, seed=900 + r, on_action=lambda d: seen.append(d))
    taken = [d.action for d in seen if d.agent == "player_0"]
    return taken


def test_a_run_started_from_the_distilled_network_plays_it(tmp_path: Path, _config) -> None:
    """With no PPO steps and no clone the run's network is the start network: the same
    choices in the same rounds as the committed ``distilled`` network (``distilled:unsure=0``:
    the player without the expert's search on the decisions the network is unsure of)."""
    from folkcards.train.ppo import train

    config = _config()
    config.run.total_steps = 0
    run_dir = train(config, tmp_path / "run", log=lambda _line: None)
    ours = _actions(f"ppo:{run_dir / 'model.zip'}")
    assert len(ours) > 15
    assert ours == _actions("distilled:unsure=0")


def test_the_start_weights_are_the_distilled_networks(_config) -> None:
    from folkcards.agents.policy_files import distilled_model_path
    from folkcards.train.ppo import copy_network, make_model, make_vec_env, timed_ppo_class

    config = _config()
    venv = make_vec_env(config, (), seed=0)
    try:
        model = make_model(config, venv, None)
        before = {k: v.clone() for k, v in model.policy.state_dict().items()}
        path = distilled_model_path("tri_palki")
        copy_network(path, model, config)
        source = timed_ppo_class().load(str(path), device="cpu").policy.state_dict()
        after = model.policy.state_dict()
        assert set(after) == set(source)
        for key, value in after.items():
            assert np.array_equal(value.numpy(), source[key].numpy()), key
        assert any(not np.array_equal(before[k].numpy(), after[k].numpy()) for k in after)
    finally:
        venv.close()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"start_model": "no/such/model.zip"}, "no model file 'no/such/model.zip'"),
        ({"start_model": "ppo:paston"}, "trained for paston, not tri_palki"),
        ({"features": None}, "reads the feature set 'tri_palki_actions'"),
        ({"net_arch": [64, 64]}, r"has the network \[256, 256\]"),
        ({"activation": "relu"}, "uses the activation Tanh, this config ReLU"),
    ],
)
def test_a_start_network_that_does_not_fit_is_refused_in_one_line(
    tmp_path: Path, _config, change: dict, message: str
) -> None:
    from folkcards.train.ppo import train

    config = _config(start_model=change.get("start_model", "distilled"))
    if "features" in change:
        config.env.features = change["features"]
    if "net_arch" in change:
        config.algorithm.net_arch = change["net_arch"]
    if "activation" in change:
        config.algorithm.activation = change["activation"]
    config.run.total_steps = 0
    with pytest.raises(ConfigError, match=message) as caught:
        train(config, tmp_path / "run", log=lambda _line: None)
    assert "\n" not in str(caught.value)


def test_the_rllib_stack_refuses_a_start_network() -> None:
    from folkcards.train.rllib_config import rllib_config_from_dict

    with pytest.raises(ValueError, match="SB3 stack only"):
        rllib_config_from_dict(
            {"env": {"game": "paston"}, "pretrain": {"start_model": "distilled"}}
        )
