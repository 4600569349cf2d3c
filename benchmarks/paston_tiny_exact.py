"""Exact exploitability on Paston tiny: NashConv of random, the heuristic and CFR+ (OpenSpiel).

    python benchmarks/paston_tiny_exact.py                        # the stored result: the whole game
    python benchmarks/paston_tiny_exact.py --given player_1=AS,KC --out runs/p1.json --plot runs/p1.png

The game is ``folkcards_paston_tiny`` (dealer seat 0): every one of its 630 deals with its
auction, discard, contract, defence and play. The binding's tree is walked once and written as
OpenSpiel's native extensive-form game (:mod:`folkcards.openspiel.efg`); CFR+, NashConv and each
seat's best response run in C++ on it. ``--given`` fixes the hands of some seats
(``SEAT=CARD,CARD``, repeatable; ``none``, the default, deals every card): the other cards are
dealt as the whole deal deals them, which leaves a smaller game of the same rules. Writes the
result as JSON (``--out``, by default ``docs/results/paston_tiny_exact.json``, which
``scripts/figures.py`` reads) and the CFR+ convergence curve as a PNG (``--plot``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from folkcards.envs.cards import PASTON_CARDS
from folkcards.envs.paston.chance import PastonTinyChance
from folkcards.openspiel import load_game
from folkcards.openspiel.efg import export
from folkcards.openspiel.exact import (
    agent_policy,
    best_response_gains,
    plot_cfr_curve,
    solve_cfr_plus,
    uniform_policy,
)

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = (1, 5, 20, 50, 100, 200, 500, 1000)
SEATS = {"player_0": 0, "player_1": 1, "player_2": 2, "prikup": 3}


def parse_given(items: list[str]) -> dict[int, int]:
    """``["player_1=AS,KC", ...]`` as {card id: place}; ``["none"]`` gives nothing."""
    if items == ["none"]:
        return {}
    given: dict[int, int] = {}
    for item in items:
        seat, _, cards = item.partition("=")
        if seat not in SEATS or not cards:
            raise ValueError(f"--given takes SEAT=CARD,CARD with SEAT in {', '.join(SEATS)}")
        for card in cards.split(","):
            given[PASTON_CARDS.card_id(card)] = SEATS[seat]
    return given


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--given",
        action="append",
        help="a seat's given hand, SEAT=CARD,CARD (repeatable; 'none' deals every card)",
    )
    parser.add_argument("--iterations", type=int, default=50, help="CFR+ iterations")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/paston_tiny_exact.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs/results/paston_tiny_cfr.png")
    parser.add_argument(
        "--policy-out",
        type=Path,
        help="save the CFR+ average policy here (JSON; openspiel:policy=PATH plays it)",
    )
    raw_args = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(raw_args)
    if args.iterations < 1:
        parser.error("--iterations must be positive")
    try:
        given = parse_given(args.given or ["none"])
        chance = PastonTinyChance.given_cards(given)
    except ValueError as error:
        parser.error(str(error))

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)

    python_game = load_game("paston_tiny")
    python_game.chance = chance  # the states deal with the given hands
    start = time.perf_counter()
    log("walking the tree into OpenSpiel's extensive form ...")
    tree = export(python_game, progress=lambda n: log(f"{n:,} histories walked"))
    states = tree.states
    walk_seconds = time.perf_counter() - start
    log(f"{tree.histories:,} histories, {len(states):,} information states ({walk_seconds:.0f} s)")
    checkpoints = [c for c in CHECKPOINTS if c <= args.iterations]
    start = time.perf_counter()
    cfr_policy, curve = solve_cfr_plus(
        tree.game,
        args.iterations,
        checkpoints,
        progress=lambda i, v: log(f"CFR+ iteration {i}: NashConv {v:.6f}"),
    )
    solve_seconds = time.perf_counter() - start
    if args.policy_out is not None:
        from folkcards.openspiel.agents import save_policy

        args.policy_out.parent.mkdir(parents=True, exist_ok=True)
        save_policy(tree.binding_policy(cfr_policy), args.policy_out)
        log(f"wrote {args.policy_out}")
    rows = []
    policies = {
        "random": tree.policy(uniform_policy(states)),
        "heuristic": tree.policy(agent_policy("heuristic", python_game, states)),
        f"cfr+ ({args.iterations} iterations)": cfr_policy,
    }
    for name, policy in policies.items():
        gains = best_response_gains(tree.game, policy)
        value = sum(gains)  # NashConv: what a best response gains in each seat, summed
        rows.append(
            {
                "agent": name,
                "nash_conv": value,
                "exploitability": value / 3,
                **{f"gain_{seat}": gain for seat, gain in zip(SEATS, gains, strict=False)},
            }
        )
        log(f"{name}: NashConv {value:.6f}; gains by seat {[round(g, 4) for g in gains]}")
    result = {
        "game": "paston_tiny",
        "params": {
            "dealer": 0,
            "given": {PASTON_CARDS.name(card): place for card, place in sorted(given.items())},
        },
        "command": " ".join(["python benchmarks/paston_tiny_exact.py", *raw_args]),
        "histories": tree.histories,
        "information_states": len(states),
        "walk_seconds": round(walk_seconds, 1),
        "solve_seconds": round(solve_seconds, 1),
        "machine": platform.machine(),
        "rows": rows,
        "cfr_curve": [
            {"iteration": i, "nash_conv": v, "seconds": round(s, 2)} for i, v, s in curve
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")
    plot_cfr_curve(curve, args.plot, "table points", "CFR+ on Paston tiny")
    log(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
