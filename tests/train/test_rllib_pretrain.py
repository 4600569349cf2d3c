"""Behaviour cloning before RLlib PPO (train/rllib_pretrain.py, the ``pretrain`` group of an
RLlib config): the cloned module plays like the expert on fresh decisions and never picks a
masked action, the weights reach the learner and the env runners, a resumed run does not clone
again, and a bad ``pretrain`` group is one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from folkcards.agents import make_agent

ray = pytest.importorskip("ray")

from folkcards.train.rllib_config import (  # noqa: E402
    load_rllib_config,
    rllib_config_from_dict,
)
from folkcards.train.rllib_env import FolkcardsMultiAgentEnv  # noqa: E402

from folkcards.errors import ConfigError  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
AGREEMENT = 0.6  # a clear majority; an untrained module agrees far less often (checked below)


def _config(tmp_path: Path, runners: int = 0, **pretrain: Any) -> Any:
    data = load_rllib_config(CONFIGS / "paston" / "rllib_ppo.yaml").to_dict()
    data["algorithm"].update(train_batch_size=256, minibatch_size=128, num_epochs=1, hidden=[64])
    data["resources"].update(num_env_runners=runners, num_envs_per_env_runner=2)
    data["policies"]["snapshot_every"] = 200
    data["pretrain"] = {"expert": "heuristic", "samples": 6000, "epochs": 10, **pretrain}
    data["run"].update(
        total_steps=250,
        checkpoint_every=0,
        eval_every=0,
        eval_deals=2,
        eval_method="duplicate",
        tensorboard=False,
        runs_dir=str(tmp_path),
    )
    return rllib_config_from_dict(data)


def _fresh_decisions(module: Any, decisions: int, seed: int) -> tuple[float, int]:
    """Share of ``decisions`` learner decisions (heuristic opponents, the heuristic playing the
    learner's seat) where the module's greedy action is the heuristic's; also asserts that the
    greedy and a sampled action are always legal. Returns (agreement, decisions)."""
    import torch
    from ray.rllib.core.columns import Columns

    env = FolkcardsMultiAgentEnv(
        {"game": "paston", "seed": seed, "opponents": ["heuristic"], "learner_seats": 1}
    )
    expert = make_agent("heuristic", "paston", "player_0", seed=seed)
    same = done = 0
    while done < decisions:
        obs, _ = env.reset()
        expert.reset()
        while obs and done < decisions:
            ((seat, ob),) = obs.items()
            if not ob["action_mask"].any():
                break
            expert.seat = seat
            action = int(
                expert.act({"observation": ob["observations"], "action_mask": ob["action_mask"]})
            )
            batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in ob.items()}}
            with torch.no_grad():
                greedy = int(
                    module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].argmax()
                )
                logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
                sampled = int(torch.distributions.Categorical(logits=logits).sample()[0])
            mask = ob["action_mask"] > 0
            assert mask[greedy] and mask[sampled], (done, greedy, sampled)
            same += greedy == action
            done += 1
            obs, _, terminated, truncated, _ = env.step({seat: action})
            if terminated["__all__"] or truncated["__all__"]:
                break
    return same / done, done


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def cloned(local_ray: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """An algorithm with one remote env runner, before and after cloning the heuristic."""
    import torch
    from folkcards.train.rllib_pretrain import pretrain_rllib
    from folkcards.train.rllib_train import build_algorithm

    tmp = tmp_path_factory.mktemp("clone")
    config = _config(tmp, runners=1)
    torch.manual_seed(0)
    algo = build_algorithm(config, tmp)
    untrained = _fresh_decisions(algo.get_module("shared"), 600, seed=11)[0]
    metrics = pretrain_rllib(algo, config, tmp, log=lambda _t: None)
    yield algo, tmp, untrained, metrics
    algo.stop()


def test_the_cloned_module_plays_like_the_expert_and_only_legal_moves(cloned: Any) -> None:
    algo, run_dir, untrained, metrics = cloned
    assert untrained < AGREEMENT, f"the threshold must fail for an untrained module: {untrained}"
    runner_module = algo.get_module("shared")  # the env runner's copy (remote runner 1)
    agreement, decisions = _fresh_decisions(runner_module, 1500, seed=12)
    assert decisions == 1500
    print(f"agreement with the heuristic: cloned {agreement:.1%}, untrained {untrained:.1%}")
    assert agreement > AGREEMENT, (agreement, untrained)
    saved = json.loads((run_dir / "pretrain.json").read_text())
    assert saved["samples"] >= 6000 and saved["agreement"] > AGREEMENT
    assert saved == pytest.approx(metrics)


def test_the_learner_and_the_env_runners_hold_the_cloned_weights(cloned: Any) -> None:
    algo = cloned[0]
    learner = algo.learner_group.get_weights()["shared"]
    runner = algo.env_runner_group.foreach_env_runner(
        lambda r: {
            k: v.detach().numpy().copy() for k, v in r.module["shared"].state_dict().items()
        },
        local_env_runner=False,
    )[0]
    assert set(runner) <= set(learner)
    for key, value in runner.items():
        np.testing.assert_array_equal(np.asarray(learner[key]), value, err_msg=key)


def test_a_run_clones_once_and_resume_does_not_clone_again(
    local_ray: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from folkcards.train import rllib_pretrain
    from folkcards.train.rllib_config import with_rllib_overrides
    from folkcards.train.rllib_train import checkpoint_dirs, train_rllib
    from folkcards.train.run_files import read_csv

    calls: list[int] = []
    real = rllib_pretrain.pretrain_rllib

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(rllib_pretrain, "pretrain_rllib", counted)
    config = _config(tmp_path, samples=400, epochs=1)
    run_dir = train_rllib(config, tmp_path / "run", log=lambda _t: None)
    assert calls == [1]
    assert json.loads((run_dir / "pretrain.json").read_text())["samples"] >= 400
    assert [int(r["step"]) for r in read_csv(run_dir / "eval.csv")][0] == 0  # the clone's eval
    first = json.loads((run_dir / "state.json").read_text())["num_timesteps"]
    written = (run_dir / "pretrain.json").stat().st_mtime_ns
    train_rllib(
        with_rllib_overrides(config, total_steps=first + 250),
        run_dir,
        resume=True,
        log=lambda _t: None,
    )
    assert calls == [1], "resume must not clone again"
    assert (run_dir / "pretrain.json").stat().st_mtime_ns == written
    assert checkpoint_dirs(run_dir)[-1][0] > first


@pytest.mark.parametrize(
    ("pretrain", "message"),
    [
        ({"expert": "nobody"}, "unknown agent 'nobody'"),
        ({"expert": "heuristic", "samples": 0}, "pretrain.samples"),
        ({"expert": "heuristic", "epochs": 0}, "pretrain.epochs"),
        ({"expert": "heuristic", "holdout": 1.5}, "pretrain.holdout"),
        ({"expert": "heuristic", "value": "yes"}, "pretrain.value"),
        (
            {"expers": "heuristic"},
            r"unknown key 'expers' in group 'pretrain' \(did you mean 'expert'\?\)",
        ),
    ],
)
def test_a_bad_pretrain_group_is_one_clear_line(pretrain: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        rllib_config_from_dict({"backend": "rllib", "pretrain": pretrain})
    assert isinstance(error.value, ConfigError)
    assert "\n" not in str(error.value)


def test_the_pretrain_group_has_the_sb3_keys_and_defaults() -> None:
    from folkcards.train.config import PretrainConfig

    config = rllib_config_from_dict({"backend": "rllib", "pretrain": {"expert": "heuristic"}})
    assert config.pretrain == PretrainConfig(expert="heuristic")
    assert rllib_config_from_dict({"backend": "rllib"}).pretrain.expert is None
