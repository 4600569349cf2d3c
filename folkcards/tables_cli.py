"""``folkcards tables``: solve a Paston open-hand table (:mod:`folkcards.envs.paston_bidding.tables`)."""

from __future__ import annotations

import argparse
import sys
import time

DESCRIPTION = (
    "Solve the open-hand result of every declarer, reachable contract and defence of N fixed "
    "Paston deals into a versioned, checksummed table file (docs/bidding_benchmark.md). "
    "Resumable: run the same command again after an interruption. The file depends only on "
    "--deals and --seed."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deals", type=int, required=True, help="how many deals")
    p.add_argument("--seed", type=int, required=True, help="the deals' seed (deal i: [seed, i])")
    p.add_argument("--out", required=True, help="the table file to write")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="local processes or Ray"
    )
    p.add_argument("--address", default=None, help="Ray cluster address (default: local Ray)")
    p.add_argument(
        "--chunk", type=int, default=None, help="deals per saved chunk (default 16; resume unit)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def tables_from_args(args: argparse.Namespace) -> int:
    """Run ``folkcards tables``; bad input is one line on stderr and exit code 2."""
    from folkcards.envs.paston_bidding import tables
    from folkcards.search import paston_table_maker

    start = time.perf_counter()
    bar = None
    if not args.quiet:
        from tqdm import tqdm

        bar = tqdm(total=args.deals, unit="deal", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.n = done
            bar.refresh()

    try:
        path = paston_table_maker.generate(
            args.out,
            args.deals,
            args.seed,
            workers=args.workers,
            backend=args.backend,
            chunk=args.chunk if args.chunk is not None else tables.DEFAULT_CHUNK,
            address=args.address,
            progress=progress,
        )
    except ValueError as error:
        if bar is not None:
            bar.close()
        print(f"folkcards tables: {error}", file=sys.stderr)
        return 2
    if bar is not None:
        bar.close()
    elapsed = time.perf_counter() - start
    print(f"{path}: {args.deals} deals, sha256 {tables.file_sha256(path)} ({elapsed:.1f} s)")
    return 0
