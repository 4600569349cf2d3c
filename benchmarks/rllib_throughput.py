"""Training throughput of RLlib PPO (``backend: rllib``) next to the SB3 path, with repeats.

Rows of the table (steps = learner decisions, the unit of both paths' ``total_steps``):

- ``env only``: :class:`folkcards.train.rllib_env.FolkcardsMultiAgentEnv` stepped in one process
  with uniformly random legal learner actions, no RLlib and no network: the ceiling the game and
  its env-internal opponents (``--opponent``) leave for one process.
- ``rllib R runners x E envs``: :func:`folkcards.train.rllib_train.build_algorithm` from the
  RLlib config with ``num_env_runners`` R (0: sampling in the driver) and
  ``num_envs_per_env_runner`` E; one warm-up iteration, then ``--iterations`` timed
  ``algo.train()`` calls, each one repeat (sampled steps / wall seconds). ``sample``/``learn``:
  RLlib's own timers of the last iteration (sampling; the learner update).
- ``sb3 ...``: ``benchmarks/train_throughput.py``'s measurement of the SB3 config
  (MaskablePPO, ``--sb3-steps`` steps after a warm-up), ``--repeats`` times.

Each row gives the median steps per wall second and the spread (min-max) of its repeats, and
the median steps per CPU second (all the row's processes: driver, env runners or SB3's env
workers), which a loaded machine changes much less than the wall-clock figure. The opponents of
both paths are replaced by ``--opponent`` (default: heuristic), so the rows compare like with
like. ``--episodes-to-numpy`` also measures RLlib with its default ``episodes_to_numpy=True``
(quadratic in the episodes per ``sample()`` call for short episodes, see ``build_algorithm``).

Examples::

    python benchmarks/rllib_throughput.py
    python benchmarks/rllib_throughput.py --runners 0 1 2 --envs 4 8 --iterations 3 --no-sb3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _rllib_config(path: Path, opponent: str, runners: int, envs: int, batch: int | None) -> Any:
    from folkcards.train.rllib_config import load_rllib_config, rllib_config_from_dict

    data = load_rllib_config(path).to_dict()
    if data["policies"]["opponents"]:
        data["policies"]["opponents"] = [{"spec": opponent, "weight": 1.0}]
    data["resources"].update(num_env_runners=runners, num_envs_per_env_runner=envs)
    if batch is not None:
        data["algorithm"]["train_batch_size"] = batch
        data["algorithm"]["minibatch_size"] = min(data["algorithm"]["minibatch_size"], batch)
    data["pretrain"] = {"expert": None}
    return rllib_config_from_dict(data)


def env_only(
    path: Path, opponent: str, steps: int, repeats: int, seed: int = 0
) -> tuple[list[float], list[float]]:
    """Learner steps per wall second and per CPU second of the bare RLlib env (random legal
    learner actions), ``repeats`` times."""
    import numpy as np
    from folkcards.train.rllib_env import FolkcardsMultiAgentEnv
    from folkcards.train.rllib_train import env_config

    config = _rllib_config(path, opponent, 0, 1, None)
    rates, cpu = [], []
    for repeat in range(repeats):
        env = FolkcardsMultiAgentEnv({**env_config(config, Path(".")), "seed": seed + repeat})
        rng = np.random.default_rng(seed + repeat)
        done = 0
        start, start_cpu = time.perf_counter(), time.process_time()
        while done < steps:
            obs, _ = env.reset()
            while obs:
                ((agent, ob),) = obs.items()
                if not ob["action_mask"].any():
                    break
                action = int(rng.choice(np.flatnonzero(ob["action_mask"])))
                obs, _, terminated, truncated, _ = env.step({agent: action})
                done += 1
                if terminated["__all__"] or truncated["__all__"]:
                    break
        rates.append(done / (time.perf_counter() - start))
        cpu.append(done / (time.process_time() - start_cpu))
    return rates, cpu


def rllib(
    path: Path,
    opponent: str,
    runners: int,
    envs: int,
    iterations: int,
    batch: int | None,
    to_numpy: bool,
) -> tuple[list[float], list[float], dict[str, float]]:
    """Steps per wall second and per CPU second (driver + env runners) of ``iterations`` timed
    RLlib iterations (after one warm-up), and the last iteration's sampling and learner-update
    seconds."""
    import torch
    from folkcards.train.rllib_train import build_algorithm, init_ray

    config = _rllib_config(path, opponent, runners, envs, batch)
    init_ray(config)
    torch.set_num_threads(config.resources.torch_threads)
    with TemporaryDirectory() as tmp:
        (Path(tmp) / "snapshots").mkdir()
        algo = build_algorithm(config, Path(tmp), episodes_to_numpy=to_numpy)
        try:
            algo.train()  # warm-up: actors, first episodes
            rates, cpu = [], []
            result: dict[str, Any] = {}
            for _ in range(iterations):
                start, start_cpu = time.perf_counter(), _cpu_seconds(algo)
                result = algo.train()
                seconds = time.perf_counter() - start
                steps = result["env_runners"]["num_env_steps_sampled"]
                rates.append(steps / seconds)
                cpu.append(steps / (_cpu_seconds(algo) - start_cpu))
        finally:
            algo.stop()
    timers = result.get("timers", {})
    parts = {
        "sample": float(timers.get("env_runner_sampling_timer", float("nan"))),
        "learn": float(timers.get("learner_update_timer", float("nan"))),
    }
    return rates, cpu, parts


def _cpu_seconds(algo: Any) -> float:
    """CPU seconds used so far by this (driver) process and every remote env runner."""
    remote = algo.env_runner_group.foreach_env_runner(
        lambda _runner: time.process_time(), local_env_runner=False
    )
    return time.process_time() + float(sum(remote))


def sb3(
    path: Path, opponent: str, steps: int, n_envs: int, repeats: int
) -> tuple[list[float], list[float]]:
    """Steps per wall second of the SB3 path's ``measure`` (``benchmarks/train_throughput.py``;
    rollouts + updates), and per CPU second of this process and its env workers (whole call:
    env start-up and warm-up included, so a lower bound)."""
    import resource

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from train_throughput import measure  # type: ignore[import-not-found]

    def cpu() -> float:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    game = path.parent.name
    rates, per_cpu = [], []
    for _ in range(repeats):
        start = cpu()
        result = measure(game, path, steps, n_envs, "auto", opponent)
        rates.append(result["steps_per_s"])
        per_cpu.append(result["steps"] / (cpu() - start))
    return rates, per_cpu


def _row(name: str, rates: list[float], cpu: list[float], note: str = "") -> str:
    median = statistics.median(rates)
    spread = f"{min(rates):,.0f}-{max(rates):,.0f}"
    per_cpu = f"{statistics.median(cpu):,.0f}"
    return (
        f"| {name:<34} | {median:>8,.0f} | {spread:>13} | {per_cpu:>12} | {len(rates):>7} | {note}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="RLlib PPO training throughput (1 and 2 env runners, ...) next to SB3.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("Examples::")[1] if __doc__ else None,
    )
    parser.add_argument("--config", type=Path, default=ROOT / "configs/paston/rllib_ppo.yaml")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="num_env_runners")
    parser.add_argument(
        "--envs", type=int, nargs="+", default=[4], help="num_envs_per_env_runner values"
    )
    parser.add_argument("--iterations", type=int, default=3, help="timed RLlib iterations")
    parser.add_argument("--batch", type=int, default=None, help="train_batch_size (config's)")
    parser.add_argument("--opponent", default="heuristic", help="every env-internal opponent")
    parser.add_argument("--env-steps", type=int, default=3000, help="steps of the env-only row")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of env-only and SB3 rows")
    parser.add_argument(
        "--episodes-to-numpy", action="store_true", help="also RLlib's default numpy episodes"
    )
    parser.add_argument("--no-sb3", action="store_true", help="skip the SB3 rows")
    parser.add_argument("--sb3-config", type=Path, default=ROOT / "configs/paston/ppo_full.yaml")
    parser.add_argument("--sb3-steps", type=int, default=16384)
    parser.add_argument("--sb3-envs", type=int, default=16)
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.repeats < 1:
        parser.error("--iterations and --repeats must be >= 1")

    lines = [
        f"| {'setting':<34} | {'steps/s':>8} | {'spread':>13} | {'steps/CPU s':>12} | "
        f"{'repeats':>7} | notes",
        f"|{'-' * 36}|{'-' * 10}|{'-' * 15}|{'-' * 14}|{'-' * 9}|------",
    ]

    def show(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    print(lines[0])
    print(lines[1])
    rates, cpu = env_only(args.config, args.opponent, args.env_steps, args.repeats)
    show(_row("env only (1 process, no RLlib)", rates, cpu))
    variants = [False, True] if args.episodes_to_numpy else [False]
    for to_numpy in variants:
        for runners in args.runners:
            for envs in args.envs:
                rates, cpu, parts = rllib(
                    args.config,
                    args.opponent,
                    runners,
                    envs,
                    args.iterations,
                    args.batch,
                    to_numpy,
                )
                name = f"rllib {runners} runners x {envs} envs" + (" numpy" if to_numpy else "")
                note = f"sample {parts['sample']:.1f} s, learn {parts['learn']:.1f} s"
                show(_row(name, rates, cpu, note))
    if not args.no_sb3:
        rates, cpu = sb3(
            args.sb3_config, args.opponent, args.sb3_steps, args.sb3_envs, args.repeats
        )
        show(_row(f"sb3 {args.sb3_config.name} {args.sb3_envs} envs", rates, cpu))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
