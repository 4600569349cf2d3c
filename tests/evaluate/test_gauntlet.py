"""The gauntlet (folkcards.evaluate.benchmarks.gauntlet), its deal sets and the leaderboard."""

from __future__ import annotations

import copy
import gzip
import json
from importlib import resources
from pathlib import Path

import pytest
from folkcards.envs.registry import GAMES, game_spec
from folkcards.evaluate.benchmarks.gauntlet import (
    POOL,
    main,
    make_gauntlet,
    pool,
    rating,
    read_probe,
    run_gauntlet,
    shipped_rows,
)
from folkcards.evaluate.pages.leaderboard import render_markdown
from folkcards.evaluate.storage import deal_sets

ROOT = Path(__file__).resolve().parents[2]
MEASURED = ("seconds", "decision_ms", "date", "command")


def _quiet(text: str) -> None:
    pass


def _tiny(tmp_path: Path, game: str, n: int, **kw):
    kw.setdefault("references", ["random"])
    kw.setdefault("deals", 2)
    gauntlet = make_gauntlet(game, kw.pop("agent", "random"), n, workers=1, out=tmp_path, **kw)
    return run_gauntlet(gauntlet, log=_quiet)


def _deterministic(row: dict) -> dict:
    row = copy.deepcopy(row)
    for key in MEASURED:
        row.pop(key, None)
    for part in row["references"]:
        part.pop("decision_ms")
    return row


@pytest.mark.parametrize("game", list(GAMES))
def test_a_tiny_gauntlet_runs_end_to_end_for_every_game(tmp_path, game):
    sizes = deal_sets.deal_set_sizes(deal_sets.CURRENT, game)
    if not sizes:
        with pytest.raises(ValueError, match="the gauntlet plays"):
            make_gauntlet(game, "random")
        return
    row = _tiny(tmp_path, game, sizes[0], agent="heuristic")
    assert (tmp_path / "row.json").is_file()
    assert json.loads((tmp_path / "row.json").read_text()) == row
    assert row["game"] == game_spec(game).name and row["num_players"] == sizes[0]
    assert row["deals"] == 2 and row["deal_set"] == deal_sets.CURRENT
    (part,) = row["references"]
    assert part["reference"] == "random" and part["deals"] == 2
    # per deal, the advantage is the mean over the seatings of (agent - mean reference), signed
    assert part["advantage"]["n"] == 2
    sign = 1 if game_spec(game).higher_is_better else -1
    expected = sign * (part["agent_score"]["mean"] - part["reference_score"]["mean"])
    assert part["advantage"]["mean"] == pytest.approx(expected)
    assert part["decisions"] > 0 and part["decision_ms"] >= 0


def test_the_deal_set_is_the_shipped_held_out_deals_played_as_stored(tmp_path):
    content = deal_sets.load(deal_sets.CURRENT, "tri_palki", 3)
    assert content["seed"] == deal_sets.SEED and len(content["deals"]) == deal_sets.COUNT
    _tiny(tmp_path, "tri_palki", 3)
    from folkcards.evaluate.storage.database import Store

    with Store(tmp_path / "random" / "tournament.sqlite") as store:
        units = list(store.units(with_records=True))
    assert len(units) == 2 * 3  # 2 deals, the agent in each of 3 seats
    for unit in units:
        deck = unit["record"]["rounds"][0]["deck"]
        assert deck == content["deals"][unit["deal"]]["deck"]


def test_the_shipped_deal_set_files_are_what_the_recorded_seed_draws():
    name = deal_sets.file_name(deal_sets.CURRENT, "paston", 3)
    raw = resources.files("folkcards.evaluate.storage.gauntlet_data").joinpath(name).read_bytes()
    stored = json.loads(gzip.decompress(raw))
    drawn = deal_sets.generate(deal_sets.CURRENT, "paston", 3, 5, deal_sets.SEED)
    assert stored["deals"][:5] == drawn["deals"]
    assert stored["command"] == deal_sets.COMMAND


def test_the_package_data_lists_the_deal_sets():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"folkcards.evaluate.storage.gauntlet_data" = ["*.json.gz", "rows/*.json"]' in text


def _row(agent: str, advantages: dict[str, float], low: float = -1.0, high: float = 1.0):
    mean = sum(advantages.values()) / len(advantages)
    return {
        "format": 1, "game": "paston", "num_players": 3, "pool": "pool-v1",
        "deal_set": "gauntlet-v1", "agent": agent, "deals": 10, "date": "2026-12-04",
        "references": [
            {"reference": r, "advantage": {"mean": a, "low": a - 1, "high": a + 1, "n": 10}}
            for r, a in advantages.items()
        ],
        "mean_advantage": {"mean": mean, "low": mean + low, "high": mean + high, "n": 10},
    }  # fmt: skip


