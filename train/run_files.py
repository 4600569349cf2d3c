"""The files of a run directory: the CSV logs, ``state.json``, checkpoints and snapshots found on
disk, and the learning curve drawn in :mod:`folkcards.evaluate.plot`'s house style."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

EVAL_FIELDS = [
    "step",
    "method",
    "opponent",
    "deals",
    "mean_score",
    "ci95",
    "baseline_score",
    "baseline_ci95",
    "advantage",
    "advantage_ci95",
    "truncated",
    "seconds",
]
TRAIN_FIELDS = [
    "step",
    "episodes",
    "mean_reward",
    "mean_score",
    "env_seconds",
    "rollout_seconds",
    "train_seconds",
    "steps_per_second",
]
_CHECKPOINT = re.compile(r"model_(\d+)\.zip$")
_SNAPSHOT = re.compile(r"snapshot_(\d+)\.npz$")


def append_csv(path: Path, fields: list[str], row: dict[str, Any]) -> None:
    """Append ``row`` to a CSV (its header written first if the file is new)."""
    new = not path.exists()
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow(row)


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV; none if it does not exist."""
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def truncate_csv(path: Path, fields: list[str], max_step: int) -> None:
    """Drop the rows after ``max_step`` (a resumed run writes them again)."""
    if not path.exists():
        return
    rows = [r for r in read_csv(path) if int(float(r["step"])) <= max_step]
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def _numbered(directory: Path, pattern: re.Pattern[str]) -> list[tuple[int, Path]]:
    if not directory.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in directory.iterdir() if (m := pattern.search(p.name))]
    return sorted(found)


def checkpoints(directory: Path) -> list[tuple[int, Path]]:
    """``(steps, path)`` of every ``model_<steps>.zip`` in ``directory``, oldest first."""
    return _numbered(directory, _CHECKPOINT)


def snapshots(directory: Path) -> list[tuple[int, Path]]:
    """``(steps, path)`` of every ``snapshot_<steps>.npz`` in ``directory``, oldest first."""
    return _numbered(directory, _SNAPSHOT)


def write_state(run_dir: Path, steps: int, model: Path, complete: bool) -> None:
    """``state.json``: steps done, the latest model, whether the run finished."""
    state = {"num_timesteps": steps, "model": str(model.relative_to(run_dir)), "complete": complete}
    (run_dir / "state.json").write_text(json.dumps(state, indent=2) + "\n")


def latest_model(run_dir: Path) -> tuple[int, Path] | None:
    """The saved model with the most steps in a run directory (final model or checkpoint)."""
    candidates = checkpoints(run_dir / "checkpoints")
    final = run_dir / "model.zip"
    if final.exists():
        sidecar = final.with_suffix(".json")
        meta = json.loads(sidecar.read_text()) if sidecar.exists() else {}
        candidates.append((int(meta.get("num_timesteps", 0)), final))
    return max(candidates, key=lambda c: c[0]) if candidates else None


def _column(rows: list[dict[str, str]], key: str) -> np.ndarray:
    return np.array([float(r[key]) for r in rows])


def _metric(game: str | None) -> tuple[float, str]:
    """The sign that turns a stored (higher-is-better) evaluation score into the game's own
    metric, and the metric's words, as a tournament reports them (the registry's)."""
    from folkcards.envs.registry import GAMES

    spec = GAMES.get(game or "")
    if spec is None:
        return 1.0, "score (higher is better)"
    direction = "higher is better" if spec.higher_is_better else "lower is better"
    return (1.0 if spec.higher_is_better else -1.0), f"{spec.modes[0].metric} ({direction})"


def plot_learning_curve(run_dir: Path, title: str = "") -> Path | None:
    """Draw ``learning_curve.png`` from ``eval.csv`` and ``train_log.csv``: the evaluation
    scores, the learner's paired advantage over the evaluation opponent (± 95% CI) and the
    training score, side by side against the steps."""
    from folkcards.evaluate.plot import COLOURS, new_figure, save, style

    evals = read_csv(run_dir / "eval.csv")
    train_rows = [
        r
        for r in read_csv(run_dir / "train_log.csv")
        if r.get("mean_score") not in ("", "nan", None)
    ]
    if not evals and not train_rows:
        return None
    fig, axes = new_figure(5.0, 3.6, panels=3)
    opponent = evals[-1]["opponent"] if evals else "opponent"
    sign, metric = _metric(evals[-1].get("game") if evals else None)
    if evals:
        steps = _column(evals, "step")
        method = evals[-1].get("method") or "duplicate"
        where = "at the same tables" if method == "tournament" else "in the same seats"
        ci = np.nan_to_num(_column(evals, "ci95"))
        axes[0].errorbar(
            steps,
            sign * _column(evals, "mean_score"),
            yerr=ci,
            fmt="o-",
            color=COLOURS[0],
            capsize=4,
            label=f"learner ({method}, ± 95% CI)",
        )
        axes[0].plot(
            steps,
            sign * _column(evals, "baseline_score"),
            "s--",
            color="0.6",
            label=f"{opponent} {where}",
        )
        axes[0].legend(loc="best", fontsize=8)
        adv_ci = np.nan_to_num(_column(evals, "advantage_ci95"))
        axes[1].errorbar(
            steps,
            sign * _column(evals, "advantage"),
            yerr=adv_ci,
            fmt="o-",
            color=COLOURS[1],
            capsize=4,
        )
        axes[1].axhline(0.0, color="0.6", linewidth=0.8, linestyle="--")
    axes[0].set_ylabel(f"evaluation: {metric}")
    style(axes[0], title or run_dir.name)
    axes[1].set_ylabel(f"advantage over {opponent} (paired, ± 95% CI)")
    style(axes[1], "advantage")
    if train_rows:
        steps = _column(train_rows, "step")
        scores = _column(train_rows, "mean_score")
        axes[2].plot(steps, scores, alpha=0.35, color=COLOURS[0], label="per rollout")
        if len(scores) >= 5:
            k = max(2, len(scores) // 20)
            smooth = np.convolve(scores, np.ones(k) / k, mode="valid")
            axes[2].plot(steps[k - 1 :], smooth, color=COLOURS[2], label=f"moving mean ({k})")
        axes[2].legend(loc="best", fontsize=8)
    axes[2].set_ylabel("training score (vs pool)")
    style(axes[2], "training")
    for ax in axes:
        ax.set_xlabel("environment steps")
    return save(fig, run_dir / "learning_curve.png")


__all__ = [
    "EVAL_FIELDS",
    "TRAIN_FIELDS",
    "append_csv",
    "checkpoints",
    "latest_model",
    "plot_learning_curve",
    "read_csv",
    "snapshots",
    "truncate_csv",
    "write_state",
]
