"""Expert iteration for Paston: refit the expert's evaluator to its own results, gate, repeat.

``folkcards iterate --config configs/paston/iterate.yaml``

Generation 0 is the evaluator ``start`` names (a committed one by name, ``refit`` or
``open_hand``, or a path). Each generation ``g``:

1. **Refit** (:mod:`folkcards.train.paston_evaluator_outcomes`): the expert with its teacher's
   evaluator (the last generation that passed its gate) plays itself on ``collect.chunks``
   chunks of ``collect.deals`` deals, chunk ``k`` with the generator seeded
   ``seed + (g - 1) * chunks + k``, so every generation plays fresh deals; each head is fitted
   from the teacher's weights toward the scores its choices made.
2. **Gate**: a duplicate tournament of ``expert:model=`` the new evaluator, the teacher's and
   ``gate.third`` (every seating, ``gate.deals`` deals, seed ``gate.seed + g - 1``). The new
   generation becomes the teacher when its score per deal minus the teacher's exceeds
   ``gate.margin``, with the 95% interval (paired by deal) above it too when
   ``gate.require_interval``.

Every step is stored in ``RUN_DIR/gen_NNN/`` as it finishes (the deals in chunks, the fit, the
gate's tournament database), so rerunning the command continues where a run stopped, and a
run folder holding another config is refused. ``summary.json`` lists every generation's fit
and gate; ``curves.png`` plots them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..agents.paston_expert import model_path
from .iterate_common import paired_difference, read_json, results_settings, write_json
from .paston_evaluator_outcomes import OutcomeConfig, check_expert_keys, refit
from .settings import check_agent_spec, load_flat_config

__all__ = ["PastonIterateConfig", "run_paston_iteration", "iterate_from_config"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CollectSettings(_Strict):
    deals: int = Field(5000, ge=1)  # deals per chunk
    chunks: int = Field(2, ge=1)
    workers: int = Field(1, ge=1)  # processes: the same data for any number


class FitSettings(_Strict):
    """:class:`~folkcards.train.paston_evaluator_outcomes.OutcomeConfig`'s fit keys."""

    anchor: float = Field(1.0, ge=0)
    epochs: int = Field(30, ge=1)
    lr: float = Field(3e-4, gt=0)
    batch_size: int = Field(256, ge=1)
    holdout_fraction: float = Field(0.1, gt=0, lt=1)
    min_samples: int = Field(200, ge=1)
    fit_seed: int = Field(0, ge=0)


class GateSettings(_Strict):
    deals: int = Field(2000, ge=2)
    seed: int = Field(0, ge=0)  # generation g's gate: seed + g - 1
    third: str = "pimc"  # the third seat's agent
    workers: int = Field(1, ge=1)
    margin: float = Field(0.0, ge=0)  # table points per deal the new generation must gain
    require_interval: bool = True  # the interval's lower end above the margin too


class PastonIterateConfig(_Strict):
    """``configs/paston/iterate.yaml``."""

    game: str = "paston"
    run_dir: str = "runs/iterate_paston"
    generations: int = Field(2, ge=1)
    start: str = "refit"  # generation 0's evaluator: a committed one by name, or a path
    expert: str = ""  # the expert's other spec keys, in the deals and the gates (e.g. samples=16)
    seed: int = Field(0, ge=0)
    collect: CollectSettings = Field(default_factory=lambda: CollectSettings.model_validate({}))
    fit: FitSettings = Field(default_factory=lambda: FitSettings.model_validate({}))
    gate: GateSettings = Field(default_factory=lambda: GateSettings.model_validate({}))

    @field_validator("game")
    @classmethod
    def _game(cls, game: str) -> str:
        if game != "paston":
            raise ValueError(f"this loop plays paston, got {game!r}")
        return game

    @field_validator("expert")
    @classmethod
    def _expert_keys(cls, value: str) -> str:
        return check_expert_keys(value)

    @field_validator("gate")
    @classmethod
    def _third(cls, gate: GateSettings) -> GateSettings:
        check_agent_spec(gate.third, "gate.third")
        return gate


# --- a run's folder ------------------------------------------------------------------------------


def gen_dir(run_dir: Path, g: int) -> Path:
    return run_dir / f"gen_{g:03d}"


def evaluator_path(config: PastonIterateConfig, run_dir: Path, g: int) -> Path:
    """Generation ``g``'s evaluator file (0: ``start``'s)."""
    if g == 0:
        return model_path(config.start).resolve()
    return (gen_dir(run_dir, g) / "paston_evaluator.npz").resolve()


