"""Checking a stored tournament: replay every unit and compare it with what is stored."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from folkcards.errors import ConfigError

from ..config import TournamentConfig, from_identity
from ..scoring import GameRunner, make_runner
from ..storage.database import Store, read_config, seat_rows_of
from .units import unit_header


def config_from_db(db: str | os.PathLike[str]) -> TournamentConfig:
    """The config stored in a tournament database (``ConfigError`` if there is none)."""
    path = Path(db)
    identity = read_config(path)
    if identity is None:
        raise ConfigError(f"{path} holds no tournament")
    return from_identity(identity, path)


def _key_problems(config: TournamentConfig, unit: dict[str, Any]) -> list[str]:
    """How a stored unit's deal seed and seats disagree with what its key fixes."""
    expected = unit_header(config, (unit["deal"], unit["lineup"], unit["seating"]))
    return [
        f"{key} {unit[key]} (stored) vs {expected[key]}"  # type: ignore[literal-required]
        for key in ("deal_seed", "seats")
        if unit[key] != expected[key]  # type: ignore[literal-required]
    ]


def _result_problems(stored: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> list[str]:
    """How the stored per-seat results disagree with the replay's."""
    problems = []
    for seat, (new, old) in enumerate(zip(replayed, stored, strict=False)):
        for key in ("score", "win", "rank_key", "extra"):
            if new.get(key) != old.get(key):
                problems.append(
                    f"player_{seat} {key} {old.get(key)!r} (stored) vs {new.get(key)!r} (replayed)"
                )
    if len(replayed) != len(stored):
        problems.append(f"{len(stored)} seat results stored, the replay has {len(replayed)}")
    return problems


def _seat_row_problems(
    stored_rows: list[tuple[Any, ...]], rows: list[tuple[Any, ...]]
) -> list[str]:
    """How the stored ``unit_seats`` rows disagree with those the replay gives."""
    problems = []
    for seat, row in enumerate(rows):
        if seat >= len(stored_rows) or stored_rows[seat] != row:
            stored = stored_rows[seat][1:] if seat < len(stored_rows) else "missing"
            problems.append(
                f"player_{seat} seat row (agent, spec, score, win, seed) {stored} (stored) "
                f"vs {row[1:]}"
            )
    if len(stored_rows) > len(rows):
        problems.append(f"{len(stored_rows)} seat rows stored for {len(rows)} seats")
    return problems


def unit_problems(
    config: TournamentConfig,
    runner: GameRunner,
    unit: dict[str, Any],
    seat_rows: list[tuple[Any, ...]],
) -> list[str]:
    """How one stored unit disagrees with its replay and with the tournament's seeds and seats."""
    deal, lineup, seating = unit["deal"], unit["lineup"], unit["seating"]
    if lineup >= len(config.lineups()) or seating >= len(config.seatings()) or deal >= config.count:
        return ["not a unit of this tournament"]
    problems = _key_problems(config, unit)
    try:
        again = runner.rescore(unit["record"])
    except Exception as exc:  # noqa: BLE001 - any failure to replay is a problem of this unit
        return [*problems, f"does not replay: {exc}"]
    if again.record != unit["record"]:
        problems.append("replay differs from the stored record")
    replayed = json.loads(json.dumps([r.as_dict() for r in again.seats]))
    problems += _result_problems(unit["result"], replayed)
    expected = unit_header(config, (deal, lineup, seating))
    rows = seat_rows_of({**expected, "result": replayed})
    problems += _seat_row_problems([tuple(row) for row in seat_rows], rows)
    stored = unit.get("statistics") or {}
    if stored:  # the per-unit values a worker stored (open-hand analysis), from the record again
        from ..statistics import unit_statistics

        again_values = json.loads(json.dumps(unit_statistics(config, unit["record"])))
        problems += [
            f"stored {key} values differ from the record's"
            for key, value in stored.items()
            if key in again_values and again_values[key] != value
        ]
    return problems


def verify_records(config: TournamentConfig, limit: int | None = None) -> tuple[int, list[str]]:
    """Replay every stored unit and check its record, its stored result and its seat rows (and
    its seed and seating, and the per-unit statistics its worker stored) against the replay;
    returns (units checked, problems)."""
    runner = make_runner(config.game, config.mode, config.num_players)
    problems = []
    checked = 0
    with Store(config.db_path) as store:
        if store.stored_config() is None:
            return 0, [f"{config.db_path} holds no tournament"]
        seat_rows = store.seat_rows()
        for unit in store.units(with_records=True, with_statistics=True):
            if limit is not None and checked >= limit:
                break
            checked += 1
            key = (unit["deal"], unit["lineup"], unit["seating"])
            for problem in unit_problems(config, runner, unit, seat_rows.get(key, [])):
                problems.append(f"unit {key[0]}/{key[1]}/{key[2]}: {problem}")
    return checked, problems


__all__ = ["config_from_db", "unit_problems", "verify_records"]
