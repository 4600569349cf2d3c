"""PPO agents: a trained MaskablePPO model behind the :class:`~folkcards.agents.base.Agent` API.

Spec strings (kind ``ppo``):

- ``ppo:PATH`` — a MaskablePPO ``.zip`` saved by ``folkcards train`` (or any MaskablePPO model
  with an ``MlpPolicy`` trained on the game's observation vector);
- ``ppo:paston`` / ``ppo:tri_palki`` / plain ``ppo`` — the model committed with the package,
  ``folkcards/agents/models/<game>_ppo.zip`` (plain ``ppo`` means the agent's own game).

``act(observation)`` is the deterministic masked prediction: the legal action with the highest
policy logit, through the network in numpy (:mod:`~folkcards.agents.policy_network`). The model
file and its sidecar are found and checked by :mod:`~folkcards.agents.policy_files`; without a
sidecar the observation size is checked at the first ``act``. A model trained with a
:mod:`~folkcards.agents.features` set gets the same derived features appended to each
observation before its network, so it still plays from the plain observation.

Table sizes: a Tri Palki model plays every table of 2-11 players, whatever size it was trained
at: another size's observation is translated by :mod:`~folkcards.agents.size_adapter`.
``table_sizes()`` / ``supports(n)`` say what an agent plays, and ``num_players=`` at
construction (``make_agent(spec, game, seat, num_players=n)``) refuses a table it cannot play
with one line naming the sizes it plays (:func:`~folkcards.agents.table_sizes.check_table`
checks a whole line-up).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.registry import game_spec
from .base import GAMES, Agent, masked_softmax
from .features import FeatureSet, get_feature_set
from .policy_files import load_policy, resolve_model_path
from .policy_network import NumpyPolicy, PPOModelError, TorchPolicy, policy_from_model
from .table_sizes import sizes_text


def model_table_size(policy: NumpyPolicy | TorchPolicy, game: str) -> int | None:
    """The table size whose observations (with the model's feature set) the policy reads, or
    ``None`` if its input size matches none of the table sizes of ``game``'s family (a variant
    fixing the table at another size plays its base game's models through the size adapter)."""
    family = game_spec(game).family
    features = policy.meta.get("features")
    feature_set = get_feature_set(str(features), game) if features else None
    sizes = [
        n
        for n in game_spec(family).table_sizes
        if _input_size(family, n, feature_set) == policy.obs_size
    ]
    trained = (policy.meta.get("env_kwargs") or {}).get("num_players")
    if trained is not None and trained in sizes:
        return int(trained)
    return sizes[0] if len(sizes) == 1 else None


def _input_size(game: str, num_players: int, feature_set: FeatureSet | None) -> int:
    size = _observation_size(game, num_players)
    return size if feature_set is None else feature_set.size(size)


@functools.cache
def _observation_size(game: str, num_players: int) -> int:
    spec = game_spec(game)
    if spec.has("observation_size"):
        return int(spec.piece("observation_size")(num_players))
    env = spec.raw_env(num_players)
    return int(env.observation_space(env.possible_agents[0])["observation"].shape[0])


class PolicyAgent(Agent):
    """An agent acting with a policy object (``act(obs, mask, rng, deterministic)``).

    A Tri Palki model plays every table size: observations of another size go through the
    :mod:`~folkcards.agents.size_adapter` (its feature set's per-move features are computed from
    the real table). :meth:`table_sizes` says which sizes an agent plays.
    """

    name = "policy"
    path: Path | None = None  # the model file the policy was loaded from, if any

    def __init__(
        self,
        game: str,
        seat: str = "player_0",
        seed: int | None = None,
        policy: NumpyPolicy | TorchPolicy | None = None,
        deterministic: bool = True,
        label: str | None = None,
        num_players: int | None = None,
    ):
        super().__init__(game, seat, seed)
        if policy is None:
            raise ValueError("PolicyAgent needs a policy")
        self.policy = policy
        self.deterministic = deterministic
        self.label = label or self.name
        self._checked = False
        features = policy.meta.get("features")
        self._features = get_feature_set(str(features), game) if features else None
        spec = game_spec(game)
        self._adapter = spec.piece("size_adapter") if spec.has("size_adapter") else None
        self._sized = spec.has("observation_size")  # the observation's length gives the table
        self.model_players = model_table_size(policy, game)
        self._obs_players: dict[int, int] = {}
        if num_players is not None:
            check_table_size(self, num_players)

    def model_files(self) -> tuple[Path, ...]:
        return () if self.path is None else (Path(self.path),)

    def table_sizes(self) -> tuple[int, ...]:
        """The table sizes this agent plays (empty if its model fits none of the game's)."""
        if self.model_players is None:
            return ()
        spec = game_spec(self.game)
        adaptable = self._adapter is not None and (
            self._features is None or self._features.name in self._adapter.features
        )
        if adaptable:
            return spec.table_sizes
        return (self.model_players,) if self.model_players in spec.table_sizes else ()

    def plays_text(self) -> str:
        """``"plays tri_palki at 2-11 players"``: for messages."""
        return f"plays {self.game} at {sizes_text(self.table_sizes())}"

    def supports(self, num_players: int) -> bool:
        """Whether this agent plays a table of ``num_players``."""
        return num_players in self.table_sizes()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        vector = self.network_input(observation)
        return self.policy.act(vector, observation["action_mask"], self.rng, self.deterministic)

    def network_input(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The network's input for an observation: its feature set applied, through the size
        adapter for another table size; ``PPOModelError`` for a size or shape it cannot play."""
        vector = np.asarray(observation["observation"])
        players = self._players_of(vector)
        if players is not None and players != self.model_players:
            if not self.supports(players):
                raise PPOModelError(self._size_message(np.shape(vector), players))
            vector = self._adapt(vector, players)
        elif self._features is not None:
            vector = self._features(vector)
        if not self._checked:
            if np.shape(vector) != (self.policy.obs_size,):
                raise PPOModelError(self._size_message(np.shape(vector), players))
            self._checked = True
        return vector

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The network's probability of each action (the masked softmax of its logits; 0 for
        illegal actions). Needs a numpy policy (every committed network is one)."""
        if not isinstance(self.policy, NumpyPolicy):
            raise PPOModelError(f"agent {self.label!r}: its policy gives no probabilities")
        logits = self.policy.logits(self.network_input(observation))
        legal = np.asarray(observation["action_mask"]).astype(bool)
        if not legal.any():
            raise ValueError("the action mask has no legal action: this agent is not to act")
        return masked_softmax(logits, legal)

    def _players_of(self, vector: np.ndarray) -> int | None:
        """The table size of an observation of a game whose size varies with the table (``None``
        for other games or sizes)."""
        if not self._sized or self.model_players is None:
            return None
        size = vector.shape[0]
        if size not in self._obs_players:
            spec = game_spec(self.game)
            sizes = spec.table_sizes
            self._obs_players[size] = next(
                (n for n in sizes if _observation_size(self.game, n) == size), -1
            )
        players = self._obs_players[size]
        return None if players < 0 else players

    def _adapt(self, vector: np.ndarray, players: int) -> np.ndarray:
        """The model input for an observation of a ``players``-player table."""
        assert self.model_players is not None and self._adapter is not None
        return self._adapter.adapt(vector, players, self.model_players, self._features)

    def _size_message(self, shape: tuple[int, ...], players: int | None) -> str:
        sizes = self.table_sizes()
        if players is not None and sizes:
            return f"agent {self.label!r} {self.plays_text()}, not at {players}"
        meta = self.policy.meta
        extra = (
            f" (trained with env arguments {meta['env_kwargs']})" if meta.get("env_kwargs") else ""
        )
        return (
            f"{self.label}: the model expects observations of size {self.policy.obs_size}{extra}, "
            f"but {self.game} gives {shape}"
        )


def check_table_size(agent: PolicyAgent, num_players: int) -> None:
    """``PPOModelError`` (one line naming the sizes it plays) unless ``agent`` plays the table."""
    if not agent.supports(num_players):
        raise PPOModelError(f"agent {agent.label!r} {agent.plays_text()}, not at {num_players}")


class PPOAgent(PolicyAgent):
    """A saved MaskablePPO model; ``act`` is the deterministic masked prediction."""

    name = "ppo"

    def __init__(
        self,
        game: str,
        seat: str = "player_0",
        seed: int | None = None,
        path: str | os.PathLike[str] | None = None,
        model: Any = None,
        deterministic: bool = True,
        num_players: int | None = None,
    ):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
        if model is not None:
            policy = policy_from_model(model, {"game": game})
            label = "ppo:<model>"
        else:
            resolved = resolve_model_path(None if path is None else str(path), game)
            label = f"ppo:{path if path is not None else game}"
            policy = load_policy(resolved, game, label)
            self.path = resolved
        super().__init__(
            game,
            seat,
            seed,
            policy=policy,
            deterministic=deterministic,
            label=label,
            num_players=num_players,
        )


def make_ppo_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **kwargs: Any
) -> PPOAgent:
    """Factory for the ``ppo`` kind: ``ppo:PATH``, ``ppo:<game>`` or ``ppo``."""
    return PPOAgent(game, seat, seed, path=arg, **kwargs)


__all__ = ["PPOAgent", "PolicyAgent", "check_table_size", "make_ppo_agent", "model_table_size"]
