"""Tri Palki ``pimc`` decision time against opponents unlike the heuristic.

``pimc`` sits in seat 0; the other seats are players of one style from
``tests/agents/tri_palki_styles.py`` (rarely pass, swap back and forth, swap all three often,
keep rounds going towards ``max_turns``) or the package's heuristic. Every pimc decision with a
choice is timed (wall clock around ``act``, after one warm-up round that loads the compiled
code) and its counted work is kept (``agent.work``: reconstruction candidates, likelihood
steps, rollout actions). Rounds are seeded ``seed, seed + 1, ...``; ``--repeats`` runs
everything again to show the spread of the timings (the work counts repeat exactly).

    python benchmarks/pimc_decision_time.py                      # 3, 4, 6 players, every style
    python benchmarks/pimc_decision_time.py --players 3 --rounds 4 --spec pimc:samples=16
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root, for tests.*

from tests.agents.tri_palki_styles import STYLES, play_rounds, style_opponents  # noqa: E402


def measure(
    spec: str, style: str, players: int, rounds: int, seed: int, max_turns: int
) -> tuple[list[float], list[dict[str, int]], int]:
    """Seconds and work of each pimc decision with a choice; the likelihood cuts."""
    opponents = style_opponents(style, players, seed)
    seconds: list[float] = []
    work: list[dict[str, int]] = []
    cuts = 0
    for agent, obs, _, took in play_rounds(
        spec, opponents, range(seed, seed + rounds), seed, max_turns
    ):
        if int(np.sum(obs["action_mask"])) > 1:
            seconds.append(took)
            work.append(dict(agent.work))
            cuts += agent.kept_steps is not None
    return seconds, work, cuts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="pimc")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--styles", nargs="+", default=[*STYLES, "heuristic"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-turns", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    measure(args.spec, "rare_pass", 3, 1, args.seed + 999, 50)  # warm-up: load compiled code
    print(
        f"{args.spec}, {args.rounds} rounds per cell, max_turns {args.max_turns}, seed {args.seed}"
    )
    print(
        "players  style           decisions  median s  p95 s   max s   "
        "max likelihood  max reconstruction  max rollout  cut"
    )
    for _ in range(args.repeats):
        for players in args.players:
            for style in args.styles:
                seconds, work, cuts = measure(
                    args.spec, style, players, args.rounds, args.seed, args.max_turns
                )
                t = np.array(seconds)
                top = {k: max((w[k] for w in work), default=0) for k in work[0]} if work else {}
                print(
                    f"{players:7d}  {style:14s}  {len(t):9d}  {np.median(t):8.3f}  "
                    f"{np.percentile(t, 95):6.3f}  {t.max():6.3f}  "
                    f"{top.get('likelihood', 0):14d}  {top.get('reconstruction', 0):18d}  "
                    f"{top.get('rollout', 0):11d}  {cuts:3d}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
