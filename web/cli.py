"""``folkcards serve``: the web table on this machine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_STORE = Path("results") / "web" / "human_games.sqlite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--store",
        type=Path,
        default=DEFAULT_STORE,
        help=f"SQLite file where every human game is kept (default {DEFAULT_STORE})",
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="a tournament database whose deals the Replays page lists",
    )
    parser.add_argument(
        "--bot-workers",
        type=int,
        default=2,
        help="worker processes in which the agents think (default 2; 0: threads of the server, "
        "which search agents slow down)",
    )
    parser.add_argument(
        "--bot-niceness",
        type=int,
        default=5,
        help="CPU niceness of the agents' workers, 0-19 (default 5: requests come first)",
    )
    parser.add_argument(
        "--move-budget",
        type=float,
        default=60.0,
        help="seconds an agent may take for one move before its game is stopped (default 60)",
    )
    parser.add_argument(
        "--agents-module",
        default=None,
        help="a module imported by the server and its workers first (to register agent kinds)",
    )
    parser.add_argument(
        "--allow-any-agent",
        action="store_true",
        help="let web clients name any agent spec, including ppo:PATH, module:Class and "
        "file.py:Class (default: only the named agent kinds, so no client makes the server "
        "load a file or module)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the server's generator of deals (default: fresh)",
    )


def serve_from_args(args: argparse.Namespace) -> int:
    """Run the web table until Ctrl-C; bad arguments are one line on stderr and exit code 2."""
    from .app import create_app

    if not 0 < args.port < 65536:
        print(f"folkcards serve: error: --port must be 1–65535, got {args.port}", file=sys.stderr)
        return 2
    if not 0 <= args.bot_workers <= 64:
        print(
            f"folkcards serve: error: --bot-workers must be 0–64, got {args.bot_workers}",
            file=sys.stderr,
        )
        return 2
    if not 0 < args.move_budget < float("inf"):
        print(
            f"folkcards serve: error: --move-budget must be a positive number of seconds, "
            f"got {args.move_budget}",
            file=sys.stderr,
        )
        return 2
    try:
        app = create_app(
            args.store,
            args.db,
            args.seed,
            bot_workers=args.bot_workers,
            bot_niceness=args.bot_niceness,
            move_budget=args.move_budget,
            agents_module=args.agents_module,
            allow_any_agent=args.allow_any_agent,
        )
    except (ValueError, OSError, ImportError) as exc:
        print(f"folkcards serve: error: {exc}", file=sys.stderr)
        return 2
    import uvicorn

    print(
        f"folkcards web table on http://{args.host}:{args.port}/ (Ctrl-C to stop); "
        f"human games are kept in {args.store}"
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
