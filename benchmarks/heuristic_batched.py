"""Decisions per second of the Paston heuristic: per game (``PastonHeuristicAgent.act``) against
the batched form (``BatchedPastonHeuristic.act``) on batches of M = 1, 64 and 4,096 decisions.

The decisions are a fixed pool of states from games played through ``paston_v0.vector_env``
with the heuristic at every seat and a random action 15% of the time (every phase in the mix a
training opponent meets). Each figure is the median of ``--repeats`` timed runs of about
``--seconds`` each, with the lowest and highest run; the batched figures are wall clock and
use the batched engines' threads (``folkcards.envs._batched.THREADS``) from M = 64 on.

    python benchmarks/heuristic_batched.py --repeats 5 --seconds 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter

import numpy as np
from folkcards.agents.paston_heuristic import PastonHeuristicAgent
from folkcards.agents.paston_heuristic_batched import BatchedPastonHeuristic
from folkcards.envs import paston_v0
from folkcards.envs._batched import THREADS
from folkcards.envs.paston.observation import OFFSETS
from folkcards.envs.paston.vocabulary import PHASE_NAMES


def decision_pool(size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` decisions (observations, masks) from heuristic play with 15% random actions."""
    batched = BatchedPastonHeuristic()
    vec = paston_v0.vector_env(512)
    obs, mask, _ = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    pool_obs: list[np.ndarray] = []
    pool_mask: list[np.ndarray] = []
    steps = 0
    while sum(o.shape[0] for o in pool_obs) < size:
        actions = batched.act(obs, mask)
        if steps >= 40:  # past the first deals' auctions, so the phases are mixed
            pool_obs.append(obs.copy())
            pool_mask.append(mask.copy())
        random_actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        actions = np.where(rng.random(len(actions)) < 0.15, random_actions, actions)
        obs, mask, *_ = vec.step(actions)
        steps += 1
    order = rng.permutation(sum(o.shape[0] for o in pool_obs))[:size]
    return np.concatenate(pool_obs)[order], np.concatenate(pool_mask)[order]


def rate_per_game(obs: np.ndarray, mask: np.ndarray, seconds: float) -> float:
    agent = PastonHeuristicAgent()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for i in range(count % len(obs), min(count % len(obs) + 200, len(obs))):
            agent.act({"observation": obs[i], "action_mask": mask[i]})
            count += 1
    return count / (time.perf_counter() - start)


def rate_batched(obs: np.ndarray, mask: np.ndarray, rows: int, seconds: float) -> float:
    batched = BatchedPastonHeuristic()
    batches = [(obs[k : k + rows], mask[k : k + rows]) for k in range(0, len(obs), rows)]
    batches = [b for b in batches if len(b[0]) == rows]
    count, calls, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        o, m = batches[calls % len(batches)]
        batched.act(o, m)
        count += rows
        calls += 1
    return count / (time.perf_counter() - start)


def spread(runs: list[float]) -> str:
    return f"{statistics.median(runs):>12,.0f}  ({min(runs):,.0f}–{max(runs):,.0f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 4096])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--pool", type=int, default=16384)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    obs, mask = decision_pool(args.pool, args.seed)
    phases = Counter(
        PHASE_NAMES[int(np.argmax(row[OFFSETS["phase"] : OFFSETS["phase"] + 6]))] for row in obs
    )
    forced = int((np.count_nonzero(mask, axis=1) == 1).sum())
    print(f"pool: {len(obs)} decisions, {dict(phases)}, {forced} forced (one legal action)")
    BatchedPastonHeuristic().act(obs[:2], mask[:2])  # compiled code loaded

    per_game = [rate_per_game(obs, mask, args.seconds) for _ in range(args.repeats)]
    print(f"threads for batches of 64+: {THREADS}; load average {os.getloadavg()[0]:.2f}")
    print(f"median of {args.repeats} runs of {args.seconds:g} s (lowest–highest), decisions/s\n")
    print(f"{'':<24}{'decisions/s':>12}  {'(spread)':<24}{'vs per game':>12}")
    base = statistics.median(per_game)
    print(f"{'per game (act on dict)':<24}{spread(per_game):<38}{1.0:>10.1f}x")
    for rows in args.sizes:
        runs = [rate_batched(obs, mask, rows, args.seconds) for _ in range(args.repeats)]
        label = f"batched, M = {rows}"
        print(f"{label:<24}{spread(runs):<38}{statistics.median(runs) / base:>10.1f}x")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
