"""``folkcards export`` / ``import``: databases, JSON and text records, errors."""

from __future__ import annotations

import json

import pytest
from folkcards.evaluate.storage.database import Store

from folkcards.cli import main


@pytest.fixture(scope="module")
def tournament_db(tmp_path_factory):
    out = tmp_path_factory.mktemp("t")
    args = [
        "tournament",
        "--game",
        "paston",
        "--agents",
        "heuristic",
        "random",
        "random",
        "--deals",
        "2",
        "--seed",
        "9",
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    return out / "tournament.sqlite"


def _stored_records(db):
    with Store(db) as store:
        return [u["record"] for u in store.units(with_records=True)]


def test_export_then_import_gives_back_the_stored_records(tournament_db, tmp_path, capsys):
    text_file = tmp_path / "all.txt"
    assert main(["export", "--db", str(tournament_db), "--out", str(text_file)]) == 0
    text = text_file.read_text()
    assert text.count('[Game "paston"]') == 12
    assert '[Players "heuristic random random#2"]' in text
    out = tmp_path / "all.json"
    assert main(["import", str(text_file), "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == _stored_records(tournament_db)


def test_one_unit_and_json_format(tournament_db, capsys):
    assert main(["export", "--db", str(tournament_db), "--unit", "3", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == _stored_records(tournament_db)[3]  # an object


def test_a_tampered_score_is_reported_with_its_line_in_the_file(tournament_db, tmp_path, capsys):
    text_file = tmp_path / "all.txt"
    main(["export", "--db", str(tournament_db), "--out", str(text_file)])
    lines = text_file.read_text().splitlines()
    target = [i for i, line in enumerate(lines) if " scores " in line][5]
    lines[target] = (
        lines[target].replace(" scores +", " scores -", 1).replace(" scores -0", " scores +5", 1)
    )
    text_file.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["import", str(text_file)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"folkcards import: error: {text_file}: line {target + 1}, column ")


def test_score_sheet_of_a_json_game_record(tmp_path, capsys):
    from folkcards.agents import make_agent
    from folkcards.agents.episode import play_episode
    from folkcards.envs import paston_v0

    env = paston_v0.raw_env(episode="game", max_deals=3)
    play_episode(env, [make_agent("heuristic", "paston", seed=i) for i in range(3)], seed=4)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(env.record()))
    assert main(["export", "--record", str(path), "--format", "sheet"]) == 0
    sheet = capsys.readouterr().out.splitlines()
    assert sheet[0].split()[:5] == ["deal", "dealer", "declarer", "contract", "outcome"]
    assert len(sheet) == 2 + len(env.record()["deals"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "--record", "/no/such.json"], "no such record file"),
        (["export", "--db", "/no/such.sqlite"], "no such database"),
        (["import", "/no/such.txt"], "no such record file"),
    ],
)
def test_bad_input_is_one_line(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_a_unit_that_is_not_stored(tournament_db, capsys):
    assert main(["export", "--db", str(tournament_db), "--unit", "99"]) == 2
    assert "holds units 0 to 11" in capsys.readouterr().err


def _played_record(game: str, seed: int) -> tuple[dict, int]:
    from folkcards.agents import make_agent
    from folkcards.agents.episode import play_episode
    from folkcards.envs.registry import game_spec

    env = game_spec(game).raw_env(None)
    agents = {a: make_agent("random", game, a, i) for i, a in enumerate(env.possible_agents)}
    play_episode(env, agents, seed)
    return env.record(), len(env.possible_agents)


@pytest.fixture
def mixed_store(tmp_path):
    """A web-table store holding a Paston game, a Tri Palki round and another Paston game."""
    from folkcards.web.store import HumanGameStore

    path = tmp_path / "human.sqlite"
    store = HumanGameStore(path)
    for game_id, game, seed in (("p1", "paston", 1), ("t1", "tri_palki", 2), ("p2", "paston", 3)):
        record, seats = _played_record(game, seed)
        players = ["You", *["random"] * (seats - 1)]
        store.save(game_id, game, players, 0, record, finished=True)
    store.close()
    return path


def test_score_sheets_of_a_store_holding_both_games(mixed_store, capsys):
    """`export --store … --format sheet` writes the sheet of every game that keeps
    one (a note on stderr names the records left out), or of `--game`; a game without a sheet
    asked for by name is one line."""
    assert main(["export", "--store", str(mixed_store), "--format", "sheet"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("deal  dealer") == 2  # both Paston games
    assert captured.err.strip() == (
        "folkcards export: note: 1 tri_palki record left out (tri_palki has no score sheet)"
    )
    assert (
        main(["export", "--store", str(mixed_store), "--format", "sheet", "--game", "paston"]) == 0
    )
    captured = capsys.readouterr()
    assert captured.out.count("deal  dealer") == 2 and not captured.err
    args = ["export", "--store", str(mixed_store), "--format", "sheet", "--game", "tri_palki"]
    assert main(args) == 2
    assert (
        capsys.readouterr().err.strip() == "folkcards export: error: tri_palki has no score sheet"
    )
    # --game chooses the records of any format
    assert main(["export", "--store", str(mixed_store), "--game", "tri_palki"]) == 0
    out = capsys.readouterr().out
    assert out.count("[Game ") == out.count('[Game "tri_palki"]') == 1
    assert main(["export", "--store", str(mixed_store), "--game", "chess"]) == 2
    assert "unknown game" in capsys.readouterr().err
