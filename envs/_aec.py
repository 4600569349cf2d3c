"""The AEC skeleton both games share: spaces, reward bookkeeping, illegal actions, rendering.

A game's env subclasses :class:`CardGameAECEnv` and implements ``_apply(seat, action)``,
``_observation(seat)``, ``_legal_mask(seat)``, ``_render_text()`` and ``_record_body()``; the
rules themselves live in a PettingZoo-free engine module. The layer owns what every game
repeats: the spaces, the reset bookkeeping and seeds (:meth:`CardGameAECEnv._begin_episode`),
option checks (:func:`choice_option`, :func:`flag_option`, :func:`positive_int_option`,
:func:`seat_option`), :meth:`CardGameAECEnv.record` and :meth:`CardGameAECEnv.replay`.

``env()`` in the classic PettingZoo convention wraps ``raw_env`` in three wrappers
(``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``).
:func:`make_classic` gives the same behaviour in one thin layer instead: the returned object is
the raw env itself with ``_classic = True``, which changes only what an out-of-range or illegal
action does and enforces calling ``reset`` first.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from .replay import replay_record

ILLEGAL_MOVE_REWARD = -1.0

__all__ = [
    "CardGameAECEnv",
    "bits_to_mask",
    "choice_option",
    "flag_option",
    "fresh_seed",
    "is_int",
    "jsonable",
    "make_classic",
    "positive_int_option",
    "replay_record",
    "seat_option",
]


class CardGameAECEnv(AECEnv):
    """Shared AEC machinery; see the module docstring."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    num_actions: int
    game_name: str  # the registry's name, written into every record
    _classic = False
    _env_kwargs: dict[str, Any]
    _rng: np.random.Generator

    def _setup_agents_and_spaces(self, num_players: int, obs_size: int) -> None:
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (obs_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )
        act_space: spaces.Space[Any] = spaces.Discrete(self.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._no_actions = np.zeros(self.num_actions, dtype=np.int8)
        self._has_reset = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @staticmethod
    def _check_render_mode(render_mode: str | None) -> str | None:
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        return render_mode

    def _begin_episode(self, seed: Any, options: dict[str, Any] | None) -> None:
        """Check and apply ``seed`` (a fresh one for ``None``) and reset the AEC bookkeeping.

        Call it from ``reset`` once the options are checked: a bad seed raises ``ValueError``
        before anything changes.
        """
        if seed is None:
            rng: np.random.Generator | None = self._rng if self._has_reset else None
            seed = fresh_seed(rng)
        elif not is_int(seed):
            raise ValueError(f"seed must be an int or None, got {seed!r}")
        self._rng = np.random.default_rng(int(seed))
        self._seed = int(seed)
        self._options = jsonable(copy.deepcopy(options)) if options else {}
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._actions: list[tuple[str, int]] = []

    def record(self) -> dict[str, Any]:
        """A JSON-serialisable record of the episode so far; :meth:`replay` reproduces it."""
        return {
            "game": self.game_name,
            "env": self.metadata["name"],
            "env_kwargs": dict(self._env_kwargs),
            "seed": self._seed,
            "options": jsonable(self._options),
            "actions": [[agent, action] for agent, action in self._actions],
            **self._record_body(),
        }

    @classmethod
    def replay(cls, record: dict[str, Any] | str) -> CardGameAECEnv:
        """Rebuild an env from one of its :meth:`record` s — the JSON dict or its JSON text —
        and replay every action; returns it. (The ``<game>_v0.replay`` functions also read the
        text form, ``docs/records.md``, through :mod:`folkcards.envs.notation`.)"""
        if isinstance(record, str):
            if not record.lstrip().startswith("{"):
                raise ValueError(
                    "a text record is read by the game module's replay (e.g. paston_v0.replay) "
                    "or folkcards.envs.notation.load_record"
                )
            record = json.loads(record)
        if not isinstance(record, dict):
            raise ValueError(f"a record is a JSON object, got {type(record).__name__}")
        if record.get("env") != cls.metadata["name"]:
            raise ValueError(
                f"a {record.get('env')!r} record cannot be replayed by {cls.metadata['name']}"
            )
        env = cls(**record["env_kwargs"])
        replay_record(env, record)
        return env

    # --- the AEC API -------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self._classic and not self._has_reset:
            EnvLogger.error_observe_before_reset()
        seat = self.agent_seat[agent]
        return {"observation": self._observation(seat), "action_mask": self._mask_for(agent, seat)}

    def _mask_for(self, agent: str, seat: int) -> np.ndarray:
        if (
            agent != self.agent_selection
            or self.terminations.get(agent, True)
            or self.truncations.get(agent, True)
        ):
            return self._no_actions.copy()
        return self._legal_mask(seat)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            if self._classic:
                EnvLogger.error_step_before_reset()
            raise ValueError("step() called before reset()")
        if not self.agents:
            if self._classic:  # OrderEnforcingWrapper: warn and do nothing
                EnvLogger.warn_step_after_terminated_truncated()
                return
            raise ValueError("the episode is over; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_seat[agent]
        if action is None or isinstance(action, (bool, np.bool_)):
            action_id = -1
        else:
            try:
                action_id = int(action)
            except (TypeError, ValueError):
                action_id = -1
            if action_id != action:
                action_id = -1
        if not 0 <= action_id < self.num_actions:
            if self._classic:
                raise AssertionError(f"action {action!r} is not in Discrete({self.num_actions})")
            raise ValueError(
                f"action {action!r} is not an action id: ids run from 0 to {self.num_actions - 1}"
            )
        if not self._is_legal(seat, action_id):
            if self._classic:
                self._terminate_for_illegal_move(agent)
                return
            raise ValueError(
                f"illegal action {action_id} ({self.action_to_string(action_id)}) for {agent}: "
                f"legal now are {self._legal_names(seat)}"
            )
        self._cumulative_rewards[agent] = 0
        self._clear_step_rewards()
        self._apply(seat, action_id)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _terminate_for_illegal_move(self, agent: str) -> None:
        """PettingZoo's ``TerminateIllegalWrapper`` behaviour: the offender gets -1, all end."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_MOVE_REWARD
        for name in self.agents:
            self.infos[name] = {**self.infos.get(name, {}), "illegal_move": name == agent}
        self._accumulate_rewards()
        self._deads_step_first()

    def _legal_names(self, seat: int) -> str:
        mask = self._legal_mask(seat)
        return ", ".join(self.action_to_string(int(a)) for a in np.flatnonzero(mask))

    def _is_legal(self, seat: int, action: int) -> bool:
        return bool(self._legal_mask(seat)[action])

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'human'"
            )
            return None
        if self._classic and not self._has_reset:
            EnvLogger.error_render_before_reset()
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _clear_step_rewards(self) -> None:
        """``rewards`` holds only what the step being applied pays."""
        for name in self.rewards:
            self.rewards[name] = 0.0

    # --- to implement ------------------------------------------------------------------------

    def _apply(self, seat: int, action: int) -> None:
        raise NotImplementedError

    def _observation(self, seat: int) -> np.ndarray:
        raise NotImplementedError

    def _legal_mask(self, seat: int) -> np.ndarray:
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    def _record_body(self) -> dict[str, Any]:
        """The game's own part of :meth:`record` (deals or rounds, totals or sticks …)."""
        raise NotImplementedError

    def action_to_string(self, action: int) -> str:
        raise NotImplementedError


def make_classic(env_class: type[CardGameAECEnv], **kwargs: Any) -> CardGameAECEnv:
    """Build ``env_class(**kwargs)`` with PettingZoo's classic-wrapper behaviour in one layer."""
    env = env_class(**kwargs)
    env._classic = True
    return env


def bits_to_mask(bits: int, size: int) -> np.ndarray:
    """An int8 0/1 array of ``size`` from the low ``size`` bits of ``bits``."""
    raw = np.frombuffer(bits.to_bytes(8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:size].view(np.int8)


def fresh_seed(rng: np.random.Generator | None) -> int:
    """A seed for a ``reset(seed=None)``: drawn from ``rng`` after a first reset, else from the OS.

    Every episode then has an explicit seed, so its record replays exactly.
    """
    if rng is not None:
        return int(rng.integers(2**63))
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)
    return entropy % 2**63


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into plain JSON types (for records)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def is_int(value: Any) -> bool:
    """An int or numpy integer, but not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def choice_option(what: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``; else ``ValueError`` naming the argument."""
    if not isinstance(value, str) or value not in choices:
        names = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
        raise ValueError(f"{what} must be {names}, got {value!r}")
    return value


def flag_option(what: str, value: Any) -> bool:
    """``value`` as a bool if it is one; else ``ValueError`` naming the argument."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be True or False, got {value!r}")
    return bool(value)


def positive_int_option(what: str, value: Any) -> int:
    """``value`` as an int if it is a positive integer; else ``ValueError`` naming it."""
    if not is_int(value) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def seat_option(value: Any, num_players: int, what: str = "dealer") -> int:
    """Parse a seat given as an int or ``"player_k"``; ``ValueError`` naming the option otherwise."""
    if isinstance(value, str) and value.startswith("player_") and value[7:].isdigit():
        value = int(value[7:])
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or not 0 <= value < num_players
    ):
        raise ValueError(
            f"option {what!r} must be a seat from 0 to {num_players - 1} (or 'player_k'), "
            f"got {value!r}"
        )
    return int(value)
