"""SQLite storage of a tournament (standard library ``sqlite3``).

One database file holds one tournament. Schema::

    tournaments(id INTEGER PRIMARY KEY, config_json TEXT, created_at TEXT,
                folkcards_version TEXT, total_units INTEGER)
    units(tournament_id, deal, lineup, seating,            -- PRIMARY KEY of a unit
          deal_seed INTEGER, seats_json TEXT,              -- entrant name per seat
          result_json TEXT,                                -- per-seat score / win / rank_key / extra
          record_json TEXT,                                -- env.unwrapped.record() of the episode
          finished_at TEXT,
          decision_seconds_json TEXT,                      -- seconds per decision, per seat
                                                           -- (NULL: not recorded, older files)
          statistics_json TEXT)                            -- the statistics' per-unit values,
                                                           -- computed by the worker (NULL: none)
    unit_seats(tournament_id, deal, lineup, seating, seat, -- PRIMARY KEY; one row per seat
               agent TEXT, spec TEXT, score REAL, win INTEGER, agent_seed INTEGER)

    sessions(tournament_id, started_at TEXT, command_json TEXT, machine_json TEXT)
                                                           -- one row per run that played units

**Migrations.** A database written before a column or table existed is upgraded in place when
opened by :class:`Store` (``ALTER TABLE units ADD COLUMN decision_seconds_json``, then
``statistics_json``; the new ``sessions`` table): its old rows read as "not recorded" (``None``),
and the results computed from it are unchanged (a statistic computes a missing per-unit value
from the record). Decision times are measurements: they differ between runs, so they are never
compared by ``--verify`` nor part of the reproducible results.

``config_json`` is the resolved config (``TournamentConfig.identity()``, canonical JSON). A unit
and its seat rows are written in one transaction and committed at once, so a killed process
(even ``kill -9``) leaves only whole units; the primary key makes a unit impossible to count
twice. The journal is WAL with ``synchronous=NORMAL``: a committed unit survives the process
being killed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..config import ConfigError, plural

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    config_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    folkcards_version TEXT NOT NULL,
    total_units INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS units (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    deal INTEGER NOT NULL,
    lineup INTEGER NOT NULL,
    seating INTEGER NOT NULL,
    deal_seed INTEGER NOT NULL,
    seats_json TEXT NOT NULL,
    result_json TEXT NOT NULL,
    record_json TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (tournament_id, deal, lineup, seating)
);
CREATE TABLE IF NOT EXISTS unit_seats (
    tournament_id INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    lineup INTEGER NOT NULL,
    seating INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    agent TEXT NOT NULL,
    spec TEXT NOT NULL,
    score REAL NOT NULL,
    win INTEGER,
    agent_seed INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, deal, lineup, seating, seat),
    FOREIGN KEY (tournament_id, deal, lineup, seating)
        REFERENCES units(tournament_id, deal, lineup, seating)
);
CREATE INDEX IF NOT EXISTS unit_seats_agent ON unit_seats(tournament_id, agent);
CREATE TABLE IF NOT EXISTS sessions (
    tournament_id INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    command_json TEXT NOT NULL,
    machine_json TEXT NOT NULL
);
"""

# columns added after the first release: (table, column, type)
MIGRATIONS = (("units", "decision_seconds_json", "TEXT"), ("units", "statistics_json", "TEXT"))


def machine() -> dict[str, Any]:
    """The machine a run plays on: platform, CPU count, Python, numpy and folkcards versions."""
    import os
    import platform

    import numpy

    from folkcards import __version__

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "folkcards": __version__,
    }


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _agents_text(agents: list[dict[str, str]] | None) -> str:
    return " ".join(
        f"{x['name']}={x['spec']}" if x["name"] != x["spec"] else x["spec"] for x in agents or []
    )


