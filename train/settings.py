"""What the two training stacks share: the groups and checks both configs are built from.

The SB3 config (:mod:`.config`) and the RLlib config (:mod:`.rllib_config`) take their game
group, opponent entries, behaviour-cloning group and evaluation settings from here, check that
their agents fit the table in one way, report the first pydantic error as the same one line
(with "did you mean" for a mistyped key) and apply ``run`` overrides alike. Every problem is a
:class:`folkcards.errors.ConfigError`.
"""

from __future__ import annotations

import difflib
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from folkcards.errors import ConfigError

STRICT = ConfigDict(extra="forbid", strict=True)

Config = TypeVar("Config", bound=BaseModel)


def check_agent_spec(value: Any, what: str, allow_self: bool = False) -> Any:
    """``value`` if it is an agent spec of a known kind or a plug-in's entry point (group
    ``folkcards.agents``, such as ``openspiel:``; ``"self"`` too if ``allow_self``)."""
    from folkcards.agents import agent_kinds
    from folkcards.agents.plugins import _entry_point

    kinds = sorted({*agent_kinds(), "heuristic", *(["self"] if allow_self else [])})
    kind = value.partition(":")[0] if isinstance(value, str) else None
    if kind not in kinds and (kind is None or _entry_point(kind) is None):
        close = difflib.get_close_matches(str(kind), kinds, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown agent {value!r}{hint}; {what} kinds: {', '.join(kinds)}")
    return value


def env_arguments(game: str) -> list[str]:
    """The keyword arguments of the game's ``raw_env`` (``render_mode`` excepted)."""
    from folkcards.envs.registry import game_spec

    params = inspect.signature(game_spec(game).env_module().raw_env.__init__).parameters
    return [
        p
        for p in params
        if p not in ("self", "render_mode") and params[p].kind is not inspect.Parameter.VAR_KEYWORD
    ]


def unknown_key(key: str, where: str, known: Sequence[str]) -> str:
    """``unknown key 'x' in WHERE (did you mean 'y'?); known keys: …``."""
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key {key!r} in {where}{hint}; known keys: {', '.join(known)}"


def check_env_kwargs(game: str, kwargs: dict[str, Any], fields: list[str]) -> None:
    """``ValueError`` (one line) for an ``env`` group key that is neither one of the group's
    ``fields`` nor a ``raw_env`` argument of ``game``, or that the env itself refuses."""
    from folkcards.envs.registry import game_spec

    allowed = env_arguments(game)
    for key in kwargs:
        if key not in allowed:
            raise ValueError(unknown_key(key, f"group 'env' for {game}", [*fields, *allowed]))
    game_spec(game).raw_env(**kwargs)  # the env checks its own arguments


class GameEnvGroup(BaseModel):
    """The ``env`` group: the game; extra keys are the game's ``raw_env`` arguments."""

    model_config = ConfigDict(extra="allow", strict=True)

    game: str = Field(default="paston", description="a game of folkcards.envs.registry")

    @field_validator("game")
    @classmethod
    def _game(cls, value: str) -> str:
        from folkcards.envs.registry import canonical_game

        return canonical_game(value)

    @model_validator(mode="after")
    def _env_arguments(self) -> GameEnvGroup:
        check_env_kwargs(self.game, self.kwargs, list(type(self).model_fields))
        return self

    @property
    def kwargs(self) -> dict[str, Any]:
        """The ``raw_env`` arguments (the group's extra keys)."""
        return dict(self.model_extra or {})

    @property
    def players(self) -> int:
        """The table size these settings give (the game's default unless ``num_players``)."""
        from folkcards.envs.registry import game_spec

        return int(self.kwargs.get("num_players", game_spec(self.game).default_players))


class OpponentConfig(BaseModel):
    """One opponent entry (the SB3 pool's, RLlib's env-internal opponents)."""

    model_config = STRICT

    spec: str = Field(description="a make_agent spec, or self (frozen learner snapshots)")
    weight: float = Field(default=1.0, ge=0)

    @field_validator("spec")
    @classmethod
    def _spec(cls, value: str) -> str:
        return check_agent_spec(value, "opponent", allow_self=True)


def plain_specs(value: Any) -> Any:
    """A list of opponent entries where a bare string stands for ``{spec: …}``."""
    if isinstance(value, list):
        return [{"spec": v} if isinstance(v, str) else v for v in value]
    return value


class PretrainConfig(BaseModel):
    """Behaviour cloning of ``expert`` before PPO (null: none)."""

    model_config = STRICT

    expert: str | None = Field(default=None, description="a make_agent spec, e.g. heuristic")
    samples: int = Field(default=200_000, ge=1, description="expert decisions collected")
    epochs: int = Field(default=4, ge=1)
    batch_size: int = Field(default=1024, ge=1)
    learning_rate: float = Field(default=1.0e-3, gt=0)
    value: bool = Field(default=True, description="also fit the value head to the returns")
    holdout: float = Field(default=0.05, ge=0, lt=1, description="share kept to measure agreement")
    dagger_rounds: int = Field(
        default=0,
        ge=0,
        description="DAgger rounds after the clone: the network plays the learner's seat, the "
        "expert labels each of its decisions, and the network is refitted to all decisions so far",
    )
    dagger_samples: int | None = Field(
        default=None, ge=1, description="decisions labelled per DAgger round (default: samples)"
    )
    value_temperature: float | None = Field(
        default=None,
        gt=0,
        description="fit the softmax of the expert's action values over this temperature (its "
        "units, e.g. points), where it reports them, instead of its one action (null: its action)",
    )

    best_epoch: bool = Field(
        default=False,
        description="end with the weights of the epoch that did best on the held-out decisions "
        "(lowest regret where the expert values its actions, else highest agreement) instead of "
        "the last epoch's (needs holdout > 0)",
    )

    keep_demonstrations: bool = Field(
        default=False,
        description="write the collected decisions to demonstrations.npz in the run directory",
    )
    demonstrations: str | list[str] | None = Field(
        default=None,
        description="fit the decisions of this demonstrations.npz (an earlier run's "
        "keep_demonstrations), or of a list of them in order, instead of collecting them; "
        "same game and features",
    )
    start_model: str | None = Field(
        default=None,
        description="start from this network's weights instead of new ones: a model.zip "
        "(same game, table, feature set and net_arch as this config) or the agent spec of one "
        "(distilled, ppo, ppo:<game>, ppo:PATH); a clone (expert) then continues from it, "
        "and PPO improves it (SB3 stack only)",
    )

    @field_validator("expert")
    @classmethod
    def _expert(cls, value: str | None) -> str | None:
        return None if value is None else check_agent_spec(value, "expert")

    @field_validator("demonstrations")
    @classmethod
    def _demonstrations(cls, value: str | list[str] | None) -> str | list[str] | None:
        if isinstance(value, list) and not value:
            raise ValueError("demonstrations: an empty list (give a path, a list of them or null)")
        return value

    @model_validator(mode="after")
    def _dagger_needs_expert(self) -> PretrainConfig:
        if self.dagger_rounds and self.expert is None:
            raise ValueError(
                "pretrain.dagger_rounds needs pretrain.expert (who labels the decisions)"
            )
        if self.best_epoch and self.holdout == 0:
            raise ValueError("pretrain.best_epoch needs held-out decisions (holdout above 0)")
        return self


class EvaluationSettings(BaseModel):
    """The ``run`` settings both stacks share: seed, run folder, evaluation and logging."""

    model_config = STRICT

    seed: int = Field(default=0, ge=0)
    runs_dir: str = Field(default="runs", min_length=1)
    eval_every: int = Field(default=50_000, ge=0, description="0: only at the end")
    eval_deals: int = Field(default=100, ge=0, description="per evaluation, every seat (0: none)")
    eval_opponent: str = "heuristic"
    eval_method: Literal["tournament", "duplicate"] = "tournament"
    eval_seed: int = Field(default=12345, ge=0)
    tensorboard: bool = True

    @field_validator("eval_opponent")
    @classmethod
    def _eval_opponent(cls, value: str) -> str:
        return check_agent_spec(value, "evaluation opponent")


def check_agents_fit(game: str, players: int, groups: Mapping[str, Sequence[str | None]]) -> None:
    """``ValueError`` naming the group of the first agent spec that cannot sit at a table of
    ``players`` (``self`` and unset entries are skipped)."""
    from folkcards.agents.table_sizes import check_table

    for group, specs in groups.items():
        try:
            check_table([s for s in specs if s and s != "self"], game, players)
        except ValueError as exc:
            raise ValueError(f"{group}: {exc}") from None


def _group_model(root: type[BaseModel], parents: list[str]) -> Any:
    model: Any = root
    for part in parents:
        field = model.model_fields.get(part)
        if field is None:  # a list index
            continue
        model = field.annotation
        if getattr(model, "__origin__", None) is list:
            model = model.__args__[0]
    return model


def error_message(error: Any, root: type[BaseModel], groups: Sequence[str]) -> str:
    """One line for a pydantic error of a config of type ``root``: the dotted key, the problem,
    the value (an unknown key or group with "did you mean")."""
    loc = [f"[{part}]" if isinstance(part, int) else str(part) for part in error["loc"]]
    key = ".".join(loc).replace(".[", "[")
    if error["type"] == "extra_forbidden":
        parents = loc[:-1]
        if not parents:
            close = difflib.get_close_matches(loc[0], list(groups), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"unknown group {loc[0]!r}{hint}; known groups: {', '.join(groups)}"
        model = _group_model(root, parents)
        where = f"group {parents[0]!r}" if len(parents) == 1 else key.rpartition(".")[0]
        return unknown_key(loc[-1], where, tuple(model.model_fields))
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "value_error":
        if message.startswith("unknown key") or not key:
            return message
        return f"{key}: {message}"
    return f"{key}: {message}, got {error['input']!r}"


def validate_config(
    model: type[Config], data: Any, source: str, groups: Sequence[str], top: str
) -> Config:
    """``model`` validated from the YAML form ``data`` (an empty group may be written as
    nothing); ``ConfigError`` with one line otherwise. ``top`` describes the top level."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping {top}")
    data = {k: ({} if v is None and k in groups else v) for k, v in data.items()}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {error_message(exc.errors()[0], model, groups)}") from None


def with_run_overrides(
    config: Config,
    run_model: type[BaseModel],
    build: Callable[[Any, str], Config],
    overrides: Mapping[str, Any],
) -> Config:
    """A copy of ``config`` with ``run`` fields replaced (``None`` values ignored), built again
    by ``build(data, source)``; ``ConfigError`` for a key that is not a ``run`` setting."""
    data = config.to_dict()  # type: ignore[attr-defined]
    for key, value in overrides.items():
        if value is not None:
            if key not in run_model.model_fields:
                raise ConfigError(f"unknown run setting {key!r}")
            data["run"][key] = value
    return build(data, "overrides")


FlatConfig = TypeVar("FlatConfig", bound=BaseModel)


def load_flat_config(
    model: type[FlatConfig], path: str | os.PathLike[str], **overrides: Any
) -> FlatConfig:
    """A flat (group-less) config of type ``model`` from the YAML file ``path``, with the
    ``overrides`` that are not ``None``; ``ConfigError`` in one line if it is bad."""
    from folkcards.errors import load_yaml

    data = {**load_yaml(path), **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return model(**data)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        if first["type"] == "extra_forbidden":
            known = ", ".join(model.model_fields)
            raise ConfigError(f"{path}: unknown key {key!r}; known keys: {known}") from None
        raise ConfigError(f"{path}: {key}: {first['msg']}, got {first.get('input')!r}") from None


__all__ = [
    "load_flat_config",
    "STRICT",
    "EvaluationSettings",
    "GameEnvGroup",
    "OpponentConfig",
    "PretrainConfig",
    "check_agent_spec",
    "check_agents_fit",
    "check_env_kwargs",
    "env_arguments",
    "error_message",
    "plain_specs",
    "unknown_key",
    "validate_config",
    "with_run_overrides",
]
