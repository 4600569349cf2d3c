"""Engine, heuristic, solver and belief speed of a git commit against the working tree, side by side.

For a change that must leave the speed as it was (a refactor such as the batched engines and the
Paston heuristic importing their vocabularies and sharing their compiled rules). The commit is exported
with ``git archive`` to a temporary folder laid out as the ``folkcards`` package (the mapping of
``package-dir`` in ``pyproject.toml``); the working tree is laid out the same way. Each
measurement runs in a fresh process from the *current* benchmark scripts
(``batched_speed.run_batched``, the heuristics' rates, ``solver_speed``'s deals, ``belief_speed``'s
positions), so both sides are timed by
the same code; the two sides alternate within every repeat (before, after, then after, before)
so that a change in the machine's load falls on both. A first untimed round compiles and caches
each side's numba code.

    python benchmarks/before_after.py --ref 80a3f1a --repeats 5 --seconds 2

Prints, for every measurement, the median of the repeats with the lowest and highest run, and
the ratio of the medians (after / before). The machine's load average is printed too: figures
from a shared machine are noisy, so read the spread before the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import tomllib

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
# belief_speed's Paston positions, in its order
PASTON_POSITIONS = (
    "auction",
    "first deal",
    "trick 5, defender",
    "trick 5, declarer",
    "trick 9, defender",
)

# One measurement, run in a fresh process with the tree to measure first on sys.path; prints a
# JSON number (steps or decisions per second; wall clock unless --cpu).
_PROBE = """
import json, sys
sys.path.insert(0, {bench!r})
kind, game, size, seconds = {kind!r}, {game!r}, {size!r}, {seconds!r}
import time
clock = time.process_time if {cpu!r} else time.perf_counter
if kind == "engine":
    import batched_speed
    rate = batched_speed.run_batched(game, size, 4, seconds, 0)["steps_per_s"]
elif kind == "solver":
    import time
    import numpy as np
    import solver_speed
    rng = np.random.default_rng([0, size])
    deals = [solver_speed.random_first_lead(rng, sole=bool(size)) for _ in range(40)]
    solver = solver_speed.PastonSolver()
    solver.solve(deals[0])  # compiled code loaded
    count, start = 0, clock()
    while clock() - start < seconds:
        solver.solve(deals[count % len(deals)])
        count += 1
    rate = count / (clock() - start)
elif kind == "belief":
    import time
    import numpy as np
    import belief_speed
    env, observer = belief_speed.tri_palki_position(0, 4, size)
    belief_speed.measure(game, env, observer, 50, 1, 0)  # compiled code loaded
    count, start = 0, clock()
    while clock() - start < seconds:
        belief_speed.measure(game, env, observer, 500, 1, count)
        count += 500
    rate = count / (clock() - start)
elif kind == "paston_belief":
    import time
    import belief_speed
    cases = [p for p in belief_speed.positions(0) if p[0] == "paston"]
    _, _, env, observer = cases[size]
    belief_speed.measure("paston", env, observer, 50, 1, 0)  # first call's set-up done
    count, start = 0, clock()
    while clock() - start < seconds:
        belief_speed.measure("paston", env, observer, 500, 1, count)
        count += 500
    rate = count / (clock() - start)
elif kind == "pimc":
    import time
    from folkcards.agents import make_agent
    from folkcards.envs import tri_palki_v0
    spent, count, round_seed = 0.0, 0, 0
    while spent < seconds:
        env = tri_palki_v0.raw_env(num_players=4)
        env.reset(seed=round_seed)
        agents = {{a: make_agent("heuristic", "tri_palki", a, seed=1) for a in env.possible_agents}}
        agents["player_0"] = make_agent(f"pimc:samples={{size}}", "tri_palki", "player_0", seed=0)
        while env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
            agent = env.agent_selection
            start = clock()
            action = agents[agent].act(env.observe(agent))
            if agent == "player_0":
                spent += clock() - start
                count += 1
            env.step(action)
        round_seed += 1
    rate = count / spent
elif game == "tri_palki":
    import heuristic_batched_tri_palki as ht
    obs, mask = ht.sample_decisions(4, 4096, 0)
    if size == 0:
        agent = ht.TriPalkiHeuristicAgent()
        dicts = [{{"observation": o, "action_mask": m}} for o, m in zip(obs[:500], mask[:500])]
        def run():
            for observation in dicts:
                agent.act(observation)
            return len(dicts)
    else:
        heuristic = ht.BatchedTriPalkiHeuristic(4)
        def run():
            return len(heuristic.act(obs[:size], mask[:size]))
    rate = ht.rate(run, seconds, 1)[0]
else:
    import heuristic_batched as hb
    obs, mask = hb.decision_pool(4096, 0)
    if size == 0:
        rate = hb.rate_per_game(obs, mask, seconds)
    else:
        hb.rate_batched(obs, mask, size, 0.05)  # compiled code loaded, threads started
        rate = hb.rate_batched(obs, mask, size, seconds)
