"""Speed of open-hand table generation (``folkcards tables``): deals per second at 1 and 2 workers.

Each run solves ``--deals`` deals of a fresh table (seed ``--seed`` plus the repeat number, so no
run reuses another's deals) into a temporary file with ``workers`` local processes, and reports
the wall-clock deals per second; with one worker also the CPU time per deal of this process (what
a deal costs on an idle core). The first, untimed run loads (or compiles) the solver's kernels.
Repeats give the median and the spread; the ratio of the medians is the parallel speed-up.

    python benchmarks/tables_speed.py --deals 64 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from folkcards.search import paston_table_maker as tables


def one_run(deals: int, seed: int, workers: int, folder: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for one table."""
    out = folder / f"t_{seed}_{workers}.table"
    wall, cpu = time.perf_counter(), time.process_time()
    tables.generate(out, deals, seed, workers=workers, chunk=max(1, deals // (4 * workers)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out.unlink()
    return wall, cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=64, help="deals per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per worker count")
    parser.add_argument("--seed", type=int, default=100, help="first seed")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tables.generate(folder / "warm.table", 2, 0)  # load the kernels
        rates: dict[int, list[float]] = {}
        cpu_per_deal: list[float] = []
        for r in range(args.repeats):
            for workers in args.workers:  # interleaved, so both see the same machine load
                wall, cpu = one_run(args.deals, args.seed + r, workers, folder)
                rates.setdefault(workers, []).append(args.deals / wall)
                if workers == 1:
                    cpu_per_deal.append(cpu / args.deals)
    print(f"{args.deals} deals per run, {args.repeats} runs each (wall clock)")
    for workers, values in rates.items():
        spread = f"{min(values):.2f}..{max(values):.2f}"
        print(f"  workers={workers}: {statistics.median(values):.2f} deals/s  (runs {spread})")
    if cpu_per_deal:
        print(f"  CPU per deal, one worker: {1000 * statistics.median(cpu_per_deal):.0f} ms")
    if 1 in rates and len(rates) > 1:
        base = statistics.median(rates[1])
        for workers, values in rates.items():
            if workers != 1:
                print(f"  speed-up x{workers}: {statistics.median(values) / base:.2f}")


if __name__ == "__main__":
    main()
