"""The agents' page, ``docs/agents.md``: every shipped agent of every game, side by side.

``folkcards agents-page`` plays one duplicate round robin per game (every game of its own in
the registry, :data:`folkcards.envs.registry.GAMES`, with the agents it offers,
``GameSpec.agents``; a line-up of all of them through the tournament machinery: every
combination of agents at the game's default table, every seating) and writes, per agent: its
decision time (median and 95th percentile per decision, measured as it played), its duplicate
score and its paired differences against every other agent, its best-response exploitability
(read from ``docs/exploit/*/final.json``, written by ``folkcards exploit``; "not measured"
where no run exists) and, for games with an open-hand solver, its open-hand accuracy (tricks
lost per deal as declarer and defender). Each number is shown with the command that produced
it and its date.

The round robins' numbers are kept in ``docs/agents/results.json``, so that
``folkcards agents-page --from-results`` rewrites the page without playing (after a new
exploit measurement, say) and a test checks that the committed page is what the committed
results give. The tournaments' databases go to ``--runs`` (``runs/agents_page/<game>``, not
committed); rerunning the same command resumes them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from folkcards.envs.registry import GAMES, GameSpec, canonical_game, game_spec

from ..arguments import parse_line
from ..config import counted
from ..formatting import format_seconds, interval, md_table, num, score_digits, signed
from .exploit_runs import Exploit, exploits_of, read_exploits, same_agent

FORMAT = 1
DEFAULT_OUT = Path("docs/agents.md")
DEFAULT_RESULTS = Path("docs/agents/results.json")
DEFAULT_EXPLOIT = Path("docs/exploit")
DEFAULT_RUNS = Path("runs/agents_page")
DEFAULT_DEALS = 100
KEPT = ("agents", "head_to_head", "decision_times", "open_hand")  # what results.json keeps
NOT_MEASURED = "not measured"


def page_games() -> list[GameSpec]:
    """The games of the page: every registered game of its own (not a variant of another)."""
    return [spec for spec in GAMES.values() if spec.base_game is None]


def shipped_agents(game: str) -> list[str]:
    """The agent specs ``game`` offers (``GameSpec.agents``) whose kind is registered."""
    from folkcards.agents import agent_kinds

    kinds = set(agent_kinds())
    return [spec for spec in game_spec(game).agents if spec.partition(":")[0] in kinds]


def table_size(spec: GameSpec, agents: int) -> int:
    """The round robin's table: the game's default size, at most one seat per agent."""
    if spec.fixed_players:
        return spec.min_players
    return max(spec.min_players, min(spec.default_players, agents))


def entry_key(spec: GameSpec, players: int, agents: int) -> str:
    """Where ``results.json`` keeps a round robin: the game's name at its default table
    (:func:`table_size`), ``<game>_<n>p`` at another."""
    return spec.name if players == table_size(spec, agents) else f"{spec.name}_{players}p"


# --- playing -----------------------------------------------------------------------------------


def machine() -> str:
    """The machine a round robin runs on, in a few words."""
    import platform

    memory = ""
    if hasattr(os, "sysconf") and "SC_PHYS_PAGES" in os.sysconf_names:
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GB"
    return f"{os.cpu_count()} CPUs{memory}, {platform.system()} {platform.machine()}"


def tournament_command(entry: dict[str, Any]) -> str:
    """The ``folkcards tournament`` command that plays a game's round robin."""
    return (
        f"folkcards tournament --game {entry['game']} --agents {' '.join(entry['specs'])} "
        f"--deals {entry['deals']} --num-players {entry['num_players']} --seed {entry['seed']}"
    )


