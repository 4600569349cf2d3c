"""Decisions per second of the Tri Palki heuristic and its features: per game vs batched.

The decisions are real ones: observations and masks of the seats to act in games played through
the vector env (a seeded mix of heuristic and random moves). Per game: ``TriPalkiHeuristicAgent
.act`` (and ``features.tri_palki_actions``) called row by row, as the single-seat env does. Batched:
``BatchedTriPalkiHeuristic(n).act`` (and ``tri_palki_actions_batch``) on ``M`` rows at once
(batches of 64 rows or more run on two threads). Each figure is the median of ``--repeats`` timed
runs of at least ``--seconds`` each, with the slowest and fastest run; wall clock, so other
processes on the same cores lower it (the load average is printed with the table).

    python benchmarks/heuristic_batched_tri_palki.py --players 4 --sizes 1 64 4096
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from folkcards.agents.features import tri_palki_actions
from folkcards.agents.tri_palki_heuristic import TriPalkiHeuristicAgent
from folkcards.agents.tri_palki_heuristic_batched import (
    BatchedTriPalkiHeuristic,
    tri_palki_actions_batch,
)
from folkcards.envs import tri_palki_v0


def sample_decisions(players: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` decisions (observation, mask) from games of mixed heuristic and random play."""
    rng = np.random.default_rng(seed)
    num_envs = 256
    vec = tri_palki_v0.vector_env(num_envs, num_players=players)
    heuristic = BatchedTriPalkiHeuristic(players)
    obs, mask, _ = vec.reset(seed=seed)
    rows, masks = [], []
    while sum(len(r) for r in rows) < count:
        rows.append(obs.copy())
        masks.append(mask.copy())
        legal = np.cumsum(mask, axis=1) > (rng.random(num_envs) * mask.sum(1)).astype(int)[:, None]
        actions = np.where(rng.random(num_envs) < 0.8, heuristic.act(obs, mask), legal.argmax(1))
        obs, mask, *_ = vec.step(actions)
    return np.concatenate(rows)[:count], np.concatenate(masks)[:count]


def rate(run: Callable[[], int], seconds: float, repeats: int) -> tuple[float, float, float]:
    """(median, min, max) of decisions/s over ``repeats`` runs of ``run`` (returns decisions)."""
    run()  # warm-up: compiled code loaded, threads started
    rates = []
    for _ in range(repeats):
        done = 0
        start = time.perf_counter()
        while True:
            done += run()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(done / elapsed)
    return statistics.median(rates), min(rates), max(rates)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 12))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 4096])
    parser.add_argument("--seconds", type=float, default=1.0, help="per timed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--per-game-rows", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if min(args.sizes) < 1:
        parser.error("--sizes must be positive")

    n = args.players
    obs, mask = sample_decisions(n, max(max(args.sizes), args.per_game_rows), args.seed)
    agent = TriPalkiHeuristicAgent()
    heuristic = BatchedTriPalkiHeuristic(n)
    rows = obs[: args.per_game_rows]
    dicts = [{"observation": o, "action_mask": m} for o, m in zip(rows, mask, strict=False)]

    def per_game_act() -> int:
        for observation in dicts:
            agent.act(observation)
        return len(dicts)

    def per_game_features() -> int:
        for row in rows:
            tri_palki_actions(row)
        return len(rows)

    results = [
        ("heuristic", "per game", 1, rate(per_game_act, args.seconds, args.repeats)),
        ("features", "per game", 1, rate(per_game_features, args.seconds, args.repeats)),
    ]
    for size in args.sizes:
        o, m = obs[:size], mask[:size]
        results.append(
            (
                "heuristic", "batched", size,
                rate(lambda o=o, m=m: len(heuristic.act(o, m)), args.seconds, args.repeats),
            )
        )  # fmt: skip
        results.append(
            (
                "features", "batched", size,
                rate(lambda o=o: len(tri_palki_actions_batch(o)), args.seconds, args.repeats),
            )
        )  # fmt: skip

    load = os.getloadavg()
    print(
        f"Tri Palki, {n} players; median (min–max) of {args.repeats} runs of >= {args.seconds} s; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores"
    )
    print(
        f"| {'what':<9} | {'how':<8} | {'M':>5} | {'decisions/s':>12} | {'min–max':>21} | speed-up |"
    )
    print("|---|---|---:|---:|---:|---:|")
    base = {what: med for what, how, _, (med, _, _) in results if how == "per game"}
    for what, how, size, (med, lo, hi) in results:
        size_text = "1" if how == "per game" else str(size)
        print(
            f"| {what:<9} | {how:<8} | {size_text:>5} | {med:>12,.0f} | "
            f"{lo:>9,.0f}–{hi:<11,.0f} | {med / base[what]:>7.1f}× |"
        )


if __name__ == "__main__":
    main()
