"""Every registered game as an OpenSpiel Python game (``pyspiel.register_game``).

A game's OpenSpiel state holds the package's own env in its single-deal episode (a Paston deal,
a Tri Palki round) and the registry's ``explicit_chance`` piece of the game, which turns the
deal (and every Tri Palki reserve draw) into chance nodes with their probabilities; the players'
moves are the env's steps, the returns its rewards (table points, sticks), the legal actions its
action masks, the action strings its ``action_to_string``. Information states and observations
come from the env's observations (:mod:`.infostate`), so no rule is written twice and nothing
hidden leaks.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import numpy as np
import pyspiel

from ..envs.registry import GAMES, GameSpec, game_spec
from .infostate import information_state_string, observation_string

PREFIX = "folkcards_"
_PENDING_DEAL = -1  # the env's reset waits for the deal's chance events
_registered: dict[str, str] = {}  # registry name -> OpenSpiel short name


def short_name(game: str) -> str:
    """The OpenSpiel name of a registered game: ``folkcards_`` and its registry name."""
    return PREFIX + game_spec(game).name


def _parameters(spec: GameSpec) -> dict[str, Any]:
    """The OpenSpiel parameters and their defaults: the table size (for a game with a choice),
    the dealer's seat, and the env options the chance piece names (Tri Palki's ``max_turns``)."""
    params: dict[str, Any] = {"dealer": 0}
    if not spec.fixed_players:
        params["players"] = spec.default_players
    defaults = inspect.signature(spec.env_module().raw_env).parameters
    for name in getattr(spec.piece("explicit_chance"), "env_parameters", ()):
        params[name] = defaults[name].default
    return params


def _single_mode(spec: GameSpec) -> str:
    """The episode of one deal or round: the first of the game's modes that is not multi."""
    for mode in spec.modes:
        if not mode.multi:
            return mode.name
    raise ValueError(f"{spec.name} has no single-deal episode mode")


class FolkcardsGame(pyspiel.Game):
    """One registered game as an OpenSpiel game; made per game by :func:`register`."""

    spec_name = ""

    def __init__(self, params: dict[str, Any] | None = None):
        spec = GAMES[self.spec_name]
        self.spec = spec
        values = {**_parameters(spec), **(params or {})}
        self.num_seats = spec.check_players(values.get("players", spec.default_players))
        dealer = values["dealer"]
        if (
            isinstance(dealer, bool)
            or not isinstance(dealer, int)
            or not 0 <= dealer < self.num_seats
        ):
            raise ValueError(
                f"dealer must be a seat from 0 to {self.num_seats - 1}, got {dealer!r}"
            )
        self.dealer = int(dealer)
        self.env_options = {
            key: values[key] for key in _parameters(spec) if key not in ("dealer", "players")
        }
        self.mode = _single_mode(spec)
        self.chance = spec.piece("explicit_chance")
        probe = self.spec.raw_env(self.num_seats, episode=self.mode, **self.env_options)
        self._blank_env = probe  # never reset: each new state starts from a copy of it
        self.agents = tuple(probe.possible_agents)
        low, high = self.chance.utility_range(self.num_seats)
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.num_actions,
            max_chance_outcomes=self.chance.max_outcomes,
            num_players=self.num_seats,
            min_utility=low,
            max_utility=high,
            max_game_length=self.chance.max_events(self.num_seats, probe)
            + self.chance.max_decisions(self.num_seats, probe),
        )
        self.observation_size = int(
            probe.observation_space(probe.possible_agents[0])["observation"].shape[0]
        )
        super().__init__(_game_type(spec), info, values)

    def new_env(self) -> Any:
        """A fresh env of this game in its single-deal episode (a copy: building one costs
        more than copying it, and OpenSpiel builds a state for every clone)."""
        return copy.deepcopy(self._blank_env)

    def new_initial_state(self) -> FolkcardsState:
        return FolkcardsState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> FolkcardsObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return FolkcardsObserver(self, perfect_recall)


