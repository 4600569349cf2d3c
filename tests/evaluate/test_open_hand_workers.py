"""Open-hand accuracy is computed where each unit is played: the
worker stores its unit's analysis, the results are the same for any number of workers and the
same as analysing the stored records afterwards; ``--no-open-hand`` skips it during the run and
``folkcards report --db`` computes it later."""

from __future__ import annotations

import json
import sqlite3

from folkcards.evaluate.config import load_config
from folkcards.evaluate.running.runner import run
from folkcards.evaluate.statistics.open_hand_accuracy import unit_summary
from folkcards.evaluate.statistics.paston_open_hand_analysis import analyse_record

from folkcards.cli import main

AGENTS = ["heuristic", "random", "random"]


def _config(tmp_path, name, workers, **extra):
    keys = {"game": "paston", "agents": AGENTS, "deals": 3, "seed": 11, "workers": workers}
    return load_config(None, {**keys, "out": str(tmp_path / name), **extra})


def _stored(db):
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT deal, lineup, seating, statistics_json, record_json FROM units "
            "ORDER BY deal, lineup, seating"
        ).fetchall()
    return [
        (d, lu, s, None if st is None else json.loads(st), json.loads(r))
        for d, lu, s, st, r in rows
    ]


def test_the_workers_analysis_is_the_same_for_one_and_two_workers(tmp_path):
    one = run(_config(tmp_path, "one", 1), progress=False, bootstrap=0)
    two = run(_config(tmp_path, "two", 2), progress=False, bootstrap=0)
    assert one["open_hand"] == two["open_hand"]
    assert any(rows["declarer"]["deals"] for rows in one["open_hand"].values())
    a = _stored(tmp_path / "one" / "tournament.sqlite")
    b = _stored(tmp_path / "two" / "tournament.sqlite")
    assert len(a) == 3 * 6
    assert [row[:4] for row in a] == [row[:4] for row in b]
    assert all(row[3] is not None for row in a)  # every unit was analysed by its worker


def test_the_stored_analysis_is_the_records_analysis(tmp_path):
    config = _config(tmp_path, "t", 1)
    run(config, progress=False, bootstrap=0)
    played = 0
    for *_, stored, record in _stored(config.db_path):
        analyses = [a for a in analyse_record(record) if a.contract is not None]
        summary = stored["open_hand"]
        assert summary == unit_summary(config, record)
        assert len(summary) == len(analyses)
        for deal, analysis in zip(summary, analyses, strict=True):
            played += 1
            assert deal["declarer"] == analysis.contract.declarer
            for seat in range(3):
                assert deal["seats"][seat][0] == analysis.tricks_lost(seat)
                assert deal["seats"][seat][2] == sum(d.seat == seat for d in analysis.decisions)
    assert played  # some deal reached the play


def test_a_database_without_stored_analyses_gives_the_same_results(tmp_path):
    config = _config(tmp_path, "t", 1)
    first = run(config, progress=False, bootstrap=0)
    with sqlite3.connect(config.db_path) as conn:
        conn.execute("UPDATE units SET statistics_json = NULL")
    again = run(config, progress=False, bootstrap=0)  # nothing to play: computed from records
    assert again["open_hand"] == first["open_hand"]


def test_no_open_hand_skips_the_analysis_and_the_report_computes_it_later(tmp_path):
    out = tmp_path / "off"
    args = "tournament --game paston --agents heuristic random random --deals 3 --seed 11"
    argv = [*args.split(), "--workers", "1", "--out", str(out), "--no-progress", "--no-plot"]
    assert main([*argv, "--no-open-hand"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["open_hand"] is None
    assert "turned off" in results["method"]["open_hand"]
    assert all(row[3] is None for row in _stored(out / "tournament.sqlite"))
    rebuilt = tmp_path / "rebuilt"
    assert main(["report", "--db", str(out / "tournament.sqlite"), "--out", str(rebuilt)]) == 0
    on = run(_config(tmp_path, "on", 1), progress=False, bootstrap=0)
    assert json.loads((rebuilt / "results.json").read_text())["open_hand"] == on["open_hand"]


def test_open_hand_in_a_config_must_be_a_boolean(tmp_path):
    import pytest

    from folkcards.errors import ConfigError

    with pytest.raises(ConfigError, match="'open_hand' must be true or false"):
        _config(tmp_path, "t", 1, open_hand="no")


def test_verify_recomputes_the_stored_analysis(tmp_path):
    from folkcards.evaluate.running.verify import verify_records

    config = _config(tmp_path, "t", 1)
    run(config, progress=False, bootstrap=0)
    assert verify_records(config) == (18, [])
    rows = [row for row in _stored(config.db_path) if row[3]["open_hand"]]
    deal, lineup, seating, stored, _ = rows[0]
    stored["open_hand"][0]["seats"][0][0] += 1  # one more trick lost than the record shows
    with sqlite3.connect(config.db_path) as conn:
        conn.execute(
            "UPDATE units SET statistics_json = ? WHERE deal = ? AND lineup = ? AND seating = ?",
            (json.dumps(stored), deal, lineup, seating),
        )
    checked, problems = verify_records(config)
    assert problems == [
        f"unit {deal}/{lineup}/{seating}: stored open_hand values differ from the record's"
    ]
