"""The one description of each game: everything else in the package asks this registry.

A :class:`GameSpec` names a game's env module, registry id, action count, player range,
episode modes with their units and metrics, observation decoder and default heuristic. Adding a
third game means one new folder under ``envs/`` (rules, observation, env and a ``<name>_v0``
module, as ``docs/adding_a_game.md`` describes) and one entry in :data:`GAMES` below.

>>> from folkcards.envs.registry import game_spec
>>> spec = game_spec("tri-palki")
>>> spec.name, spec.num_actions, spec.check_players(5)
('tri_palki', 13, 5)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from .paston.rules import NUM_ACTIONS as PASTON_NUM_ACTIONS
from .tri_palki.rules import MAX_PLAYERS as TRI_PALKI_MAX_PLAYERS
from .tri_palki.rules import MIN_PLAYERS as TRI_PALKI_MIN_PLAYERS
from .tri_palki.rules import NUM_ACTIONS as TRI_PALKI_NUM_ACTIONS


@dataclass(frozen=True)
class EpisodeMode:
    """One value of a game's ``episode`` option and how a tournament scores it."""

    name: str  # the env's ``episode=`` value
    unit: str  # what one tournament unit is called ("deal", "game", "round", "match")
    metric: str  # what a seat's score means, for reports
    multi: bool  # several deals / rounds in one episode (game, match)


@dataclass(frozen=True)
class GameSpec:
    """Everything the package needs to know about one game, written once."""

    name: str  # canonical name, also the agents' ``game`` argument
    title: str  # for people
    aliases: tuple[str, ...]
    module: str  # the public, versioned env module
    env_id: str  # PettingZoo registry id
    num_actions: int
    min_players: int
    max_players: int
    default_players: int
    modes: tuple[EpisodeMode, ...]
    higher_is_better: bool  # of the per-seat score
    heuristic: str  # "module:Class" of the default rule-based agent
    round_word: str = field(default="deal")  # "deal" or "round": what one hand of play is called
    # "module:function" giving the start index of each named observation piece for n players
    observation_offsets: str | None = None
    # the observation piece that only counts turns (a clock, not part of the position), if any
    turn_counter: str | None = None
    # a variant's base game: same actions, observation layout and masks, so the base game's
    # agents, feature sets and trained models can act in it (None for a game of its own)
    base_game: str | None = None

    @property
    def fixed_players(self) -> bool:
        return self.min_players == self.max_players

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(mode.name for mode in self.modes)

    def mode(self, name: str) -> EpisodeMode:
        """The episode mode called ``name``; ``ValueError`` naming the game's modes otherwise."""
        for mode in self.modes:
            if mode.name == name:
                return mode
        raise ValueError(
            f"{self.name} has episode modes {', '.join(self.mode_names)}, not {name!r}"
        )

    def check_players(self, num_players: Any) -> int:
        """``num_players`` as an int if this game can be played by that many; else ``ValueError``."""
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, int)
            or not self.min_players <= num_players <= self.max_players
        ):
            if self.fixed_players:
                raise ValueError(
                    f"{self.name} is played by exactly {self.min_players} players, "
                    f"got {num_players!r}"
                )
            raise ValueError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players, "
                f"got {num_players!r}"
            )
        return int(num_players)

    def turn_counter_index(self, num_players: int) -> int | None:
        """Index of the observation's turn counter for ``num_players``; ``None`` if it has none."""
        if self.observation_offsets is None or self.turn_counter is None:
            return None
        module, _, function = self.observation_offsets.partition(":")
        offsets = getattr(importlib.import_module(module), function)(num_players)
        return int(offsets[self.turn_counter])

    def env_module(self) -> ModuleType:
        """The public env module (``folkcards.envs.paston_v0`` …)."""
        return importlib.import_module(self.module)

    def env_kwargs(self, num_players: int | None = None, **kwargs: Any) -> dict[str, Any]:
        """Keyword arguments for ``raw_env``: ``num_players`` only for games that take it."""
        if not self.fixed_players:
            kwargs["num_players"] = self.check_players(
                self.default_players if num_players is None else num_players
            )
        elif num_players is not None:
            self.check_players(num_players)
        return kwargs

    def raw_env(self, num_players: int | None = None, **kwargs: Any) -> Any:
        """A new ``raw_env`` of this game."""
        return self.env_module().raw_env(**self.env_kwargs(num_players, **kwargs))

    def decode(self, vector: Any, num_players: int | None = None) -> Any:
        """The named pieces of an observation vector (the env module's ``decode``)."""
        module = self.env_module()
        if self.fixed_players:
            return module.decode(vector)
        return module.decode(vector, num_players)

    def replay(self, record: dict[str, Any]) -> Any:
        """Rebuild an env from one of its records (the env module's ``replay``)."""
        return self.env_module().replay(record)


