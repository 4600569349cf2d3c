"""Agents both ways: an OpenSpiel policy as a folkcards agent, a folkcards agent as a policy.

``openspiel:policy=PATH`` (the ``openspiel`` entry point of group ``folkcards.agents``) plays a
saved tabular OpenSpiel policy (:func:`save_policy`) in folkcards tournaments: the agent keeps
its own decisions, builds the information state string the OpenSpiel game gives its seat
(:mod:`.infostate`) and samples the policy's action there. An information state the policy
does not hold is refused in one line, unless the spec says ``missing=uniform``.

:func:`as_policy` makes any folkcards agent spec an ``open_spiel.python.policy.Policy`` of a
game loaded by :func:`folkcards.openspiel.load_game`, so OpenSpiel's evaluation tools
(expected returns, best responses, exploitability on a small game, α-Rank payoff tables) run on
the package's agents.
"""

from __future__ import annotations

import copy
import functools
import json
import zlib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from open_spiel.python import policy as os_policy

from ..agents.base import Agent, legal_actions, make_agent, spec_pairs
from .infostate import InfoStateTracker

POLICY_KEYS = ("policy", "missing")


def save_policy(policy: Any, path: str | Path) -> Path:
    """Write a tabular OpenSpiel policy (Python ``TabularPolicy``, or any with ``to_dict()``;
    C++ ``pyspiel.TabularPolicy``, with ``policy_table()``) as JSON:
    ``{information state: {action: probability}}``, which ``openspiel:policy=PATH`` plays."""
    pairs_of = policy.to_dict() if hasattr(policy, "to_dict") else policy.policy_table()
    table = {
        key: {str(int(action)): float(p) for action, p in pairs if p > 0}
        for key, pairs in pairs_of.items()
    }
    path = Path(path)
    path.write_text(json.dumps(table), encoding="utf-8")
    return path


