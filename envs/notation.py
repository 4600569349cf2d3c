"""A text form of game records, one deal or round per line, in the spirit of PBN and the Portable
Preferans Notation: ``to_text(record)`` and ``from_text(text)``.

The grammar is in ``docs/records.md``. A text record starts with header tags, then one line per
deal (Paston) or round (Tri Palki)::

    [Game "paston"]
    [Env "paston_v0"]
    [Episode "deal"]
    ...
    [Seed "42"]
    [Options "{}"]

    1. dealer P1 bidder P2 | 7C 10C ... / 7S 8S ... / 9S 10S ... | QS KH | P2:bid-spades ... | ...

Every move is written ``P<seat>:<name>`` with the env's own action name (``action_to_string``,
spaces as hyphens). Reading replays the moves through the environment from the seed and options,
so the JSON record it returns is exactly the one the env gives (``from_text(to_text(r)) == r``),
and then checks every other word of each line (the cards, the results) against that replay: a
text that says something the replay does not is rejected with the line and column of the first
difference. Parse errors are ``ValueError`` naming the line and column.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .replay import replay_record
from .text_format import Move, TextFormat, seat_word

_TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]\s*$')
_MOVE = re.compile(r"P(\d+):(\S+)")


def _kwarg_tag(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _moves_by_unit(env: Any, record: dict[str, Any], units: list[dict[str, Any]]) -> list:
    """Replay ``record`` collecting each move's name as the env spells it at that moment."""
    env.reset(seed=record["seed"], options=record.get("options") or None)
    names: list[Move] = []
    for agent, action in record["actions"]:
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
        names.append(Move(agent, env.action_to_string(action).replace(" ", "-")))
        env.step(action)
    out, start = [], 0
    for unit in units:
        out.append(names[start : start + len(unit["actions"])])
        start += len(unit["actions"])
    return out


def _format(game: Any) -> tuple[Any, TextFormat]:
    """The game's spec and text format; ``ValueError`` for a record of no registered game."""
    from .registry import GAME_NAMES, game_spec

    if not isinstance(game, str) or game not in GAME_NAMES:
        raise ValueError(f"not a folkcards record: unknown game {game!r}")
    spec = game_spec(game)
    return spec, spec.piece("text_format")


# --- writing and reading ---------------------------------------------------------------------


def to_text(record: dict[str, Any], players: list[str] | None = None) -> str:
    """The text form of an env ``record()``; ``players`` names who sat in each seat (a tag)."""
    game = record.get("game")
    spec, fmt = _format(game)
    env = spec.env_module().raw_env(**record["env_kwargs"])
    units = record[fmt.units_key]
    moves = _moves_by_unit(env, record, units)
    agents = env.possible_agents
    lines = [f'[Game "{game}"]', f'[Env "{record["env"]}"]']
    for key, value in record["env_kwargs"].items():
        text = value if isinstance(value, str) else json.dumps(value)
        lines.append(f'[{_kwarg_tag(key)} "{text}"]')
    lines.append(f'[Seed "{record["seed"]}"]')
    lines.append(f"[Options {json.dumps(json.dumps(record.get('options') or {}))}]")
    if players is not None:
        if len(players) != len(agents):
            raise ValueError(f"{len(players)} player names for {len(agents)} seats")
        lines.append(f"[Players {json.dumps(' '.join(players))}]")
    lines.append("")
    for number, (unit, unit_moves) in enumerate(zip(units, moves, strict=True), start=1):
        lines.append(fmt.line(number, unit, unit_moves, agents))
    return "\n".join(lines) + "\n"


def _error(line: int, column: int, message: str) -> ValueError:
    return ValueError(f"line {line}, column {column}: {message}")


