"""How much of the exact best-response gain ``folkcards exploit`` finds on Tri Palki tiny.

    python benchmarks/tri_palki_tiny_probe.py random=docs/exploit/tri_palki_tiny_random \\
        heuristic=docs/exploit/tri_palki_tiny_heuristic

Each ``AGENT=DIR`` names a ``folkcards exploit --config configs/exploit/tri_palki_tiny.yaml
--agent AGENT --out DIR`` run. Its measured gain (sticks per round, 95% interval) is divided by
the agent's exact exploitability from ``--exact`` (``benchmarks/tri_palki_tiny_exact.py``, same
``max_turns``): the fraction of the exact gain the probe found. Writes ``--out`` as JSON, which
``scripts/figures.py`` reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="AGENT=DIR", help="exploit runs")
    parser.add_argument(
        "--exact", type=Path, default=ROOT / "docs/results/tri_palki_tiny_exact.json"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/tri_palki_tiny_probe.json")
    args = parser.parse_args(argv)
    exact = json.loads(args.exact.read_text(encoding="utf-8"))
    values = {row["agent"].split(" ")[0]: row["exploitability"] for row in exact["rows"]}
    rows = []
    for run in args.runs:
        agent, sep, folder = run.partition("=")
        if not sep or agent not in values:
            parser.error(f"{run!r}: expected AGENT=DIR with AGENT one of {', '.join(values)}")
        m = json.loads((Path(folder) / "final.json").read_text(encoding="utf-8"))["measurement"]
        if m["game"] != exact["game"] or m["agent"] != agent:
            parser.error(f"{folder} measured {m['agent']} on {m['game']}, not {agent}")
        value = values[agent]
        rows.append(
            {
                "agent": agent,
                "exact": value,
                "gain": m["gain"],
                "gain_low": m["gain"] - m["ci95"],
                "gain_high": m["gain"] + m["ci95"],
                "fraction": m["gain"] / value,
                "fraction_low": (m["gain"] - m["ci95"]) / value,
                "fraction_high": (m["gain"] + m["ci95"]) / value,
                "deals": m["deals"],
                "run": folder,
            }
        )
    result = {"game": exact["game"], "params": exact["params"], "rows": rows}
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
