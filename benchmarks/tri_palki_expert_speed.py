"""Tri Palki ``expert`` against its Python reference, decision time side by side, repeated.

The shipped ``expert`` (compiled, batched rollouts) and the reference it must decide exactly as
(``pimc:samples=96``: the Python search with the expert's budget) each sit in seat 0 against
the heuristic on the same seeded episodes (``benchmarks/agent_speed.py``'s ``measure``); the two
alternate within every repeat (reference then expert, then expert then reference) so that a
change in the shared machine's load falls on both. Per table size and spec: the median CPU time
per decision of every repeat (``time.process_time`` around ``act``: what it costs on an idle
core), their median and range, and the same for wall time and the 95th percentile.

    python benchmarks/tri_palki_expert_speed.py --repeats 4 --episodes 30 --seed 8100 \\
        --out docs/results/tri_palki_expert_speed.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_speed import measure  # noqa: E402
from folkcards.agents.base import make_agent  # noqa: E402

SPECS = {"reference": "pimc:samples=96", "expert": "expert"}


def run(players: list[int], repeats: int, episodes: int, seed: int) -> dict[str, Any]:
    """Every repeat's median and 95th percentile (ms) per table size and spec."""
    for spec in SPECS.values():
        make_agent(spec, "tri_palki")  # load (and compile) before timing
    rows: dict[str, Any] = {}
    for n in players:
        runs: dict[str, dict[str, list[float]]] = {
            name: {"cpu_median": [], "cpu_p95": [], "wall_median": [], "decisions": []}
            for name in SPECS
        }
        for r in range(repeats):
            order = list(SPECS) if r % 2 == 0 else list(reversed(SPECS))
            for name in order:
                times = measure("tri_palki", SPECS[name], episodes, seed, players=n)
                cpu = np.asarray(times["cpu:all"]) * 1000
                wall = np.asarray(times["all"]) * 1000
                runs[name]["cpu_median"].append(round(float(np.median(cpu)), 3))
                runs[name]["cpu_p95"].append(round(float(np.percentile(cpu, 95)), 3))
                runs[name]["wall_median"].append(round(float(np.median(wall)), 3))
                runs[name]["decisions"].append(len(cpu))
                print(f"{n} players, {name}, repeat {r + 1}/{repeats}: cpu median "
                      f"{runs[name]['cpu_median'][-1]:.1f} ms", flush=True)  # fmt: skip
        rows[str(n)] = runs
    return rows


def summary_line(runs: dict[str, list[float]], key: str) -> str:
    values = runs[key]
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=8100)
    parser.add_argument("--out", help="write the results (JSON) here")
    args = parser.parse_args()
    rows = run(args.players, args.repeats, args.episodes, args.seed)
    print(f"{'players':>7} {'spec':<16} {'cpu median ms (range)':>24} {'cpu p95 ms':>20}")
    for n, runs in rows.items():
        for name, spec in SPECS.items():
            print(f"{n:>7} {spec:<16} {summary_line(runs[name], 'cpu_median'):>24} "
                  f"{summary_line(runs[name], 'cpu_p95'):>20}")  # fmt: skip
    if args.out:
        result = {
            "command": "python benchmarks/tri_palki_expert_speed.py " + " ".join(sys.argv[1:]),
            "date": datetime.date.today().isoformat(),
            "load_average": os.getloadavg()[0],
            "specs": SPECS,
            "episodes": args.episodes,
            "seed": args.seed,
            "repeats": args.repeats,
            "players": rows,
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
