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

import difflib
import inspect
import os
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from folkcards.errors import ConfigError, load_yaml

_STRICT = ConfigDict(extra="forbid", strict=True)


def check_agent_spec(value: Any, what: str, allow_self: bool = False) -> Any:
    """``value`` if it is an agent spec of a known kind (``"self"`` too if ``allow_self``)."""
    from folkcards.agents import agent_kinds

    kinds = sorted({*agent_kinds(), "heuristic", *(["self"] if allow_self else [])})
    kind = value.partition(":")[0] if isinstance(value, str) else None
    if kind not in kinds:
        close = difflib.get_close_matches(str(kind), kinds, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown agent {value!r}{hint}; {what} kinds: {', '.join(kinds)}")
    return value


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


def env_arguments(game: str) -> list[str]:
    """The keyword arguments of the game's ``raw_env`` (``render_mode`` excepted)."""
    from folkcards.envs.registry import game_spec

    params = inspect.signature(game_spec(game).env_module().raw_env.__init__).parameters
    return [
        p
        for p in params
        if p not in ("self", "render_mode") and params[p].kind is not inspect.Parameter.VAR_KEYWORD
    ]


class EnvConfig(BaseModel):
    """The game and the single-seat env; extra keys are the game's ``raw_env`` arguments."""

    model_config = ConfigDict(extra="allow", strict=True)

    game: str = Field(default="paston", description="a game of folkcards.envs.registry")
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

    @field_validator("game")
    @classmethod
    def _game(cls, value: str) -> str:
        from folkcards.envs.registry import canonical_game

        return canonical_game(value)

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

    @model_validator(mode="after")
    def _env_arguments(self) -> EnvConfig:
        check_env_kwargs(self.game, self.kwargs, list(type(self).model_fields))
        return self

    @property
    def kwargs(self) -> dict[str, Any]:
        """The ``raw_env`` arguments (the group's extra keys)."""
        return dict(self.model_extra or {})


class OpponentConfig(BaseModel):
    """One entry of the opponent pool."""

    model_config = _STRICT

    spec: str = Field(description="a make_agent spec, or self (frozen learner snapshots)")
    weight: float = Field(default=1.0, ge=0)

    @field_validator("spec")
    @classmethod
    def _spec(cls, value: str) -> str:
        return check_agent_spec(value, "opponent", allow_self=True)


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
        if isinstance(value, list):
            return [{"spec": v} if isinstance(v, str) else v for v in value]
        return value

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


class PretrainConfig(BaseModel):
    """Behaviour cloning of ``expert`` before PPO (null: none)."""

    model_config = _STRICT

    expert: str | None = Field(default=None, description="a make_agent spec, e.g. heuristic")
    samples: int = Field(default=200_000, ge=1, description="expert decisions collected")
    epochs: int = Field(default=4, ge=1)
    batch_size: int = Field(default=1024, ge=1)
    learning_rate: float = Field(default=1.0e-3, gt=0)
    value: bool = Field(default=True, description="also fit the value head to the returns")
    holdout: float = Field(default=0.05, ge=0, lt=1, description="share kept to measure agreement")

    @field_validator("expert")
    @classmethod
    def _expert(cls, value: str | None) -> str | None:
        return None if value is None else check_agent_spec(value, "expert")


class RunConfig(BaseModel):
    """Length, seed, vectorisation, checkpoints, evaluation and logging of a run."""

    model_config = _STRICT

    total_steps: int = Field(default=200_000, ge=1, description="learner decisions")
    seed: int = Field(default=0, ge=0)
    n_envs: AutoOrPositive = Field(default=8, description="auto: one per core")
    engine: Literal["aec", "batched"] = Field(
        default="aec",
        description="aec: per-game envs (vec_env/n_workers); batched: n_envs games on one "
        "batched engine (folkcards.train.batched_training_env)",
    )
    vec_env: Literal["auto", "batched", "subproc", "dummy"] = "auto"
    n_workers: AutoOrPositive = Field(default="auto", description="batched: worker processes")
    torch_threads: int = Field(default=1, ge=1)
    runs_dir: str = Field(default="runs", min_length=1)
    checkpoint_every: int = Field(default=50_000, ge=0)
    keep_checkpoints: int = Field(default=3, ge=0)
    eval_every: int = Field(default=50_000, ge=0, description="0: only at the end")
    eval_deals: int = Field(default=100, ge=0, description="per evaluation, every seat (0: none)")
    eval_opponent: str = "heuristic"
    eval_method: Literal["tournament", "duplicate"] = "tournament"
    eval_seed: int = Field(default=12345, ge=0)
    progress_bar: bool = True
    tensorboard: bool = True
    log_interval: int = Field(default=1, ge=1)

    @field_validator("eval_opponent")
    @classmethod
    def _eval_opponent(cls, value: str) -> str:
        return check_agent_spec(value, "evaluation opponent")


class TrainConfig(BaseModel):
    """A whole training configuration."""

    model_config = _STRICT

    env: EnvConfig = Field(default_factory=EnvConfig)
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    algorithm: AlgorithmConfig = Field(default_factory=AlgorithmConfig)
    pretrain: PretrainConfig = Field(default_factory=PretrainConfig)
    run: RunConfig = Field(default_factory=RunConfig)

    @model_validator(mode="after")
    def _batched_engine(self) -> TrainConfig:
        if self.run.engine == "batched":
            from .batched_training_env import check_batched_support

            specs = [e.spec for e in self.opponents.pool if e.weight > 0]
            try:
                check_batched_support(
                    self.env.game, self.env.kwargs, specs, self.env.duplicate_baseline
                )
            except ValueError as error:
                raise ValueError(f"run.engine batched: {error}") from None
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


def check_env_kwargs(game: str, kwargs: dict[str, Any], fields: list[str]) -> None:
    """``ValueError`` (one line) for an ``env`` group key that is neither one of the group's
    ``fields`` nor a ``raw_env`` argument of ``game``, or that the env itself refuses."""
    from folkcards.envs.registry import game_spec

    allowed = env_arguments(game)
    for key in kwargs:
        if key not in allowed:
            raise ValueError(_unknown(key, f"group 'env' for {game}", [*fields, *allowed]))
    game_spec(game).raw_env(**kwargs)  # the env checks its own arguments


def _unknown(key: str, where: str, known: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key {key!r} in {where}{hint}; known keys: {', '.join(known)}"


def error_message(error: Any) -> str:
    """One line for the first pydantic error: the dotted key, the problem, the value."""
    loc = [f"[{part}]" if isinstance(part, int) else str(part) for part in error["loc"]]
    key = ".".join(loc).replace(".[", "[")
    if error["type"] == "extra_forbidden":
        parents = loc[:-1]
        if not parents:
            close = difflib.get_close_matches(loc[0], GROUPS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"unknown group {loc[0]!r}{hint}; known groups: {', '.join(GROUPS)}"
        model: Any = TrainConfig
        for part in parents:
            field = model.model_fields.get(part)
            if field is None:  # a list index
                continue
            model = field.annotation
            if getattr(model, "__origin__", None) is list:
                model = model.__args__[0]
        where = f"group {parents[0]!r}" if len(parents) == 1 else key.rpartition(".")[0]
        return _unknown(loc[-1], where, tuple(model.model_fields))
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "value_error":
        if message.startswith("unknown key") or not key:
            return message
        return f"{key}: {message}"
    return f"{key}: {message}, got {error['input']!r}"


def config_from_dict(data: Any, source: str = "config") -> TrainConfig:
    """Build and validate a :class:`TrainConfig` from the YAML form."""
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source}: the top level must be a mapping with groups {', '.join(GROUPS)}"
        )
    for group in GROUPS:
        if group in data and data[group] is None:
            data = {**data, group: {}}
    try:
        config = TrainConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {error_message(exc.errors()[0])}") from None
    _check_table_size(config, source)
    return config


def _check_table_size(config: TrainConfig, source: str) -> None:
    """Refuse, before training starts, an agent of the config that cannot sit at its table."""
    from folkcards.agents.table_sizes import check_table
    from folkcards.envs.registry import game_spec

    game = game_spec(config.env.game)
    players = config.env.kwargs.get("num_players", game.default_players)
    specs = [entry.spec for entry in config.opponents.pool if entry.spec != "self"]
    specs += [s for s in (config.env.duplicate_baseline, config.pretrain.expert) if s]
    specs.append(config.run.eval_opponent)
    try:
        check_table(specs, game.name, players)
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None


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
    data = config.to_dict()
    for key, value in overrides.items():
        if value is not None:
            if key not in RunConfig.model_fields:
                raise ConfigError(f"unknown run setting {key!r}")
            data["run"][key] = value
    return config_from_dict(data, "overrides")


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
