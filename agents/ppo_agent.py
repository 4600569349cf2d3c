"""PPO agents: a trained MaskablePPO model behind the :class:`~folkcards.agents.base.Agent` API.

Spec strings (kind ``ppo``):

- ``ppo:PATH`` — a MaskablePPO ``.zip`` saved by ``folkcards train`` (or any MaskablePPO model
  with an ``MlpPolicy`` trained on the game's observation vector);
- ``ppo:paston`` / ``ppo:tri_palki`` / plain ``ppo`` — the model committed with the package,
  ``folkcards/agents/models/<game>_ppo.zip`` (plain ``ppo`` means the agent's own game).

``act(observation)`` is the deterministic masked prediction: the legal action with the highest
policy logit. The forward pass runs in numpy (:class:`NumpyPolicy`, about 20 µs per decision
instead of ~200 µs through ``model.predict``); it is the same network, so up to float rounding it
gives the same action as ``model.predict(obs, action_masks=mask, deterministic=True)``. Models
whose policy is not a plain MLP fall back to ``model.predict``.

Every model saved by ``folkcards train`` has a sidecar ``<name>.json`` (game, env arguments,
observation size, number of actions, training steps, feature set); loading checks it against
the agent's game, and without it checks the number of actions and, at the first ``act``, the
observation size. A model trained with a :mod:`~folkcards.agents.features` set gets the same
derived features appended to each observation before its network, so it still plays from the
plain observation. Torch and stable-baselines3 are imported only when a ``.zip`` is loaded.

Table sizes: a Tri Palki model plays every table of 2-11 players, whatever size it was trained
at: another size's observation is translated by :mod:`~folkcards.agents.size_adapter`.
``table_sizes()`` / ``supports(n)`` say what an agent plays, and ``num_players=`` at
construction (``make_agent(spec, game, seat, num_players=n)``) refuses a table it cannot play
with one line naming the sizes it plays (:func:`~folkcards.agents.table_sizes.check_table`
checks a whole line-up).

:class:`NumpyPolicy` is also the format of the self-play snapshots used during training
(``.npz`` files that load without torch).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.registry import GAMES as GAME_SPECS
from ..envs.registry import game_spec
from .base import GAMES, Agent, masked_softmax, spec_pairs
from .features import FeatureSet, get_feature_set
from .table_sizes import sizes_text

MODELS_DIR = Path(__file__).resolve().parent / "models"

_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "identity": lambda x: x,
}
_TORCH_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu", "Identity": "identity"}


class PPOModelError(ValueError):
    """A PPO model is missing, unreadable or made for another game."""


# --- the numpy policy ------------------------------------------------------------------------


class NumpyPolicy:
    """The actor of an MLP policy as numpy arrays: ``logits = W_k·act(…act(W_1·obs + b_1)…) + b_k``.

    ``meta`` carries the model's metadata (``game``, ``obs_size``, ``num_actions``, ...).
    """

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        activation: str = "tanh",
        meta: dict[str, Any] | None = None,
    ):
        if len(weights) != len(biases) or not weights:
            raise ValueError(
                "a NumpyPolicy needs one bias per weight matrix, and at least one layer"
            )
        if activation not in _ACTIVATIONS:
            raise ValueError(
                f"unsupported activation {activation!r}; known: {', '.join(_ACTIVATIONS)}"
            )
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        # Pre-transposed copies make the per-decision matmul a row-vector product.
        self._wt = [np.ascontiguousarray(w.T) for w in self.weights]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]
        self.meta = dict(meta or {})
        self.obs_size = int(self.weights[0].shape[1])
        self.num_actions = int(self.weights[-1].shape[0])

    # construction ---------------------------------------------------------------------------

    @classmethod
    def from_sb3(cls, model: Any, meta: dict[str, Any] | None = None) -> NumpyPolicy:
        """Extract the actor of a MaskablePPO (``MlpPolicy``) model; ``ValueError`` if unsupported."""
        from stable_baselines3.common.torch_layers import FlattenExtractor
        from torch import nn

        policy = model.policy
        extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
        if not isinstance(extractor, FlattenExtractor):
            raise ValueError(f"unsupported features extractor {type(extractor).__name__}")
        weights: list[np.ndarray] = []
        biases: list[np.ndarray] = []
        activation = None
        for module in policy.mlp_extractor.policy_net:
            if isinstance(module, nn.Linear):
                weights.append(module.weight.detach().cpu().numpy().copy())
                biases.append(module.bias.detach().cpu().numpy().copy())
            else:
                name = _TORCH_ACTIVATIONS.get(type(module).__name__)
                if name is None or (activation is not None and name != activation):
                    raise ValueError(f"unsupported policy layer {type(module).__name__}")
                activation = name
        action_net = policy.action_net
        if not isinstance(action_net, nn.Linear):
            raise ValueError(f"unsupported action net {type(action_net).__name__}")
        weights.append(action_net.weight.detach().cpu().numpy().copy())
        biases.append(action_net.bias.detach().cpu().numpy().copy())
        info = {"obs_size": int(weights[0].shape[1]), "num_actions": int(weights[-1].shape[0])}
        info.update(meta or {})
        return cls(weights, biases, activation or "identity", info)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Save as ``.npz`` (loads without torch)."""
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        meta = {**self.meta, "activation": self.activation, "layers": len(self.weights)}
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> NumpyPolicy:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            n = int(meta.pop("layers"))
            activation = meta.pop("activation")
            weights = [data[f"w{i}"] for i in range(n)]
            biases = [data[f"b{i}"] for i in range(n)]
        return cls(weights, biases, activation, meta)

    # inference ------------------------------------------------------------------------------

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation vector (or a batch, rows = observations)."""
        x = np.asarray(obs, dtype=np.float32)
        last = len(self._wt) - 1
        for i, (wt, b) in enumerate(zip(self._wt, self.biases, strict=True)):
            x = x @ wt + b
            if i < last:
                x = self._act(x)
        return x

    def act(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator | None = None,
        deterministic: bool = True,
    ) -> int:
        """The best legal action (``deterministic``) or one sampled from the masked softmax."""
        logits = self.logits(obs).astype(np.float64)
        legal = np.asarray(mask).astype(bool)
        if not legal.any():
            raise ValueError("the action mask has no legal action: this agent is not to act")
        logits[~legal] = -np.inf
        if deterministic:
            return int(np.argmax(logits))
        if rng is None:
            raise ValueError("sampling needs an rng")
        return int(rng.choice(len(logits), p=masked_softmax(logits, legal)))

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return self.act(obs, mask)


class _TorchPolicy:
    """Fallback for policies :class:`NumpyPolicy` cannot mirror: ``model.predict``."""

    def __init__(self, model: Any, meta: dict[str, Any]):
        self.model = model
        self.meta = meta
        self.obs_size = int(model.observation_space.shape[0])
        self.num_actions = int(model.action_space.n)

    def act(
        self, obs: np.ndarray, mask: np.ndarray, rng: Any = None, deterministic: bool = True
    ) -> int:
        action, _ = self.model.predict(
            obs, action_masks=np.asarray(mask, dtype=bool), deterministic=deterministic
        )
        return int(action)


def policy_from_model(model: Any, meta: dict[str, Any]) -> NumpyPolicy | _TorchPolicy:
    """The policy of a loaded MaskablePPO model: its numpy mirror when the network is a plain
    MLP, else ``model.predict`` behind the same interface."""
    try:
        return NumpyPolicy.from_sb3(model, meta)
    except ValueError:
        return _TorchPolicy(model, meta)


# --- model files ------------------------------------------------------------------------------


def sidecar_path(model_path: str | os.PathLike[str]) -> Path:
    """``run/model.zip`` → ``run/model.json``."""
    path = Path(model_path)
    return (
        path.with_suffix(".json") if path.suffix == ".zip" else path.with_name(path.name + ".json")
    )


def write_sidecar(model_path: str | os.PathLike[str], meta: dict[str, Any]) -> Path:
    path = sidecar_path(model_path)
    path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return path


def read_sidecar(model_path: str | os.PathLike[str]) -> dict[str, Any] | None:
    path = sidecar_path(model_path)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise PPOModelError(f"unreadable model metadata {path}: {exc}") from exc


def resolve_model_path(arg: str | None, game: str) -> Path:
    """The file a ``ppo[:ARG]`` spec names: a game name (or nothing) means the packaged model;
    nothing, for a variant without a model of its own, its base game's (same observations)."""
    if arg is None or arg in GAMES:
        path = MODELS_DIR / f"{arg or game}_ppo.zip"
        family = MODELS_DIR / f"{game_spec(game).family}_ppo.zip"
        return family if arg is None and not path.is_file() and family.is_file() else path
    return Path(arg).expanduser()


