"""Config-driven PPO on RLlib (new API stack) for both games: :func:`train_rllib`.

A run directory ``<runs_dir>/<game>-rllib-<seed>-<YYYYmmdd-HHMMSS>/`` holds:

==========================  ===========================================================
``config.yaml``             the resolved configuration (``backend: rllib``)
``policy.pt``               the newest policy, exported for ``rllib:RUN_DIR``
                            (:mod:`folkcards.agents.rllib_agent`; torch only, no Ray)
``checkpoints/``            RLlib checkpoints ``checkpoint_<steps>/`` (the algorithm, its
                            learner, optimiser and env-runner states), the newest
                            ``run.keep_checkpoints`` kept, each with its ``policy.pt``
``snapshots/``              ``snapshot_<steps>.pt``: frozen learner policies for ``self``
``tb/``                     TensorBoard logs (``tensorboard --logdir runs``)
``train_log.csv``           one row per RLlib iteration (``folkcards.train.run_files``)
``eval.csv``                the periodic evaluation vs ``run.eval_opponent``
``learning_curve.png``      evaluation score, paired advantage and training score vs steps
``state.json``              steps done, the latest checkpoint, whether the run finished,
                            the wall time used (``wall_seconds``)
``pretrain.json``           with ``pretrain.expert``: the behaviour cloning's losses and
                            agreement with the expert (:mod:`.rllib_pretrain`)
==========================  ===========================================================

The env is :class:`~folkcards.train.rllib_env.FolkcardsMultiAgentEnv` (turn-based, rewards to
every seat), the module :class:`~folkcards.train.rllib_module.MaskedPPOModule` (masked logits).
Steps are env steps: decisions of the learner's seats (env-internal opponents do not count),
the unit of the SB3 path's ``total_steps`` too.

**Before PPO.** With ``pretrain.expert`` set, a new run first clones the expert's decisions
into the learner's policies (:mod:`.rllib_pretrain`), saves them as checkpoint 0 and evaluates
them (the ``step`` 0 row of ``eval.csv``); a resumed run restores a checkpoint instead.

**Resume.** ``train_rllib(config, run_dir, resume=True)`` restores the newest checkpoint
(weights, optimiser, counters) and continues to ``run.total_steps``; CSV rows after the
checkpoint are dropped and written again. **Time budget.** ``run.max_minutes`` also ends the
run after the iteration that passes that much wall time (cloning, PPO, periodic evaluations;
a resumed run counts on from its checkpoint's ``wall_seconds``), with a checkpoint and a final
evaluation as at ``total_steps``. **Cluster.** ``resources.address`` (or
``RAY_ADDRESS``) joins a running Ray cluster; ``resources.num_env_runners`` env runners then
sample on its nodes, the learner stays in the driver. Evaluation runs in the driver.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents.rllib_agent import POLICY_FILE, save_policy_file
from folkcards.envs.registry import game_spec
from folkcards.evaluate.running.ray_backend import require_ray

from .rllib_config import RLlibTrainConfig, load_rllib_config
from .run_files import EVAL_FIELDS, TRAIN_FIELDS, append_csv, plot_learning_curve, truncate_csv

CHECKPOINT_PREFIX = "checkpoint_"


def new_run_dir(config: RLlibTrainConfig) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(config.run.runs_dir) / f"{config.game}-rllib-{config.run.seed}-{stamp}"


def num_players(config: RLlibTrainConfig) -> int:
    return len(game_spec(config.game).raw_env(**config.env.kwargs).possible_agents)


def env_config(config: RLlibTrainConfig, run_dir: Path) -> dict[str, Any]:
    """The ``env_config`` of :class:`~folkcards.train.rllib_env.FolkcardsMultiAgentEnv`."""
    policies = config.policies
    return {
        "game": config.game,
        "env_kwargs": config.env.kwargs,
        "seed": config.run.seed,
        "opponents": [o.model_dump() for o in policies.opponents],
        "learner_seats": policies.learner_seats,
        "snapshot_dir": str((run_dir / "snapshots").resolve()),
    }


def build_algorithm(
    config: RLlibTrainConfig, run_dir: Path, episodes_to_numpy: bool = False
) -> Any:
    """RLlib's PPO for ``config`` (Ray must be running); see :func:`ppo_config`."""
    return ppo_config(config, run_dir, episodes_to_numpy).build_algo()


