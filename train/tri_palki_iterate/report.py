"""A run's report: every generation's steps (``summary.json``) and curves (``curves.png``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .config import IterateConfig
from .layout import gen_dir, read_json, write_json


def summarise(config: IterateConfig, run_dir: Path) -> dict[str, Any]:
    """Every generation's steps so far (``summary.json``) and the curves (``curves.png``)."""
    rows = []
    for g in range(1, config.generations + 1):
        folder = gen_dir(run_dir, g)
        if not folder.is_dir():
            break
        chunks = sorted((folder / "data").glob("chunk_????.npz"))
        sticks = []
        for path in chunks:
            with np.load(path) as data:
                sticks.append(data["teacher_sticks"])
        row: dict[str, Any] = {
            "generation": g,
            "chunks": len(chunks),
            "teacher_sticks_per_round": (
                round(float(np.concatenate(sticks).mean()), 4) if sticks else None
            ),
            "fit": read_json(folder / "net" / "fit.json"),
            "gate": read_json(folder / "gate" / "gate.json"),
        }
        rows.append(row)
    summary: dict[str, Any] = {"config": config.model_dump(), "generations": rows}
    if config.parent is not None:  # the first generations are the parent's, under its config
        summary["parent_config"] = read_json(Path(config.parent.run_dir) / "config.json")
    write_json(run_dir / "summary.json", summary)
    _plot(rows, run_dir / "curves.png")
    return summary


def _errors(pairs: list[dict[str, Any]]) -> list[list[float]]:
    """Error bars (below, above the mean) of paired results; 0 where there is no interval."""
    below = [p["mean_diff"] - p["ci_low"] if p["ci_low"] is not None else 0.0 for p in pairs]
    above = [p["ci_high"] - p["mean_diff"] if p["ci_high"] is not None else 0.0 for p in pairs]
    return [below, above]


def _plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    ax = axes[0]
    series = (
        ("vs_teacher", "new - teacher"),
        ("vs_heuristic", "new - heuristic"),
        ("expert", "new - expert"),
    )
    for offset, (key, label) in zip((-0.1, 0.0, 0.1), series, strict=True):
        points = [
            (r["generation"], (r["gate"].get("report") or {}).get(key) or r["gate"].get(key))
            for r in rows
            if r["gate"]
        ]
        points = [(g, p) for g, p in points if p]
        if points:
            pairs = [p for _, p in points]
            ax.errorbar(
                [g + offset for g, _ in points], [p["mean_diff"] for p in pairs],
                yerr=_errors(pairs),
                marker="o", capsize=3, label=label,
            )  # fmt: skip
    ax.axhline(0, color="grey", lw=0.8)
    gated = [r for r in rows if r["gate"]]
    sizes = {r["gate"].get("num_players", 3) for r in gated}
    if len(sizes) > 1:  # gates at several table sizes: say which under each generation
        ax.set_xticks([r["generation"] for r in gated])
        ax.set_xticklabels(
            [f"{r['generation']}\n({r['gate'].get('num_players', 3)} players)" for r in gated]
        )
    else:
        ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("generation")
    ax.set_ylabel("sticks per round (lower is better), 95% interval")
    ax.set_title("gates (duplicate, every seating)")
    ax.legend(fontsize=8)
    ax = axes[1]
    fitted = [r for r in rows if r["fit"]]
    generations = [r["generation"] for r in fitted]
    ax.plot(generations, [r["fit"]["held_out_agreement"] for r in fitted], marker="o",
            label="policy: held-out agreement with the search")  # fmt: skip
    ax.plot(generations, [r["fit"]["held_out_heuristic_rules_agreement"] for r in fitted],
            marker="x", label="heuristic rules: the same")  # fmt: skip
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("generation")
    ax.set_title("fit")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
