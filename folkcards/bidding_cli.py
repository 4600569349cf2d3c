"""``folkcards bidding``: the Paston bidding benchmark (docs/bidding_benchmark.md).

``folkcards bidding evaluate --agent SPEC`` prints an agent's benchmark row on the held-out
table deals (:mod:`folkcards.evaluate.benchmarks.bidding`); ``folkcards bidding information`` prints how
much a model of the bidder improves the belief sampler's worlds
(:mod:`folkcards.evaluate.benchmarks.bidding_information`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

DESCRIPTION = (
    "The Paston bidding benchmark on open-hand tables (docs/bidding_benchmark.md): evaluate a "
    "bidder on the held-out deals, or measure what the auction tells the belief sampler."
)
EVALUATE_DESCRIPTION = (
    "Evaluate an agent's bidding on the held-out open-hand table deals (default: the table "
    "shipped with the package, seed 2025) with duplicate seating: every deal once with the "
    "agent in each seat and the reference bidder (the heuristic) in the other two, once with "
    "the reference everywhere; the deal scored by table lookup. Prints the benchmark row: the "
    "mean table score per deal and the advantage over the reference, 95%% intervals paired by "
    "deal."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="bidding_command", metavar="COMMAND")
    e = sub.add_parser(
        "evaluate", help="an agent's benchmark row", description=EVALUATE_DESCRIPTION
    )
    e.add_argument("--agent", required=True, help="an agent spec (make_agent), e.g. pimc, ppo:FILE")
    _table_arguments(e)
    e.add_argument("--seed", type=int, default=0, help="the agents' seed (default 0)")
    e.add_argument(
        "--reference", default="heuristic", help="the bidder in the other seats (default heuristic)"
    )
    e.add_argument("--json", dest="json_out", default=None, help="also write the result as JSON")
    e.add_argument(
        "--against",
        default=None,
        help="another run's --json file on the same deals: also print the difference, paired by "
        "deal",
    )
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.set_defaults(bidding_func=evaluate_from_args)
    i = sub.add_parser(
        "information",
        help="how much a model of the bidder improves the sampler's worlds",
        description="For the declarer of held-out table deals, as seen by a defender after the "
        "auction: how well the belief sampler's worlds predict the declarer's hand, drawn "
        "uniformly, or weighted by the likelihood of the auction under a model of the bidder "
        "(the heuristic, a trained bidder). One table with 95%% intervals over deals.",
    )
    _table_arguments(i)
    i.add_argument("--worlds", type=int, default=200, help="worlds sampled per deal (default 200)")
    i.add_argument("--seed", type=int, default=0, help="the sampler's seed (default 0)")
    i.add_argument(
        "--bidder", default="heuristic", help="who bids at the table (default heuristic)"
    )
    i.add_argument(
        "--models",
        default="heuristic,ppo",
        help="comma-separated agent specs weighting the worlds (default heuristic,ppo)",
    )
    i.add_argument("--epsilon", type=float, default=0.1, help="each modelled call mixed with a "
                   "uniform choice by this much (default 0.1)")  # fmt: skip
    i.add_argument("--json", dest="json_out", default=None, help="also write the result as JSON")
    i.add_argument("--quiet", action="store_true", help="no progress bar")
    i.set_defaults(bidding_func=information_from_args)


def _table_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", default=None, help="an open-hand table file (default: shipped)")
    p.add_argument("--deals", type=int, default=None, help="how many deals (default: all)")
    p.add_argument("--first", type=int, default=0, help="the first deal's index (default 0)")


def bidding_from_args(args: argparse.Namespace) -> int:
    func = getattr(args, "bidding_func", None)
    if func is None:
        print("folkcards bidding: choose a command: evaluate or information", file=sys.stderr)
        return 2
    return int(func(args))


@contextlib.contextmanager
def _deal_progress(quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """The ``(done, total)`` callback a bidding measurement reports to: the package's progress
    bar on a terminal, progress lines off one (:func:`folkcards.evaluate.running.progress.progress`),
    opened at the first report, when the number of deals is known; ``None`` when ``quiet``."""
    if quiet:
        yield None
        return
    from folkcards.evaluate.running.progress import progress

    with contextlib.ExitStack() as stack:
        advance: list[Callable[[int], None]] = []
        reported = [0]

        def report(done: int, total: int) -> None:
            if not advance:
                advance.append(stack.enter_context(progress("bidding", total, "deals")))
            advance[0](done - reported[0])
            reported[0] = done

        yield report


def evaluate_from_args(args: argparse.Namespace) -> int:
    """Run ``folkcards bidding evaluate``; bad input is one line on stderr and exit code 2."""
    from folkcards.evaluate.benchmarks.bidding import (
        HEADER,
        evaluate_bidding,
        paired_difference,
        read_results,
        write_results,
    )

    try:
        other = read_results(args.against) if args.against else None
    except ValueError as error:
        print(f"folkcards bidding evaluate: {error}", file=sys.stderr)
        return 2
    try:
        with _deal_progress(args.quiet) as report:
            result = evaluate_bidding(
                args.agent,
                tables=args.tables,
                deals=args.deals,
                first=args.first,
                seed=args.seed,
                reference=args.reference,
                progress=report,
            )
    except ValueError as error:
        print(f"folkcards bidding evaluate: {error}", file=sys.stderr)
        return 2
    print(
        f"{result.deals} deals of {result.table} (seed {result.table_seed}) from {result.first}, "
        f"every seat, reference {result.reference} "
        f"({result.reference_score.mean:+.2f} per deal)"
    )
    print(HEADER)
    print("|---|---|---|---|---|")
    print(result.row())
    if args.json_out:
        write_results(result, args.json_out)
    if other is not None:
        try:
            diff = paired_difference(result, other)
        except ValueError as error:
            print(f"folkcards bidding evaluate: {error}", file=sys.stderr)
            return 2
        print(
            f"{result.agent} minus {other['agent']} on the same deals: {diff.mean:+.2f} "
            f"[{diff.low:+.2f}, {diff.high:+.2f}] per deal (95%, paired by deal)"
        )
    return 0


def information_from_args(args: argparse.Namespace) -> int:
    """Run ``folkcards bidding information``; bad input is one line and exit code 2."""
    from folkcards.evaluate.benchmarks.bidding_information import (
        measure_information,
        write_information,
    )

    try:
        with _deal_progress(args.quiet) as report:
            result = measure_information(
                tables=args.tables,
                deals=args.deals,
                first=args.first,
                worlds=args.worlds,
                seed=args.seed,
                bidder=args.bidder,
                models=[m for m in args.models.split(",") if m],
                epsilon=args.epsilon,
                progress=report,
            )
    except ValueError as error:
        print(f"folkcards bidding information: {error}", file=sys.stderr)
        return 2
    print(result.markdown())
    if args.json_out:
        write_information(result, args.json_out)
    return 0
