"""Speed of batched agents as training opponents, side by side in one run.

Every seat of ``--envs`` games (``--game``, Paston by default) on the batched engine is played
by one batched agent (``make_batched_agent``); prints decisions per second (wall clock) for each
spec, repeated ``--repeats`` times (median and range), and the ratio to the first spec. The
distilled player's pieces (learned calls, endgame search) take their rows one by one in Python,
so this shows what they cost a training pipeline that plays against ``distilled`` instead of
the network alone.

    python benchmarks/batched_opponent_speed.py --seconds 5 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from folkcards.agents.batched_agents import make_batched_agent
from folkcards.envs.registry import game_spec

SPECS = [
    "distilled:calls=0,endgame=0",
    "distilled:endgame=0",
    "distilled:calls=0",
    "distilled",
    "ppo",
    "heuristic",
]


def decisions_per_second(spec: str, game: str, envs: int, seconds: float, seed: int) -> float:
    """Decisions per second of ``spec`` playing every seat of ``envs`` games."""
    agent = make_batched_agent(spec, game, seed=seed)
    vec = game_spec(game).piece("batched_engine")(envs)
    obs, mask, _player = vec.reset(seed=seed)
    for _ in range(3):  # warm-up: compiled code and model caches loaded
        obs, mask, *_ = vec.step(agent.act(obs, mask))
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, mask, *_ = vec.step(agent.act(obs, mask))
        steps += envs
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="paston", help="a game with a batched engine")
    parser.add_argument("--specs", nargs="+", default=SPECS, help="batched agent specs")
    parser.add_argument("--envs", type=int, default=128, help="games in the batch")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per spec")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and agents")
    args = parser.parse_args(argv)
    if args.envs < 1 or args.seconds <= 0 or args.repeats < 1:
        parser.error("--envs and --repeats must be positive and --seconds above 0")
    try:
        rates = {
            spec: [
                decisions_per_second(spec, args.game, args.envs, args.seconds, args.seed + r)
                for r in range(args.repeats)  # interleaving the specs would not change the story
            ]
            for spec in args.specs
        }
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    base = float(np.median(rates[args.specs[0]]))
    print(f"| agent ({args.game}, {args.envs} games) | decisions/s (median) | range | vs first |")
    print("|---|---:|---:|---:|")
    for spec, values in rates.items():
        median = float(np.median(values))
        print(
            f"| `{spec}` | {median:,.0f} | {min(values):,.0f}-{max(values):,.0f} | "
            f"{median / base:.2f}x |"
        )
    load = os.getloadavg()
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