def test_the_rating_anchors_are_exact_and_a_better_agent_rates_higher():
    refs = {"random": 0.1, "heuristic": -7.3, "ppo": -9.9}
    random_row = _row("random", refs)
    heuristic = _row("heuristic", {"random": 13.7, "heuristic": 0.3, "ppo": -2.1})
    better = _row("x", {"random": 20.0, "heuristic": 6.0, "ppo": 3.3})
    worse = _row("y", {"random": 5.0, "heuristic": -4.0, "ppo": -6.0})
    rows = [random_row, heuristic, better, worse]
    assert rating(random_row, rows)["rating"] == 0.0
    assert rating(heuristic, rows)["rating"] == 1000.0
    assert rating(better, rows)["rating"] > 1000.0
    assert 0.0 < rating(worse, rows)["rating"] < 1000.0
    assert rating(better, [better]) is None  # no anchors: no rating
    # the rating interval is the mean advantage's interval on the same scale
    rated = rating(better, rows)
    assert rated["low"] < rated["rating"] < rated["high"]


def test_the_rating_uses_only_the_references_the_anchors_share():
    random_row = _row("random", {"random": 0.0, "heuristic": -5.0})
    heuristic = _row("heuristic", {"random": 5.0, "heuristic": 0.0})
    agent = _row("z", {"random": 5.0, "heuristic": 0.0, "ppo": -100.0})
    assert rating(agent, [random_row, heuristic])["rating"] == pytest.approx(1000.0)
    assert rating(agent, [random_row, heuristic])["references"] == ["heuristic", "random"]


def test_the_sequential_stop(tmp_path):
    wide = _tiny(tmp_path / "wide", "tri_palki", 3, deals=8, batch=2, until_width=1e9)
    assert wide["deals"] == 2  # every interval already narrower than the width
    narrow = _tiny(tmp_path / "narrow", "tri_palki", 3, deals=6, batch=2, until_width=1e-9)
    assert narrow["deals"] == 6  # never narrow enough: up to --deals


def test_the_same_seed_gives_the_same_row(tmp_path):
    one = _tiny(tmp_path / "one", "paston", 3, seed=4)
    two = _tiny(tmp_path / "two", "paston", 3, seed=4)
    assert _deterministic(one) == _deterministic(two)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess", "--agent", "random"], "unknown game 'chess'"),
        (["--game", "paston", "--agent", "nonsense"], "unknown agent 'nonsense'"),
        (["--game", "tri_palki", "--num-players", "12", "--agent", "random"], "2 to 11"),
        (["--game", "tri_palki", "--num-players", "5", "--agent", "random"], "3, 4, 6 players"),
        (["--game", "paston", "--agent", "random", "--deals", "1"], "--deals must be"),
        (["--game", "paston", "--agent", "random", "--references", "rllib:paston"], "pool-v1"),
        (["--game", "paston", "--agent", "random", "--until-width", "0"], "until-width"),
        (["--game", "paston"], "required"),
    ],
)
def test_bad_input_is_refused_in_one_line(tmp_path, capsys, argv, message):
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_pool_is_the_versioned_pool_filtered_by_the_registry():
    for game in GAMES:
        spec = game_spec(game)
        offered = pool(game)
        # a shipped agent of the game, or the montecarlo baseline where the game has one
        assert all(r in spec.agents or (r == "montecarlo") for r in offered)
        assert ("montecarlo" in offered) == (spec.montecarlo_agent is not None)
        assert list(offered) == [r for r in POOL if r in offered]
    assert "montecarlo" in pool("paston") and "montecarlo" in pool("tri_palki")


def test_the_leaderboard_page_is_current():
    page = (ROOT / "docs" / "leaderboard.md").read_text()
    assert page == render_markdown(shipped_rows()), (
        "docs/leaderboard.md is stale: folkcards leaderboard --out docs/leaderboard.md"
    )


def test_every_shipped_row_holds_its_command_and_versions():
    rows = shipped_rows()
    for row in rows:
        assert row["command"].startswith("folkcards gauntlet ")
        assert row["pool"] == "pool-v1" and row["deal_set"] == deal_sets.CURRENT
        assert (
            row["deal_set_sha256"]
            == deal_sets.load(row["deal_set"], row["game"], row["num_players"])["sha256"]
        )


def test_the_web_table_lists_the_rows(tmp_path):
    from folkcards.web.app import create_app
    from starlette.testclient import TestClient

    app = create_app(tmp_path / "human.sqlite", seed=1, bot_workers=0)
    with TestClient(app) as client:
        page = client.get("/leaderboard")
        assert page.status_code == 200 and "Leaderboard" in page.text
        rows = client.get("/api/leaderboard").json()["rows"]
        assert len(rows) == len(shipped_rows())
        for row in rows:
            assert row["agent"] in page.text


def test_a_run_with_more_deals_resumes_the_same_tournaments(tmp_path):
    first = _tiny(tmp_path, "tri_palki", 3, deals=2)
    more = _tiny(tmp_path, "tri_palki", 3, deals=4)
    fresh = _tiny(tmp_path / "fresh", "tri_palki", 3, deals=4)
    assert first["deals"] == 2 and more["deals"] == 4
    assert _deterministic(more) == _deterministic(fresh)


