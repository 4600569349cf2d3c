"""What the web table's views add to the observation: the last
finished trick and every trick's winner, the running score sheet, and the agent specs a web
client may name. Written from the task text and the rules, checked against the observation."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest
from folkcards.web.app import create_app
from folkcards.web.cli import add_arguments
from folkcards.web.validation import RequestError, check_web_agent
from starlette.testclient import TestClient

from .conftest import hidden_cards, play, settle

CARD = re.compile(r"\b(?:10|[6-9JQKA])[SCDH]\b")


def _check_tricks(view):
    """The trick history agrees with the observation: each seat's count of tricks won is its
    ``tricks``; every finished trick holds one card per seat in play, all of them played."""
    won = view.get("tricks_won", [])
    if view["phase"] in ("play", "over") and view["contract"] is not None:
        counts = Counter(t["winner"] for t in won)
        assert [counts.get(s, 0) for s in range(3)] == view["tricks"], (won, view["tricks"])
    played = {card for cards in view["played"] for card in cards}
    for number, trick in enumerate(won, 1):
        assert trick["number"] == number
        assert len(trick["cards"]) == 1 + sum(view["whist"])
        assert {card for _, card in trick["cards"]} <= played
        assert trick["winner"] in {seat for seat, _ in trick["cards"]}
    if won:
        assert view["last_trick"] == won[-1]


def test_the_last_trick_and_the_winners_follow_the_tricks_taken(client):
    """Whole Paston deals by random clicks: the history of tricks always matches the tricks
    each seat took, the last trick stays in the view while the next one is empty, and every
    finished trick is an event naming its winner."""
    rng = np.random.default_rng(4)
    tables = 0
    for _ in range(12):
        if tables > 5:
            break
        body = {"game": "paston", "seat": 1, "opponents": ["heuristic", "random"]}
        view = settle(client, client.post("/api/games", json=body).json())
        while True:
            _check_tricks(view)
            if view["phase"] == "play" and not view["trick"] and sum(view["tricks"]):
                assert view["last_trick"]["number"] == sum(view["tricks"])
                tables += 1
            if view["over"]:
                break
            view = play(client, view, int(rng.choice([m["id"] for m in view["legal"]])))
        won = view.get("tricks_won", [])
        winners = [e for e in view["events"] if e.startswith("trick ")]
        assert len(winners) == len(won)
        for event, trick in zip(winners, won, strict=True):
            who = "You" if trick["winner"] == 1 else f"P{trick['winner']}"
            assert event == f"trick {trick['number']} won by {who}"
    assert tables > 5, "no view between tricks was seen"


@pytest.mark.parametrize(
    ("body", "score"),
    [
        (
            {"game": "paston", "episode": "game", "seat": 2, "opponents": ["random", "random"]},
            "totals",
        ),
        (
            {
                "game": "tri_palki",
                "episode": "match",
                "num_players": 3,
                "seat": 0,
                "opponents": ["heuristic", "random"],
            },
            "sticks",
        ),
    ],
)
def test_the_running_score_sheet_agrees_with_the_observation(client, body, score):
    """Over several deals or rounds of a game or match the score sheet gains one row per
    finished unit and its total is the observation's running score; no hidden card leaks."""
    rng = np.random.default_rng(2)
    table = client.app.state.table
    view = settle(client, client.post("/api/games", json=body).json())
    rows_seen = set()
    for _ in range(400):
        game = table.games[view["id"]]
        leaked = set(CARD.findall(json.dumps(view))) & hidden_cards(game)
        assert not leaked, f"the view shows hidden cards {leaked}"
        sheet = view["score_sheet"]
        rows_seen.add(len(sheet["rows"]))
        if sheet["rows"]:
            assert sheet["total"] == view[score]
            columns = {len(row["values"]) for row in sheet["rows"]}
            assert columns == {view["players"]}
        else:
            assert sheet["total"] is None
        if view["over"] or len(rows_seen) >= 3:
            break
        announce = [m["id"] for m in view["legal"] if m["name"] == "announce"]
        choice = announce[0] if announce and rng.random() < 0.5 else None  # shorter rounds
        view = play(client, view, choice or int(rng.choice([m["id"] for m in view["legal"]])))
    assert len(rows_seen) >= 2, "no deal or round finished"
    assert view["score_sheet"]["unit"] in ("deal", "round")


def test_a_paston_deal_view_has_no_cumulative_total_but_a_sheet_after_the_deal(client):
    rng = np.random.default_rng(5)
    body = {"game": "paston", "seat": 0, "opponents": ["random", "random"]}
    view = settle(client, client.post("/api/games", json=body).json())
    assert view["totals"] is None and view["score_sheet"]["rows"] == []
    while not view["over"]:
        view = play(client, view, int(rng.choice([m["id"] for m in view["legal"]])))
    sheet = view["score_sheet"]
    assert len(sheet["rows"]) == 1
    scores = [view["result"][f"player_{s}"]["deal_score"] for s in range(3)]
    assert sheet["rows"][0]["values"] == scores == sheet["total"]


