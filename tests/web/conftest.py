"""Shared pieces of the web table tests: an app on a temporary store, and the hidden cards."""

from __future__ import annotations

import pytest
from folkcards.envs.registry import game_spec
from folkcards.web.app import create_app
from folkcards.web.views import layout
from starlette.testclient import TestClient


@pytest.fixture
def client(tmp_path):
    app = create_app(tmp_path / "human.sqlite", seed=5)
    with TestClient(app) as test_client:
        yield test_client


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
