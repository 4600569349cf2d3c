"""How each agent plays, counted from the stored records (old databases work too):
``results["behaviour"]``, ``behaviour.csv``, ``behaviour.png``.

Every stored episode's ``record`` is replayed through the game's rules engine by the game's
counters, its registry piece ``statistics`` (a :class:`GameStatistics`: :mod:`.paston_behaviour`,
:mod:`.tri_palki_behaviour`), so each decision is seen in its phase: a pass in the auction is not
a pass in the defence, an announce decision (action 11 or 12) exists only when the rules offered
it, a swap that left a one-suit centre caused a wash. This module never names a game.

**Counting.** Each seat of each deal (Paston) or round (Tri Palki) adds named counts to a
:class:`collections.Counter`; the counts of an agent are summed per tournament deal (one seed:
all its line-ups and seatings), and every statistic is a ratio of two summed counts (a rate:
events / opportunities; a mean: total / occasions). The optional bootstrap interval
(:func:`.intervals.bootstrap_ratio`) resamples tournament deals, the independent unit, and
recomputes the ratio.

**Seat effects.** The score of every seat by its position relative to the dealer of that deal or
round (Paston: the dealer, who bids last; the dealer's left, who bids first except on a game's
first deal; the dealer's right; Tri Palki: the dealer acts first, then clockwise among the
players still in), with a 95% t interval over tournament deals of the agent's per-deal mean at
that position.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.envs.registry import game_spec

from ..formatting import format_stat, md_table
from . import intervals as st
from .base import CsvTable, Results, Statistic, StatisticInput

# --- what a game's statistics are ---------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """One statistic: ``sum(num) / sum(den)`` over the agent's counts; ``kind`` is how to show it
    (``rate`` as a share in [0, 1], ``mean`` as a number)."""

    key: str
    label: str
    num: str
    den: str
    kind: str = "rate"


@dataclass(frozen=True)
class SplitMetric:
    """A rate also shown per opponent: counts ``{num}@{name}`` over ``{den}@{name}``."""

    key: str  # the metric split ("whist_rate")
    label: str  # per opponent, with {name} ("whist rate against declarer {name}")
    title: str  # of the plot panel
    axis: str  # the plot panel's x label


@dataclass(frozen=True)
class GameStatistics:
    """A game's behaviour statistics, named by its registry entry (``GameSpec.statistics``).

    ``metrics(seats, match)`` in report order; ``counts(record, seats, match)`` one Counter per
    seat of a stored episode; ``positions(seats)`` the names of the positions relative to the
    dealer (``pos{p}`` / ``score_pos{p}`` counts); ``plot`` the (metric key, short label) pairs
    the behaviour plot shows; the seat-effects plot shows scores × ``seat_effect_scale`` as
    ``seat_effect_label``.
    """

    metrics: Callable[[int, bool], list[Metric]]
    counts: Callable[[dict[str, Any], Sequence[str], bool], list[Counter[str]]]
    positions: Callable[[int], list[str]]
    plot: tuple[tuple[str, str], ...]
    seat_effect_label: str
    seat_effect_scale: float = 1.0
    split: SplitMetric | None = None


def statistics_of(game: str) -> GameStatistics:
    """The game's :class:`GameStatistics` (from its registry entry)."""
    return game_spec(game).piece("statistics")


def metrics_of(game: str, seats: int, match: bool) -> list[Metric]:
    """The behaviour statistics of a game, in report order."""
    return statistics_of(game).metrics(seats, match)


# --- aggregation --------------------------------------------------------------------------------


def unit_counts(game: str, match: bool, unit: dict[str, Any]) -> list[Counter[str]]:
    """One stored unit's counts per seat (its record replayed)."""
    return statistics_of(game).counts(unit["record"], unit["seats"], match)


def counts_by_deal(
    game: str, match: bool, units: Iterable[dict[str, Any]]
) -> dict[str, dict[int, Counter[str]]]:
    """agent -> tournament deal -> the agent's counts summed over that deal's units."""
    out: dict[str, dict[int, Counter[str]]] = {}
    for unit in units:
        for agent, c in zip(unit["seats"], unit_counts(game, match, unit), strict=True):
            out.setdefault(agent, {}).setdefault(unit["deal"], Counter()).update(c)
    return out


def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


