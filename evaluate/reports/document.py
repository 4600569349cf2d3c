"""One self-contained report per tournament: ``report.md`` with its PNGs, next to ``results.json``.

``folkcards tournament`` writes it after every run; ``folkcards report --db FILE [--out DIR]``
rebuilds it (and ``results.json``, the CSVs and the plots) from the database alone. The report
holds the method, the agents with their specs and versions, seeds, deals and seatings, the
machines that played, the score table with intervals, the head-to-head cross-table, the ratings,
behaviour, seat effects, decision times, and the commands that reproduce it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from folkcards.envs.registry import game_spec

from folkcards.errors import ConfigError

from .. import statistics
from ..arguments import parse_line
from ..config import SEATING_RULES, TournamentConfig, counted, default_seating_rule, plural
from ..formatting import md_table as _table
from ..running.runner import BOOTSTRAP, results_of_store
from ..running.verify import config_from_db
from ..storage.database import Store
from ..storage.versions import agent_version

# --- agents, machine, commands ----------------------------------------------------------------


def reproduce_commands(config: TournamentConfig, out: str, db: str | None = None) -> list[str]:
    """Shell commands that replay the tournament from nothing into the database's folder, verify
    that database, and rebuild this report into ``out`` (the folder as it should appear in the
    command; ``db`` the database read, default ``<out>/tournament.sqlite``)."""
    db = db or f"{out}/tournament.sqlite"
    play_out = str(Path(db).parent)
    names_from_specs = _default_names(config)
    count_flag = f"--{plural(config.unit_name)}"
    if names_from_specs:
        agents = " ".join(e.spec for e in config.agents)
        cmd = (
            f"folkcards tournament --game {config.game} --agents {agents} {count_flag} "
            f"{config.count} --seed {config.seed}"
        )
        if not game_spec(config.game).fixed_players:
            cmd += f" --num-players {config.num_players}"
        seating = _seating_key(config)
        if seating:
            cmd += f" --seating {seating}"
    else:
        cmd = f"folkcards tournament --config {out}/tournament.yaml"
    if Path(db).name != "tournament.sqlite":
        play = f"{cmd} --db {db}" + ("" if play_out == "." else f" --out {play_out}")
    else:
        play = f"{cmd} --out {play_out}"
    rebuild = f"folkcards report --db {db}"
    if Path(out) != Path(play_out):
        rebuild += f" --out {out}"
    return [play, f"folkcards tournament --db {db} --verify", rebuild]


def _default_names(config: TournamentConfig) -> bool:
    seen: dict[str, int] = {}
    for e in config.agents:
        seen[e.spec] = seen.get(e.spec, 0) + 1
        expected = e.spec if seen[e.spec] == 1 else f"{e.spec}#{seen[e.spec]}"
        if e.name != expected:
            return False
    return True


def config_yaml(config: TournamentConfig) -> str:
    """The tournament as a YAML config (``folkcards tournament --config``)."""
    lines = [f"game: {config.game}", "agents:"]
    lines += [f"  - {{name: {e.name!r}, spec: {e.spec!r}}}" for e in config.agents]
    lines += [f"{plural(config.unit_name)}: {config.count}", f"seed: {config.seed}"]
    if not game_spec(config.game).fixed_players:
        lines.append(f"num_players: {config.num_players}")
    seating = _seating_key(config)
    if seating:
        lines.append(f"seating: {seating}")
    return "\n".join(lines) + "\n"


def _seating_key(config: TournamentConfig) -> str | None:
    """The ``seating`` key that gives this tournament's seatings, if not what ``auto`` gives."""
    if config.seating_rule == default_seating_rule(config.seats):
        return None
    return next(key for key, rule in SEATING_RULES.items() if rule == config.seating_rule)


# --- sections ------------------------------------------------------------------------------------