PPO_CONFIG = "ppo_full.yaml"  # the training configs of the packaged networks, per game family
DISTILL_CONFIG = "distill.yaml"


def distilled_model_path(game: str) -> Path:
    """The network distilled from ``game``'s search player, committed with the package
    (``folkcards/agents/models/<game>_distilled.zip``; a variant without one uses its base
    game's)."""
    path = MODELS_DIR / f"{game}_distilled.zip"
    family = MODELS_DIR / f"{game_spec(game).family}_distilled.zip"
    return family if not path.is_file() and family.is_file() else path


def network_file(spec: str, game: str) -> Path | None:
    """The saved network an agent spec plays: ``ppo[:ARG]`` its model file, ``distilled[:...]``
    the committed distilled network; ``None`` for a spec without one. The file may not exist."""
    kind, _, arg = spec.partition(":")
    if kind == "ppo":
        return resolve_model_path(arg or None, game)
    if kind == "distilled":
        return distilled_model_path(game)
    return None


_CACHE: dict[tuple[str, float, str], NumpyPolicy | _TorchPolicy] = {}


def load_policy(
    path: str | os.PathLike[str],
    game: str,
    spec: str | None = None,
    trained_by: str = PPO_CONFIG,
) -> NumpyPolicy | _TorchPolicy:
    """Load (cached by path and modification time) the policy of a MaskablePPO ``.zip`` for
    ``game``; a missing packaged model names ``configs/<family>/<trained_by>`` to train it."""
    path = Path(path)
    shown = spec or f"ppo:{path}"
    if not path.is_file():
        packaged = path.parent == MODELS_DIR
        hint = (
            f"no model is committed yet for {path.stem.removesuffix('_ppo')}; train one with "
            f"`folkcards train --config configs/{game_spec(game).family}/{trained_by}` and copy its "
            f"model.zip (and model.json) to {path.name} (and {path.with_suffix('.json').name}) there"
            if packaged
            else "give the path of a model.zip written by `folkcards train`"
        )
        raise PPOModelError(f"agent {shown!r}: no PPO model file at {path}: {hint}")
    meta = read_sidecar(path) or {}
    if meta.get("game") is not None and meta["game"] not in (game, game_spec(game).family):
        raise PPOModelError(
            f"agent {shown!r}: the model at {path} was trained for {meta['game']}, not {game}"
        )
    key = (str(path.resolve()), path.stat().st_mtime, game)
    if key in _CACHE:
        return _CACHE[key]
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise PPOModelError(
            f"agent {shown!r} needs torch, stable-baselines3 and sb3-contrib: pip install 'folkcards[train]'"
        ) from exc
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as exc:
        raise PPOModelError(
            f"agent {shown!r}: cannot load a MaskablePPO model from {path}: {exc}"
        ) from exc
    num_actions = getattr(model.action_space, "n", None)
    shape = getattr(model.observation_space, "shape", None)
    expected_actions = game_spec(game).num_actions
    if num_actions != expected_actions or shape is None or len(shape) != 1:
        trained = meta.get("game") or next(
            (g for g, other in GAME_SPECS.items() if other.num_actions == num_actions),
            "another game",
        )
        raise PPOModelError(
            f"agent {shown!r}: the model at {path} has {num_actions} actions and observations of shape "
            f"{shape} (looks like {trained}); {game} has {expected_actions} actions and a flat observation vector"
        )
    expected = meta.get("obs_size")
    if expected is not None and int(expected) != int(shape[0]):
        raise PPOModelError(
            f"agent {shown!r}: {path} and its metadata disagree on the observation size"
        )
    info = {"game": game, **meta, "obs_size": int(shape[0]), "num_actions": int(num_actions)}
    policy = policy_from_model(model, info)
    _CACHE[key] = policy
    return policy


