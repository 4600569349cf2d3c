"""The human-game store: saves never go back in time, and stores written before versions open."""

from __future__ import annotations

import json
import sqlite3

from folkcards.envs.notation import to_text
from folkcards.envs.registry import game_spec
from folkcards.web.store import HumanGameStore

OLD_SCHEMA = """
CREATE TABLE human_games (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, created REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0, players TEXT NOT NULL, human_seat INTEGER NOT NULL,
    record TEXT NOT NULL, text TEXT NOT NULL
)
"""


def _records(moves):
    env = game_spec("paston").raw_env()
    env.reset(seed=4)
    out = [env.unwrapped.record()]
    for _ in range(moves):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(mask.nonzero()[0][0]))
        out.append(env.unwrapped.record())
    return out


def test_an_older_save_never_replaces_a_newer_one(tmp_path):
    store = HumanGameStore(tmp_path / "h.sqlite")
    records = _records(3)
    players = ["You", "heuristic", "random"]
    store.save("g", "paston", players, 0, records[3], finished=False, version=3)
    store.save("g", "paston", players, 0, records[1], finished=False, version=1)  # late
    assert store.record("g") == json.loads(json.dumps(records[3]))
    store.save("g", "paston", players, 0, records[3], finished=True, version=3)
    assert store.games()[0]["finished"]
    assert store.text("g") == to_text(records[3], players=players)


def test_a_store_written_before_versions_opens_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.sqlite"
    record = _records(2)[2]
    with sqlite3.connect(path) as db:
        db.execute(OLD_SCHEMA)
        db.execute(
            "INSERT INTO human_games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            ("old", "paston", 1.0, 1, json.dumps(["You", "a", "b"]), 0, json.dumps(record), "T"),
        )
    store = HumanGameStore(path)
    assert store.record("old") == json.loads(json.dumps(record)) and store.text("old") == "T"
    store.save("new", "paston", ["You", "a", "b"], 0, record, finished=False, version=2)
    assert [g["id"] for g in store.games()] == ["old", "new"]
