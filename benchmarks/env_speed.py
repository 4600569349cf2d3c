"""Environment speed, side by side with PettingZoo's classic card games, in one run.

Plays random legal games through the standard AEC loop (``agent_iter``, ``last``, a
mask-sampled action, ``step``) and prints steps/s, episodes/s, the ratio to each peer and the
memory of one environment instance.

    python benchmarks/env_speed.py --seconds 3
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np


def _peers() -> dict[str, Callable[[], Any]]:
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    return {
        "leduc_holdem_v4 env()": leduc_holdem_v4.env,
        "leduc_holdem_v4 raw_env()": leduc_holdem_v4.raw_env,
        "texas_holdem_v4 env()": texas_holdem_v4.env,
        "texas_holdem_v4 raw_env()": texas_holdem_v4.raw_env,
    }


def _ours() -> dict[str, Callable[[], Any]]:
    from folkcards.envs import paston_v0

    envs: dict[str, Callable[[], Any]] = {
        "paston_v0 env()": paston_v0.env,
        "paston_v0 raw_env()": paston_v0.raw_env,
    }
    try:
        from folkcards.envs import tri_palki_v0
    except ImportError:
        return envs
    envs["tri_palki_v0 env() 4p"] = lambda: tri_palki_v0.env(num_players=4)
    envs["tri_palki_v0 raw_env() 4p"] = lambda: tri_palki_v0.raw_env(num_players=4)
    return envs


def run(factory: Callable[[], Any], seconds: float, seed: int) -> tuple[float, float]:
    """Steps per second and episodes per second of random legal play for ``seconds``."""
    env = factory()
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    episode_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=episode_seed)
        episode_seed += 1
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        episodes += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, episodes / elapsed


def memory_per_instance(factory: Callable[[], Any], count: int = 50) -> float:
    """Bytes allocated per reset environment instance (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    envs = []
    for i in range(count):
        env = factory()
        env.reset(seed=i)
        envs.append(env)
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del envs
    return used / count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="time per environment (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    from rich.console import Console
    from rich.table import Table

    results: dict[str, tuple[float, float, float | None]] = {}
    for name, factory in {**_peers(), **_ours()}.items():
        steps, episodes = run(factory, args.seconds, args.seed)
        memory = None if args.no_memory else memory_per_instance(factory)
        results[name] = (steps, episodes, memory)

    leduc_env = results["leduc_holdem_v4 env()"][0]
    leduc_raw = results["leduc_holdem_v4 raw_env()"][0]
    texas_env = results["texas_holdem_v4 env()"][0]
    texas_raw = results["texas_holdem_v4 raw_env()"][0]
    table = Table(title=f"Random legal play through the AEC loop, {args.seconds:g} s each")
    for column in (
        "environment",
        "steps/s",
        "µs/step",
        "episodes/s",
        "× leduc",
        "× texas",
        "KiB/instance",
    ):
        table.add_column(column, justify="right" if column != "environment" else "left")
    for name, (steps, episodes, memory) in results.items():
        raw = "raw_env" in name
        table.add_row(
            name,
            f"{steps:,.0f}",
            f"{1e6 / steps:.1f}",
            f"{episodes:,.0f}",
            f"{steps / (leduc_raw if raw else leduc_env):.2f}",
            f"{steps / (texas_raw if raw else texas_env):.2f}",
            "-" if memory is None else f"{memory / 1024:.1f}",
        )
    Console(width=140).print(table)
    print("Ratios compare env() with the peer's env() and raw_env() with the peer's raw_env().")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