# --- the agents --------------------------------------------------------------------------------


def model_table_size(policy: NumpyPolicy | _TorchPolicy, game: str) -> int | None:
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
        policy: NumpyPolicy | _TorchPolicy | None = None,
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


@dataclass(frozen=True)
class DistilledParams:
    """A ``distilled`` spec's settings (``None``: the game's default)."""

    endgame: int | None = None  # card play with this many cards or fewer: the endgame search
    endgame_samples: int | None = None  # the endgame search's worlds
    calls: int | None = None  # 1: the game's learned calls decide the calls; 0: the network
    unsure: float | None = None  # the game's search takes the decisions where the network's
    # first choice has probability under this (0: the network takes them all)


def parse_distilled_spec(game: str, arg: str | None) -> DistilledParams:
    """The settings of a ``distilled`` spec argument such as ``"endgame=6,calls=0"``;
    ``ValueError`` in one line for a bad key or value, or a piece asked of a game without it."""
    values: dict[str, Any] = {}
    hint = " (distilled plays the network committed for the game; play another with ppo:PATH)"
    keys = ("endgame", "endgame_samples", "calls", "unsure")
    for key, text in spec_pairs(arg, keys, "distilled", hint):
        if key == "unsure":
            try:
                values[key] = float(text)
            except ValueError:
                raise ValueError(
                    f"distilled parameter unsure needs a number, got {text!r}"
                ) from None
            if not 0.0 <= values[key] <= 1.0:
                raise ValueError(f"distilled parameter unsure must be in [0, 1], got {text}")
            continue
        try:
            values[key] = int(text)
        except ValueError:
            raise ValueError(f"distilled parameter {key} needs an integer, got {text!r}") from None
    params = DistilledParams(**values)
    spec = game_spec(game)
    if params.unsure not in (None, 0.0) and not spec.has("unsure_search"):
        raise ValueError(
            f"distilled: {game} has no search for unsure decisions (unsure=0 or no argument)"
        )
    asked = params.endgame != 0 and (
        params.endgame is not None or params.endgame_samples is not None
    )
    if asked and not spec.has("endgame_search"):
        raise ValueError(f"distilled: {game} has no endgame search (endgame=0 or no argument)")
    if params.calls not in (None, 0, 1):
        raise ValueError(f"distilled parameter calls is 0 or 1, got {params.calls}")
    if params.calls == 1 and not spec.has("learned_calls"):
        raise ValueError(f"distilled: {game} has no learned calls (calls=0 or no argument)")
    return params


