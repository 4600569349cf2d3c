"""``folkcards iterate`` for Tri Palki (the registry's ``expert_iteration``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .compact import compact
from .config import load_iterate_config
from .loop import run_iteration

__all__ = ["iterate_from_config"]


def iterate_from_config(
    path: str, run_dir: str | None, generations: int | None, log: Any, show_progress: bool
) -> tuple[int, int, str]:
    """``folkcards iterate`` for Tri Palki: ``(generations gated, generations, run dir)``."""
    config = load_iterate_config(path, run_dir=run_dir, generations=generations)
    if config.compact is not None:  # one step: a smaller network for the same search
        compact(config, Path(config.run_dir), log)
        return 1, 1, config.run_dir
    summary = run_iteration(config, Path(config.run_dir), log, show_progress=show_progress)
    done = [r for r in summary["generations"] if r["gate"]]
    return len(done), config.generations, config.run_dir
