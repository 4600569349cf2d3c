"""How closely a fast player follows a search teacher in Tri Palki, against the teacher's noise.

Plays ``--rounds`` rounds at a ``--players`` table; the teacher (``--teacher``, default
``expert``) plays seat 0 against ``--opponents`` (cycled over the other seats). At every
decision of seat 0 with a choice, a second copy of the teacher with another seed, the
``--student`` (default ``distilled``) and the heuristic are asked the same question on the
same observations (each keeps its own memory of the round). Printed: how often each agrees
with the teacher, and each one's regret — the best action value minus the value of its choice —
under the teacher's values and under the second copy's (independent of the teacher's choice,
so the teacher's own regret there is its noise). Regret is in sticks per decision and per
round.

    python benchmarks/teacher_agreement.py --players 3 --rounds 400 --seed 7
"""

from __future__ import annotations

import argparse

import numpy as np
from rich.console import Console
from rich.table import Table
from tqdm import tqdm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=3, help="table size (default 3)")
    parser.add_argument("--rounds", type=int, default=400, help="rounds to play (default 400)")
    parser.add_argument("--seed", type=int, default=7, help="seed of agents and deals")
    parser.add_argument("--teacher", default="expert", help="search agent reporting values")
    parser.add_argument("--student", default="distilled", help="the agent compared with it")
    parser.add_argument(
        "--opponents", nargs="+", default=["heuristic", "ppo:tri_palki"], help="other seats"
    )
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if not 2 <= args.players <= 11:
        parser.error("--players must be between 2 and 11")

    from folkcards.agents import make_agent
    from folkcards.agents.episode import play_episode
    from folkcards.envs import tri_palki_v0

    def seat0(spec: str, seed: int):
        return make_agent(spec, "tri_palki", "player_0", seed=seed)

    teacher, second = seat0(args.teacher, args.seed), seat0(args.teacher, args.seed + 99991)
    others = {"second teacher": second, "student": seat0(args.student, args.seed)}
    others["heuristic"] = seat0("heuristic", args.seed)
    rows: list[list[float]] = []  # per decision: the teacher's two regrets, then per other
    # agent its agreement and its two regrets

    class Shadowed:
        def reset(self) -> None:
            for agent in (teacher, *others.values()):
                agent.reset()

        def act(self, observation):
            action = teacher.act(observation)
            chosen = {name: agent.act(observation) for name, agent in others.items()}
            values, values2 = teacher.last_action_values, second.last_action_values
            if values is None or values2 is None or len(values) < 2:
                return action
            best, best2 = max(values.values()), max(values2.values())
            row = [best - values[action], best2 - values2[action]]
            for choice in chosen.values():
                row += [float(choice == action), best - values[choice], best2 - values2[choice]]
            rows.append(row)
            return action

    shadowed = Shadowed()
    for r in tqdm(range(args.rounds), desc="rounds"):
        table = [shadowed] + [
            make_agent(
                args.opponents[i % len(args.opponents)],
                "tri_palki",
                f"player_{i + 1}",
                seed=args.seed + r,
            )
            for i in range(args.players - 1)
        ]
        play_episode(tri_palki_v0.env(num_players=args.players), table, seed=args.seed * 1000 + r)
    data = np.asarray(rows)
    out = Table(
        title=f"Tri Palki, {args.players} players, {args.rounds} rounds: "
        f"{len(data)} decisions of seat 0 with a choice ({len(data) / args.rounds:.2f} per round)"
    )
    for column in (
        "agent",
        "agrees with the teacher",
        "regret (teacher's values)",
        "regret (second copy's values)",
        "per round (second copy's)",
    ):
        out.add_column(column, justify="right")
    out.add_row(
        f"teacher {args.teacher}",
        "—",
        f"{data[:, 0].mean():.4f}",
        f"{data[:, 1].mean():.4f}",
        f"{data[:, 1].sum() / args.rounds:.4f}",
    )
    for k, name in enumerate(others):
        agree, regret, regret2 = data[:, 2 + 3 * k], data[:, 3 + 3 * k], data[:, 4 + 3 * k]
        out.add_row(
            name,
            f"{agree.mean():.3f}",
            f"{regret.mean():.4f}",
            f"{regret2.mean():.4f}",
            f"{regret2.sum() / args.rounds:.4f}",
        )
    Console(width=140).print(out)


if __name__ == "__main__":
    main()
