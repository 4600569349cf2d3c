"""THE plotting style of folkcards, and the tournament plot.

:func:`new_figure`, :func:`style` and :func:`save` are what every plot uses (the tournament's
scores here, the training learning curve in ``folkcards.train``): matplotlib's object API on the
Agg canvas (no pyplot, no global backend change), constrained layout, small titles, a light grid,
the ``tab`` colours in :data:`COLOURS`, 120 dpi PNGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DPI = 120
COLOURS = ("tab:blue", "tab:green", "tab:orange", "tab:red", "tab:purple", "tab:brown")
TITLE_SIZE = 10


def new_figure(width: float, height: float, panels: int = 1) -> tuple[Any, list[Any]]:
    """A figure of ``panels`` axes side by side (each ``width`` x ``height`` inches) on the Agg
    canvas, constrained layout: THE figure of every folkcards plot. Returns (figure, axes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * panels, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, list(fig.subplots(1, panels, squeeze=False)[0])


def style(ax: Any, title: str | None = None, grid: str = "both") -> None:
    """The house style of one axes: a small title and a light grid (``"x"``, ``"y"``, ``"both"``)."""
    if title is not None:
        ax.set_title(title, fontsize=TITLE_SIZE)
    ax.grid(axis=grid, alpha=0.3)


def save(fig: Any, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` (folders created) at the house resolution."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI)
    return path


def plot_scores(results: dict[str, Any], path: str | Path) -> Path:
    """Each agent's mean with its 95% interval (and its win rate in game / match mode)."""
    agents = [a for a in results["agents"] if a["mean"] is not None]
    match_mode = any(a.get("win_rate") is not None for a in agents)
    panels = 2 if match_mode else 1
    height = 1.2 + 0.45 * max(2, len(agents))
    fig, axes = new_figure(6.5, height, panels)
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
        means, ys, xerr=[low, high], fmt="o", color=COLOURS[0], ecolor=COLOURS[0], capsize=4
    )
    if results["higher_is_better"]:
        ax.axvline(0.0, color="0.6", linewidth=0.8, linestyle="--")
    ax.set_yticks(ys, labels)
    ax.set_ylim(-0.7, len(agents) - 0.3)
    better = "higher" if results["higher_is_better"] else "lower"
    ax.set_xlabel(f"mean {results['metric']} ({better} is better), 95% CI")
    style(
        ax,
        f"{cfg['game']}: {results['deals_complete']} {results['unit_plural']}, seed {cfg['seed']}",
        grid="x",
    )

    if match_mode:
        ax = axes[1]
        rates = [a["win_rate"] for a in agents]
        wl = [max(0.0, a["win_rate"] - a["win_low"]) for a in agents]
        wh = [max(0.0, a["win_high"] - a["win_rate"]) for a in agents]
        ax.errorbar(
            rates, ys, xerr=[wl, wh], fmt="s", color=COLOURS[1], ecolor=COLOURS[1], capsize=4
        )
        ax.set_yticks(ys, labels)
        ax.set_ylim(-0.7, len(agents) - 0.3)
        ax.set_xlim(0.0, 1.0)
        ax.set_xlabel("win rate, Wilson 95% interval")
        style(ax, f"wins per {results['unit']}", grid="x")
    return save(fig, path)


def _interval_bars(
    ax: Any,
    rows: list[list[dict[str, Any]]],
    names: list[str],
    labels: list[str],
    scale: float = 1.0,
) -> None:
    """Grouped horizontal bars: one group per statistic, one bar per agent, with intervals."""
    import numpy as np

    height = 0.8 / max(1, len(names))
    ys = np.arange(len(labels))
    for a, name in enumerate(names):
        values, low, high = [], [], []
        for row in rows:
            r = row[a]
            v = r.get("value") if "value" in r else r.get("mean")
            v = float("nan") if v is None else v * scale
            values.append(v)
            lo, hi = r.get("ci_low"), r.get("ci_high")
            low.append(0.0 if lo is None or v != v else max(0.0, v - lo * scale))
            high.append(0.0 if hi is None or v != v else max(0.0, hi * scale - v))
        offset = (a - (len(names) - 1) / 2) * height
        ax.barh(
            ys + offset,
            values,
            height=height,
            color=COLOURS[a % len(COLOURS)],
            label=name,
            xerr=[low, high],
            error_kw={"capsize": 2, "elinewidth": 0.8},
        )
    ax.set_yticks(ys, labels)
    ax.invert_yaxis()


def plot_behaviour(results: dict[str, Any], path: str | Path) -> Path:
    """The headline behaviour rates of every agent (bars, 95% bootstrap intervals), and for a
    game with a split statistic (Paston: the whist rate by who declares) a second panel."""
    from folkcards.envs.registry import game_spec

    game = results["config"]["game"]
    statistics = game_spec(game).piece("statistics")
    behaviour = results["behaviour"]
    names = [a["name"] for a in results["agents"] if a["name"] in behaviour]
    picked = [(k, lab) for k, lab in statistics.plot if k in behaviour[names[0]]]
    split = statistics.split
    panels = 2 if split else 1
    fig, axes = new_figure(5.0, 1.2 + 0.35 * len(picked) * max(1, len(names)) ** 0.5, panels)
    rows = [[behaviour[n][k] for n in names] for k, _ in picked]
    _interval_bars(axes[0], rows, names, [lab for _, lab in picked], scale=100.0)
    axes[0].set_xlabel(f"% (95% bootstrap interval over {results['unit_plural']})")
    axes[0].set_xlim(0, 100)
    style(axes[0], f"{game}: how each agent plays", grid="x")
    axes[0].legend(fontsize=8, loc="lower right")
    if split:
        ax = axes[1]
        keys = [f"{split.key}_vs_{n}" for n in names]
        rows = [[behaviour[n][k] for n in names] for k in keys]
        _interval_bars(ax, rows, names, [f"declarer {n}" for n in names], scale=100.0)
        ax.set_xlabel(split.axis)
        ax.set_xlim(0, 100)
        style(ax, split.title, grid="x")
    return save(fig, path)


def plot_seat_effects(results: dict[str, Any], path: str | Path) -> Path:
    """Each agent's mean score by position relative to the dealer, with 95% t intervals."""
    effects = results["seat_effects"]
    names = [a["name"] for a in results["agents"] if a["name"] in effects]
    positions = [r["position"] for r in effects[names[0]]]
    fig, axes = new_figure(6.0, 1.2 + 0.4 * len(positions) * max(1, len(names)) ** 0.5)
    rows = [[effects[n][p] for n in names] for p in range(len(positions))]
    from folkcards.envs.registry import game_spec

    statistics = game_spec(results["config"]["game"]).piece("statistics")
    _interval_bars(axes[0], rows, names, positions, scale=statistics.seat_effect_scale)
    what = statistics.seat_effect_label
    axes[0].set_xlabel(f"{what}, 95% t interval over {results['unit_plural']}")
    if results["higher_is_better"]:
        axes[0].axvline(0.0, color="0.6", linewidth=0.8, linestyle="--")
    style(
        axes[0], f"{results['config']['game']}: score by position relative to the dealer", grid="x"
    )
    axes[0].legend(fontsize=8, loc="best")
    return save(fig, path)
