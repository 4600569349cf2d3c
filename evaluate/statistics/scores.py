"""The score table: per agent the mean score with its t interval paired by deal, win rates (game /
match mode) and openskill ratings; ``results["agents"]``, ``agents.csv``, ``scores.png``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..formatting import interval, md_table, num, plain, score_digits, signed
from . import intervals as st
from .base import CsvTable, Results, Statistic, StatisticInput
from .ratings import METHOD as RATINGS_METHOD
from .ratings import Rating, ratings


def clean(x: float | None) -> float | None:
    """``None`` for a missing or NaN number (JSON has no NaN)."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def seat_values(unit: dict[str, Any], field: str) -> dict[str, float]:
    """agent -> one number of one unit's per-seat results (a win counts 1)."""
    return {a: float(r[field] or 0) for a, r in zip(unit["seats"], unit["result"], strict=True)}


@dataclass
class AgentScore:
    """One row of the score table (``results["agents"]``)."""

    name: str
    spec: str
    units: int
    score: st.Interval | None
    rating: Rating
    wins: int | None = None  # game / match mode only
    win_rate: st.WinRate | None = None
    rank: int = 0

    def as_dict(self) -> dict[str, Any]:
        ci = self.score
        row: dict[str, Any] = {
            "name": self.name,
            "spec": self.spec,
            "deals": ci.n if ci else 0,
            "units": self.units,
            "mean": clean(ci.mean) if ci else None,
            "ci_low": clean(ci.low) if ci else None,
            "ci_high": clean(ci.high) if ci else None,
            "half_width": clean(ci.half_width) if ci else None,
            "sd": clean(ci.sd) if ci else None,
            "mu": self.rating.mu,
            "sigma": self.rating.sigma,
            "ordinal": self.rating.ordinal,
            "rank": self.rank,
        }
        if self.wins is not None:
            win = self.win_rate
            row["wins"] = self.wins
            row["win_rate"] = clean(win.rate) if win else None
            row["win_low"] = clean(win.low) if win else None
            row["win_high"] = clean(win.high) if win else None
        return row


def ranked(rows: list[AgentScore], higher_is_better: bool) -> list[AgentScore]:
    """Best mean first (agents without a mean last, in entry order); sets ``rank``."""
    sign = 1.0 if higher_is_better else -1.0

    def mean(row: AgentScore) -> float | None:
        return clean(row.score.mean) if row.score else None

    order = sorted(
        range(len(rows)),
        key=lambda i: (-(sign * m) if (m := mean(rows[i])) is not None else math.inf, i),
    )
    out = [rows[i] for i in order]
    for rank, row in enumerate(out, 1):
        row.rank = rank
    return out


def agent_scores(inp: StatisticInput) -> list[AgentScore]:
    """The score table's rows, ranked."""
    units, match = inp.units, inp.runner.match_mode
    intervals = st.paired_ci_by_deal([(u["deal"], seat_values(u, "score")) for u in units])
    wins: dict[str, st.WinRate] = {}
    if match:
        wins = st.win_rate([(u["deal"], seat_values(u, "win")) for u in units])
    rated = ratings(inp.names, units)
    rows = []
    for e in inp.config.agents:
        won = None
        if match:
            won = sum(
                1
                for u in units
                for a, r in zip(u["seats"], u["result"], strict=True)
                if a == e.name and r["win"]
            )
        rows.append(
            AgentScore(
                name=e.name,
                spec=e.spec,
                units=sum(1 for u in units if e.name in u["seats"]),
                score=intervals.get(e.name),
                rating=rated[e.name],
                wins=won,
                win_rate=wins.get(e.name),
            )
        )
    return ranked(rows, inp.runner.higher_is_better)


def compute(inp: StatisticInput) -> list[dict[str, Any]]:
    return [row.as_dict() for row in agent_scores(inp)]


def method(inp: StatisticInput) -> dict[str, str]:
    unit, units, metric = inp.config.unit_name, inp.config.unit_plural, inp.runner.metric
    text = {
        "score": (
            f"mean {metric} ({'higher' if inp.runner.higher_is_better else 'lower'} is better); "
            f"per agent the results of a {unit} are averaged over its rotations first, then a 95% "
            f"Student t interval over {units} (df = n - 1, exact t quantile)"
        ),
        "ratings": RATINGS_METHOD,
    }
    if inp.runner.match_mode:
        text["win_rate"] = (
            f"Wilson 95% interval; one trial per {unit} seed (an agent's wins averaged over the "
            f"rotations of the {unit} first), so n = number of {units}"
        )
    return text


def _match_mode(results: Results) -> bool:
    return any("win_rate" in a for a in results["agents"])


