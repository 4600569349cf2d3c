"""Tri Palki: the reconstruction of the other players' decisions, this tree against a commit's.

Every reconstruction a search player asks for (``reconstruct_steps`` between two of its views,
``reconstruct_opening`` at its first) is recorded as observation vectors from seeded rounds of
``expert:samples=8`` in every seat at each table size; each tree (the working tree and, with
``--ref``, that commit's, laid out as ``benchmarks/before_after.py`` does) then decodes and
reconstructs them all in a fresh process, the two sides alternating within every repeat. Per
table size: CPU milliseconds per reconstruction (median of the repeats, their range), the
99th percentile of one call, the work counted, and how the answers compare: the same
histories, histories found where the commit's gave up, or different.

    python benchmarks/tri_palki_reconstruction_speed.py --ref 13e3d10 --rounds 12 --repeats 3 \\
        --out docs/results/tri_palki_reconstruction_speed.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pickle
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from before_after import _export, _layout, run_in_tree  # noqa: E402

SIZES = (3, 4, 6, 8)
RECORDER_SPEC = "expert:samples=8,endgame_samples=0"

_TIMER = """
import hashlib, json, pickle, time
import numpy as np
from folkcards.envs.tri_palki import observation as obs_mod
from folkcards.search import tri_palki_reconstruction as recon
calls = pickle.load(open({corpus!r}, "rb"))
views = [[obs_mod.decode(np.asarray(v)) for v in call[1::2]] for call in calls]
out = []
for call, vs in zip(calls, views):
    counter = {{}}
    start = time.process_time()
    if call[0] == "steps":
        found = recon.reconstruct_steps(vs[0], call[2], vs[1], counter=counter)
    else:
        found = recon.reconstruct_opening(vs[0], counter=counter)
    seconds = time.process_time() - start
    digest = None if found is None else hashlib.sha1(repr(found).encode()).hexdigest()
    out.append([seconds, counter.get("reconstruction", 0), digest])
print(json.dumps([out, recon.__file__]))
"""


def record(rounds: int, seed: int) -> dict[int, list[tuple[Any, ...]]]:
    """The reconstructions asked for in ``rounds`` seeded rounds per table size, as
    ``("steps", before, action, after)`` or ``("opening", view)`` with views as vectors."""
    from folkcards.agents import make_agent
    from folkcards.agents.episode import play_episode
    from folkcards.envs import tri_palki_v0
    from folkcards.search import tri_palki_reconstruction as recon

    calls: list[tuple[Any, ...]] = []
    steps, opening = recon.reconstruct_steps, recon.reconstruct_opening

    def on_steps(before: Any, action: int, after: Any, **kw: Any) -> Any:
        calls.append(("steps", before, action, after))
        return steps(before, action, after, **kw)

    def on_opening(view: Any, **kw: Any) -> Any:
        calls.append(("opening", view))
        return opening(view, **kw)

    recon.reconstruct_steps, recon.reconstruct_opening = on_steps, on_opening  # type: ignore[assignment]
    by_size: dict[int, list[tuple[Any, ...]]] = {}
    try:
        for n in SIZES:
            calls.clear()
            env = tri_palki_v0.raw_env(num_players=n)
            for r in range(rounds):
                table = [
                    make_agent(RECORDER_SPEC, "tri_palki", f"player_{i}", seed=seed + r + i)
                    for i in range(n)
                ]
                play_episode(env, table, seed=seed + 1000 * n + r)
            by_size[n] = [_as_vectors(call) for call in calls]
    finally:
        recon.reconstruct_steps, recon.reconstruct_opening = steps, opening  # type: ignore[assignment]
    return by_size


def _as_vectors(call: tuple[Any, ...]) -> tuple[Any, ...]:
    from folkcards.envs.tri_palki import observation as obs_mod

    def vec(view: Any) -> list[float]:
        return obs_mod.encode_view(view).tolist()

    if call[0] == "steps":
        return ("steps", vec(call[1]), call[2], vec(call[3]))
    return ("opening", vec(call[1]))


def _side(path: Path, corpus: Path) -> list[list[Any]]:
    (rows,) = run_in_tree(path, _TIMER.format(corpus=str(corpus)))
    return list(rows)


def _summary(runs: list[list[list[Any]]]) -> dict[str, Any]:
    """Per-call CPU ms (median over the repeats' means, their range), p99 and work."""
    means = [1000 * statistics.fmean(r[0] for r in rows) for rows in runs]
    seconds = np.array([[r[0] for r in rows] for rows in runs])
    per_call = 1000 * np.median(seconds, axis=0)
    work = [r[1] for r in runs[0]]
    return {
        "ms_per_call": round(statistics.median(means), 3),
        "ms_range": [round(min(means), 3), round(max(means), 3)],
        "ms_p99": round(float(np.percentile(per_call, 99)), 3),
        "work_mean": round(statistics.fmean(work), 1),
        "work_max": max(work),
    }


def _compare(new: list[list[Any]], old: list[list[Any]]) -> dict[str, int]:
    same = sum(a[2] == b[2] for a, b in zip(new, old, strict=True))
    rescued = sum(a[2] is not None and b[2] is None for a, b in zip(new, old, strict=True))
    return {"same": same, "found_where_ref_gave_up": rescued, "other": len(new) - same - rescued}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", help="commit to compare with (its tree in a fresh process)")
    parser.add_argument("--rounds", type=int, default=12, help="recorded rounds per table size")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=8700)
    parser.add_argument("--out", type=Path, help="store the results as JSON")
    args = parser.parse_args(argv)
    repo = Path(__file__).resolve().parent.parent
    result: dict[str, Any] = {
        "command": "python benchmarks/tri_palki_reconstruction_speed.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.date.today().isoformat(),
        "load_average": os.getloadavg()[0],
        "recorder": RECORDER_SPEC,
        "ref": args.ref,
        "players": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trees = {"this": _layout(repo, folder / "this")}
        if args.ref:
            trees["ref"] = _layout(_export(args.ref, folder / "ref"), folder / "ref_layout")
        for n, calls in record(args.rounds, args.seed).items():
            corpus = folder / f"calls_{n}.pkl"
            corpus.write_bytes(pickle.dumps(calls))
            runs: dict[str, list[list[list[Any]]]] = {name: [] for name in trees}
            for repeat in range(args.repeats):
                order = list(trees) if repeat % 2 == 0 else list(reversed(trees))
                for name in order:
                    runs[name].append(_side(trees[name], corpus))
            row: dict[str, Any] = {"calls": len(calls)}
            row.update({name: _summary(r) for name, r in runs.items()})
            if "ref" in runs:
                row["ratio"] = round(row["this"]["ms_per_call"] / row["ref"]["ms_per_call"], 3)
                row["answers"] = _compare(runs["this"][0], runs["ref"][0])
            result["players"][str(n)] = row
            print(n, json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
