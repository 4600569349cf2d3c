"""Config-driven MaskablePPO training on :class:`~folkcards.train.single_seat.SingleSeatEnv`.

:func:`train` turns a :class:`~folkcards.train.config.TrainConfig` into a run directory
``<runs_dir>/<game>-ppo-<seed>-<YYYYmmdd-HHMMSS>/``:

==========================  ===========================================================
``config.yaml``             the resolved configuration (``n_envs`` made explicit)
``model.zip``/``model.json``  the final model and its metadata (usable as ``ppo:PATH``)
``checkpoints/``            ``model_<steps>.zip`` (+ ``.json``) every ``checkpoint_every``
``snapshots/``              frozen learner policies (``.npz``) for self-play
``tb/``                     TensorBoard logs (``tensorboard --logdir runs``)
``train_log.csv``           one row per rollout: steps, episodes, mean reward and table
                            score of the training episodes, time in envs / rollout / update
``eval.csv``                the periodic evaluation vs ``run.eval_opponent`` (tournament or
                            duplicate, see :mod:`.evaluation`): score ± 95% CI, baseline,
                            advantage, share of truncated games
``learning_curve.png``      evaluation score (± 95% CI), the paired advantage over the
                            evaluation opponent (± 95% CI) and training score against steps
``pretrain.json``           with ``pretrain.expert``: the behaviour cloning's losses, its
                            agreement with the expert on held-out decisions, the samples
``state.json``              steps done, the latest checkpoint, whether the run finished
==========================  ===========================================================

**Before PPO.** With ``pretrain.expert`` set, a new run first clones the expert's decisions
(:mod:`.pretrain`); a resumed run does not repeat it.

**Resume.** ``train(config, run_dir, resume=True)`` continues a run from its newest model
(``model.zip`` or the latest checkpoint, whichever has more steps) up to ``run.total_steps``
(which may be raised), with the snapshots taken so far, and appends to the CSVs. The optimiser
state and hyper-parameters come from the saved model; the environments restart from fresh
seeds (``seed + steps done``), so a resumed run is not bit-identical to an uninterrupted one.

**Determinism.** With the same config and seed, and on the same machine/software, a run is
reproducible: torch, numpy and Python are seeded (SB3 ``set_random_seed``), each env ``i`` is
seeded ``seed + i``, torch uses ``run.torch_threads`` threads and deterministic algorithms,
self-play snapshots happen at fixed step counts, and evaluations use their own seeds and
restore the global RNG states (so ``run.eval_*`` settings do not change the training). The
vectorisation (``vec_env``, ``n_workers``) does not change a run either: env ``i`` always
has the same seed (tested: dummy and batched runs give identical weights). ``n_envs: auto``
depends on the core count, and a different rollout size changes the run: fix ``n_envs`` to
compare across machines (float results may also differ across CPUs and torch builds).
Wall-clock-dependent outputs (the run directory's name, timings, the progress bar) are the
only differences between two runs of the same config.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import json
import math
import os
import re
import time
import warnings
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents.ppo_agent import NumpyPolicy, write_sidecar
from folkcards.train.single_seat import SingleSeatEnvFactory

from .config import TrainConfig, load_config
from .evaluation import EvalResult, evaluate_model

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


# --- timing -------------------------------------------------------------------------------------


def timed_ppo_class() -> type:
    """``MaskablePPO`` that accumulates wall time in ``collect_rollouts`` and ``train``."""
    from sb3_contrib import MaskablePPO

    class TimedMaskablePPO(MaskablePPO):
        timings: dict[str, float] | None = None

        def _timing(self) -> dict[str, float]:
            if self.timings is None:
                self.timings = {"rollout": 0.0, "train": 0.0}
            return self.timings

        def collect_rollouts(self, *args: Any, **kwargs: Any) -> bool:
            start = time.perf_counter()
            try:
                return super().collect_rollouts(*args, **kwargs)
            finally:
                self._timing()["rollout"] += time.perf_counter() - start

        def train(self) -> None:
            start = time.perf_counter()
            try:
                super().train()
            finally:
                self._timing()["train"] += time.perf_counter() - start

    return TimedMaskablePPO


def timed_vec_env(venv: Any) -> Any:
    """Wrap a VecEnv so that ``.env_seconds`` accumulates time spent stepping, resetting, masking."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class TimedVecEnv(VecEnvWrapper):
        def __init__(self, venv: Any):
            super().__init__(venv)
            self.env_seconds = 0.0

        def reset(self) -> Any:
            start = time.perf_counter()
            obs = self.venv.reset()
            self.env_seconds += time.perf_counter() - start
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            start = time.perf_counter()
            self.venv.step_async(actions)
            self.env_seconds += time.perf_counter() - start

        def step_wait(self) -> Any:
            start = time.perf_counter()
            out = self.venv.step_wait()
            self.env_seconds += time.perf_counter() - start
            return out

        def env_method(
            self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
        ) -> list[Any]:
            start = time.perf_counter()
            out = self.venv.env_method(method_name, *args, indices=indices, **kwargs)
            self.env_seconds += time.perf_counter() - start
            return out

    return TimedVecEnv(venv)


