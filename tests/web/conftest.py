"""Shared pieces of the web table tests: an app on a temporary store, and the hidden cards."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest
import uvicorn
from folkcards.envs.registry import game_spec
from folkcards.web.app import create_app
from folkcards.web.views import layout
from starlette.testclient import TestClient


@pytest.fixture
def client(tmp_path):
    """The app with its agents in threads of this process (fast to start; tests can patch them)."""
    app = create_app(tmp_path / "human.sqlite", seed=5, bot_workers=0)
    with TestClient(app) as test_client:
        yield test_client


@contextmanager
def running_server(app):
    """Serve ``app`` with uvicorn on a free loopback port; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started:
            break
        time.sleep(0.025)
    assert server.started, "the test server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def settle(client, view, timeout=30.0):
    """Poll the game until its agents are done (the view is no longer ``waiting``)."""
    deadline = time.monotonic() + timeout
    while view.get("waiting"):
        assert time.monotonic() < deadline, "the agents did not finish in time"
        time.sleep(0.02)
        response = client.get(f"/api/games/{view['id']}")
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def play(client, view, action):
    """The person's move ``action`` from ``view``; the settled answer."""
    response = client.post(
        f"/api/games/{view['id']}/move", json={"action": action, "move": view["move"]}
    )
    assert response.status_code == 200, response.text
    return settle(client, response.json())


def hidden_cards(table_game) -> set[str]:
    """Cards the person's seat may not see now, read from every OTHER seat's own observation."""
    game, env, me = table_game.game, table_game.env, table_game.human
    spec = game_spec(game)
    players = len(env.possible_agents)
    mine = spec.decode(env.observe(env.possible_agents[me])["observation"], players)
    names = layout(game).cards.name
    hidden: set[int] = set()
    for seat, agent in enumerate(env.possible_agents):
        if seat == me:
            continue
        theirs = spec.decode(env.observe(agent)["observation"], players)
        hidden |= set(theirs.hand)
        if game == "paston":
            hidden |= set(theirs.prikup) | set(theirs.discards)
        else:
            hidden -= set(mine.known[(seat - me) % players])
    if game == "paston":  # the prikup cards stay in the declarer's view after they are played
        public = {card for cards in mine.played for card in cards} | {c for _, c in mine.trick}
        hidden -= set(mine.hand) | set(mine.prikup) | set(mine.discards) | public
    return {names(c) for c in hidden}
