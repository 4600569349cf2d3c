"""Batched agents: one call decides for many games at once (for the batched training env).

A batched agent answers ``act(obs, mask, streams=None) -> actions``: ``obs`` float32 ``(M, D)``
(the plain observation vectors of the seats to act, in the AEC layout), ``mask`` ``(M, A)`` (any
integer or bool type; every row has a legal action), ``actions`` int64 ``(M,)``, each legal in
its row. ``streams`` (optional) is a ``(M, 4)`` uint64 array of per-row xoshiro256** generator
states (:mod:`folkcards.envs._batched`), advanced in place: an agent that draws random numbers
takes row ``k``'s from ``streams[k]``, so a game's random choices depend only on its own stream
(the batched training env gives every seat of every game its own stream, and replays a deal
with the same choices for its duplicate baseline). Without ``streams`` the agent draws from its
own seeded numpy ``Generator``.

:func:`make_batched_agent` builds one from the :func:`~folkcards.agents.make_agent` specs the
opponent pool uses:

- ``random``: uniform over the legal moves.
- ``heuristic``: the game's batched heuristic
  (``folkcards.agents.paston_heuristic_batched.BatchedPastonHeuristic`` /
  ``folkcards.agents.tri_palki_heuristic_batched.BatchedTriPalkiHeuristic``). Until those modules
  exist, :class:`PerRowHeuristicFallback` asks the per-game heuristic row by row (a temporary,
  slow path; the heuristics are stateless, so it makes the same decisions).
- ``ppo[:ARG]``: the model's actor as a :class:`~folkcards.agents.policy_network.NumpyPolicy` over the
  whole batch, deterministic (argmax of the masked logits) as :class:`PPOAgent` plays; its
  feature set, if any, is applied to the batch first. A model of another table size reads rows
  translated by the game's size adapter (row by row, as :class:`PPOAgent` does).
- A self-play snapshot: :func:`policy_agent` on a loaded ``NumpyPolicy`` (deterministic or
  sampled from the masked softmax).

- ``rllib:RUN``: a policy with one shared network
  (:class:`BatchedRLlibPolicy`), greedy as :class:`RLlibAgent`
  plays.

Other kinds (``pimc``) exist only as per-game Python objects: ``ValueError`` (train with
``run.engine: aec`` against them).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numba import njit

from ..envs._batched import random_legal_actions, rng_next
from ..envs.compile_notice import install as _announce_compiles
from ..envs.registry import UnsupportedError, game_spec, resolve
from .base import masked_softmax
from .features import FeatureSet, get_feature_set


class BatchedAgent(Protocol):
    """``act(obs (M, D) float32, mask (M, A), streams=None) -> int64 (M,)``; see the module."""

    label: str

    def act(
        self, obs: np.ndarray, mask: np.ndarray, streams: np.ndarray | None = None
    ) -> np.ndarray: ...


def _check_batch(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    obs = np.asarray(obs, dtype=np.float32)
    mask = np.asarray(mask)
    if obs.ndim != 2 or mask.ndim != 2 or obs.shape[0] != mask.shape[0]:
        raise ValueError(
            f"obs and mask must be (M, D) and (M, A) with the same M, got {obs.shape} and "
            f"{mask.shape}"
        )
    return obs, mask


def _check_streams(streams: np.ndarray | None, rows: int) -> None:
    if streams is not None and (streams.shape != (rows, 4) or streams.dtype != np.uint64):
        raise ValueError(
            f"streams must be a ({rows}, 4) uint64 array, got {streams.dtype} {streams.shape}"
        )


def uniform_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask``, drawn from ``rng``."""
    legal = np.asarray(mask).astype(bool)
    counts = legal.sum(axis=1)
    if (counts == 0).any():
        raise ValueError(f"row {int(np.argmax(counts == 0))} of the mask has no legal action")
    picks = np.minimum((rng.random(len(counts)) * counts).astype(np.int64), counts - 1)
    ranks = np.cumsum(legal, axis=1) - 1  # rank of each legal action within its row
    return np.argmax(legal & (ranks == picks[:, None]), axis=1).astype(np.int64)