def make_endgame_search(
    game: str, seat: str, seed: int | None, cards: int | None, samples: int | None
) -> Any:
    """The game's endgame search for the distilled player (``None`` if the game has none or
    ``cards`` is 0); ``ValueError`` for bad ``cards`` / ``samples``."""
    spec = game_spec(game)
    if cards == 0 or not spec.has("endgame_search"):
        return None
    return spec.piece("endgame_search")(game, seat, seed, cards=cards, samples=samples)


def make_distilled_searches(
    game: str, seat: str, seed: int | None, params: DistilledParams
) -> tuple[Any, ...]:
    """The pieces that take some of the distilled player's decisions from its network, in the
    order they are asked: the game's learned calls, then its endgame search (each if the game
    has it and ``params`` does not turn it off). Each has ``applies(vector)``,
    ``act(observation) -> action or None``, ``reset()`` and ``reseed(seed)``."""
    spec = game_spec(game)
    searches: list[Any] = []
    if params.calls != 0 and spec.has("learned_calls"):
        searches.append(spec.piece("learned_calls")(game, seat, seed))
    endgame = make_endgame_search(game, seat, seed, params.endgame, params.endgame_samples)
    if endgame is not None:
        searches.append(endgame)
    return tuple(searches)


def make_unsure_search(game: str, seat: str, seed: int | None, params: DistilledParams) -> Any:
    """The game's search for the decisions where the distilled network is unsure (``None`` if
    the game has none or ``params.unsure`` is 0); built for the game's family, whose search
    plays every table size of it."""
    spec = game_spec(game)
    if params.unsure == 0.0 or not spec.has("unsure_search"):
        return None
    return spec.piece("unsure_search")(spec.family, seat, seed, threshold=params.unsure)


