"""Exact exploitability on Paston tiny: NashConv of random, the heuristic and CFR+ (OpenSpiel).

    python benchmarks/paston_tiny_exact.py                        # the stored result: the whole game
    python benchmarks/paston_tiny_exact.py --add-to --agent ppo=ppo:runs/ppo_paston_tiny/model.zip
    python benchmarks/paston_tiny_exact.py --given player_1=AS,KC --out runs/p1.json --plot runs/p1.png

The game is ``folkcards_paston_tiny`` (dealer seat 0): every one of its 630 deals with its
auction, discard, contract, defence and play. The binding's tree is walked once and written as
OpenSpiel's native extensive-form game (:mod:`folkcards.openspiel.efg`); CFR+, NashConv and each
seat's best response run in C++ on it. ``--given`` fixes the hands of some seats
(``SEAT=CARD,CARD``, repeatable; ``none``, the default, deals every card): the other cards are
dealt as the whole deal deals them, which leaves a smaller game of the same rules. Writes the
result as JSON (``--out``, by default ``docs/results/paston_tiny_exact.json``, which
``scripts/figures.py`` reads) and the CFR+ convergence curve as a PNG (``--plot``).

``--agent NAME=SPEC`` adds a folkcards agent's row; ``--add-to`` adds such rows to the stored
result, keeping its other rows and CFR+ curve. The walk is every run's cost: ``--tree PATH``
writes the walked tree once and reads it back after; ``--policy-only`` (with ``--policy-out``)
writes the CFR+ policy alone.
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
from folkcards.openspiel.efg import ExactTree, export
from folkcards.openspiel.exact import (
    agent_policy,
    agent_rows,
    best_response_gains,
    plot_cfr_curve,
    solve_cfr_plus,
    stored_result,
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


def every_dealer(path: Path) -> None:
    """Make a saved policy of the tree (dealer seat 0) play whoever deals: each information
    state of a seat is copied to the names of the seats one and two to its left. A seat's
    observation is relative to it (its own hand, the dealer's relative seat ...), so a seat in
    another chair decides on the same information as the seat of the same role at dealer 0."""
    table = json.loads(path.read_text(encoding="utf-8"))
    for key, row in list(table.items()):
        seat, _, rest = key.partition("\n")
        number = int(seat.removeprefix("player_"))
        for shift in (1, 2):
            table.setdefault(f"player_{(number + shift) % 3}\n{rest}", row)
    path.write_text(json.dumps(table), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--given",
        action="append",
        help="a seat's given hand, SEAT=CARD,CARD (repeatable; 'none' deals every card)",
    )
    parser.add_argument("--iterations", type=int, default=50, help="CFR+ iterations")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="a folkcards agent to measure too, by a row name and its spec (repeatable)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/paston_tiny_exact.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs/results/paston_tiny_cfr.png")
    parser.add_argument(
        "--policy-out",
        type=Path,
        help="save the CFR+ average policy here (JSON; openspiel:policy=PATH plays it)",
    )
    parser.add_argument(
        "--policy-only",
        action="store_true",
        help="only solve CFR+ and write --policy-out (no NashConv, no rows, --out untouched)",
    )
    parser.add_argument(
        "--add-to",
        action="store_true",
        help="add the --agent rows to the result already in --out (the same --given), keeping "
        "its other rows and CFR+ curve; no CFR+ is run",
    )
    parser.add_argument(
        "--tree",
        type=Path,
        help="the walked tree (gzipped JSON): read from here if the file exists (walked with "
        "the same --given), else walked and written here",
    )
    raw_args = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(raw_args)
    if args.iterations < 1:
        parser.error("--iterations must be positive")
    if args.policy_only and (args.policy_out is None or args.add_to or args.agent):
        parser.error("--policy-only needs --policy-out, and takes no --add-to or --agent")
    try:
        agents = agent_rows(args.agent)
        given = parse_given(args.given or ["none"])
        chance = PastonTinyChance.given_cards(given)
    except ValueError as error:
        parser.error(str(error))
    params = {
        "dealer": 0,
        "given": {PASTON_CARDS.name(card): place for card, place in sorted(given.items())},
    }
    previous = None
    if args.add_to:
        try:
            previous = stored_result(args.out, agents)
        except ValueError as error:
            parser.error(str(error))
        if previous.get("game") != "paston_tiny" or previous.get("params") != params:
            parser.error(
                f"--add-to: {args.out} was computed with {previous.get('params')}, not {params}"
            )
        if any(name.startswith("cfr+") or name == "random" for name in agents):
            parser.error("--add-to: the random and CFR+ rows are kept as stored")

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)

    python_game = load_game("paston_tiny")
    python_game.chance = chance  # the states deal with the given hands
    start = time.perf_counter()
    if args.tree is not None and args.tree.is_file():
        log(f"reading the tree from {args.tree} ...")
        tree, tree_params = ExactTree.load(args.tree)
        if tree_params != params:
            parser.error(f"--tree: {args.tree} was walked with {tree_params}, not {params}")
    else:
        log("walking the tree into OpenSpiel's extensive form ...")
        tree = export(python_game, progress=lambda n: log(f"{n:,} histories walked"))
        if args.tree is not None:
            args.tree.parent.mkdir(parents=True, exist_ok=True)
            tree.save(args.tree, **params)
            log(f"wrote {args.tree}")
    states = tree.states
    walk_seconds = time.perf_counter() - start
    log(f"{tree.histories:,} histories, {len(states):,} information states ({walk_seconds:.0f} s)")
    if previous is not None and (previous["histories"], previous["information_states"]) != (
        tree.histories,
        len(states),
    ):
        parser.error(f"--add-to: the tree is not the one of {args.out}")
    if args.policy_only:
        from folkcards.openspiel.agents import save_policy

        solver = pyspiel.CFRPlusSolver(tree.game)
        for iteration in range(1, args.iterations + 1):
            solver.evaluate_and_update_policy()
            log(f"CFR+ iteration {iteration}")
        args.policy_out.parent.mkdir(parents=True, exist_ok=True)
        save_policy(tree.binding_policy(solver.tabular_average_policy()), args.policy_out)
        every_dealer(args.policy_out)
        log(f"wrote {args.policy_out}")
        return 0
    specs = dict(agents)
    if previous is None:
        specs = {"heuristic": "heuristic", **specs}
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
            every_dealer(args.policy_out)
            log(f"wrote {args.policy_out}")
    policies = {}
    if previous is None:
        policies["random"] = lambda: tree.policy(uniform_policy(states))
    for name, spec in specs.items():
        policies[name] = lambda spec=spec: tree.policy(
            agent_policy(
                spec,
                python_game,
                states,
                progress=lambda n, spec=spec: log(f"{spec}: {n:,} of {len(states):,} states"),
            )
        )
    if previous is None:
        policies[f"cfr+ ({args.iterations} iterations)"] = lambda: cfr_policy
    rows = []
    for name, build in policies.items():
        gains = best_response_gains(tree.game, build())
        value = sum(gains)  # NashConv: what a best response gains in each seat, summed
        rows.append(
            {
                "agent": name,
                **({"spec": specs[name]} if name in agents else {}),
                "nash_conv": value,
                "exploitability": value / 3,
                **{f"gain_{seat}": gain for seat, gain in zip(SEATS, gains, strict=False)},
            }
        )
        log(f"{name}: NashConv {value:.6f}; gains by seat {[round(g, 4) for g in gains]}")
    command = " ".join(["python benchmarks/paston_tiny_exact.py", *raw_args])
    if previous is not None:
        kept = [row for row in previous["rows"] if row["agent"] not in agents]
        solved = [i for i, row in enumerate(kept) if row["agent"].startswith("cfr+")]
        at = solved[0] if solved else len(kept)
        previous["rows"] = kept[:at] + rows + kept[at:]  # CFR+ stays last
        previous["added"] = [*previous.get("added", []), command]
        args.out.write_text(json.dumps(previous, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.out}")
        return 0
    result = {
        "game": "paston_tiny",
        "params": params,
        "command": command,
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
