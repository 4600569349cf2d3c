"""Training configuration: five groups of settings, typed pydantic models with their defaults.

A YAML config holds only what differs from the defaults below; ``folkcards train --config FILE
--print-config`` prints the resolved whole. Groups and their meaning:

- ``env``: the game, the single-seat env's settings (:mod:`folkcards.train.single_seat`) and
  any argument of the game's ``raw_env`` (checked against its signature, e.g. Paston's
  ``episode``, ``shaping``, ``reward_scale``; Tri Palki's ``num_players``, ``max_turns``).
- ``opponents``: the pool of opponents (:mod:`folkcards.train.opponents`) and self-play snapshots.
- ``algorithm``: sb3-contrib ``MaskablePPO``'s hyper-parameters and the network.
- ``pretrain``: optional behaviour cloning of an expert before PPO (:mod:`.pretrain`).
- ``run``: steps, seed, vectorisation, checkpoints, evaluation and logging.

Every problem is a :class:`~folkcards.errors.ConfigError` with one line naming the key
(and "did you mean" for a mistyped one).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    Field,
    PlainValidator,
    ValidationInfo,
    field_validator,
    model_validator,
)

from folkcards.errors import ConfigError, load_yaml

from .settings import STRICT as _STRICT
from .settings import (
    EvaluationSettings,
    GameEnvGroup,
    OpponentConfig,
    PretrainConfig,
    check_agent_spec,
    check_agents_fit,
    check_env_kwargs,
    env_arguments,
    error_message,
    plain_specs,
    validate_config,
    with_run_overrides,
)


def _auto_or_positive(value: Any) -> int | str:
    if value == "auto" or (type(value) is int and value >= 1):
        return value
    raise ValueError(f"must be 'auto' or an integer >= 1, got {value!r}")


def _net_arch(value: Any) -> list[int] | dict[str, list[int]]:
    def layers(sizes: Any) -> bool:
        return isinstance(sizes, list) and all(type(x) is int and x >= 1 for x in sizes)

    if layers(value) or (
        isinstance(value, dict)
        and value
        and set(value) <= {"pi", "vf"}
        and all(map(layers, value.values()))
    ):
        return value
    raise ValueError(
        f"must be a list of positive layer sizes or {{pi: [...], vf: [...]}}, got {value!r}"
    )


AutoOrPositive = Annotated[int | str, PlainValidator(_auto_or_positive)]
NetArch = Annotated[list[int] | dict[str, list[int]], PlainValidator(_net_arch)]


class EnvConfig(GameEnvGroup):
    """The game and the single-seat env; extra keys are the game's ``raw_env`` arguments."""

    illegal_reward: float = Field(default=-1.0, description="reward of an unmasked action")
    truncation_reward: float | None = Field(
        default=None, description="null: a truncated episode is bootstrapped; a number: it ends so"
    )
    features: str | None = Field(default=None, description="a folkcards.agents.features set")
    duplicate_baseline: str | None = Field(
        default=None, description="an agent spec: reward = own result − its result on the same deal"
    )
    repeat_penalty: float = Field(
        default=0.0, ge=0, description="for returning to a decision faced"
    )
    tables: str | None = Field(
        default=None,
        description="an open-hand table file (folkcards tables) the batched engine draws and "
        "scores deals from (run.engine: batched; paston_bidding); null: the engine's default",
    )

    @field_validator("features")
    @classmethod
    def _features(cls, value: str | None, info: ValidationInfo) -> str | None:
        from folkcards.agents.features import get_feature_set

        if value is not None and "game" in info.data:
            get_feature_set(value, info.data["game"])
        return value

    @field_validator("duplicate_baseline")
    @classmethod
    def _baseline(cls, value: str | None) -> str | None:
        return None if value is None else check_agent_spec(value, "agent")