def play_round_robin(
    game: str,
    agents: Sequence[str],
    deals: int,
    seed: int,
    workers: int,
    runs: Path,
    progress: bool = False,
    players: int | None = None,
) -> dict[str, Any]:
    """Play (or resume) one game's round robin (at ``players`` seats, default
    :func:`table_size`) and return what ``results.json`` keeps of it."""
    import time

    from ..config import load_config
    from ..running.runner import run

    spec = game_spec(game)
    players = players or table_size(spec, len(agents))
    key = entry_key(spec, players, len(agents))
    config = load_config(
        None,
        {
            "game": spec.name,
            "agents": list(agents),
            "deals": deals,
            "seed": seed,
            "workers": workers,
            "num_players": players,
            "out": str(runs / key),
        },
    )
    load = os.getloadavg()[0]
    started = time.perf_counter()
    results = run(config, progress=progress, bootstrap=0)
    entry: dict[str, Any] = {
        "game": spec.name,
        "title": spec.title,
        "specs": list(agents),
        "names": [e.name for e in config.agents],
        "num_players": players,
        "deals": deals,
        "seed": seed,
        "unit": results["unit"],
        "unit_plural": results["unit_plural"],
        "metric": results["metric"],
        "higher_is_better": results["higher_is_better"],
        "episodes": results["units_stored"],
        "date": datetime.now(timezone.utc).date().isoformat(),
        "seconds": round(time.perf_counter() - started, 1),
        "workers": workers,
        "load_average": round(load, 1),
        "machine": machine(),
    }
    entry.update({key: results.get(key) for key in KEPT})
    return entry


# --- the page ----------------------------------------------------------------------------------


def _link(target: Path, page: Path) -> str:
    return Path(os.path.relpath(target, page.parent)).as_posix()


def _exploit_cell(found: list[Exploit], several_sizes: bool, digits: int = 2) -> str:
    if not found:
        return NOT_MEASURED
    parts = []
    for e in found:
        size = f"{e.num_players} players: " if several_sizes else ""
        parts.append(f"{size}{signed(e.gain, digits)} ± {num(e.ci95, digits)}")
    return "; ".join(parts)


def _score_cell(row: dict[str, Any], digits: int = 2) -> str:
    if row.get("mean") is None:
        return "—"
    if row.get("ci_low") is None or row.get("ci_high") is None:  # one deal: no interval
        return signed(row["mean"], digits)
    mean = signed(row["mean"], digits)
    return f"{mean} {interval(row['ci_low'], row['ci_high'], digits, True)}"


def _open_hand_cell(row: dict[str, Any] | None) -> str:
    if not row or row.get("tricks_lost") is None:
        return "—"
    if row.get("ci_low") is None or row.get("ci_high") is None:
        return f"{num(row['tricks_lost'])} ({row['deals']})"
    return (
        f"{num(row['tricks_lost'])} {interval(row['ci_low'], row['ci_high'], 2, False)} "
        f"({row['deals']})"
    )


