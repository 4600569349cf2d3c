"""Speed of the Paston open-hand solver (``folkcards.search.paston_solver``).

Random full deals (the engine's shuffle and deal, the declarer's two discards at random, a random
trump), with two defenders and with a sole defender. For each deal: ``solve`` from the first lead,
and ``move_values`` at the first lead and at a random later point of random legal play. Prints
median, 95th percentile and maximum per kind, in wall-clock time and in CPU time of this thread
(the CPU column is what the solver costs on an idle core; the wall column also holds whatever else
the machine is running), plus the search nodes.

    python benchmarks/solver_speed.py --deals 200 --seed 0
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from folkcards.envs.paston.rules import random_deal
from folkcards.search.paston_solver import PastonSolver, Position


def random_first_lead(rng: np.random.Generator, sole: bool) -> Position:
    """A random deal at the first lead: declarer's 12 cards less 2 random discards."""
    hands, prikup = random_deal(rng, dealer=int(rng.integers(3)), first_deal=False)
    declarer = int(rng.integers(3))
    full = hands[declarer] | prikup
    cards = [c for c in range(32) if full >> c & 1]
    for card in rng.choice(cards, 2, replace=False):
        full &= ~(1 << int(card))
    hands[declarer] = full
    others = [(declarer + 1) % 3, (declarer + 2) % 3]
    defenders = [others[int(rng.integers(2))]] if sole else others
    return Position.first_lead(hands, int(rng.integers(4)), declarer, defenders)


def random_point(rng: np.random.Generator, position: Position) -> Position:
    """The position after random legal play of 1..(all but the last trick) cards."""
    total = (position.tricks_left - 1) * len(position.active)
    for _ in range(int(rng.integers(1, total + 1))):
        legal = [c for c in range(32) if position.legal_mask() >> c & 1]
        position = position.play(int(rng.choice(legal)))
    return position


def timed(call: Callable[[Position], object], position: Position) -> tuple[float, float]:
    """(wall seconds, thread CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.thread_time()
    call(position)
    return time.perf_counter() - wall, time.thread_time() - cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per kind (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    parser.add_argument(
        "--tt-bits", type=int, default=18, help="log2 of the table size (default 18)"
    )
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")

    solver = PastonSolver(tt_bits=args.tt_bits)
    start = time.perf_counter()
    solver.solve(random_first_lead(np.random.default_rng(12345), sole=False))
    print(f"first call (compile or load the numba cache): {time.perf_counter() - start:.1f} s")

    rows = []
    for sole in (False, True):
        rng = np.random.default_rng([args.seed, int(sole)])
        label = "sole defender" if sole else "two defenders"
        samples: dict[str, list[tuple[float, float, int]]] = {
            "solve, first lead": [],
            "move_values, first lead": [],
            "move_values, random point": [],
        }
        for _ in range(args.deals):
            position = random_first_lead(rng, sole)
            later = random_point(rng, position)
            jobs: list[tuple[str, Callable[[Position], object], Position]] = [
                ("solve, first lead", solver.solve, position),
                ("move_values, first lead", solver.move_values, position),
                ("move_values, random point", solver.move_values, later),
            ]
            for kind, call, where in jobs:
                wall, cpu = timed(call, where)
                samples[kind].append((wall, cpu, solver.nodes))
        for kind, values in samples.items():
            arr = np.array(values)
            wall_ms, cpu_ms, nodes = arr[:, 0] * 1e3, arr[:, 1] * 1e3, arr[:, 2]
            rows.append(
                (
                    f"{label}: {kind}",
                    *(np.percentile(wall_ms, q) for q in (50, 95, 100)),
                    *(np.percentile(cpu_ms, q) for q in (50, 95, 100)),
                    np.median(nodes),
                )
            )

    header = (
        f"{'kind (' + str(args.deals) + ' deals each)':<44} {'wall ms: median':>15} {'p95':>7} "
        f"{'max':>8} {'cpu ms: median':>15} {'p95':>7} {'max':>8} {'nodes med':>10}"
    )
    print(header)
    print("-" * len(header))
    for name, w50, w95, wmax, c50, c95, cmax, nodes in rows:
        print(
            f"{name:<44} {w50:>15.2f} {w95:>7.1f} {wmax:>8.1f} {c50:>15.2f} {c95:>7.1f} "
            f"{cmax:>8.1f} {nodes:>10.0f}"
        )


if __name__ == "__main__":
    main()
