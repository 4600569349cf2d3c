"""Running a tournament: play the missing units, store each as it finishes, compute the results.

The units and their seeds are :mod:`.units`; where they are played, :mod:`.workers`; the
database, :mod:`..storage.database`; the statistics, the registered pieces of :mod:`..statistics`.
Statistics are computed from the database in canonical order (deal, line-up, seating), over
complete deals only (all units of the deal stored).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .. import statistics
from ..config import TournamentConfig
from ..scoring import GameRunner, make_runner
from ..storage.database import Store
from .method import fairness_text
from .progress import LOG_EVERY
from .units import unit_keys
from .workers import check_backend, unit_results

BOOTSTRAP = 1000  # default resamples of the behaviour intervals


def run(
    config: TournamentConfig,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    max_units: int | None = None,
    on_played: Callable[[int], None] | None = None,
    bootstrap: int = BOOTSTRAP,
    backend: str = "local",
    address: str | None = None,
    log_every: float = LOG_EVERY,
) -> dict[str, Any]:
    """Play the tournament's missing units, store them, and return the results.

    ``progress``: a bar when stderr is a terminal, else a line to ``log`` every ``log_every``
    seconds.
    ``max_units`` stops after that many new units (for tests and partial runs); ``on_played``
    is told how many units this call played; ``bootstrap`` resamples for the behaviour
    intervals (0: none). ``backend``: ``local`` (``config.workers`` processes) or ``ray`` (Ray
    tasks on the cluster at ``address`` or a local Ray; the same stored results).
    """
    check_backend(backend)
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
            _play_and_store(
                config, store, pending, len(done), progress, backend, address, log, log_every
            )
        if on_played is not None:
            on_played(len(pending))
        return results_of_store(config, store, runner, bootstrap)


def agent_versions(config: TournamentConfig) -> dict[str, str]:
    """agent name -> what fixes its behaviour now (:func:`..storage.versions.agent_version`)."""
    from folkcards import __version__

    from ..storage.versions import agent_version

    return {e.name: agent_version(e.spec, config.game, __version__) for e in config.agents}


def _play_and_store(
    config: TournamentConfig,
    store: Store,
    pending: list[Any],
    already: int,
    progress: bool,
    backend: str = "local",
    address: str | None = None,
    log: Callable[[str], None] | None = None,
    log_every: float = LOG_EVERY,
) -> None:
    from .progress import progress as shown

    with shown(
        config.game, config.total_units, "episodes", progress, log, log_every, already
    ) as advance:
        for unit in unit_results(config, pending, config.workers, backend, address):
            store.add_unit(unit)
            advance(1)


def complete_deals(config: TournamentConfig, units: Iterable[dict[str, Any]]) -> set[int]:
    """The deals whose every unit (line-up x seating) is among ``units``."""
    per_deal: dict[int, int] = {}
    for unit in units:
        per_deal[unit["deal"]] = per_deal.get(unit["deal"], 0) + 1
    return {d for d, n in per_deal.items() if n == config.units_per_deal}


def results_of_store(
    config: TournamentConfig, store: Store, runner: GameRunner | None = None, bootstrap: int = 0
) -> dict[str, Any]:
    """Everything ``results.json`` holds, from the database: what the tournament is, then every
    registered statistic (:mod:`..statistics`) under its key, and their method notes."""
    runner = runner or make_runner(config.game, config.mode, config.num_players)
    stored = list(store.units())
    full = complete_deals(config, stored)
    units = sorted(
        (u for u in stored if u["deal"] in full),
        key=lambda u: (u["deal"], u["lineup"], u["seating"]),
    )
    inp = statistics.StatisticInput(config, runner, store, units, frozenset(full), bootstrap)
    results: dict[str, Any] = {
        "config": config.identity(),
        "metric": runner.metric,
        "unit": config.unit_name,
        "unit_plural": config.unit_plural,
        "truncated_units": sum(1 for u in units if u["result"][0]["extra"].get("truncated")),
        "higher_is_better": runner.higher_is_better,
        "units_total": config.total_units,
        "units_stored": len(units),
        "deals_complete": len(full),
        "method": fairness_text(config),
    }
    for statistic in statistics.registered():
        results[statistic.key] = statistic.compute(inp)
        results["method"].update(statistic.method(inp))
    return results


def deterministic(results: dict[str, Any]) -> dict[str, Any]:
    """``results`` without the measured statistics (decision times): what equal seeds must
    reproduce."""
    measured = statistics.measured_keys()
    return {k: v for k, v in results.items() if k not in measured}


__all__ = [
    "BOOTSTRAP",
    "agent_versions",
    "complete_deals",
    "deterministic",
    "results_of_store",
    "run",
]
