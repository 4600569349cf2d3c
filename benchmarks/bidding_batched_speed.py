"""Decisions per second of the bidding envs, side by side: ``paston_bidding_v0`` (AEC, solving
each played deal) and ``paston_bidding_v0.vector_env`` (batched, scored from an open-hand table).

Both take uniformly random legal actions (drawn outside the timed region for the batched env, as
a policy's output would be) over the same table's deals; each measurement runs ``--seconds`` of
wall time, repeated ``--repeats`` times, interleaved. Prints the median decisions per second, the
spread and the ratio. The AEC env's declarer discards are random here (it lets the agent
choose), which makes its solves no cheaper or dearer on average than the table's pairs.

    python benchmarks/bidding_batched_speed.py --seconds 5 --repeats 3 --batch 1 64 4096
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from folkcards.envs import paston_bidding_v0
from folkcards.envs._batched import random_legal_actions, seed_states


def aec_rate(seconds: float, seed: int, table) -> float:
    env = paston_bidding_v0.raw_env()
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(
            seed=int(rng.integers(2**31)), options=table.deal_option(int(rng.integers(len(table))))
        )
        while not all(env.terminations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def batched_rate(seconds: float, seed: int, batch: int, table) -> float:
    vec = paston_bidding_v0.vector_env(batch, tables=table)
    obs, mask, player = vec.reset(seed=seed)
    actions = np.zeros(batch, dtype=np.int64)
    rng = seed_states(seed + 1, batch)
    decisions = 0
    elapsed = 0.0
    while elapsed < seconds:
        random_legal_actions(mask, rng, actions)
        start = time.perf_counter()
        obs, mask, player, *_ = vec.step(actions)
        elapsed += time.perf_counter() - start
        decisions += batch
    return decisions / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 4096])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tables", default=None, help="table file (default: the shipped one)")
    args = parser.parse_args(argv)
    from folkcards.envs.paston_bidding.tables import load_table, shipped_table_path

    table = load_table(args.tables or shipped_table_path())
    aec_rate(0.5, args.seed, table)  # load the solver's kernels
    batched_rate(0.2, args.seed, 8, table)  # compile the batched kernels
    results: dict[str, list[float]] = {}
    for r in range(args.repeats):
        results.setdefault("AEC (solves)", []).append(aec_rate(args.seconds, args.seed + r, table))
        for batch in args.batch:
            rate = batched_rate(args.seconds, args.seed + r, batch, table)
            results.setdefault(f"batched N={batch}", []).append(rate)
    base = statistics.median(results["AEC (solves)"])
    print(f"decisions per second, median of {args.repeats} runs of {args.seconds:g} s")
    for name, values in results.items():
        median = statistics.median(values)
        print(
            f"  {name:16s} {median:12,.0f}  (runs {min(values):,.0f}..{max(values):,.0f})"
            f"  x{median / base:,.1f}"
        )


if __name__ == "__main__":
    main()
