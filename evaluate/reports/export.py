"""Tournament output: rich tables in the terminal, ``results.json``, the CSVs and the plots.

Every statistic brings its own table, CSV columns and plot (:mod:`..statistics`); this module
only writes what the registered statistics give, plus ``results.json`` and ``episodes.csv``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from .. import statistics
from ..config import TournamentConfig
from ..formatting import format_seconds, format_stat
from ..statistics.behaviour import behaviour_rows
from ..storage.database import Store

EPISODE_COLUMNS = [
    "deal",
    "lineup",
    "seating",
    "seat",
    "agent",
    "spec",
    "score",
    "win",
    "agent_seed",
]


def tables(results: dict[str, Any]) -> list[Any]:
    """The report as rich renderables: each registered statistic's table (those the results
    hold), then the method notes."""
    from rich.text import Text

    lines = [f"{k}: {v}" for k, v in results["method"].items()]
    if results.get("truncated_units"):
        lines.append(
            f"note: {results['truncated_units']} of {results['units_stored']} episodes were "
            "truncated (max_turns / max_deals) and score as the env left them (no sticks, no winner)"
        )
    notes = Text("\n".join(lines), style="dim")
    out = [
        statistic.console(results)
        for statistic in statistics.registered()
        if statistic.console is not None and statistic.available(results)
    ]
    return [*out, notes]


def print_report(results: dict[str, Any], console: Any = None) -> None:
    """Print the tables: on a terminal, long names and cells wrap within its width (never cut
    to "ppo:pas…"); elsewhere (a log file, a pipe) every table takes its full width."""
    from rich.console import Console

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=LOG_WIDTH)
    for item in tables(results):
        console.print(_wrapping(item))
        console.print()


LOG_WIDTH = 10_000  # off a terminal: wide enough that no table is ever wrapped or cut


def _wrapping(item: Any) -> Any:
    """A rich table whose columns wrap (words, then characters) rather than cut with "…"."""
    from rich.table import Table

    if isinstance(item, Table):
        for column in item.columns:
            column.no_wrap = False
            column.overflow = "fold"
    return item


def export(results: dict[str, Any], config: TournamentConfig, plot: bool = True) -> list[Path]:
    """Write ``results.json``, each registered statistic's CSVs (``agents.csv``,
    ``head_to_head.csv``, ``behaviour.csv`` …), ``episodes.csv`` (one row per seat of every stored
    episode) and the statistics' plots (``scores.png`` …) to ``config.out``."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths = [path]
    available = [s for s in statistics.registered() if s.available(results)]
    for statistic in available:
        paths += [write_csv(table, results, out) for table in statistic.csv]
    paths.append(export_episodes(config, out))
    if plot:
        for statistic in available:
            if statistic.plot is not None and statistic.plot_file:
                paths.append(statistic.plot(results, out / statistic.plot_file))
    return paths


def write_csv(table: statistics.CsvTable, results: dict[str, Any], out: Path) -> Path:
    """Write one statistic's CSV file to ``out``."""
    path = out / table.filename
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(table.columns(results))
        writer.writerows(table.rows(results))
    return path


def export_episodes(config: TournamentConfig, out: Path) -> Path:
    """Write ``episodes.csv``: one row per seat of every stored episode."""
    path = out / "episodes.csv"
    with Store(config.db_path) as store, path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(EPISODE_COLUMNS)
        rows = store.conn.execute(
            f"SELECT {', '.join(EPISODE_COLUMNS)} FROM unit_seats "
            "WHERE tournament_id = ? ORDER BY deal, lineup, seating, seat",
            (store.tournament_id,),
        )
        writer.writerows(rows)
    return path


__all__ = [
    "behaviour_rows",
    "export",
    "export_episodes",
    "format_seconds",
    "format_stat",
    "print_report",
    "tables",
    "write_csv",
]