def teacher_of(run_dir: Path, g: int) -> int:
    """The last generation before ``g`` that passed its gate (0 when none did)."""
    teacher = 0
    for k in range(1, g):
        gate = read_json(gen_dir(run_dir, k) / "gate.json")
        if gate is not None and gate["accepted"]:
            teacher = k
    return teacher


# --- the steps -----------------------------------------------------------------------------------


def outcome_config(config: PastonIterateConfig, run_dir: Path, g: int) -> OutcomeConfig:
    """Generation ``g``'s refit: from its teacher's evaluator, on its own deals."""
    folder = gen_dir(run_dir, g)
    teacher = teacher_of(run_dir, g)
    return OutcomeConfig(
        # generation 0 as `start` names it (an evaluator's sidecar then names it so too)
        base=config.start if teacher == 0 else str(evaluator_path(config, run_dir, teacher)),
        expert=config.expert,
        deals=config.collect.deals,
        chunks=config.collect.chunks,
        seed=config.seed + (g - 1) * config.collect.chunks,
        workers=config.collect.workers,
        data_dir=str(folder / "data"),
        out=str(folder / "paston_evaluator.npz"),
        **config.fit.model_dump(),
    )


def gate_agents(
    config: PastonIterateConfig, run_dir: Path, g: int, teacher: int
) -> list[dict[str, str]]:
    """The gate's line-up: the new generation, its teacher and the third agent."""
    keys = f",{config.expert}" if config.expert else ""
    return [
        {"name": f"gen{g}", "spec": f"expert:model={evaluator_path(config, run_dir, g)}{keys}"},
        {"name": f"gen{teacher}",
         "spec": f"expert:model={evaluator_path(config, run_dir, teacher)}{keys}"},
        {"name": config.gate.third, "spec": config.gate.third},
    ]  # fmt: skip


def _pair(results: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    """``a``'s table points per deal minus ``b``'s, with the paired 95% interval."""
    pair = paired_difference(results, a, b, "deals")
    if pair is None:
        raise ValueError(f"the gate's results have no pair {a} - {b}")
    return pair


def passes(versus: dict[str, Any], gate: GateSettings) -> bool:
    """Whether the new generation's gain over its teacher passes the gate."""
    return versus["mean_diff"] > gate.margin and (
        not gate.require_interval or versus["ci_low"] > gate.margin
    )


def gate(config: PastonIterateConfig, run_dir: Path, g: int, log: Any, progress: bool) -> dict:
    """Generation ``g``'s duplicate match against its teacher; ``gate.json``."""
    from ..evaluate.config import resolve
    from ..evaluate.running.runner import run

    folder = gen_dir(run_dir, g)
    teacher = teacher_of(run_dir, g)
    agents = gate_agents(config, run_dir, g, teacher)
    seed = config.gate.seed + g - 1
    out = folder / "gate"
    log(f"generation {g}: gate, {config.gate.deals} deals against generation {teacher}")
    tournament = resolve(
        {
            "game": "paston",
            "deals": config.gate.deals,
            "seed": seed,
            "agents": agents,
            "workers": config.gate.workers,
            "out": str(out),
            "open_hand": False,
        }  # fmt: skip
    )
    results = run(tournament, progress=progress, log=log, bootstrap=0)
    new, old, third = (a["name"] for a in agents)
    versus = _pair(results, new, old)
    times = results.get("decision_times", {})
    summary = {
        "generation": g,
        "teacher": teacher,
        "accepted": passes(versus, config.gate),
        "vs_teacher": versus,
        "vs_third": _pair(results, new, third),
        "teacher_vs_third": _pair(results, old, third),
        "third": third,
        "seed": seed,
        "median_decision_seconds": {k: v.get("median") for k, v in times.items()},
        "command": (
            "folkcards tournament --game paston --agents "
            + " ".join(f"'{a['spec']}'" for a in agents)
            + f" --deals {config.gate.deals} --seed {seed} --out {out}"
        ),
    }
    write_json(folder / "gate.json", summary)
    return summary


# --- the loop ------------------------------------------------------------------------------------


def run_paston_iteration(
    config: PastonIterateConfig, log: Any = print, show_progress: bool = True
) -> dict[str, Any]:
    """Run (or continue) the loop up to ``config.generations``; returns the summary."""
    run_dir = Path(config.run_dir)
    if not evaluator_path(config, run_dir, 0).is_file():
        raise ValueError(f"start: no evaluator file at {config.start!r}")
    run_dir.mkdir(parents=True, exist_ok=True)
    stored = read_json(run_dir / "config.json")
    current = config.model_dump()
    if stored is not None and results_settings(stored) != results_settings(current):
        raise ValueError(f"{run_dir} holds a run of another config: use another run_dir")
    write_json(run_dir / "config.json", current)
    for g in range(1, config.generations + 1):
        folder = gen_dir(run_dir, g)
        if (folder / "gate.json").is_file():
            continue
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / "paston_evaluator.npz").is_file():
            log(f"generation {g}: refit from generation {teacher_of(run_dir, g)}")
            refit(outcome_config(config, run_dir, g), log)
        result = gate(config, run_dir, g, log, show_progress)
        v = result["vs_teacher"]
        log(
            f"generation {g}: {v['mean_diff']:+.2f} table points per deal against generation "
            f"{result['teacher']} [{v['ci_low']:+.2f}, {v['ci_high']:+.2f}] over {v['deals']} "
            f"deals: {'passed, the new teacher' if result['accepted'] else 'not passed'}"
        )
        summarise(config, run_dir)
    return summarise(config, run_dir)


