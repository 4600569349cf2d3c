"""The gauntlet's rows: the shipped ones (package data), reading stored ones, and the rating.

**Rating.** On a scale anchored at ``random`` = 0 and the heuristic = 1000: with ``m`` the
mean over the references of the agent's advantage (the references the row and both anchor rows
share), ``rating = 1000 * (m - m_random) / (m_heuristic - m_random)`` where ``m_random`` and
``m_heuristic`` come from the anchors' own rows for the same game, table size, deal set and
pool (each anchor's row over the most deals). A linear (not logistic) scale because an
advantage is a mean score difference, additive over references; the anchors' rows are
committed and never replayed, so the scale stays put: a row measured next year against the
same pool and deals means the same. The anchors' rows give
exactly 0 and 1000 by construction; the rating interval is the interval of ``m`` on that scale
(the anchors are constants). Without both anchor rows the rating is left empty.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

ANCHORS = {"random": 0.0, "heuristic": 1000.0}  # the rating scale's two fixed points
ROW_FORMAT = 1
_ROWS_PACKAGE = "folkcards.evaluate.storage.gauntlet_data"


def shipped_rows() -> list[dict[str, Any]]:
    """The committed rows of the shipped agents (package data)."""
    folder = resources.files(_ROWS_PACKAGE).joinpath("rows")
    if not folder.is_dir():
        return []
    return [json.loads(f.read_text()) for f in sorted(folder.iterdir(), key=lambda f: f.name)
            if f.name.endswith(".json")]  # fmt: skip


def read_rows(folders: Sequence[str | Path] = ()) -> list[dict[str, Any]]:
    """The shipped rows, then every ``*.json`` row under ``folders``."""
    rows = shipped_rows()
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.json")):
            try:
                row = json.loads(path.read_text())
            except ValueError:
                continue
            if isinstance(row, dict) and row.get("format") == ROW_FORMAT and "references" in row:
                rows.append(row)
    return rows


def _same_table(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("game", "num_players", "pool", "deal_set")
    return all(a[k] == b[k] for k in keys)


def rating(row: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The row's rating on the anchored scale (module docstring), from the anchors' rows among
    ``rows`` (and the row itself if it is an anchor's); None without both anchors."""
    anchors: dict[str, dict[str, Any]] = {}
    for candidate in [*rows, row]:  # per anchor, its row over the most deals
        name = candidate["agent"]
        better = name not in anchors or candidate["deals"] > anchors[name]["deals"]
        if name in ANCHORS and _same_table(candidate, row) and better:
            anchors[name] = candidate
    if row["agent"] in ANCHORS:
        anchors[row["agent"]] = row
    if set(anchors) != set(ANCHORS):
        return None

    def advantages(r: dict[str, Any]) -> dict[str, float]:
        return {p["reference"]: p["advantage"]["mean"] for p in r["references"]}

    mine = advantages(row)
    shared = set(mine)
    for anchor in anchors.values():
        shared &= set(advantages(anchor))
    if not shared:
        return None
    low_name, high_name = sorted(ANCHORS, key=ANCHORS.__getitem__)
    m = {name: sum(advantages(a)[r] for r in shared) / len(shared) for name, a in anchors.items()}
    span = m[high_name] - m[low_name]
    if span == 0:
        return None
    low, width = ANCHORS[low_name], ANCHORS[high_name] - ANCHORS[low_name]

    def rate(value: float) -> float:
        # the fraction of the way from the low anchor to the high one: exactly 0 and 1 there
        return low + (value - m[low_name]) / span * width

    value = sum(mine[r] for r in shared) / len(shared)
    half = None
    combined = row["mean_advantage"]
    if combined["low"] is not None and len(shared) == len(mine):
        half = (combined["high"] - combined["low"]) / 2 / abs(span) * width
    return {
        "rating": rate(value),
        "low": None if half is None else rate(value) - half,
        "high": None if half is None else rate(value) + half,
        "references": sorted(shared),
    }


__all__ = ["ANCHORS", "ROW_FORMAT", "rating", "read_rows", "shipped_rows"]
