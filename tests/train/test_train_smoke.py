"""End-to-end training: a tiny run from the quick config, its outputs, the saved model as a
``ppo:PATH`` agent, resume, and same-seed determinism."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from folkcards.agents import make_agent  # noqa: E402
from folkcards.train.config import OpponentConfig, load_config  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _tiny(game: str = "paston", **run):
    config = load_config(CONFIGS / game / "ppo_quick.yaml")
    config.algorithm.n_steps = 128
    config.algorithm.batch_size = 128
    config.algorithm.n_epochs = 2
    config.opponents.snapshot_every = 256
    config.run.n_envs = 2
    config.run.total_steps = 512
    config.run.checkpoint_every = 256
    config.run.eval_every = 256
    config.run.eval_deals = 4
    config.run.progress_bar = False
    config.pretrain.samples = 300
    config.pretrain.epochs = 1
    for key, value in run.items():
        setattr(config.run, key, value)
    return config


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


def test_cli_run_writes_everything_and_the_model_plays(tmp_path: Path) -> None:
    import yaml
    from folkcards.train.cli import main

    data = yaml.safe_load((CONFIGS / "paston" / "ppo_quick.yaml").read_text())
    data["run"]["eval_deals"] = 10  # keep the final tournament small
    data["pretrain"].update(samples=300, epochs=1)  # and the behaviour cloning
    quick = tmp_path / "quick.yaml"
    quick.write_text(yaml.safe_dump(data))
    run_dir = tmp_path / "run"
    code = main(
        [
            "--config",
            str(quick),
            "--total-steps",
            "512",
            "--n-envs",
            "2",
            "--run-dir",
            str(run_dir),
            "--seed",
            "3",
            "--no-progress",
        ]
    )
    assert code == 0
    for name in (
        "config.yaml",
        "model.zip",
        "model.json",
        "eval.csv",
        "train_log.csv",
        "learning_curve.png",
        "state.json",
    ):
        assert (run_dir / name).is_file(), name
    assert any((run_dir / "tb").iterdir())
    meta = json.loads((run_dir / "model.json").read_text())
    assert meta["game"] == "paston" and meta["num_timesteps"] >= 512
    resolved = load_config(run_dir / "config.yaml")
    assert resolved.run.seed == 3 and resolved.run.total_steps == 512
    assert len(_rows(run_dir / "eval.csv")) == 1  # the final evaluation (eval_every: 0)
    assert main(["--resume", str(run_dir), "--total-steps", "1024", "--no-progress"]) == 0
    assert json.loads((run_dir / "model.json").read_text())["num_timesteps"] == 1024
    assert [int(r["step"]) for r in _rows(run_dir / "eval.csv")] == [512, 1024]
    with pytest.raises(SystemExit) as exc:
        main(["--resume", str(run_dir), "--seed", "4"])  # a run keeps its seed
    assert exc.value.code == 2

    # the saved model as an agent, in a small game against the heuristic: legal actions only
    from folkcards.agents.episode import play_episode
    from folkcards.envs import paston_v0

    env = paston_v0.raw_env()  # raises ValueError on an illegal action
    for seed in range(5):
        agents = {
            "player_0": make_agent(f"ppo:{run_dir / 'model.zip'}", "paston", "player_0", seed),
            "player_1": make_agent("heuristic", "paston", "player_1", seed),
            "player_2": make_agent("random", "paston", "player_2", seed),
        }
        scores = play_episode(env, agents, seed).returns
        assert scores["player_0"] == env.record()["deals"][-1]["result"]["player_0"]["deal_score"]


def test_snapshots_checkpoints_resume(tmp_path: Path) -> None:
    from folkcards.train.ppo import latest_model, resume_run, train

    config = _tiny(eval_method="duplicate", vec_env="dummy")
    config.opponents.pool = [OpponentConfig(spec="heuristic"), OpponentConfig(spec="self")]
    config.opponents.max_snapshots = 1
    logs: list[str] = []
    run_dir = train(config, tmp_path / "run", log=logs.append)
    assert sorted(p.name for p in (run_dir / "snapshots").iterdir()) == [
        "snapshot_000000256.npz",
        "snapshot_000000512.npz",
    ]
    assert [p.name for p in sorted((run_dir / "checkpoints").glob("*.zip"))] == [
        "model_000000256.zip",
        "model_000000512.zip",
    ]
    evals = _rows(run_dir / "eval.csv")  # the learning curve starts at step 0
    assert [int(r["step"]) for r in evals] == [0, 256, 512] and evals[0]["method"] == "duplicate"
    assert all(np.isfinite(float(r["mean_score"])) for r in evals)
    assert latest_model(run_dir)[0] == 512

    with pytest.raises(FileExistsError):
        train(config, run_dir)
    resume_run(run_dir, total_steps=768, log=logs.append)
    assert any("resuming" in line for line in logs)
    assert json.loads((run_dir / "model.json").read_text())["num_timesteps"] == 768
    assert [int(r["step"]) for r in _rows(run_dir / "eval.csv")] == [0, 256, 512, 768]
    assert [int(r["step"]) for r in _rows(run_dir / "train_log.csv")] == [256, 512, 768]
    assert json.loads((run_dir / "state.json").read_text())["complete"] is True


def _params(run_dir: Path) -> list[np.ndarray]:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(run_dir / "model.zip"), device="cpu")
    return [p.detach().numpy().copy() for p in model.policy.parameters()]


def test_same_seed_same_run_for_any_vectorisation(tmp_path: Path) -> None:
    from folkcards.train.ppo import train

    runs = []
    for name, vec_env, eval_deals in (("a", "dummy", 0), ("b", "dummy", 0), ("c", "batched", 1)):
        # run c also evaluates (a tournament loads the model: torch's RNG must not move)
        config = _tiny(
            eval_deals=eval_deals,
            checkpoint_every=0,
            vec_env=vec_env,
            n_workers=2,
            tensorboard=False,
        )
        runs.append(train(config, tmp_path / name, log=lambda _line: None))
    assert [int(r["step"]) for r in _rows(runs[2] / "eval.csv")] == [0, 256, 512]
    first = _params(runs[0])
    for other in runs[1:]:
        assert all(np.array_equal(x, y) for x, y in zip(first, _params(other), strict=True))
    logs = [[r["mean_reward"] for r in _rows(run / "train_log.csv")] for run in runs]
    assert logs[0] == logs[1] == logs[2]

    config = _tiny(eval_deals=0, checkpoint_every=0, vec_env="dummy", tensorboard=False, seed=1)
    other_seed = train(config, tmp_path / "d", log=lambda _line: None)
    assert not all(np.array_equal(x, y) for x, y in zip(first, _params(other_seed), strict=True))


def test_tri_palki_tiny_run(tmp_path: Path) -> None:
    from folkcards.train.ppo import train

    config = _tiny("tri_palki", eval_every=0, eval_deals=2, checkpoint_every=0, vec_env="dummy")
    run_dir = train(config, tmp_path / "run", log=lambda _line: None)
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", "tri_palki", "player_0", 0)
    with pytest.raises(ValueError, match="trained for tri_palki"):
        make_agent(f"ppo:{run_dir / 'model.zip'}", "paston")
    from folkcards.agents.episode import play_episode
    from folkcards.envs import tri_palki_v0

    env = tri_palki_v0.raw_env()
    agents = {
        f"player_{i}": make_agent("heuristic", "tri_palki", f"player_{i}", i) for i in range(1, 4)
    }
    play_episode(env, {"player_0": agent, **agents}, 0)
    assert len(_rows(run_dir / "eval.csv")) == 1
