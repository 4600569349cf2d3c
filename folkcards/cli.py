"""The ``folkcards`` command: ``demo``, ``play``, ``tournament`` and ``train``.

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


# --- demo --------------------------------------------------------------------------------------


def _add_demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="play and show a few Paston deals between random players",
        description="Play a few Paston deals between three random players, render each deal "
        "(all hands shown) and print the table scores.",
    )
    p.add_argument("--deals", type=int, default=3, metavar="N", help="number of deals (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first deal (default 0)")
    p.add_argument("--quiet", action="store_true", help="print only the scores, not the table")
    p.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from folkcards.agents import make_agent
    from folkcards.envs import paston_v0
    from folkcards.envs.cards import PASTON_CARDS

    if args.deals < 1:
        print("folkcards demo: error: --deals must be at least 1", file=sys.stderr)
        return 2
    env = paston_v0.raw_env(render_mode="ansi")

    def say(text: str) -> None:
        if not args.quiet:
            print(text)

    totals = dict.fromkeys(env.possible_agents, 0)
    for number in range(args.deals):
        seed = args.seed + number
        env.reset(seed=seed)
        agents = {
            name: make_agent("random", "paston", name, seed * 10 + i)
            for i, name in enumerate(env.possible_agents)
        }
        if not args.quiet:
            print(f"=== deal {number + 1} (seed {seed}) ===")
            print(env.render())
        line: list[str] = []
        phase = None
        while not all(env.terminations.values()):
            name = env.agent_selection
            action = agents[name].act(env.observe(name))
            deal = env.state_deal()
            now = ("auction", "discard", "contract", "contract", "play", "over")[deal.phase]
            if now != phase and line:
                say(f"  {phase}: " + ", ".join(line))
                line = []
            phase = now
            text = env.action_to_string(action)
            if action < 32:
                text = PASTON_CARDS.symbol(action)
            line.append(f"{name} {text}")
            env.step(action)
            if now == "play" and not env.state_deal().trick:
                say(
                    "  trick: "
                    + ", ".join(line)
                    + f" → {env.possible_agents[env.state_deal().leader]}"
                )
                line = []
        if line:
            say(f"  {phase}: " + ", ".join(line))
        info = {name: dict(env.infos[name]) for name in env.possible_agents}
        if not args.quiet:
            print(env.render())
        first = info[env.possible_agents[0]]
        contract = first.get("contract") or "-"
        declarer = first.get("declarer") or "-"
        scores = ", ".join(f"{name} {info[name]['deal_score']:+d}" for name in env.possible_agents)
        for name in env.possible_agents:
            totals[name] += info[name]["deal_score"]
        print(
            f"deal {number + 1}: {first['outcome']}, declarer {declarer}, contract {contract}: {scores}"
        )
        if not args.quiet:
            print()
    print("totals: " + ", ".join(f"{name} {totals[name]:+d}" for name in env.possible_agents))
    return 0


# --- play --------------------------------------------------------------------------------------


def _add_play(sub: argparse._SubParsersAction) -> None:
    from folkcards.evaluate import play

    p = sub.add_parser(
        "play",
        help="take a seat against agents in the terminal",
        description=play.DESCRIPTION,
        epilog=play.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_arguments(p)
    p.set_defaults(func=lambda args: play.main_from_args(args))


# --- tournament --------------------------------------------------------------------------------


def _add_tournament(sub: argparse._SubParsersAction) -> None:
    from folkcards.evaluate import tournament

    p = sub.add_parser("tournament", help="a fair tournament between agents, stored in SQLite")
    tournament.build_parser(p)
    p.set_defaults(func=lambda args: tournament.main(args=args))


# --- train -------------------------------------------------------------------------------------

TRAIN_MISSING = (
    "training is not available: the module folkcards.train.cli (with main(argv)) is not "
    "installed in this checkout"
)
TRAIN_DEPS = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard"}


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
    argv = list(args.train_args)
    try:
        from folkcards.train.cli import main as train_main
    except ModuleNotFoundError as exc:
        name = (exc.name or "").split(".")[0]
        if exc.name in ("folkcards.train.cli", "folkcards.train"):
            message = TRAIN_MISSING
        elif name in TRAIN_DEPS:
            message = f"training needs the optional dependencies (missing {name}): pip install 'folkcards[train]'"
        else:
            raise
        if any(a in ("-h", "--help") for a in argv):
            print("usage: folkcards train [ARGS ...]\n\nTrain a MaskablePPO agent.\n\n" + message)
            return 0
        print(f"folkcards train: error: {message}", file=sys.stderr)
        return 1
    except ImportError as exc:
        print(f"folkcards train: error: cannot load the trainer: {exc}", file=sys.stderr)
        return 1
    try:
        code = train_main(argv)
    except SystemExit as exc:  # argparse inside the trainer
        code = exc.code
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


# --- main --------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="folkcards", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"folkcards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_demo(sub)
    _add_play(sub)
    _add_tournament(sub)
    _add_train(sub)
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
