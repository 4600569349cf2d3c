"""Exact exploitability on Tri Palki tiny: NashConv and each seat's best-response gain (OpenSpiel).

    python benchmarks/tri_palki_tiny_exact.py --max-turns 1 --iterations 200 \
        --agent heuristic=heuristic --agent montecarlo=montecarlo:max_turns=1 \
        --agent ppo=ppo:runs/ppo_tiny/model.zip --policy-out runs/cfr_plus_tiny.json
    python benchmarks/tri_palki_tiny_exact.py --max-turns 2 --out runs/exact2.json --plot runs/exact2.png

The game (``folkcards_tri_palki_tiny``, dealer seat 0) is walked once into OpenSpiel's cached
tree; CFR+, NashConv and the best responses run in C++ on it. The rows: ``random`` (uniform
over the legal actions), each ``--agent NAME=SPEC`` (a folkcards agent as a tabular policy) and
the CFR+ average policy. Writes the result as JSON (``--out``, by default
``docs/results/tri_palki_tiny_exact.json``, which ``scripts/figures.py`` reads) and the CFR+
convergence curve as a PNG (``--plot``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.openspiel.exact import (
    agent_policy,
    agent_rows,
    best_response_gains,
    cached_game,
    information_states,
    nash_conv,
    plot_cfr_curve,
    solve_cfr_plus,
    stored_result,
    uniform_policy,
)

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-turns", type=int, default=1, help="the game's turn limit")
    parser.add_argument("--iterations", type=int, default=200, help="CFR+ iterations")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="a folkcards agent to measure, by a row name and its spec (repeatable)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/tri_palki_tiny_exact.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs/results/tri_palki_tiny_cfr.png")
    parser.add_argument(
        "--policy-out",
        type=Path,
        help="also write the CFR+ average policy here (the agent spec openspiel:policy=PATH)",
    )
    parser.add_argument(
        "--add-to",
        action="store_true",
        help="add the --agent rows to the result already in --out (same turn limit), "
        "without CFR+ or random rows",
    )
    parser.add_argument(
        "--one-turn",
        action="store_true",
        help="at --max-turns 1: value random and the agents by enumerating the dealer's one "
        "decision in every deal (no tree walk, no CFR+); with --add-to, add the agents",
    )
    parser.add_argument(
        "--check-rows",
        action="store_true",
        help="with --one-turn: also enumerate the stored rows' agents and stop unless the "
        "enumeration gives the tree's values",
    )
    raw_args = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(raw_args)
    if args.one_turn and args.max_turns != 1:
        parser.error("--one-turn is for --max-turns 1")
    if args.max_turns < 1 or args.iterations < 1:
        parser.error("--max-turns and --iterations must be positive")
    try:
        agents = agent_rows(args.agent)
    except ValueError as error:
        parser.error(str(error))

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)

    previous = None
    if args.add_to:
        try:
            previous = stored_result(args.out, agents)
        except ValueError as error:
            parser.error(str(error))
        if previous["params"]["max_turns"] != args.max_turns:
            parser.error(f"--add-to: {args.out} is at max_turns={previous['params']['max_turns']}")
        args.iterations = 1  # the tree is cached by the first CFR+ iteration; its rows are kept

    if args.one_turn:
        if previous is None:  # a new result: random and the agents, no tree (no CFR+)
            previous = {
                "game": "tri_palki_tiny",
                "params": {"max_turns": 1, "dealer": 0},
                "rows": [],
                "machine": platform.machine(),
            }
            agents = {"random": "random", **agents}
        return _add_one_turn(args, agents, previous, raw_args, log)

    python_game, cached = cached_game("tri_palki_tiny", max_turns=args.max_turns)
    start = time.perf_counter()
    log("walking the tree (the first CFR+ iteration caches it) ...")
    checkpoints = [c for c in CHECKPOINTS if c <= args.iterations]
    cfr_policy, curve = solve_cfr_plus(
        cached,
        args.iterations,
        checkpoints,
        progress=lambda i, v: log(f"CFR+ iteration {i}: NashConv {v:.6f}"),
    )
    solve_seconds = time.perf_counter() - start
    states, histories = information_states(cached)
    log(f"{histories} histories, {len(states)} information states")
    rows = []
    policies = {}
    if previous is None:
        policies["random"] = ("uniform over the legal actions", lambda: uniform_policy(states))
    for name, spec in agents.items():
        policies[name] = (spec, lambda spec=spec: agent_policy(spec, python_game, states))
    if previous is None:
        policies[f"cfr+ ({args.iterations} iterations)"] = (
            "CFR+ average policy",
            lambda: cfr_policy,
        )
        if args.policy_out is not None:
            from folkcards.openspiel.agents import save_policy

            save_policy(cfr_policy, args.policy_out)
            both_dealers(args.policy_out)
            log(f"wrote {args.policy_out}")
    for name, (spec, build) in policies.items():
        started = time.perf_counter()
        policy = build()
        gains = best_response_gains(cached, policy)
        value = nash_conv(cached, policy)
        rows.append(
            {
                "agent": name,
                "spec": spec,
                "nash_conv": value,
                "exploitability": value / 2,
                "gain_dealer": gains[0],
                "gain_other": gains[1],
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        log(f"{name}: NashConv {value:.6f}, best-response gains {gains[0]:.6f} {gains[1]:.6f}")
    result = {
        "game": "tri_palki_tiny",
        "params": {"max_turns": args.max_turns, "dealer": 0},
        "command": " ".join(["python benchmarks/tri_palki_tiny_exact.py", *raw_args]),
        "histories": histories,
        "information_states": len(states),
        "solve_seconds": round(solve_seconds, 1),
        "machine": platform.machine(),
        "rows": rows,
        "cfr_curve": [
            {"iteration": i, "nash_conv": v, "seconds": round(s, 2)} for i, v, s in curve
        ],
    }
    if previous is not None:
        kept = [row for row in previous["rows"] if row["agent"] not in agents]
        previous["rows"] = kept[:1] + rows + kept[1:]  # random first, CFR+ last
        previous["added"] = [*previous.get("added", []), result["command"]]
        result = previous
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")
    if previous is None:
        plot_cfr_curve(
            curve, args.plot, "sticks", f"CFR+ on Tri Palki tiny (max_turns={args.max_turns})"
        )
        log(f"wrote {args.plot}")
    return 0


def dealer_gain(spec: str | None, seed: int = 0, left_hands: Any = None) -> float:
    """At ``max_turns=1`` only the dealer decides, once, and the round is scored after its turn
    (an announce decision changes nothing: the hands are scored as they stand), so the other
    seat's best response gains nothing and the dealer's is the best action in each information
    state against the four deals it cannot tell apart. The gain of that best response over
    ``spec`` as the dealer (``None``: uniform over the legal actions), from the rules engine over
    every deal (``left_hands``: only the deals giving the dealer's left one of these hands,
    each equally likely): the NashConv at ``max_turns=1`` by another way than the tree's."""
    import copy
    from itertools import combinations

    from folkcards.agents.base import make_agent
    from folkcards.envs.registry import game_spec
    from folkcards.envs.tri_palki.rules import OVER, settle
    from folkcards.envs.tri_palki.tiny import TINY_DECK
    from folkcards.openspiel.agents import plays_by_probabilities

    env = game_spec("tri_palki_tiny").raw_env(max_turns=1)
    agent = None if spec is None else make_agent(spec, "tri_palki_tiny", "player_0", seed=seed)
    # per information state (own hand, centre): its legal actions, their values summed over
    # the deals it holds, and the policy's probabilities of them
    states: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    deals = 0
    for left in combinations(TINY_DECK, 3) if left_hands is None else left_hands:
        rest = [c for c in TINY_DECK if c not in left]
        for own in combinations(rest, 3):
            rest2 = [c for c in rest if c not in own]
            for centre in combinations(rest2, 3):
                piles = [left, own, centre]
                deck = [pile[i] for i in range(3) for pile in piles]
                deck += [c for c in rest2 if c not in centre]
                env.reset(seed=0, options={"deck": deck, "dealer": 0})
                deals += 1
                rnd = env.state_round()
                if rnd.phase == OVER:
                    continue  # a wash at the deal: nobody decides, no gain
                key = (rnd.hands[0], rnd.centre)
                observation = env.observe("player_0")
                if key not in states:
                    legal = np.flatnonzero(observation["action_mask"])
                    if agent is None:
                        probs = np.full(len(legal), 1.0 / len(legal))
                    else:
                        agent.reset()
                        if plays_by_probabilities(agent):
                            full = agent.action_probabilities(observation)
                            probs = np.asarray(full, np.float64)[legal]
                        else:
                            probs = (legal == agent.act(observation)).astype(np.float64)
                    states[key] = (legal, np.zeros(len(legal)), probs)
                legal, values, _ = states[key]
                for i, action in enumerate(legal):
                    after = copy.deepcopy(rnd)
                    after.apply(int(action))
                    values[i] -= float(settle(after.hands, after.alive, [0, 0], 0).stick[0])
    gain = sum(float(values.max() - values @ probs) for _, values, probs in states.values())
    return gain / deals


