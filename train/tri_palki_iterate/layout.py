"""A run's folder: each generation's files, which generations passed, and each step's seed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..iterate_common import read_json, write_json
from .config import IterateConfig

__all__ = ["read_json", "write_json"]  # a run folder's files, as every loop writes them


def step_seed(config: IterateConfig, *path: int) -> int:
    """A 63-bit seed for one step (and chunk) of one generation, from the config's seed."""
    words = np.random.SeedSequence([config.seed, *path]).generate_state(2, dtype=np.uint32)
    return int(words[0]) << 31 ^ int(words[1])


COLLECT_STEP, FIT_STEP, GATE_STEP, REPORT_STEP = range(4)


def gen_dir(run_dir: Path, g: int) -> Path:
    return run_dir / f"gen_{g:03d}"


def passed_generations(run_dir: Path, before: int) -> list[int]:
    """The generations before ``before`` that passed their gate, in order (0 is always in)."""
    passed = [0]
    for g in range(1, before):
        gate = read_json(gen_dir(run_dir, g) / "gate" / "gate.json")
        if gate is not None and gate["accepted"]:
            passed.append(g)
    return passed


def net_folder(run_dir: Path, g: int) -> str | None:
    """Generation ``g``'s network folder (``None`` for generation 0: the heuristic's rules)."""
    return None if g == 0 else str((gen_dir(run_dir, g) / "net").resolve())