def summarise(config: PastonIterateConfig, run_dir: Path) -> dict[str, Any]:
    """``summary.json`` (every generation's fit and gate so far) and ``curves.png``."""
    rows = []
    for g in range(1, config.generations + 1):
        folder = gen_dir(run_dir, g)
        sidecar = read_json(folder / "paston_evaluator.json")
        fit = None if sidecar is None else sidecar["refitted_to_outcomes"]["heads"]
        rows.append({"generation": g, "fit": fit, "gate": read_json(folder / "gate.json")})
    summary = {"config": config.model_dump(), "generations": rows}
    write_json(run_dir / "summary.json", summary)
    plot_summary(summary, run_dir / "curves.png")
    return summary


def plot_summary(summary: dict[str, Any], path: Path) -> None:
    """The gates (new − teacher, new − third, with 95% intervals) and each head's held-out
    error on the chosen outputs before and after each generation's fit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in summary["generations"] if r["fit"]]
    generations = [r["generation"] for r in rows] or [1]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax in axes:
        ax.set_xticks(generations)
        ax.set_xlim(min(generations) - 0.5, max(generations) + 0.5)
    ax = axes[0]
    third = summary["config"]["gate"]["third"]
    for offset, key, label in ((-0.05, "vs_teacher", "new - teacher"),
                               (0.05, "vs_third", f"new - {third}")):  # fmt: skip
        pairs = [(r["generation"], r["gate"][key]) for r in rows if r["gate"]]
        if pairs:
            ax.errorbar(
                [g + offset for g, _ in pairs], [p["mean_diff"] for _, p in pairs],
                yerr=[[p["mean_diff"] - p["ci_low"] for _, p in pairs],
                      [p["ci_high"] - p["mean_diff"] for _, p in pairs]],
                marker="o", capsize=3, label=label,
            )  # fmt: skip
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("generation")
    ax.set_ylabel("table points per deal, 95% interval")
    ax.set_title("gates (duplicate, every seating)")
    ax.legend(fontsize=8)
    ax = axes[1]
    for head in ("declare", "contract", "whist"):
        points = [(r["generation"], r["fit"].get(head)) for r in rows]
        points = [(g, f) for g, f in points if f and "held_out_mse_chosen_after" in f]
        if points:
            line = ax.plot([g for g, _ in points],
                           [f["held_out_mse_chosen_after"] for _, f in points],
                           marker="o", label=f"{head}: after")  # fmt: skip
            ax.plot([g for g, _ in points], [f["held_out_mse_chosen_before"] for _, f in points],
                    marker="x", ls="--", color=line[0].get_color(), label=f"{head}: before")  # fmt: skip
    ax.set_xlabel("generation")
    ax.set_ylabel("held-out squared error, chosen outputs")
    ax.set_title("fit")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def iterate_from_config(
    path: str, run_dir: str | None, generations: int | None, log: Any, show_progress: bool
) -> tuple[int, int, str]:
    """``folkcards iterate`` for Paston: ``(generations gated, generations, run dir)``."""
    config = load_flat_config(PastonIterateConfig, path, run_dir=run_dir, generations=generations)
    summary = run_paston_iteration(config, log, show_progress)
    done = sum(1 for r in summary["generations"] if r["gate"])
    return done, config.generations, config.run_dir
