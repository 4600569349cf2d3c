"""Score by position relative to the dealer (:func:`.behaviour.seat_effects`);
``results["seat_effects"]``, ``seat_effects.csv``, ``seat_effects.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..formatting import interval, md_table, num, plain, score_digits
from . import behaviour as bh
from .base import CsvTable, Results, Statistic, StatisticInput

COLUMNS = ["position", "n", "deals", "mean", "ci_low", "ci_high"]


def compute(inp: StatisticInput) -> dict[str, Any]:
    config = inp.config
    return bh.seat_effects(
        config.game, config.seats, inp.runner.match_mode, inp.names, inp.units_with_records()
    )


def method(inp: StatisticInput) -> dict[str, str]:
    text = bh.method_text(inp.config.game, inp.bootstrap, inp.config.unit_plural)
    return {"seat_effects": text["seat_effects"]}


def _names(results: Results) -> list[str]:
    effects = results.get("seat_effects") or {}
    return [a["name"] for a in results["agents"] if a["name"] in effects]


def console(results: Results) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    effects = results.get("seat_effects") or {}
    names = _names(results)
    table = Table(
        title=f"seat effects: mean {results['metric']} by position relative to the dealer, "
        "95% t interval",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("position", no_wrap=True)
    for name in names:
        table.add_column(escape(name), justify="right", no_wrap=True)
    digits = score_digits(results)
    positions = [r["position"] for r in effects[names[0]]] if names else []
    for p, position in enumerate(positions):
        cells = []
        for name in names:
            r = effects[name][p]
            cells.append(
                "—"
                if r["mean"] is None
                else f"{plain(r['mean'], digits)} [{plain(r['ci_low'], digits)}, "
                f"{plain(r['ci_high'], digits)}]"
            )
        table.add_row(escape(position), *cells)
    return table


def section(results: Results) -> list[str]:
    effects = results.get("seat_effects") or {}
    names = _names(results)
    if not names:
        return ["Not available."]
    digits = score_digits(results)
    rows = []
    for p, first in enumerate(effects[names[0]]):
        row = [first["position"]]
        for name in names:
            r = effects[name][p]
            row.append(
                "—"
                if r["mean"] is None
                else f"{num(r['mean'], digits)} {interval(r['ci_low'], r['ci_high'], digits, False)}"
            )
        rows.append(row)
    return [
        results["method"].get("seat_effects", ""),
        "",
        *md_table(["position", *names], rows),
        "",
        "![seat effects](seat_effects.png)",
    ]


def csv_rows(results: Results) -> list[list[Any]]:
    return [
        [agent, *(row[c] for c in COLUMNS)]
        for agent, rows in results["seat_effects"].items()
        for row in rows
    ]


def plot(results: Results, path: Path) -> Path:
    from ..plot import plot_seat_effects

    return plot_seat_effects(results, path)


SEAT_EFFECTS = Statistic(
    key="seat_effects",
    compute=compute,
    method=method,
    csv=(CsvTable("seat_effects.csv", lambda _: ["agent", *COLUMNS], csv_rows),),
    plot=plot,
    plot_file="seat_effects.png",
    console=console,
    sections=(("Seat and position effects", section),),
)

__all__ = ["SEAT_EFFECTS"]
