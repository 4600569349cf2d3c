"""Training configuration: YAML with five groups, parsed into dataclasses.

.. code-block:: yaml

    env:                    # the game and the arguments of its raw_env
      game: paston          # paston | tri_palki
      illegal_reward: -1.0  # SingleSeatEnv: reward for an unmasked action (never with masking)
      truncation_reward: null  # null: a truncated episode is bootstrapped; a number: it ends
                               # with that reward (see SingleSeatEnv; Tri Palki configs use -1)
      features: null        # a folkcards.agents.features set appended to the observation
                            # (e.g. tri_palki_actions); saved in the model's metadata
      duplicate_baseline: null  # an agent spec: the learner's final reward is its result minus
                                # that agent's on the same deal in its seat (see SingleSeatEnv)
      repeat_penalty: 0.0   # reward -p for coming back to a decision already faced this episode
      # every other key is an argument of folkcards.envs.<game>_v0.raw_env, checked against its
      # signature: paston: episode, shaping, reward_scale, reward, max_deals;
      # tri_palki: num_players, episode, reward, max_turns
      shaping: true
      reward_scale: 0.05
    opponents:
      pool:                 # make_agent specs with weights; "self" = frozen snapshots of the learner
        - {spec: random, weight: 0.1}
        - {spec: heuristic, weight: 0.5}
        - {spec: self, weight: 0.4}
      snapshot_every: 100000  # steps between snapshots (0: no self-play; needed by "self")
      max_snapshots: 10       # the newest N snapshots are kept, drawn uniformly
      snapshot_deterministic: false  # snapshots play their argmax (true) or sample (false)
      per_seat: true          # draw each opponent seat independently (false: one draw for all)
    algorithm:              # sb3_contrib.MaskablePPO
      learning_rate: 3.0e-4
      lr_schedule: constant # constant | linear (to 0 at total_steps)
      n_steps: 512          # per env; a rollout is n_steps × n_envs steps
      batch_size: 512
      n_epochs: 5
      gamma: 1.0
      gae_lambda: 0.95
      clip_range: 0.2
      ent_coef: 0.01
      vf_coef: 0.5
      max_grad_norm: 0.5
      target_kl: null
      normalize_advantage: true
      net_arch: [256, 256]  # or {pi: [...], vf: [...]}
      activation: tanh      # tanh | relu
      ortho_init: true
    pretrain:               # optional behaviour cloning before PPO (see train/pretrain.py)
      expert: null          # a make_agent spec (e.g. heuristic); null: no pretraining
      samples: 200000       # expert decisions collected (learner seat played by the expert)
      epochs: 4
      batch_size: 1024
      learning_rate: 1.0e-3
      value: true           # also fit the value head to the returns of those episodes
      holdout: 0.05         # share of samples kept out to report the agreement with the expert
    run:
      total_steps: 200000   # learner decisions (environment steps)
      seed: 0
      n_envs: 8             # envs stepped together (a rollout is n_steps × n_envs); auto = cores
      vec_env: auto         # batched | subproc | dummy; auto = batched over all cores if n_envs > 1
      n_workers: auto       # batched: worker processes (auto = cores, at most n_envs)
      torch_threads: 1
      runs_dir: runs
      checkpoint_every: 50000
      keep_checkpoints: 3
      eval_every: 50000     # 0: only at the end
      eval_deals: 100       # deals (rounds) per evaluation, each played in every seat (0: none)
      eval_opponent: heuristic
      eval_method: tournament  # tournament (folkcards.evaluate) | duplicate (see train/evaluation.py)
      eval_seed: 12345
      progress_bar: true
      tensorboard: true
      log_interval: 1

Unknown groups or keys raise :class:`ConfigError` naming them and the known ones.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

import yaml
from folkcards.evaluate.config import ConfigError, load_yaml

GAMES = ("paston", "tri_palki")


@dataclass
class EnvConfig:
    game: str = "paston"
    illegal_reward: float = -1.0
    truncation_reward: float | None = None
    features: str | None = None
    duplicate_baseline: str | None = None
    repeat_penalty: float = 0.0
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass
class OpponentConfig:
    spec: str
    weight: float = 1.0


@dataclass
class OpponentsConfig:
    pool: list[OpponentConfig] = field(default_factory=lambda: [OpponentConfig("random", 1.0)])
    snapshot_every: int = 0
    max_snapshots: int = 10
    snapshot_deterministic: bool = False
    per_seat: bool = True


@dataclass
class AlgorithmConfig:
    learning_rate: float = 3.0e-4
    lr_schedule: str = "constant"
    n_steps: int = 512
    batch_size: int = 512
    n_epochs: int = 5
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    normalize_advantage: bool = True
    net_arch: Any = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    ortho_init: bool = True


@dataclass
class PretrainConfig:
    expert: str | None = None
    samples: int = 200_000
    epochs: int = 4
    batch_size: int = 1024
    learning_rate: float = 1.0e-3
    value: bool = True
    holdout: float = 0.05


@dataclass
class RunConfig:
    total_steps: int = 200_000
    seed: int = 0
    n_envs: int | str = 8
    vec_env: str = "auto"
    n_workers: int | str = "auto"
    torch_threads: int = 1
    runs_dir: str = "runs"
    checkpoint_every: int = 50_000
    keep_checkpoints: int = 3
    eval_every: int = 50_000
    eval_deals: int = 100
    eval_opponent: str = "heuristic"
    eval_method: str = "tournament"
    eval_seed: int = 12345
    progress_bar: bool = True
    tensorboard: bool = True
    log_interval: int = 1


@dataclass
class TrainConfig:
    env: EnvConfig = field(default_factory=EnvConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    algorithm: AlgorithmConfig = field(default_factory=AlgorithmConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    run: RunConfig = field(default_factory=RunConfig)

    @property
    def game(self) -> str:
        return self.env.game

    def resolved_n_envs(self) -> int:
        n = self.run.n_envs
        return max(1, os.cpu_count() or 1) if n == "auto" else int(n)

    def resolved_vec_env(self) -> tuple[str, int]:
        """(kind, workers): ``auto`` is ``batched`` over all cores when there are several envs and cores."""
        n_envs = self.resolved_n_envs()
        cores = max(1, os.cpu_count() or 1)
        workers = cores if self.run.n_workers == "auto" else int(self.run.n_workers)
        workers = max(1, min(workers, n_envs))
        kind = self.run.vec_env
        if kind == "auto":
            kind = "batched" if n_envs > 1 and min(cores, workers) > 1 else "dummy"
        if kind == "dummy":
            workers = 0
        elif kind == "subproc":
            workers = n_envs
        return kind, workers

    def to_dict(self) -> dict[str, Any]:
        """The YAML form (``env.kwargs`` flattened back into the ``env`` group)."""
        env = {
            "game": self.env.game,
            "illegal_reward": self.env.illegal_reward,
            "truncation_reward": self.env.truncation_reward,
            "features": self.env.features,
            "duplicate_baseline": self.env.duplicate_baseline,
            "repeat_penalty": self.env.repeat_penalty,
            **copy.deepcopy(self.env.kwargs),
        }
        return {
            "env": env,
            "opponents": {
                **{k: v for k, v in dataclasses.asdict(self.opponents).items() if k != "pool"},
                "pool": [{"spec": o.spec, "weight": o.weight} for o in self.opponents.pool],
            },
            "algorithm": dataclasses.asdict(self.algorithm),
            "pretrain": dataclasses.asdict(self.pretrain),
            "run": dataclasses.asdict(self.run),
        }

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_yaml())


_GROUPS = {
    "env": EnvConfig,
    "opponents": OpponentsConfig,
    "algorithm": AlgorithmConfig,
    "pretrain": PretrainConfig,
    "run": RunConfig,
}


def load_config(path: str | os.PathLike[str]) -> TrainConfig:
    """Read and validate a YAML config file."""
    return config_from_dict(load_yaml(path), source=str(path))


def config_from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """Build and validate a :class:`TrainConfig` from the YAML form."""
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source}: the top level must be a mapping with groups {', '.join(_GROUPS)}"
        )
    unknown = set(data) - set(_GROUPS)
    if unknown:
        raise ConfigError(
            f"{source}: unknown group(s) {sorted(unknown)}; known groups: {', '.join(_GROUPS)}"
        )
    groups = {}
    for name, cls in _GROUPS.items():
        raw = data.get(name) or {}
        if not isinstance(raw, dict):
            raise ConfigError(f"{source}: group {name!r} must be a mapping, got {raw!r}")
        groups[name] = _build_group(name, cls, raw, source)
    config = TrainConfig(**groups)
    validate(config, source)
    return config


def _build_group(name: str, cls: type, raw: dict[str, Any], source: str) -> Any:
    raw = dict(raw)
    if name == "env":
        known = {
            "game",
            "illegal_reward",
            "truncation_reward",
            "features",
            "duplicate_baseline",
            "repeat_penalty",
        }
        kwargs = {k: raw.pop(k) for k in list(raw) if k not in known}
        if "kwargs" in kwargs and isinstance(kwargs["kwargs"], dict):  # the dataclass form
            kwargs.update(kwargs.pop("kwargs"))
        truncation = raw.get("truncation_reward")
        return EnvConfig(
            game=raw.get("game", "paston"),
            illegal_reward=_float(raw.get("illegal_reward", -1.0), "env.illegal_reward", source),
            truncation_reward=None
            if truncation is None
            else _float(truncation, "env.truncation_reward", source),
            features=None if raw.get("features") is None else str(raw["features"]),
            duplicate_baseline=None
            if raw.get("duplicate_baseline") is None
            else str(raw["duplicate_baseline"]),
            repeat_penalty=_float(raw.get("repeat_penalty", 0.0), "env.repeat_penalty", source),
            kwargs=kwargs,
        )
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = set(raw) - fields
    if unknown:
        raise ConfigError(
            f"{source}: unknown key(s) {sorted(unknown)} in group {name!r}; known keys: {', '.join(sorted(fields))}"
        )
    if name == "opponents" and "pool" in raw:
        pool = raw["pool"]
        if not isinstance(pool, list) or not pool:
            raise ConfigError(
                f"{source}: opponents.pool must be a non-empty list of {{spec, weight}}"
            )
        entries = []
        for item in pool:
            if isinstance(item, str):
                item = {"spec": item}
            if not isinstance(item, dict) or "spec" not in item or set(item) - {"spec", "weight"}:
                raise ConfigError(
                    f"{source}: opponents.pool entries are {{spec: ..., weight: ...}}, got {item!r}"
                )
            entries.append(
                OpponentConfig(
                    str(item["spec"]),
                    _float(item.get("weight", 1.0), "opponents.pool.weight", source),
                )
            )
        raw["pool"] = entries
    return cls(**raw)


def _float(value: Any, key: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{source}: {key} must be a number, got {value!r}")
    return float(value)


def _check(condition: Any, message: str, source: str) -> None:
    if not condition:
        raise ConfigError(f"{source}: {message}")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def env_arguments(game: str) -> list[str]:
    """The keyword arguments of ``folkcards.envs.<game>_v0.raw_env`` (``render_mode`` excepted)."""
    try:
        module = importlib.import_module(f"folkcards.envs.{game}_v0")
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"the {game} environment (folkcards.envs.{game}_v0) is not available"
        ) from exc
    params = inspect.signature(module.raw_env.__init__).parameters
    return [
        p
        for p in params
        if p not in ("self", "render_mode") and params[p].kind is not inspect.Parameter.VAR_KEYWORD
    ]


def validate(config: TrainConfig, source: str = "config") -> None:
    """Check types and ranges; ``ConfigError`` with the offending key."""
    env, opp, alg, run = config.env, config.opponents, config.algorithm, config.run
    _check(
        env.game in GAMES, f"env.game must be one of {', '.join(GAMES)}, got {env.game!r}", source
    )
    allowed = env_arguments(env.game)
    unknown = set(env.kwargs) - set(allowed)
    _check(
        not unknown,
        f"unknown key(s) {sorted(unknown)} in group 'env' for {env.game}; known keys: game, illegal_reward, truncation_reward, features, duplicate_baseline, repeat_penalty, {', '.join(allowed)}",
        source,
    )
    try:  # let the env itself validate its arguments
        from folkcards.train.single_seat import make_aec_env

        make_aec_env(env.game, **env.kwargs)
    except ValueError as exc:
        raise ConfigError(f"{source}: env: {exc}") from exc
    if env.features is not None:
        from folkcards.agents.features import get_feature_set

        try:
            get_feature_set(env.features, env.game)
        except ValueError as exc:
            raise ConfigError(f"{source}: env.features: {exc}") from exc

    from folkcards.agents import agent_kinds

    kinds = set(agent_kinds()) | {"heuristic", "self"}
    _check(env.repeat_penalty >= 0, "env.repeat_penalty must be >= 0", source)
    if env.duplicate_baseline is not None:
        _check(
            env.duplicate_baseline.partition(":")[0] in kinds - {"self"},
            f"env.duplicate_baseline: unknown agent {env.duplicate_baseline!r}; kinds: {', '.join(sorted(kinds - {'self'}))}",
            source,
        )
    pre = config.pretrain
    if pre.expert is not None:
        _check(
            isinstance(pre.expert, str) and pre.expert.partition(":")[0] in kinds - {"self"},
            f"pretrain.expert: unknown agent {pre.expert!r}; kinds: {', '.join(sorted(kinds - {'self'}))}",
            source,
        )
        for key in ("samples", "epochs", "batch_size"):
            _check(
                _is_int(getattr(pre, key)) and getattr(pre, key) >= 1,
                f"pretrain.{key} must be an integer >= 1",
                source,
            )
        _check(
            _is_num(pre.learning_rate) and pre.learning_rate > 0,
            "pretrain.learning_rate must be > 0",
            source,
        )
        _check(isinstance(pre.value, bool), "pretrain.value must be true or false", source)
        _check(
            _is_num(pre.holdout) and 0 <= pre.holdout < 1,
            "pretrain.holdout must be a number in [0, 1)",
            source,
        )
    for entry in opp.pool:
        kind = entry.spec.partition(":")[0]
        _check(
            kind in kinds,
            f"opponents.pool: unknown agent {entry.spec!r}; kinds: {', '.join(sorted(kinds))}",
            source,
        )
        _check(entry.weight >= 0, f"opponents.pool: weight of {entry.spec!r} must be >= 0", source)
    _check(sum(e.weight for e in opp.pool) > 0, "opponents.pool: the weights sum to 0", source)
    _check(
        _is_int(opp.snapshot_every) and opp.snapshot_every >= 0,
        "opponents.snapshot_every must be an integer >= 0",
        source,
    )
    _check(
        opp.snapshot_every > 0 or all(e.spec != "self" or e.weight == 0 for e in opp.pool),
        "opponents.pool has 'self' but opponents.snapshot_every is 0 (no snapshot would ever exist)",
        source,
    )
    _check(
        _is_int(opp.max_snapshots) and opp.max_snapshots >= 1,
        "opponents.max_snapshots must be an integer >= 1",
        source,
    )
    for key in ("snapshot_deterministic", "per_seat"):
        _check(
            isinstance(getattr(opp, key), bool), f"opponents.{key} must be true or false", source
        )

    _check(
        _is_num(alg.learning_rate) and alg.learning_rate > 0,
        "algorithm.learning_rate must be > 0",
        source,
    )
    _check(
        alg.lr_schedule in ("constant", "linear"),
        "algorithm.lr_schedule must be 'constant' or 'linear'",
        source,
    )
    for key in ("n_steps", "batch_size", "n_epochs"):
        _check(
            _is_int(getattr(alg, key)) and getattr(alg, key) >= 1,
            f"algorithm.{key} must be an integer >= 1",
            source,
        )
    _check(alg.batch_size > 1, "algorithm.batch_size must be > 1 (advantage normalisation)", source)
    for key, low, high in (
        ("gamma", 0, 1),
        ("gae_lambda", 0, 1),
        ("clip_range", 0, 10),
        ("ent_coef", 0, 10),
        ("vf_coef", 0, 100),
        ("max_grad_norm", 0, 1e9),
    ):
        value = getattr(alg, key)
        _check(
            _is_num(value) and low <= value <= high,
            f"algorithm.{key} must be a number in [{low}, {high}], got {value!r}",
            source,
        )
    _check(
        alg.target_kl is None or (_is_num(alg.target_kl) and alg.target_kl > 0),
        "algorithm.target_kl must be null or > 0",
        source,
    )
    _check(
        isinstance(alg.normalize_advantage, bool),
        "algorithm.normalize_advantage must be true or false",
        source,
    )
    _check(isinstance(alg.ortho_init, bool), "algorithm.ortho_init must be true or false", source)
    _check(
        alg.activation in ("tanh", "relu"), "algorithm.activation must be 'tanh' or 'relu'", source
    )
    arch = alg.net_arch
    if isinstance(arch, dict):
        _check(
            set(arch) <= {"pi", "vf"} and arch,
            "algorithm.net_arch as a mapping has keys pi and vf",
            source,
        )
        layers = [x for v in arch.values() for x in (v or [])]
        _check(
            all(isinstance(v, list) for v in arch.values()),
            "algorithm.net_arch: pi and vf are lists of layer sizes",
            source,
        )
    else:
        _check(
            isinstance(arch, list),
            "algorithm.net_arch must be a list of layer sizes or {pi: [...], vf: [...]}",
            source,
        )
        layers = arch
    _check(
        all(_is_int(x) and x >= 1 for x in layers),
        "algorithm.net_arch: layer sizes are positive integers",
        source,
    )

    _check(
        _is_int(run.total_steps) and run.total_steps >= 1,
        "run.total_steps must be an integer >= 1",
        source,
    )
    _check(_is_int(run.seed) and run.seed >= 0, "run.seed must be an integer >= 0", source)
    _check(
        run.n_envs == "auto" or (_is_int(run.n_envs) and run.n_envs >= 1),
        "run.n_envs must be 'auto' or an integer >= 1",
        source,
    )
    _check(
        run.vec_env in ("auto", "batched", "subproc", "dummy"),
        "run.vec_env must be auto, batched, subproc or dummy",
        source,
    )
    _check(
        run.n_workers == "auto" or (_is_int(run.n_workers) and run.n_workers >= 1),
        "run.n_workers must be 'auto' or an integer >= 1",
        source,
    )
    _check(
        _is_int(run.torch_threads) and run.torch_threads >= 1,
        "run.torch_threads must be an integer >= 1",
        source,
    )
    _check(isinstance(run.runs_dir, str) and run.runs_dir, "run.runs_dir must be a path", source)
    for key in ("checkpoint_every", "eval_every", "eval_deals", "keep_checkpoints", "eval_seed"):
        _check(
            _is_int(getattr(run, key)) and getattr(run, key) >= 0,
            f"run.{key} must be an integer >= 0",
            source,
        )
    _check(
        _is_int(run.log_interval) and run.log_interval >= 1,
        "run.log_interval must be an integer >= 1",
        source,
    )
    ekind = run.eval_opponent.partition(":")[0] if isinstance(run.eval_opponent, str) else None
    _check(
        ekind in kinds - {"self"}, f"run.eval_opponent: unknown agent {run.eval_opponent!r}", source
    )
    _check(
        run.eval_method in ("tournament", "duplicate"),
        "run.eval_method must be 'tournament' or 'duplicate'",
        source,
    )
    for key in ("progress_bar", "tensorboard"):
        _check(isinstance(getattr(run, key), bool), f"run.{key} must be true or false", source)


def with_overrides(config: TrainConfig, **overrides: Any) -> TrainConfig:
    """A copy with ``run`` fields replaced (``None`` values ignored), validated again."""
    new = copy.deepcopy(config)
    for key, value in overrides.items():
        if value is not None:
            if not hasattr(new.run, key):
                raise ConfigError(f"unknown run setting {key!r}")
            setattr(new.run, key, value)
    validate(new, "overrides")
    return new


__all__ = [
    "AlgorithmConfig",
    "ConfigError",
    "EnvConfig",
    "OpponentConfig",
    "OpponentsConfig",
    "PretrainConfig",
    "RunConfig",
    "TrainConfig",
    "config_from_dict",
    "env_arguments",
    "load_config",
    "validate",
    "with_overrides",
]