PASTON = GameSpec(
    name="paston",
    title="Paston",
    aliases=("paston",),
    module="folkcards.envs.paston_v0",
    env_id="folkcards/paston-v0",
    num_actions=PASTON_NUM_ACTIONS,
    min_players=3,
    max_players=3,
    default_players=3,
    modes=(
        EpisodeMode("deal", "deal", "table score per deal", multi=False),
        EpisodeMode("game", "game", "table score per deal", multi=True),
    ),
    higher_is_better=True,
    heuristic="folkcards.agents.paston_heuristic:PastonHeuristicAgent",
    round_word="deal",
)

GAMES: dict[str, GameSpec] = {
    "paston": PASTON,
    "tri_palki": GameSpec(
        name="tri_palki",
        title="Tri Palki",
        aliases=("tri_palki", "tri-palki", "tripalki", "tri palki"),
        module="folkcards.envs.tri_palki_v0",
        env_id="folkcards/tri_palki-v0",
        num_actions=TRI_PALKI_NUM_ACTIONS,
        min_players=TRI_PALKI_MIN_PLAYERS,
        max_players=TRI_PALKI_MAX_PLAYERS,
        default_players=4,
        modes=(
            EpisodeMode("round", "round", "sticks per round", multi=False),
            EpisodeMode("match", "match", "sticks per round", multi=True),
        ),
        higher_is_better=False,
        heuristic="folkcards.agents.tri_palki_heuristic:TriPalkiHeuristicAgent",
        round_word="round",
        observation_offsets="folkcards.envs.tri_palki.observation:observation_offsets",
        turn_counter="turns",
    ),
    # A research variant: Paston's decisions before the play, the tricks from the open-hand
    # solver (folkcards.envs.paston_bidding_v0). Everything else is Paston's.
    "paston_bidding": replace(
        PASTON,
        name="paston_bidding",
        title="Paston bidding (tricks from the open-hand solver)",
        aliases=("paston_bidding", "paston-bidding", "paston bidding"),
        module="folkcards.envs.paston_bidding_v0",
        env_id="folkcards/paston-bidding-v0",
        heuristic="folkcards.agents.paston_bidding_heuristic:PastonBiddingHeuristicAgent",
        base_game="paston",
    ),
}

GAME_NAMES: tuple[str, ...] = tuple(GAMES)

_ALIASES = {alias: spec.name for spec in GAMES.values() for alias in (spec.name, *spec.aliases)}


def canonical_game(name: Any) -> str:
    """``"tri-palki"`` → ``"tri_palki"``; ``ValueError`` naming the games for an unknown one."""
    key = str(name).strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(GAME_NAMES)}")
    return _ALIASES[key]


def game_spec(name: Any) -> GameSpec:
    """The :class:`GameSpec` of a game given by its name or an alias."""
    return GAMES[canonical_game(name)]


__all__ = ["GAMES", "GAME_NAMES", "EpisodeMode", "GameSpec", "canonical_game", "game_spec"]
