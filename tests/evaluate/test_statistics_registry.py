"""A tournament statistic is one registered piece: how to compute it, its columns, its plot, its
terminal table and its report section. Registering one
piece must be enough for it to reach results.json, the CSVs, the plots, the terminal and
report.md; removing it must take it out of all of them."""

from __future__ import annotations

import csv
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from folkcards.evaluate import statistics
from folkcards.evaluate.config import load_config
from folkcards.evaluate.reports import document
from folkcards.evaluate.reports import export as report
from folkcards.evaluate.running.runner import deterministic, run
from folkcards.evaluate.statistics import CsvTable, Statistic, StatisticInput

KEY = "contract_free_seats"  # a made-up statistic: how many units each agent sat in


def _count(inp: StatisticInput) -> dict[str, int]:
    seats = Counter(agent for unit in inp.units for agent in unit["seats"])
    return {name: seats[name] for name in inp.names}


def _plot(results: dict[str, Any], path: Path) -> Path:
    path.write_bytes(b"not really a png")
    return path


def _console(results: dict[str, Any]) -> Any:
    from rich.text import Text

    return Text(f"seat counts: {results[KEY]}")


NEW = Statistic(
    key=KEY,
    compute=_count,
    method=lambda inp: {KEY: f"units sat in, over {inp.config.unit_plural}"},
    csv=(
        CsvTable(
            "seat_counts.csv",
            lambda _: ["agent", "units"],
            lambda results: sorted(results[KEY].items()),
        ),
    ),
    plot=_plot,
    plot_file="seat_counts.png",
    console=_console,
    sections=(("Seat counts", lambda results: [f"- {a}: {n}" for a, n in results[KEY].items()]),),
)


@pytest.fixture
def registered_new():
    statistics.register(NEW)
    yield NEW
    statistics.unregister(KEY)


def _config(tmp_path: Path) -> Any:
    return load_config(
        None,
        {
            "game": "paston",
            "agents": ["random", "random", "random", "random"],
            "deals": 1,
            "seed": 3,
            "workers": 1,
            "out": str(tmp_path),
        },
    )


def _units_per_agent(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT agent, COUNT(*) FROM unit_seats GROUP BY agent").fetchall()
    finally:
        conn.close()
    return {agent: n for agent, n in rows}


def test_a_registered_statistic_reaches_every_output(tmp_path: Path, registered_new) -> None:
    config = _config(tmp_path)
    results = run(config, progress=False, bootstrap=0)
    # 4 agents at 3 seats: 4 line-ups x 6 seatings, each agent in 3 line-ups -> 18 units
    assert (
        results[KEY]
        == _units_per_agent(config.db_path)
        == {
            "random": 18,
            "random#2": 18,
            "random#3": 18,
            "random#4": 18,
        }
    )
    assert results["method"][KEY] == "units sat in, over deals"
    assert KEY in deterministic(results)  # not measured: part of what seeds reproduce

    paths = report.export(results, config, plot=True)
    paths += document.write_report(results, config, tmp_path)
    names = {p.name for p in paths}
    assert {"seat_counts.csv", "seat_counts.png", "agents.csv", "report.md"} <= names
    with (tmp_path / "seat_counts.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["agent", "units"] and len(rows) == 5
    assert json.loads((tmp_path / "results.json").read_text())[KEY]["random#3"] == 18
    text = (tmp_path / "report.md").read_text()
    assert "## Seat counts" in text and "- random#4: 18" in text
    rendered = [str(t) for t in report.tables(results)]
    assert any("seat counts: " in r for r in rendered)


def test_without_it_nothing_mentions_it(tmp_path: Path) -> None:
    config = _config(tmp_path)
    results = run(config, progress=False, bootstrap=0)
    assert KEY not in results and KEY not in results["method"]
    paths = report.export(results, config, plot=False)
    assert "seat_counts.csv" not in {p.name for p in paths}
    # the built-in statistics, each under its own key, in the registered order
    keys = [s.key for s in statistics.registered()]
    assert keys == [
        "agents",
        "head_to_head",
        "behaviour",
        "seat_effects",
        "open_hand",
        "decision_times",
    ]
    assert all(key in results for key in keys)
    assert "decision_times" not in deterministic(results)


def test_a_key_is_registered_once(registered_new) -> None:
    with pytest.raises(ValueError, match="already registered"):
        statistics.register(NEW)
    with pytest.raises(KeyError, match="no statistic 'nothing'"):
        statistics.unregister("nothing")
