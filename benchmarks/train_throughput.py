"""Training throughput of MaskablePPO on the single-seat envs, and where the time goes.

For each game (and each vectorisation asked for) this trains from the game's config
(``configs/<game>/ppo_quick.yaml`` unless ``--config`` is given) for ``--steps`` environment steps
without evaluations, checkpoints or snapshots, and prints:

- ``steps/s``: environment steps (learner decisions) per second of training (rollouts + updates);
- ``env``: share of the time inside the vectorised envs (``step``/``reset``/``action_masks``,
  opponents' moves included, and for ``subproc`` the inter-process round trips);
- ``inference``: the rest of the rollout phase (policy forward passes, buffer, masks);
- ``update``: the PPO gradient updates (``MaskablePPO.train``).

Examples::

    python benchmarks/train_throughput.py
    python benchmarks/train_throughput.py --games paston --steps 16384 --vec-env dummy subproc --n-envs 2 8
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(
    game: str, config_path: Path, steps: int, n_envs: int, vec_env: str, opponent: str | None
) -> dict[str, float]:
    from folkcards.train.config import load_config
    from folkcards.train.ppo import make_model, make_vec_env, set_determinism, timed_vec_env

    config = load_config(config_path)
    config.run.n_envs = n_envs
    config.run.vec_env = vec_env
    config.run.progress_bar = False
    if opponent is not None:
        from folkcards.train.config import OpponentConfig

        config.opponents.pool = [OpponentConfig(spec=opponent)]
    set_determinism(config)
    venv = timed_vec_env(make_vec_env(config))
    try:
        model = make_model(config, venv, None)
        rollout = config.algorithm.n_steps * n_envs
        total = max(steps, rollout)
        model.learn(total_timesteps=1)  # warm-up: process start, first reset, first update
        venv.env_seconds = 0.0
        model.timings = {"rollout": 0.0, "train": 0.0}
        start = time.perf_counter()
        model.learn(total_timesteps=total, reset_num_timesteps=True)
        wall = time.perf_counter() - start
        done = model.num_timesteps
    finally:
        venv.close()
    rollout_s = model.timings["rollout"]
    train_s = model.timings["train"]
    busy = rollout_s + train_s
    return {
        "steps": done,
        "wall": wall,
        "steps_per_s": done / busy,
        "env": venv.env_seconds / busy,
        "inference": (rollout_s - venv.env_seconds) / busy,
        "update": train_s / busy,
        "rollout_steps_per_s": done / rollout_s,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="train_throughput.py",
        description="MaskablePPO training throughput on the single-seat envs, with the share of time "
        "spent in the environments, in rollout inference and in the PPO updates.",
    )
    parser.add_argument(
        "--games", nargs="+", default=["paston", "tri_palki"], choices=["paston", "tri_palki"]
    )
    parser.add_argument(
        "--config",
        type=Path,
        help="a training config to use for every game (default configs/<game>/ppo_quick.yaml)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=8192,
        help="environment steps measured per line (at least one rollout)",
    )
    parser.add_argument("--n-envs", type=int, nargs="+", default=[8], help="numbers of envs to try")
    parser.add_argument(
        "--vec-env",
        nargs="+",
        default=["dummy", "batched"],
        choices=["dummy", "batched", "subproc"],
    )
    parser.add_argument(
        "--opponent",
        help="one opponent spec for every seat instead of the config's pool (e.g. random, heuristic)",
    )
    args = parser.parse_args(argv)

    rows = []
    header = f"{'game':<10} {'vec_env':<8} {'n_envs':>6} {'steps':>7} {'steps/s':>8} {'env':>6} {'infer':>6} {'update':>6} {'rollout steps/s':>16}"
    print(header)
    print("-" * len(header))
    for game in args.games:
        config_path = args.config or ROOT / "configs" / game / "ppo_quick.yaml"
        for vec_env in args.vec_env:
            for n_envs in args.n_envs:
                r = measure(game, config_path, args.steps, n_envs, vec_env, args.opponent)
                rows.append((game, vec_env, n_envs, r))
                print(
                    f"{game:<10} {vec_env:<8} {n_envs:>6} {r['steps']:>7} {r['steps_per_s']:>8.0f} "
                    f"{r['env']:>6.0%} {r['inference']:>6.0%} {r['update']:>6.0%} {r['rollout_steps_per_s']:>16.0f}",
                    flush=True,
                )
    print(
        "\nsteps/s = env steps / (rollout + update time); env / infer / update = shares of that time."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