def _game_section(entry: dict[str, Any], exploits: Sequence[Exploit], page: Path) -> list[str]:
    game, names = entry["game"], entry["names"]
    spec_of = dict(zip(names, entry["specs"], strict=True))
    scores = {row["name"]: row for row in entry["agents"]}
    times = entry["decision_times"]
    open_hand = entry.get("open_hand")
    sizes = game_spec(game).table_sizes
    better = "higher" if entry["higher_is_better"] else "lower"
    digits = score_digits(entry)  # sticks per round: 3, table points: 2
    header = ["agent", "decision time: median", "95th percentile", f"score ({better} is better)"]
    header.append("best-response gain (lower is better)")
    if open_hand:
        header += ["tricks lost as declarer", "as defender"]
    rows = []
    for name in names:
        found = exploits_of(exploits, game, spec_of[name])
        row = [
            f"`{spec_of[name]}`",
            format_seconds(times[name]["median"]),
            format_seconds(times[name]["p95"]),
            _score_cell(scores[name], digits),
            _exploit_cell(found, len(sizes) > 1, digits),
        ]
        if open_hand:
            row += [_open_hand_cell(open_hand[name]["declarer"])]
            row += [_open_hand_cell(open_hand[name]["defender"])]
        rows.append(row)
    units = entry["unit_plural"]
    table = "" if game_spec(game).fixed_players else f", {entry['num_players']} players"
    lines = [
        f"## {entry['title']}{table}",
        "",
        f"Round robin at {entry['num_players']} players: {counted(entry['deals'], entry['unit'])}"
        f", every combination of the {len(names)} agents at the table in every seating "
        f"({entry['episodes']:,} episodes), seed {entry['seed']}, played {entry['date']} "
        f"({entry['seconds']:,.0f} s with {counted(entry['workers'], 'worker')}, load average "
        f"{entry['load_average']} at the start). Score: {entry['metric']}, the agent's mean over "
        f"its seatings, 95% t interval over {units}.",
        "",
        *md_table(header, rows),
        "",
        f"Played by `{tournament_command(entry)}`, as `{entry['command']}` runs it.",
        "",
        f"Paired differences, row minus column, in {entry['metric']} over the {units} both "
        f"played (95% t interval; {better} favours the row):",
        "",
    ]
    pairs = {(p["a"], p["b"]): p for p in entry["head_to_head"]}
    matrix = []
    for a in names:
        cells = [f"`{spec_of[a]}`"]
        for b in names:
            pair = pairs.get((a, b)) or pairs.get((b, a))
            if a == b or pair is None or pair["mean_diff"] is None:
                cells.append("—")
                continue
            flip = -1.0 if (a, b) not in pairs else 1.0
            text = signed(flip * pair["mean_diff"], digits)
            if pair["ci_low"] is not None and pair["ci_high"] is not None:  # 2 deals or more
                low, high = sorted((flip * pair["ci_low"], flip * pair["ci_high"]))
                text += f" {interval(low, high, digits, True)}"
            cells.append(text)
        matrix.append(cells)
    lines += md_table(["", *(f"`{spec_of[b]}`" for b in names)], matrix)
    measured = [e for e in exploits if e.game == game]
    if measured:
        lines += ["", "Best-response measurements (`folkcards exploit`):", ""]
        for e in measured:
            when = f", {e.finished[:10]}" if e.finished else ""
            steps = f"{e.steps:,} learner steps, " if e.steps else ""
            how = f": `{e.command}`" if e.command else ""
            lines.append(
                f"- `{e.agent}`, {e.num_players} players: {signed(e.gain, digits)} ± "
                f"{num(e.ci95, digits)} "
                f"{e.unit} over {e.deals:,} deals ({steps}[{e.folder.name}]"
                f"({_link(e.folder / 'exploit.md', page)}){when}){how}"
            )
    return lines


def _pool_section() -> list[str]:
    """The shipped gauntlet rows, one table per game and table size, as the leaderboard has
    them (``folkcards.evaluate.pages.leaderboard``; each row's command is there)."""
    from ..benchmarks.gauntlet import shipped_rows
    from .leaderboard import tables

    rows = shipped_rows()
    if not rows:
        return []
    lines = ["## Against the reference pool", "",
             "From the [leaderboard](leaderboard.md), where each row's command is given.", ""]  # fmt: skip
    for title, header, cells in tables(rows):
        lines += [f"### Gauntlet: {title}", "", *md_table(header, cells), ""]
    return lines


INTRO = """\
# The agents

Every agent shipped with folkcards, in each game, measured the same way. Generated by
`folkcards agents-page` (do not edit by hand); `folkcards agents-page --from-results` rewrites
it from `{results}` and the best-response runs in `{exploit}/` without playing.

- **Decision time**: seconds per decision (every move the agent was asked for, forced ones
  included), median and 95th percentile, measured as it played the round robin below on the
  shared machine; the load average is given with each game.
- **Against the reference pool**: each agent's [gauntlet](gauntlet.md) row, as the
  [leaderboard](leaderboard.md) shows it: its advantage over each reference (its score minus
  the reference seats' at the same table, positive is better in both games) on the held-out
  deals, every seating, with a 95% interval paired by deal, and its anchored rating.
- **Score** and **paired differences**: a duplicate round robin (every deal replayed in every
  seating, so every agent gets the same cards in every seat).
- **Best-response gain** (exploitability): what a learner trained against the frozen agent
  gains over the agent itself in its seat (`folkcards exploit`, [method](exploit/README.md)),
  with a 95% interval; a lower bound of the agent's exploitability. Exactly 0 means that the
  trained learner did no better than its start, the agent itself; "not measured" where no
  run is stored in `{exploit}/`.
- **Tricks lost** (games with an open-hand solver): per deal played in the role, the tricks
  the agent's cards lost against open-hand (double-dummy) play, 95% t interval, in brackets the
  number of deals. A diagnostic: the solver sees every card, the players did not.
"""