def test_a_resumed_row_keeps_the_play_time_of_its_earlier_runs(tmp_path):
    row_file = tmp_path / "row.json"
    _tiny(tmp_path, "tri_palki", 3, deals=2)
    earlier = json.loads(row_file.read_text())
    earlier["seconds"] = 1234.5  # as if the first run had played for twenty minutes
    row_file.write_text(json.dumps(earlier))
    again = _tiny(tmp_path, "tri_palki", 3, deals=2)  # nothing left to play
    assert 1234.5 <= again["seconds"] < 1234.5 + 60


def test_a_probe_record_fills_the_best_response_column(tmp_path):
    probe = tmp_path / "probe"
    probe.mkdir()
    measurement = {"game": "tri_palki", "num_players": 3, "agent": "random", "deals": 40,
                   "gain": 0.25, "ci95": 0.05}  # fmt: skip
    (probe / "final.json").write_text(json.dumps({"measurement": measurement}))
    row = _tiny(tmp_path / "run", "tri_palki", 3, probe=probe)
    assert row["best_response"] == {"gain": 0.25, "ci95": 0.05, "deals": 40, "source": str(probe)}
    with pytest.raises(ValueError, match="measured 'random'"):
        make_gauntlet("tri_palki", "heuristic", 3, probe=probe)
    with pytest.raises(ValueError, match="no probe measurement"):
        make_gauntlet("tri_palki", "random", 3, probe=tmp_path / "nowhere")


def test_a_probe_of_the_packaged_model_names_the_same_agent(tmp_path):
    """``ppo`` in a gauntlet row and ``ppo:tri_palki`` in a probe's record are one agent."""
    probe = tmp_path / "probe"
    probe.mkdir()
    measurement = {"game": "tri_palki", "num_players": 4, "agent": "ppo:tri_palki", "deals": 9,
                   "gain": 0.5, "ci95": 0.1}  # fmt: skip
    (probe / "final.json").write_text(json.dumps({"measurement": measurement}))
    assert read_probe(probe, "tri_palki", 4, "ppo")["gain"] == 0.5
    with pytest.raises(ValueError, match="not 'ppo:runs/x.zip'"):
        read_probe(probe, "tri_palki", 4, "ppo:runs/x.zip")
    with pytest.raises(ValueError, match="at tri_palki \\(4 players\\)"):
        read_probe(probe, "tri_palki", 3, "ppo")


@pytest.mark.slow
def test_a_shipped_row_is_reproduced_by_its_stored_command(tmp_path):
    import shlex

    (row,) = [r for r in shipped_rows() if r["game"] == "paston" and r["agent"] == "random"]
    argv = shlex.split(row["command"])[2:]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    again = json.loads((tmp_path / "row.json").read_text())
    assert _deterministic(again) == _deterministic(row)


def test_the_stored_command_leaves_out_where_the_row_was_written(tmp_path, capsys):
    args = ["--game", "tri_palki", "--num-players", "3", "--agent", "random",
            "--references", "random", "--deals", "2", "--workers", "1"]  # fmt: skip
    assert main([*args, "--out", str(tmp_path / "a"), "--no-progress"]) == 0
    assert main([*args, f"--out={tmp_path / 'b'}"]) == 0
    for folder in ("a", "b"):
        row = json.loads((tmp_path / folder / "row.json").read_text())
        assert row["command"] == "folkcards gauntlet " + " ".join(args)
    capsys.readouterr()


def test_the_open_hand_column_is_what_a_tournament_with_the_analysis_reports(tmp_path):
    """Differential: the row's open-hand accuracy (computed afterwards from the stored records)
    equals the tournament's own open-hand statistic over the same deals (computed while
    playing), for a game with the solver; a game without it has none."""
    import dataclasses

    from folkcards.evaluate.benchmarks.gauntlet import AGENT
    from folkcards.evaluate.running.runner import run

    def rated(game: str) -> bool:  # the gauntlet has a deal set for it
        try:
            make_gauntlet(game, "random", None, references=["random"])
        except ValueError:
            return False
        return True

    with_solver = [g for g in GAMES if game_spec(g).has("open_hand_analysis") and rated(g)]
    assert with_solver, "no game the gauntlet rates has the open-hand analysis"
    game = with_solver[0]
    n = game_spec(game).default_players
    row = _tiny(tmp_path / "gauntlet", game, n, agent="heuristic", deals=6)
    assert row["open_hand"] is not None and row["open_hand"]["declarer"]["deals"] > 0
    gauntlet = make_gauntlet(game, "heuristic", n, deals=6, references=["random"], workers=1)
    config = dataclasses.replace(
        gauntlet.tournament("random"), open_hand=True, out=tmp_path / "t",
        db=tmp_path / "t" / "tournament.sqlite",
    )  # fmt: skip
    results = run(config, progress=False, log=_quiet, max_units=6 * config.units_per_deal,
                  bootstrap=0)  # fmt: skip
    assert results["open_hand"][AGENT] == row["open_hand"]
    without = [g for g in GAMES if not game_spec(g).has("open_hand_analysis") and rated(g)]
    if without:
        n = game_spec(without[0]).default_players
        assert _tiny(tmp_path / "other", without[0], n)["open_hand"] is None
