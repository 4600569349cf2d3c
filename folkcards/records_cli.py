"""``folkcards export`` and ``folkcards import``: records between JSON, text and databases."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from folkcards.envs.notation import Recorded, split_text_records

__all__ = ["json_records", "split_text_records"]


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--db", type=Path, help="a tournament database (folkcards tournament)")
    source.add_argument(
        "--record",
        type=Path,
        help="a record file: a JSON record (env.unwrapped.record()), a JSON list of records, or "
        "text records",
    )
    source.add_argument("--store", type=Path, help="the web table's store of human games")
    p.add_argument(
        "--unit",
        type=int,
        action="append",
        help="with --db or --record: the index of a stored unit or of a record in the file "
        "(repeatable; default all)",
    )
    p.add_argument(
        "--game-id", action="append", help="with --store: a game id (repeatable; default all)"
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "sheet"),
        default="text",
        help="text records (default); JSON: one record is one object, several a list; or the "
        "game's score sheet",
    )
    p.add_argument(
        "--game",
        help="only the records of this game (default: every game the source holds; a score "
        "sheet is written for every game that keeps one)",
    )
    p.add_argument("--out", type=Path, help="write to this file instead of standard output")


def add_import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file", type=Path, help="a file of text records (one or more), or of JSON records"
    )
    p.add_argument(
        "--out",
        type=Path,
        help="write the JSON records here instead of stdout (one record: an object; several: a "
        "list)",
    )


class _Error(Exception):
    pass


def _records_from_db(path: Path, units: list[int] | None) -> list[Recorded]:
    from folkcards.evaluate.config import ConfigError
    from folkcards.evaluate.storage.database import Store

    if not path.is_file():
        raise _Error(f"{path}: no such database")
    try:
        with Store(path) as store:
            stored = list(store.units(with_records=True))
    except ConfigError as exc:
        raise _Error(str(exc)) from None
    if units:
        bad = [u for u in units if not 0 <= u < len(stored)]
        if bad:
            raise _Error(f"--unit {bad[0]}: the database holds units 0 to {len(stored) - 1}")
        stored = [stored[u] for u in units]
    return [(u["record"], list(u["seats"])) for u in stored]


def _records_from_store(path: Path, ids: list[str] | None) -> list[Recorded]:
    from folkcards.web.store import HumanGameStore

    if not path.is_file():
        raise _Error(f"{path}: no such store")
    store = HumanGameStore(path)
    games = store.games()
    if ids:
        known = {g["id"] for g in games}
        missing = [i for i in ids if i not in known]
        if missing:
            raise _Error(f"--game-id {missing[0]}: not in {path}")
        games = [g for g in games if g["id"] in ids]
    out = []
    for game in games:
        record = store.record(game["id"])
        assert record is not None
        out.append((record, [p.replace(" ", "_") for p in game["players"]]))
    return out


def _records_from_file(path: Path, indexes: list[int] | None) -> list[Recorded]:
    from folkcards.envs.notation import choose_record, read_record_file

    try:
        records = read_record_file(path)
        if indexes:
            return [choose_record(records, i, str(path), "--unit") for i in indexes]
    except ValueError as exc:
        raise _Error(str(exc)) from None
    return records


def _of_game(records: list[Recorded], name: str) -> list[Recorded]:
    """The records of the game ``name`` (an unknown name is one line, with the known ones)."""
    from folkcards.envs.registry import game_spec

    game = game_spec(name).name  # ValueError naming the games
    chosen = [(r, p) for r, p in records if r.get("game") == game]
    if not chosen:
        raise _Error(f"no {game} record in the source")
    return chosen


def _with_sheets(records: list[Recorded]) -> list[Recorded]:
    """The records whose game keeps a score sheet, with a note on stderr naming those left out;
    when none does, the one-line error of the first game."""
    from collections import Counter

    from folkcards.envs.registry import game_spec

    def keeps(record: dict[str, Any]) -> bool:
        try:
            return game_spec(record.get("game", "")).has("score_sheet")
        except ValueError:
            return False

    kept = [(r, p) for r, p in records if keeps(r)]
    if not kept:
        return records  # score_sheet says why, in one line
    left = Counter(str(r.get("game")) for r, _ in records if not keeps(r))
    for game, count in left.items():
        record = "record" if count == 1 else "records"
        print(
            f"folkcards export: note: {count} {game} {record} left out ({game} has no score sheet)",
            file=sys.stderr,
        )
    return kept


def json_records(records: list[dict[str, Any]]) -> str:
    """THE JSON shape of records: one record is one object, several are a list."""
    return json.dumps(records[0] if len(records) == 1 else records, indent=1) + "\n"


def export_from_args(args: argparse.Namespace) -> int:
    from folkcards.envs.notation import score_sheet, to_text

    try:
        if args.unit and args.store is not None:
            raise _Error("--unit is for --db or --record; --store takes --game-id")
        if args.game_id and args.store is None:
            raise _Error("--game-id is for --store")
        if args.db is not None:
            records: list[Recorded] = list(_records_from_db(args.db, args.unit))
        elif args.store is not None:
            records = list(_records_from_store(args.store, args.game_id))
        else:
            records = _records_from_file(args.record, args.unit)
        if args.game is not None:
            records = _of_game(records, args.game)
        if args.format == "json":
            text = json_records([r for r, _ in records])
        elif args.format == "sheet":
            records = _with_sheets(records)
            text = "\n".join(score_sheet(r, p) for r, p in records)
        else:
            text = "\n".join(to_text(r, p) for r, p in records)
    except (_Error, ValueError, KeyError) as exc:
        print(f"folkcards export: error: {exc}", file=sys.stderr)
        return 2
    return _write(text, args.out, "export")


def import_from_args(args: argparse.Namespace) -> int:
    """``folkcards import``: read text (or JSON) records, replay each to check it, write JSON."""
    from folkcards.envs.notation import check_replays, read_record_file

    try:
        records = read_record_file(args.file)
        checked = [check_replays(r, str(args.file)) for r, _ in records]
    except ValueError as exc:
        print(f"folkcards import: error: {exc}", file=sys.stderr)
        return 2
    return _write(json_records(checked), args.out, "import")


def _write(text: str, out: Path | None, command: str) -> int:
    if out is None:
        sys.stdout.write(text)
        return 0
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    except OSError as exc:
        print(f"folkcards {command}: error: cannot write {out}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0