class OpponentsConfig(BaseModel):
    """Who the learner plays against during training."""

    model_config = _STRICT

    pool: list[OpponentConfig] = Field(
        default_factory=lambda: [OpponentConfig(spec="random")], min_length=1
    )
    snapshot_every: int = Field(default=0, ge=0, description="steps between snapshots (0: none)")
    max_snapshots: int = Field(default=10, ge=1, description="the newest N are kept")
    snapshot_deterministic: bool = Field(default=False, description="snapshots play their argmax")
    per_seat: bool = Field(default=True, description="draw each opponent seat independently")

    @field_validator("pool", mode="before")
    @classmethod
    def _plain_specs(cls, value: Any) -> Any:
        return plain_specs(value)

    @model_validator(mode="after")
    def _weights(self) -> OpponentsConfig:
        if sum(e.weight for e in self.pool) <= 0:
            raise ValueError("pool: the weights sum to 0")
        if self.snapshot_every == 0 and any(e.spec == "self" and e.weight > 0 for e in self.pool):
            raise ValueError(
                "pool has 'self' but snapshot_every is 0 (no snapshot would ever exist)"
            )
        return self


class AlgorithmConfig(BaseModel):
    """sb3-contrib ``MaskablePPO``'s settings; a rollout is ``n_steps × run.n_envs`` steps."""

    model_config = _STRICT

    learning_rate: float = Field(default=3.0e-4, gt=0)
    lr_schedule: Literal["constant", "linear"] = "constant"
    n_steps: int = Field(default=512, ge=1, description="per env")
    batch_size: int = Field(default=512, ge=2, description="> 1 for advantage normalisation")
    n_epochs: int = Field(default=5, ge=1)
    gamma: float = Field(default=1.0, ge=0, le=1)
    gae_lambda: float = Field(default=0.95, ge=0, le=1)
    clip_range: float = Field(default=0.2, ge=0, le=10)
    ent_coef: float = Field(default=0.01, ge=0, le=10)
    vf_coef: float = Field(default=0.5, ge=0, le=100)
    max_grad_norm: float = Field(default=0.5, ge=0)
    target_kl: float | None = Field(default=None, gt=0)
    normalize_advantage: bool = True
    net_arch: NetArch = Field(default_factory=lambda: [256, 256])
    activation: Literal["tanh", "relu"] = "tanh"
    ortho_init: bool = True


class RunConfig(EvaluationSettings):
    """Length, seed, vectorisation, checkpoints, evaluation and logging of a run."""

    total_steps: int = Field(
        default=200_000,
        ge=0,
        description="learner decisions (0: behaviour cloning only, with pretrain.expert set)",
    )
    n_envs: AutoOrPositive = Field(default=8, description="auto: one per core")
    engine: Literal["aec", "batched"] = Field(
        default="aec",
        description="aec: per-game envs (vec_env/n_workers); batched: n_envs games on one "
        "batched engine (folkcards.train.batched_training_env)",
    )
    vec_env: Literal["auto", "batched", "subproc", "dummy"] = "auto"
    n_workers: AutoOrPositive = Field(default="auto", description="batched: worker processes")
    torch_threads: int = Field(default=1, ge=1)
    checkpoint_every: int = Field(default=50_000, ge=0)
    keep_checkpoints: int = Field(default=3, ge=0)
    progress_bar: bool = True
    log_interval: int = Field(default=1, ge=1)


