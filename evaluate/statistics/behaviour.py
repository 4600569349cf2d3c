"""How each agent plays (:mod:`folkcards.evaluate.behaviour`): ratios of counts from the stored
records with bootstrap intervals; ``results["behaviour"]``, ``behaviour.csv``, ``behaviour.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import behaviour as bh
from ..formatting import format_stat, md_table
from .base import CsvTable, Results, Statistic, StatisticInput

COLUMNS = ["agent", "statistic", "label", "kind", "value", "n", "ci_low", "ci_high"]


def compute(inp: StatisticInput) -> dict[str, Any]:
    config = inp.config
    return bh.behaviour(
        config.game,
        config.seats,
        inp.runner.match_mode,
        inp.names,
        inp.units_with_records(),
        resamples=inp.bootstrap,
        seed=config.seed,
    )


def method(inp: StatisticInput) -> dict[str, str]:
    text = bh.method_text(inp.config.game, inp.bootstrap, inp.config.unit_plural)
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

__all__ = ["BEHAVIOUR", "behaviour_rows"]