def _add_one_turn(
    args: Any, agents: dict[str, str], previous: dict, raw_args: list[str], log: Any
) -> int:
    """``--one-turn``: the agents' rows by :func:`dealer_gain`, after checking it on the stored
    rows that are folkcards agents or random (``--check-rows``)."""
    checks = {}
    for row in previous["rows"] if args.check_rows else []:
        spec = None if row["agent"] == "random" else row.get("spec")
        if row["agent"].startswith("cfr+") or (spec is None and row["agent"] != "random"):
            continue
        started = time.perf_counter()
        value = dealer_gain(spec)
        checks[row["agent"]] = {"tree": row["nash_conv"], "enumeration": value}
        log(
            f"check {row['agent']}: tree {row['nash_conv']:.9f}, enumeration {value:.9f} "
            f"({time.perf_counter() - started:.0f} s)"
        )
        if abs(value - row["nash_conv"]) > 1e-9:
            raise SystemExit(f"the enumeration disagrees with the tree on {row['agent']}")
    rows = []
    for name, spec in agents.items():
        started = time.perf_counter()
        value = dealer_gain(None if spec == "random" else spec)
        rows.append(
            {
                "agent": name,
                "spec": spec,
                "nash_conv": value,
                "exploitability": value / 2,
                "gain_dealer": value,
                "gain_other": 0.0,
                "seconds": round(time.perf_counter() - started, 1),
                "method": "enumeration of the dealer's decision (--one-turn)",
            }
        )
        log(f"{name}: NashConv {value:.6f}")
    kept = [row for row in previous["rows"] if row["agent"] not in agents]
    previous["rows"] = kept[:-1] + rows + kept[-1:]  # CFR+ last
    command = " ".join(["python benchmarks/tri_palki_tiny_exact.py", *raw_args])
    if "command" in previous:
        previous["added"] = [*previous.get("added", []), command]
    else:
        previous["command"] = command
    previous["one_turn_checks"] = {**previous.get("one_turn_checks", {}), **checks}
    args.out.write_text(json.dumps(previous, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")
    return 0


def both_dealers(path: Path) -> None:
    """Make a saved policy of the tree (dealer seat 0) play either seat: each information state
    of one seat is copied to the other's name. The observation is relative to the seat (its own
    hand, the dealer's relative seat ...), so a seat dealing in the other chair decides on the
    same information as in its own."""
    table = json.loads(path.read_text(encoding="utf-8"))
    for key, row in list(table.items()):
        seat, _, rest = key.partition("\n")
        other = "player_1" if seat == "player_0" else "player_0"
        table.setdefault(f"{other}\n{rest}", row)
    path.write_text(json.dumps(table), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
