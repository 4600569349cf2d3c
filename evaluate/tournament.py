"""Fair tournaments between agents: duplicate play, paired statistics, stored and resumable.

``folkcards tournament --config configs/tournament/paston.yaml`` or
``folkcards tournament --game paston --agents heuristic random random --deals 300``.

**Units.** A tournament plays ``count`` deals (Paston deals / Tri Palki rounds, or whole Paston
games / Tri Palki matches in game / match mode). Deal ``d`` is fixed by its seed, derived from
the tournament seed, and played through ``env.reset(seed=deal_seed)``. With more agents than
seats, every combination of agents (``itertools.combinations`` of the listed agents) forms a
line-up, and every line-up plays every deal. Within a line-up the deal is replayed with the
agents rotated through every seat assignment: all permutations for up to 4 seats, the cyclic
rotations for 5 or more (each agent then sits in each seat once per deal, in a fixed clockwise
order). One *unit* is (deal, line-up, seating): one episode.

**Seeds.** ``deal_seed = SeedSequence([seed, DEAL_TAG, deal])`` (63 bits); the agent in seat
``k`` gets ``SeedSequence([seed, AGENT_TAG, deal, lineup, seating, k])``. A fresh agent is built
for every unit, so a unit's result depends only on the config and its key, never on which worker
ran it or in which order: results are identical for any number of workers.

**Storage** (:mod:`.storage.database`): every unit is committed to SQLite as it finishes, with its full
``record()``. Rerunning the same command resumes: only missing units are played. A different
config for the same database is refused with the differences named.

**Statistics** (:mod:`.statistics`): computed from the database in canonical order (deal,
line-up, seating), over complete deals only (all units of the deal stored).

This module is the command line; the work is done, one job per module, by
:mod:`.running.units` (seeds and units), :mod:`.running.workers` (processes or Ray),
:mod:`.running.runner` (run and store), :mod:`.statistics` (the registered statistics),
:mod:`.running.method` (the method text) and :mod:`.running.verify` (replaying a stored
tournament).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from folkcards.agents.specs_help import AgentSpecs
from folkcards.envs.registry import GAMES, GAMES_HELP

from folkcards.errors import ConfigError

from .arguments import parse_line
from .config import (
    COUNT_KEYS,
    SEATINGS,
    TournamentConfig,
    counted,
    load_config,
    plural,
    with_run_options,
)
from .running.progress import LOG_EVERY
from .running.ray_backend import RayMissingError
from .running.runner import BOOTSTRAP, run
from .running.verify import config_from_db, verify_records
from .running.workers import BACKENDS

VARIABLE_TABLES = [spec.name for spec in GAMES.values() if not spec.fixed_players]

# --- command line ------------------------------------------------------------------------------

DESCRIPTION = (
    "Play a fair (duplicate) tournament between agents, store every deal in SQLite, and "
    "report scores with 95% confidence intervals, head-to-head differences, win rates and "
    "openskill ratings. Rerunning the same command resumes an interrupted tournament."
)
EPILOG = """examples:
  folkcards tournament --config configs/tournament/paston.yaml
  folkcards tournament --game paston --agents heuristic random random --deals 200
  folkcards tournament --game tri_palki --agents heuristic random random random --rounds 100
  folkcards tournament --db results/paston/tournament.sqlite --verify
  folkcards tournament --db results/paston/tournament.sqlite --out elsewhere --verify
A database given alone (no --config, game, agents or count) is the tournament stored in it.
  folkcards tournament --config configs/tournament/paston.yaml --backend ray --address HOST:6379
