"""The statistics of a tournament, each one registered piece (:class:`Statistic`).

A statistic says how to compute its part of ``results.json`` from the stored units, the method
notes it adds, and how it is shown: its CSV columns, its plot, its terminal table and its
sections of ``report.md``. The runner (:mod:`..running.runner`), the terminal report and the
files (:mod:`..reports.export`) and ``report.md`` (:mod:`..reports.document`) go through
:func:`registered` and never name a statistic. A new statistic is one module with one :class:`Statistic` and a call to
:func:`register` (``docs/extending.md``); its per-game parts come from the game registry.
"""

from __future__ import annotations

from typing import Any

from .base import CsvTable, Results, Statistic, StatisticInput
from .behaviour import BEHAVIOUR
from .decision_times import DECISION_TIMES
from .head_to_head import HEAD_TO_HEAD
from .open_hand_accuracy import OPEN_HAND
from .scores import SCORES
from .seat_effects import SEAT_EFFECTS

_REGISTRY: dict[str, Statistic] = {}


def register(statistic: Statistic) -> Statistic:
    """Add ``statistic`` after those already registered (``ValueError`` if its key is taken)."""
    if statistic.key in _REGISTRY:
        raise ValueError(f"a statistic with key {statistic.key!r} is already registered")
    _REGISTRY[statistic.key] = statistic
    return statistic


def unregister(key: str) -> None:
    """Remove the statistic stored under ``key`` (``KeyError`` naming the keys otherwise)."""
    if key not in _REGISTRY:
        raise KeyError(f"no statistic {key!r}; registered: {', '.join(_REGISTRY)}")
    del _REGISTRY[key]


def registered() -> tuple[Statistic, ...]:
    """The registered statistics, in the order the results and the report show them."""
    return tuple(_REGISTRY.values())


def unit_statistics(config: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The per-unit values of the registered statistics for one played ``record`` (their
    ``per_unit`` hooks; what a worker stores with the unit), by key."""
    values = {}
    for statistic in _REGISTRY.values():
        if statistic.per_unit is not None:
            value = statistic.per_unit(config, record)
            if value is not None:
                values[statistic.key] = value
    return values


def measured_keys() -> frozenset[str]:
    """The results keys that are measured, not reproducible (decision times)."""
    return frozenset(s.key for s in _REGISTRY.values() if s.measured)


for _statistic in (SCORES, HEAD_TO_HEAD, BEHAVIOUR, SEAT_EFFECTS, OPEN_HAND, DECISION_TIMES):
    register(_statistic)

__all__ = [
    "CsvTable",
    "Results",
    "Statistic",
    "StatisticInput",
    "measured_keys",
    "register",
    "registered",
    "unit_statistics",
    "unregister",
]