def ppo_config(config: RLlibTrainConfig, run_dir: Path, episodes_to_numpy: bool = False) -> Any:
    """RLlib's ``PPOConfig`` for ``config`` (nothing started).

    ``episodes_to_numpy`` stays off: RLlib's multi-agent env runner (Ray 2.60) converts *every*
    episode finished so far in a ``sample()`` call to numpy again each time another one
    finishes, quadratic in the episodes per call; with Paston's ~6-decision deals that took
    about 2/3 of the sampling time (``benchmarks/rllib_throughput.py --episodes-to-numpy``).
    The learner's connectors take the episodes as lists just as well."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from .rllib_env import FolkcardsMultiAgentEnv
    from .rllib_module import policy_setup

    algo, res = config.algorithm, config.resources
    setup = policy_setup(
        config.policies.setup,
        num_players(config),
        {"hidden": list(algo.hidden), "activation": algo.activation},
    )
    ppo = (
        PPOConfig()
        .environment(
            FolkcardsMultiAgentEnv,
            env_config=env_config(config, run_dir),
            disable_env_checking=True,
        )
        .framework("torch", torch_compile_learner=False)
        .env_runners(
            num_env_runners=res.num_env_runners,
            num_envs_per_env_runner=res.num_envs_per_env_runner,
            rollout_fragment_length=res.rollout_fragment_length,
            num_cpus_per_env_runner=1,
            episodes_to_numpy=episodes_to_numpy,
        )
        .learners(num_learners=0)
        .training(
            lr=(
                algo.learning_rate
                if algo.lr_schedule == "constant"
                else [[0, algo.learning_rate], [config.run.total_steps, 0.0]]
            ),
            train_batch_size_per_learner=algo.train_batch_size,
            minibatch_size=algo.minibatch_size,
            num_epochs=algo.num_epochs,
            gamma=algo.gamma,
            lambda_=algo.lambda_,
            clip_param=algo.clip_param,
            entropy_coeff=algo.entropy_coeff,
            vf_loss_coeff=algo.vf_loss_coeff,
            vf_clip_param=algo.vf_clip_param,
            grad_clip=algo.grad_clip,
            use_kl_loss=algo.kl_coeff > 0,
            kl_coeff=algo.kl_coeff,
        )
        .multi_agent(
            policies=setup["policies"],
            policy_mapping_fn=setup["policy_mapping_fn"],
            policies_to_train=sorted(setup["policies"]),
        )
        .rl_module(rl_module_spec=setup["module_spec"])
        .debugging(seed=config.run.seed, log_level="ERROR")
    )
    return ppo


def init_ray(config: RLlibTrainConfig) -> None:
    """Start (or join) Ray unless it is running already in this process."""
    from folkcards.evaluate.running.ray_backend import init_ray as start_ray

    start_ray(config.resources.address, config.resources.num_cpus)


# --- the run directory -----------------------------------------------------------------------


def checkpoint_dirs(run_dir: Path) -> list[tuple[int, Path]]:
    """``(steps, path)`` of every RLlib checkpoint of a run, oldest first."""
    folder = run_dir / "checkpoints"
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        if path.name.startswith(CHECKPOINT_PREFIX) and path.is_dir():
            found.append((int(path.name[len(CHECKPOINT_PREFIX) :]), path))
    return sorted(found)


def export_policy(algo: Any, config: RLlibTrainConfig, path: Path, steps: int) -> Path:
    """Write the learner's policies as a policy file (``rllib:`` agents load it without Ray)."""
    import torch

    weights = algo.learner_group.get_weights()
    states = {
        pid: {
            key.removeprefix("net."): torch.as_tensor(np.asarray(value))
            for key, value in state.items()
        }
        for pid, state in weights.items()
    }
    env = game_spec(config.game).raw_env(**config.env.kwargs)
    obs_size = int(env.observation_space(env.possible_agents[0])["observation"].shape[0])
    meta = {
        "game": config.game,
        "num_players": len(env.possible_agents),
        "env_kwargs": config.env.kwargs,
        "obs_size": obs_size,
        "num_actions": game_spec(config.game).num_actions,
        "hidden": list(config.algorithm.hidden),
        "activation": config.algorithm.activation,
        "setup": config.policies.setup,
        "steps": int(steps),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    return save_policy_file(path, meta, states)


def write_state(
    run_dir: Path, steps: int, checkpoint: Path | None, complete: bool, wall_seconds: float
) -> None:
    state = {
        "backend": "rllib",
        "num_timesteps": steps,
        "checkpoint": None if checkpoint is None else str(checkpoint.relative_to(run_dir)),
        "complete": complete,
        "wall_seconds": round(wall_seconds, 1),
    }
    (run_dir / "state.json").write_text(json.dumps(state, indent=2) + "\n")


def _save_checkpoint(algo: Any, config: RLlibTrainConfig, run_dir: Path, steps: int) -> Path:
    path = run_dir / "checkpoints" / f"{CHECKPOINT_PREFIX}{steps:010d}"
    algo.save_to_path(str(path.resolve()))
    export_policy(algo, config, path / POLICY_FILE, steps)
    shutil.copy2(path / POLICY_FILE, run_dir / POLICY_FILE)  # rllib:RUN_DIR plays the newest
    for _, old in checkpoint_dirs(run_dir)[: -config.run.keep_checkpoints]:
        shutil.rmtree(old, ignore_errors=True)
    return path


def _save_snapshot(algo: Any, config: RLlibTrainConfig, run_dir: Path, steps: int) -> None:
    export_policy(algo, config, run_dir / "snapshots" / f"snapshot_{steps:010d}.pt", steps)
    kept = sorted((run_dir / "snapshots").glob("snapshot_*.pt"))
    for old in kept[: -config.policies.max_snapshots]:
        old.unlink(missing_ok=True)


# --- evaluation --------------------------------------------------------------------------------


def evaluate_policy(config: RLlibTrainConfig, policy_file: Path) -> Any:
    """The exported policy vs ``run.eval_opponent`` by ``run.eval_method`` (an ``EvalResult``)."""
    from folkcards.agents.rllib_agent import RLlibAgent, load_policy

    from . import evaluation

    run = config.run
    if run.eval_method == "tournament":
        return evaluation.evaluate_tournament(
            policy_file,
            config.game,
            run.eval_opponent,
            run.eval_deals,
            run.eval_seed,
            config.env.kwargs,
            kind="rllib",
        )
    policy = load_policy(policy_file)

    def learner(seat: str, seed: int) -> RLlibAgent:
        return RLlibAgent(config.game, seat, seed, policy=policy)

    return evaluation.evaluate_duplicate(
        config.game, learner, run.eval_opponent, run.eval_deals, run.eval_seed, config.env.kwargs
    )


def _evaluate(config: RLlibTrainConfig, run_dir: Path, steps: int, log: Any) -> None:
    if config.run.eval_deals <= 0:
        return
    result = evaluate_policy(config, run_dir / POLICY_FILE)
    append_csv(run_dir / "eval.csv", EVAL_FIELDS, {"step": steps, **result.as_dict()})
    log(f"step {steps}: {result.summary()}")
    plot_learning_curve(run_dir, f"{config.game} RLlib PPO")


# --- the loop ----------------------------------------------------------------------------------


def _metrics(result: dict[str, Any]) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    return {
        "steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        "episode_return": float(runners.get("episode_return_mean", math.nan)),
        "agent_returns": runners.get("agent_episode_returns_mean", {}) or {},
    }


def _train_row(
    result: dict[str, Any], seconds: float, new_steps: int, scale: float
) -> dict[str, Any]:
    m = _metrics(result)
    returns = [float(v) for v in m["agent_returns"].values()]
    mean_reward = float(np.mean(returns)) if returns else math.nan
    return {
        "step": m["steps"],
        "episodes": m["episodes"],
        "mean_reward": mean_reward,
        "mean_score": mean_reward / scale if scale else math.nan,
        "env_seconds": "",
        "rollout_seconds": "",
        "train_seconds": round(seconds, 3),
        "steps_per_second": round(new_steps / seconds, 1) if seconds > 0 else "",
    }


def _tensorboard(run_dir: Path, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(run_dir / "tb"))


def _log_scalars(writer: Any, result: dict[str, Any], row: dict[str, Any]) -> None:
    if writer is None:
        return
    step = int(row["step"])
    for key in ("mean_reward", "mean_score", "steps_per_second"):
        if row.get(key) not in ("", None) and not math.isnan(float(row[key])):
            writer.add_scalar(f"rollout/{key}", float(row[key]), step)
    for pid, stats in (result.get("learners") or {}).items():
        if not isinstance(stats, dict):
            continue
        for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var"):
            value = stats.get(key)
            if isinstance(value, (int, float, np.floating)):
                writer.add_scalar(f"train/{pid}/{key}", float(value), step)
    writer.flush()


def train_rllib(
    config: RLlibTrainConfig,
    run_dir: str | os.PathLike[str] | None = None,
    resume: bool = False,
    log: Any = None,
) -> Path:
    """Train (or with ``resume`` continue) a run; returns the run directory. ``log``: a
    ``str -> None`` (default: print, flushed, so a redirected log shows progress at once)."""
    require_ray("RLlib training")
    if log is None:
        log = functools.partial(print, flush=True)
    path = Path(run_dir) if run_dir is not None else new_run_dir(config)
    if resume:
        if not (path / "config.yaml").is_file():
            raise FileNotFoundError(f"{path} is not an RLlib run directory (no config.yaml)")
    elif path.exists() and any(path.iterdir()):
        raise FileExistsError(f"{path} exists and is not empty: use --resume or another --run-dir")
    path.mkdir(parents=True, exist_ok=True)
    (path / "snapshots").mkdir(exist_ok=True)
    config.save(path / "config.yaml")
    clock = _WallClock(path if resume else None)
    init_ray(config)
    import torch

    torch.set_num_threads(config.resources.torch_threads)
    algo = build_algorithm(config, path)
    try:
        return _loop(algo, config, path, resume, log, clock)
    finally:
        algo.stop()


class _WallClock:
    """Seconds of wall time the run has used: this command's, plus what ``state.json`` recorded
    at the checkpoint a resumed run continues from."""

    def __init__(self, resumed_run: Path | None) -> None:
        self.base = 0.0
        state_file = None if resumed_run is None else resumed_run / "state.json"
        if state_file is not None and state_file.is_file():
            self.base = float(json.loads(state_file.read_text()).get("wall_seconds", 0.0))
        self.started = time.monotonic()

    def seconds(self) -> float:
        return self.base + time.monotonic() - self.started


def _begin(
    algo: Any, config: RLlibTrainConfig, path: Path, resume: bool, log: Any, clock: _WallClock
) -> tuple[int, Path | None]:
    """Restore the last checkpoint (``resume``) or, in a new run, clone the expert first;
    returns (steps done, the checkpoint to finish from)."""
    latest = checkpoint_dirs(path)
    if resume and latest:
        steps, restored = latest[-1]
        algo.restore_from_path(str(restored.resolve()))
        for name, fields in (("train_log.csv", TRAIN_FIELDS), ("eval.csv", EVAL_FIELDS)):
            truncate_csv(path / name, fields, steps)
        log(f"resumed from {restored} at {steps} steps")
        return steps, restored
    if config.pretrain.expert is None:
        return 0, None
    from .rllib_pretrain import pretrain_rllib

    pretrain_rllib(algo, config, path, log)
    checkpoint = _save_checkpoint(algo, config, path, 0)  # resume restores the clone
    write_state(path, 0, checkpoint, complete=False, wall_seconds=clock.seconds())
    _evaluate(config, path, 0, log)
    return 0, checkpoint


def _loop(
    algo: Any, config: RLlibTrainConfig, path: Path, resume: bool, log: Any, clock: _WallClock
) -> Path:
    run = config.run
    steps, checkpoint = _begin(algo, config, path, resume, log, clock)
    scale = float(config.env.kwargs.get("reward_scale", 1.0))
    writer = _tensorboard(path, run.tensorboard)
    next_checkpoint = _next(steps, run.checkpoint_every)
    next_eval = _next(steps, run.eval_every)
    next_snapshot = _next(steps, config.policies.snapshot_every)
    budget = math.inf if run.max_minutes is None else 60.0 * run.max_minutes
    out_of_time = False
    while steps < run.total_steps and not out_of_time:
        started = time.perf_counter()
        result = algo.train()
        seconds = time.perf_counter() - started
        new_steps = _metrics(result)["steps"]
        row = _train_row(result, seconds, new_steps - steps, scale)
        steps = new_steps
        append_csv(path / "train_log.csv", TRAIN_FIELDS, row)
        _log_scalars(writer, result, row)
        if steps >= next_snapshot:
            _save_snapshot(algo, config, path, steps)
            next_snapshot = _next(steps, config.policies.snapshot_every)
        out_of_time = clock.seconds() >= budget
        if out_of_time and steps < run.total_steps:
            log(f"run.max_minutes ({run.max_minutes:g}) reached at {steps} steps: stopping")
        last = steps >= run.total_steps or out_of_time
        if last or steps >= next_checkpoint:
            checkpoint = _save_checkpoint(algo, config, path, steps)
            write_state(path, steps, checkpoint, complete=last, wall_seconds=clock.seconds())
            next_checkpoint = _next(steps, run.checkpoint_every)
        if last or steps >= next_eval:
            export_policy(algo, config, path / POLICY_FILE, steps)
            _evaluate(config, path, steps, log)
            next_eval = _next(steps, run.eval_every)
    if checkpoint is not None:
        shutil.copy2(checkpoint / POLICY_FILE, path / POLICY_FILE)
    write_state(path, steps, checkpoint, complete=True, wall_seconds=clock.seconds())
    plot_learning_curve(path, f"{config.game} RLlib PPO")
    if writer is not None:
        writer.close()
    return path


def _next(steps: int, every: int) -> float:
    return math.inf if every <= 0 else (steps // every + 1) * every


def resume_config(run_dir: str | os.PathLike[str]) -> RLlibTrainConfig:
    """The config a run directory was started with."""
    return load_rllib_config(Path(run_dir) / "config.yaml")


def is_rllib_config(path: str | os.PathLike[str]) -> bool:
    """Whether the YAML file at ``path`` selects this backend (``backend: rllib``)."""
    from folkcards.errors import load_yaml

    data = load_yaml(path)
    return isinstance(data, dict) and data.get("backend") == "rllib"


def main_rllib(args: Any, prog: str = "folkcards train") -> int:
    """``folkcards train`` for an RLlib config: ``args`` as ``folkcards.train.cli`` parses them
    (``config``/``resume``, ``total_steps``, ``run_dir``, ``seed``, ``print_config``)."""
    import sys

    from folkcards.evaluate.running.ray_backend import RayMissingError

    from folkcards.errors import ConfigError

    from .rllib_config import with_rllib_overrides

    try:
        if args.resume is not None:
            config = resume_config(args.resume)
        else:
            config = load_rllib_config(args.config)
        config = with_rllib_overrides(config, total_steps=args.total_steps, seed=args.seed)
    except ConfigError as exc:
        print(f"{prog}: config error: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "n_envs", None) is not None:
        print(f"{prog}: --n-envs is an SB3 setting; RLlib uses resources.*", file=sys.stderr)
        return 2
    if args.print_config:
        print(config.to_yaml(), end="")
        return 0
    try:
        if args.resume is not None:
            run_dir = train_rllib(config, args.resume, resume=True)
        else:
            run_dir = train_rllib(config, args.run_dir)
    except RayMissingError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except (FileExistsError, FileNotFoundError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; continue with --resume RUN_DIR", file=sys.stderr)
        return 130
    print(f"run directory: {run_dir}")
    return 0


__all__ = [
    "build_algorithm",
    "checkpoint_dirs",
    "env_config",
    "evaluate_policy",
    "export_policy",
    "init_ray",
    "is_rllib_config",
    "main_rllib",
    "ppo_config",
    "resume_config",
    "train_rllib",
]
