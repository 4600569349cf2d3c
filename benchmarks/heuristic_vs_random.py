"""Measure the heuristic agents against the random agent on duplicate deals.

Every deal is played once per seat assignment (the agents rotated through the seats) with
``env.reset(seed=deal_seed)``, so each kind of agent holds every hand of the deal; the
difference between the kinds is then paired by deal and given with a 95% confidence interval
(normal approximation over deals).

- Paston: the mean table score per deal of the heuristic and of random, with 1 heuristic vs
  2 randoms and with 2 heuristics vs 1 random (3 rotations each).
- Tri Palki (``--players``, default 4): sticks per round of 1 heuristic vs the randoms
  (one rotation per seat).

Example::

    python benchmarks/heuristic_vs_random.py --deals 2000 --seed 0
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Callable

import numpy as np
from folkcards.agents import make_agent


def play_episode(env, agents: dict[str, object], timing: dict[str, float] | None = None) -> dict:
    """Play one episode of an already reset env; returns the final infos by agent."""
    final: dict[str, dict] = {}
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            final[name] = info
            env.step(None)
            continue
        agent = agents[name]
        if timing is not None and getattr(agent, "name", "") != "random":
            t0 = time.perf_counter()
            action = agent.act(obs)
            timing["time"] += time.perf_counter() - t0
            timing["acts"] += 1
        else:
            action = agent.act(obs)
        env.step(action)
    return final


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval."""
    arr = np.asarray(values, dtype=float)
    if len(arr) < 2:
        return float(arr.mean()) if len(arr) else 0.0, float("nan")
    return float(arr.mean()), 1.96 * float(arr.std(ddof=1)) / math.sqrt(len(arr))


def _fmt(values: list[float]) -> str:
    mean, half = mean_ci(values)
    return f"{mean:+8.3f} ± {half:.3f}  [{mean - half:+.3f}, {mean + half:+.3f}]"


def duplicate(
    game: str,
    make_env: Callable[[], object],
    players: int,
    kinds_for_rotation: Callable[[int], list[str]],
    rotations: int,
    deals: int,
    seed: int,
    metric: Callable[[dict], float],
    timing: dict[str, float],
    outcomes: Counter | None = None,
) -> tuple[list[float], list[float]]:
    """Per deal: the mean metric of the heuristic seats and of the random seats over rotations."""
    env = make_env()
    names = [f"player_{i}" for i in range(players)]
    heur, rand = [], []
    for d in range(deals):
        deal_seed = seed + d
        h_sum = r_sum = 0.0
        for rot in range(rotations):
            kinds = kinds_for_rotation(rot)
            agents = {
                name: make_agent(kind, game, name, seed=(deal_seed * 1009 + rot * 31 + i) % 2**32)
                for i, (name, kind) in enumerate(zip(names, kinds, strict=True))
            }
            env.reset(seed=deal_seed)
            for agent in agents.values():
                agent.reset()
            infos = play_episode(env, agents, timing)
            if outcomes is not None:
                outcomes[infos[names[0]].get("outcome")] += 1
            hs = [metric(infos[n]) for n, k in zip(names, kinds, strict=True) if k != "random"]
            rs = [metric(infos[n]) for n, k in zip(names, kinds, strict=True) if k == "random"]
            h_sum += sum(hs) / len(hs)
            r_sum += sum(rs) / len(rs)
        heur.append(h_sum / rotations)
        rand.append(r_sum / rotations)
    return heur, rand


def report(title: str, heur: list[float], rand: list[float], unit: str) -> None:
    diff = [h - r for h, r in zip(heur, rand, strict=True)]
    print(f"{title}  ({len(heur)} duplicate deals; {unit}; mean ± 95% CI half-width [CI])")
    print(f"  heuristic          {_fmt(heur)}")
    print(f"  random             {_fmt(rand)}")
    print(f"  heuristic - random {_fmt(diff)}")


def run_paston(deals: int, seed: int, agent: str) -> None:
    from folkcards.envs import paston_v0

    timing = {"time": 0.0, "acts": 0}

    def score(info: dict) -> float:
        return float(info["deal_score"])

    one = lambda rot: [agent if i == rot else "random" for i in range(3)]  # noqa: E731
    two = lambda rot: ["random" if i == rot else agent for i in range(3)]  # noqa: E731
    heur, rand = duplicate("paston", paston_v0.raw_env, 3, one, 3, deals, seed, score, timing)
    report("Paston: 1 heuristic vs 2 random", heur, rand, "table score per deal")
    heur, rand = duplicate("paston", paston_v0.raw_env, 3, two, 3, deals, seed, score, timing)
    report("Paston: 2 heuristics vs 1 random", heur, rand, "table score per deal")
    if timing["acts"]:
        print(f"  heuristic act: {1e6 * timing['time'] / timing['acts']:.0f} µs on average")


def run_tri_palki(deals: int, seed: int, agent: str, players: int) -> None:
    from folkcards.envs import tri_palki_v0

    timing = {"time": 0.0, "acts": 0}

    def stick(info: dict) -> float:
        return 1.0 if info.get("stick") else 0.0

    one = lambda rot: [agent if i == rot else "random" for i in range(players)]  # noqa: E731
    outcomes: Counter = Counter()
    heur, rand = duplicate(
        "tri_palki",
        lambda: tri_palki_v0.raw_env(num_players=players),
        players,
        one,
        players,
        deals,
        seed,
        stick,
        timing,
        outcomes,
    )
    report(
        f"Tri Palki ({players} players): 1 heuristic vs {players - 1} random",
        heur,
        rand,
        "sticks per round",
    )
    total = sum(outcomes.values())
    mix = ", ".join(f"{name} {count / total:.1%}" for name, count in outcomes.most_common())
    print(f"  round endings: {mix} (a round truncated at max_turns gives nobody a stick)")
    if timing["acts"]:
        print(f"  heuristic act: {1e6 * timing['time'] / timing['acts']:.0f} µs on average")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--deals", type=int, default=500, help="duplicate deals per setting (default 500)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="first deal seed (deals use seed, seed+1, ...)"
    )
    parser.add_argument("--game", choices=("paston", "tri_palki", "both"), default="both")
    parser.add_argument("--players", type=int, default=4, help="Tri Palki players (default 4)")
    parser.add_argument(
        "--agent", default="heuristic", help="agent spec to measure (default heuristic)"
    )
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be at least 2")
    if args.game in ("paston", "both"):
        run_paston(args.deals, args.seed, args.agent)
    if args.game in ("tri_palki", "both"):
        run_tri_palki(args.deals, args.seed, args.agent, args.players)


if __name__ == "__main__":
    main()
