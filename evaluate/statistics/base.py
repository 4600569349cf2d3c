"""What a tournament statistic is: one registered piece that computes its part of
``results.json`` and says how to show it (its CSV columns, its plot, its terminal table and its
section of ``report.md``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import TournamentConfig
from ..scoring import GameRunner
from ..storage.database import Store

Results = dict[str, Any]  # results.json: the JSON form every reader (report, plots, web) takes


@dataclass(frozen=True)
class StatisticInput:
    """What every statistic is computed from: the tournament and its complete deals."""

    config: TournamentConfig
    runner: GameRunner  # the game's metric, direction and mode
    store: Store
    units: list[dict[str, Any]]  # stored units of complete deals, canonical order, no records
    complete: frozenset[int]  # the deals whose every unit is stored
    bootstrap: int = 0  # resamples for bootstrap intervals (0: none)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.config.agents]

    def units_with_records(self) -> Iterator[dict[str, Any]]:
        """The units of complete deals with their records and the per-unit values the workers
        computed (``unit["statistics"]``, ``{}`` when none were stored), canonical order."""
        return (
            u
            for u in self.store.units(with_records=True, with_statistics=True)
            if u["deal"] in self.complete
        )


@dataclass(frozen=True)
class CsvTable:
    """One CSV file of a statistic: its header and its rows, from the results."""

    filename: str
    columns: Callable[[Results], Sequence[str]]
    rows: Callable[[Results], Iterable[Sequence[Any]]]


def _no_method(_: StatisticInput) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class Statistic:
    """One statistic of a tournament. Register it with :func:`folkcards.evaluate.statistics.register`.

    ``compute`` gives the JSON value stored as ``results[key]``; ``method`` the notes it adds to
    ``results["method"]`` (how it is computed); the rest show it, each optional: ``csv`` files,
    a ``plot`` written to ``plot_file``, a ``console`` table (a rich renderable) and
    ``sections`` of ``report.md`` (title, Markdown lines). A ``measured`` statistic (timings)
    differs between runs and is left out of every reproducibility check. ``per_unit``
    (optional) is the part of the work done where a unit is played: ``per_unit(config,
    record)`` runs in the worker right after the episode and its JSON value is stored with the
    unit (``unit["statistics"][key]``), so that ``compute`` only adds up; it must depend on the
    record alone (``None``: nothing to store for this unit).
    """

    key: str
    compute: Callable[[StatisticInput], Any]
    method: Callable[[StatisticInput], dict[str, str]] = _no_method
    csv: tuple[CsvTable, ...] = ()
    plot: Callable[[Results, Path], Path] | None = None
    plot_file: str | None = None
    console: Callable[[Results], Any] | None = None
    sections: tuple[tuple[str, Callable[[Results], list[str]]], ...] = ()
    measured: bool = False
    per_unit: Callable[[TournamentConfig, dict[str, Any]], Any] | None = None

    def applies(self, results: Results) -> bool:
        """Whether the statistic applies to this tournament's game: its ``compute`` answers
        ``None`` where it does not (e.g. open-hand accuracy for a game without a solver); an
        older file without the key shows the section as not available."""
        return not (self.key in results and results[self.key] is None)

    def available(self, results: Results) -> bool:
        """Whether the results hold this statistic (an older file may not)."""
        return bool(results.get(self.key))