def _overview(
    results: dict[str, Any], config: TournamentConfig, created: dict[str, Any]
) -> list[str]:
    seatings = len(config.seatings())
    lineups = len(config.lineups())
    unit, units = config.unit_name, config.unit_plural
    rows = [
        ("game", f"{config.game} ({results['config']['env']}), {config.mode} mode"),
        ("seed", str(config.seed)),
        (units, f"{results['deals_complete']} complete of {config.count}"),
        ("table", f"{config.num_players} seats; {counted(lineups, 'line-up')} of agents"),
        ("seatings", f"{seatings} per line-up ({config.seating_rule})"),
        ("episodes", f"{results['units_stored']} stored of {results['units_total']}"),
        ("truncated episodes", str(results.get("truncated_units", 0))),
        (
            "created",
            f"{created.get('created_at', '?')} by folkcards {created.get('folkcards_version', '?')}",
        ),
    ]
    lines = _table(("", ""), rows, right=2)
    lines.append("")
    lines.append(
        f"One episode is one {unit} played by one line-up in one seat assignment; the {unit} "
        f"seeds derive from the tournament seed (`deal_seed = SeedSequence([seed, 0xDEA1, {unit}])`), "
        "the agents' from the unit's key."
    )
    return lines


def _agents(config: TournamentConfig, version: str, sessions: list[dict[str, Any]]) -> list[str]:
    """Each agent's version as the runs recorded it (every distinct one, in the order the runs
    were made) and, where that differs, as the installed ``version`` reads it now."""
    recorded: dict[str, list[str]] = {}
    for session in sessions:
        for name, text in (session["machine"].get("agents") or {}).items():
            if text not in recorded.setdefault(name, []):
                recorded[name].append(text)
    rows = []
    for e in config.agents:
        now = agent_version(e.spec, config.game, version)
        then = recorded.get(e.name)
        if not then:
            text = f"{now} (read when this report was written)"
        elif then != [now]:
            text = f"{'; '.join(then)} when played; {now} now"
        else:
            text = now
        rows.append((e.name, f"`{e.spec}`", text))
    return _table(("agent", "spec", "version"), rows, right=3)


def _machines(sessions: list[dict[str, Any]]) -> list[str]:
    if not sessions:
        return ["Not recorded (the database predates the sessions table)."]
    rows = []
    for s in sessions:
        m = s["machine"]
        rows.append(
            (
                s["started_at"],
                m.get("platform", "?"),
                str(m.get("cpu_count", "?")),
                m.get("python", "?"),
                m.get("numpy", "?"),
                m.get("folkcards", "?"),
                "`" + " ".join(s["command"]) + "`",
            )
        )
    header = ("run started (UTC)", "platform", "CPUs", "python", "numpy", "folkcards", "command")
    return _table(header, rows, right=7)


def markdown(
    results: dict[str, Any],
    config: TournamentConfig,
    sessions: list[dict[str, Any]],
    created: dict[str, Any],
    out_label: str,
    db_label: str | None = None,
) -> str:
    """The text of ``report.md`` (``db_label``: the database read, as the report names it;
    default ``<out_label>/tournament.sqlite``)."""
    from folkcards import __version__

    names = ", ".join(e.name for e in config.agents)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    m = results["method"]
    sections: list[tuple[str, list[str]]] = [
        ("Tournament", _overview(results, config, created)),
        ("Method", [f"- **{k.replace('_', ' ')}**: {v}" for k, v in m.items()]),
        ("Agents", _agents(config, __version__, sessions)),
        ("Machine", _machines(sessions)),
        *(
            (title, section(results))
            for statistic in statistics.registered()
            if statistic.applies(results)
            for title, section in statistic.sections
        ),
        (
            "Reproduce",
            [
                "```sh",
                *reproduce_commands(config, out_label, db_label),
                "```",
                "",
                "Everything but the decision times and this report's date is reproduced exactly "
                "by the first command (any number of workers); the second replays every stored "
                "episode and checks its record and scores; the third rebuilds this report, "
                "`results.json`, the CSVs and the plots from the database alone.",
            ],
        ),
    ]
    lines = [
        f"# Tournament report: {config.game}, {names}",
        "",
        f"Generated {now} by folkcards {__version__} from `{db_label or f'{out_label}/tournament.sqlite'}`. "
        "Files next to it: `results.json` (every number here), `agents.csv`, `head_to_head.csv`, "
        "`behaviour.csv`, `seat_effects.csv`, `decision_times.csv`, `episodes.csv`.",
    ]
    for title, body in sections:
        lines += ["", f"## {title}", "", *body]
    return "\n".join(lines) + "\n"


