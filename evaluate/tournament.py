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

**Storage** (:mod:`.storage`): every unit is committed to SQLite as it finishes, with its full
``record()``. Rerunning the same command resumes: only missing units are played. A different
config for the same database is refused with the differences named.

**Statistics** (:mod:`.stats`): computed from the database in canonical order (deal, line-up,
seating), over complete deals only (all units of the deal stored).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import behaviour as bh
from . import stats as st
from .config import (
    SEATINGS,
    ConfigError,
    Entrant,
    TournamentConfig,
    counted,
    from_identity,
    load_config,
)
from .games import GAMES_HELP, GameRunner, make_runner
from .processes import check_main_is_importable
from .ray_backend import RayMissingError, require_ray
from .storage import Store, read_config, seat_rows_of

BOOTSTRAP = 1000  # default resamples of the behaviour intervals
MEASURED = "decision_times"  # the one results key that is measured, not reproducible
BACKENDS = ("local", "ray")
DEAL_TAG = 0xDEA1
AGENT_TAG = 0xA6E7


# --- seeds and units ---------------------------------------------------------------------------


def _seed63(*words: int) -> int:
    state = np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)
    return int(state[0]) >> 1


def deal_seed(seed: int, deal: int) -> int:
    """The env seed of deal (or game) ``deal`` of a tournament with seed ``seed``."""
    return _seed63(seed, DEAL_TAG, deal)


def agent_seed(seed: int, deal: int, lineup: int, seating: int, seat: int) -> int:
    """The seed of the agent sitting in ``seat`` for one unit."""
    return _seed63(seed, AGENT_TAG, deal, lineup, seating, seat)


def unit_keys(config: TournamentConfig) -> list[tuple[int, int, int]]:
    """Every unit key (deal, lineup, seating), in canonical order."""
    lineups = len(config.lineups())
    seatings = len(config.seatings())
    return [
        (d, lu, s) for d in range(config.count) for lu in range(lineups) for s in range(seatings)
    ]


def seat_entrants(config: TournamentConfig, lineup: int, seating: int) -> list[int]:
    """Entrant index per seat for one (lineup, seating)."""
    members = config.lineups()[lineup]
    order = config.seatings()[seating]
    return [members[order[seat]] for seat in range(config.seats)]


def unit_header(config: TournamentConfig, key: tuple[int, int, int]) -> dict[str, Any]:
    """What a unit's key fixes: its deal seed, and the entrant, spec and seed of every seat."""
    deal, lineup, seating = key
    entrants = [config.agents[i] for i in seat_entrants(config, lineup, seating)]
    return {
        "deal": deal,
        "lineup": lineup,
        "seating": seating,
        "deal_seed": deal_seed(config.seed, deal),
        "seats": [e.name for e in entrants],
        "specs": [e.spec for e in entrants],
        "agent_seeds": [
            agent_seed(config.seed, deal, lineup, seating, seat) for seat in range(config.seats)
        ],
    }


def play_unit(
    config: TournamentConfig, runner: GameRunner, key: tuple[int, int, int]
) -> dict[str, Any]:
    """Play one unit and return everything the database stores about it."""
    from folkcards.agents import make_agent

    unit = unit_header(config, key)
    agents = [
        make_agent(spec, config.game, f"player_{seat}", seed)
        for seat, (spec, seed) in enumerate(zip(unit["specs"], unit["agent_seeds"], strict=True))
    ]
    try:
        episode = runner.play(agents, unit["deal_seed"])
    except Exception as exc:
        raise RuntimeError(
            f"deal {key[0]} (seed {unit['deal_seed']}), line-up {key[1]}, seating {key[2]} "
            f"[{', '.join(unit['seats'])}]: {exc}"
        ) from exc
    unit["result"] = [r.as_dict() for r in episode.seats]
    unit["record"] = episode.record
    unit["decision_seconds"] = episode.decision_seconds
    return unit


# --- workers -----------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _watch_parent(parent: int) -> None:
    # A pool worker whose parent was killed (kill -9) would wait forever on its task queue.
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _init_worker(config: TournamentConfig, parent: int) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _WORKER["config"] = config
    _WORKER["runner"] = make_runner(config.game, config.mode, config.num_players)


def _work(key: tuple[int, int, int]) -> dict[str, Any]:
    return play_unit(_WORKER["config"], _WORKER["runner"], key)


