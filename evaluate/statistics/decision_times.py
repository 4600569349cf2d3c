"""Seconds per decision of each agent, measured as the tournament ran (differs between runs);
``results["decision_times"]``, ``decision_times.csv``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..formatting import format_seconds, md_table
from ..storage.database import Store
from . import behaviour as bh
from .base import CsvTable, Results, Statistic, StatisticInput

COLUMNS = ["decisions", "median", "p95", "slowest", "mean", "units_recorded", "units"]


@dataclass(frozen=True)
class DecisionTime:
    """One agent's decision times (seconds; ``None`` when none of its units has them)."""

    decisions: int
    median: float | None
    p95: float | None
    slowest: float | None  # the longest single decision: what a person waits at worst
    mean: float | None
    units_recorded: int
    units: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def decision_times(names: Sequence[str], store: Store) -> dict[str, DecisionTime]:
    """agent -> its pooled decision times over every stored unit it sat in."""
    pooled: dict[str, list[float]] = {name: [] for name in names}
    recorded = dict.fromkeys(names, 0)
    seen = dict.fromkeys(names, 0)
    for seats, timing in store.decision_seconds():
        for seat, agent in enumerate(seats):
            if agent not in seen:
                continue
            seen[agent] += 1
            if timing is not None:
                recorded[agent] += 1
                pooled[agent].extend(timing[seat])
    out = {}
    for name in names:
        times = np.asarray(pooled[name], dtype=float)
        some = times.size > 0
        out[name] = DecisionTime(
            decisions=int(times.size),
            median=float(np.median(times)) if some else None,
            p95=float(np.quantile(times, 0.95)) if some else None,
            slowest=float(times.max()) if some else None,
            mean=float(times.mean()) if some else None,
            units_recorded=recorded[name],
            units=seen[name],
        )
    return out


def compute(inp: StatisticInput) -> dict[str, dict[str, Any]]:
    return {name: t.as_dict() for name, t in decision_times(inp.names, inp.store).items()}


def method(inp: StatisticInput) -> dict[str, str]:
    text = bh.method_text(inp.config.game, inp.bootstrap, inp.config.unit_plural)
    return {"decision_times": text["decision_times"]}


def _cells(t: dict[str, Any]) -> list[str]:
    return [
        str(t["decisions"]),
        format_seconds(t["median"]),
        format_seconds(t["p95"]),
        format_seconds(t.get("slowest")),  # not in results stored before it was measured
        format_seconds(t["mean"]),
        f"{t['units_recorded']}/{t['units']}",
    ]


HEADER = ("agent", "decisions", "median", "95th percentile", "slowest", "mean", "episodes timed")


def console(results: Results) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title="decision time per agent (seconds of act(), measured as the tournament ran)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for column in HEADER:
        table.add_column(column, justify="left" if column == "agent" else "right", no_wrap=True)
    for name, t in (results.get("decision_times") or {}).items():
        table.add_row(escape(name), *_cells(t))
    return table


def section(results: Results) -> list[str]:
    times = results.get("decision_times") or {}
    rows = [(name, *_cells(t)) for name, t in times.items()]
    return [results["method"].get("decision_times", ""), "", *md_table(HEADER, rows)]


def csv_columns(_: Results) -> list[str]:
    timed = ("median", "p95", "slowest", "mean")
    return ["agent", *(f"{c}_seconds" if c in timed else c for c in COLUMNS)]


def csv_rows(results: Results) -> list[list[Any]]:
    return [
        [agent, *(row.get(c) for c in COLUMNS)] for agent, row in results["decision_times"].items()
    ]


DECISION_TIMES = Statistic(
    key="decision_times",
    compute=compute,
    method=method,
    csv=(CsvTable("decision_times.csv", csv_columns, csv_rows),),
    console=console,
    sections=(("Decision times", section),),
    measured=True,
)

__all__ = ["DECISION_TIMES", "DecisionTime", "decision_times"]
