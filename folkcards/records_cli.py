"""``folkcards export`` and ``folkcards import``: records between JSON, text and databases."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--db", type=Path, help="a tournament database (folkcards tournament)")
    source.add_argument("--record", type=Path, help="a JSON record file (env.unwrapped.record())")
    source.add_argument("--store", type=Path, help="the web table's store of human games")
    p.add_argument(
        "--unit",
        type=int,
        action="append",
        help="with --db: the index of a stored unit (repeatable; default all)",
    )
    p.add_argument(
        "--game-id", action="append", help="with --store: a game id (repeatable; default all)"
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "sheet"),
        default="text",
        help="text records (default), JSON records, or a score sheet (Paston's deal-by-deal totals)",
    )
    p.add_argument("--out", type=Path, help="write to this file instead of standard output")


def add_import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="a file of text records (one or more)")
    p.add_argument("--out", type=Path, help="write the JSON records here instead of stdout")


class _Error(Exception):
    pass


def _records_from_db(path: Path, units: list[int] | None) -> list[tuple[dict, list[str]]]:
    from folkcards.evaluate.config import ConfigError
    from folkcards.evaluate.storage import Store

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


def _records_from_store(path: Path, ids: list[str] | None) -> list[tuple[dict, list[str]]]:
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


def _records_from_file(path: Path) -> list[tuple[dict, list[str] | None]]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise _Error(f"{path}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _Error(f"{path}: not a JSON record ({exc})") from None
    records = data if isinstance(data, list) else [data]
    if not all(isinstance(r, dict) and "game" in r and "actions" in r for r in records):
        raise _Error(f"{path}: not a folkcards JSON record (no 'game' and 'actions')")
    return [(r, None) for r in records]


def export_from_args(args: argparse.Namespace) -> int:
    from folkcards.envs.notation import score_sheet, to_text

    try:
        if args.db is not None:
            records: list[tuple[dict[str, Any], list[str] | None]] = list(
                _records_from_db(args.db, args.unit)
            )
        elif args.store is not None:
            records = list(_records_from_store(args.store, args.game_id))
        else:
            records = _records_from_file(args.record)
        if args.format == "json":
            text = json.dumps([r for r, _ in records], indent=1) + "\n"
        elif args.format == "sheet":
            text = "\n".join(score_sheet(r, p) for r, p in records)
        else:
            text = "\n".join(to_text(r, p) for r, p in records)
    except (_Error, ValueError, KeyError) as exc:
        print(f"folkcards export: error: {exc}", file=sys.stderr)
        return 2
    return _write(text, args.out, "export")


def split_text_records(text: str) -> list[tuple[int, str]]:
    """The records of a file of text records: ``(first line number, text)`` each; a record
    starts at a ``[Game …]`` tag."""
    chunks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("[Game ") or not chunks:
            chunks.append((number, []))
        chunks[-1][1].append(line)
    return [(start, "\n".join(lines) + "\n") for start, lines in chunks if any(lines)]


def import_from_args(args: argparse.Namespace) -> int:
    from folkcards.envs.notation import from_text

    try:
        text = args.file.read_text()
    except OSError as exc:
        print(f"folkcards import: error: {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"folkcards import: error: {args.file}: not a text file", file=sys.stderr)
        return 2
    records = []
    for start, chunk in split_text_records(text):
        try:
            records.append(from_text(chunk))
        except ValueError as exc:
            message = str(exc)
            if message.startswith("line "):  # renumber from the record's start in the file
                where, _, rest = message.partition(",")
                message = f"line {int(where[5:]) + start - 1},{rest}"
            print(f"folkcards import: error: {args.file}: {message}", file=sys.stderr)
            return 2
    if not records:
        print(f"folkcards import: error: {args.file}: no record found", file=sys.stderr)
        return 2
    out = records[0] if len(records) == 1 else records
    return _write(json.dumps(out, indent=1) + "\n", args.out, "import")


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