def csv_columns(results: Results) -> list[str]:
    cols = ["rank", "name", "spec", "deals", "units", "mean", "ci_low", "ci_high", "half_width"]
    cols.append("sd")
    if _match_mode(results):
        cols += ["wins", "win_rate", "win_low", "win_high"]
    return [*cols, "mu", "sigma", "ordinal"]


def csv_rows(results: Results) -> list[list[Any]]:
    cols = csv_columns(results)
    return [[a.get(c) for c in cols] for a in results["agents"]]


def console(results: Results) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    cfg = results["config"]
    unit, units = results["unit"], results["unit_plural"]
    match_mode = _match_mode(results)
    digits = score_digits(results)
    seatings = results["units_stored"] // max(1, results["deals_complete"])
    title = (
        f"{cfg['game']} — {results['deals_complete']} {units} x {seatings} "
        f"seatings, seed {cfg['seed']}: mean {results['metric']} "
        f"({'higher' if results['higher_is_better'] else 'lower'} is better), 95% CI paired by {unit}"
    )
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    fmt = signed if results["higher_is_better"] else plain  # sticks are never negative
    # the spec column only when a name does not already say it (random, random#2, ...)
    show_spec = any(a["name"].split("#")[0] != a["spec"] for a in results["agents"])
    columns = ["#", "agent"] + (["spec"] if show_spec else []) + [units, "mean", "95% CI"]
    if match_mode:
        columns += ["wins", "win rate", "Wilson 95%"]
    columns += ["openskill μ ± σ", "ordinal"]
    for column in columns:
        left = column in ("agent", "spec")
        table.add_column(column, justify="left" if left else "right", no_wrap=column != "#")
    for a in results["agents"]:
        row = [str(a["rank"]), escape(a["name"])] + ([escape(a["spec"])] if show_spec else [])
        row += [
            str(a["deals"]),
            fmt(a["mean"], digits),
            f"[{fmt(a['ci_low'], digits)}, {fmt(a['ci_high'], digits)}]",
        ]
        if match_mode:
            row += [
                f"{a.get('wins', 0)}/{a['units']}",
                plain(a.get("win_rate"), 3),
                f"[{plain(a.get('win_low'), 3)}, {plain(a.get('win_high'), 3)}]",
            ]
        row += [f"{a['mu']:.2f} ± {a['sigma']:.2f}", f"{a['ordinal']:.2f}"]
        table.add_row(*row)
    return table


def section(results: Results) -> list[str]:
    digits = score_digits(results)
    sign = results["higher_is_better"]
    match = _match_mode(results)
    header = ["#", "agent", results["unit_plural"], f"mean {results['metric']}", "95% CI"]
    if match:
        header += ["wins", "win rate", "Wilson 95%"]
    rows = []
    for a in results["agents"]:
        row = [
            str(a["rank"]),
            a["name"],
            str(a["deals"]),
            num(a["mean"], digits, sign),
            interval(a["ci_low"], a["ci_high"], digits, sign),
        ]
        if match:
            row += [
                f"{a.get('wins', 0)}/{a['units']}",
                num(a.get("win_rate"), 3),
                interval(a.get("win_low"), a.get("win_high"), 3, False),
            ]
        rows.append(row)
    better = "higher" if results["higher_is_better"] else "lower"
    return [
        f"Mean {results['metric']} ({better} is better), 95% Student t interval over "
        f"{results['unit_plural']} of each agent's per-{results['unit']} mean.",
        "",
        *md_table(header, rows, right=2),
        "",
        "![scores](scores.png)",
    ]


def ratings_section(results: Results) -> list[str]:
    ranked_rows = sorted(results["agents"], key=lambda a: -a["ordinal"])
    rows = [
        (a["name"], f"{a['mu']:.2f}", f"{a['sigma']:.2f}", f"{a['ordinal']:.2f}")
        for a in ranked_rows
    ]
    return [
        results["method"].get("ratings", ""),
        "",
        *md_table(("agent", "μ", "σ", "ordinal"), rows, right=1),
    ]


def plot(results: Results, path: Path) -> Path:
    from ..plot import plot_scores

    return plot_scores(results, path)


SCORES = Statistic(
    key="agents",
    compute=compute,
    method=method,
    csv=(CsvTable("agents.csv", csv_columns, csv_rows),),
    plot=plot,
    plot_file="scores.png",
    console=console,
    sections=(("Scores", section), ("Ratings", ratings_section)),
)


__all__ = [
    "SCORES",
    "AgentScore",
    "agent_scores",
    "clean",
    "ranked",
    "ratings_section",
    "seat_values",
]