Command-line values override the config file. Besides the database, the output folder gets
results.json, the CSVs, the plots and report.md (rebuild it with `folkcards report --db FILE`)."""

# (flags, keyword arguments) of every option but the two exclusive counts
OPTIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("--config",), {"metavar": "YAML", "help": "a tournament config (see configs/tournament/)"}),
    (("--game",), {"help": GAMES_HELP}),
    (
        ("--agents",),
        {
            "nargs": "+",
            "metavar": "SPEC",
            "action": AgentSpecs,
            "help": "agent specs, one per entrant, at least one per seat (%(kinds)s)",
        },
    ),
    (("--seed",), {"type": int, "help": "tournament seed (default 0)"}),
    (("--workers",), {"type": int, "help": "worker processes (default: all cores)"}),
    (("--db",), {"metavar": "PATH", "help": "SQLite file (default <out>/tournament.sqlite)"}),
    (
        ("--out",),
        {
            "metavar": "DIR",
            "help": "output folder for the database, CSV, JSON and plot (default results/<game>)",
        },
    ),
    (
        ("--num-players",),
        {
            "type": int,
            "metavar": "N",
            "help": "table size of a game played by a varying number of players "
            f"({', '.join(VARIABLE_TABLES)}; default: the number of agents)",
        },
    ),
    (
        ("--backend",),
        {
            "choices": BACKENDS,
            "default": "local",
            "help": "local: worker processes here (default); ray: Ray tasks on a local Ray or "
            "the cluster at --address (needs folkcards[rllib]); the same stored results",
        },
    ),
    (("--address",), {"metavar": "HOST:PORT", "help": "with --backend ray: the Ray cluster"}),
    (
        ("--seating",),
        {
            "choices": SEATINGS,
            "help": "seat assignments per deal: every permutation, or the cyclic rotations "
            "(every entrant in every seat once, clockwise order fixed; n instead of n! "
            "seatings), or mirrored: the rotations in both clockwise orders (2n seatings; "
            "each entrant acts after each of its neighbours, so who is listed next to whom "
            "favours nobody); auto (default): permutations up to 4 seats, rotations above",
        },
    ),
    (
        ("--no-progress",),
        {"action": "store_true", "help": "no progress bar (or, off a terminal, lines)"},
    ),
    (
        ("--progress-every",),
        {
            "type": float,
            "default": LOG_EVERY,
            "metavar": "SECONDS",
            "help": "off a terminal (a log file), a progress line every SECONDS instead of a bar "
            f"(default {LOG_EVERY:g})",
        },
    ),
    (
        ("--no-open-hand",),
        {
            "action": "store_true",
            "help": "do not analyse the play open-handed while playing (games with a solver: "
            "Paston); `folkcards report --db` computes it later from the stored records",
        },
    ),
    (("--no-plot",), {"action": "store_true", "help": "do not write the PNG plots"}),
    (
        ("--bootstrap",),
        {
            "type": int,
            "default": BOOTSTRAP,
            "metavar": "N",
            "help": f"bootstrap resamples for the behaviour intervals, 0 for none "
            f"(default {BOOTSTRAP})",
        },
    ),
    (
        ("--verify",),
        {
            "action": "store_true",
            "help": "after the run, replay every stored episode and check its record, results "
            "and seat scores; with only --db, check that database (nothing is played)",
        },
    ),
]


def _units_help(multi: bool) -> str:
    """``deals (paston, paston_bidding) / rounds (tri_palki)``: each unit with its games."""
    games: dict[str, list[str]] = {}
    for spec in GAMES.values():
        for mode in spec.modes:
            if mode.multi == multi:
                games.setdefault(plural(mode.unit), []).append(spec.name)
    whole = "whole " if multi else ""
    return " / ".join(f"{whole}{unit} ({', '.join(names)})" for unit, names in games.items())


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The ``folkcards tournament`` arguments (added to ``parser`` when given)."""
    parser = parser or argparse.ArgumentParser(prog="folkcards tournament")
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for flags, kwargs in OPTIONS[:3]:  # --config, --game, --agents; then the count
        parser.add_argument(*flags, **kwargs)
    count = parser.add_mutually_exclusive_group()
    for dest, multi in (("deals", False), ("games", True)):
        count.add_argument(
            *(f"--{key}" for key, is_multi in COUNT_KEYS.items() if is_multi == multi),
            dest=dest,
            type=int,
            metavar="N",
            help=f"number of {_units_help(multi)}",
        )
    for flags, kwargs in OPTIONS[3:]:
        parser.add_argument(*flags, **kwargs)
    return parser


