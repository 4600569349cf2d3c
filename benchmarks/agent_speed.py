"""Decision time per agent and per phase: median and 95th percentile, seeded.

The measured agent sits in seat 0 of every episode against opponents (default: the heuristic),
episodes seeded ``seed, seed + 1, ...``; each of its decisions is timed by the episode loop
(:func:`folkcards.agents.episode.play_episode`) and filed under the phase its observation shows.
Forced moves (one legal action) count as decisions too; ``--choices-only`` leaves them out.
Two clocks: wall time (what a person at the table waits, inflated on a loaded machine) and the
agent's CPU time (``time.process_time`` around ``act``: what it costs on an idle core).

    python benchmarks/agent_speed.py --game paston --agent pimc --episodes 20
    python benchmarks/agent_speed.py --game tri_palki --agent pimc --episodes 40 --players 4
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from typing import Any

import numpy as np
from folkcards.agents.base import make_agent
from folkcards.agents.episode import Decision, play_episode
from folkcards.envs.registry import game_spec


def _phase(game: str, observation: dict) -> str:
    vector = np.asarray(observation["observation"])
    if game == "paston":
        from folkcards.envs.paston.observation import decode

        return decode(vector).phase
    from folkcards.envs.tri_palki.observation import decode as tp_decode

    return tp_decode(vector).phase


class _CpuTimed:
    """Wraps an agent and records the process CPU time of each ``act``."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.last = 0.0

    def reset(self) -> None:
        self.agent.reset()

    def act(self, observation: dict) -> int:
        started = time.process_time()
        action = self.agent.act(observation)
        self.last = time.process_time() - started
        return action


def measure(
    game: str,
    agent_spec: str,
    episodes: int,
    seed: int,
    opponent: str = "heuristic",
    players: int | None = None,
    choices_only: bool = False,
    actions: list[int] | None = None,
) -> dict[str, list[float]]:
    """Seconds per decision of ``agent_spec`` in seat 0, by phase (and ``"all"``; ``"ended"``:
    those of the episodes that ended by the rules, not at ``max_turns``); the CPU seconds under
    the same keys with a ``cpu:`` prefix. ``actions``, if given, gets seat 0's actions timed."""
    spec = game_spec(game)
    n = players or spec.default_players
    env = spec.raw_env(n)
    timed = _CpuTimed(make_agent(agent_spec, spec.name, "player_0", seed=seed))
    table: list[Any] = [timed]
    table += [make_agent(opponent, spec.name, f"player_{i}", seed=seed + i) for i in range(1, n)]
    times: dict[str, list[float]] = defaultdict(list)

    def note(decision: Decision) -> None:
        if decision.agent != "player_0":
            return
        if choices_only and int(np.sum(decision.observation["action_mask"])) < 2:
            return
        if actions is not None:
            actions.append(int(decision.action))
        phase = _phase(spec.name, decision.observation)
        for key in (phase, "all"):
            times[key].append(decision.seconds)
            times[f"cpu:{key}"].append(timed.last)

    for episode in range(episodes):
        before = {key: len(values) for key, values in times.items()}
        run = play_episode(env, table, seed=seed + episode, on_action=note)
        if not run.truncated:  # also filed under "ended": the rounds that ended by the rules
            for key, ended in (("all", "ended"), ("cpu:all", "cpu:ended")):
                times[ended] += times[key][before.get(key, 0) :]
    return dict(times)


def table(times: dict[str, list[float]]) -> str:
    """A text table per phase: decisions, then median / p95 / max in ms, wall and CPU."""
    head = f"{'phase':<10} {'decisions':>9}"
    for clock in ("wall", "cpu"):
        head += f" {clock + ' median':>12} {clock + ' p95':>9} {clock + ' max':>9}"
    lines = [head]
    phases = [p for p in times if not p.startswith("cpu:") and times[p]]
    for phase in sorted(phases, key=lambda p: (p == "all", p)):
        row = f"{phase:<10} {len(times[phase]):>9}"
        for key in (phase, f"cpu:{phase}"):
            values = np.asarray(times[key]) * 1000
            row += (
                f" {np.median(values):>12.1f} {np.percentile(values, 95):>9.1f}"
                f" {values.max():>9.1f}"
            )
        lines.append(row)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="paston")
    parser.add_argument("--agent", default="pimc", help="agent spec, e.g. pimc:samples=64")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--players", type=int, default=None, help="Tri Palki table size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--choices-only", action="store_true", help="skip forced moves")
    args = parser.parse_args()
    started = time.perf_counter()
    make_agent(args.agent, args.game)  # load (and compile) before timing
    times = measure(
        args.game,
        args.agent,
        args.episodes,
        args.seed,
        args.opponent,
        args.players,
        args.choices_only,
    )
    print(f"{args.agent} ({args.game}), {args.episodes} episodes, seed {args.seed}, ms:")
    print(table(times))
    print(f"wall time {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
