"""Paston ``pimc`` / ``expert`` with the solver's table kept from call to call, or cleared.

The agents' solver keeps its transposition table between calls (``PastonSolver(keep_table=
True)``: entries are exact bounds keyed by the cards, so the values, and so every decision, are
the same). This plays the same deals both ways, alternating within every repeat (kept, cleared,
then cleared, kept) so that a change in the machine's load falls on both, checks that the two
ways made the same moves, and prints the agents' total decision time per way (median of the
repeats with the lowest and highest run) and the ratio.

    python benchmarks/pimc_solver_table.py                       # pimc, 6 deals, 3 repeats
    python benchmarks/pimc_solver_table.py --agent expert --deals 10 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from folkcards.agents import make_agent
from folkcards.envs.paston.env import raw_env


def play(spec: str, keep: bool, seeds: range) -> tuple[float, list[int]]:
    """Seconds inside ``act`` over the deals, and every move made."""
    env = raw_env()
    seconds, moves = 0.0, []
    for seed in seeds:
        env.reset(seed=seed)
        agents = {a: make_agent(spec, "paston", a, seed=i) for i, a in enumerate(env.agents)}
        for agent in agents.values():
            agent.solver.keep_table = keep
        while not all(env.terminations.values()):
            name = env.agent_selection
            observation = env.observe(name)
            started = time.perf_counter()
            move = agents[name].act(observation)
            seconds += time.perf_counter() - started
            moves.append(int(move))
            env.step(move)
    return seconds, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="pimc", help="a Paston pimc or expert spec")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=200)
    args = parser.parse_args()
    seeds = range(args.seed, args.seed + args.deals)
    play(args.agent, True, range(1))  # loads the compiled code
    times: dict[bool, list[float]] = {True: [], False: []}
    moves: dict[bool, list[int]] = {}
    for repeat in range(args.repeats):
        for keep in (True, False) if repeat % 2 == 0 else (False, True):
            seconds, made = play(args.agent, keep, seeds)
            times[keep].append(seconds)
            if moves.setdefault(keep, made) != made:
                raise SystemExit("the same way made different moves in two repeats")
    if moves[True] != moves[False]:
        raise SystemExit("keeping the table changed a move: it must not")
    print(f"load average {os.getloadavg()[0]:.1f}; {args.agent}, {args.deals} deals, "
          f"{len(moves[True])} decisions, the same moves both ways")  # fmt: skip
    for keep, label in ((True, "table kept"), (False, "table cleared")):
        values = times[keep]
        print(f"  {label:14} {statistics.median(values):7.2f} s "
              f"[{min(values):.2f}, {max(values):.2f}]")  # fmt: skip
    ratio = statistics.median(times[False]) / statistics.median(times[True])
    print(f"  cleared / kept: {ratio:.2f}")


if __name__ == "__main__":
    main()
