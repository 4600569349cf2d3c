"""Tri Palki ``expert`` beside its Python reference and the previous version, decision time, repeated.

The shipped ``expert`` (compiled, batched rollouts), the reference it must decide exactly as
(``pimc`` with the expert's keys: the Python search with the same budget), the 0.4.0
``expert`` (its budget named in full) and, with ``--ref COMMIT``, the ``expert`` of that commit
(its tree exported as ``benchmarks/before_after.py`` does, timed in a fresh process) each sit
in seat 0 against the heuristic on the same seeded episodes (``benchmarks/agent_speed.py``'s
``measure``); the order turns round within every repeat so that a change in the shared
machine's load falls on each. Whether the commit's ``expert`` took exactly the actions of the
working tree's is checked and stored (``same_decisions``, and the first decision where they
part: the episodes differ after it). ``--specs NAME=SPEC ...`` times
other specs instead, the last one also at ``--ref`` (e.g. ``expert=expert
learned=expert:opponents=learned``: the learned opponent model beside the rules). Per
table size and spec: the median CPU time per decision of every repeat (``time.process_time``
around ``act``: what it costs on an idle core), their median and range, and the same for wall
time and the 95th percentile; and the median over the rounds that ended by the rules (a round
the players keep going until ``max_turns`` gives hundreds of decisions, each reading a long
round, and can outweigh the other rounds together). ``--game paston`` times Paston's specs the
same way (``--players`` is then 3, its only table size; e.g. ``--specs
open_hand=expert:model=open_hand expert=expert --ref 50be5f8``: the expert beside the 0.10.0
one, in this tree and as that commit had it).

    python benchmarks/tri_palki_expert_speed.py --repeats 4 --episodes 30 --seed 8100 \\
        --ref 1b2c9a2 --out docs/results/tri_palki_expert_speed.json
    python benchmarks/tri_palki_expert_speed.py --specs expert=expert \\
        learned=expert:opponents=learned --ref 9ecdfce \\
        --out docs/results/tri_palki_expert_learned_speed.json
    python benchmarks/tri_palki_expert_speed.py --game paston --players 3 --repeats 5 \\
        --episodes 60 --specs open_hand=expert:model=open_hand expert=expert --ref 50be5f8 \\
        --out docs/results/paston_expert_speed.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_speed import measure  # noqa: E402
from before_after import _export, _layout, run_in_tree  # noqa: E402
from folkcards.agents.base import make_agent  # noqa: E402

BENCH = Path(__file__).resolve().parent

SPECS = {
    "reference": "pimc:samples=192,infer=4,endgame_samples=768,infer_epsilon=0.3",
    "expert_0.4.0": "expert:samples=96,infer=8,endgame_samples=0,infer_epsilon=0.1",
    "expert": "expert",
}


# The commit's ``expert`` timed in a fresh process, the commit's tree first on the path.
_PROBE = """
import json, sys
sys.path.insert(0, {bench!r})
from agent_speed import measure
from folkcards.agents.base import make_agent
import folkcards as measured
make_agent({spec!r}, {game!r})
actions = []
times = measure({game!r}, {spec!r}, {episodes!r}, {seed!r}, players={players!r}, actions=actions)
print(json.dumps([times, actions, measured.__file__]))
"""


class _Commit:
    """A spec as a commit had it: its tree exported and laid out as the package."""

    def __init__(self, ref: str, folder: Path):
        source = _export(ref, folder / "tree")
        self.path = _layout(source, folder / "layout")
        config = tomllib.loads((source / "pyproject.toml").read_text())
        self.version = config["project"]["version"]

    def measure(
        self, game: str, spec: str, episodes: int, seed: int, players: int
    ) -> tuple[dict, list[int]]:
        code = _PROBE.format(
            bench=str(BENCH), game=game, spec=spec, episodes=episodes, seed=seed, players=players
        )
        times, actions = run_in_tree(self.path, code)
        return times, actions


def run(
    players: list[int],
    repeats: int,
    episodes: int,
    seed: int,
    commit: _Commit | None = None,
    specs: dict[str, str] | None = None,
    game: str = "tri_palki",
) -> dict[str, Any]:
    """Every repeat's median and 95th percentile (ms) per table size and spec (and the
    commit's last spec, named ``NAME_VERSION``), and whether that one decided as the last."""
    specs = specs or SPECS
    for spec in specs.values():
        make_agent(spec, game)  # load (and compile) before timing
    last = list(specs)[-1]
    previous = f"{last}_{commit.version}" if commit else None
    rows: dict[str, Any] = {}
    for n in players:
        names = list(specs)
        if previous:
            names.insert(-1, previous)
            commit.measure(game, specs[last], 1, seed, n)  # compiled and cached before timing
        runs: dict[str, dict[str, list[Any]]] = {
            name: {
                "cpu_median": [],
                "cpu_p95": [],
                "wall_median": [],
                "decisions": [],
                "cpu_median_ended": [],
                "decisions_ended": [],
            }  # fmt: skip
            for name in names
        }
        actions: dict[str, list[int]] = {}
        for r in range(repeats):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                if name == previous:
                    times, actions[name] = commit.measure(game, specs[last], episodes, seed, n)
                else:
                    taken: list[int] = []
                    times = measure(game, specs[name], episodes, seed, players=n,
                                    actions=taken)  # fmt: skip
                    actions[name] = taken
                cpu = np.asarray(times["cpu:all"]) * 1000
                wall = np.asarray(times["all"]) * 1000
                runs[name]["cpu_median"].append(round(float(np.median(cpu)), 3))
                runs[name]["cpu_p95"].append(round(float(np.percentile(cpu, 95)), 3))
                runs[name]["wall_median"].append(round(float(np.median(wall)), 3))
                runs[name]["decisions"].append(len(cpu))
                ended = np.asarray(times.get("cpu:ended", [])) * 1000
                median_ended = round(float(np.median(ended)), 3) if len(ended) else None
                runs[name]["cpu_median_ended"].append(median_ended)
                runs[name]["decisions_ended"].append(len(ended))
                print(f"{n} players, {name}, repeat {r + 1}/{repeats}: cpu median "
                      f"{runs[name]['cpu_median'][-1]:.1f} ms", flush=True)  # fmt: skip
        if previous:
            same = actions[previous] == actions[last]
            runs[last]["same_decisions_as_" + previous] = same
            pairs = list(zip(actions[previous], actions[last], strict=False))
            first = next((i for i, (a, b) in enumerate(pairs) if a != b), None)
            runs[last]["first_different_decision"] = first  # the episodes part after it
            runs[last]["decisions_compared"] = len(pairs)
            print(f"{n} players: {previous} and {last} took "
                  f"{'the same' if same else 'DIFFERENT'} actions"
                  f"{'' if first is None else f' from decision {first + 1} of {len(pairs)}'}",
                  flush=True)  # fmt: skip
        rows[str(n)] = runs
    return rows


