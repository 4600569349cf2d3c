"""The web table under real use: concurrent and repeated moves, slow agents, hostile
and broken requests, and every registered game.

Races run against a real uvicorn server on 127.0.0.1 with concurrent requests; the slow agent is
``gate`` (tests/web/slow_agents.py), which thinks until the test opens its gate, so "a read
answers while the agent thinks" is shown without timing anything.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal

import httpx
import numpy as np
import pytest
from folkcards.envs.registry import GAMES
from folkcards.web.app import create_app
from folkcards.web.validation import ECHO, MAX_BODY, MAX_MESSAGE
from starlette.testclient import TestClient

from .conftest import play, running_server, settle
from .slow_agents import GATE_ENV

GAME_BODIES = [
    {"game": "paston", "seat": 1, "opponents": ["heuristic", "random"]},
    {"game": "tri_palki", "num_players": 3, "seat": 0, "opponents": ["random", "heuristic"]},
]


def _stored_equals_memory(table, game_id):
    game = table.games[game_id]
    with game.lock:
        memory = json.loads(json.dumps(game.env.unwrapped.record()))
        over = game.over
    assert table.store.record(game_id) == memory, "the stored record is not the game's"
    listed = {g["id"]: g for g in table.store.games()}
    assert listed[game_id]["finished"] == over


async def _settled(client, view):
    while view["waiting"]:
        await asyncio.sleep(0.01)
        view = (await client.get(f"/api/games/{view['id']}")).json()
    return view


async def _race_one_game(client, table, body, rng):
    """At every turn of the person, send at once: the same move 3 times, another legal move
    twice, and two moves from older views. Exactly one is applied."""
    response = await client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    view = await _settled(client, response.json())
    game_id = view["id"]
    human = view["seat"]
    turns = 0
    while not view["over"]:
        legal = [m["id"] for m in view["legal"]]
        seen = view["move"]
        first = int(rng.choice(legal))
        second = int(rng.choice(legal))
        sent = [(first, seen)] * 3 + [(second, seen)] * 2
        if seen > 0:
            sent += [(first, seen - 1), (second, int(rng.integers(seen)))]
        order = rng.permutation(len(sent))
        answers = await asyncio.gather(
            *(
                client.post(
                    f"/api/games/{game_id}/move",
                    json={"action": sent[i][0], "move": sent[i][1]},
                )
                for i in order
            )
        )
        statuses = [None] * len(sent)
        for i, answer in zip(order, answers, strict=True):
            assert answer.status_code in (200, 409), answer.text
            statuses[i] = answer.status_code
        game = table.games[game_id]
        with game.lock:
            history = list(game.history)
        applied = history[seen]
        assert applied[0] == human and applied[1] in (first, second)
        assert sum(1 for seat, _ in history if seat == human) == turns + 1, "applied twice"
        for (action, move), status in zip(sent, statuses, strict=True):
            repeat = history[move] == (human, action)
            assert status == (200 if repeat else 409), (action, move, history[move])
        turns += 1
        view = await _settled(client, (await client.get(f"/api/games/{game_id}")).json())
        _stored_equals_memory(table, game_id)
    _stored_equals_memory(table, game_id)
    listed = {g["id"]: g for g in (await client.get("/api/replays")).json()["human"]}
    assert listed[game_id]["finished"]
    return turns


def test_concurrent_repeated_and_stale_moves_are_applied_once_and_stored_in_order(tmp_path):
    app = create_app(tmp_path / "human.sqlite", seed=7, bot_workers=0)
    table = app.state.table
    rng = np.random.default_rng(22)

    async def run(url):
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            games = [GAME_BODIES[i % 2] for i in range(8)]
            turns = await asyncio.gather(
                *(_race_one_game(client, table, body, rng) for body in games)
            )
            assert sum(turns) > 30

    with running_server(app) as url:
        asyncio.run(run(url))


def test_a_repeat_answers_the_current_view_and_a_stale_move_409(client):
    view = settle(client, client.post("/api/games", json=GAME_BODIES[0]).json())
    action = view["legal"][0]["id"]
    after = play(client, view, action)
    again = client.post(
        f"/api/games/{view['id']}/move", json={"action": action, "move": view["move"]}
    )
    assert again.status_code == 200 and again.json() == after
    other = [m["id"] for m in view["legal"] if m["id"] != action]
    if other:
        stale = client.post(
            f"/api/games/{view['id']}/move", json={"action": other[0], "move": view["move"]}
        )
        assert stale.status_code == 409 and "moved on" in stale.json()["error"]
    ahead = client.post(
        f"/api/games/{view['id']}/move", json={"action": action, "move": after["move"] + 5}
    )
    assert ahead.status_code == 409
    assert settle(client, client.get(f"/api/games/{view['id']}").json()) == after


# --- slow agents ----------------------------------------------------------------------------


@pytest.mark.parametrize("bot_workers", [0, 1])
def test_reads_answer_while_an_agent_thinks(tmp_path, monkeypatch, bot_workers):
    gate = tmp_path / "gate"
    monkeypatch.setenv(GATE_ENV, str(gate))
    app = create_app(
        tmp_path / "human.sqlite",
        seed=3,
        bot_workers=bot_workers,
        agents_module="tests.web.slow_agents",
        inline_wait=0.05,
    )
    table = app.state.table
    body = {"game": "paston", "seat": 2, "opponents": ["gate", "gate"]}
    with running_server(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        view = created.json()
        assert view["waiting"] and view["legal"] == [] and view["move"] == 0
        game = table.games[view["id"]]
        for _ in range(5):  # the agent is still at its gate: these answer without it
            read = client.get(f"/api/games/{view['id']}")
            assert read.status_code == 200 and read.json()["waiting"]
            assert client.get("/api/meta").status_code == 200
            assert client.get("/api/replays").status_code == 200
        early = client.post(f"/api/games/{view['id']}/move", json={"action": 32, "move": 0})
        assert early.status_code == 409 and "not your turn" in early.json()["error"]
        assert game.running is not None and game.history == []
        gate.touch()
        view = settle(client, client.get(f"/api/games/{view['id']}").json())
        assert view["legal"] and view["move"] == len(game.history) >= 2
        _stored_equals_memory(table, view["id"])


def test_an_agent_over_its_time_budget_ends_the_game_with_a_message(tmp_path, monkeypatch):
    gate = tmp_path / "gate"
    monkeypatch.setenv(GATE_ENV, str(gate))
    app = create_app(
        tmp_path / "human.sqlite",
        seed=3,
        bot_workers=0,
        move_budget=0.3,
        agents_module="tests.web.slow_agents",
        inline_wait=0.05,
    )
    with TestClient(app) as client:
        view = client.post(
            "/api/games", json={"game": "tri_palki", "num_players": 2, "opponents": ["gate"]}
        ).json()
        if not view["waiting"]:  # the person moves first
            view = play(client, view, view["legal"][0]["id"])
        view = settle(client, view)
        gate.touch()  # let the abandoned agent thread finish
        assert view["over"]
        assert "took more than 0.3 s for one move" in view["error"]
        _stored_equals_memory(app.state.table, view["id"])


def test_a_worker_that_dies_ends_its_games_and_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv(GATE_ENV, str(tmp_path / "gate"))  # never opened: the agent hangs
    app = create_app(
        tmp_path / "human.sqlite",
        seed=3,
        bot_workers=1,
        agents_module="tests.web.slow_agents",
        inline_wait=0.05,
    )
    table = app.state.table
    with TestClient(app) as client:
        view = client.post(
            "/api/games", json={"game": "paston", "seat": 2, "opponents": ["gate", "gate"]}
        ).json()
        assert view["waiting"]
        (worker,) = table.bots._processes
        os.kill(worker.pid, signal.SIGKILL)
        view = settle(client, view, timeout=20)
        assert view["over"] and "worker process stopped" in view["error"]
        _stored_equals_memory(table, view["id"])
        fresh = client.post("/api/games", json={"game": "paston", "opponents": ["random"] * 2})
        assert fresh.status_code == 201, fresh.text
        assert settle(client, fresh.json())["legal"]
        assert table.bots._processes[0].pid != worker.pid


# --- bad requests ---------------------------------------------------------------------------

LONG = "x" * 5000
NEW = "/api/games"


def _new_game_cases():
    valid = {"game": "paston", "seat": 0}
    padded = dict(valid, pad=" " * (2 * 1024 * 1024))
    return [
        ("issue's deep nesting", b"[" * 100_000 + b"]" * 100_000, 413),
        ("deep nesting within the limit", b"[" * 5000 + b"]" * 5000, 400),
        ("nine levels", json.dumps({"game": [[[[[[[[["paston"]]]]]]]]]}).encode(), 400),
        ("2 MB padded request", json.dumps(padded).encode(), 413),
        ("not JSON", b"{not json", 400),
        ("empty", b"", 400),
        ("not UTF-8", b'{"game": "\xff\xfe"}', 400),
        ("a list", b"[1, 2]", 400),
        ("long game name", json.dumps({"game": LONG}).encode(), 400),
        ("long agent spec", json.dumps(dict(valid, opponents=[LONG, "random"])).encode(), 400),
        ("long episode", json.dumps(dict(valid, episode=LONG)).encode(), 400),
        ("unknown field", json.dumps(dict(valid, **{LONG: 1})).encode(), 400),
        ("huge number", b'{"game": "paston", "num_players": 1' + b"0" * 5000 + b"}", 400),
        ("big number", b'{"game": "paston", "num_players": 1' + b"0" * 400 + b"}", 400),
        ("players as a list", json.dumps(dict(valid, num_players=[3] * 900)).encode(), 400),
        ("NaN seat", b'{"game": "paston", "seat": NaN}', 400),
        ("spec not a string", json.dumps(dict(valid, opponents=[{"a": 1}, 2])).encode(), 400),
    ]


def _check_error(response, status, sent: bytes):
    assert response.status_code == status, response.text[:200]
    if response.headers.get("content-type", "").startswith("application/json"):
        message = response.json()["error"]
    else:
        message = response.text
    assert message and "\n" not in message and len(message) <= MAX_MESSAGE, message
    assert "Traceback" not in message
    for piece in (b"x" * (ECHO + 8), b"0" * (ECHO + 8), b"[" * (ECHO + 8), b" " * (ECHO + 8)):
        if piece in sent:
            assert piece.decode() not in message, f"the message echoes the input: {message}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = create_app(tmp_path_factory.mktemp("web") / "human.sqlite", seed=9, bot_workers=0)
    with running_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client, app.state.table


@pytest.mark.parametrize(("name", "content", "status"), _new_game_cases())
def test_bad_new_game_requests_are_short_4xx(server, name, content, status):
    client, table = server
    games, stored = len(table.games), len(table.store.games())
    response = client.post(NEW, content=content, headers={"content-type": "application/json"})
    _check_error(response, status, content)
    assert len(table.games) == games and len(table.store.games()) == stored


def test_an_oversized_body_without_a_length_is_413(server):
    client, table = server

    def chunks():
        for _ in range(64):
            yield b" " * 1024

    response = client.post(NEW, content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in response.request.headers  # sent chunked
    _check_error(response, 413, b" " * 1024)
    small = client.post(NEW, content=iter([b'{"game": ', b'"paston"}']))
    assert small.status_code == 201, small.text


def test_bad_moves_and_ids_are_short_4xx(server):
    client, table = server
    view = settle(client, client.post(NEW, json={"game": "paston", "seat": 0}).json())
    game_id = view["id"]
    path = f"/api/games/{game_id}/move"
    before = client.get(f"/api/games/{game_id}").json()
    cases = [
        (b"[" * 5000 + b"]" * 5000, 400),
        (json.dumps({"action": 1, "move": 0, "pad": " " * MAX_BODY}).encode(), 413),
        (b'{"action": NaN, "move": 0}', 400),
        (b'{"action": 1, "move": 1' + b"0" * 400 + b"}", 409),
        (b'{"action": 1' + b"0" * 400 + b', "move": ' + str(view["move"]).encode() + b"}", 400),
        (json.dumps({"action": "x" * 5000, "move": 0}).encode(), 400),
        (b'{"action": true, "move": 0}', 400),
        (b'{"action": 32, "move": -1}', 400),
        (b'{"action": -1, "move": 0}', 400),  # no action of any game, whatever the move number
        (b'{"action": 100000, "move": 0}', 400),
    ]
    for content, status in cases:
        response = client.post(path, content=content, headers={"content-type": "application/json"})
        _check_error(response, status, content)
    long_id = "x" * 3000
    for response in (
        client.get(f"/api/games/{long_id}"),
        client.post(f"/api/games/{long_id}/move", json={"action": 1, "move": 0}),
        client.get(f"/api/replays/human/{long_id}"),
        client.get(f"/api/replays/human/{long_id}/text"),
    ):
        _check_error(response, 404, long_id.encode())
    _check_error(client.get(f"/api/games/{game_id}?seat={long_id}"), 403, long_id.encode())
    assert client.get(f"/api/replays/tournament/{10**30}").status_code == 404
    assert client.get(f"/api/games/{game_id}").json() == before


def test_an_unexpected_error_is_logged_and_answered_500_in_one_line(client, caplog):
    table = client.app.state.table

    def broken():
        raise RuntimeError("kaboom\nsecond line of a stack")

    table.replays = broken
    with caplog.at_level(logging.ERROR, logger="folkcards.web"):
        response = client.get("/api/replays")
    assert response.status_code == 500
    message = response.json()["error"]
    assert "\n" not in message and "kaboom" not in message and "Traceback" not in message
    logged = [r for r in caplog.records if r.exc_info]
    assert logged and "kaboom" in str(logged[0].exc_info[1])
    assert client.get("/api/meta").status_code == 200


# --- every game the table lists ------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_every_listed_game_is_played_or_refused_with_a_4xx(client, game):
    table = client.app.state.table
    listed = [g["name"] for g in client.get("/api/meta").json()["games"]]
    assert game in listed
    response = client.post(NEW, json={"game": game, "seat": 0})
    assert response.status_code < 500, response.text
    if response.status_code != 201:  # a game the table cannot carry: one line, nothing kept
        _check_error(response, response.status_code, b"")
        assert not table.games and not table.store.games()
        meta = {g["name"]: g for g in client.get("/api/meta").json()["games"]}
        assert meta[game]["unavailable"]
        return
    view = settle(client, response.json())
    rng = np.random.default_rng(5)
    for _ in range(400):
        if view["over"]:
            break
        action = int(rng.choice([m["id"] for m in view["legal"]]))
        answer = client.post(
            f"/api/games/{view['id']}/move", json={"action": action, "move": view["move"]}
        )
        assert answer.status_code < 500, answer.text
        view = settle(client, answer.json())
    assert view["over"]
    _stored_equals_memory(table, view["id"])