class TrainConfig(BaseModel):
    """A whole training configuration."""

    model_config = _STRICT

    env: EnvConfig = Field(default_factory=EnvConfig)
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    algorithm: AlgorithmConfig = Field(default_factory=AlgorithmConfig)
    pretrain: PretrainConfig = Field(default_factory=PretrainConfig)
    run: RunConfig = Field(default_factory=RunConfig)

    @model_validator(mode="after")
    def _agents_fit_the_table(self) -> TrainConfig:
        """Refuse, before training starts, an agent of the config that cannot sit at its table."""
        groups: dict[str, list[str | None]] = {
            "opponents.pool": [entry.spec for entry in self.opponents.pool],
            "env.duplicate_baseline": [self.env.duplicate_baseline],
            "pretrain.expert": [self.pretrain.expert],
            "run.eval_opponent": [self.run.eval_opponent],
        }
        check_agents_fit(self.env.game, self.env.players, groups)
        return self

    @model_validator(mode="after")
    def _cloning_only_needs_an_expert(self) -> TrainConfig:
        if self.run.total_steps == 0 and self.pretrain.expert is None:
            raise ValueError(
                "run.total_steps 0 means behaviour cloning only: set pretrain.expert (the "
                "agent to clone), or give a positive number of PPO steps"
            )
        return self

    @model_validator(mode="after")
    def _batched_engine(self) -> TrainConfig:
        if self.run.engine == "batched":
            from .batched_training_env import check_batched_support

            specs = [e.spec for e in self.opponents.pool if e.weight > 0]
            try:
                check_batched_support(
                    self.env.game,
                    self.env.kwargs,
                    specs,
                    self.env.duplicate_baseline,
                    self.env.tables,
                )
            except ValueError as error:
                raise ValueError(f"run.engine batched: {error}") from None
        elif self.env.tables is not None:
            raise ValueError(
                "env.tables is read by the batched engine only: set run.engine: batched"
            )
        return self

    @property
    def game(self) -> str:
        return self.env.game

    def resolved_n_envs(self) -> int:
        n = self.run.n_envs
        return max(1, os.cpu_count() or 1) if n == "auto" else int(n)

    def resolved_vec_env(self) -> tuple[str, int]:
        """(kind, workers): ``auto`` is ``batched`` over all cores when there are several envs
        and cores."""
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
        """The YAML form, every setting resolved."""
        return self.model_dump(mode="python")

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_yaml())


GROUPS = tuple(TrainConfig.model_fields)


def config_from_dict(data: Any, source: str = "config") -> TrainConfig:
    """Build and validate a :class:`TrainConfig` from the YAML form."""
    return validate_config(TrainConfig, data, source, GROUPS, f"with groups {', '.join(GROUPS)}")


def load_config(path: str | os.PathLike[str]) -> TrainConfig:
    """Read and validate a YAML config file (``extends: OTHER.yaml`` starts from another
    config, its path relative to this file; the keys given here replace that file's)."""
    return config_from_dict(resolve_extends(path), source=str(path))


def resolve_extends(path: str | os.PathLike[str], seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The mapping of a config file with its ``extends:`` chain merged in, group by group."""
    here = Path(path).resolve()
    if here in seen:
        chain = " -> ".join(p.name for p in (*seen, here))
        raise ConfigError(f"{path}: extends goes round in a circle ({chain})")
    data = load_yaml(path)
    base_name = data.pop("extends", None)
    if base_name is None:
        return data
    if not isinstance(base_name, str):
        raise ConfigError(f"{path}: extends must be a file name, got {base_name!r}")
    base = resolve_extends(here.parent / base_name, (*seen, here))
    for group, values in data.items():
        if isinstance(values, dict) and isinstance(base.get(group), dict):
            base[group] = {**base[group], **values}
        else:
            base[group] = values
    return base


def with_overrides(config: TrainConfig, **overrides: Any) -> TrainConfig:
    """A copy with ``run`` fields replaced (``None`` values ignored), validated again."""
    return with_run_overrides(config, RunConfig, config_from_dict, overrides)


__all__ = [
    "AlgorithmConfig",
    "ConfigError",
    "EnvConfig",
    "OpponentConfig",
    "OpponentsConfig",
    "PretrainConfig",
    "RunConfig",
    "TrainConfig",
    "check_agent_spec",
    "check_env_kwargs",
    "config_from_dict",
    "env_arguments",
    "error_message",
    "load_config",
    "with_overrides",
]
