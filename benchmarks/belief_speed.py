"""Belief sampler speed: worlds per second for Paston and Tri Palki at several points of play.

Each position is reached by seeded random play. For each, ``sample_worlds`` is timed drawing
``--worlds`` worlds (the median of ``--repeats`` runs, one call each, set-up included), and
``to_engine`` (rebuilding a sampled world's engine state at the decision point by replaying the
history) on up to 200 of them.

    python benchmarks/belief_speed.py --worlds 2000 --repeats 3 --seed 0
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from folkcards.envs import paston_v0, tri_palki_v0
from folkcards.search import paston_belief as pb
from folkcards.search import tri_palki_belief as tb


def _random_step(env: Any, rng: np.random.Generator) -> None:
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(int(legal[rng.integers(len(legal))]))


def _live(env: Any) -> bool:
    return not any(env.terminations.values()) and not any(env.truncations.values())


def paston_position(
    seed: int, want: Callable[[Any], int | None], episode: str = "deal"
) -> tuple[Any, int]:
    """The first point of seeded random play where ``want(deal)`` names an observer seat."""
    for s in range(seed, seed + 10_000):
        rng = np.random.default_rng(s)
        env = paston_v0.raw_env(episode=episode)
        env.reset(seed=s)
        while _live(env):
            observer = want(env.state_deal())
            if observer is not None:
                return env, observer
            _random_step(env, rng)
    raise RuntimeError("no position found")


def tri_palki_position(seed: int, players: int, turns: int) -> tuple[Any, int]:
    """The observer to act after ``turns`` random actions of a seeded round."""
    for s in range(seed, seed + 10_000):
        rng = np.random.default_rng(s)
        env = tri_palki_v0.raw_env(num_players=players)
        env.reset(seed=s)
        for _ in range(turns):
            if not _live(env):
                break
            _random_step(env, rng)
        if _live(env):
            return env, int(env.agent_selection.split("_")[1])
    raise RuntimeError("no position found")


def _in_play(tricks: int, declarer_view: bool) -> Callable[[Any], int | None]:
    def want(deal: Any) -> int | None:
        if deal.phase != 4 or deal.trick_count < tricks or len(deal.active) != 3:
            return None
        seat = deal.declarer if declarer_view else (deal.declarer + 1) % 3
        return seat

    return want


def positions(seed: int) -> Iterator[tuple[str, str, Any, int]]:
    yield (
        "paston",
        "auction, first bid",
        *paston_position(seed, lambda d: d.to_act if d.phase == 0 else None),
    )
    yield (
        "paston",
        "auction, first deal",
        *paston_position(seed, lambda d: d.to_act if d.phase == 0 else None, episode="game"),
    )
    yield "paston", "mid-play (trick 5), defender", *paston_position(seed, _in_play(4, False))
    yield "paston", "mid-play (trick 5), declarer", *paston_position(seed, _in_play(4, True))
    yield "paston", "late play (trick 9), defender", *paston_position(seed, _in_play(8, False))
    for players in (4, 8):
        yield "tri_palki", f"{players} players, first action", *tri_palki_position(seed, players, 0)
        yield (
            "tri_palki",
            f"{players} players, after 12 actions",
            *tri_palki_position(seed, players, 12),
        )


def measure(
    game: str, env: Any, observer: int, worlds: int, repeats: int, seed: int
) -> tuple[float, float]:
    module = pb if game == "paston" else tb
    obs = env.observe(f"player_{observer}")
    context = module.public_context(env, observer)
    times = []
    sample: list[Any] = []
    for r in range(repeats):
        start = time.perf_counter()
        sample = module.sample_worlds(obs, worlds, np.random.default_rng(seed + r), **context)
        times.append(time.perf_counter() - start)
    rate = worlds / statistics.median(times)
    subset = sample[:200]
    start = time.perf_counter()
    for world in subset:
        world.to_engine()
    engine_rate = len(subset) / (time.perf_counter() - start)
    return rate, engine_rate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", type=int, default=2000, help="worlds per timed call")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per position (median)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions and samplers")
    args = parser.parse_args(argv)
    if args.worlds < 1 or args.repeats < 1:
        parser.error("--worlds and --repeats must be positive")
    print(f"worlds per call {args.worlds}, median of {args.repeats} calls, seed {args.seed}")
    print("| game | position | sampled worlds/s | worlds/s rebuilt with to_engine |")
    print("|---|---|---:|---:|")
    for game, label, env, observer in positions(args.seed):
        rate, engine_rate = measure(game, env, observer, args.worlds, args.repeats, args.seed)
        print(f"| {game} | {label} | {rate:,.0f} | {engine_rate:,.0f} |")


if __name__ == "__main__":
    main()
