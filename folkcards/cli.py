"""The ``folkcards`` command: ``demo``, ``play``, ``watch``, ``tournament``, ``report``, ``train``…

Each subcommand imports its machinery only when it runs, so ``folkcards --help`` is quick and
``folkcards train`` needs the optional training dependencies only when used.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from folkcards import __version__

DESCRIPTION = "Paston and Tri Palki: PettingZoo environments, agents, tournaments and training."


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line and exit code 2 (argparse's own convention)."""


# --- demo, play, watch ---------------------------------------------------------------------------


def _add_demo(sub: argparse._SubParsersAction) -> None:
    from folkcards.play import cli as play_cli

    p = sub.add_parser(
        "demo",
        help="watch a few deals between random players (all cards shown)",
        description="Watch a few deals (or rounds) between random players without pauses, every "
        "card shown, with the scores: `folkcards watch` with random agents and --delay 0.",
    )
    play_cli.add_demo_arguments(p)
    p.set_defaults(func=play_cli.demo_from_args)


def _add_play(sub: argparse._SubParsersAction) -> None:
    from folkcards.play import cli as play_cli

    p = sub.add_parser(
        "play",
        help="take a seat against agents in the terminal",
        description=play_cli.PLAY_DESCRIPTION,
        epilog=play_cli.PLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play_cli.add_play_arguments(p)
    p.set_defaults(func=lambda args: play_cli.play_from_args(args))


def _add_watch(sub: argparse._SubParsersAction) -> None:
    from folkcards.play import cli as play_cli

    p = sub.add_parser(
        "watch",
        help="watch agents, a record or a stored tournament game, all cards shown",
        description=play_cli.WATCH_DESCRIPTION,
        epilog=play_cli.WATCH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play_cli.add_watch_arguments(p)
    p.set_defaults(func=lambda args: play_cli.watch_from_args(args))


# --- tournament --------------------------------------------------------------------------------


def _add_tournament(sub: argparse._SubParsersAction) -> None:
    from folkcards.evaluate import tournament

    p = sub.add_parser("tournament", help="a fair tournament between agents, stored in SQLite")
    tournament.build_parser(p)
    p.set_defaults(func=lambda args: tournament.main(args=args))


def _add_report(sub: argparse._SubParsersAction) -> None:
    from folkcards.evaluate.reports import document

    p = sub.add_parser("report", help="rebuild a tournament's report from its database")
    document.build_parser(p)
    p.set_defaults(func=lambda args: document.main(args=args))


def _add_agents_page(sub: argparse._SubParsersAction) -> None:
    from folkcards.evaluate.pages import agents as agents_page

    p = sub.add_parser(
        "agents-page",
        help="write docs/agents.md: every shipped agent's speed, results and exploitability",
    )
    agents_page.build_parser(p)
    p.set_defaults(func=lambda args: agents_page.main(args=args))


def _add_gauntlet(sub: argparse._SubParsersAction) -> None:
    from folkcards.evaluate.benchmarks import gauntlet
    from folkcards.evaluate.pages import leaderboard

    p = sub.add_parser("gauntlet", help="rate an agent against the standard pool on held-out deals")
    gauntlet.build_parser(p)
    p.set_defaults(func=lambda args: gauntlet.main(args=args))
    p = sub.add_parser("leaderboard", help="every stored gauntlet row as a page")
    leaderboard.build_parser(p)
    p.set_defaults(func=lambda args: leaderboard.main(args=args))


# --- train -------------------------------------------------------------------------------------


def _add_train(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train a PPO agent (needs folkcards[train])",
        description="Train a MaskablePPO agent; all arguments go to folkcards.train.cli.",
        add_help=False,
    )
    p.add_argument("train_args", nargs=argparse.REMAINDER)
    p.set_defaults(func=_train)


def _train(args: argparse.Namespace) -> int:
    from folkcards.train.cli import main as train_main

    argv = list(args.train_args)
    try:
        code = train_main(argv)
    except SystemExit as exc:  # argparse inside the trainer
        code = exc.code
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


# --- exploit -----------------------------------------------------------------------------------


def _add_exploit(sub: argparse._SubParsersAction) -> None:
    from folkcards.train.exploit import cli as exploit_cli

    p = sub.add_parser(
        "exploit",
        help="train a best response to an agent and measure its gain (needs folkcards[train])",
        description=exploit_cli.DESCRIPTION,
        epilog=exploit_cli.EPILOG,
    )
    exploit_cli.add_arguments(p)
    p.set_defaults(func=lambda args: exploit_cli.run(args, sys.argv[2:]))


# --- serve --------------------------------------------------------------------------------------


def _add_serve(sub: argparse._SubParsersAction) -> None:
    from folkcards.web import cli as web_cli

    p = sub.add_parser(
        "serve",
        help="the web table: play and replay in the browser",
        description="Serve the web table on this machine: play against any agents in the "
        "browser, and replay stored games and tournament deals with every card shown.",
    )
    web_cli.add_arguments(p)
    p.set_defaults(func=web_cli.serve_from_args)


# --- export, import -----------------------------------------------------------------------------


def _add_records(sub: argparse._SubParsersAction) -> None:
    from folkcards import records_cli

    p = sub.add_parser(
        "export",
        help="write records as text (one deal or round per line), JSON or a score sheet",
        description="Export records from a tournament database, a JSON record file or the web "
        "table's store of human games, as text records (docs/records.md), JSON records (one record: "
        "an object; several: a list), or the score sheets of the games that keep one (Paston); "
        "--game keeps one game's records.",
    )
    records_cli.add_export_arguments(p)
    p.set_defaults(func=records_cli.export_from_args)
    p = sub.add_parser(
        "import",
        help="read text records, check them by replaying, and write JSON records",
        description="Read a file of text records (docs/records.md), replay every move through "
        "the environment to check it, and write the JSON records.",
    )
    records_cli.add_import_arguments(p)
    p.set_defaults(func=records_cli.import_from_args)


# --- tables -------------------------------------------------------------------------------------


def _add_tables(sub: argparse._SubParsersAction) -> None:
    from folkcards import tables_cli

    p = sub.add_parser(
        "tables", help="solve a Paston open-hand table", description=tables_cli.DESCRIPTION
    )
    tables_cli.add_arguments(p)
    p.set_defaults(func=tables_cli.tables_from_args)


# --- train-evaluator ----------------------------------------------------------------------------


def _add_train_evaluator(sub: argparse._SubParsersAction) -> None:
    from folkcards.train import paston_evaluator_training

    p = sub.add_parser(
        "train-evaluator",
        help="train the Paston evaluator (learned bidding/contract/whist values) on open-hand "
        "tables (needs folkcards[train])",
        description=paston_evaluator_training.DESCRIPTION,
    )
    paston_evaluator_training.add_arguments(p)
    p.set_defaults(func=paston_evaluator_training.run)


def _add_refit_evaluator(sub: argparse._SubParsersAction) -> None:
    from folkcards.train import paston_evaluator_outcomes

    p = sub.add_parser(
        "refit-evaluator",
        help="refit the Paston evaluator to the expert's own results, one step of expert "
        "iteration (needs folkcards[train])",
        description=paston_evaluator_outcomes.DESCRIPTION,
    )
    paston_evaluator_outcomes.add_arguments(p)
    p.set_defaults(func=paston_evaluator_outcomes.run)


def _add_train_opponent_model(sub: argparse._SubParsersAction) -> None:
    from folkcards.train import tri_palki_opponent_model_training as tri_palki_opponent_model

    p = sub.add_parser(
        "train-opponent-model",
        help="train the learned Tri Palki opponent model (the search's model of the others) on "
        "recorded tournaments (needs folkcards[train])",
        description=tri_palki_opponent_model.DESCRIPTION,
    )
    tri_palki_opponent_model.add_arguments(p)
    p.set_defaults(func=tri_palki_opponent_model.run)


def _add_iterate(sub: argparse._SubParsersAction) -> None:
    from folkcards.train import iterate_cli as iterate

    p = sub.add_parser(
        "iterate",
        help="expert iteration: search, fit to it, gate against the teacher, repeat "
        "(resumable; needs folkcards[train])",
        description=iterate.DESCRIPTION,
    )
    iterate.add_arguments(p)
    p.set_defaults(func=iterate.run)


def _add_bidding(sub: argparse._SubParsersAction) -> None:
    from folkcards import bidding_cli

    p = sub.add_parser(
        "bidding",
        help="the Paston bidding benchmark: evaluate a bidder, measure what bids reveal",
        description=bidding_cli.DESCRIPTION,
    )
    bidding_cli.add_arguments(p)
    p.set_defaults(func=bidding_cli.bidding_from_args)


# --- main --------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="folkcards", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"folkcards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_demo(sub)
    _add_play(sub)
    _add_watch(sub)
    _add_tournament(sub)
    _add_report(sub)
    _add_agents_page(sub)
    _add_gauntlet(sub)
    _add_train(sub)
    _add_exploit(sub)
    _add_serve(sub)
    _add_records(sub)
    _add_tables(sub)
    _add_train_evaluator(sub)
    _add_refit_evaluator(sub)
    _add_train_opponent_model(sub)
    _add_iterate(sub)
    _add_bidding(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``folkcards`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv and argv[0] == "train":  # everything after `train` belongs to the trainer
        return _train(argparse.Namespace(train_args=argv[1:]))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `folkcards demo | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