class _Record:
    """What a state has seen so far: the chance event awaited, each seat's decisions (as
    strings and as observation bytes), the returns and the end, and the current observations.
    OpenSpiel clones a state at every node of a tree by deep-copying its attributes; this one
    copies in a few list copies (its strings, bytes and tuples are never changed)."""

    __slots__ = ("pending", "decisions", "seen", "total", "over", "observed")

    def __init__(self, num_seats: int):
        self.pending: int | None = _PENDING_DEAL  # what the env does once chance has spoken
        self.decisions: list[tuple[str, ...]] = [()] * num_seats
        self.seen: list[tuple[tuple[bytes, bytes], ...]] = [()] * num_seats
        self.total = [0.0] * num_seats
        self.over = False
        # each seat's current observation and its string, until the next move changes them
        self.observed: dict[int, tuple[dict[str, np.ndarray], str]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Record:
        new = _Record.__new__(_Record)
        new.pending, new.over = self.pending, self.over
        new.decisions, new.seen = self.decisions.copy(), self.seen.copy()
        new.total, new.observed = self.total.copy(), self.observed.copy()
        return new


class FolkcardsState(pyspiel.State):
    """A state of one deal or round: the env, the chance events so far and each seat's moves."""

    def __init__(self, game: FolkcardsGame):
        super().__init__(game)
        self.env = game._blank_env  # shared until the deal is complete: then a copy is reset
        self.agents = game.agents
        self.chance = game.chance(self.env, game.dealer)
        self.record = _Record(len(self.agents))
        self._resume()

    @property
    def pending(self) -> int | None:
        return self.record.pending

    @property
    def decisions(self) -> list[tuple[str, ...]]:
        """Each seat's past decisions, as ``observation>action`` strings."""
        return self.record.decisions

    # --- moves -----------------------------------------------------------------------------

    def _chance_to_move(self) -> bool:
        return bool(self.chance.outcomes())

    def current_player(self) -> int:
        if self.record.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.record.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        return self.env.agent_seat[self.env.agent_selection]  # type: ignore[no-any-return]

    def is_terminal(self) -> bool:
        return self.record.over

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.chance.outcomes()

    def _legal_actions(self, player: int) -> list[int]:
        mask = self._observed(player)[0]["action_mask"]
        return [int(a) for a in np.flatnonzero(mask)]

    def _observed(self, player: int) -> tuple[dict[str, np.ndarray], str]:
        """The env's observation of ``player`` now and its string (kept until the next move)."""
        observed = self.record.observed.get(player)
        if observed is None:
            seen = self.env.observe(self.agents[player])
            observed = self.record.observed[player] = (seen, observation_string(seen))
        return observed

    def _apply_action(self, action: int) -> None:
        record = self.record
        if record.pending is not None:
            self.chance.apply(action)
        else:
            seat = self.current_player()
            seen, text = self._observed(seat)
            record.seen[seat] += ((seen["observation"].tobytes(), seen["action_mask"].tobytes()),)
            record.decisions[seat] += (f"{text}>{int(action)}",)
            record.pending = int(action)
        record.observed = {}
        self._resume()

    def _resume(self) -> None:
        """Do what waits (the env's reset, or a player's action) once chance has spoken."""
        record = self.record
        if record.pending is None or self._chance_to_move():
            return
        action = None if record.pending == _PENDING_DEAL else record.pending
        if not self.chance.ready(self.env, action):
            return  # a wash wants reserve cards: chance draws them first
        if action is None:
            self.env = self.get_game().new_env()
            self.chance.reset(self.env)
        else:
            self.env.step(action)
        record.pending = None
        for seat, agent in enumerate(self.agents):
            record.total[seat] += float(self.env.rewards.get(agent, 0.0))
        record.over = any(self.env.terminations.values()) or any(self.env.truncations.values())

    def returns(self) -> list[float]:
        return list(self.record.total)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.chance.outcome_to_string(action)
        return str(self.env.action_to_string(action))

    def __str__(self) -> str:
        if self.record.pending == _PENDING_DEAL:
            return "dealing"
        return str(self.env._render_text())

    # --- what a seat knows -----------------------------------------------------------------

    def dealt(self) -> bool:
        """Whether the deal is complete (before, nobody has seen a card)."""
        return self.record.pending != _PENDING_DEAL

    def decision_observations(self, player: int) -> list[dict[str, np.ndarray]]:
        """The observations ``player`` decided on so far, in order."""
        return [
            {
                "observation": np.frombuffer(vector, dtype=np.float32),
                "action_mask": np.frombuffer(mask, dtype=np.int8),
            }
            for vector, mask in self.record.seen[player]
        ]

    def observation_of(self, player: int) -> dict[str, np.ndarray] | None:
        """The env's observation of ``player`` now; ``None`` while the deal is dealt."""
        if not self.dealt():
            return None
        return self._observed(player)[0]


class FolkcardsObserver:
    """OpenSpiel's observer: the env's observation (vector and action mask) as a tensor, and as
    a string; with perfect recall, the string is the seat's information state."""

    def __init__(self, game: FolkcardsGame, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.num_actions = game.spec.num_actions
        size = game.observation_size
        self.tensor = np.zeros(size + self.num_actions, np.float32)
        self.dict = {"observation": self.tensor[:size], "action_mask": self.tensor[size:]}

    def set_from(self, state: FolkcardsState, player: int) -> None:
        self.tensor.fill(0.0)
        seen = state.observation_of(player)
        if seen is not None:
            self.dict["observation"][:] = seen["observation"]
            self.dict["action_mask"][:] = seen["action_mask"]

    def string_from(self, state: FolkcardsState, player: int) -> str:
        current = state._observed(player)[1] if state.dealt() else "dealing"
        if not self.perfect_recall:
            return current
        return information_state_string(state.agents[player], state.decisions[player], current)


def _game_type(spec: GameSpec) -> Any:
    return pyspiel.GameType(
        short_name=PREFIX + spec.name,
        long_name=f"{spec.title} (folkcards)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(spec),
    )


def register(game: str) -> str:
    """Register one game of the registry with OpenSpiel (once); its OpenSpiel name."""
    spec = game_spec(game)
    if spec.name in _registered:
        return _registered[spec.name]
    if spec.explicit_chance is None:
        raise ValueError(f"{spec.name} has no explicit chance events, so no OpenSpiel game")
    cls = type(
        f"{spec.name.title().replace('_', '')}OpenSpielGame",
        (FolkcardsGame,),
        {"spec_name": spec.name},
    )
    pyspiel.register_game(_game_type(spec), cls)
    _registered[spec.name] = PREFIX + spec.name
    return _registered[spec.name]


def register_all() -> list[str]:
    """Register every game of the registry that has explicit chance events; their names."""
    return [register(name) for name, spec in GAMES.items() if spec.explicit_chance is not None]


def load_game(game: str, **params: Any) -> Any:
    """``pyspiel.load_game`` of a registered game (registering it first), with ``params`` such as
    ``players=3`` or ``dealer=1``; ``ValueError`` (one line) for a parameter it does not take."""
    name = register(game)
    known = _parameters(game_spec(game))
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(
            f"{name} has no parameter {unknown[0]!r}; its parameters: {', '.join(sorted(known))}"
        )
    return pyspiel.load_game(name, params)