def _differences(stored: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    diffs = []
    for key in sorted(set(stored) | set(wanted)):
        a, b = stored.get(key), wanted.get(key)
        if a == b:
            continue
        if key == "agents":
            a, b = _agents_text(a), _agents_text(b)
        label = plural(str(wanted.get("mode"))) if key == "count" else key
        diffs.append(f"{label} {a} (stored) vs {b}")
    return diffs


def _timing_json(seconds: list[list[float]] | None) -> str | None:
    if seconds is None:
        return None
    return json.dumps(
        [[round(float(x), 9) for x in seat] for seat in seconds], separators=(",", ":")
    )


def seat_rows_of(unit: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """A unit's ``unit_seats`` rows: ``(seat, agent, spec, score, win, agent_seed)`` per seat."""
    return [
        (
            seat,
            unit["seats"][seat],
            unit["specs"][seat],
            float(r["score"]),
            None if r["win"] is None else int(bool(r["win"])),
            unit["agent_seeds"][seat],
        )
        for seat, r in enumerate(unit["result"])
    ]


def read_config(path: str | Path) -> dict[str, Any] | None:
    """The tournament config stored in the database at ``path``, read without writing to it
    (``None`` if it holds no tournament yet); ``ConfigError`` if it is not a tournament database."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no tournament database at {str(path)!r}")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT config_json FROM tournaments ORDER BY id LIMIT 1").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise ConfigError(f"{path}: not a tournament database ({exc})") from None
    return None if row is None else json.loads(row[0])


class Store:
    """A tournament database; see the module docstring."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise ConfigError(f"database path {str(self.path)!r} is a folder")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the folder of {str(self.path)!r}: {exc}") from None
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None)  # explicit transactions
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA busy_timeout=10000")
            self.conn.executescript(SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{self.path}: not a tournament database ({exc})") from None
        self.tournament_id: int | None = None
        self.stored_config()  # sets tournament_id when the file already holds a tournament

    def _migrate(self) -> None:
        for table, column, kind in MIGRATIONS:
            present = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the tournament ------------------------------------------------------------------------

    def stored_config(self) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT id, config_json FROM tournaments ORDER BY id LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        self.tournament_id = int(row[0])
        return json.loads(row[1])

    def open_tournament(self, identity: dict[str, Any], total_units: int) -> int:
        """Create the tournament, or check that the stored one has the same resolved config."""
        from folkcards import __version__

        stored = self.stored_config()
        if stored is not None:
            if stored != json.loads(canonical_json(identity)):
                diffs = "; ".join(_differences(stored, identity))
                raise ConfigError(
                    f"{self.path} holds a different tournament ({diffs}): give another --db/--out, "
                    "or delete that file to start over"
                )
            assert self.tournament_id is not None
            return self.tournament_id
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            cur = self.conn.execute(
                "INSERT INTO tournaments (config_json, created_at, folkcards_version, total_units) "
                "VALUES (?, ?, ?, ?)",
                (canonical_json(identity), now, __version__, total_units),
            )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.tournament_id = int(cur.lastrowid or 0)
        return self.tournament_id

    # --- units ---------------------------------------------------------------------------------

    def done_keys(self) -> set[tuple[int, int, int]]:
        rows = self.conn.execute(
            "SELECT deal, lineup, seating FROM units WHERE tournament_id = ?", (self.tournament_id,)
        )
        return {(int(deal), int(lineup), int(seating)) for deal, lineup, seating in rows}

    def add_unit(self, unit: Mapping[str, Any]) -> None:
        """Store one finished unit (and its seat rows) in a single committed transaction."""
        tid = self.tournament_id
        key = (tid, unit["deal"], unit["lineup"], unit["seating"])
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute(
                "INSERT INTO units (tournament_id, deal, lineup, seating, deal_seed, seats_json, "
                "result_json, record_json, finished_at, decision_seconds_json, statistics_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *key,
                    unit["deal_seed"],
                    canonical_json(unit["seats"]),
                    canonical_json(unit["result"]),
                    canonical_json(unit["record"]),
                    now,
                    _timing_json(unit.get("decision_seconds")),
                    canonical_json(unit["statistics"]) if unit.get("statistics") else None,
                ),
            )
            self.conn.executemany(
                "INSERT INTO unit_seats (tournament_id, deal, lineup, seating, seat, agent, spec, "
                "score, win, agent_seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(*key, *row) for row in seat_rows_of(unit)],
            )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def add_session(self, command: list[str], agents: dict[str, str] | None = None) -> None:
        """Note a run that plays units: when, the command line, the machine (and under its
        ``agents`` key what each agent's version was then)."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.conn.execute(
            "INSERT INTO sessions (tournament_id, started_at, command_json, machine_json) "
            "VALUES (?, ?, ?, ?)",
            (
                self.tournament_id,
                now,
                json.dumps(command),
                canonical_json({**machine(), "agents": agents or {}}),
            ),
        )

    def sessions(self) -> list[dict[str, Any]]:
        """The runs that played units, oldest first: ``{started_at, command, machine}``."""
        rows = self.conn.execute(
            "SELECT started_at, command_json, machine_json FROM sessions "
            "WHERE tournament_id = ? ORDER BY rowid",
            (self.tournament_id,),
        )
        return [
            {"started_at": t, "command": json.loads(c), "machine": json.loads(m)}
            for t, c, m in rows
        ]

    def created(self) -> dict[str, Any]:
        """When the tournament was created and by which folkcards version."""
        row = self.conn.execute(
            "SELECT created_at, folkcards_version FROM tournaments WHERE id = ?",
            (self.tournament_id,),
        ).fetchone()
        return {"created_at": row[0], "folkcards_version": row[1]} if row else {}

    def decision_seconds(self) -> Iterator[tuple[list[str], list[list[float]] | None]]:
        """Per stored unit (canonical order): its seats' agents and the seconds of each seat's
        decisions, or ``None`` when the unit's times were not recorded (an older database)."""
        rows = self.conn.execute(
            "SELECT seats_json, decision_seconds_json FROM units WHERE tournament_id = ? "
            "ORDER BY deal, lineup, seating",
            (self.tournament_id,),
        )
        for seats, timing in rows:
            yield json.loads(seats), None if timing is None else json.loads(timing)

    def units(
        self, with_records: bool = False, with_statistics: bool = False
    ) -> Iterator[dict[str, Any]]:
        """Stored units in canonical order (deal, lineup, seating); ``with_statistics`` adds
        ``unit["statistics"]``, the per-unit values stored by the worker (``{}`` if none)."""
        cols = (
            "deal, lineup, seating, deal_seed, seats_json, result_json, "
            + ("record_json" if with_records else "NULL")
            + (", statistics_json" if with_statistics else ", NULL")
        )
        rows = self.conn.execute(
            f"SELECT {cols} FROM units WHERE tournament_id = ? ORDER BY deal, lineup, seating",
            (self.tournament_id,),
        )
        for row in rows:
            unit = {
                "deal": int(row[0]),
                "lineup": int(row[1]),
                "seating": int(row[2]),
                "deal_seed": int(row[3]),
                "seats": json.loads(row[4]),
                "result": json.loads(row[5]),
            }
            if with_records:
                unit["record"] = json.loads(row[6])
            if with_statistics:
                unit["statistics"] = json.loads(row[7]) if row[7] else {}
            yield unit

    def seat_rows(self) -> dict[tuple[int, int, int], list[tuple[Any, ...]]]:
        """(deal, lineup, seating) -> its ``unit_seats`` rows in seat order:
        ``(seat, agent, spec, score, win, agent_seed)``."""
        rows = self.conn.execute(
            "SELECT deal, lineup, seating, seat, agent, spec, score, win, agent_seed "
            "FROM unit_seats WHERE tournament_id = ? ORDER BY deal, lineup, seating, seat",
            (self.tournament_id,),
        )
        out: dict[tuple[int, int, int], list[tuple[Any, ...]]] = {}
        for deal, lineup, seating, *seat in rows:
            out.setdefault((int(deal), int(lineup), int(seating)), []).append(tuple(seat))
        return out
