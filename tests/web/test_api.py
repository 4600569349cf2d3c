"""The web table's JSON API: play, private views, bad requests, stored games."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from folkcards.envs.notation import from_text

from .conftest import hidden_cards, play, settle

CARD = re.compile(r"\b(?:10|[6-9JQKA])[SCDH]\b")


def _play_out(client, view, rng, app_table, check_leaks=True):
    if check_leaks:
        assert hidden_cards(app_table.games[view["id"]]), "at the start some cards are hidden"
    while not view["over"]:
        if check_leaks:
            game = app_table.games[view["id"]]
            leaked = set(CARD.findall(json.dumps(view))) & hidden_cards(game)
            assert not leaked, f"the view shows hidden cards {leaked}"
            # the fields beyond the observation are part of what is checked
            assert "score_sheet" in view
            assert view["page"] != "tricks" or {"last_trick", "tricks_won"} <= set(view)
        action = int(rng.choice([m["id"] for m in view["legal"]]))
        view = play(client, view, action)
    return view


@pytest.mark.parametrize(
    ("body", "deals"),
    [
        ({"game": "paston", "seat": 1, "opponents": ["heuristic", "random"]}, 6),
        (
            {
                "game": "tri_palki",
                "num_players": 4,
                "seat": 3,
                "opponents": ["heuristic", "random", "heuristic"],
            },
            4,
        ),
        ({"game": "tri-palki", "num_players": 2, "seat": 0, "opponents": ["random"]}, 3),
    ],
)
def test_whole_games_never_show_another_seats_hidden_cards(client, body, deals):
    rng = np.random.default_rng(0)
    table = client.app.state.table
    for _ in range(deals):
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        view = _play_out(client, settle(client, response.json()), rng, table)
        assert view["result"] and not view["error"]


def test_another_seats_view_is_refused(client):
    view = client.post("/api/games", json={"game": "paston", "seat": 0}).json()
    assert client.get(f"/api/games/{view['id']}").status_code == 200
    for seat in (1, 2):
        response = client.get(f"/api/games/{view['id']}?seat={seat}")
        assert response.status_code == 403
        assert "private" in response.json()["error"]


def test_illegal_and_malformed_moves_change_nothing(client):
    view = settle(client, client.post("/api/games", json={"game": "paston", "seat": 0}).json())
    game_id = view["id"]
    legal = {m["id"] for m in view["legal"]}
    illegal = next(a for a in range(45) if a not in legal)
    before = client.get(f"/api/games/{game_id}").json()
    for body, status in [
        ({"action": illegal, "move": view["move"]}, 400),
        ({"action": 99, "move": view["move"]}, 400),
        ({"action": "pass", "move": view["move"]}, 400),
        ({"action": min(legal)}, 400),  # no move number
        ({"action": min(legal), "move": view["move"], "x": 1}, 400),
        ({}, 400),
        ([1, 2], 400),
    ]:
        response = client.post(f"/api/games/{game_id}/move", json=body)
        assert response.status_code == status
        assert response.json()["error"]
    response = client.post(
        f"/api/games/{game_id}/move",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert client.get(f"/api/games/{game_id}").json() == before
    assert client.post("/api/games/nope/move", json={"action": 1, "move": 0}).status_code == 404


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "bridge"}, "unknown game"),
        ({"game": "paston", "num_players": 4}, "exactly 3"),
        ({"game": "tri_palki", "num_players": 5, "opponents": ["random"]}, "list of 4"),
        ({"game": "paston", "seat": 3}, "seat"),
        ({"game": "paston", "opponents": ["grandmaster", "random"]}, "unknown agent"),
        ({"game": "paston", "episode": "match"}, "episode modes"),
    ],
)
def test_bad_new_game_requests_are_4xx(client, body, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_a_failing_agent_ends_its_game_not_the_server(client, monkeypatch):
    from folkcards.agents.random_agent import RandomAgent

    def broken(self, observation):
        raise RuntimeError("boom")

    monkeypatch.setattr(RandomAgent, "act", broken)
    view = client.post(
        "/api/games", json={"game": "paston", "seat": 2, "opponents": ["random", "random"]}
    ).json()
    view = settle(client, view)
    rng = np.random.default_rng(1)
    while not view["over"]:
        action = int(rng.choice([m["id"] for m in view["legal"]]))
        view = play(client, view, action)
    assert "failed" in view["error"] and "boom" in view["error"]
    assert client.get("/api/meta").status_code == 200


def test_games_are_stored_and_replayed_after_they_end(client):
    rng = np.random.default_rng(3)
    view = settle(client, client.post("/api/games", json={"game": "paston", "seat": 0}).json())
    game_id = view["id"]
    assert client.get(f"/api/replays/human/{game_id}").status_code == 409  # still in play
    view = _play_out(client, view, rng, client.app.state.table, check_leaks=False)
    listed = client.get("/api/replays").json()["human"]
    assert [g["id"] for g in listed] == [game_id] and listed[0]["finished"]
    replay = client.get(f"/api/replays/human/{game_id}").json()
    text = client.get(f"/api/replays/human/{game_id}/text").text
    record = from_text(text)
    assert len(replay["frames"]) == len(record["actions"]) + 1
    dealt = record["deals"][0]["hands"]
    first = replay["frames"][0]["views"]
    assert [sorted(v["hand"]) for v in first] == [sorted(h) for h in dealt]


def test_tournament_deals_are_listed_and_replayed(tmp_path):
    from folkcards.web.app import create_app
    from starlette.testclient import TestClient

    from folkcards.cli import main

    out = tmp_path / "t"
    args = [
        "tournament",
        "--game",
        "tri_palki",
        "--agents",
        "heuristic",
        "random",
        "random",
        "--rounds",
        "2",
        "--seed",
        "4",
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    client = TestClient(
        create_app(tmp_path / "human.sqlite", out / "tournament.sqlite", bot_workers=0)
    )
    units = client.get("/api/replays").json()["tournament"]
    assert len(units) == 2 * 6  # rounds x seatings
    replay = client.get("/api/replays/tournament/3").json()
    assert replay["names"] == units[3]["agents"]
    assert replay["frames"][-1]["views"][0]["phase"] == "over"
    assert client.get("/api/replays/tournament/999").status_code == 404


def test_a_new_game_without_opponents_seats_each_games_table_opponent(client):
    """The opponent a person meets by default is the registry's ``table_opponent``, named in
    ``/api/meta`` (the page fills the opponents field with it) and seated by the server."""
    from folkcards.envs.registry import GAMES

    meta = {g["name"]: g for g in client.get("/api/meta").json()["games"]}
    for name, spec in GAMES.items():
        assert meta[name]["opponent"] == spec.table_opponent
        if meta[name]["unavailable"]:
            continue
        response = client.post("/api/games", json={"game": name, "seat": 1})
        assert response.status_code == 201, response.text
        view = response.json()
        expected = [spec.table_opponent] * spec.default_players
        expected[1] = "You"
        assert view["names"] == expected
