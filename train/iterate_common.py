"""What every game's expert-iteration loop shares: its run folder's JSON files and which of a
config's fields decide the results (so a resumed run refuses another config)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["read_json", "results_settings", "write_json"]


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