# --- construction -------------------------------------------------------------------------------


def env_factory(config: TrainConfig, snapshots: tuple[str, ...] = ()) -> SingleSeatEnvFactory:
    opp = config.opponents
    return SingleSeatEnvFactory(
        game=config.env.game,
        env_kwargs=dict(config.env.kwargs),
        opponents=tuple((o.spec, o.weight) for o in opp.pool),
        max_snapshots=opp.max_snapshots,
        snapshot_deterministic=opp.snapshot_deterministic,
        per_seat=opp.per_seat,
        illegal_reward=config.env.illegal_reward,
        snapshots=snapshots,
        truncation_reward=config.env.truncation_reward,
        features=config.env.features,
        duplicate_baseline=config.env.duplicate_baseline,
        repeat_penalty=config.env.repeat_penalty,
    )


def make_vec_env(
    config: TrainConfig, snapshots: tuple[str, ...] = (), seed: int | None = None
) -> Any:
    """The vectorised training envs (``VecMonitor`` over batched/Subproc/DummyVecEnv), env ``i`` seeded ``seed + i``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from .vec_env import BatchedSubprocVecEnv

    n_envs = config.resolved_n_envs()
    fns = [env_factory(config, snapshots)] * n_envs
    kind, workers = config.resolved_vec_env()
    venv: Any
    if kind == "batched":
        venv = BatchedSubprocVecEnv(fns, n_workers=workers)
    elif kind == "subproc":
        venv = SubprocVecEnv(fns)
    else:
        venv = DummyVecEnv(fns)
    venv.seed(config.run.seed if seed is None else seed)
    return VecMonitor(venv)


def _schedule(config: TrainConfig) -> Any:
    lr = float(config.algorithm.learning_rate)
    if config.algorithm.lr_schedule == "linear":
        return lambda progress_remaining: lr * progress_remaining
    return lr


def make_model(config: TrainConfig, env: Any, tensorboard_log: str | None) -> Any:
    import torch

    alg = config.algorithm
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[alg.activation]
    net_arch = dict(alg.net_arch) if isinstance(alg.net_arch, dict) else list(alg.net_arch)
    cls = timed_ppo_class()
    return cls(
        "MlpPolicy",
        env,
        learning_rate=_schedule(config),
        n_steps=alg.n_steps,
        batch_size=alg.batch_size,
        n_epochs=alg.n_epochs,
        gamma=alg.gamma,
        gae_lambda=alg.gae_lambda,
        clip_range=alg.clip_range,
        ent_coef=alg.ent_coef,
        vf_coef=alg.vf_coef,
        max_grad_norm=alg.max_grad_norm,
        target_kl=alg.target_kl,
        normalize_advantage=alg.normalize_advantage,
        policy_kwargs={
            "net_arch": net_arch,
            "activation_fn": activation,
            "ortho_init": alg.ortho_init,
        },
        tensorboard_log=tensorboard_log,
        seed=config.run.seed,
        device="cpu",
        verbose=0,
    )


def set_determinism(config: TrainConfig) -> None:
    import torch

    torch.set_num_threads(config.run.torch_threads)
    torch.use_deterministic_algorithms(True, warn_only=True)


def model_metadata(config: TrainConfig, model: Any) -> dict[str, Any]:
    from folkcards import __version__

    return {
        "game": config.env.game,
        "env_kwargs": dict(config.env.kwargs),
        "obs_size": int(model.observation_space.shape[0]),
        "num_actions": int(model.action_space.n),
        "num_timesteps": int(model.num_timesteps),
        "features": config.env.features,
        "algorithm": "MaskablePPO",
        "folkcards_version": __version__,
    }


def save_model(model: Any, config: TrainConfig, path: Path) -> Path:
    """``model.save(path)`` plus its ``.json`` sidecar (atomic replace of both)."""
    tmp = path.with_name(path.stem + ".tmp.zip")
    model.save(str(tmp))
    os.replace(tmp, path)
    write_sidecar(path, model_metadata(config, model))
    return path


def default_run_dir(config: TrainConfig) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(config.run.runs_dir) / f"{config.env.game}-ppo-{config.run.seed}-{stamp}"


def _tensorboard_available() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


# --- CSVs and the plot -------------------------------------------------------------------------------


def _append_csv(path: Path, fields: list[str], row: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow(row)


def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _truncate_csv(path: Path, fields: list[str], max_step: int) -> None:
    rows = [r for r in _read_csv(path) if int(float(r["step"])) <= max_step]
    if not path.exists():
        return
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def plot_learning_curve(run_dir: Path, title: str = "") -> Path | None:
    """Draw ``learning_curve.png`` from ``eval.csv`` and ``train_log.csv``: the evaluation
    scores, the learner's paired advantage over the evaluation opponent (± 95% CI) and the
    training score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = _read_csv(run_dir / "eval.csv")
    train_rows = [
        r
        for r in _read_csv(run_dir / "train_log.csv")
        if r.get("mean_score") not in ("", "nan", None)
    ]
    if not evals and not train_rows:
        return None
    fig, axes = plt.subplots(3, 1, figsize=(8, 9.5), sharex=True)
    ax = axes[0]
    if evals:
        x = [int(float(r["step"])) for r in evals]
        y = np.array([float(r["mean_score"]) for r in evals])
        ci = np.nan_to_num(np.array([float(r["ci95"]) for r in evals]))
        base = np.array([float(r["baseline_score"]) for r in evals])
        method = evals[-1].get("method") or "duplicate"
        where = "at the same tables" if method == "tournament" else "in the same seats"
        ax.errorbar(x, y, yerr=ci, marker="o", capsize=3, label=f"learner ({method}, ± 95% CI)")
        ax.plot(x, base, "s--", color="grey", label=f"{evals[-1]['opponent']} {where}")
        ax.legend(loc="best", fontsize=8)
    ax.set_ylabel("evaluation score (higher is better)")
    ax.set_title(title or run_dir.name)
    ax.grid(alpha=0.3)
    ax = axes[1]
    if evals:
        x = [int(float(r["step"])) for r in evals]
        adv = np.array([float(r["advantage"]) for r in evals])
        adv_ci = np.nan_to_num(np.array([float(r["advantage_ci95"]) for r in evals]))
        ax.errorbar(x, adv, yerr=adv_ci, marker="o", capsize=3, color="tab:green")
        ax.axhline(0.0, color="grey", linewidth=1)
    ax.set_ylabel(
        f"advantage over {evals[-1]['opponent'] if evals else 'opponent'}\n(paired, ± 95% CI)"
    )
    ax.grid(alpha=0.3)
    ax = axes[2]
    if train_rows:
        x = [int(float(r["step"])) for r in train_rows]
        y = np.array([float(r["mean_score"]) for r in train_rows])
        ax.plot(x, y, alpha=0.35, label="per rollout")
        if len(y) >= 5:
            k = max(2, len(y) // 20)
            smooth = np.convolve(y, np.ones(k) / k, mode="valid")
            ax.plot(x[k - 1 :], smooth, label=f"moving mean ({k})")
        ax.legend(loc="best", fontsize=8)
    ax.set_ylabel("training score (vs pool)")
    ax.set_xlabel("environment steps")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = run_dir / "learning_curve.png"
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


# --- callbacks -------------------------------------------------------------------------------------


def make_callback(config: TrainConfig, run_dir: Path, log: Callable[[str], None]) -> Any:
    """One SB3 callback doing the snapshots, checkpoints, evaluations and per-rollout logging."""
    from stable_baselines3.common.callbacks import BaseCallback

    class RunCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.snapshot_dir = run_dir / "snapshots"
            self.checkpoint_dir = run_dir / "checkpoints"
            self.last_eval: EvalResult | None = None
            self.last_eval_step = -1
            self._episode_rewards: list[float] = []
            self._episode_scores: list[float] = []
            self._rollout_start = time.perf_counter()
            self._timing_before: dict[str, float] = {}

        def _on_training_start(self) -> None:
            steps = self.num_timesteps
            opp = config.opponents
            self._next_snapshot = _next_multiple(steps, opp.snapshot_every)
            self._next_checkpoint = _next_multiple(steps, config.run.checkpoint_every)
            self._next_eval = _next_multiple(steps, config.run.eval_every)
            self._timing_before = self._timings()

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
                    score = _table_score(info)
                    if score is not None:
                        self._episode_scores.append(score)
            steps = self.num_timesteps
            if config.opponents.snapshot_every and steps >= self._next_snapshot:
                self.take_snapshot()
                self._next_snapshot = _next_multiple(steps, config.opponents.snapshot_every)
            if config.run.checkpoint_every and steps >= self._next_checkpoint:
                self.checkpoint()
                self._next_checkpoint = _next_multiple(steps, config.run.checkpoint_every)
            if config.run.eval_every and steps >= self._next_eval:
                # within the last rollout, leave it to the final evaluation after training
                if (
                    steps + getattr(self.model, "n_steps", 0) * self.training_env.num_envs
                    <= config.run.total_steps
                ):
                    self.evaluate()
                self._next_eval = _next_multiple(steps, config.run.eval_every)
            return True

        def _on_rollout_start(self) -> None:
            self._rollout_start = time.perf_counter()

        def _on_rollout_end(self) -> None:
            now = self._timings()
            delta = {k: now[k] - self._timing_before.get(k, 0.0) for k in now}
            self._timing_before = now
            rewards = self._episode_rewards
            scores = self._episode_scores
            mean_reward = float(np.mean(rewards)) if rewards else math.nan
            mean_score = float(np.mean(scores)) if scores else math.nan
            if rewards:
                self.logger.record("rollout/table_score", mean_score)
            self.logger.record("time/env_seconds", delta["env"])
            self.logger.record("time/train_seconds_prev", delta["train"])
            self.logger.record("opponents/snapshots", len(_snapshots(self.snapshot_dir)))
            rollout = config.algorithm.n_steps * self.training_env.num_envs
            elapsed = time.perf_counter() - self._rollout_start  # this rollout, env + inference
            if elapsed > 0:
                self.logger.record("time/env_share_of_rollout", delta["env"] / elapsed)
            _append_csv(
                run_dir / "train_log.csv",
                TRAIN_FIELDS,
                {
                    "step": self.num_timesteps,
                    "episodes": len(rewards),
                    "mean_reward": mean_reward,
                    "mean_score": mean_score,
                    "env_seconds": round(delta["env"], 4),
                    "rollout_seconds": round(elapsed, 4),
                    "train_seconds": round(
                        delta["train"], 4
                    ),  # the update after the previous rollout
                    "steps_per_second": round(rollout / elapsed, 1) if elapsed > 0 else math.nan,
                },
            )
            self._episode_rewards = []
            self._episode_scores = []

        def take_snapshot(self) -> Path:
            self.snapshot_dir.mkdir(parents=True, exist_ok=True)
            path = self.snapshot_dir / f"snapshot_{self.num_timesteps:09d}.npz"
            NumpyPolicy.from_sb3(
                self.model,
                {
                    "game": config.env.game,
                    "num_timesteps": self.num_timesteps,
                    "features": config.env.features,
                },
            ).save(path)
            self.training_env.env_method("add_snapshot", str(path.resolve()))
            return path

        def checkpoint(self) -> Path:
            self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
            path = save_model(
                self.model, config, self.checkpoint_dir / f"model_{self.num_timesteps:09d}.zip"
            )
            old = (
                _checkpoints(self.checkpoint_dir)[: -config.run.keep_checkpoints or None]
                if config.run.keep_checkpoints
                else []
            )
            for step, stale in old:
                if step != self.num_timesteps:
                    stale.unlink(missing_ok=True)
                    stale.with_suffix(".json").unlink(missing_ok=True)
            _write_state(run_dir, self.num_timesteps, path, complete=False)
            return path

        def evaluate(self) -> EvalResult | None:
            if config.run.eval_deals <= 0:
                return None
            with _preserved_rng():  # loading a model draws from torch's RNG: keep training's intact
                result = self._evaluate()
            self.last_eval = result
            self.last_eval_step = self.num_timesteps
            for key in (
                "mean_score",
                "ci95",
                "baseline_score",
                "advantage",
                "advantage_ci95",
                "truncated",
            ):
                self.logger.record(f"eval/{key}", getattr(result, key))
            _append_csv(
                run_dir / "eval.csv", EVAL_FIELDS, {"step": self.num_timesteps, **result.as_dict()}
            )
            plot_learning_curve(run_dir, f"{run_dir.name}: {config.env.game} vs {result.opponent}")
            log(f"[{self.num_timesteps} steps] {result.summary()}")
            return result

        def _evaluate(self) -> EvalResult:
            return evaluate_model(
                self.model,
                config.env.game,
                opponent=config.run.eval_opponent,
                deals=config.run.eval_deals,
                seed=config.run.eval_seed,
                env_kwargs=config.env.kwargs,
                method=config.run.eval_method,
                features=config.env.features,
            )

    return RunCallback()


@contextlib.contextmanager
def _preserved_rng() -> Iterator[None]:
    """Restore the global torch, numpy and Python RNG states afterwards."""
    import random

    import torch

    state = (torch.get_rng_state(), np.random.get_state(), random.getstate())
    try:
        yield
    finally:
        torch.set_rng_state(state[0])
        np.random.set_state(state[1])
        random.setstate(state[2])


def _next_multiple(steps: int, every: int) -> int:
    if every <= 0:
        return 2**62
    return (steps // every + 1) * every


def _table_score(info: dict[str, Any]) -> float | None:
    """The unscaled score of a finished training episode: Paston deal_score, Tri Palki −stick."""
    if "deal_score" in info:
        return float(info["deal_score"])
    if "stick" in info:
        return -float(bool(info["stick"]))
    return None


def _checkpoints(directory: Path) -> list[tuple[int, Path]]:
    if not directory.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in directory.iterdir() if (m := _CHECKPOINT.search(p.name))]
    return sorted(found)


def _snapshots(directory: Path) -> list[tuple[int, Path]]:
    if not directory.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in directory.iterdir() if (m := _SNAPSHOT.search(p.name))]
    return sorted(found)


