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

**Engines.** ``run.engine: aec`` (the default) steps ``n_envs``
:class:`~folkcards.train.single_seat.SingleSeatEnv`'s (``vec_env``, ``n_workers``);
``run.engine: batched`` plays ``n_envs`` games on one batched engine with batched opponents
(:class:`~folkcards.train.batched_training_env.BatchedSingleSeatVecEnv`, the same rewards,
opponent pool, self-play snapshots and duplicate baseline), for the games, options and opponent
kinds it supports (the config refuses the others).

**Before PPO.** With ``pretrain.expert`` set, a new run first clones the expert's decisions
(:mod:`.pretrain`); a resumed run does not repeat it. With ``run.total_steps: 0`` the run is
behaviour cloning only (distillation of a search player into a network, e.g.
``configs/paston/distill.yaml``): the cloned network is saved as ``model.zip`` and evaluated, and
no PPO update follows.

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

import copy
import os
import time
import warnings
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents.policy_files import write_sidecar
from folkcards.envs.registry import game_spec

from .callback import RunCallback
from .config import ConfigError, TrainConfig, load_config
from .run_files import (
    EVAL_FIELDS,
    TRAIN_FIELDS,
    latest_model,
    plot_learning_curve,
    truncate_csv,
    write_state,
)
from .run_files import (
    snapshots as snapshot_files,
)
from .single_seat import SingleSeatEnvFactory

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


