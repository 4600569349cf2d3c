"""Exact exploitability on Paston tiny: NashConv of random, the heuristic and CFR+ (OpenSpiel).

    python benchmarks/paston_tiny_exact.py                       # the stored result (6 deals)
    python benchmarks/paston_tiny_exact.py --given player_1=AS,KC --out runs/p1.json --plot runs/p1.png
    python benchmarks/paston_tiny_exact.py --given none --out runs/all.json --plot runs/all.png

The game is ``folkcards_paston_tiny`` (dealer seat 0). Its whole tree, every one of the 2,520
deals with its auction, discards, contract, defence and play, has well over ten million
histories: the last command walks it, but OpenSpiel walks a Python game a few hundred
histories a second and keeps every state of the walk in memory (about 17 KB each), so it takes
most of a day and far more memory than a laptop has. ``--given``
fixes the hands of some seats (``SEAT=CARD,CARD``; by default ``player_1=AS,KC`` and
``player_2=7S,JC``): the other cards are dealt as the whole deal deals them, which leaves a
smaller game of the same rules (6 deals by default, 90 with one hand given). The game is
walked once into OpenSpiel's cached tree; CFR+ and NashConv run in C++ on it. Writes the result
as JSON (``--out``, by default ``docs/results/paston_tiny_exact.json``, which
``scripts/figures.py`` reads) and the CFR+ convergence curve as a PNG (``--plot``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import pyspiel
from folkcards.envs.cards import PASTON_CARDS
from folkcards.envs.paston.chance import PastonTinyChance
from folkcards.openspiel import load_game
from folkcards.openspiel.exact import (
    agent_policy,
    information_states,
    nash_conv,
    plot_cfr_curve,
    solve_cfr_plus,
    uniform_policy,
)

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
DEFAULT_GIVEN = ("player_1=AS,KC", "player_2=7S,JC")
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
    parser.add_argument("--iterations", type=int, default=200, help="CFR+ iterations")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/paston_tiny_exact.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs/results/paston_tiny_cfr.png")
    raw_args = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(raw_args)
    if args.iterations < 1:
        parser.error("--iterations must be positive")
    try:
        given = parse_given(args.given or list(DEFAULT_GIVEN))
        chance = PastonTinyChance.given_cards(given)
    except ValueError as error:
        parser.error(str(error))

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)

    python_game = load_game("paston_tiny")
    python_game.chance = chance  # the states deal with the given hands
    cached = pyspiel.convert_to_cached_tree(python_game)
    start = time.perf_counter()
    log("walking the tree into OpenSpiel's cache ...")
    states, histories = information_states(cached)
    walk_seconds = time.perf_counter() - start
    log(f"{histories} histories, {len(states)} information states ({walk_seconds:.0f} s)")
    checkpoints = [c for c in CHECKPOINTS if c <= args.iterations]
    start = time.perf_counter()
    cfr_policy, curve = solve_cfr_plus(
        cached,
        args.iterations,
        checkpoints,
        progress=lambda i, v: log(f"CFR+ iteration {i}: NashConv {v:.6f}"),
    )
    solve_seconds = time.perf_counter() - start
    rows = []
    policies = {
        "random": uniform_policy(states),
        "heuristic": agent_policy("heuristic", python_game, states),
        f"cfr+ ({args.iterations} iterations)": cfr_policy,
    }
    for name, policy in policies.items():
        value = nash_conv(cached, policy)
        rows.append({"agent": name, "nash_conv": value, "exploitability": value / 3})
        log(f"{name}: NashConv {value:.6f}")
    result = {
        "game": "paston_tiny",
        "params": {
            "dealer": 0,
            "given": {PASTON_CARDS.name(card): place for card, place in sorted(given.items())},
        },
        "command": " ".join(["python benchmarks/paston_tiny_exact.py", *raw_args]),
        "histories": histories,
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
