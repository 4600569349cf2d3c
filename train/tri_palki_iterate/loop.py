"""The loop: collect, fit and gate each generation in turn, resuming where a run stopped."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ..iterate_common import results_settings
from .collect import collect
from .config import IterateConfig
from .fit import fit
from .gate import gate
from .layout import gen_dir, read_json, write_json
from .report import summarise

__all__ = ["run_iteration"]


def link_parent(config: IterateConfig, run_dir: Path) -> None:
    """Link the parent run's generations up to ``parent.generation`` into ``run_dir`` (each
    must have its gate result); ``ValueError`` in one line otherwise."""
    parent = config.parent
    if parent is None:
        return
    source = Path(parent.run_dir).resolve()
    if source == run_dir.resolve():
        raise ValueError("parent.run_dir is this run's own folder")
    for g in range(1, parent.generation + 1):
        theirs = gen_dir(source, g)
        if not (theirs / "gate" / "gate.json").is_file():
            raise ValueError(f"{theirs} has no gate result: parent.generation too high")
        ours = gen_dir(run_dir, g)
        if ours.is_symlink() and ours.resolve() == theirs:
            continue
        if ours.exists() or ours.is_symlink():
            raise ValueError(f"{ours} exists and is not the parent's generation {g}")
        ours.symlink_to(theirs, target_is_directory=True)
    if config.generations <= parent.generation:
        raise ValueError(
            f"generations ({config.generations}) must be above parent.generation "
            f"({parent.generation})"
        )


def _interval(pair: dict[str, Any]) -> str:
    if pair["ci_low"] is None:
        return "[no interval]"
    return f"[{pair['ci_low']:+.4f}, {pair['ci_high']:+.4f}]"


def claim_run_dir(config: IterateConfig, run_dir: Path) -> None:
    """Store ``config`` in ``run_dir`` (``config.json``); ``ValueError`` if the folder holds a
    run of another config, whose results it would mix."""
    run_dir.mkdir(parents=True, exist_ok=True)
    stored = read_json(run_dir / "config.json")
    current = json.loads(config.model_dump_json())
    if stored is not None:  # fields added since the run started count with their defaults
        stored = json.loads(IterateConfig.model_validate(stored).model_dump_json())
    if stored is not None and results_settings(stored) != results_settings(current):
        raise ValueError(
            f"{run_dir} holds a run of another config (config.json differs): use another run dir"
        )
    write_json(run_dir / "config.json", current)


def run_iteration(
    config: IterateConfig,
    run_dir: Path,
    log: Any = print,
    show_progress: bool = True,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """Run (or continue) the loop up to ``config.generations``; ``stop_after`` generations at
    most in this call. Returns the summary."""
    claim_run_dir(config, run_dir)
    link_parent(config, run_dir)
    done_now = 0
    for g in range(1, config.generations + 1):
        folder = gen_dir(run_dir, g)
        if (folder / "gate" / "gate.json").is_file():
            continue
        if stop_after is not None and done_now >= stop_after:
            break
        started = time.perf_counter()
        collect(config, run_dir, g, log, show_progress)
        if not (folder / "net" / "fit.json").is_file():
            log(f"generation {g}: fitting")
            metrics = fit(config, run_dir, g, lambda s: None)
            log(
                f"generation {g}: policy agrees with the search on {metrics['held_out_agreement']:.1%} "
                f"of held-out decisions (heuristic rules {metrics['held_out_heuristic_rules_agreement']:.1%}); "
                f"value log-loss {metrics['held_out_value_loss']:.4f} "
                f"(constant {metrics['held_out_constant_value_loss']:.4f})"
            )  # fmt: skip
        result = gate(config, run_dir, g, log, show_progress)
        v = result["vs_teacher"]
        log(
            f"generation {g}: {v['mean_diff']:+.4f} sticks per round against generation "
            f"{result['teacher']} {_interval(v)} over {v['rounds']} "
            f"rounds: {'passed, the new teacher' if result['accepted'] else 'not passed'} "
            f"({time.perf_counter() - started:.0f} s)"
        )
        summarise(config, run_dir)
        done_now += 1
    return summarise(config, run_dir)