def _single_seat_kwargs(config: TrainConfig, snapshots: tuple[str, ...]) -> dict[str, Any]:
    """The settings both single-seat training envs (per game and batched) take from a config."""
    opp = config.opponents
    return dict(
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


def env_factory(config: TrainConfig, snapshots: tuple[str, ...] = ()) -> SingleSeatEnvFactory:
    return SingleSeatEnvFactory(**_single_seat_kwargs(config, snapshots))


def batched_vec_env(config: TrainConfig, snapshots: tuple[str, ...] = ()) -> Any:
    """The ``run.engine: batched`` training env: ``n_envs`` games on one batched engine."""
    from .batched_training_env import BatchedSingleSeatVecEnv

    return BatchedSingleSeatVecEnv(
        num_envs=config.resolved_n_envs(),
        tables=config.env.tables,
        **_single_seat_kwargs(config, snapshots),
    )


def make_vec_env(
    config: TrainConfig, snapshots: tuple[str, ...] = (), seed: int | None = None
) -> Any:
    """The vectorised training envs (``VecMonitor`` over batched/Subproc/DummyVecEnv), env ``i``
    seeded ``seed + i``; with ``run.engine: batched`` the batched single-seat env instead."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from .vec_env import BatchedSubprocVecEnv

    n_envs = config.resolved_n_envs()
    if config.run.engine == "batched":
        batched = batched_vec_env(config, snapshots)
        batched.seed(config.run.seed if seed is None else seed)
        return VecMonitor(batched)
    fns: list[Callable[[], Any]] = [env_factory(config, snapshots)] * n_envs
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


PPO_HYPERPARAMETERS = (
    "n_steps",
    "batch_size",
    "n_epochs",
    "gamma",
    "gae_lambda",
    "clip_range",
    "ent_coef",
    "vf_coef",
    "max_grad_norm",
    "target_kl",
    "normalize_advantage",
)


def ppo_hyperparameters(alg: Any) -> dict[str, Any]:
    """MaskablePPO's keyword arguments from an ``algorithm`` group, the learning rate and the
    network excepted (each caller sets those)."""
    return {name: getattr(alg, name) for name in PPO_HYPERPARAMETERS}


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
        **ppo_hyperparameters(alg),
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


# --- the entry point --------------------------------------------------------------------------------


def train(
    config: TrainConfig,
    run_dir: str | os.PathLike[str] | None = None,
    resume: bool = False,
    log: Callable[[str], None] = print,
) -> Path:
    """Train (or resume) a run; returns the run directory. See the module docstring."""
    config = copy.deepcopy(config)
    config.run.n_envs = config.resolved_n_envs()  # saved explicitly: a resume keeps the rollout
    run_path = _run_directory(config, run_dir, resume)
    set_determinism(config)
    found = latest_model(run_path) if resume else None
    start_steps, resume_from = found if found is not None else (0, None)
    config.save(run_path / "config.yaml")
    if resume_from is not None and start_steps >= config.run.total_steps:
        log(
            f"{run_path}: already at {start_steps} steps (total_steps "
            f"{config.run.total_steps}); nothing to do"
        )
        return run_path
    kept = [str(p) for step, p in snapshot_files(run_path / "snapshots") if step <= start_steps]
    for name, fields in (("eval.csv", EVAL_FIELDS), ("train_log.csv", TRAIN_FIELDS)):
        truncate_csv(run_path / name, fields, start_steps)
    venv = timed_vec_env(
        make_vec_env(
            config,
            tuple(kept[-config.opponents.max_snapshots :]),
            seed=config.run.seed + start_steps,
        )
    )
    try:
        model = _start_model(config, venv, run_path, resume_from, start_steps, log)
        callback = RunCallback(config, run_path, log, save_model)
        if config.run.total_steps == 0:
            log(f"behaviour cloning only (run.total_steps 0): run directory {run_path}")
            callback.init_callback(model)
            _finish(model, callback, config, run_path, venv, log)
            return run_path
        log(
            f"training {config.env.game} for {config.run.total_steps} steps: "
            f"{config.resolved_n_envs()} envs, run directory {run_path}"
        )
        model.learn(
            total_timesteps=config.run.total_steps - start_steps,
            callback=callback,
            log_interval=config.run.log_interval,
            tb_log_name="ppo",
            reset_num_timesteps=resume_from is None,
            progress_bar=config.run.progress_bar,
        )
        _finish(model, callback, config, run_path, venv, log)
    finally:
        venv.close()
    return run_path


def _run_directory(config: TrainConfig, run_dir: Any, resume: bool) -> Path:
    """The run directory, created (a new run needs it empty; a resumed one its config)."""
    run_path = Path(run_dir) if run_dir is not None else default_run_dir(config)
    if resume:
        if not (run_path / "config.yaml").exists():
            raise FileNotFoundError(f"{run_path} is not a run directory (no config.yaml)")
    elif run_path.exists() and any(run_path.iterdir()):
        raise FileExistsError(
            f"run directory {run_path} already exists and is not empty; use --resume to continue it"
        )
    run_path.mkdir(parents=True, exist_ok=True)
    return run_path.resolve()


def _start_model(
    config: TrainConfig,
    venv: Any,
    run_path: Path,
    resume_from: Path | None,
    start_steps: int,
    log: Callable[[str], None],
) -> Any:
    """The model to train: loaded to resume, else new (and behaviour-cloned if configured),
    logging to ``tb/``."""
    from stable_baselines3.common.logger import configure

    if resume_from is not None:
        cls: Any = timed_ppo_class()
        model = cls.load(str(resume_from), env=venv, device="cpu")
        model.set_random_seed(config.run.seed + start_steps)
        log(f"resuming {run_path.name} from {resume_from.name} at {start_steps} steps")
    else:
        model = make_model(config, venv, None)
        if config.pretrain.start_model is not None:
            path = start_model_path(config.pretrain.start_model, config.env.game)
            copy_network(path, model, config)
            log(f"starting from the network of {path}")
        if config.pretrain.expert is not None:
            from .pretrain import pretrain

            workers = max(1, config.resolved_vec_env()[1])
            pretrain(model, config, env_factory(config), run_path, workers, log)
    tensorboard = config.run.tensorboard and _tensorboard_available()
    if config.run.tensorboard and not tensorboard:
        warnings.warn(
            "tensorboard is not installed: no TensorBoard logs (pip install 'folkcards[train]')",
            stacklevel=3,
        )
    model.set_logger(configure(str(run_path / "tb"), ["tensorboard"] if tensorboard else []))
    return model


def start_model_path(spec: str, game: str) -> Path:
    """The ``model.zip`` that ``pretrain.start_model`` names: an agent spec with a network
    (``distilled``, ``ppo``, ``ppo:<game>``, ``ppo:PATH``) or a path; ``ConfigError`` (one
    line) if there is no such file."""
    from folkcards.agents.policy_files import network_file

    path = network_file(spec, game) or Path(spec).expanduser()
    if not path.is_file():
        raise ConfigError(f"pretrain.start_model: no model file {str(path)!r}")
    return path


def load_fitting_model(path: Path, shape: tuple[int, ...], setting: str) -> Any:
    """The MaskablePPO model saved at ``path``; ``ConfigError`` (one line, naming ``setting``)
    unless it takes inputs of ``shape``."""
    cls: Any = timed_ppo_class()
    source = cls.load(str(path), device="cpu")
    if source.observation_space.shape != shape:
        raise ConfigError(
            f"{setting}: {path} takes inputs of shape {source.observation_space.shape}, the env "
            f"gives {shape}"
        )
    return source


def copy_network(path: Path, model: Any, config: TrainConfig) -> None:
    """Load the network of ``path`` into ``model`` (policy and value heads); ``ConfigError``
    (one line) unless it was trained for this game, feature set and input size and has the
    config's ``net_arch`` and activation."""
    from folkcards.agents.policy_files import read_sidecar

    meta = read_sidecar(path) or {}
    game, features = meta.get("game"), meta.get("features")
    if game is not None and game not in (config.env.game, game_spec(config.env.game).family):
        raise ConfigError(
            f"pretrain.start_model: {path} was trained for {game}, not {config.env.game}"
        )
    if features != config.env.features:
        raise ConfigError(
            f"pretrain.start_model: {path} reads the feature set {features!r}, this config "
            f"{config.env.features!r} (env.features)"
        )
    source = load_fitting_model(path, model.observation_space.shape, "pretrain.start_model")
    theirs = source.policy_kwargs.get("activation_fn")
    ours = model.policy_kwargs.get("activation_fn")
    if theirs is not None and theirs is not ours:
        raise ConfigError(
            f"pretrain.start_model: {path} uses the activation {theirs.__name__}, this config "
            f"{ours.__name__ if ours is not None else None} (algorithm.activation)"
        )
    try:
        model.policy.load_state_dict(source.policy.state_dict())
    except RuntimeError:
        arch = source.policy_kwargs.get("net_arch")
        raise ConfigError(
            f"pretrain.start_model: {path} has the network {arch}, this config "
            f"{config.algorithm.net_arch} (algorithm.net_arch)"
        ) from None


def _finish(
    model: Any,
    callback: RunCallback,
    config: TrainConfig,
    run_path: Path,
    venv: Any,
    log: Callable[[str], None],
) -> None:
    """Save the final model and state, evaluate it (unless just done), plot, report timings."""
    final = save_model(model, config, run_path / "model.zip")
    write_state(run_path, int(model.num_timesteps), final, complete=True)
    if config.run.eval_deals > 0 and callback.last_eval_step != model.num_timesteps:
        callback.evaluate()
        model.logger.dump(model.num_timesteps)
    plot_learning_curve(run_path)
    timings = getattr(model, "timings", {}) or {}
    log(
        f"done: {model.num_timesteps} steps; model {final}; time in envs "
        f"{venv.env_seconds:.1f} s, rollouts {timings.get('rollout', 0.0):.1f} s, "
        f"updates {timings.get('train', 0.0):.1f} s"
    )


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