def _results(
    config: TournamentConfig,
    keys: Sequence[tuple[int, int, int]],
    workers: int,
    backend: str = "local",
    address: str | None = None,
) -> Iterable[dict[str, Any]]:
    """Finished units, as they finish (in any order when parallel)."""
    if backend == "ray":  # Ray tasks on a local Ray or a cluster (:mod:`.ray_backend`)
        from .ray_backend import ray_results

        yield from ray_results(config, keys, address)
        return
    if workers <= 1 or len(keys) <= 1:
        runner = make_runner(config.game, config.mode, config.num_players)
        for key in keys:
            yield play_unit(config, runner, key)
        return
    check_main_is_importable()
    ctx = mp.get_context("spawn")
    workers = min(workers, len(keys))
    chunk = max(1, min(8, len(keys) // (workers * 16)))
    pool = ctx.Pool(workers, initializer=_init_worker, initargs=(config, os.getpid()))
    try:
        yield from pool.imap_unordered(_work, keys, chunksize=chunk)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


# --- running -----------------------------------------------------------------------------------


def run(
    config: TournamentConfig,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    max_units: int | None = None,
    on_played: Callable[[int], None] | None = None,
    bootstrap: int = BOOTSTRAP,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, Any]:
    """Play the tournament's missing units, store them, and return the statistics.

    ``max_units`` stops after that many new units (for tests and partial runs); ``on_played``
    is told how many units this call played; ``bootstrap`` resamples for the behaviour
    intervals (0: none). ``backend``: ``local`` (``config.workers`` processes) or ``ray`` (Ray
    tasks on the cluster at ``address`` or a local Ray; the same stored results).
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "ray":
        require_ray("--backend ray")
    log = log or (lambda text: print(text, file=sys.stderr))
    runner = make_runner(config.game, config.mode, config.num_players)
    with Store(config.db_path) as store:
        store.open_tournament(config.identity(), config.total_units)
        done = store.done_keys()
        pending = [k for k in unit_keys(config) if k not in done]
        if max_units is not None:
            pending = pending[:max_units]
        if done and pending:
            log(
                f"resuming: {len(done)} of {config.total_units} units already stored in {config.db_path}"
            )
        if pending:
            store.add_session([Path(sys.argv[0]).name, *sys.argv[1:]], agent_versions(config))
            _play_and_store(config, store, pending, len(done), progress, backend, address)
        if on_played is not None:
            on_played(len(pending))
        return results_of_store(config, store, runner, bootstrap)


def agent_versions(config: TournamentConfig) -> dict[str, str]:
    """agent name -> what fixes its behaviour now (:func:`.document.agent_version`)."""
    from folkcards import __version__

    from .document import agent_version

    return {e.name: agent_version(e.spec, config.game, __version__) for e in config.agents}


def results_of_store(
    config: TournamentConfig, store: Store, runner: GameRunner | None = None, bootstrap: int = 0
) -> dict[str, Any]:
    """Everything ``results.json`` holds, from the database: :func:`compute_stats` plus the
    behaviour statistics, seat effects and decision times (:mod:`.behaviour`)."""
    runner = runner or make_runner(config.game, config.mode, config.num_players)
    results = compute_stats(config, list(store.units()), runner)
    full = complete_deals(config, store.units())
    names = [e.name for e in config.agents]
    seats, match = config.seats, runner.match_mode

    def units() -> Iterable[dict[str, Any]]:
        return (u for u in store.units(with_records=True) if u["deal"] in full)

    results["behaviour"] = bh.behaviour(
        config.game, seats, match, names, units(), resamples=bootstrap, seed=config.seed
    )
    results["seat_effects"] = bh.seat_effects(config.game, seats, match, names, units())
    results["method"].update(bh.method_text(config.game, bootstrap, config.unit_plural))
    results[MEASURED] = decision_times(names, store)
    return results


def reproducible_unit(unit: dict[str, Any]) -> dict[str, Any]:
    """A played unit (:func:`play_unit`) without its measured ``decision_seconds``: what the
    same config and key must reproduce on any worker."""
    return {k: v for k, v in unit.items() if k != "decision_seconds"}


def deterministic(results: dict[str, Any]) -> dict[str, Any]:
    """``results`` without the measured decision times: what equal seeds must reproduce."""
    return {k: v for k, v in results.items() if k != MEASURED}


def decision_times(names: Sequence[str], store: Store) -> dict[str, dict[str, Any]]:
    """agent -> ``{decisions, median, p95, mean, units_recorded, units}`` (seconds per decision;
    ``None`` when no unit of the agent has its times recorded)."""
    pooled: dict[str, list[float]] = {name: [] for name in names}
    recorded = dict.fromkeys(names, 0)
    seen = dict.fromkeys(names, 0)
    for seats, timing in store.decision_seconds():
        for seat, agent in enumerate(seats):
            if agent not in seen:
                continue
            seen[agent] += 1
            if timing is not None:
                recorded[agent] += 1
                pooled[agent].extend(timing[seat])
    out = {}
    for name in names:
        times = np.asarray(pooled[name], dtype=float)
        some = times.size > 0
        out[name] = {
            "decisions": int(times.size),
            "median": float(np.median(times)) if some else None,
            "p95": float(np.quantile(times, 0.95)) if some else None,
            "mean": float(times.mean()) if some else None,
            "units_recorded": recorded[name],
            "units": seen[name],
        }
    return out


def _play_and_store(
    config: TournamentConfig,
    store: Store,
    pending: list[tuple[int, int, int]],
    already: int,
    progress: bool,
    backend: str = "local",
    address: str | None = None,
) -> None:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    columns = (
        TextColumn(f"[bold]{config.game}[/] {config.unit_plural} x seatings"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not progress, transient=False) as bar:
        task = bar.add_task("units", total=config.total_units, completed=already)
        for unit in _results(config, pending, config.workers, backend, address):
            store.add_unit(unit)
            bar.advance(task)


# --- statistics --------------------------------------------------------------------------------


def complete_deals(config: TournamentConfig, units: Iterable[dict[str, Any]]) -> set[int]:
    per_deal: dict[int, int] = {}
    for unit in units:
        per_deal[unit["deal"]] = per_deal.get(unit["deal"], 0) + 1
    return {d for d, n in per_deal.items() if n == config.units_per_deal}


def _seat_values(unit: dict[str, Any], field: str) -> dict[str, float]:
    """agent -> one number of one unit's per-seat results (a win counts 1)."""
    return {a: float(r[field] or 0) for a, r in zip(unit["seats"], unit["result"], strict=True)}


def _ratings(names: list[str], units: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """openskill PlackettLuce ratings, one update per unit in the given order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    for unit in units:
        teams = [[ratings[a]] for a in unit["seats"]]
        new = model.rate(teams, scores=[float(r["rank_key"]) for r in unit["result"]])
        for a, team in zip(unit["seats"], new, strict=True):
            ratings[a] = team[0]
    return ratings


def _agent_row(
    entrant: Entrant,
    units: Sequence[dict[str, Any]],
    ci: st.Interval | None,
    rating: Any,
    win: st.WinRate | None,
    match_mode: bool,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": entrant.name,
        "spec": entrant.spec,
        "deals": ci.n if ci else 0,
        "units": sum(1 for u in units if entrant.name in u["seats"]),
        "mean": _num(ci.mean) if ci else None,
        "ci_low": _num(ci.low) if ci else None,
        "ci_high": _num(ci.high) if ci else None,
        "half_width": _num(ci.half_width) if ci else None,
        "sd": _num(ci.sd) if ci else None,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal(),
    }
    if match_mode:
        row["wins"] = sum(
            1
            for u in units
            for a, r in zip(u["seats"], u["result"], strict=True)
            if a == entrant.name and r["win"]
        )
        row["win_rate"] = _num(win.rate) if win else None
        row["win_low"] = _num(win.low) if win else None
        row["win_high"] = _num(win.high) if win else None
    return row


def _ranked(rows: list[dict[str, Any]], higher_is_better: bool) -> list[dict[str, Any]]:
    """Best mean first (agents without a mean last, in entry order); sets ``rank``."""
    sign = 1.0 if higher_is_better else -1.0
    order = sorted(
        range(len(rows)),
        key=lambda i: (-(sign * rows[i]["mean"]) if rows[i]["mean"] is not None else math.inf, i),
    )
    ranked = [rows[i] for i in order]
    for rank, row in enumerate(ranked, 1):
        row["rank"] = rank
    return ranked


def compute_stats(
    config: TournamentConfig, units: Sequence[dict[str, Any]], runner: GameRunner | None = None
) -> dict[str, Any]:
    """Statistics of the stored units (canonical order; complete deals only). JSON-serialisable."""
    runner = runner or make_runner(config.game, config.mode, config.num_players)
    full = complete_deals(config, units)
    units = sorted(
        (u for u in units if u["deal"] in full),
        key=lambda u: (u["deal"], u["lineup"], u["seating"]),
    )
    names = [e.name for e in config.agents]
    score_obs = [(u["deal"], _seat_values(u, "score")) for u in units]
    intervals = st.paired_ci_by_deal(score_obs)
    wins: dict[str, st.WinRate] = {}
    if runner.match_mode:
        wins = st.win_rate([(u["deal"], _seat_values(u, "win")) for u in units])
    ratings = _ratings(names, units)
    rows = [
        _agent_row(
            e, units, intervals.get(e.name), ratings[e.name], wins.get(e.name), runner.match_mode
        )
        for e in config.agents
    ]
    h2h = [
        {
            "a": a,
            "b": b,
            "deals": ci.n,
            "mean_diff": _num(ci.mean),
            "ci_low": _num(ci.low),
            "ci_high": _num(ci.high),
        }
        for (a, b), ci in st.head_to_head(score_obs, names).items()
    ]
    return {
        "config": config.identity(),
        "metric": runner.metric,
        "unit": config.unit_name,
        "unit_plural": config.unit_plural,
        "truncated_units": sum(1 for u in units if u["result"][0]["extra"].get("truncated")),
        "higher_is_better": runner.higher_is_better,
        "units_total": config.total_units,
        "units_stored": len(units),
        "deals_complete": len(full),
        "agents": _ranked(rows, runner.higher_is_better),
        "head_to_head": h2h,
        "method": method_text(config, runner),
    }


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def method_text(config: TournamentConfig, runner: GameRunner) -> dict[str, str]:
    unit, units = config.unit_name, config.unit_plural
    text = {
        "fairness": (
            f"duplicate play: each {unit} (fixed by a seed derived from the tournament seed) is "
            f"played by every line-up of {config.seats} agents, with the agents rotated through "
            f"{'every seat assignment' if config.seating_rule == 'all permutations' else 'the cyclic seat rotations'}"
        ),
        "score": (
            f"mean {runner.metric} ({'higher' if runner.higher_is_better else 'lower'} is better); "
            f"per agent the results of a {unit} are averaged over its rotations first, then a 95% "
            f"Student t interval over {units} (df = n - 1, exact t quantile)"
        ),
        "head_to_head": (
            f"mean paired difference A - B of {runner.metric} over the units where both sat at the "
            f"same table, averaged per {unit}, with a 95% t interval over {units}"
        ),
        "ratings": (
            "openskill PlackettLuce, one rating update per unit in canonical order (deal, line-up, "
            "seating), ranked by the unit's result; ordinal = mu - 3 sigma"
        ),
    }
    if runner.match_mode:
        text["win_rate"] = (
            f"Wilson 95% interval; one trial per {unit} seed (an agent's wins averaged over the "
            f"rotations of the {unit} first), so n = number of {units}"
        )
    return text


# --- verification ------------------------------------------------------------------------------


def config_from_db(db: str | os.PathLike[str]) -> TournamentConfig:
    """The config stored in a tournament database (``ConfigError`` if there is none)."""
    path = Path(db)
    identity = read_config(path)
    if identity is None:
        raise ConfigError(f"{path} holds no tournament")
    return from_identity(identity, path)


def _unit_problems(
    config: TournamentConfig,
    runner: GameRunner,
    unit: dict[str, Any],
    seat_rows: list[tuple[Any, ...]],
) -> list[str]:
    """How one stored unit disagrees with its replay and with the tournament's seeds and seats."""
    deal, lineup, seating = unit["deal"], unit["lineup"], unit["seating"]
    if lineup >= len(config.lineups()) or seating >= len(config.seatings()) or deal >= config.count:
        return ["not a unit of this tournament"]
    expected = unit_header(config, (deal, lineup, seating))
    problems = [
        f"{key} {unit[key]} (stored) vs {expected[key]}"
        for key in ("deal_seed", "seats")
        if unit[key] != expected[key]
    ]
    try:
        again = runner.rescore(unit["record"])
    except Exception as exc:  # noqa: BLE001 - any failure to replay is a problem of this unit
        return [*problems, f"does not replay: {exc}"]
    if again.record != unit["record"]:
        problems.append("replay differs from the stored record")
    replayed = json.loads(json.dumps([r.as_dict() for r in again.seats]))
    for seat, (new, old) in enumerate(zip(replayed, unit["result"], strict=False)):
        for key in ("score", "win", "rank_key", "extra"):
            if new.get(key) != old.get(key):
                problems.append(
                    f"player_{seat} {key} {old.get(key)!r} (stored) vs {new.get(key)!r} (replayed)"
                )
    if len(replayed) != len(unit["result"]):
        problems.append(
            f"{len(unit['result'])} seat results stored, the replay has {len(replayed)}"
        )
    stored_rows = [tuple(row) for row in seat_rows]
    rows = seat_rows_of({**expected, "result": replayed})
    for seat, row in enumerate(rows):
        if seat >= len(stored_rows) or stored_rows[seat] != row:
            stored = stored_rows[seat][1:] if seat < len(stored_rows) else "missing"
            problems.append(
                f"player_{seat} seat row (agent, spec, score, win, seed) {stored} (stored) "
                f"vs {row[1:]}"
            )
    if len(stored_rows) > len(rows):
        problems.append(f"{len(stored_rows)} seat rows stored for {len(rows)} seats")
    return problems


def verify_records(config: TournamentConfig, limit: int | None = None) -> tuple[int, list[str]]:
    """Replay every stored unit and check its record, its stored result and its seat rows (and
    its seed and seating) against the replay; returns (units checked, problems)."""
    runner = make_runner(config.game, config.mode, config.num_players)
    problems = []
    checked = 0
    with Store(config.db_path) as store:
        if store.stored_config() is None:
            return 0, [f"{config.db_path} holds no tournament"]
        seat_rows = store.seat_rows()
        for unit in store.units(with_records=True):
            if limit is not None and checked >= limit:
                break
            checked += 1
            key = (unit["deal"], unit["lineup"], unit["seating"])
            for problem in _unit_problems(config, runner, unit, seat_rows.get(key, [])):
                problems.append(f"unit {key[0]}/{key[1]}/{key[2]}: {problem}")
    return checked, problems


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
            "help": "agent specs, one per entrant (random, heuristic, ppo:PATH)",
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
        {"type": int, "metavar": "N", "help": "Tri Palki table size (default: number of agents)"},
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
            "seatings); auto (default): permutations up to 4 seats, rotations above",
        },
    ),
    (("--no-progress",), {"action": "store_true", "help": "no progress bar"}),
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


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The ``folkcards tournament`` arguments (added to ``parser`` when given)."""
    parser = parser or argparse.ArgumentParser(prog="folkcards tournament")
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for flags, kwargs in OPTIONS[:3]:  # --config, --game, --agents; then the count
        parser.add_argument(*flags, **kwargs)
    count = parser.add_mutually_exclusive_group()
    count.add_argument(
        "--deals",
        "--rounds",
        dest="deals",
        type=int,
        metavar="N",
        help="number of deals (Paston) / rounds (Tri Palki)",
    )
    count.add_argument(
        "--games",
        "--matches",
        dest="games",
        type=int,
        metavar="N",
        help="number of whole games (Paston, to 121) / matches (Tri Palki)",
    )
    for flags, kwargs in OPTIONS[3:]:
        parser.add_argument(*flags, **kwargs)
    return parser


class ArgumentLineError(Exception):
    """A command-line error, printed by the command as one line (exit code 2)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`ArgumentLineError` instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArgumentLineError(message)


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


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    return load_config(args.config, {key: getattr(args, key) for key in OVERRIDES})


def _verify_only(args: argparse.Namespace) -> bool:
    """``--verify --db FILE`` and nothing that describes a tournament: check that database."""
    given = [key for key in OVERRIDES if key != "db" and getattr(args, key) is not None]
    return bool(args.verify and args.db and not args.config and not given)


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
    from . import document, report

    played: list[int] = []
    try:
        started = time.perf_counter()
        if args.bootstrap < 0:
            raise ConfigError(f"--bootstrap must be 0 or more, got {args.bootstrap}")
        results = run(
            config,
            progress=not args.no_progress and sys.stderr.isatty(),
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
        parser = build_parser(OneLineParser(prog=prog))
        try:
            args = parser.parse_args(argv)
        except ArgumentLineError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
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