class DistilledAgent(PolicyAgent):
    """The network distilled from the game's search player (:func:`distilled_model_path`),
    its deterministic masked prediction, with the decisions a cheap exact piece makes better
    taken from it (:func:`make_distilled_searches`). Paston: the expert's learned calls (bids,
    discards, contract, whist from the evaluator, :class:`~folkcards.agents.paston_expert.
    PastonLearnedCalls`; ``calls=0``: the network's) and open-hand PIMC over 64 worlds for
    every card with a choice (:class:`~folkcards.agents.pimc.PastonEndgameSearch`;
    ``endgame=K`` from K cards in hand, ``endgame=0``: the network's), so that with the defaults
    the network decides only the whist after an all-pass; ``distilled:calls=0,endgame=0`` is
    the network alone. Tri Palki: the expert's search takes the decisions where the network's
    first choice has probability under 0.99 (:class:`~folkcards.agents.tri_palki_search.
    TriPalkiUnsureSearch`; ``unsure=P`` sets the threshold, ``unsure=0``: the network alone).
    Under a millisecond per decision at the median."""

    name = "distilled"

    def __init__(
        self,
        game: str,
        seat: str = "player_0",
        seed: int | None = None,
        num_players: int | None = None,
        params: DistilledParams | None = None,
    ):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
        self.path = distilled_model_path(game)
        policy = load_policy(self.path, game, "distilled", trained_by=DISTILL_CONFIG)
        super().__init__(
            game, seat, seed, policy=policy, deterministic=True, label="distilled",
            num_players=num_players,
        )  # fmt: skip
        params = params or DistilledParams()
        self.searches = make_distilled_searches(game, seat, seed, params)
        self.unsure = make_unsure_search(game, seat, seed, params)
        if self.unsure is not None and not isinstance(self.policy, NumpyPolicy):
            raise PPOModelError("distilled: the unsure search needs the network's probabilities")

    def reset(self) -> None:
        super().reset()
        for search in self.searches:
            search.reset()
        if self.unsure is not None:
            self.unsure.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        for search in self.searches:
            action = search.act(observation)
            if action is not None:
                return int(action)
        if self.unsure is None:
            return super().act(observation)
        probabilities = self.action_probabilities(observation)
        if self.unsure.takes(observation, probabilities):
            return int(self.unsure.act(observation))
        action = int(np.argmax(probabilities))
        self.unsure.observe(observation, action)
        return action


def make_distilled_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **kwargs: Any
) -> DistilledAgent:
    """Factory for the ``distilled[:endgame=K,endgame_samples=S,calls=0|1,unsure=P]`` kind
    (``ppo:PATH`` plays any other network)."""
    return DistilledAgent(game, seat, seed, params=parse_distilled_spec(game, arg), **kwargs)


def make_ppo_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **kwargs: Any
) -> PPOAgent:
    """Factory for the ``ppo`` kind: ``ppo:PATH``, ``ppo:<game>`` or ``ppo``."""
    return PPOAgent(game, seat, seed, path=arg, **kwargs)


__all__ = [
    "MODELS_DIR",
    "DistilledAgent",
    "DistilledParams",
    "NumpyPolicy",
    "PPOAgent",
    "PPOModelError",
    "PolicyAgent",
    "check_table_size",
    "distilled_model_path",
    "load_policy",
    "make_distilled_agent",
    "make_ppo_agent",
    "make_unsure_search",
    "model_table_size",
    "network_file",
    "policy_from_model",
    "read_sidecar",
    "resolve_model_path",
    "sidecar_path",
    "write_sidecar",
]