def _write_state(run_dir: Path, steps: int, model: Path, complete: bool) -> None:
    state = {"num_timesteps": steps, "model": str(model.relative_to(run_dir)), "complete": complete}
    (run_dir / "state.json").write_text(json.dumps(state, indent=2) + "\n")


def latest_model(run_dir: Path) -> tuple[int, Path] | None:
    """The saved model with the most steps in a run directory (final model or checkpoint)."""
    candidates = list(_checkpoints(run_dir / "checkpoints"))
    final = run_dir / "model.zip"
    if final.exists():
        meta = (
            json.loads(final.with_suffix(".json").read_text())
            if final.with_suffix(".json").exists()
            else {}
        )
        candidates.append((int(meta.get("num_timesteps", 0)), final))
    return max(candidates, key=lambda c: c[0]) if candidates else None


# --- the entry point --------------------------------------------------------------------------------


def train(
    config: TrainConfig,
    run_dir: str | os.PathLike[str] | None = None,
    resume: bool = False,
    log: Callable[[str], None] = print,
) -> Path:
    """Train (or resume) a run; returns the run directory. See the module docstring."""
    from stable_baselines3.common.logger import configure

    config = copy.deepcopy(config)
    config.run.n_envs = (
        config.resolved_n_envs()
    )  # saved explicitly: a resume keeps the rollout size
    run_path = Path(run_dir) if run_dir is not None else default_run_dir(config)
    if resume:
        if not (run_path / "config.yaml").exists():
            raise FileNotFoundError(f"{run_path} is not a run directory (no config.yaml)")
    elif run_path.exists() and any(run_path.iterdir()):
        raise FileExistsError(
            f"run directory {run_path} already exists and is not empty; use --resume to continue it"
        )
    run_path.mkdir(parents=True, exist_ok=True)
    run_path = run_path.resolve()
    set_determinism(config)

    start_steps = 0
    resume_from: Path | None = None
    if resume:
        found = latest_model(run_path)
        if found is not None:
            start_steps, resume_from = found
    config.save(run_path / "config.yaml")
    if start_steps >= config.run.total_steps:
        log(
            f"{run_path}: already at {start_steps} steps (total_steps {config.run.total_steps}); nothing to do"
        )
        return run_path

    snapshots = tuple(
        str(p) for step, p in _snapshots(run_path / "snapshots") if step <= start_steps
    )
    snapshots = snapshots[-config.opponents.max_snapshots :]
    for name, fields in (("eval.csv", EVAL_FIELDS), ("train_log.csv", TRAIN_FIELDS)):
        _truncate_csv(run_path / name, fields, start_steps)

    tensorboard = config.run.tensorboard and _tensorboard_available()
    if config.run.tensorboard and not tensorboard:
        warnings.warn(
            "tensorboard is not installed: no TensorBoard logs (pip install 'folkcards[train]')",
            stacklevel=2,
        )
    venv = timed_vec_env(make_vec_env(config, snapshots, seed=config.run.seed + start_steps))
    try:
        if resume_from is not None:
            cls: Any = timed_ppo_class()
            model = cls.load(str(resume_from), env=venv, device="cpu")
            model.set_random_seed(config.run.seed + start_steps)
            log(f"resuming {run_path.name} from {resume_from.name} at {start_steps} steps")
        else:
            model = make_model(config, venv, None)
            if config.pretrain.expert is not None:
                from .pretrain import pretrain

                workers = max(1, config.resolved_vec_env()[1])
                pretrain(model, config, env_factory(config), run_path, workers, log)
        model.set_logger(configure(str(run_path / "tb"), ["tensorboard"] if tensorboard else []))
        callback = make_callback(config, run_path, log)
        log(
            f"training {config.env.game} for {config.run.total_steps} steps: {config.resolved_n_envs()} envs, "
            f"run directory {run_path}"
        )
        model.learn(
            total_timesteps=config.run.total_steps - start_steps,
            callback=callback,
            log_interval=config.run.log_interval,
            tb_log_name="ppo",
            reset_num_timesteps=resume_from is None,
            progress_bar=config.run.progress_bar,
        )
        final = save_model(model, config, run_path / "model.zip")
        _write_state(run_path, int(model.num_timesteps), final, complete=True)
        if config.run.eval_deals > 0 and callback.last_eval_step != model.num_timesteps:
            callback.evaluate()
            model.logger.dump(model.num_timesteps)
        plot_learning_curve(run_path)
        timings = getattr(model, "timings", {}) or {}
        log(
            f"done: {model.num_timesteps} steps; model {final}; time in envs {venv.env_seconds:.1f} s, "
            f"rollouts {timings.get('rollout', 0.0):.1f} s, updates {timings.get('train', 0.0):.1f} s"
        )
    finally:
        venv.close()
    return run_path


def resume_run(
    run_dir: str | os.PathLike[str],
    total_steps: int | None = None,
    log: Callable[[str], None] = print,
) -> Path:
    """Resume the run in ``run_dir`` (its ``config.yaml``), optionally with a new ``total_steps``."""
    config = load_config(Path(run_dir) / "config.yaml")
    if total_steps is not None:
        config.run.total_steps = int(total_steps)
    return train(config, run_dir, resume=True, log=log)


__all__ = [
    "latest_model",
    "make_model",
    "make_vec_env",
    "plot_learning_curve",
    "resume_run",
    "save_model",
    "train",
]