def parse_text(text: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The JSON record and the header tags of a text record (see :func:`from_text`)."""
    from .registry import GAME_NAMES

    if not isinstance(text, str):
        raise ValueError(f"a text record must be a string, got {type(text).__name__}")
    lines = text.splitlines()
    tags: dict[str, str] = {}
    body: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            if body:
                raise _error(number, 1, "a header tag after the first deal or round line")
            match = _TAG.match(stripped)
            if not match:
                raise _error(number, 1, 'a tag must look like [Name "value"]')
            tags[match.group(1)] = json.loads(f'"{match.group(2)}"')
        else:
            body.append((number, line))
    game = tags.get("Game")
    if game not in GAME_NAMES:
        raise _error(1, 1, f"the Game tag must be one of {', '.join(GAME_NAMES)}, got {game!r}")
    spec, _ = _format(game)
    module = spec.env_module()
    env_kwargs = _env_kwargs(tags, spec)
    try:
        env = module.raw_env(**env_kwargs)
        seed = int(tags["Seed"])
        options = json.loads(tags.get("Options", "{}"))
    except (KeyError, ValueError, TypeError) as exc:
        raise _error(1, 1, f"bad header: {exc}") from None
    env.reset(seed=seed, options=options or None)
    for number, line in body:
        for match in _MOVE.finditer(line):
            _step(env, number, match)
    record = env.unwrapped.record()
    expected = to_text(record).splitlines()
    expected_body = [line for line in expected if line and not line.startswith("[")]
    if len(expected_body) != len(body):
        where = body[-1][0] if body else len(lines)
        raise _error(
            where, 1, f"the moves make {len(expected_body)} lines, the text has {len(body)}"
        )
    for (number, line), want in zip(body, expected_body, strict=True):
        got = " ".join(line.split())
        if got != want:
            column = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                min(len(got), len(want)),
            )
            raise _error(
                number,
                column + 1,
                f"the text says {got[column : column + 24]!r}, "
                f"the replay gives {want[column : column + 24]!r}",
            )
    return record, tags


def _env_kwargs(tags: dict[str, str], spec: Any) -> dict[str, Any]:
    import inspect

    params = inspect.signature(spec.env_module().raw_env.__init__).parameters
    kwargs = {}
    for name in params:
        tag = _kwarg_tag(name)
        if tag in tags:
            try:
                kwargs[name] = json.loads(tags[tag])
            except json.JSONDecodeError:
                kwargs[name] = tags[tag]  # a plain word such as "deal" or "sticks"
    return kwargs


def _step(env: Any, number: int, match: re.Match[str]) -> None:
    while env.agents and (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        env.step(None)
    column = match.start() + 1
    agent = f"player_{match.group(1)}"
    if not env.agents:
        raise _error(number, column, f"move {match.group(0)} after the end of the episode")
    if agent != env.agent_selection:
        raise _error(
            number,
            column,
            f"{match.group(0)}: {seat_word(env.agent_selection)} is to act, not P{match.group(1)}",
        )
    try:
        action = env.string_to_action(match.group(2).replace("-", " "))
        env.step(action)
    except ValueError as exc:
        raise _error(number, column, f"{match.group(0)}: {exc}") from None


def from_text(text: str) -> dict[str, Any]:
    """The env's JSON record of a text record, replayed and checked (see the module docstring)."""
    return parse_text(text)[0]


def load_record(source: str | dict[str, Any]) -> dict[str, Any]:
    """A JSON record from a record dict, its JSON text, or its text form."""
    if isinstance(source, dict):
        return source
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return json.loads(source)
    return from_text(source)


# --- record files ------------------------------------------------------------------------------

Recorded = tuple[dict[str, Any], list[str] | None]  # a record and who sat in each seat (if known)


def split_text_records(text: str) -> list[tuple[int, str]]:
    """The records of a file of text records: ``(first line number, text)`` each; a record
    starts at a ``[Game …]`` tag."""
    chunks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("[Game ") or not chunks:
            chunks.append((number, []))
        chunks[-1][1].append(line)
    return [(start, "\n".join(lines) + "\n") for start, lines in chunks if any(lines)]


def _is_json_record(value: Any) -> bool:
    return isinstance(value, dict) and "game" in value and "actions" in value


def read_records(text: str, source: str = "the input") -> list[Recorded]:
    """Every record of a record file's contents, with the seat names it gives: a JSON record
    (one object, ``env.unwrapped.record()``), a JSON list of records, or one or more text
    records (:func:`to_text`; each replayed and checked, a ``[Players …]`` tag names the seats).
    ``ValueError`` in one line naming ``source`` (and the line of a text error)."""
    stripped = text.lstrip()
    first_line = stripped.partition("\n")[0].strip()
    if stripped.startswith("{") or (stripped.startswith("[") and not _TAG.match(first_line)):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: not a JSON record ({exc})") from None
        records = data if isinstance(data, list) else [data]
        if not records:
            raise ValueError(f"{source}: no record found (an empty JSON list)")
        if not all(_is_json_record(r) for r in records):
            raise ValueError(f"{source}: not a folkcards JSON record (no 'game' and 'actions')")
        return [(r, None) for r in records]
    out: list[Recorded] = []
    for start, chunk in split_text_records(text):
        try:
            record, tags = parse_text(chunk)
        except ValueError as exc:
            message = str(exc)
            if message.startswith("line "):  # renumber from the record's start in the file
                where, _, rest = message.partition(",")
                message = f"line {int(where[5:]) + start - 1},{rest}"
            raise ValueError(f"{source}: {message}") from None
        players = tags["Players"].split() if "Players" in tags else None
        out.append((record, players))
    if not out:
        raise ValueError(f"{source}: no record found")
    return out


def read_record_file(path: str | Path) -> list[Recorded]:
    """:func:`read_records` of the file at ``path`` (one line for a missing or binary file)."""
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"no such record file: {path}")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a record file (not text)") from None
    return read_records(text, str(path))