OVERRIDES = (
    "game",
    "agents",
    "deals",
    "games",
    "seed",
    "workers",
    "db",
    "out",
    "num_players",
    "seating",
)


# what the run does with a tournament rather than what the tournament is
RUN_OPTIONS = ("db", "out", "workers")


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """The config the arguments give; ``--db FILE`` with nothing that describes a tournament
    (no --config, game, agents, count, seed, table size or seating) is the config stored in FILE,
    with ``--out`` and ``--workers`` applied (and ``--no-open-hand``, a run option)."""
    no_open_hand = bool(getattr(args, "no_open_hand", False))
    if _database_alone(args):
        config = with_run_options(config_from_db(args.db), args.workers, args.out)
        if no_open_hand:
            config.open_hand = False
        return config
    overrides = {key: getattr(args, key) for key in OVERRIDES}
    overrides["open_hand"] = False if no_open_hand else None
    return load_config(args.config, overrides)


def _database_alone(args: argparse.Namespace) -> bool:
    described = [
        key for key in OVERRIDES if key not in RUN_OPTIONS and getattr(args, key) is not None
    ]
    return bool(args.db and not args.config and not described)


def _verify_only(args: argparse.Namespace) -> bool:
    """``--verify --db FILE`` and nothing that describes a tournament or where to write: check
    that database (nothing is played or written)."""
    return bool(args.verify and _database_alone(args) and args.out is None)


def _verify(config: TournamentConfig, prog: str) -> int:
    checked, problems = verify_records(config)
    if problems:
        for line in problems[:20]:
            print(f"verify: {line}", file=sys.stderr)
        if len(problems) > 20:
            print(f"verify: ... and {len(problems) - 20} more", file=sys.stderr)
        print(
            f"{prog}: {counted(len(problems), 'problem')} in {checked} stored episodes "
            f"of {config.db_path} (a unit is named deal/line-up/seating)",
            file=sys.stderr,
        )
        return 1
    print(
        f"verified: all {checked} stored records replay exactly, "
        "with their stored results and seat scores"
    )
    return 0


def _play(config: TournamentConfig, args: argparse.Namespace, prog: str) -> int:
    """Run (or resume) the tournament, print the report and write the files."""
    from .reports import document
    from .reports import export as report

    played: list[int] = []
    try:
        started = time.perf_counter()
        if args.bootstrap < 0:
            raise ConfigError(f"--bootstrap must be 0 or more, got {args.bootstrap}")
        every = getattr(args, "progress_every", LOG_EVERY)
        if not every >= 0:
            raise ConfigError(f"--progress-every must be 0 or more seconds, got {every}")
        results = run(
            config,
            progress=not args.no_progress,
            log_every=every,
            on_played=played.append,
            bootstrap=args.bootstrap,
            backend=getattr(args, "backend", "local"),
            address=getattr(args, "address", None),
        )
    except KeyboardInterrupt:
        print(
            f"\n{prog}: interrupted; finished units are stored in {config.db_path} — "
            "rerun the same command to resume",
            file=sys.stderr,
        )
        return 130
    except RayMissingError as exc:  # before RuntimeError: it is one
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    report.print_report(results)
    paths = report.export(results, config, plot=not args.no_plot)
    paths += document.write_report(results, config, Path(config.out))
    new = played[0] if played else 0
    what = (
        f"played {counted(new, 'new episode')} in {elapsed:.1f} s"
        if new
        else "all episodes were already stored"
    )
    print(
        f"{results['units_stored']} of {results['units_total']} episodes stored in "
        f"{config.db_path} ({what}); wrote " + ", ".join(str(p) for p in paths)
    )
    return 0


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """``folkcards tournament``: returns the exit code (0 ok, 1 failure, 2 bad config, 130 Ctrl-C)."""
    prog = "folkcards tournament"
    if args is None:
        args = parse_line(prog, build_parser, argv)
        if args is None:
            return 2
    try:
        if _verify_only(args):
            return _verify(config_from_db(args.db), prog)
        config = config_from_args(args)
        code = _play(config, args, prog)
    except ConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    if code == 0 and args.verify:
        return _verify(config, prog)
    return code
