"""The tournament command at its edges: bad output paths, ``--verify`` that checks the
stored results, a database verified on its own, and the wording of its messages."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from folkcards.envs.registry import GAMES_HELP
from folkcards.evaluate import tournament as tour
from folkcards.evaluate.running.verify import config_from_db, verify_records
from folkcards.evaluate.storage.database import SCHEMA

SMALL = "--game paston --agents random random random --deals 2 --seed 5 --workers 1".split()


def _main(argv: list[str]) -> int:
    return tour.main([*argv, "--no-progress", "--no-plot"])


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("folkcards tournament: error: "), lines[0]
    return lines[0]


# --- --out / --db where a file is in the way ----------------------------------------------------


@pytest.mark.parametrize(
    "where",
    [
        ["--out", "afile"],
        ["--out", "afile/deeper"],
        ["--db", "afile/t.sqlite", "--out", "out"],
        ["--out", "out", "--db", "afile/x/t.sqlite"],
    ],
    ids=["out-is-file", "out-under-file", "db-under-file", "db-deep-under-file"],
)
def test_path_through_a_file_is_one_line_and_creates_nothing(
    where: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder")
    code = _main([*SMALL, *where])
    err = capsys.readouterr().err
    assert code == 2
    line = _one_error_line(err)
    assert "afile" in line and "is a file" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing created
    assert (tmp_path / "afile").read_text() == "not a folder"


# --- --verify checks the stored results ---------------------------------------------------------


def _tournament(tmp_path: Path, capsys, extra: list[str] | None = None) -> Path:
    out = tmp_path / "t"
    assert _main([*SMALL, *(extra or []), "--out", str(out)]) == 0
    capsys.readouterr()
    return out / "tournament.sqlite"


def _tamper(db: Path, sql: str, *params: object) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def _edit_result(db: Path, where: str, change: Callable[[list[dict]], None]) -> None:
    """Change the stored ``result_json`` of the unit ``where`` selects, as ``change`` says."""
    conn = sqlite3.connect(db)
    try:
        (result_json,) = conn.execute(f"SELECT result_json FROM units WHERE {where}").fetchone()
        result = json.loads(result_json)
        change(result)
        conn.execute(f"UPDATE units SET result_json = ? WHERE {where}", (json.dumps(result),))
        conn.commit()
    finally:
        conn.close()


def test_verify_catches_a_changed_stored_score(tmp_path: Path, capsys) -> None:
    db = _tournament(tmp_path, capsys)
    _edit_result(
        db,
        "deal = 1 AND lineup = 0 AND seating = 3",
        lambda r: r[2].update(score=r[2]["score"] + 5),
    )
    code = _main([*SMALL, "--out", str(db.parent), "--verify"])
    captured = capsys.readouterr()
    assert code == 1
    assert "1/0/3" in captured.err and "score" in captured.err, captured.err
    assert "player_2" in captured.err
    assert "verified" not in captured.out


def test_verify_catches_a_changed_seat_score(tmp_path: Path, capsys) -> None:
    db = _tournament(tmp_path, capsys)
    _tamper(
        db,
        "UPDATE unit_seats SET score = score + 1 "
        "WHERE deal = 0 AND lineup = 0 AND seating = 2 AND seat = 1",
    )
    code = _main([*SMALL, "--out", str(db.parent), "--verify"])
    err = capsys.readouterr().err
    assert code == 1
    assert "0/0/2" in err and "seat" in err, err


def test_verify_catches_a_changed_win_in_game_mode(tmp_path: Path, capsys) -> None:
    argv = "--game paston --agents random random random --games 1 --seed 2 --workers 1".split()
    out = tmp_path / "g"
    assert _main([*argv, "--out", str(out)]) == 0
    db = out / "tournament.sqlite"
    _edit_result(db, "deal = 0 AND seating = 0", lambda r: r[0].update(win=not r[0]["win"]))
    capsys.readouterr()
    assert _main(["--db", str(db), "--verify"]) == 1
    err = capsys.readouterr().err
    assert "0/0/0" in err and "win" in err, err


def test_verify_with_only_the_database(tmp_path: Path, capsys) -> None:
    db = _tournament(tmp_path, capsys)
    before = db.read_bytes()
    code = _main(["--db", str(db), "--verify"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "verified: all 12 stored records replay exactly" in captured.out
    assert sorted(p.name for p in db.parent.iterdir() if p.suffix in (".json", ".csv")) == [
        "agents.csv",
        "behaviour.csv",
        "decision_times.csv",
        "episodes.csv",
        "head_to_head.csv",
        "open_hand.csv",
        "results.json",
        "seat_effects.csv",
    ]  # only what the first run wrote
    assert db.read_bytes() == before
    # ... and a tampered database is reported the same way
    _tamper(db, "UPDATE unit_seats SET win = 1 WHERE deal = 0 AND lineup = 0 AND seating = 0")
    assert _main(["--db", str(db), "--verify"]) == 1
    assert "0/0/0" in capsys.readouterr().err


def test_verify_a_database_with_output_options_uses_its_stored_config(
    tmp_path: Path, capsys
) -> None:
    """`--verify --db FILE --out DIR` (no game, agents or count) verifies from the
    config stored in FILE and writes the outputs to DIR; nothing new is played."""
    db = _tournament(tmp_path, capsys)
    out = tmp_path / "elsewhere"
    code = _main(["--verify", "--db", str(db), "--out", str(out), "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "verified: all 12 stored records replay exactly" in captured.out
    assert "all episodes were already stored" in captured.out
    assert (out / "report.md").is_file() and (out / "results.json").is_file()
    assert not (out / "tournament.sqlite").exists()
    # a describing option without the rest is still the config's own one-line error
    assert _main(["--verify", "--db", str(db), "--seed", "3"]) == 2
    assert "no game given" in _one_error_line(capsys.readouterr().err)


def test_verify_a_missing_database_is_one_line(tmp_path: Path, capsys) -> None:
    code = _main(["--db", str(tmp_path / "none.sqlite"), "--verify"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2 and "none.sqlite" in line
    assert not (tmp_path / "none.sqlite").exists()


@pytest.mark.parametrize("kind", ["text", "other-sqlite", "empty-tournament"])
def test_verify_something_else_is_one_line_and_left_alone(
    kind: str, tmp_path: Path, capsys
) -> None:
    path = tmp_path / "x.sqlite"
    if kind == "text":
        path.write_text("not a database, just text\n" * 100)
    else:
        conn = sqlite3.connect(path)
        if kind == "other-sqlite":
            conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY)")
        else:
            conn.executescript(SCHEMA)
        conn.commit()
        conn.close()
    before = path.read_bytes()
    code = _main(["--db", str(path), "--verify"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2 and "x.sqlite" in line, line
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.sqlite"]


def test_verify_records_checks_results_too(tmp_path: Path, capsys) -> None:
    db = _tournament(tmp_path, capsys)
    config = config_from_db(db)
    assert config.game == "paston" and config.count == 2 and config.seed == 5
    assert verify_records(config) == (12, [])
    _tamper(db, "UPDATE units SET deal_seed = deal_seed + 1 WHERE deal = 0 AND seating = 1")
    checked, problems = verify_records(config)
    assert checked == 12 and len(problems) == 1 and problems[0].startswith("unit 0/0/1")


# --- wording ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "agents, expected",
    [
        (["random"], "1 agent given"),
        (["random"] * 12, "12 agents given"),
    ],
)
def test_agent_counts_are_singular_or_plural(
    agents: list[str], expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    code = _main(["--game", "tri_palki", "--agents", *agents, "--rounds", "1"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2 and expected in line and "agent(s)" not in line, line


def test_too_few_agents_for_the_seats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    code = _main(["--game", "paston", "--agents", "random", "--deals", "1"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2 and "only 1 agent is given" in line, line
    code = _main([*"--game tri_palki --agents random random --rounds 1 --num-players 3".split()])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 2 and "only 2 agents are given" in line, line


def test_help_names_every_registered_game_and_its_units(capsys) -> None:
    from folkcards.envs.registry import GAMES

    with pytest.raises(SystemExit):
        tour.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert GAMES_HELP in text
    for spec in GAMES.values():
        for mode in spec.modes:  # every unit has its flag: --deals, --rounds, --games, --matches
            flag = "--matches" if mode.unit == "match" else f"--{mode.unit}s"
            assert f"{flag} N" in text, flag


def test_progress_off_a_terminal_is_a_log_line_every_few_seconds(tmp_path: Path, capsys) -> None:
    """With its output not a terminal a tournament logs progress lines (every
    --progress-every seconds; 0: after every episode) instead of printing nothing; --no-progress
    silences them."""
    one = [*SMALL[:-5], "1", "--workers", "1", "--no-plot", "--bootstrap", "0"]  # one deal
    assert one[SMALL.index("--deals")] == "--deals"
    argv = [*one, "--out", str(tmp_path / "a"), "--progress-every", "0"]
    assert tour.main(argv) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("paston: ")]
    assert len(lines) == 6, err  # 1 deal x 6 seatings
    assert lines[0].startswith("paston: 1/6 episodes (17%), ") and "left" in lines[0]
    assert lines[-1].startswith("paston: 6/6 episodes (100%), ") and "episodes/s" in lines[-1]
    assert tour.main([*one, "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    assert "episodes (" not in capsys.readouterr().err
    assert tour.main([*SMALL, "--out", str(tmp_path / "c"), "--progress-every", "-1"]) == 2
    assert "--progress-every" in _one_error_line(capsys.readouterr().err)
