"""Decisions per second of the Tri Palki heuristic and its features: per game vs batched.

The decisions are real ones: observations and masks of the seats to act in games played through
the vector env (a seeded mix of heuristic and random moves). Per game:
``TriPalkiHeuristicAgent.act`` (and ``features.tri_palki_actions``) called row by row, as the
single-seat env does. Batched:
``BatchedTriPalkiHeuristic(n).act`` (and ``tri_palki_actions_batch``) on ``M`` rows at once
(batches of 64 rows or more run on two threads). Each figure is the median of ``--repeats`` timed
runs of at least ``--seconds`` each, with the slowest and fastest run; wall clock, so other
processes on the same cores lower it (the load average is printed with the table; decisions per
CPU-second, all threads counted, are less affected).

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
    rows: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    while len(rows) * num_envs < count:
        rows.append(obs.copy())
        masks.append(mask.copy())
        legal = np.cumsum(mask, axis=1) > (rng.random(num_envs) * mask.sum(1)).astype(int)[:, None]
        actions = np.where(rng.random(num_envs) < 0.8, heuristic.act(obs, mask), legal.argmax(1))
        obs, mask, *_ = vec.step(actions)
    order = rng.permutation(len(rows) * num_envs)[:count]  # every batch size gets a mix of stages
    return np.concatenate(rows)[order], np.concatenate(masks)[order]


def rate(run: Callable[[], int], seconds: float, repeats: int) -> tuple[float, ...]:
    """(median, min, max) of decisions/s over ``repeats`` runs of ``run`` (which returns how many
    decisions it made), and the median decisions per CPU-second (all threads)."""
    run()  # warm-up: compiled code loaded, threads started
    rates, cpu_rates = [], []
    for _ in range(repeats):
        done = 0
        start, cpu_start = time.perf_counter(), time.process_time()
        while True:
            done += run()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(done / elapsed)
        cpu_rates.append(done / max(time.process_time() - cpu_start, 1e-9))
    return statistics.median(rates), min(rates), max(rates), statistics.median(cpu_rates)


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

    def batched_act(size: int) -> Callable[[], int]:
        return lambda: len(heuristic.act(obs[:size], mask[:size]))

    def batched_features(size: int) -> Callable[[], int]:
        return lambda: len(tri_palki_actions_batch(obs[:size]))

    results = [
        ("heuristic", "per game", 1, rate(per_game_act, args.seconds, args.repeats)),
        ("features", "per game", 1, rate(per_game_features, args.seconds, args.repeats)),
    ]
    for size in args.sizes:
        results.append(
            ("heuristic", "batched", size, rate(batched_act(size), args.seconds, args.repeats))
        )
        results.append(
            ("features", "batched", size, rate(batched_features(size), args.seconds, args.repeats))
        )

    load = os.getloadavg()
    print(
        f"Tri Palki, {n} players; median (min–max) of {args.repeats} runs of >= {args.seconds} s; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores"
    )
    print("| what | how | M | decisions/s | min–max | per CPU-second | speed-up |")
    print("|---|---|---:|---:|---:|---:|---:|")
    base = {what: r[0] for what, how, _, r in results if how == "per game"}
    for what, how, size, (med, lo, hi, cpu) in results:
        print(
            f"| {what} | {how} | {size} | {med:,.0f} | {lo:,.0f}–{hi:,.0f} | {cpu:,.0f} "
            f"| {med / base[what]:.1f}× |"
        )


if __name__ == "__main__":
    main()
