"""The SB3 callback of a training run: self-play snapshots, checkpoints, periodic evaluations
and one ``train_log.csv`` row per rollout (see :mod:`folkcards.train.ppo`)."""

from __future__ import annotations

import contextlib
import math
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents.policy_network import NumpyPolicy
from stable_baselines3.common.callbacks import BaseCallback

from .config import TrainConfig
from .evaluation import EvalResult, evaluate_model
from .run_files import (
    EVAL_FIELDS,
    TRAIN_FIELDS,
    append_csv,
    checkpoints,
    plot_learning_curve,
    snapshots,
    write_state,
)

EVAL_LOGGED = ("mean_score", "ci95", "baseline_score", "advantage", "advantage_ci95", "truncated")


@contextlib.contextmanager
def preserved_rng() -> Iterator[None]:
    """Restore the global torch, numpy and Python RNG states afterwards."""
    import torch

    state = (torch.get_rng_state(), np.random.get_state(), random.getstate())
    try:
        yield
    finally:
        torch.set_rng_state(state[0])
        np.random.set_state(state[1])
        random.setstate(state[2])


def next_multiple(steps: int, every: int) -> int:
    """The first multiple of ``every`` above ``steps`` (never, if ``every`` is 0)."""
    if every <= 0:
        return 2**62
    return (steps // every + 1) * every


def table_score(info: dict[str, Any]) -> float | None:
    """The unscaled score of a finished training episode: Paston deal_score, Tri Palki −stick."""
    if "deal_score" in info:
        return float(info["deal_score"])
    if "stick" in info:
        return -float(bool(info["stick"]))
    return None


class RunCallback(BaseCallback):
    """Snapshots, checkpoints, evaluations and per-rollout logging of one run."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir: Path,
        log: Callable[[str], None],
        save_model: Callable[[Any, TrainConfig, Path], Path],
    ) -> None:
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.log = log
        self.save_model = save_model
        self.snapshot_dir = run_dir / "snapshots"
        self.checkpoint_dir = run_dir / "checkpoints"
        self.last_eval: EvalResult | None = None
        self.last_eval_step = -1
        self._episode_rewards: list[float] = []
        self._episode_scores: list[float] = []
        self._rollout_start = time.perf_counter()
        self._timing_before: dict[str, float] = {}
        self._next = {"snapshot": 0, "checkpoint": 0, "eval": 0}

    def _every(self) -> dict[str, int]:
        run = self.config.run
        return {
            "snapshot": self.config.opponents.snapshot_every,
            "checkpoint": run.checkpoint_every,
            "eval": run.eval_every,
        }

    def _on_training_start(self) -> None:
        self._next = {k: next_multiple(self.num_timesteps, v) for k, v in self._every().items()}
        self._timing_before = self._timings()
        if self.num_timesteps == 0 and self.config.run.eval_every > 0 and self.last_eval_step != 0:
            self.evaluate()  # the learning curve starts where PPO does (after any pretraining)

    def _timings(self) -> dict[str, float]:
        timings = getattr(self.model, "timings", None) or {}
        return {
            "env": float(getattr(self.training_env, "env_seconds", 0.0)),
            "rollout": float(timings.get("rollout", 0.0)),
            "train": float(timings.get("train", 0.0)),
        }

    def _on_step(self) -> bool:
        for info, done in zip(
            self.locals.get("infos", []), self.locals.get("dones", []), strict=False
        ):
            if done and "episode" in info:
                self._episode_rewards.append(float(info["episode"]["r"]))
                score = table_score(info)
                if score is not None:
                    self._episode_scores.append(score)
        steps = self.num_timesteps
        for what, every in self._every().items():
            if every and steps >= self._next[what]:
                self._due(what)
                self._next[what] = next_multiple(steps, every)
        return True

    def _due(self, what: str) -> None:
        if what == "snapshot":
            self.take_snapshot()
        elif what == "checkpoint":
            self.checkpoint()
        else:  # within the last rollout, leave it to the final evaluation after training
            rollout = getattr(self.model, "n_steps", 0) * self.training_env.num_envs
            if self.num_timesteps + rollout <= self.config.run.total_steps:
                self.evaluate()

    def _on_rollout_start(self) -> None:
        self._rollout_start = time.perf_counter()

    def _on_rollout_end(self) -> None:
        now = self._timings()
        delta = {k: now[k] - self._timing_before.get(k, 0.0) for k in now}
        self._timing_before = now
        rewards, scores = self._episode_rewards, self._episode_scores
        mean_score = float(np.mean(scores)) if scores else math.nan
        if rewards:
            self.logger.record("rollout/table_score", mean_score)
        self.logger.record("time/env_seconds", delta["env"])
        self.logger.record("time/train_seconds_prev", delta["train"])
        self.logger.record("opponents/snapshots", len(snapshots(self.snapshot_dir)))
        rollout = self.config.algorithm.n_steps * self.training_env.num_envs
        elapsed = time.perf_counter() - self._rollout_start  # this rollout, env + inference
        if elapsed > 0:
            self.logger.record("time/env_share_of_rollout", delta["env"] / elapsed)
        row = {
            "step": self.num_timesteps,
            "episodes": len(rewards),
            "mean_reward": float(np.mean(rewards)) if rewards else math.nan,
            "mean_score": mean_score,
            "env_seconds": round(delta["env"], 4),
            "rollout_seconds": round(elapsed, 4),
            "train_seconds": round(delta["train"], 4),  # the update after the previous rollout
            "steps_per_second": round(rollout / elapsed, 1) if elapsed > 0 else math.nan,
        }
        append_csv(self.run_dir / "train_log.csv", TRAIN_FIELDS, row)
        self._episode_rewards, self._episode_scores = [], []

    def take_snapshot(self) -> Path:
        """Freeze the learner as a ``NumpyPolicy`` ``.npz`` and add it to every env's pool."""
        self.snapshot_dir.mkdir(parents=True, exist_ok=True)
        path = self.snapshot_dir / f"snapshot_{self.num_timesteps:09d}.npz"
        meta = {
            "game": self.config.env.game,
            "num_timesteps": self.num_timesteps,
            "features": self.config.env.features,
        }
        NumpyPolicy.from_sb3(self.model, meta).save(path)
        self.training_env.env_method("add_snapshot", str(path.resolve()))
        return path

    def checkpoint(self) -> Path:
        """Save ``model_<steps>.zip``, keeping the newest ``run.keep_checkpoints``."""
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        name = f"model_{self.num_timesteps:09d}.zip"
        path = self.save_model(self.model, self.config, self.checkpoint_dir / name)
        keep = self.config.run.keep_checkpoints
        stale = checkpoints(self.checkpoint_dir)[: -keep or None] if keep else []
        for step, old in stale:
            if step != self.num_timesteps:
                old.unlink(missing_ok=True)
                old.with_suffix(".json").unlink(missing_ok=True)
        write_state(self.run_dir, self.num_timesteps, path, complete=False)
        return path

    def evaluate(self) -> EvalResult | None:
        """Evaluate the learner now (``run.eval_*``); log, append to ``eval.csv``, plot."""
        config = self.config
        if config.run.eval_deals <= 0:
            return None
        with preserved_rng():  # loading a model draws from torch's RNG: keep training's intact
            result = evaluate_model(
                self.model,
                config.env.game,
                opponent=config.run.eval_opponent,
                deals=config.run.eval_deals,
                seed=config.run.eval_seed,
                env_kwargs=config.env.kwargs,
                method=config.run.eval_method,
                features=config.env.features,
            )
        self.last_eval, self.last_eval_step = result, self.num_timesteps
        for key in EVAL_LOGGED:
            self.logger.record(f"eval/{key}", getattr(result, key))
        row = {"step": self.num_timesteps, **result.as_dict()}
        append_csv(self.run_dir / "eval.csv", EVAL_FIELDS, row)
        plot_learning_curve(
            self.run_dir, f"{self.run_dir.name}: {config.env.game} vs {result.opponent}"
        )
        self.log(f"[{self.num_timesteps} steps] {result.summary()}")
        return result


__all__ = ["RunCallback", "next_multiple", "preserved_rng", "table_score"]