def _stat(
    metric: Metric, num: np.ndarray, den: np.ndarray, resamples: int, seed: tuple[int, ...]
) -> dict[str, Any]:
    total_num, total_den = float(num.sum()), float(den.sum())
    row: dict[str, Any] = {
        "label": metric.label,
        "kind": metric.kind,
        "value": _ratio(total_num, total_den),
        "n": total_den,
        "ci_low": None,
        "ci_high": None,
    }
    if resamples and total_den > 0 and len(num) > 1:
        low, high = st.bootstrap_ratio(num, den, resamples=resamples, seed=seed)
        row["ci_low"], row["ci_high"] = _clean(low), _clean(high)
    return row


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _metrics_for(game: str, seats: int, match: bool, names: Sequence[str]) -> list[Metric]:
    metrics = metrics_of(game, seats, match)
    split = statistics_of(game).split
    if split is not None:  # e.g. Paston's whist rate split by who declares
        at = next(i for i, m in enumerate(metrics) if m.key == split.key)
        whole = metrics[at]
        metrics[at + 1 : at + 1] = [
            Metric(
                f"{split.key}_vs_{name}",
                split.label.format(name=name),
                f"{whole.num}@{name}",
                f"{whole.den}@{name}",
            )
            for name in names
        ]
    return metrics


def behaviour(
    game: str,
    seats: int,
    match: bool,
    names: Sequence[str],
    units: Iterable[dict[str, Any]],
    resamples: int = 0,
    seed: int = 0,
) -> dict[str, dict[str, dict[str, Any]]]:
    """agent -> metric key -> ``{label, kind, value, n, ci_low, ci_high}``.

    ``value`` is ``None`` when the agent never had the occasion (``n`` = 0); the interval is
    the percentile bootstrap over tournament deals when ``resamples`` > 0 (seeded by ``seed``),
    else ``None``. ``units`` must carry their records.
    """
    by_deal = counts_by_deal(game, match, units)
    metrics = _metrics_for(game, seats, match, names)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for a, name in enumerate(names):
        deals = by_deal.get(name, {})
        keys = sorted(deals)
        rows = {}
        for metric in metrics:
            num = np.array([deals[d][metric.num] for d in keys], dtype=float)
            den = np.array([deals[d][metric.den] for d in keys], dtype=float)
            words = (seed, a, zlib.crc32(metric.key.encode()))
            rows[metric.key] = _stat(metric, num, den, resamples, words)
        out[name] = rows
    return out


def position_names(game: str, seats: int) -> list[str]:
    """The names of the positions relative to the dealer, in order."""
    return statistics_of(game).positions(seats)