class BatchedRandom:
    """Uniform over the legal moves, from ``streams`` or a seeded numpy ``Generator``."""

    label = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(
        self, obs: np.ndarray, mask: np.ndarray, streams: np.ndarray | None = None
    ) -> np.ndarray:
        obs, mask = _check_batch(obs, mask)
        _check_streams(streams, mask.shape[0])
        if streams is None:
            return uniform_legal(mask, self.rng)
        legal = np.ascontiguousarray(mask, dtype=np.int8)
        if (legal.sum(axis=1) == 0).any():
            raise ValueError(f"row {int(np.argmax(legal.sum(axis=1) == 0))} has no legal action")
        out = np.zeros(mask.shape[0], dtype=np.int64)
        random_legal_actions(legal, streams, out)
        return out


@njit(cache=True)
def _sample_rows(probs: np.ndarray, streams: np.ndarray, out: np.ndarray) -> None:
    for i in range(probs.shape[0]):
        u = float(rng_next(streams, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        acc = 0.0
        last = -1
        out[i] = -1
        for a in range(probs.shape[1]):
            p = probs[i, a]
            if p > 0.0:
                last = a
                acc += p
                if u < acc:
                    out[i] = a
                    break
        if out[i] < 0:  # float rounding left u above the total
            out[i] = last


def masked_logits_choice(
    logits: np.ndarray,
    mask: np.ndarray,
    deterministic: bool,
    rng: np.random.Generator | None = None,
    streams: np.ndarray | None = None,
) -> np.ndarray:
    """Per row: the legal action with the largest logit, or one sampled from the masked
    softmax (from ``streams`` if given, else ``rng``)."""
    legal = np.asarray(mask).astype(bool)
    if (~legal.any(axis=1)).any():
        raise ValueError(f"row {int(np.argmax(~legal.any(axis=1)))} has no legal action")
    if deterministic:
        x = np.where(legal, np.asarray(logits, dtype=np.float64), -np.inf)
        return np.argmax(x, axis=1).astype(np.int64)
    p = masked_softmax(logits, legal)
    out = np.zeros(len(p), dtype=np.int64)
    if streams is not None:
        _sample_rows(np.ascontiguousarray(p), streams, out)
        return out
    if rng is None:
        raise ValueError("sampling needs streams or an rng")
    u = rng.random(len(p))
    cdf = np.cumsum(p, axis=1)
    out[:] = np.minimum((cdf <= u[:, None]).sum(axis=1), p.shape[1] - 1)
    # rounding could land on an illegal action at the end of a row: take the last legal one
    bad = ~legal[np.arange(len(out)), out]
    if bad.any():
        out[bad] = legal.shape[1] - 1 - np.argmax(legal[bad, ::-1], axis=1)
    return out


def batch_features(features: FeatureSet, obs: np.ndarray) -> np.ndarray:
    """``features`` applied to every row of ``obs``: its batched form where one exists
    (``tri_palki_actions_batch``), else row by row."""
    fast = _batched_feature_function(features)
    if fast is not None:
        return np.asarray(fast(obs), dtype=np.float32)
    if len(obs) == 0:
        return np.zeros((0, features.size(obs.shape[1])), dtype=np.float32)
    return np.stack([np.asarray(features(row), dtype=np.float32) for row in obs])


_FEATURE_CACHE: dict[str, Callable[[np.ndarray], np.ndarray] | None] = {}


def _batched_feature_function(features: FeatureSet) -> Callable[[np.ndarray], np.ndarray] | None:
    name = features.name
    if name not in _FEATURE_CACHE:
        found = None
        if features.batch is not None:
            try:
                found = resolve(features.batch)
            except ValueError:
                found = None
        _FEATURE_CACHE[name] = found
    return _FEATURE_CACHE[name]


class LogitsBatchAgent:
    """A batched agent that scores each row's actions by logits (a policy network): checks the
    batch, scores it (:meth:`batch_logits`), and plays the masked argmax, or samples the masked
    softmax with the per-row streams (:func:`masked_logits_choice`)."""

    deterministic: bool
    rng: np.random.Generator

    def batch_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Unmasked logits, one row per observation row."""
        raise NotImplementedError

    def act(
        self, obs: np.ndarray, mask: np.ndarray, streams: np.ndarray | None = None
    ) -> np.ndarray:
        obs, mask = _check_batch(obs, mask)
        _check_streams(streams, mask.shape[0])
        logits = self.batch_logits(obs, mask)
        return masked_logits_choice(logits, mask, self.deterministic, self.rng, streams)


class BatchedPolicy(LogitsBatchAgent):
    """A :class:`~folkcards.agents.policy_network.NumpyPolicy` acting on a whole batch.

    The forward pass runs in torch when it is installed (its matrix products are several times
    faster than numpy's multi-threaded BLAS on a loaded machine), else in numpy; the logits are
    the same up to float rounding.
    """

    def __init__(
        self,
        policy: Any,
        game: str,
        deterministic: bool = True,
        label: str = "policy",
        seed: int | None = None,
        num_players: int | None = None,
    ):
        if not hasattr(policy, "logits"):
            raise ValueError(
                f"{label}: only plain MLP policies (NumpyPolicy) act in batches; this model "
                "needs the per-game path (run.engine: aec)"
            )
        self.policy = policy
        self.game = game
        self.deterministic = bool(deterministic)
        self.label = label
        self.rng = np.random.default_rng(seed)
        name = policy.meta.get("features")
        self.features = get_feature_set(str(name), game) if name else None
        self._adapt: Callable[[np.ndarray], np.ndarray] | None = None
        if num_players is not None:
            self._adapt = _size_adapter(policy, game, int(num_players), self.features)
        self._torch: Any = None
        try:
            import torch

            self._torch = (
                torch,
                [torch.from_numpy(np.ascontiguousarray(w.T)) for w in policy.weights],
                [torch.from_numpy(b) for b in policy.biases],
                {"tanh": torch.tanh, "relu": torch.relu, "identity": lambda x: x}[
                    policy.activation
                ],
            )
        except (ImportError, KeyError, AttributeError):
            self._torch = None

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The policy's unmasked logits for input rows ``x``."""
        if self._torch is None:
            return np.asarray(self.policy.logits(x))
        torch, weights, biases, activation = self._torch
        with torch.no_grad():
            h = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
            last = len(weights) - 1
            for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
                h = h @ w + b
                if k < last:
                    h = activation(h)
            return h.numpy()

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """The network's input rows for plain observation rows (feature set applied; rows of
        another table size translated by the game's size adapter, row by row)."""
        if self._adapt is not None:
            adapt = self._adapt
            x = np.stack([adapt(row) for row in obs]) if len(obs) else obs
        else:
            x = obs if self.features is None else batch_features(self.features, obs)
        if x.shape[1] != self.policy.obs_size:
            raise ValueError(
                f"{self.label}: the model expects inputs of size {self.policy.obs_size}, the "
                f"batch gives {x.shape[1]} (a model of another table size cannot play in the "
                "batched env)"
            )
        return x

    def batch_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.logits(self.inputs(obs))


class BatchedWithSearch:
    """A batched agent (``inner``) whose rows a search takes where it applies (the
    ``distilled`` player's learned calls and endgame,
    :func:`~folkcards.agents.distilled_agent.make_distilled_searches`):
    row by row, each from a fresh search state seeded by the row's stream (or this agent's
    seeded generator without ``streams``), so a game's choices do not depend on the batch."""

    def __init__(self, inner: Any, search: Any, seed: int | None = None):
        self.inner = inner
        self.search = search
        self.label = inner.label
        self.rng = np.random.default_rng(seed)

    def act(
        self, obs: np.ndarray, mask: np.ndarray, streams: np.ndarray | None = None
    ) -> np.ndarray:
        obs, mask = _check_batch(obs, mask)
        _check_streams(streams, mask.shape[0])
        actions = self.inner.act(obs, mask, streams)
        for k in range(obs.shape[0]):
            if not self.search.applies(obs[k]) or np.count_nonzero(mask[k]) < 2:
                continue  # no search, so no random draw from the row's stream
            self.search.reseed(_row_seed(streams, k, self.rng))
            action = self.search.act({"observation": obs[k], "action_mask": mask[k]})
            if action is not None:
                actions[k] = action
        return actions


class BatchedWithUnsureSearch:
    """A batched policy (``inner``) whose rows the game's unsure search takes where the
    network's first choice is unsure (the ``distilled`` player's
    :func:`~folkcards.agents.distilled_agent.make_unsure_search`): the network over the batch, then
    those rows one by one, each from a fresh search state seeded by the row's stream (or this
    agent's seeded generator without ``streams``), so a game's choices do not depend on the
    batch. The search then sees the row's observation alone (not the round before it)."""

    def __init__(self, inner: LogitsBatchAgent, search: Any, seed: int | None = None):
        self.inner = inner
        self.search = search
        self.label = getattr(inner, "label", "distilled")
        self.rng = np.random.default_rng(seed)

    def act(
        self, obs: np.ndarray, mask: np.ndarray, streams: np.ndarray | None = None
    ) -> np.ndarray:
        obs, mask = _check_batch(obs, mask)
        _check_streams(streams, mask.shape[0])
        logits = self.inner.batch_logits(obs, mask)
        actions = masked_logits_choice(logits, mask, True)
        probabilities = masked_softmax(logits, mask.astype(bool))
        for k in range(obs.shape[0]):
            row = {"observation": obs[k], "action_mask": mask[k]}
            self.search.reset()  # each row afresh: nothing of its round is known
            if not self.search.takes(row, probabilities[k]):
                continue  # no search, so no random draw from the row's stream
            self.search.reseed(_row_seed(streams, k, self.rng))
            actions[k] = self.search.act(row)
        return actions


def _row_seed(streams: np.ndarray | None, k: int, rng: np.random.Generator) -> int:
    """The seed of a search for row ``k``: from the row's stream, else from ``rng``."""
    return int(rng_next(streams, k)) if streams is not None else int(rng.integers(2**63))


def _size_adapter(
    policy: Any, game: str, num_players: int, features: FeatureSet | None
) -> Callable[[np.ndarray], np.ndarray] | None:
    """Row translation for a model of another table size (``None`` when the model is of this
    size, or the game has no size adapter for its feature set: ``inputs`` then refuses)."""
    from .ppo_agent import model_table_size

    model_players = model_table_size(policy, game)
    spec = game_spec(game)
    if model_players is None or model_players == num_players or not spec.has("size_adapter"):
        return None
    adapter = spec.piece("size_adapter")
    if features is not None and features.name not in adapter.features:
        return None

    def adapt(row: np.ndarray) -> np.ndarray:
        return np.asarray(adapter.adapt(row, num_players, model_players, features), np.float32)

    return adapt


class BatchedRLlibPolicy(LogitsBatchAgent):
    """An RLlib policy with one shared network acting on a whole batch (the batched engines'
    ``act(obs, mask, streams)`` protocol above): the same
    masked logits as :class:`~folkcards.agents.rllib_agent.RLlibAgent` row by row, greedy (argmax) or sampled from the masked
    softmax. A per-seat policy cannot: the batch does not say whose rows it holds."""

    def __init__(
        self,
        policy: Any,
        game: str,
        greedy: bool = True,
        label: str = "rllib",
        seed: int | None = None,
    ):
        trained = policy.meta.get("game")
        if trained not in (game, game_spec(game).family):
            raise ValueError(f"this RLlib policy was trained for {trained}, not {game}")
        if len(policy.nets) != 1:
            raise ValueError(
                f"{label} has one network per seat; a batch does not say whose rows it holds "
                "(train against it with run.engine: aec)"
            )
        self.policy = policy
        self.net = next(iter(policy.nets.values()))
        self.greedy = self.deterministic = bool(greedy)
        self.label = label
        self.rng = np.random.default_rng(seed)
        self.obs_size = int(policy.meta["obs_size"])

    def batch_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if obs.shape[1] != self.obs_size:
            raise ValueError(
                f"{self.label}: the policy expects inputs of size {self.obs_size}, the batch "
                f"gives {obs.shape[1]} (a policy of another table size cannot play in the "
                "batched env)"
            )
        torch = self.policy.torch
        with torch.no_grad():
            return self.net.logits(
                torch.from_numpy(np.ascontiguousarray(obs)),
                torch.as_tensor(np.asarray(mask, dtype=np.float32)),
            ).numpy()


def make_batched_rllib_agent(
    game: str, num_players: int, seed: int | None, arg: str | None
) -> BatchedRLlibPolicy:
    """The batched form of ``rllib:RUN_DIR`` (greedy, as the per-game agent plays)."""
    from .rllib_agent import load_policy

    if not arg:
        raise ValueError("the rllib agent needs a run directory: rllib:RUN_DIR")
    policy = load_policy(arg)
    players = policy.meta.get("num_players")
    if players is not None and int(players) != int(num_players):
        raise ValueError(
            f"rllib:{arg} was trained at {players} players, not {num_players}: it cannot play "
            "in the batched env of this table"
        )
    return BatchedRLlibPolicy(policy, game, label=f"rllib:{arg}", seed=seed)


class PerRowHeuristicFallback:
    """TEMPORARY: the per-game heuristic asked row by row, until the batched heuristic module
    of the game lands. Same decisions (the heuristics are deterministic and stateless), slow."""

    def __init__(self, game: str, num_players: int):
        from . import make_agent

        self.agent = make_agent("heuristic", game, "player_0", seed=0)  # draws nothing
        self.label = "heuristic (per-row fallback)"

    def act(
        self, obs: np.ndarray, mask: np.ndarray, streams: np.ndarray | None = None
    ) -> np.ndarray:
        obs, mask = _check_batch(obs, mask)
        legal = np.asarray(mask, dtype=np.int8)
        return np.array(
            [
                self.agent.act({"observation": obs[k], "action_mask": legal[k]})
                for k in range(len(obs))
            ],
            dtype=np.int64,
        )


class _HeuristicAdapter:
    """The batched heuristic behind the ``act(obs, mask, streams)`` protocol."""

    def __init__(self, heuristic: Any):
        self.heuristic = heuristic
        self.label = "heuristic"

    def act(
        self, obs: np.ndarray, mask: np.ndarray, streams: np.ndarray | None = None
    ) -> np.ndarray:
        obs, mask = _check_batch(obs, mask)
        return np.asarray(self.heuristic.act(obs, mask), dtype=np.int64)


def batched_heuristic(game: str, num_players: int) -> BatchedAgent:
    """The game's batched heuristic (its registry entry's ``batched_heuristic``, built with
    ``num_players`` if its constructor takes it), or the temporary per-row fallback
    while its module is missing; ``ValueError`` for a game that has none."""
    spec = game_spec(game)
    hook = spec.batched_heuristic
    if hook is None:
        raise UnsupportedError(f"{spec.name} has no batched heuristic")
    try:
        cls = resolve(hook)
    except ValueError as error:
        warnings.warn(
            f"{error}: the {spec.name} heuristic plays row by row (slow)",
            stacklevel=2,
        )
        return PerRowHeuristicFallback(spec.name, num_players)
    takes_players = "num_players" in inspect.signature(cls).parameters
    return _HeuristicAdapter(cls(num_players) if takes_players else cls())


def policy_agent(
    policy: Any, game: str, deterministic: bool, label: str, seed: int | None = None
) -> BatchedPolicy:
    """A batched agent for a loaded policy (e.g. a self-play snapshot)."""
    return BatchedPolicy(policy, game, deterministic=deterministic, label=label, seed=seed)


_REGISTERED: dict[str, Callable[..., BatchedAgent]] = {}

# The kinds any batched engine seats from the spec alone (a training opponent, a benchmark
# bidder); ``rllib`` has a batched form too, but only for one-network policies of the table's
# size, which are checked when one is built.
SPEC_BATCHED_KINDS = ("random", "heuristic", "ppo", "distilled")


def register_batched_agent(kind: str, factory: Callable[..., BatchedAgent]) -> None:
    """Give the agent kind ``kind`` a batched form: ``factory(game=, num_players=, seed=, arg=)``."""
    _REGISTERED[kind] = factory


def make_batched_agent(
    spec: str, game: str, num_players: int | None = None, seed: int | None = None
) -> BatchedAgent:
    """A batched agent from a ``make_agent`` spec (``random``, ``heuristic``, ``ppo[:ARG]``,
    ``rllib:RUN``);
    ``ValueError`` naming the spec for kinds that only exist per game."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    players = game_spec(game).default_players if num_players is None else int(num_players)
    kind, _, arg = spec.partition(":")
    if kind in _REGISTERED:
        return _REGISTERED[kind](game=game, num_players=players, seed=seed, arg=arg or None)
    if kind == "random":
        return BatchedRandom(seed)
    if kind == "heuristic":
        return batched_heuristic(game, players)
    if kind in ("ppo", "distilled"):
        from .distilled_agent import (
            make_distilled_searches,
            make_unsure_search,
            parse_distilled_spec,
        )
        from .policy_files import DISTILL_CONFIG, PPO_CONFIG, load_policy, network_file

        searches: tuple[Any, ...] = ()
        unsure = None
        if kind == "ppo":
            label, trained_by = f"ppo:{arg or game}", PPO_CONFIG
        else:
            params = parse_distilled_spec(game, arg or None)
            searches = make_distilled_searches(game, "player_0", seed, params)
            unsure = make_unsure_search(game, "player_0", seed, params)
            label, trained_by = "distilled", DISTILL_CONFIG
        path = network_file(spec, game)
        assert path is not None  # ppo and distilled specs name a network
        policy = BatchedPolicy(
            load_policy(path, game, label, trained_by=trained_by),
            game,
            deterministic=True,
            label=label,
            seed=seed,
            num_players=players,
        )
        agent: Any = policy if unsure is None else BatchedWithUnsureSearch(policy, unsure, seed)
        for search in reversed(searches):  # the first search asked is the outermost
            agent = BatchedWithSearch(agent, search, seed)
        return agent
    if kind == "rllib":
        return make_batched_rllib_agent(game, players, seed, arg or None)
    raise ValueError(
        f"agent {spec!r} has no batched form (batched kinds: random, heuristic, ppo, distilled, "
        "rllib); "
        "train against it with run.engine: aec"
    )


__all__ = [
    "BatchedAgent",
    "BatchedPolicy",
    "BatchedRLlibPolicy",
    "BatchedRandom",
    "PerRowHeuristicFallback",
    "SPEC_BATCHED_KINDS",
    "batch_features",
    "batched_heuristic",
    "make_batched_agent",
    "make_batched_rllib_agent",
    "masked_logits_choice",
    "policy_agent",
    "register_batched_agent",
    "uniform_legal",
]

_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