import folkcards.agents.paston_heuristic as measured
print(json.dumps([rate, measured.__file__]))
"""


def _layout(source: Path, target: Path) -> Path:
    """``target/folkcards/...`` as symlinks into ``source``, following ``package-dir``."""
    config = tomllib.loads((source / "pyproject.toml").read_text())
    package_dir = config["tool"]["setuptools"]["package-dir"]
    root = target / "folkcards"
    root.mkdir(parents=True)
    for entry in (source / package_dir["folkcards"]).iterdir():
        (root / entry.name).symlink_to(entry)
    for package, folder in package_dir.items():
        if package != "folkcards":
            (root / package.split(".", 1)[1]).symlink_to(source / folder)
    return target


def _export(ref: str, target: Path) -> Path:
    """The tree of commit ``ref`` in ``target/src``."""
    src = target / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", ref],
        check=True,
        capture_output=True,
    ).stdout
    archive_path = target / "ref.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(src, filter="data")
    return src


def run_in_tree(path: Path, code: str) -> list[Any]:
    """Run ``code`` in a fresh process with the tree at ``path`` first on the path; it prints a
    JSON list whose last item is a measured module's file, checked to lie in that tree. Returns
    the other items."""
    env = dict(os.environ, PYTHONPATH=str(path))
    # run outside the repository: its folkcards/ folder would shadow the tree on the path
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=path,
    ).stdout
    *items, module = json.loads(out.strip().splitlines()[-1])
    if not Path(module).is_relative_to(path):
        raise RuntimeError(f"measured {module}, not the tree in {path}")
    return items


def _measure(
    path: Path, kind: str, game: str, size: int, seconds: float, cpu: bool = False
) -> float:
    code = _PROBE.format(
        bench=str(BENCH), kind=kind, game=game, size=size, seconds=seconds, cpu=cpu
    )
    (rate,) = run_in_tree(path, code)
    return float(rate)


def _cell(runs: list[float]) -> str:
    return f"{statistics.median(runs):,.0f} ({min(runs):,.0f}–{max(runs):,.0f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", required=True, help="the commit to compare against")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--engine-sizes", type=int, nargs="*", default=[1, 256, 4096])
    parser.add_argument(
        "--heuristic-sizes",
        type=int,
        nargs="*",
        default=[0, 1, 4096],
        help="batch sizes M of the heuristics (0: the per-game agent)",
    )
    parser.add_argument(
        "--solver-cases",
        type=int,
        nargs="*",
        default=[0, 1],
        help="open-hand solves to time: 0 two defenders, 1 a sole defender",
    )
    parser.add_argument(
        "--belief-turns",
        type=int,
        nargs="*",
        default=[0, 12],
        help="Tri Palki belief positions to time, by the actions played before",
    )
    parser.add_argument(
        "--paston-belief-cases",
        type=int,
        nargs="*",
        default=[0, 2],
        help="Paston belief positions to time, by index into belief_speed's Paston positions",
    )
    parser.add_argument(
        "--pimc-samples",
        type=int,
        nargs="*",
        default=[8],
        help="worlds of the Tri Palki pimc agent whose decisions are timed (4 players, its "
        "reconstruction, likelihood and sampling included)",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time the solver, belief and pimc measurements in the process's CPU time instead "
        "of wall clock (steadier on a loaded machine)",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0:
        parser.error("--repeats must be positive and --seconds above 0")
    cases = [("engine", game, n) for game in ("paston", "tri_palki") for n in args.engine_sizes]
    cases += [("heuristic", "paston", m) for m in args.heuristic_sizes]
    cases += [("heuristic", "tri_palki", m) for m in args.heuristic_sizes]
    cases += [("solver", "paston", sole) for sole in args.solver_cases]
    cases += [("belief", "tri_palki", turns) for turns in args.belief_turns]
    cases += [("paston_belief", "paston", k) for k in args.paston_belief_cases]
    cases += [("pimc", "tri_palki", samples) for samples in args.pimc_samples]
    work = Path(tempfile.mkdtemp(prefix="folkcards-before-after-"))
    try:
        before = _layout(_export(args.ref, work / "before"), work / "before" / "path")
        after = _layout(REPO, work / "after")
        sides = {"before": before, "after": after}
        for kind, game, size in cases:  # compile and cache, untimed
            for path in sides.values():
                _measure(path, kind, game, size, 0.05)
        runs: dict[tuple[str, str, int, str], list[float]] = {}
        for repeat in range(args.repeats):
            order = ("before", "after") if repeat % 2 == 0 else ("after", "before")
            for kind, game, size in cases:
                for side in order:
                    rate = _measure(sides[side], kind, game, size, args.seconds, args.cpu)
                    print(
                        f"{kind} {game} {size} {side} repeat {repeat}: {rate:,.1f}", file=sys.stderr
                    )
                    runs.setdefault((kind, game, size, side), []).append(rate)
        load = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{args.ref} (before) against the working tree (after); {args.repeats} repeats of ")
    clock = (
        "CPU time for the solver, belief and pimc, else wall clock" if args.cpu else "wall clock"
    )
    print(f"{args.seconds:g} s; median (lowest–highest) per second, {clock}\n")
    print("| measurement | N | before | after | after / before |")
    print("|---|---|---|---|---|")
    for kind, game, size in cases:
        b = runs[(kind, game, size, "before")]
        a = runs[(kind, game, size, "after")]
        label = {
            "engine": f"{game} batched engine, steps/s",
            "heuristic": f"{game} heuristic, decisions/s",
            "solver": "paston open-hand solve at the first lead, deals/s",
            "belief": "tri_palki belief (4 players), worlds/s with to_engine",
            "paston_belief": "paston belief, worlds/s with to_engine",
            "pimc": "tri_palki pimc (4 players), decisions/s",
        }[kind]
        n = {
            "heuristic": "per game" if size == 0 else str(size),
            "solver": "sole defender" if size else "two defenders",
            "belief": f"after {size} actions",
            "paston_belief": PASTON_POSITIONS[size % len(PASTON_POSITIONS)],
            "pimc": f"{size} worlds",
        }.get(kind, str(size))
        ratio = statistics.median(a) / statistics.median(b)
        print(f"| {label} | {n} | {_cell(b)} | {_cell(a)} | {ratio:.2f} |")
    print(f"\nload average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
