"""Command-line front ends: ``folkcards play``, ``folkcards watch`` and ``folkcards demo``.

Bad input (an unknown game or agent, a missing file, a unit not in a database) is one line on
stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from folkcards.agents.specs_help import AgentSpecs
from folkcards.envs.registry import DEFAULT_GAME, GAME_NAMES, GAMES, GAMES_HELP, game_spec

from .base import InputFn, WriteFn

GAME_HELP = GAMES_HELP
MODE_NAMES = tuple(dict.fromkeys(m.name for name in GAME_NAMES for m in game_spec(name).modes))

PLAY_DESCRIPTION = (
    "Take a seat against agents in the terminal. Each turn shows your hand, the table and your "
    "legal moves; type a move by name, 'help' for the list, 'rules' for the rules of the phase "
    "you are in, 'table' to see the table again, 'quit' (or Ctrl-C / Ctrl-D) to leave."
)
PLAY_EPILOG = """examples:
  folkcards play paston --opponents heuristic heuristic --seat 0 --seed 1
  folkcards play paston --mode game            (play a whole game to 121)
  folkcards play tri_palki --opponents heuristic random random
  folkcards play tri_palki --opponents heuristic --num-players 3 --mode round

moves:
  Paston     a card by name (AS, 10H, QC; A♠ works too), pass, bid (the next bid),
             bid spades ... bid best spades, contract hearts (or just: hearts),
             surrender, whist
  Tri Palki  pass, swap 10H QS (give your 10H, take QS from the centre),
             swap all, announce, no announce

The rules: docs/rules/paston.md and docs/rules/tri_palki.md in the folkcards repository.
"""

WATCH_DESCRIPTION = (
    "Watch a game as a spectator, every card face up (hands, prikup, discards): agents playing "
    "now, a record file (a JSON record of env.unwrapped.record(), a JSON list of them, or text "
    "records), or an episode stored by a "
    "tournament. One line per action; Enter steps, or --delay sets a pace."
)
WATCH_EPILOG = """examples:
  folkcards watch paston --agents heuristic ppo:paston random
  folkcards watch tri_palki --agents heuristic --players 5 --delay 0.5
  folkcards watch --record deal.json                       (a JSON record, or its text form)
  folkcards watch --record deals.txt --unit 2              (the third record of the file)
  folkcards watch --db results/tournament.sqlite            (lists the stored units)
  folkcards watch --db results/tournament.sqlite --unit 3 --delay 0
"""


def _mode_help(play: bool) -> str:
    """Each game's episode modes, its default first (terminal play's default is its view's)."""
    parts = []
    for spec in GAMES.values():
        default = spec.modes[0].name
        if play:
            default = getattr(spec.piece("terminal_view"), "default_mode", "") or default
        others = [mode for mode in spec.mode_names if mode != default]
        parts.append(f"{spec.name}: {default} (default) or {' or '.join(others)}")
    return "; ".join(parts)


def _sizes_help() -> str:
    """The games with a choice of table size, and their sizes."""
    return ", ".join(
        f"{spec.name} {spec.min_players}-{spec.max_players}"
        for spec in GAMES.values()
        if not spec.fixed_players
    )


def _error(command: str, message: Any) -> int:
    print(f"folkcards {command}: error: {message}", file=sys.stderr)
    return 2


# --- play ---------------------------------------------------------------------------------------


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=GAME_HELP)
    parser.add_argument(
        "--opponents",
        nargs="+",
        metavar="SPEC",
        action=AgentSpecs,
        help="agent specs for the other seats, one per seat or one for all (%(kinds)s; e.g. "
        "heuristic, ppo:tri_palki, pimc:samples=8; default: heuristic)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    parser.add_argument("--seed", type=int, help="seed of the first deal (default: random)")
    parser.add_argument(
        "--mode",
        choices=MODE_NAMES,
        help=_mode_help(play=True),
    )
    parser.add_argument(
        "--players",
        "--num-players",
        dest="num_players",
        type=int,
        metavar="N",
        help=f"table size where the game has a choice ({_sizes_help()}; default: opponents + 1)",
    )


def play_from_args(
    args: argparse.Namespace, input_fn: InputFn | None = None, write: WriteFn | None = None
) -> int:
    """Run ``folkcards play`` from parsed arguments; returns the exit code."""
    from .session import Session

    try:
        opponents = args.opponents or ["heuristic"]
        session = Session(
            args.game, opponents, args.seat, args.seed, args.mode, args.num_players, input_fn, write
        )
    except (ValueError, ImportError) as exc:
        return _error("play", exc)
    return session.run()


def play_main(argv: list[str] | None = None) -> int:
    """``folkcards play`` on its own (tests, ``python -m``)."""
    parser = argparse.ArgumentParser(
        prog="folkcards play",
        description=PLAY_DESCRIPTION,
        epilog=PLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_play_arguments(parser)
    return play_from_args(parser.parse_args(argv))


# --- watch --------------------------------------------------------------------------------------


def add_watch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help=GAME_HELP + "; not with --record or --db")
    parser.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        action=AgentSpecs,
        help="one spec per seat, or one for every seat; fewer are refused, as a tournament "
        "refuses fewer agents than seats, so that no seat is filled by a guess (%(kinds)s; "
        "default: heuristic)",
    )
    parser.add_argument(
        "--players",
        type=int,
        metavar="N",
        help=f"table size where the game has a choice ({_sizes_help()})",
    )
    parser.add_argument("--mode", choices=MODE_NAMES, help=_mode_help(play=False))
    parser.add_argument("--seed", type=int, default=0, help="seed of the first episode (default 0)")
    parser.add_argument(
        "--episodes", type=int, default=1, metavar="N", help="episodes to play (default 1)"
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="a record file to play back: a JSON record, a JSON list of records or text records "
        "(folkcards export); with several, choose one with --unit",
    )
    parser.add_argument("--db", metavar="FILE", help="a tournament database (lists its units)")
    parser.add_argument(
        "--unit",
        type=int,
        metavar="N",
        help="the stored unit (--db) or the record of the file (--record) to play back, from 0",
    )
    parser.add_argument(
        "--delay",
        type=float,
        metavar="SECONDS",
        help="pause between actions instead of waiting for Enter (0: no pause)",
    )


