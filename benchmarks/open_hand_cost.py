"""What open-hand accuracy adds to a Paston tournament's time.

The same tournament (same agents, deals and seed) is run with the analysis on and off
(``TournamentConfig.open_hand``, the ``--no-open-hand`` flag), each run into a fresh temporary
database so that everything is played; the two alternate within every repeat (on, off, then off,
on) so that a change in the machine's load falls on both. A first untimed run of one deal
loads the compiled code (engine, solver, agents). Each run is timed whole (playing, storing,
the analysis in the workers, the results computed from the database; no report files) in wall
time and in CPU time of this process and its worker processes.

    python benchmarks/open_hand_cost.py                          # heuristic-vs-random and pimc
    python benchmarks/open_hand_cost.py --lineup heuristic,random,random --deals 40 --repeats 5
    python benchmarks/open_hand_cost.py --workers 2

Prints, per line-up, the median of the repeats with the lowest and highest run, the ratio of the
medians (on / off) and the analysis' share of the tournament's time ((on − off) / on). The
machine's load average is printed too: read the spread before the ratio on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from folkcards.evaluate.config import load_config
from folkcards.evaluate.running.runner import run

LINEUPS = {  # line-up -> deals per run (each deal is 6 seatings of the 3 agents)
    "heuristic,random,random": 30,
    "pimc,heuristic,random": 3,
}


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def timed_run(
    agents: list[str], deals: int, seed: int, workers: int, open_hand: bool
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole tournament in a fresh database."""
    with tempfile.TemporaryDirectory() as folder:
        config = load_config(
            None,
            {"game": "paston", "agents": agents, "deals": deals, "seed": seed, "workers": workers,
             "out": str(Path(folder) / "t")},
        )  # fmt: skip
        config = replace(config, open_hand=open_hand)
        cpu, wall = _cpu(), time.perf_counter()
        results = run(config, progress=False, log=lambda _: None, bootstrap=0)
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    assert (results["open_hand"] is not None) == open_hand
    return wall, cpu


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):7.2f} s [{min(values):.2f}, {max(values):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lineup", action="append", help="agents, comma-separated (repeatable)")
    parser.add_argument("--deals", type=int, help="deals per run (default: per line-up)")
    parser.add_argument("--repeats", type=int, default=3, help="pairs of runs (default 3)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    lineups = args.lineup or list(LINEUPS)
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores, {args.workers} workers")
    for lineup in lineups:
        agents = lineup.split(",")
        deals = args.deals or LINEUPS.get(lineup, 10)
        timed_run(agents, 1, args.seed + 1, 1, True)  # loads the compiled code
        times: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for repeat in range(args.repeats):
            order = (True, False) if repeat % 2 == 0 else (False, True)
            for analyse in order:
                times[analyse].append(timed_run(agents, deals, args.seed, args.workers, analyse))
        print(f"\n{lineup}: {deals} deals x 6 seatings = {deals * 6} episodes, "
              f"{args.repeats} repeats")  # fmt: skip
        for index, what in ((0, "wall"), (1, "CPU")):
            on = [t[index] for t in times[True]]
            off = [t[index] for t in times[False]]
            m_on, m_off = statistics.median(on), statistics.median(off)
            print(
                f"  {what:4}  on {_spread(on)}   off {_spread(off)}   on/off {m_on / m_off:.2f}"
                f"   analysis {100 * (m_on - m_off) / m_on:.0f}% of the tournament, "
                f"{1000 * (m_on - m_off) / (deals * 6):.1f} ms per episode"
            )


if __name__ == "__main__":
    main()
