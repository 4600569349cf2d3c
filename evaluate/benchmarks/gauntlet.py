"""The standard gauntlet: one agent against a fixed, versioned reference pool on held-out deals.

``folkcards gauntlet --game paston --agent SPEC`` plays the agent against every reference of
:data:`POOL` (``pool-v1``) that the game offers, on the first ``--deals`` deals of the shipped
held-out deal set (:mod:`..storage.deal_sets`, ``gauntlet-v1``), and writes one **row**.

**Line-up.** Per reference, a duplicate tournament (:func:`..running.runner.run`, the tournament's own
machinery: seeds, storage, resuming, workers, Ray) with the agent in one seat and the reference
in every other seat, seated by the cyclic rotations: each deal is played once with the agent in
each seat (3 episodes a deal for Paston, ``N`` for Tri Palki at ``N`` players).

**Scores.** Per episode, the agent's **advantage** is its score minus the mean score of the
reference seats, signed so that positive is better (Paston: table points; Tri Palki: sticks,
fewer is better). Per deal the advantages of its seatings are averaged; the row gives the mean
over deals with a 95% Student t interval (the deal is the unit of sampling, so the interval is
paired by deal: :func:`..statistics.intervals.mean_ci`).

**Rating.** On a scale anchored at ``random`` = 0 and the heuristic = 1000
(:mod:`.gauntlet_rows`).

A later run of the same command with more ``--deals`` resumes: only the new deals are played.

**Sequential stop.** ``--until-width W`` plays ``--batch`` deals at a time against every
reference and stops as soon as every advantage interval is narrower than ``W`` (high minus
low), or at ``--deals``.

Each row is a JSON file with the exact command, the folkcards version, the pool and deal-set
versions, the seed and the date, so rerunning its command reproduces it (the decision times
aside, which are measured).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from folkcards.envs.registry import GAMES_HELP, game_spec

from folkcards.errors import ConfigError

from ..arguments import parse_line
from ..config import Entrant, TournamentConfig, default_workers, same_agent
from ..formatting import estimate
from ..statistics.intervals import Interval, mean_ci
from ..statistics.open_hand_accuracy import accuracy
from ..storage import deal_sets
from ..storage.database import Store
from .gauntlet_rows import ANCHORS, ROW_FORMAT, rating, read_rows, shipped_rows

POOL_VERSION = "pool-v1"
# the references of pool-v1, in order; a game's pool is those of them it offers (GameSpec.agents,
# and the montecarlo baseline where the game has its piece)
POOL = ("random", "heuristic", "ppo", "distilled", "expert", "pimc", "montecarlo")
AGENT = "agent"
REFERENCE = "reference"
DEFAULT_DEALS = 200
DEFAULT_BATCH = 50


def pool(game: str) -> tuple[str, ...]:
    """The references of the current pool that ``game`` offers."""
    spec = game_spec(game)
    # the shipped agents, and the independent baseline where the game has one
    offered = set(spec.agents) | ({"montecarlo"} if spec.montecarlo_agent else set())
    return tuple(r for r in POOL if r in offered)


def slug(spec: str) -> str:
    """A file name for an agent spec (``ppo:a/b.zip`` → ``ppo-a-b.zip``)."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "-", spec).strip("-") or "agent"


@dataclass
class Gauntlet:
    """A validated gauntlet run (see the module docstring)."""

    game: str
    num_players: int
    agent: str
    deals: int = DEFAULT_DEALS
    seed: int = 0
    references: tuple[str, ...] = ()
    workers: int = field(default_factory=default_workers)
    out: Path | None = None
    until_width: float | None = None
    batch: int = DEFAULT_BATCH
    deal_set: str = deal_sets.CURRENT
    probe: Path | None = None

    @property
    def out_dir(self) -> Path:
        if self.out is not None:
            return self.out
        return Path("results") / "gauntlet" / f"{self.game}-{self.num_players}" / slug(self.agent)

    def tournament(self, reference: str) -> TournamentConfig:
        """The duplicate tournament against one reference (agent in one seat, rotations)."""
        spec = game_spec(self.game)
        others = [
            Entrant(REFERENCE if k == 1 else f"{REFERENCE}#{k}", reference)
            for k in range(1, self.num_players)
        ]
        folder = self.out_dir / slug(reference)
        return TournamentConfig(
            game=self.game,
            mode=spec.modes[0].name,
            # the whole set: a run plays its first deals (run's max_units), so a later run with
            # more --deals resumes the same tournament
            count=deal_sets.deal_count(self.deal_set, self.game, self.num_players),
            seed=self.seed,
            agents=[Entrant(AGENT, self.agent), *others],
            num_players=self.num_players,
            workers=self.workers,
            out=folder,
            db=folder / "tournament.sqlite",
            seating="rotations",
            open_hand=False,
            deal_set=self.deal_set,
        )


