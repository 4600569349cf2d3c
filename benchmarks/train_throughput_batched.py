"""Training throughput of each game's config on the AEC path and on the batched path, one run.

For each game this trains MaskablePPO from ``configs/<game>/ppo_full.yaml`` (no behaviour
cloning, evaluations or checkpoints; ``self`` in the opponent pool plays one snapshot of the
new model) for ``--steps`` learner decisions per line:

- ``aec``: the config as it is (``run.engine: aec``, its ``n_envs``, ``vec_env: auto``);
- ``batched``: ``run.engine: batched`` with ``N`` games on one batched engine, for every ``N`` of
  ``--n-envs``; ``n_steps`` is scaled so that a rollout keeps the config's size
  (``n_steps × n_envs``), hence the same PPO updates.

and prints steps/s (learner decisions per second of rollouts + updates), the speed-up over the
AEC line, and where the time goes: ``env`` (inside the vectorised env: engine, opponents,
duplicate-baseline replays), ``infer`` (the rest of the rollouts: policy forward passes, masks,
buffer) and ``update`` (``MaskablePPO.train``).

The learner starts untrained, so with ``duplicate_baseline`` it departs from the baseline in
almost every episode and nearly every deal is replayed (more than for a trained learner).

    python benchmarks/train_throughput_batched.py
    python benchmarks/train_throughput_batched.py --games tri_palki --n-envs 16 128 --steps 16384
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def measure(
    config_path: Path, steps: int, engine: str, n_envs: int | None, torch_threads: int | None = None
) -> dict[str, Any]:
    from folkcards.agents.policy_network import NumpyPolicy
    from folkcards.train.config import load_config
    from folkcards.train.ppo import make_model, make_vec_env, set_determinism, timed_vec_env

    config = load_config(config_path)
    rollout = config.algorithm.n_steps * config.resolved_n_envs()
    config.run.engine = engine  # type: ignore[assignment]
    if n_envs is not None:
        config.run.n_envs = n_envs
        config.algorithm.n_steps = max(1, rollout // n_envs)
    config.run.progress_bar = False
    if torch_threads is not None:
        config.run.torch_threads = torch_threads
    set_determinism(config)
    venv = timed_vec_env(make_vec_env(config))
    try:
        model = make_model(config, venv, None)
        with tempfile.TemporaryDirectory() as tmp:  # "self" plays a snapshot of the new model
            path = Path(tmp) / "snapshot.npz"
            NumpyPolicy.from_sb3(model, {"features": config.env.features}).save(path)
            venv.env_method("add_snapshot", str(path))
        model.learn(total_timesteps=1)  # warm-up: processes, compilation, first update
        venv.env_seconds = 0.0
        model.timings = {"rollout": 0.0, "train": 0.0}
        model.learn(total_timesteps=max(steps, rollout), reset_num_timesteps=True)
        done = model.num_timesteps
    finally:
        venv.close()
    rollout_s, train_s = model.timings["rollout"], model.timings["train"]
    busy = rollout_s + train_s
    return {
        "n_envs": config.resolved_n_envs(),
        "n_steps": config.algorithm.n_steps,
        "threads": config.run.torch_threads,
        "steps": done,
        "steps_per_s": done / busy,
        "env_s": venv.env_seconds,
        "infer_s": rollout_s - venv.env_seconds,
        "update_s": train_s,
        "busy": busy,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="train_throughput_batched.py", description=__doc__)
    parser.add_argument(
        "--games", nargs="+", default=["paston", "tri_palki"], choices=["paston", "tri_palki"]
    )
    parser.add_argument("--config", help="config name under configs/<game>/", default="ppo_full")
    parser.add_argument("--steps", type=int, default=16384, help="learner decisions per line")
    parser.add_argument("--n-envs", type=int, nargs="+", default=[16, 64, 128, 256])
    parser.add_argument(
        "--torch-threads",
        type=int,
        nargs="+",
        default=[1],
        help="torch threads for the batched lines, one line per value (the aec line keeps the "
        "config's: its env workers use the cores while the policy runs)",
    )
    args = parser.parse_args(argv)
    header = (
        f"{'game':<10} {'engine':<8} {'n_envs':>6} {'n_steps':>7} {'torch':>5} {'steps':>7} "
        f"{'steps/s':>8} "
        f"{'speed-up':>8} {'env':>12} {'infer':>12} {'update':>12}"
    )
    print(header)
    print("-" * len(header))
    for game in args.games:
        path = ROOT / "configs" / game / f"{args.config}.yaml"
        base = None
        lines: list[tuple[str, int | None, int | None]] = [("aec", None, None)]
        lines += [("batched", n, t) for n in args.n_envs for t in args.torch_threads]
        for engine, n_envs, threads in lines:
            r = measure(path, args.steps, engine, n_envs, threads)
            base = base or r["steps_per_s"]

            def share(key: str, r: dict[str, Any] = r) -> str:
                return f"{r[key]:5.1f}s {r[key] / r['busy']:4.0%}"

            print(
                f"{game:<10} {engine:<8} {r['n_envs']:>6} {r['n_steps']:>7} {r['threads']:>5} "
                f"{r['steps']:>7} "
                f"{r['steps_per_s']:>8.0f} {r['steps_per_s'] / base:>7.1f}x {share('env_s'):>12} "
                f"{share('infer_s'):>12} {share('update_s'):>12}",
                flush=True,
            )
    print("\nsteps/s = learner decisions / (rollout + update time); speed-up vs the aec line.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