def seat_effects(
    game: str, seats: int, match: bool, names: Sequence[str], units: Iterable[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """agent -> per position relative to the dealer: ``{position, n, mean, ci_low, ci_high}``.

    The score is the deal score (Paston) or the stick (1) of a round (Tri Palki); per tournament
    deal the agent's scores at that position (over all its units, and in game / match mode all
    their deals / rounds) are averaged, then a 95% t interval over tournament deals.
    """
    sums: dict[int, Counter[str]] = {}  # tournament deal -> "position|agent" score and count
    for unit in units:
        pooled = sums.setdefault(unit["deal"], Counter())
        for agent, c in zip(unit["seats"], unit_counts(game, match, unit), strict=True):
            for p in range(len(position_names(game, seats))):
                pooled[f"n{p}|{agent}"] += c[f"pos{p}"]
                pooled[f"s{p}|{agent}"] += c[f"score_pos{p}"]
    totals: Counter[tuple[str, int]] = Counter()
    observations: list[tuple[int, dict[str, float]]] = []
    for deal, pooled in sorted(sums.items()):
        values = {}
        for name in names:
            for p in range(len(position_names(game, seats))):
                if pooled[f"n{p}|{name}"]:
                    values[f"{p}|{name}"] = pooled[f"s{p}|{name}"] / pooled[f"n{p}|{name}"]
                    totals[(name, p)] += pooled[f"n{p}|{name}"]
        observations.append((deal, values))
    intervals = st.paired_ci_by_deal(observations)
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        rows = []
        for p, label in enumerate(position_names(game, seats)):
            ci = intervals.get(f"{p}|{name}")
            rows.append(
                {
                    "position": label,
                    "n": totals.get((name, p), 0),
                    "deals": ci.n if ci else 0,
                    "mean": _clean(ci.mean) if ci else None,
                    "ci_low": _clean(ci.low) if ci else None,
                    "ci_high": _clean(ci.high) if ci else None,
                }
            )
        out[name] = rows
    return out


def method_text(game: str, resamples: int, units: str = "deals") -> dict[str, str]:
    """How the behaviour statistics and seat effects are computed (for the report)."""
    interval = (
        f"95% percentile bootstrap over {units} ({resamples} resamples, seeded by the tournament "
        "seed)"
        if resamples
        else "no interval (bootstrap off)"
    )
    return {
        "behaviour": (
            "counted from the stored records, each replayed through the rules engine; every "
            "statistic is a ratio of counts summed over the agent's episodes (events / "
            f"occasions); {interval}"
        ),
        "seat_effects": (
            "score by position relative to the dealer of each "
            f"{game_spec(game).round_word}: per deal the agent's mean at that "
            f"position, then a 95% Student t interval over {units}"
        ),
        "decision_times": (
            "wall-clock seconds of each agent's act() call, measured as the tournament ran and "
            "stored with each episode; pooled over decisions (median, 95th percentile); "
            "measured, so they differ between runs and are left out of every reproducibility check"
        ),
    }


# --- the registered statistic -----------------------------------------------------------------

COLUMNS = ["agent", "statistic", "label", "kind", "value", "n", "ci_low", "ci_high"]


def compute(inp: StatisticInput) -> dict[str, Any]:
    config = inp.config
    return behaviour(
        config.game,
        config.seats,
        inp.runner.match_mode,
        inp.names,
        inp.units_with_records(),
        resamples=inp.bootstrap,
        seed=config.seed,
    )


def method(inp: StatisticInput) -> dict[str, str]:
    text = method_text(inp.config.game, inp.bootstrap, inp.config.unit_plural)
    return {"behaviour": text["behaviour"]}


def behaviour_rows(results: Results) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """``(metric key, label, one row per agent)`` in report order, skipping statistics no agent
    had the occasion for (``n`` = 0 everywhere)."""
    behaviour = results.get("behaviour") or {}
    names = [a["name"] for a in results["agents"]]
    if not behaviour or not names:
        return []
    first = behaviour[names[0]]
    out = []
    for key, row in first.items():
        rows = [behaviour[name][key] for name in names]
        if any(r["n"] for r in rows):
            out.append((key, row["label"], rows))
    return out


def csv_rows(results: Results) -> list[list[Any]]:
    return [
        [agent, key, *(row[c] for c in COLUMNS[2:])]
        for agent, stats in results["behaviour"].items()
        for key, row in stats.items()
    ]


def console(results: Results) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    names = [a["name"] for a in results["agents"]]
    rows = behaviour_rows(results)
    intervals = any(r.get("ci_low") is not None for _, _, agent_rows in rows for r in agent_rows)
    table = Table(
        title="behaviour (counted from the stored records"
        + (f"; 95% bootstrap interval over {results['unit_plural']})" if intervals else ")"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("statistic", no_wrap=True)
    for name in names:
        table.add_column(escape(name), justify="right", no_wrap=True)
    for _, label, agent_rows in rows:
        table.add_row(escape(label), *[format_stat(r) for r in agent_rows])
    return table


def _with_n(row: dict[str, Any]) -> str:
    n = row.get("n") or 0
    return f"{format_stat(row)} n={int(n) if float(n).is_integer() else n}"


def section(results: Results) -> list[str]:
    rows = behaviour_rows(results)
    if not rows:
        return ["Not available."]
    names = [a["name"] for a in results["agents"]]
    return [
        results["method"].get("behaviour", ""),
        "",
        "Each cell: the statistic, its interval, and n = the occasions it is counted over "
        "(deals, decisions, contracts …).",
        "",
        *md_table(["statistic", *names], [[label, *map(_with_n, r)] for _, label, r in rows]),
        "",
        "![behaviour](behaviour.png)",
    ]


def plot(results: Results, path: Path) -> Path:
    from ..plot import plot_behaviour

    return plot_behaviour(results, path)


BEHAVIOUR = Statistic(
    key="behaviour",
    compute=compute,
    method=method,
    csv=(CsvTable("behaviour.csv", lambda _: COLUMNS, csv_rows),),
    plot=plot,
    plot_file="behaviour.png",
    console=console,
    sections=(("Behaviour", section),),
)