def watch_from_args(args: argparse.Namespace, input_fn: InputFn | None = None) -> int:
    """Run ``folkcards watch`` from parsed arguments; returns the exit code."""
    from .watch import Pacer, watch_agents, watch_record

    if args.delay is not None and args.delay < 0:
        return _error("watch", f"--delay must be 0 or more, got {args.delay}")
    pacer = Pacer(args.delay, input_fn or input, print)
    sources = [bool(args.game or args.agents), bool(args.record), bool(args.db)]
    if sum(sources) > 1:
        return _error("watch", "give a game (with --agents), --record FILE or --db FILE, not two")
    try:
        if args.record:
            record, players = _read_record(args.record, args.unit)
            return watch_record(record, players, pacer=pacer)
        if args.db:
            return _watch_db(args.db, args.unit, pacer)
        if args.unit is not None:
            return _error("watch", "--unit needs --db FILE")
        if not args.game:
            return _error("watch", f"name a game ({GAME_HELP}), or give --record or --db")
        specs = args.agents or ["heuristic"]
        return watch_agents(
            args.game, specs, args.players, args.mode, args.seed, args.episodes, pacer=pacer
        )
    except BrokenPipeError:  # e.g. `folkcards watch ... | head`: the command line handles it
        raise
    except (ValueError, ImportError, OSError) as exc:
        return _error("watch", exc)


def _read_record(path: str, unit: int | None) -> tuple[dict[str, Any], list[str] | None]:
    """The record ``watch --record`` plays: the file's only one, or its record ``unit``."""
    from folkcards.envs.notation import choose_record, read_record_file

    return choose_record(read_record_file(path), unit, path, "--unit")


def _watch_db(path: str, unit: int | None, pacer: Any) -> int:
    from folkcards.evaluate.config import ConfigError
    from folkcards.evaluate.storage.database import Store

    from .watch import watch_record

    if not Path(path).is_file():
        raise ValueError(f"no such database: {path}")
    try:
        with Store(path) as store:
            units = list(store.units(with_records=True))
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    if not units:
        raise ValueError(f"{path} holds no finished units")
    if unit is None:
        print(f"{path}: {len(units)} stored units; watch one with --unit N")
        for number, stored in enumerate(units):
            scores = ", ".join(
                f"{name} {r['score']:+g}"
                for name, r in zip(stored["seats"], stored["result"], strict=True)
            )
            print(
                f"  unit {number}: deal {stored['deal']}, lineup {stored['lineup']}, "
                f"seating {stored['seating']}: {scores}"
            )
        return 0
    if not 0 <= unit < len(units):
        raise ValueError(
            f"unit {unit} is not in {path}: it holds units 0 to {len(units) - 1} "
            "(run without --unit to list them)"
        )
    stored = units[unit]
    return watch_record(stored["record"], stored["seats"], pacer=pacer)


# --- demo ---------------------------------------------------------------------------------------


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "game", nargs="?", default=DEFAULT_GAME, help=GAME_HELP + f" (default {DEFAULT_GAME})"
    )
    parser.add_argument("--deals", type=int, default=3, metavar="N", help="episodes (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first deal (default 0)")
    parser.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        action=AgentSpecs,
        help="one spec per seat or one for all (%(kinds)s; default: random at every seat)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the scores")


def demo_from_args(args: argparse.Namespace) -> int:
    """``folkcards demo``: ``watch`` without pauses (random players unless told otherwise)."""
    from .watch import Pacer, watch_agents

    if args.deals < 1:
        return _error("demo", "--deals must be at least 1")

    def write(text: str) -> None:
        if not args.quiet or text.startswith(("Scores:", "Sticks:", "totals")):
            print(text)

    try:
        return watch_agents(
            args.game,
            args.agents or ["random"],
            seed=args.seed,
            episodes=args.deals,
            write=write,
            pacer=Pacer(0.0, input, write),
        )
    except (ValueError, ImportError) as exc:
        return _error("demo", exc)
