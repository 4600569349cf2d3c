"""Where PIMC's strategy fusion costs most in Paston card play: a census over played deals.

Plays ``--deals`` deals with the same agent in every seat (default ``expert:fusion=2``: every
seat's cards corrected) and, at every card decision the correction looked at, records the
fusion cost of each legal card (:mod:`folkcards.search.paston_fused_play`: what plain PIMC
over-credits a card for choosing the next card per world) and whether the corrected choice
differs from plain PIMC's. Prints, by role (declarer, sole defender, one of two defenders)
and by tricks left: the decisions, the share where some card had a cost, the mean cost of the
card plain PIMC would play, the share of decisions where the choice changed, and the time.

    python benchmarks/paston_fusion_census.py --deals 40 --seed 5
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
from rich.console import Console
from rich.table import Table
from tqdm import tqdm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40, help="deals to play (default 40)")
    parser.add_argument("--seed", type=int, default=5, help="first deal's seed (default 5)")
    parser.add_argument(
        "--agent",
        default="expert:fusion=2",
        help="agent spec with fusion=1 or 2 (default %(default)s)",
    )
    args = parser.parse_args()
    if args.deals < 1:
        parser.error("--deals must be at least 1")

    from folkcards.agents import make_agent
    from folkcards.agents.episode import play_episode
    from folkcards.envs import paston_v0

    env = paston_v0.raw_env()
    rows: dict[tuple[str, str], list[tuple[bool, float, bool]]] = defaultdict(list)
    start = time.perf_counter()
    for deal in tqdm(range(args.deals), desc="deals", unit="deal"):
        table = [make_agent(args.agent, "paston", f"player_{i}", seed=i) for i in range(3)]
        if not hasattr(table[0], "last_fusion") or table[0].params.fusion == 0:
            parser.error(f"{args.agent!r} is not a pimc-based agent with fusion=1 or 2")

        def note(decision, table=table):
            agent = table[int(decision.agent[-1])]
            fusion = agent.last_fusion
            if fusion is None:
                return
            role = (
                "declarer" if fusion.declaring else "sole defender" if fusion.sole else "defender"
            )
            left = "7-10" if fusion.tricks_left > 6 else "5-6" if fusion.tricks_left > 4 else "3-4"
            costly = max(fusion.cost.values()) > 1e-9
            rows[(role, left)].append(
                (costly, fusion.cost[fusion.plain], fusion.chosen != fusion.plain)
            )
            agent.last_fusion = None

        play_episode(env, table, seed=args.seed + deal, on_action=note)
    elapsed = time.perf_counter() - start

    report = Table(
        title=f"strategy fusion in {args.deals} deals of {args.agent} (seed {args.seed})"
    )
    for column in (
        "role",
        "tricks left",
        "decisions",
        "some card costs",
        "cost of plain's card",
        "choice changed",
    ):
        report.add_column(column, justify="right")
    for (role, left), items in sorted(rows.items()):
        costly, cost, changed = (np.array(x, dtype=float) for x in zip(*items, strict=True))
        report.add_row(
            role,
            left,
            str(len(items)),
            f"{costly.mean():.1%}",
            f"{cost.mean():.2f}",
            f"{changed.mean():.1%} ({int(changed.sum())})",
        )
    everything = [item for items in rows.values() for item in items]
    if everything:
        changes = sum(item[2] for item in everything)
        report.caption = (
            f"{len(everything)} corrected decisions, {changes} changed; {elapsed:.0f} s. "
            "Cost: table score of the mover, mean over the decisions."
        )
    Console().print(report)


if __name__ == "__main__":
    main()