def make_gauntlet(
    game: str,
    agent: str,
    num_players: int | None = None,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    references: Sequence[str] | None = None,
    workers: int | None = None,
    out: str | Path | None = None,
    until_width: float | None = None,
    batch: int = DEFAULT_BATCH,
    probe: str | Path | None = None,
) -> Gauntlet:
    """A :class:`Gauntlet`, every argument checked (``ValueError`` in one line)."""
    from folkcards.agents import make_agent
    from folkcards.agents.table_sizes import check_table

    spec = game_spec(game)  # "unknown game ..." for a bad name
    n = spec.table_size(num_players)
    sizes = deal_sets.deal_set_sizes(deal_sets.CURRENT, spec.name)
    if n not in sizes:
        shown = ", ".join(map(str, sizes)) or "no table size"
        raise ValueError(
            f"the gauntlet plays {spec.name} at {shown} players (deal set "
            f"{deal_sets.CURRENT}), not {n}"
        )
    available = deal_sets.deal_count(deal_sets.CURRENT, spec.name, n)
    if not isinstance(deals, int) or not 2 <= deals <= available:
        raise ValueError(f"--deals must be 2 to {available} (the deal set's size), got {deals}")
    if batch < 2:
        raise ValueError(f"--batch must be at least 2 deals, got {batch}")
    if until_width is not None and not until_width > 0:
        raise ValueError(f"--until-width must be positive, got {until_width}")
    offered = pool(spec.name)
    chosen = tuple(dict.fromkeys(references)) if references else offered
    unknown = [r for r in chosen if r not in offered]
    if unknown:
        raise ValueError(
            f"{unknown[0]!r} is not a reference of {POOL_VERSION} for {spec.name}; "
            f"choose from {', '.join(offered)}"
        )
    if not isinstance(agent, str) or not agent.strip():
        raise ValueError("--agent needs an agent spec")
    make_agent(agent, spec.name, "player_0", 0)  # a bad spec is refused here, in one line
    check_table([agent, *chosen], spec.name, n)
    probe_path = Path(probe) if probe is not None else None
    if probe_path is not None:
        read_probe(probe_path, spec.name, n, agent)
    return Gauntlet(
        game=spec.name,
        num_players=n,
        agent=agent,
        deals=deals,
        seed=seed,
        references=chosen,
        workers=default_workers() if workers is None else max(1, workers),
        out=Path(out) if out is not None else None,
        until_width=until_width,
        batch=batch,
        probe=probe_path,
    )