def write_report(results: dict[str, Any], config: TournamentConfig, out: Path) -> list[Path]:
    """Write ``report.md`` and ``tournament.yaml`` to ``out`` (the PNGs come from
    :func:`folkcards.evaluate.reports.export.export`)."""
    with Store(config.db_path) as store:
        sessions, created = store.sessions(), store.created()
    out.mkdir(parents=True, exist_ok=True)
    label, db_label = _label(out), _label(Path(config.db_path))
    path = out / "report.md"
    text = markdown(results, config, sessions, created, label, db_label)
    path.write_text(text, encoding="utf-8")
    yaml_path = out / "tournament.yaml"
    yaml_path.write_text(config_yaml(config), encoding="utf-8")
    return [path, yaml_path]


def _label(out: Path) -> str:
    """``out`` (a folder or file) relative to the current directory when it lies below it (commands stay short)."""
    try:
        return str(out.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(out)


# --- folkcards report ---------------------------------------------------------------------------

DESCRIPTION = (
    "Rebuild a tournament's report from its database alone: report.md with its plots, "
    "results.json (scores, head to head, ratings, behaviour, seat effects, decision times) and "
    "the CSVs. Nothing is played."
)
EPILOG = """examples:
  folkcards report --db results/quickstart/tournament.sqlite
  folkcards report --db old/tournament.sqlite --out reports/old --bootstrap 0"""


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The ``folkcards report`` arguments (added to ``parser`` when given)."""
    parser = parser or argparse.ArgumentParser(prog="folkcards report")
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--db", metavar="FILE", help="a tournament database (required)")
    parser.add_argument(
        "--out", metavar="DIR", help="output folder (default: the database's folder)"
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=BOOTSTRAP,
        metavar="N",
        help=f"bootstrap resamples for the behaviour intervals, 0 for none (default {BOOTSTRAP})",
    )
    parser.add_argument("--no-plot", action="store_true", help="do not draw the PNG plots")
    parser.add_argument("--quiet", action="store_true", help="do not print the tables")
    parser.add_argument(
        "--control-variate",
        nargs="?",
        const="heuristic",
        metavar="REFERENCE",
        help="also estimate every head-to-head difference with a cross-fitted control variate "
        "(features: a REFERENCE table's results on the same cards, default the heuristic; "
        "unbiased; see folkcards.evaluate.reports.variance): writes control_variate.json",
    )
    parser.add_argument(
        "--cv-deals",
        type=int,
        default=2000,
        metavar="N",
        help="fresh deals for the features' expectation (default 2000)",
    )
    return parser


def rebuild(
    db: str | Path, out: str | Path | None = None, bootstrap: int = 0, plot: bool = True
) -> tuple[dict[str, Any], list[Path]]:
    """Recompute everything from the database ``db`` and write it to ``out``; returns
    (results, written paths). ``ConfigError`` for a file that is not a tournament database."""
    from . import export as report

    if bootstrap < 0:
        raise ConfigError(f"--bootstrap must be 0 or more, got {bootstrap}")
    config = config_from_db(db)
    if out is not None:
        out_path = Path(out)
        if out_path.exists() and not out_path.is_dir():
            raise ConfigError(f"--out {str(out_path)!r} is a file, not a folder")
        config.out = out_path
    with Store(config.db_path) as store:
        results = results_of_store(config, store, bootstrap=bootstrap)
    paths = report.export(results, config, plot=plot)
    paths += write_report(results, config, Path(config.out))
    return results, paths


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """``folkcards report``: 0 written, 2 bad input (one line)."""
    prog = "folkcards report"
    if args is None:
        args = parse_line(prog, build_parser, argv)
        if args is None:
            return 2
    if not args.db:
        print(f"{prog}: error: give the tournament database: --db FILE", file=sys.stderr)
        return 2
    try:
        results, paths = rebuild(args.db, args.out, args.bootstrap, plot=not args.no_plot)
    except ConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        from . import export as report

        report.print_report(results)
    if getattr(args, "control_variate", None):
        from .variance import write_control_variates

        try:
            paths.append(
                write_control_variates(
                    args.db,
                    Path(args.out or Path(args.db).parent),
                    args.control_variate,
                    args.cv_deals,
                    quiet=args.quiet,
                )
            )
        except ValueError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0
