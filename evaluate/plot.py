"""The tournament plot: each agent's mean score with its 95% interval (and win rates in game mode).

Drawn with matplotlib's object API on the Agg canvas: no pyplot, no global backend change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_scores(results: dict[str, Any], path: str | Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    agents = [a for a in results["agents"] if a["mean"] is not None]
    match_mode = any(a.get("win_rate") is not None for a in agents)
    panels = 2 if match_mode else 1
    height = 1.2 + 0.45 * max(2, len(agents))
    fig = Figure(figsize=(6.5 * panels, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, panels, squeeze=False)[0]
    cfg = results["config"]
    # best at the top
    agents = list(reversed(agents))
    labels = [f"{a['name']}" for a in agents]
    ys = list(range(len(agents)))

    ax = axes[0]
    means = [a["mean"] for a in agents]
    low = [max(0.0, a["mean"] - a["ci_low"]) if a["ci_low"] is not None else 0.0 for a in agents]
    high = [max(0.0, a["ci_high"] - a["mean"]) if a["ci_high"] is not None else 0.0 for a in agents]
    ax.errorbar(
        means, ys, xerr=[low, high], fmt="o", color="tab:blue", ecolor="tab:blue", capsize=4
    )
    if results["higher_is_better"]:
        ax.axvline(0.0, color="0.6", linewidth=0.8, linestyle="--")
    ax.set_yticks(ys, labels)
    ax.set_ylim(-0.7, len(agents) - 0.3)
    better = "higher" if results["higher_is_better"] else "lower"
    ax.set_xlabel(f"mean {results['metric']} ({better} is better), 95% CI")
    ax.set_title(
        f"{cfg['game']}: {results['deals_complete']} {results['unit_plural']}, seed {cfg['seed']}",
        fontsize=10,
    )
    ax.grid(axis="x", alpha=0.3)

    if match_mode:
        ax = axes[1]
        rates = [a["win_rate"] for a in agents]
        wl = [max(0.0, a["win_rate"] - a["win_low"]) for a in agents]
        wh = [max(0.0, a["win_high"] - a["win_rate"]) for a in agents]
        ax.errorbar(
            rates, ys, xerr=[wl, wh], fmt="s", color="tab:green", ecolor="tab:green", capsize=4
        )
        ax.set_yticks(ys, labels)
        ax.set_ylim(-0.7, len(agents) - 0.3)
        ax.set_xlim(0.0, 1.0)
        ax.set_xlabel("win rate, Wilson 95% interval")
        ax.set_title(f"wins per {results['unit']}", fontsize=10)
        ax.grid(axis="x", alpha=0.3)

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path