def _seconds_so_far(row_file: Path) -> float:
    """The play time a resumed row already spent (its earlier runs), 0 for a new one."""
    try:
        return float(json.loads(row_file.read_text())["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def read_probe(path: Path, game: str, num_players: int, agent: str) -> dict[str, Any]:
    """The best-response measurement of a probe run's folder (``final.json``: its
    ``measurement``), checked to be of this game, table size and agent."""
    file = path / "final.json" if path.is_dir() else path
    try:
        measurement = json.loads(file.read_text())["measurement"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{path} holds no probe measurement (final.json)") from None
    what = (measurement.get("game"), measurement.get("num_players"), measurement.get("agent"))
    if what[:2] != (game, num_players) or not same_agent(str(what[2]), agent, game):
        raise ValueError(
            f"the probe in {path} measured {what[2]!r} at {what[0]} ({what[1]} players), "
            f"not {agent!r} at {game} ({num_players})"
        )
    return {
        "gain": float(measurement["gain"]),
        "ci95": float(measurement["ci95"]),
        "deals": int(measurement["deals"]),
        "source": str(path),
    }


# --- playing -----------------------------------------------------------------------------------


def run_gauntlet(
    gauntlet: Gauntlet,
    command: Sequence[str] | None = None,
    progress: bool = False,
    backend: str = "local",
    address: str | None = None,
    log: Any = None,
) -> dict[str, Any]:
    """Play the gauntlet (resuming what its folder holds), write ``row.json`` and return it."""
    from ..running.runner import run

    log = log or (lambda text: print(text, file=sys.stderr))
    started = time.perf_counter() - _seconds_so_far(gauntlet.out_dir / "row.json")
    target = gauntlet.deals
    if gauntlet.until_width is not None:
        target = min(gauntlet.batch, gauntlet.deals)
    while True:
        for reference in gauntlet.references:
            config = gauntlet.tournament(reference)
            with Store(config.db_path) as store:
                store.open_tournament(config.identity(), config.total_units)
                done = len(store.done_keys())
            wanted = target * config.units_per_deal - done
            if wanted > 0:
                run(
                    config,
                    progress=progress,
                    max_units=wanted,
                    bootstrap=0,
                    backend=backend,
                    address=address,
                    log=log,
                )
        row = build_row(gauntlet, target, command, time.perf_counter() - started)
        if gauntlet.until_width is None or target >= gauntlet.deals:
            break
        widths = [r["advantage"]["high"] - r["advantage"]["low"] for r in row["references"]]
        if all(w < gauntlet.until_width for w in widths):
            break
        log(f"{target} deals: widest interval {max(widths):.3g}, wanted < {gauntlet.until_width:g}")
        target = min(target + gauntlet.batch, gauntlet.deals)
    folder = gauntlet.out_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "row.json").write_text(json.dumps(row, indent=1) + "\n")
    return row


def _interval(interval: Interval) -> dict[str, float | int | None]:
    def clean(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {"mean": interval.mean, "low": clean(interval.low), "high": clean(interval.high),
            "n": interval.n}  # fmt: skip


def reference_result(
    gauntlet: Gauntlet, reference: str, deals: int
) -> tuple[dict[str, Any], dict[int, float]]:
    """One reference's part of the row, and the agent's advantage per deal."""
    config = gauntlet.tournament(reference)
    higher = game_spec(gauntlet.game).higher_is_better
    per_deal: dict[int, list[tuple[float, float]]] = {}
    with Store(config.db_path) as store:
        for unit in store.units():
            if unit["deal"] >= deals:
                continue
            seat = unit["seats"].index(AGENT)
            scores = [float(r["score"]) for r in unit["result"]]
            mine = scores[seat]
            theirs = (sum(scores) - mine) / (len(scores) - 1)
            per_deal.setdefault(unit["deal"], []).append((mine, theirs))
        seconds: list[float] = []
        for seats, timing in store.decision_seconds():
            if timing is not None and AGENT in seats:
                seconds.extend(timing[seats.index(AGENT)])
    complete = {d: v for d, v in sorted(per_deal.items()) if len(v) == config.units_per_deal}
    sign = 1.0 if higher else -1.0
    advantage = {d: sign * sum(m - t for m, t in v) / len(v) for d, v in complete.items()}
    agent_score = [sum(m for m, _ in v) / len(v) for v in complete.values()]
    ref_score = [sum(t for _, t in v) / len(v) for v in complete.values()]
    part = {
        "reference": reference,
        "deals": len(complete),
        "agent_score": _interval(mean_ci(agent_score)),
        "reference_score": _interval(mean_ci(ref_score)),
        "advantage": _interval(mean_ci(list(advantage.values()))),
        "decision_ms": 1000 * sum(seconds) / len(seconds) if seconds else None,
        "decisions": len(seconds),
    }
    return part, advantage


def build_row(
    gauntlet: Gauntlet, deals: int, command: Sequence[str] | None, seconds: float
) -> dict[str, Any]:
    """The row of the gauntlet's stored results over its first ``deals`` deals."""
    from folkcards import __version__

    parts = []
    by_deal: dict[int, list[float]] = {}
    complete: dict[str, set[int]] = {}
    for reference in gauntlet.references:
        part, advantage = reference_result(gauntlet, reference, deals)
        parts.append(part)
        complete[reference] = set(advantage)
        for d, value in advantage.items():
            by_deal.setdefault(d, []).append(value)
    common = [sum(v) / len(v) for d, v in sorted(by_deal.items()) if len(v) == len(parts)]
    timed = [p for p in parts if p["decision_ms"] is not None]
    total = sum(p["decisions"] for p in timed)
    content = deal_sets.load(gauntlet.deal_set, gauntlet.game, gauntlet.num_players)
    return {
        "format": ROW_FORMAT,
        "game": gauntlet.game,
        "num_players": gauntlet.num_players,
        "agent": gauntlet.agent,
        "pool": POOL_VERSION,
        "deal_set": gauntlet.deal_set,
        "deal_set_sha256": content["sha256"],
        "seed": gauntlet.seed,
        "deals": min((p["deals"] for p in parts), default=0),
        "until_width": gauntlet.until_width,
        "folkcards": __version__,
        "date": datetime.date.today().isoformat(),
        "command": shlex.join(command) if command else None,
        "seconds": seconds,
        "references": parts,
        "mean_advantage": _interval(mean_ci(common)),
        "decision_ms": (
            sum(p["decision_ms"] * p["decisions"] for p in timed) / total if total else None
        ),
        "best_response": (
            read_probe(gauntlet.probe, gauntlet.game, gauntlet.num_players, gauntlet.agent)
            if gauntlet.probe is not None
            else None
        ),
        "open_hand": open_hand_result(gauntlet, complete),
    }


def open_hand_result(gauntlet: Gauntlet, complete: dict[str, set[int]]) -> dict[str, Any] | None:
    """The agent's open-hand accuracy over the complete deals of every reference's tournament
    (pooled by deal), from the stored records: tricks lost per deal as declarer and as
    defender, and the contract checks; ``None`` for a game without the analysis."""
    if not game_spec(gauntlet.game).has("open_hand_analysis"):
        return None
    units: list[dict[str, Any]] = []
    config = None
    for reference, deals in complete.items():
        config = replace(gauntlet.tournament(reference), open_hand=True)
        with Store(config.db_path) as store:
            units += [u for u in store.units(with_records=True) if u["deal"] in deals]
    if config is None or not units:
        return None
    return accuracy(config, units, [AGENT])[AGENT]


# --- command line ------------------------------------------------------------------------------

DESCRIPTION = (
    "Rate an agent against the standard reference pool on the shipped held-out deals "
    "(duplicate, every seat): its advantage over each reference with a 95% interval paired by "
    "deal, a rating anchored at random = 0 and the heuristic = 1000, and decision time. "
    "Writes row.json in the output folder; rerunning the same command resumes."
)
EPILOG = f"""pool {POOL_VERSION}: {", ".join(POOL)} (those the game offers)
deal set {deal_sets.CURRENT}: {deal_sets.COUNT} deals per table (Paston at 3, Tri Palki at 3, 4, 6)
examples:
  folkcards gauntlet --game paston --agent montecarlo --deals 100
  folkcards gauntlet --game tri_palki --num-players 6 --agent ppo --references random heuristic
  folkcards gauntlet --game paston --agent my_agents.py:MyAgent --until-width 2 --deals 2000
  folkcards leaderboard                 # every stored row as a page"""


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="folkcards gauntlet")
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--game", required=True, help=GAMES_HELP)
    parser.add_argument("--num-players", type=int, metavar="N", help="table size (Tri Palki)")
    parser.add_argument("--agent", required=True, metavar="SPEC", help="the agent to rate")
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS, metavar="K",
                        help=f"deals (rounds) of the deal set to play (default {DEFAULT_DEALS}; "
                        "with --until-width, at most this many)")  # fmt: skip
    parser.add_argument("--references", nargs="+", metavar="SPEC",
                        help="only these references of the pool (default: all it offers)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="the agents' seeds (default 0)")
    parser.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    parser.add_argument("--out", metavar="DIR",
                        help="output folder (default results/gauntlet/<game>-<n>/<agent>)")  # fmt: skip
    parser.add_argument("--until-width", type=float, metavar="W",
                        help="stop when every advantage interval is narrower than W")  # fmt: skip
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, metavar="D",
                        help=f"with --until-width, deals per step (default {DEFAULT_BATCH})")  # fmt: skip
    parser.add_argument("--probe", metavar="DIR",
                        help="a best-response probe's folder (folkcards exploit) for this agent")  # fmt: skip
    parser.add_argument("--rows", nargs="*", default=[], metavar="DIR",
                        help="more folders of rows for the rating's anchors")  # fmt: skip
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="local worker processes or Ray tasks (needs folkcards[rllib])")  # fmt: skip
    parser.add_argument("--address", metavar="HOST:PORT", help="with --backend ray: the cluster")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def row_text(row: dict[str, Any], rated: dict[str, Any] | None) -> str:
    """The row as printed."""
    spec = game_spec(row["game"])
    unit = "points" if spec.higher_is_better else "sticks"
    word = spec.round_word
    lines = [
        f"{row['agent']} at {row['game']} ({row['num_players']} players), {row['deals']} {word}s "
        f"of {row['deal_set']}, {row['pool']}; advantage in {unit} per {word} (positive: better)"
    ]
    for part in row["references"]:
        a = part["advantage"]
        lines.append(f"  vs {part['reference']:<12} {_shown(a)}")
    rating_text = (
        "—"
        if rated is None
        else estimate(rated["rating"], rated["low"], rated["high"], 0, sign=False)
    )
    ms = row["decision_ms"]
    lines.append(f"  rating {rating_text}; {ms:.1f} ms per decision (mean)" if ms is not None
                 else f"  rating {rating_text}")  # fmt: skip
    if row.get("open_hand"):
        lines.append(f"  open-hand: {open_hand_text(row['open_hand'])} (lower is better)")
    return "\n".join(lines)


