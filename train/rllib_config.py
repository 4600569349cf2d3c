"""The RLlib training configuration (``backend: rllib``): typed pydantic models with defaults.

A YAML config selects this backend with ``backend: rllib`` at the top; it holds only what
differs from the defaults below. Groups:

- ``env``: the game and its ``raw_env`` arguments (as the SB3 path's ``env`` group, without the
  single-seat env's settings).
- ``policies``: who the learner is (``setup``: ``shared`` self-play or ``per_seat``), the
  env-internal opponents (agent specs with weights; ``self`` = frozen snapshots of the learner)
  and how many seats the learner plays per episode.
- ``algorithm``: RLlib PPO's hyper-parameters and the network.
- ``resources``: env runners (Ray actors), envs per runner, CPUs, the Ray address.
- ``pretrain``: optional behaviour cloning of an expert before the first PPO iteration, the
  SB3 path's group with the same keys and meaning (:mod:`.rllib_pretrain`).
- ``run``: steps, seed, checkpoints, evaluation, logging.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from folkcards.errors import load_yaml

from .settings import STRICT as _STRICT
from .settings import (
    EvaluationSettings,
    GameEnvGroup,
    OpponentConfig,
    PretrainConfig,
    check_agents_fit,
    plain_specs,
    validate_config,
    with_run_overrides,
)


class RLlibEnvConfig(GameEnvGroup):
    """The game; extra keys are the game's ``raw_env`` arguments (the SB3 ``env`` group without
    the single-seat env's settings)."""


RLlibOpponent = OpponentConfig  # one env-internal opponent: the SB3 pool's entry


class PoliciesConfig(BaseModel):
    """Who learns and against whom."""

    model_config = _STRICT

    setup: Literal["shared", "per_seat"] = Field(
        default="shared", description="one policy for every seat, or one per seat"
    )
    opponents: list[RLlibOpponent] = Field(
        default_factory=list, description="env-internal opponents (empty: pure self-play)"
    )
    learner_seats: int | None = Field(
        default=None,
        ge=1,
        description="seats the learner plays per episode (default: 1 with opponents)",
    )
    snapshot_every: int = Field(default=0, ge=0, description="steps between 'self' snapshots")
    max_snapshots: int = Field(default=10, ge=1)

    @field_validator("opponents", mode="before")
    @classmethod
    def _plain_specs(cls, value: Any) -> Any:
        return plain_specs(value)

    @model_validator(mode="after")
    def _consistent(self) -> PoliciesConfig:
        if self.opponents and sum(o.weight for o in self.opponents) <= 0:
            raise ValueError("opponents: the weights sum to 0")
        if self.snapshot_every == 0 and any(o.spec == "self" for o in self.opponents):
            raise ValueError("opponents has 'self' but snapshot_every is 0")
        if self.setup == "per_seat" and self.opponents:
            raise ValueError("per_seat policies play every seat: no opponents")
        return self


class RLlibAlgorithmConfig(BaseModel):
    """RLlib PPO's settings (new API stack)."""

    model_config = _STRICT

    learning_rate: float = Field(default=3.0e-4, gt=0)
    lr_schedule: Literal["constant", "linear"] = Field(
        default="constant", description="linear: down to 0 at run.total_steps"
    )
    train_batch_size: int = Field(default=4000, ge=2, description="env steps per update")
    minibatch_size: int = Field(default=512, ge=2)
    num_epochs: int = Field(default=5, ge=1)
    gamma: float = Field(default=1.0, ge=0, le=1)
    lambda_: float = Field(default=0.95, ge=0, le=1, alias="lambda")
    clip_param: float = Field(default=0.2, gt=0)
    entropy_coeff: float = Field(default=0.01, ge=0)
    vf_loss_coeff: float = Field(default=0.5, ge=0)
    vf_clip_param: float = Field(default=10.0, gt=0)
    grad_clip: float | None = Field(default=0.5, gt=0)
    kl_coeff: float = Field(default=0.0, ge=0)
    hidden: list[int] = Field(default_factory=lambda: [256, 256], min_length=1)
    activation: Literal["tanh", "relu"] = "tanh"

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    @field_validator("hidden")
    @classmethod
    def _hidden(cls, value: list[int]) -> list[int]:
        if any(h < 1 for h in value):
            raise ValueError(f"layer sizes must be >= 1, got {value}")
        return value


