"""Learning curves of several training runs on one plot: the paired advantage over the
evaluation opponent (± 95% CI) against environment steps, from each run's ``eval.csv``.

Runs evaluated with the same ``eval_seed`` play the same evaluation deals at every checkpoint,
so their curves compare learning per environment step (e.g. the per-game and the batched
engine on the same config).

    python benchmarks/compare_learning_curves.py aec=docs/paston_eval.csv \\
        batched=docs/tournaments/paston_batched_retrain/training_eval.csv \\
        --out docs/tournaments/paston_batched_retrain/learning_curves.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _runs(items: list[str]) -> dict[str, Path]:
    runs: dict[str, Path] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"a run must be NAME=EVAL_CSV, got {item!r}")
        if not Path(path).is_file():
            raise ValueError(f"{path}: no such eval.csv")
        runs[name] = Path(path)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=EVAL_CSV", help="a run's eval.csv")
    parser.add_argument("--out", required=True, metavar="PNG", help="the plot to write")
    parser.add_argument("--title", default="", help="plot title")
    args = parser.parse_args(argv)
    try:
        runs = _runs(args.runs)
    except ValueError as exc:
        print(f"compare_learning_curves: {exc}", file=sys.stderr)
        return 2
    from folkcards.evaluate.plot import COLOURS, new_figure, save, style
    from folkcards.train.run_files import read_csv

    fig, axes = new_figure(6.5, 3.8, panels=1)
    ax = axes[0]
    width = max(len(name) for name in runs) + 2
    print(f"{'run':<{width}} {'step':>10} {'advantage':>10} {'± 95%':>8}  (last evaluation)")
    for k, (name, path) in enumerate(runs.items()):
        rows = read_csv(path)
        steps = np.array([float(r["step"]) for r in rows])
        adv = np.array([float(r["advantage"]) for r in rows])
        ci = np.nan_to_num(np.array([float(r["advantage_ci95"]) for r in rows]))
        colour = COLOURS[k % len(COLOURS)]
        ax.errorbar(steps, adv, yerr=ci, fmt="o-", color=colour, capsize=3, label=name, alpha=0.85)
        for r in rows[-1:]:
            print(
                f"{name:<{width}} {int(float(r['step'])):>10} {float(r['advantage']):>+10.3f} "
                f"{float(r['advantage_ci95']):>8.3f}"
            )
    ax.axhline(0.0, color="0.6", linewidth=0.8, linestyle="--")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("advantage (± 95% CI)")
    ax.legend(loc="best", fontsize=8)
    style(ax, args.title or "learning curves")
    print(f"wrote {save(fig, Path(args.out))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
