"""Human games stored in SQLite, one row per game with its JSON record.

One connection writes (in WAL mode, ``synchronous=NORMAL``: a save costs no disk flush, and a
crash of the server loses nothing that was saved); reads use their own connections. The text
form of a game is made from its record when asked for (stores written before kept it in the
``text`` column, which new saves leave empty).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from folkcards.envs.notation import to_text

_SCHEMA = """
CREATE TABLE IF NOT EXISTS human_games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    created REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    players TEXT NOT NULL,
    human_seat INTEGER NOT NULL,
    record TEXT NOT NULL,
    text TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0
)
"""


class HumanGameStore:
    """Keeps every game a person plays (updated after each move, so nothing is lost).

    Each save carries the game's ``version`` (its number of moves); a save never replaces a
    newer one, so whatever order saves land in, the row holds the latest state saved.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file():
            raise ValueError(f"{self.path} is not a file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._writer = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        with self._lock, self._writer as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(human_games)")}
            if "version" not in columns:  # a store written before versions were kept
                db.execute("ALTER TABLE human_games ADD COLUMN version INTEGER NOT NULL DEFAULT 0")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def close(self) -> None:
        with self._lock:
            self._writer.close()

    def save(
        self,
        game_id: str,
        game: str,
        players: list[str],
        human_seat: int,
        record: dict[str, Any],
        finished: bool,
        version: int = 0,
    ) -> None:
        """Insert or update a game; a save older than the stored ``version`` changes nothing."""
        with self._lock, self._writer as db:
            db.execute(
                "INSERT INTO human_games (id, game, created, finished, players, human_seat, "
                "record, text, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
                "SET finished = excluded.finished, record = excluded.record, text = excluded.text, "
                "version = excluded.version WHERE excluded.version >= human_games.version",
                (
                    game_id,
                    game,
                    time.time(),
                    int(finished),
                    json.dumps(players),
                    human_seat,
                    json.dumps(record),
                    "",
                    version,
                ),
            )

    def delete(self, game_id: str) -> None:
        """Forget a game (one that could not be set up)."""
        with self._lock, self._writer as db:
            db.execute("DELETE FROM human_games WHERE id = ?", (game_id,))

    def games(self) -> list[dict[str, Any]]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, game, created, finished, players, human_seat FROM human_games "
                "ORDER BY created"
            ).fetchall()
        return [
            {
                "id": r[0],
                "game": r[1],
                "created": r[2],
                "finished": bool(r[3]),
                "players": json.loads(r[4]),
                "human_seat": r[5],
            }
            for r in rows
        ]

    def record(self, game_id: str) -> dict[str, Any] | None:
        with self._connect() as db:
            row = db.execute("SELECT record FROM human_games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def players(self, game_id: str) -> list[str] | None:
        with self._connect() as db:
            row = db.execute("SELECT players FROM human_games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def text(self, game_id: str) -> str | None:
        """The game's text record (``ValueError`` if its game has no text notation)."""
        with self._connect() as db:
            row = db.execute(
                "SELECT text, record, players FROM human_games WHERE id = ?", (game_id,)
            ).fetchone()
        if row is None:
            return None
        if row[0]:
            return row[0]
        players = [p.replace(" ", "_") for p in json.loads(row[2])]
        return to_text(json.loads(row[1]), players=players)


__all__ = ["HumanGameStore"]