class ResourcesConfig(BaseModel):
    """Ray resources: 0 env runners = sampling in the driver process."""

    model_config = _STRICT

    num_env_runners: int = Field(default=1, ge=0, description="Ray actors collecting samples")
    num_envs_per_env_runner: int = Field(default=4, ge=1)
    rollout_fragment_length: int | Literal["auto"] = "auto"
    num_cpus: int | None = Field(default=None, ge=1, description="local Ray: CPUs (null: all)")
    address: str | None = Field(default=None, description="a Ray cluster (null: a local Ray)")
    torch_threads: int = Field(default=1, ge=1)


class RLlibRunConfig(EvaluationSettings):
    """Length, seed, checkpoints, evaluation and logging of a run."""

    total_steps: int = Field(default=200_000, ge=1, description="env steps (all learner seats)")
    max_minutes: float | None = Field(
        default=None,
        gt=0,
        description="also stop after the iteration that passes this much wall time: cloning, "
        "PPO and the periodic evaluations, counted across resumes from the last checkpoint "
        "(null: total_steps alone ends the run)",
    )
    checkpoint_every: int = Field(default=50_000, ge=0, description="steps (0: only the end)")
    keep_checkpoints: int = Field(default=3, ge=1)


class RLlibTrainConfig(BaseModel):
    """A whole RLlib training configuration."""

    model_config = _STRICT

    backend: Literal["rllib"] = "rllib"
    env: RLlibEnvConfig = Field(default_factory=RLlibEnvConfig)
    policies: PoliciesConfig = Field(default_factory=PoliciesConfig)
    algorithm: RLlibAlgorithmConfig = Field(default_factory=RLlibAlgorithmConfig)
    resources: ResourcesConfig = Field(default_factory=ResourcesConfig)
    pretrain: PretrainConfig = Field(default_factory=PretrainConfig)
    run: RLlibRunConfig = Field(default_factory=RLlibRunConfig)

    @model_validator(mode="after")
    def _agents_fit_the_table(self) -> RLlibTrainConfig:
        """Refuse, before Ray starts, an agent of the config that cannot sit at its table."""
        groups: dict[str, list[str | None]] = {
            "policies.opponents": [o.spec for o in self.policies.opponents],
            "pretrain.expert": [self.pretrain.expert],
            "run.eval_opponent": [self.run.eval_opponent],
        }
        check_agents_fit(self.game, self.env.players, groups)
        if self.pretrain.dagger_rounds:
            raise ValueError(
                "pretrain.dagger_rounds: DAgger runs on the SB3 stack only (backend ppo)"
            )
        if self.pretrain.start_model is not None:
            raise ValueError(
                "pretrain.start_model: starting from a network runs on the SB3 stack only "
                "(backend ppo)"
            )
        return self

    @property
    def game(self) -> str:
        return self.env.game

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="python", by_alias=True)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_yaml())


GROUPS = tuple(k for k in RLlibTrainConfig.model_fields if k != "backend")


def rllib_config_from_dict(data: Any, source: str = "config") -> RLlibTrainConfig:
    """Build and validate an :class:`RLlibTrainConfig` from the YAML form."""
    return validate_config(RLlibTrainConfig, data, source, GROUPS, "(backend: rllib, groups)")


def load_rllib_config(path: str | os.PathLike[str]) -> RLlibTrainConfig:
    """Read and validate an RLlib YAML config."""
    return rllib_config_from_dict(load_yaml(path), source=str(path))


def with_rllib_overrides(config: RLlibTrainConfig, **overrides: Any) -> RLlibTrainConfig:
    """A copy with ``run`` fields replaced (``None`` values ignored), validated again."""
    return with_run_overrides(config, RLlibRunConfig, rllib_config_from_dict, overrides)


__all__ = [
    "PoliciesConfig",
    "RLlibAlgorithmConfig",
    "RLlibEnvConfig",
    "RLlibOpponent",
    "RLlibRunConfig",
    "RLlibTrainConfig",
    "ResourcesConfig",
    "load_rllib_config",
    "rllib_config_from_dict",
    "with_rllib_overrides",
]