def render(data: dict[str, Any], exploits: Sequence[Exploit], page: Path = DEFAULT_OUT) -> str:
    """The page's Markdown from stored round robins and exploit measurements (deterministic)."""
    results = Path(data.get("results_path", DEFAULT_RESULTS.as_posix()))
    exploit_dir = Path(data.get("exploit_dir", DEFAULT_EXPLOIT.as_posix()))
    lines = [INTRO.format(results=results.as_posix(), exploit=exploit_dir.as_posix())]
    if data.get("command"):
        lines.append(f"Last generated by `{data['command']}`.\n")
    machines = {entry.get("machine") for entry in data["games"].values()} - {None}
    if len(machines) == 1:
        lines.append(
            f"Machine: {machines.pop()}, shared with other work; the load average when each round "
            "robin started is given with it.\n"
        )
    lines += _pool_section()
    order = list(GAMES)
    for _, entry in sorted(
        data["games"].items(),
        key=lambda item: (order.index(item[1]["game"]), item[1]["num_players"]),
    ):
        lines += [*_game_section(entry, exploits, page), ""]
    return "\n".join(lines).rstrip() + "\n"


# --- command line ------------------------------------------------------------------------------

DESCRIPTION = (
    "Write the agents' page (docs/agents.md): every shipped agent of every game with its "
    "decision time, its duplicate results against the others (a round robin per game), its "
    "best-response exploitability (docs/exploit/) and its open-hand accuracy, and the commands "
    "and dates of each number."
)
EPILOG = """examples:
  folkcards agents-page --deals paston=40 tri_palki=100        # play, store, write
  folkcards agents-page --from-results                          # rewrite from docs/agents/results.json
  folkcards agents-page --games tri_palki --agents random heuristic --deals 5 --out /tmp/a.md
  folkcards agents-page --games tri_palki --players tri_palki=3,4,6 --deals 1000  # three tables
Rerunning the same command resumes the round robins (their databases are in --runs)."""


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The ``folkcards agents-page`` arguments (added to ``parser`` when given)."""
    parser = parser or argparse.ArgumentParser(prog="folkcards agents-page")
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--out", default=str(DEFAULT_OUT), metavar="FILE", help="the page")
    parser.add_argument(
        "--results", default=str(DEFAULT_RESULTS), metavar="FILE", help="the stored numbers"
    )
    parser.add_argument(
        "--exploit-dir", default=str(DEFAULT_EXPLOIT), metavar="DIR", help="exploit runs"
    )
    parser.add_argument(
        "--from-results", action="store_true", help="play nothing: rewrite from --results"
    )
    parser.add_argument(
        "--deals",
        nargs="+",
        default=[str(DEFAULT_DEALS)],
        metavar="N|GAME=N",
        help=f"deals (rounds) per game's round robin (default {DEFAULT_DEALS})",
    )
    parser.add_argument(
        "--players",
        nargs="+",
        default=[],
        metavar="GAME=N[,N...]",
        help="table sizes of a game's round robins (default: the game's default table, at "
        "most one seat per agent); one round robin per size",
    )
    parser.add_argument(
        "--games", nargs="+", metavar="GAME", help="only these games (the others are kept)"
    )
    parser.add_argument(
        "--agents", nargs="+", metavar="SPEC", help="only these of the shipped agents"
    )
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--runs", default=str(DEFAULT_RUNS), metavar="DIR", help="databases")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def _deals(values: Sequence[str], games: Sequence[str]) -> dict[str, int]:
    per_game: dict[str, int] = {}
    default = DEFAULT_DEALS
    for value in values:
        game, _, count = value.rpartition("=")
        try:
            n = int(count)
        except ValueError:
            raise ValueError(f"--deals takes N or GAME=N, got {value!r}") from None
        if n < 1:
            raise ValueError(f"--deals must be at least 1, got {value!r}")
        if game:
            per_game[canonical_game(game)] = n
        else:
            default = n
    return {g: per_game.get(g, default) for g in games}


def _players(values: Sequence[str], games: Sequence[str]) -> dict[str, list[int | None]]:
    """The table sizes of each game's round robins (``None``: the default table)."""
    sizes: dict[str, list[int | None]] = {game: [None] for game in games}
    for value in values:
        game, sep, listed = value.partition("=")
        if not sep or not listed:
            raise ValueError(f"--players takes GAME=N[,N...], got {value!r}")
        spec = game_spec(canonical_game(game))
        if spec.name not in sizes:
            raise ValueError(f"--players names {game!r}, which is not among the games played")
        try:
            sizes[spec.name] = [spec.check_players(int(n)) for n in listed.split(",")]
        except ValueError as exc:
            raise ValueError(f"--players {value}: {exc}") from None
    return sizes


