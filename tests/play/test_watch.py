"""``folkcards watch``: a record file and a stored tournament unit played back with
every card shown, agents of any game, and bad input as one line with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.envs.cards import PASTON_CARDS
from folkcards.envs.registry import game_spec
from folkcards.play.base import signed

from folkcards import cli

ACTION_LINE = re.compile(
    r"^  player_\d( \([^)]*\))?(: (bid |pass$|contract |whist$)| plays | discards | surrenders$"
    r"| passes$| gives | swaps all| announces| holds 31)"
)


def paston_record(seed: int) -> dict:
    env = game_spec("paston").raw_env()
    table = [make_agent("random", "paston", f"player_{i}", seed + i) for i in range(3)]
    for s in range(seed, seed + 50):  # a deal that is played out, so discards and tricks show
        play_episode(env, table, seed=s)
        if env.record()["deals"][0]["result"]["player_0"]["outcome"] == "played":
            return env.record()
    raise AssertionError("no played deal")


def check_watched(out: str, record: dict) -> None:
    deal = record["deals"][0]
    prikup = {PASTON_CARDS.symbol(PASTON_CARDS.card_id(c)) for c in deal["prikup"]}
    shown = [line for line in out.splitlines() if line.startswith("  prikup (face down): ")]
    assert len(shown) == 1 and set(shown[0].split(": ")[1].split()) == prikup
    actions = [line for line in out.splitlines() if ACTION_LINE.match(line)]
    assert len(actions) == len(record["actions"])
    result = deal["result"]
    scores = ", ".join(f"{name} {signed(r['deal_score'])}" for name, r in result.items())
    assert f"Scores: {scores}" in out
    assert out.count(" discards ") == 2


def test_watch_a_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = paston_record(7)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record))
    assert cli.main(["watch", "--record", str(path), "--delay", "0"]) == 0
    check_watched(capsys.readouterr().out, record)


def test_watch_a_stored_tournament_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = "tournament --game paston --agents random heuristic random --deals 1 --workers 1".split()
    assert cli.main([*argv, "--out", str(tmp_path), "--no-plot"]) == 0
    db = str(tmp_path / "tournament.sqlite")
    capsys.readouterr()
    assert cli.main(["watch", "--db", db]) == 0
    listing = capsys.readouterr().out
    assert "unit 0: deal 0" in listing
    from folkcards.evaluate.storage.database import Store

    with Store(db) as store:
        stored = list(store.units(with_records=True))
    last = len(stored) - 1
    assert f"unit {last}:" in listing
    assert cli.main(["watch", "--db", db, "--unit", str(last), "--delay", "0"]) == 0
    out = capsys.readouterr().out
    record = stored[last]["record"]
    assert "prikup (face down):" in out
    actions = [line for line in out.splitlines() if ACTION_LINE.match(line)]
    assert len(actions) == len(record["actions"])
    result = record["deals"][0]["result"]
    assert (
        "Scores: " + ", ".join(f"{n} {signed(r['deal_score'])}" for n, r in result.items()) in out
    )
    assert f"player_0 ({stored[last]['seats'][0]})" in out


def test_watch_agents_of_any_game(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["watch", "tri-palki", "--agents", "heuristic", "random", "random", "--delay", "0"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "--- round 1: dealer" in out and "centre:" in out
    assert "Round over" in out and "Sticks: " in out
    assert (
        cli.main(["watch", "tri_palki", "--agents", "random", "--players", "5", "--delay", "0"])
        == 0
    )
    assert "player_4 (random)" in capsys.readouterr().out


def test_watch_steps_on_enter_and_quits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("\n\nq\n"))
    assert cli.main(["watch", "paston", "--agents", "random"]) == 0
    out = capsys.readouterr().out
    assert out.count("[Enter] next") == 3 and "Stopped: you stopped watching." in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--record", "no/such.json"], "no such record file"),
        (["--db", "no/such.sqlite"], "no such database"),
        (["paston", "--agents", "nobody"], "unknown agent"),
        (["chess"], "unknown game"),
        (["paston", "--agents", "random", "random"], "needs 3 agent specs"),
        (
            ["tri_palki", "--players", "5", "--agents", "heuristic", "random"],
            "needs 5 agent specs (one per seat, as in a tournament, or one for every seat), got "
            "2: e.g. --agents heuristic random random random random",
        ),
        (["tri_palki", "--players", "12"], "2 to 11"),
        ([], "name a game"),
    ],
)
def test_watch_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["watch", *argv, "--delay", "0"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_watch_unit_not_in_db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = "tournament --game paston --agents random random random --deals 1 --workers 1".split()
    assert cli.main([*argv, "--out", str(tmp_path), "--no-plot"]) == 0
    capsys.readouterr()
    db = str(tmp_path / "tournament.sqlite")
    assert cli.main(["watch", "--db", db, "--unit", "99", "--delay", "0"]) == 2
    err = capsys.readouterr().err
    assert "unit 99 is not in" in err and len(err.strip().splitlines()) == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["watch", "--record", str(bad)]) == 2
    assert "bad.json: not a JSON record" in capsys.readouterr().err


def test_watch_a_whole_game_and_match(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["watch", "paston", "--agents", "heuristic", "--mode", "game", "--seed", "2"]
    assert cli.main([*argv, "--delay", "0"]) == 0
    out = capsys.readouterr().out
    deals = out.count("\n--- deal ")
    assert deals >= 2 and out.count("Deal over:") == deals
    assert re.search(r"Game over: player_\d( and player_\d)* won", out)
    argv = ["watch", "tri_palki", "--agents", "heuristic", "--players", "3", "--mode", "match"]
    assert cli.main([*argv, "--delay", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("Round over:") == out.count("\n--- round ") >= 2
    assert re.search(r"Match over: player_\d wins", out)


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_demo_numbers_deals_one_way(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`demo` said "=== deal 2 (seed 1) ===" then "--- deal 1:"; one episode of
    one deal (or round) carries one number, the episode's."""
    assert cli.main(["demo", game, "--deals", "3"]) == 0
    out = capsys.readouterr().out
    episodes = re.findall(r"^=== (\w+) (\d+) \(seed \d+\) ===$", out, re.MULTILINE)
    inner = re.findall(r"^--- (\w+) (\d+):", out, re.MULTILINE)
    assert [n for _, n in episodes] == ["1", "2", "3"]
    assert inner == episodes, (episodes, inner)  # same word, same number


def test_a_whole_game_numbers_its_deals_inside(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["watch", "paston", "--agents", "random", "--mode", "game", "--delay", "0"]
    assert cli.main(argv) == 0
    inner = re.findall(r"^--- deal (\d+):", capsys.readouterr().out, re.MULTILINE)
    assert len(inner) > 1 and inner == [str(k) for k in range(1, len(inner) + 1)]
