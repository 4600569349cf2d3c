"""The agent interface shared by both games, and the registry that builds agents from spec strings.

An agent is told its game and seat, and answers ``act(observation) -> action`` from the
PettingZoo observation dict (``{"observation": vector, "action_mask": mask}``) of the agent to
move. ``reset()`` is called at the start of every episode. Agents never see the env's state.

Spec strings: ``"random"``, ``"heuristic"``, ``"ppo:PATH"`` (a saved MaskablePPO model); the
part after the first colon is passed to the agent's factory. Agents from outside the package:
``module:Class``, ``path/to/file.py:Class`` or a plug-in's entry point of group
``folkcards.agents`` (:mod:`folkcards.agents.plugins`).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.registry import GAMES

AgentFactory = Callable[..., "Agent"]
_FACTORIES: dict[str, AgentFactory] = {}


class Agent:
    """Base class: an agent for one ``game`` sitting in one ``seat``."""

    name = "agent"
    # The value this agent gave each legal action in its last decision, in its own units (a
    # search agent's estimate of its score), or None when that decision was not valued (no
    # search ran, or the agent never values actions). Distillation fits these as soft targets.
    last_action_values: dict[int, float] | None = None

    def __init__(self, game: str, seat: str = "player_0", seed: int | None = None):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
        self.game = game
        self.seat = seat
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Called at the start of every episode."""

    def reseed(self, seed: int) -> None:
        """Draw every later random choice from ``seed``: after ``reseed(s)`` and ``reset()``
        two agents of one spec decide alike on the same episode, whatever each did before.
        Callers that replay or pair episodes (training envs, the probe, the opponent pool)
        reseed through this, never by setting ``rng``: an agent whose parts hold generators of
        their own (a search inside it) overrides it to reach them."""
        self.rng = np.random.default_rng(seed)

    def model_files(self) -> tuple[Path, ...]:
        """The files (trained weights) that fix this agent's behaviour beside its code; a
        tournament report records their digests. None for a rule-based agent."""
        return ()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The action id to play, legal under ``observation["action_mask"]``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, seat={self.seat!r})"


def legal_actions(observation: dict[str, np.ndarray]) -> list[int]:
    """The legal action ids of an observation dict; ``ValueError`` if the agent is not to act."""
    legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
    if not legal:
        raise ValueError("the action mask has no legal action: this agent is not to act")
    return legal


class RuleBasedAgent(Agent):
    """An agent that decodes its observation and chooses by rules, never failing a game.

    Subclasses set ``game_name`` and implement ``_decide(vector, legal)``. A forced move is played
    without thinking; if the rules raise or choose an illegal move, ``_fallback(legal)`` is
    played instead, unless ``strict`` is set (tests set it to surface bugs).
    """

    game_name = ""
    strict = False

    def __init__(self, game: str | None = None, seat: str = "player_0", seed: int | None = None):
        game = game or self.game_name
        if game != self.game_name and (
            game not in GAMES or GAMES[game].family != self.game_name
        ):  # a variant of this game (same actions and observations) is played alike
            raise ValueError(f"{type(self).__name__} plays {self.game_name}, not {game!r}")
        super().__init__(game, seat, seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        if len(legal) == 1:
            return legal[0]
        try:
            action = self._decide(np.asarray(observation["observation"]), legal)
        except Exception:  # a heuristic bug must never stop a game
            if self.strict:
                raise
            action = None
        if action is None or action not in legal:
            action = self._fallback(legal)
        return action

    def _decide(self, vector: np.ndarray, legal: list[int]) -> int | None:
        raise NotImplementedError

    def _fallback(self, legal: list[int]) -> int:
        return legal[0]


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The softmax of ``logits`` over the legal actions (0 elsewhere), along the last axis (one
    row, or one per row); every row needs a legal action."""
    x = np.where(legal, np.asarray(logits, dtype=np.float64), -np.inf)
    p = np.exp(x - x.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


def spec_pairs(
    arg: str | None, known: Iterable[str], kind: str, hint: str = ""
) -> list[tuple[str, str]]:
    """The ``key=value`` items of a spec argument such as ``"samples=64,seed=3"``, in order
    (blank items skipped, both sides stripped); ``ValueError`` in one line naming ``kind`` and
    the known keys for an item that is not ``key=value`` with one of them (``hint`` appended)."""
    keys = set(known)
    pairs: list[tuple[str, str]] = []
    for item in (arg or "").split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not eq or key not in keys:
            raise ValueError(
                f"{kind} parameter {item!r} is not key=value with a key of: "
                f"{', '.join(sorted(keys))}{hint}"
            )
        pairs.append((key, text))
    return pairs


def register_agent(kind: str, factory: AgentFactory) -> None:
    """Make ``make_agent("kind[:arg]", ...)`` build ``factory(game=, seat=, seed=, arg=)``."""
    _FACTORIES[kind] = factory


def agent_origin(spec: str) -> str:
    """Where the agent of ``spec`` comes from: built in (with the folkcards version), or an
    entry point, a module or a file (:mod:`folkcards.agents.plugins`), for tournament reports."""
    from folkcards import __version__

    from .plugins import external_origin

    _load_builtin_agents()
    if spec.partition(":")[0] in _FACTORIES:
        return f"built in, folkcards {__version__}"
    return external_origin(spec)


def agent_kinds() -> list[str]:
    _load_builtin_agents()
    return sorted(_FACTORIES)


def make_agent(
    spec: str, game: str, seat: str = "player_0", seed: int | None = None, **kwargs: Any
) -> Agent:
    """Build an agent from a spec string such as ``"random"``, ``"heuristic"`` or ``"ppo:model.zip"``."""
    _load_builtin_agents()
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
    kind, _, arg = spec.partition(":")
    if kind in _FACTORIES:
        return _FACTORIES[kind](game=game, seat=seat, seed=seed, arg=arg or None, **kwargs)
    from .plugins import external_factory

    external = external_factory(spec)
    if external is None:
        shown = spec if len(spec) <= 60 else spec[:59] + "…"
        raise ValueError(
            f"unknown agent {shown!r}; known kinds: {', '.join(sorted(_FACTORIES))}, "
            "or module:Class, file.py:Class, an entry point of group folkcards.agents"
        )
    factory, external_arg = external
    return factory(game=game, seat=seat, seed=seed, arg=external_arg, **kwargs)


_BUILTIN_LOCK = threading.Lock()
_builtin_loaded = False


def _load_builtin_agents() -> None:
    """Register the built-in kinds once, whichever thread asks first (the web table builds
    agents from several threads: none may see the kinds half registered)."""
    global _builtin_loaded
    if _builtin_loaded:
        return
    with _BUILTIN_LOCK:
        if not _builtin_loaded:  # the built-in kinds register themselves, as plug-ins do
            importlib.import_module(f"{__package__}.builtin")  # (by name: builtin imports base)
            _builtin_loaded = True