def choose_record(records: list[Recorded], index: int | None, source: str, option: str) -> Recorded:
    """The one record a command plays back: the only one, or ``records[index]``; a file of several
    without ``index`` is refused in one line naming ``option``."""
    last = len(records) - 1
    if index is None:
        if len(records) == 1:
            return records[0]
        raise ValueError(
            f"{source} holds {len(records)} records: choose one with {option} N (0 to {last})"
        )
    if not 0 <= index <= last:
        raise ValueError(f"{option} {index}: {source} holds records 0 to {last}")
    return records[index]


def check_replays(record: dict[str, Any], source: str = "the record") -> dict[str, Any]:
    """``record`` after replaying every move through its env: ``ValueError`` in one line when
    the replay does not give back the same record."""
    try:
        replayed = from_text(to_text(record))
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"{source}: a malformed record ({type(exc).__name__}: {exc})") from None
    if replayed != record:
        keys = [k for k in record if replayed.get(k) != record.get(k)]
        raise ValueError(f"{source}: the replay disagrees with the record ({', '.join(keys)})")
    return record


def replay_from(env_class: Any, source: str | dict[str, Any]) -> Any:
    """``env_class.replay`` of a record given as a dict, JSON text or text form (the public
    ``<game>_v0.replay``): a new env with every action of the record replayed."""
    return env_class.replay(load_record(source))


def replay_any(env: Any, source: str | dict[str, Any]) -> Any:
    """Replay a record given as a dict, JSON text or text form into ``env``."""
    return replay_record(env, load_record(source))


def score_sheet(record: dict[str, Any], players: list[str] | None = None) -> str:
    """The game's score sheet of ``record`` (its registry entry's ``score_sheet``);
    ``ValueError`` in one line for a game that keeps none."""
    spec, _ = _format(record.get("game") if isinstance(record, dict) else None)
    return spec.piece("score_sheet")(record, players)


__all__ = [
    "Recorded",
    "check_replays",
    "choose_record",
    "from_text",
    "load_record",
    "parse_text",
    "read_record_file",
    "read_records",
    "replay_any",
    "score_sheet",
    "split_text_records",
    "to_text",
]
