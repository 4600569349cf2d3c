"""What every game's expert-iteration loop shares: its run folder's JSON files and which of a
config's fields decide the results (so a resumed run refuses another config)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["paired_difference", "read_json", "results_settings", "write_json"]


def write_json(path: Path, data: Any) -> None:
    """Write atomically (a step is done when its file exists)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def results_settings(config: dict[str, Any]) -> dict[str, Any]:
    """A config's fields that decide the results: all but ``generations`` (which may be raised
    to continue) and the ``collect`` and ``gate`` steps' numbers of processes (the same
    results for any)."""
    kept = {k: v for k, v in config.items() if k != "generations"}
    for step in ("collect", "gate"):
        kept[step] = {k: v for k, v in kept[step].items() if k != "workers"}
    return kept


def paired_difference(results: dict[str, Any], a: str, b: str, count: str) -> dict[str, Any] | None:
    """``a``'s score per deal minus ``b``'s in a tournament's results, with the paired 95%
    interval (``None`` ends when there were too few deals for one), and the number of deals
    under the key ``count``; ``None`` when the results have no such pair."""
    for row in results["head_to_head"]:
        if {row["a"], row["b"]} == {a, b}:
            sign = 1 if row["a"] == a else -1
            if row["ci_low"] is None:
                low = high = None
            else:
                low, high = sorted((sign * row["ci_low"], sign * row["ci_high"]))
            return {"mean_diff": sign * row["mean_diff"], "ci_low": low, "ci_high": high,
                    count: row["deals"]}  # fmt: skip
    return None