def test_replay_frames_carry_the_trick_history(client):
    rng = np.random.default_rng(6)
    body = {"game": "paston", "seat": 0, "opponents": ["heuristic", "heuristic"]}
    view = settle(client, client.post("/api/games", json=body).json())
    while not view["over"]:
        view = play(client, view, int(rng.choice([m["id"] for m in view["legal"]])))
    frames = client.get(f"/api/replays/human/{view['id']}").json()["frames"]
    assert frames[-1].get("tricks_won", []) == view.get("tricks_won", [])
    assert frames[-1]["score_sheet"] == view["score_sheet"]
    assert all(not f["score_sheet"]["rows"] for f in frames[:-1])  # the deal ends at the end
    if view.get("tricks_won"):
        assert any("trick 1 won by" in (f["event"] or "") for f in frames)


# --- agent specs a web client may name ---------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["random", "heuristic", "pimc", "pimc:samples=8,seed=3", "ppo:paston", "ppo"]
)
def test_named_agents_pass_the_web_check(spec):
    check_web_agent(spec)


@pytest.mark.parametrize(
    "spec",
    [
        "ppo:/tmp/model.zip",
        "ppo:../models/x.zip",
        "rllib:runs/x",
        "evil.py:Agent",
        "os:system",
        "tests.web.slow_agents:GateAgent",
        "ppo:C:\\model.zip",
    ],
)
def test_files_and_modules_are_refused_to_a_web_client(client, spec):
    body = {"game": "paston", "seat": 0, "opponents": [spec, "random"]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    message = response.json()["error"]
    assert "--allow-any-agent" in message and "\n" not in message
    with pytest.raises(RequestError):
        check_web_agent(spec)


AGENT_FILE = """
from pathlib import Path
from folkcards.agents.random_agent import RandomAgent
Path("imported.marker").write_text("the server imported this file")


class Agent(RandomAgent):
    pass
"""


@pytest.mark.parametrize("allow", [False, True])
def test_a_web_client_loads_a_file_only_with_the_opt_in(tmp_path, monkeypatch, allow):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_agent_file.py").write_text(AGENT_FILE)
    app = create_app(tmp_path / "h.sqlite", seed=1, bot_workers=0, allow_any_agent=allow)
    with TestClient(app) as client:
        assert client.get("/api/meta").json()["any_agent"] is allow
        body = {"game": "paston", "seat": 0, "opponents": ["my_agent_file.py:Agent", "random"]}
        response = client.post("/api/games", json=body)
        assert response.status_code == (201 if allow else 400), response.text
    assert (tmp_path / "imported.marker").exists() is allow


def test_serve_passes_the_opt_in_to_the_app(tmp_path, monkeypatch):
    import argparse

    from folkcards.web import app as web_app
    from folkcards.web.cli import serve_from_args

    seen = {}

    def fake_create_app(*args, **kwargs):
        seen.update(kwargs)
        raise ValueError("stop here")

    monkeypatch.setattr(web_app, "create_app", fake_create_app)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    for argv, expected in ([], False), (["--allow-any-agent"], True):
        args = parser.parse_args(["--store", str(tmp_path / "h.sqlite"), *argv])
        assert serve_from_args(args) == 2
        assert seen["allow_any_agent"] is expected


@pytest.mark.parametrize(
    ("game", "players", "episode"), [("paston", 3, "game"), ("tri_palki", 3, "match")]
)
def test_replay_score_sheets_equal_the_sheet_rebuilt_after_every_move(game, players, episode):
    """Differential: a replay reads the finished units' results once; rebuilding the sheet
    from the env's record after every move must give the same sheet at every frame."""
    from folkcards.envs.registry import game_spec
    from folkcards.web.views import replay_frames, score_sheet

    spec = game_spec(game)
    rng = np.random.default_rng(8)
    env = spec.raw_env(players, episode=episode)
    env.reset(seed=3)
    for _ in range(600):
        units = env.unwrapped.record().get("deals") or env.unwrapped.record()["rounds"]
        if not env.agents or sum(1 for unit in units if unit.get("result")) >= 2:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(env.observe(agent)["action_mask"].nonzero()[0])))
    record = env.unwrapped.record()
    frames = replay_frames(game, record)
    again = spec.raw_env(players, episode=episode)
    again.reset(seed=3)
    expected = [score_sheet(game, again.unwrapped.record(), players)]
    for agent, action in record["actions"]:
        while again.agents and (
            again.terminations[again.agent_selection] or again.truncations[again.agent_selection]
        ):
            again.step(None)
        assert again.agent_selection == agent
        again.step(action)
        expected.append(score_sheet(game, again.unwrapped.record(), players))
    assert [f["score_sheet"] for f in frames] == expected
    assert len(expected[-1]["rows"]) >= 1, "no unit finished in the record"