def load_policy(path: str | Path) -> dict[str, dict[int, float]]:
    """A policy written by :func:`save_policy`; ``ValueError`` (one line) for a bad file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"openspiel policy file {str(path)!r} does not exist")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {key: {int(a): float(p) for a, p in row.items()} for key, row in raw.items()}
    except (ValueError, AttributeError, TypeError) as error:
        raise ValueError(f"{str(path)!r} is not an openspiel policy file: {error}") from None


@functools.lru_cache(maxsize=8)
def _shared_policy(path: str, mtime_ns: int, size: int) -> Mapping[str, Mapping[int, float]]:
    """One read-only table per policy file (and version of it), shared by every agent and copy
    that plays it: a tournament or a search probe makes many."""
    return MappingProxyType(load_policy(path))


class OpenSpielPolicyAgent(Agent):
    """Plays a saved tabular OpenSpiel policy at the information states it reaches. The table
    is read once per file and shared (read-only) by the agents and copies that play it."""

    name = "openspiel"

    def __init__(self, game: str, seat: str, seed: int | None, path: str, missing: str = "refuse"):
        super().__init__(game, seat, seed)
        if missing not in ("refuse", "uniform"):
            raise ValueError(f"openspiel missing= is refuse or uniform, got {missing!r}")
        self.path = Path(path)
        if not self.path.is_file():
            raise ValueError(f"openspiel policy file {str(self.path)!r} does not exist")
        stat = self.path.stat()
        self.table = _shared_policy(str(self.path.resolve()), stat.st_mtime_ns, stat.st_size)
        self.missing = missing
        self.tracker = InfoStateTracker(seat)
        self.misses = 0  # information states the policy did not hold (missing=uniform)

    def reset(self) -> None:
        self.tracker.reset()

    def __deepcopy__(self, memo: dict[int, Any]) -> OpenSpielPolicyAgent:
        clone = copy.copy(self)
        memo[id(self)] = clone
        for key, value in self.__dict__.items():
            if key != "table":  # read-only and shared
                setattr(clone, key, copy.deepcopy(value, memo))
        return clone

    def model_files(self) -> tuple[Path, ...]:
        return (self.path,)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        row = self.table.get(self.tracker.key(observation))
        if row is None:
            if self.missing == "refuse":
                raise ValueError(
                    f"openspiel policy {self.path.name} has no information state for this "
                    f"decision of {self.seat} (add missing=uniform to play uniformly there)"
                )
            self.misses += 1
            probs = np.full(len(legal), 1.0 / len(legal))
        else:
            probs = np.array([row.get(a, 0.0) for a in legal])
            if probs.sum() <= 0:
                raise ValueError(f"openspiel policy {self.path.name} gives no legal action here")
            probs = probs / probs.sum()
        action = legal[int(self.rng.choice(len(legal), p=probs))]
        self.tracker.record(observation, action)
        return action


def make_openspiel_agent(
    game: str, seat: str, seed: int | None, arg: str | None = None, **_: Any
) -> Agent:
    """The ``openspiel:`` agent kind: ``openspiel:policy=PATH[,missing=uniform]``."""
    pairs = dict(spec_pairs(arg, POLICY_KEYS, "openspiel", " (openspiel:policy=PATH)"))
    if "policy" not in pairs:
        raise ValueError("openspiel agents need a policy: openspiel:policy=PATH")
    return OpenSpielPolicyAgent(game, seat, seed, pairs["policy"], pairs.get("missing", "refuse"))


class AgentPolicy(os_policy.Policy):
    """A folkcards agent spec as an OpenSpiel policy of one of the package's OpenSpiel games.

    At a state, the seat's agent is built afresh (seeded from ``seed`` and the seat's
    information state, so the answer is a function of what the seat knows), shown the seat's
    earlier decisions as it saw them, and asked for its probabilities where it plays by them
    (``action_probabilities``, unless it is ``deterministic``), else for ``samples`` choices
    whose frequencies are returned.
    """

    def __init__(self, spec: str, game: Any, seed: int = 0, samples: int = 1):
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        super().__init__(game, list(range(game.num_players())))
        self.spec = spec
        self.game_name = game.spec.name
        self.seed = int(seed)
        self.samples = samples
        make_agent(spec, self.game_name, "player_0", seed=0)  # a bad spec fails here, in one line

    def _agent(self, seat: str, key: str, sample: int) -> Agent:
        seed = zlib.crc32(f"{self.seed}|{sample}|{key}".encode())
        return make_agent(self.spec, self.game_name, seat, seed=seed)

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        seat = state.agents[player]
        observation = state.env.observe(seat)
        key = state.information_state_string(player)
        legal = legal_actions(observation)
        counts = np.zeros(self.game.num_distinct_actions())
        for sample in range(self.samples):
            agent = self._agent(seat, key, sample)
            agent.reset()
            for earlier in state.decision_observations(player):
                agent.act(earlier)
            if plays_by_probabilities(agent):
                probs = np.asarray(agent.action_probabilities(observation), dtype=np.float64)
                return {a: float(probs[a]) for a in legal}
            counts[agent.act(observation)] += 1
        return {a: float(counts[a] / self.samples) for a in legal}


def plays_by_probabilities(agent: Agent) -> bool:
    """Whether ``agent`` plays by sampling its ``action_probabilities`` (a network that plays
    its most likely move is deterministic: its policy is that move)."""
    has = callable(getattr(agent, "action_probabilities", None))
    return has and not getattr(agent, "deterministic", False)


def as_policy(spec: str, game: Any, seed: int = 0, samples: int = 1) -> AgentPolicy:
    """Any folkcards agent spec (``"heuristic"``, ``"ppo"``, ``"pimc:samples=8"`` …) as an
    OpenSpiel ``Policy`` of ``game`` (a game from :func:`folkcards.openspiel.load_game`)."""
    if not hasattr(game, "spec"):
        raise ValueError("as_policy needs a game loaded by folkcards.openspiel.load_game")
    return AgentPolicy(spec, game, seed=seed, samples=samples)