def open_hand_text(result: dict[str, Any]) -> str:
    """``declarer 0.12 [0.08, 0.16], defender 0.30 [0.25, 0.35] tricks lost per deal``."""
    parts = []
    for role in ("declarer", "defender"):
        r = result[role]
        parts.append(
            f"{role} {estimate(r['tricks_lost'], r['ci_low'], r['ci_high'], 2, sign=False)}"
        )
    return ", ".join(parts) + " tricks lost per deal"


def _shown(a: dict[str, Any]) -> str:
    return estimate(a["mean"], a["low"], a["high"], 3)


_NOT_IN_THE_ROW = {"--out": 1, "--no-progress": 0}  # option: values it takes


def _row_options(argv: Sequence[str]) -> list[str]:
    """The command line without the options that do not change the row (where it is written,
    the progress bar), so a stored command reproduces the row on any machine."""
    kept: list[str] = []
    skip = 0
    for word in argv:
        if skip:
            skip -= 1
        elif word.split("=", 1)[0] in _NOT_IN_THE_ROW:
            skip = 0 if "=" in word else _NOT_IN_THE_ROW[word]
        else:
            kept.append(word)
    return kept


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """``folkcards gauntlet``: 0 ok, 1 failure, 2 bad input, 130 interrupted."""
    prog = "folkcards gauntlet"
    if args is None:
        args = parse_line(prog, build_parser, argv)
        if args is None:
            return 2
    try:
        gauntlet = make_gauntlet(
            args.game, args.agent, args.num_players, args.deals, args.seed, args.references,
            args.workers, args.out, args.until_width, args.batch, args.probe,
        )  # fmt: skip
        command = ["folkcards", "gauntlet", *_row_options(sys.argv[2:] if argv is None else argv)]
        row = run_gauntlet(gauntlet, command, not args.no_progress, args.backend, args.address)
    except (ValueError, ConfigError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    except RuntimeError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    print(row_text(row, rating(row, read_rows(args.rows))))
    print(f"wrote {gauntlet.out_dir / 'row.json'}")
    return 0


__all__ = [
    "ANCHORS",
    "POOL",
    "POOL_VERSION",
    "Gauntlet",
    "build_row",
    "main",
    "make_gauntlet",
    "pool",
    "rating",
    "read_rows",
    "run_gauntlet",
    "shipped_rows",
]