def _lineup(game: str, wanted: Sequence[str] | None) -> list[str]:
    shipped = shipped_agents(game)
    if not wanted:
        return shipped
    chosen = [s for s in shipped if any(same_agent(s, w, game) for w in wanted)]
    unknown = [w for w in wanted if not any(same_agent(s, w, game) for s in shipped)]
    if unknown:
        raise ValueError(f"{game} ships no agent {unknown[0]!r}; its agents: {', '.join(shipped)}")
    return chosen


def load_results(path: Path) -> dict[str, Any]:
    """The stored numbers (``ValueError`` in one line if unreadable)."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(
            f"no stored results at {str(path)!r}: run without --from-results"
        ) from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: unreadable ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "games" not in data:
        raise ValueError(f"{path}: not an agents-page results file (format {FORMAT})")
    return data


def command_of(args: argparse.Namespace) -> str:
    """The ``folkcards agents-page`` command line of ``args`` (default paths left out)."""
    words = ["folkcards agents-page", "--deals", *args.deals, "--seed", str(args.seed)]
    if args.games:
        words += ["--games", *args.games]
    if args.agents:
        words += ["--agents", *args.agents]
    if getattr(args, "players", None):
        words += ["--players", *args.players]
    for flag, value, default in (
        ("--workers", args.workers, 1),
        ("--out", args.out, str(DEFAULT_OUT)),
        ("--results", args.results, str(DEFAULT_RESULTS)),
        ("--exploit-dir", args.exploit_dir, str(DEFAULT_EXPLOIT)),
        ("--runs", args.runs, str(DEFAULT_RUNS)),
    ):
        if str(value) != str(default):
            words += [flag, str(value)]
    return " ".join(words)


def generate(args: argparse.Namespace) -> Path:
    """Play (unless ``--from-results``), store and write the page; returns the page's path."""
    out, results_path = Path(args.out), Path(args.results)
    exploits = read_exploits(Path(args.exploit_dir))  # a bad run directory stops before playing
    if args.from_results:
        data = load_results(results_path)
    else:
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        games = (
            [canonical_game(g) for g in args.games]
            if args.games
            else [s.name for s in page_games()]
        )
        deals = _deals(args.deals, games)
        sizes = _players(getattr(args, "players", None) or [], games)
        lineups = {game: _lineup(game, args.agents) for game in games}
        if results_path.is_file():
            load_results(results_path)  # an unreadable file stops before playing
        command = command_of(args)
        played = {}
        for game in games:
            for players in sizes[game]:
                entry = play_round_robin(
                    game,
                    lineups[game],
                    deals[game],
                    args.seed,
                    args.workers,
                    Path(args.runs),
                    progress=not args.no_progress and sys.stderr.isatty(),
                    players=players,
                )
                key = entry_key(game_spec(game), entry["num_players"], len(lineups[game]))
                played[key] = {**entry, "command": command}
        # read again now: another game's run may have stored its numbers meanwhile
        data = load_results(results_path) if results_path.is_file() else {"games": {}}
        data["games"].update(played)
        data.update(
            format=FORMAT,
            command=command,
            results_path=results_path.as_posix(),
            exploit_dir=Path(args.exploit_dir).as_posix(),
        )
        results_path.parent.mkdir(parents=True, exist_ok=True)
        results_path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(data, exploits, out))
    return out


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """``folkcards agents-page``: 0 written, 1 a failure while playing, 2 bad input."""
    prog = "folkcards agents-page"
    if args is None:
        args = parse_line(prog, build_parser, argv)
        if args is None:
            return 2
    try:
        page = generate(args)
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {page} and {args.results}" if not args.from_results else f"wrote {page}")
    return 0


__all__ = [
    "build_parser",
    "command_of",
    "generate",
    "load_results",
    "main",
    "page_games",
    "play_round_robin",
    "render",
    "shipped_agents",
]