def summary_line(runs: dict[str, list[float]], key: str) -> str:
    values = runs[key]
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tri_palki", help="tri_palki (default) or paston")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=8100)
    parser.add_argument(
        "--specs",
        nargs="+",
        metavar="NAME=SPEC",
        help="the specs to time (default: reference, expert_0.4.0, expert); the last also at --ref",
    )
    parser.add_argument("--ref", help="also time the last spec at this commit (compare actions)")
    parser.add_argument("--out", help="write the results (JSON) here")
    args = parser.parse_args()
    chosen = dict(SPECS)
    if args.specs:
        pairs = [item.partition("=") for item in args.specs]
        if any(not name or not sep or not spec for name, sep, spec in pairs):
            parser.error("--specs takes NAME=SPEC items")
        chosen = {name: spec for name, _, spec in pairs}
    with tempfile.TemporaryDirectory() as folder:
        commit = _Commit(args.ref, Path(folder)) if args.ref else None
        rows = run(args.players, args.repeats, args.episodes, args.seed, commit, chosen, args.game)
    *first, last = chosen
    specs = dict(chosen)
    if commit:
        specs = {**{k: chosen[k] for k in first},
                 f"{last}_{commit.version}": f"{chosen[last]} at {args.ref} ({commit.version})",
                 last: chosen[last]}  # fmt: skip
    print(f"{'players':>7} {'spec':<64} {'cpu median ms (range)':>24} {'cpu p95 ms':>20}")
    for n, runs in rows.items():
        for name, spec in specs.items():
            print(f"{n:>7} {spec:<64} {summary_line(runs[name], 'cpu_median'):>24} "
                  f"{summary_line(runs[name], 'cpu_p95'):>20}")  # fmt: skip
    if args.out:
        result = {
            "command": "python benchmarks/tri_palki_expert_speed.py " + " ".join(sys.argv[1:]),
            "date": datetime.date.today().isoformat(),
            "load_average": os.getloadavg()[0],
            "game": args.game,
            "specs": specs,
            "episodes": args.episodes,
            "seed": args.seed,
            "repeats": args.repeats,
            "players": rows,
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
