"""How much of the exact best-response gain each probe (`folkcards exploit`) finds on Tri Palki tiny.

    python benchmarks/tri_palki_tiny_probe.py \\
        random/trained=docs/exploit/tri_palki_tiny/random_trained \\
        random/search=docs/exploit/tri_palki_tiny/random_search ...

Each ``AGENT/PROBE=DIR`` names a ``folkcards exploit`` run against the agent of row ``AGENT`` of
the exact result (``--exact``, written by ``benchmarks/tri_palki_tiny_exact.py`` at the same
``max_turns``); ``PROBE`` is a one-word label of the probe and its budget (``trained``,
``search``, ``search_policy`` ...). The run's measured gain (sticks per round, 95% interval,
paired by deal: the probe and the agent play the same duplicate deals) is divided by the
agent's exact exploitability (the exact best response's gain averaged over the two seats, as
the probe's rounds average the dealer's seat and the other): the fraction of the exact gain the
probe found. Writes ``--out`` as JSON, which ``scripts/figures.py`` reads.

Paston tiny's probes are compared the same way (table points per deal, the gain averaged over
the three seats as its exploitability is)::

    python benchmarks/tri_palki_tiny_probe.py --exact docs/results/paston_tiny_exact.json \
        --out docs/results/paston_tiny_probe.json random/trained=DIR heuristic/trained=DIR
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _budget(final: dict) -> str:
    """The probe's method and budget in words."""
    if final.get("method") == "search":
        s = final["search"]
        model = "uniform worlds" if not s["weighting"] else "worlds weighted by the agent"
        rollout = s["rollout"] or "the agent"
        return (
            f"search: {s['worlds']} of {s['candidates']} worlds ({model}), rollouts by "
            f"{rollout}, z {s['z']:g}"
        )
    return f"trained: {final['steps']:,} learner decisions, start {final['start']}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="AGENT/PROBE=DIR", help="exploit runs")
    parser.add_argument(
        "--exact", type=Path, default=ROOT / "docs/results/tri_palki_tiny_exact.json"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/tri_palki_tiny_probe.json")
    parser.add_argument(
        "--add-to",
        action="store_true",
        help="keep the rows already in --out (a row of the same AGENT/PROBE is replaced)",
    )
    parser.add_argument(
        "--pending",
        action="append",
        default=[],
        metavar="AGENT",
        help="an agent the exact result does not hold yet: its rows keep the probe's gain and "
        "no fraction (run again with --add-to once the exact value is computed)",
    )
    args = parser.parse_args(argv)
    exact = json.loads(args.exact.read_text(encoding="utf-8"))
    values = {row["agent"].split(" ")[0]: row["exploitability"] for row in exact["rows"]}
    values.update({agent: None for agent in args.pending if agent not in values})
    rows = []
    for run in args.runs:
        name, sep, folder = run.partition("=")
        agent, slash, probe = name.partition("/")
        if not sep or not slash or not re.fullmatch(r"\w+", probe) or agent not in values:
            parser.error(
                f"{run!r}: expected AGENT/PROBE=DIR, AGENT one of {', '.join(values)} and PROBE "
                "one word"
            )
        final_path = Path(folder) / "final.json"
        if not final_path.is_file():
            parser.error(f"{folder}: no final.json (not a finished folkcards exploit run)")
        final = json.loads(final_path.read_text(encoding="utf-8"))
        m = final["measurement"]
        if m["game"] != exact["game"]:
            parser.error(f"{folder} measured {m['agent']} on {m['game']}, not {exact['game']}")
        value = values[agent]
        # below a thousandth of a stick (an equilibrium) the fraction would be noise
        scale = value if value is not None and value > 1e-3 else None
        low, high = m["gain"] - m["ci95"], m["gain"] + m["ci95"]
        rows.append(
            {
                "agent": name,
                "spec": m["agent"],
                "probe": probe,
                "budget": _budget(final),
                "exact": value,
                "gain": m["gain"],
                "gain_low": low,
                "gain_high": high,
                "fraction": m["gain"] / scale if scale is not None else None,
                "fraction_low": low / scale if scale is not None else None,
                "fraction_high": high / scale if scale is not None else None,
                "deals": m["deals"],
                "run": Path(folder).resolve().relative_to(ROOT).as_posix()
                if Path(folder).resolve().is_relative_to(ROOT)
                else folder,
            }
        )
    if args.add_to and args.out.is_file():
        stored = json.loads(args.out.read_text(encoding="utf-8"))
        if stored["params"] != exact["params"]:
            parser.error(
                f"{args.out} holds another variant ({stored['params']}), not {exact['params']}"
            )
        new = {(r["agent"], r["probe"]) for r in rows}
        rows = [r for r in stored["rows"] if (r["agent"], r["probe"]) not in new] + rows
    result = {"game": exact["game"], "params": exact["params"], "rows": rows}
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
