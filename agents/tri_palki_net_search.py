"""Tri Palki ``iterated``: the ``pimc`` search with a network, the player of ``folkcards iterate``.

The same decision as :class:`~folkcards.agents.tri_palki_search.TriPalkiSearchAgent` (worlds
drawn from the observation and weighted by the round so far, every candidate action rolled out
in every world, the fewest sticks wins), with three parts that a network may take over:

- **rollouts**: all worlds x candidate actions are played together in compiled code (the batched
  engine's rules, :mod:`folkcards.envs.tri_palki.batched`), every seat's move chosen for the whole
  batch at once by the network's policy (each distinct table asked once, each row's answer
  summed in one fixed order, the same on any machine), or by the heuristic's
  core rules when there is no network (then the decisions are ``pimc``'s, at a fraction of
  its time: :func:`~folkcards.agents.tri_palki_rollouts.rollout_sticks` and the Python
  rollout agree exactly);
- **priors**: with ``top_k`` > 0 only the ``top_k`` legal actions the policy likes most (and the
  heuristic's own move) are rolled out;
- **the model of the others**: the worlds are weighted by the network's move probabilities
  (the policy has the learned opponent model's shape,
  :class:`~folkcards.agents.tri_palki_opponent_model.LearnedOpponentModel`), remembered per
  table for the agent's lifetime (:class:`~folkcards.agents.tri_palki_table_memo.RememberingModel`);
- **the others**: with ``others=learned`` (or ``rules``) the other seats move in the rollouts,
  and the worlds are weighted, by the shipped learned opponent model (or the heuristic's core
  rules) while the network plays this seat; ``weights=net|learned|rules`` weights the worlds
  by another model than the one moving the others;
- **values**: with ``cutoff`` > 0 and a value network, a rollout still running after ``cutoff``
  actions is scored by the value network's probability that this seat gets the stick.

Spec: ``iterated[:net=DIR,samples=N,top_k=N,cutoff=N,others=net|learned|rules,weights=net|learned|rules,...]`` (``DIR`` holds ``policy.npz`` and
optionally ``value.npz``, as ``folkcards iterate`` writes them; ``net=shipped`` is the network
committed with the package, ``agents/models/tri_palki_iterated/``: its ``source.json`` names the
run and generation; ``net=compact`` is its policy distilled to a smaller network,
``agents/models/tri_palki_iterated_compact/``; the other keys are ``pimc``'s).
Without ``net`` the search is ``expert``'s with the heuristic's rules; the keys the spec leaves
out are the 0.4.0 ``expert``'s (:data:`~folkcards.agents.tri_palki_search.EXPERT_PARAMS_0_4`,
the budget the loop's stored generations were made with). Deterministic given its
seed. Rounds with an eliminated player fall back to ``pimc``'s rollouts, and so does
``rollout=heuristic`` without a network (the full heuristic is not compiled).

Tri Palki's ``expert`` is this search with :data:`EXPERT_PARAMS`: with the shipped network at
the table sizes of :data:`EXPERT_NETS` (for its own seat, and weighting the worlds, at 3, 4 and
6 players), without a network at the others (:class:`TriPalkiExpertAgent`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..envs.tri_palki import observation as obs_mod
from ..search.mlp import Mlp
from ..search.tri_palki_likelihood import OpponentModel
from .tri_palki_opponent_model import load_opponent_model, opponent_features
from .tri_palki_rollouts import (
    NUM_WORLD_FEATURES,
    Batch,
    TriPalkiNet,
    apply_rows,
    load_worlds,
    rollout_sticks,
    world_features,
)
from .tri_palki_search import (
    CORE_MODEL,
    EXPERT_PARAMS,
    EXPERT_PARAMS_0_4,
    TriPalkiSearchAgent,
    TriPalkiSearchParams,
    choose_action,
    parse_spec,
    shipped_opponent_model,
)
from .tri_palki_table_memo import remembered

__all__ = [
    "NetSearchParams",
    "TriPalkiExpertAgent",
    "TriPalkiNetSearchAgent",
    "load_net",
    "make_net_search_agent",
    "make_tri_palki_expert_agent",
]


@dataclass(frozen=True)
class NetSearchParams:
    """What the network changes in the search (spec keys of the same names)."""

    net: str | None = None  # a folder with policy.npz (and value.npz), or "shipped"; None: the
    # heuristic's rules
    top_k: int = 0  # roll out only the policy's top_k actions and the heuristic's (0: all)
    cutoff: int = 0  # score a rollout by the value network after this many actions (0: never)
    others: str = "net"  # the other seats' model (rollout moves and world weights) with a
    # network: "net" (its policy), "learned" (the shipped learned opponent model) or "rules"
    weights: str | None = None  # the model that weights the worlds, if not ``others``'s


class _Mode(NamedTuple):
    """The parts of the search that its network settings decide."""

    net_params: NetSearchParams
    net: TriPalkiNet | None
    others: OpponentModel | None
    opponent_model: OpponentModel


def save_value(value: Mlp, path: str | Path) -> None:
    """Write a value network (``.npz``: ``w0, b0, ...``)."""
    arrays = {f"w{i}": w for i, w in enumerate(value.weights)}
    arrays.update({f"b{i}": b for i, b in enumerate(value.biases)})
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]


SHIPPED_NET = "shipped"
SHIPPED_NET_FOLDER = Path(__file__).parent / "models" / "tri_palki_iterated"
COMPACT_NET = "compact"  # the shipped network's policy distilled to two layers of 48
COMPACT_NET_FOLDER = Path(__file__).parent / "models" / "tri_palki_iterated_compact"
PACKAGED_NETS = {SHIPPED_NET: SHIPPED_NET_FOLDER, COMPACT_NET: COMPACT_NET_FOLDER}


@functools.lru_cache(maxsize=16)
def load_net(folder: str) -> TriPalkiNet:
    """The network in ``folder`` (``policy.npz``, optional ``value.npz``; ``"shipped"`` and
    ``"compact"``: those committed with the package, unless a folder of that name exists);
    ``ValueError`` in one line if there is none."""
    path = Path(folder)
    if folder in PACKAGED_NETS and not path.is_dir():
        path = PACKAGED_NETS[folder]
    policy = load_opponent_model(path / "policy.npz")
    value = None
    if (path / "value.npz").is_file():
        with np.load(path / "value.npz") as data:
            layers = sum(1 for name in data.files if name.startswith("w"))
            value = Mlp(
                tuple(np.asarray(data[f"w{i}"], dtype=np.float32) for i in range(layers)),
                tuple(np.asarray(data[f"b{i}"], dtype=np.float32) for i in range(layers)),
            )
        if value.weights[0].shape[0] != NUM_WORLD_FEATURES:
            raise ValueError(f"{path / 'value.npz'} does not read {NUM_WORLD_FEATURES} features")
    return TriPalkiNet(policy, value)


# --- the agent -------------------------------------------------------------------------------


_NET_KEYS = ("net", "top_k", "cutoff", "others", "weights")
OTHERS = ("net", "learned", "rules")


def parse_net_spec(
    arg: str | None,
    defaults: TriPalkiSearchParams = EXPERT_PARAMS_0_4,
    net_defaults: NetSearchParams | None = None,
) -> tuple[TriPalkiSearchParams, NetSearchParams, int | None]:
    """``(search params, network params, seed)`` from ``"net=DIR,top_k=4,samples=24"``."""
    params, net_values, seed = _split_net_spec(arg, defaults)
    return params, replace(net_defaults or NetSearchParams(), **net_values), seed


def _split_net_spec(
    arg: str | None, defaults: TriPalkiSearchParams
) -> tuple[TriPalkiSearchParams, dict[str, Any], int | None]:
    """``(search params, the network keys the spec sets, seed)``."""
    net_values: dict[str, Any] = {}
    rest = []
    for item in (arg or "").split(","):
        key, eq, text = item.strip().partition("=")
        if key.strip() in _NET_KEYS and eq:
            key, text = key.strip(), text.strip()
            if key == "net":
                net_values[key] = text
                continue
            if key in ("others", "weights"):
                if text not in OTHERS:
                    raise ValueError(f"iterated {key} must be one of {OTHERS}, got {text!r}")
                net_values[key] = text
                continue
            try:
                number = int(text)
            except ValueError:
                raise ValueError(
                    f"iterated parameter {key} needs an integer, got {text!r}"
                ) from None
            if number < 0:
                raise ValueError(f"iterated parameter {key} must be at least 0, got {number}")
            net_values[key] = number
        elif item.strip():
            rest.append(item.strip())
    params, seed = parse_spec(",".join(rest), defaults)
    return params, net_values, seed


class TriPalkiNetSearchAgent(TriPalkiSearchAgent):
    """The Tri Palki search with batched rollouts and an optional network (module docstring).

    With ``record`` True every searched decision appends to :attr:`records` a dict: the
    decision's policy features, the legal actions, the action taken, minus the mean sticks
    per rolled-out action, and ``value_x``/``value_y`` (world features right after each
    candidate action and the rollout's stick), the loop's training data."""

    name = "iterated"

    def __init__(
        self,
        game: str = "tri_palki",
        seat: str = "player_0",
        seed: int | None = None,
        params: TriPalkiSearchParams | None = None,
        net_params: NetSearchParams | None = None,
        net: TriPalkiNet | None = None,
        record: bool = False,
    ):
        super().__init__(game, seat, seed, params or EXPERT_PARAMS_0_4)
        self.net_params = net_params or NetSearchParams()
        self.net: TriPalkiNet | None = None
        self.others: OpponentModel | None = None  # the others' rollout moves if not the network's
        self._use_mode(self._mode(self.net_params, net))
        self.record = record
        self.records: list[dict[str, Any]] = []

    def _mode(self, net_params: NetSearchParams, net: TriPalkiNet | None = None) -> _Mode:
        """What ``net_params`` make of the search: the network, the others' rollout moves and
        the model weighting the worlds (without a network: the budget's, as ``pimc``)."""
        net = net if net is not None else load_net(net_params.net) if net_params.net else None
        if net is None:
            return _Mode(net_params, None, None, self._budget_model())
        models = {"net": None, "learned": shipped_opponent_model, "rules": lambda: CORE_MODEL}
        moving, weighing = (
            models[net_params.others],
            models[net_params.weights or net_params.others],
        )
        return _Mode(
            net_params,
            net,
            moving() if moving is not None else None,
            remembered(weighing() if weighing is not None else net.policy),
        )

    def _use_mode(self, mode: _Mode) -> None:
        self.net_params, self.net, self.others, self.opponent_model = mode

    def _search(
        self,
        vector: np.ndarray,
        view: obs_mod.TriPalkiView,
        legal: list[int],
        observation: dict[str, np.ndarray],
    ) -> int:
        if any(view.eliminated) or (self.net is None and self.params.rollout != "fast"):
            # the compiled rollouts play every seat alive, with the core rules or the network
            return super()._search(vector, view, legal, observation)
        preferred = self._policy.act(observation)
        bases, counts = self._worlds(vector, view, with_rounds=False)
        worlds = [world for world, _ in bases]
        candidates = self._candidates(view, legal, preferred)
        batch = load_worlds(worlds, view, len(candidates))
        first = np.tile(np.array(candidates, dtype=np.int64), len(worlds))
        snapshot = (batch.st.copy(), batch.hands.copy()) if self.record else None
        sticks, played = rollout_sticks(
            batch, first, self.params.horizon, self.net, self.net_params.cutoff, self.others
        )
        self.work["rollout"] += played + len(first)
        outcomes = sticks.reshape(len(worlds), len(candidates))
        if counts is not None:
            outcomes = np.repeat(outcomes, counts, axis=0)
        means = outcomes.mean(axis=0)
        self.last_action_values = {a: -float(s) for a, s in zip(candidates, means, strict=True)}
        action = choose_action(outcomes, candidates, preferred, self.params.confidence)
        if self.record and snapshot is not None:
            self._note(view, legal, action, snapshot, first, sticks)
        return action

    def _candidates(
        self, view: obs_mod.TriPalkiView, legal: list[int], preferred: int
    ) -> list[int]:
        """The legal actions to roll out: all, or the policy's ``top_k`` and ``preferred``."""
        k = self.net_params.top_k
        if self.net is None or k <= 0 or k >= len(legal) or view.phase == "announce":
            return legal
        scores = self.net.policy.scores(_own_features(view))[0]
        ranked = sorted((a for a in legal if a < len(scores)), key=lambda a: -scores[a])
        keep = set(ranked[:k]) | {preferred}
        return [a for a in legal if a in keep]

    def _note(
        self,
        view: obs_mod.TriPalkiView,
        legal: list[int],
        action: int,
        snapshot: tuple[np.ndarray, np.ndarray],
        first: np.ndarray,
        sticks: np.ndarray,
    ) -> None:
        st, hands = snapshot
        after = Batch(len(st), hands.shape[1])
        after.st[:] = st
        after.hands[:] = hands
        apply_rows(after.st, after.hands, after.known, after.deck, np.arange(len(st)), first)
        self.records.append(
            {
                "features": _own_features(view)[0] if view.phase == "action" else None,
                "legal": list(legal),
                "action": int(action),
                "values": dict(self.last_action_values or {}),
                "value_x": world_features(after, np.arange(len(st))),
                "value_y": sticks.astype(np.float32),
            }
        )


def _own_features(view: obs_mod.TriPalkiView) -> np.ndarray:
    """The policy's input at this seat's own decision."""
    hand = sum(1 << c for c in view.hand)
    centre = sum(1 << c for c in view.centre)
    return opponent_features(
        np.array([hand]), np.array([centre]), np.array([view.reserve_low]),
        np.array([view.announced]), np.array([view.pass_ends_round]),
    )  # fmt: skip


def make_net_search_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> TriPalkiNetSearchAgent:
    """The ``iterated[:net=DIR,top_k=N,cutoff=N,<pimc keys>]`` factory (Tri Palki only)."""
    if game != "tri_palki":
        raise ValueError(f"the iterated search plays tri_palki, not {game!r}")
    params, net_params, spec_seed = parse_net_spec(arg)
    return TriPalkiNetSearchAgent(
        game, seat, spec_seed if spec_seed is not None else seed, params, net_params
    )


EXPERT_NET = NetSearchParams(net=SHIPPED_NET, top_k=5, cutoff=10, others="rules")
# the table sizes where ``expert`` searches with the loop's network, and how (docs/iterate.md:
# each where its rule made it ``expert``)
EXPERT_NETS: dict[int, NetSearchParams] = {
    # since 0.14.0 at 3 players the network for its own seat (EXPERT_NET); since 0.15.0 at 3
    # and 4 players also weighting the worlds, since 0.16.0 at 6 players too
    size: replace(EXPERT_NET, weights="net")
    for size in (3, 4, 6)
}
EXPERT_NET_SIZES = tuple(sorted(EXPERT_NETS))


class TriPalkiExpertAgent(TriPalkiNetSearchAgent):
    """Tri Palki ``expert``: the search with :data:`EXPERT_PARAMS`, its rollouts compiled and
    batched. At the table sizes of :data:`EXPERT_NETS` it searches with the loop's network as
    set there: for its own seat (its rollout moves, the actions worth rolling out and the value
    cutoff; the other seats move in the rollouts by the heuristic's core rules) and weighting
    the worlds; the same decisions as the ``iterated`` spec of those keys with that budget. At
    the other sizes without a network, the same decisions as
    :class:`~folkcards.agents.tri_palki_search.TriPalkiSearchAgent` with that budget (``pimc``
    with the same keys), in less time. ``nets={}``: never with the network."""

    name = "expert"

    def __init__(
        self,
        game: str = "tri_palki",
        seat: str = "player_0",
        seed: int | None = None,
        params: TriPalkiSearchParams | None = None,
        nets: dict[int, NetSearchParams] | None = None,
    ):
        super().__init__(game, seat, seed, params or EXPERT_PARAMS)
        self.nets = dict(EXPERT_NETS if nets is None else nets)
        self._modes = {size: self._mode(net_params) for size, net_params in self.nets.items()}
        self._without = self._mode(NetSearchParams())

    def _search(
        self,
        vector: np.ndarray,
        view: obs_mod.TriPalkiView,
        legal: list[int],
        observation: dict[str, np.ndarray],
    ) -> int:
        self._use_mode(self._modes.get(view.num_players, self._without))
        return super()._search(vector, view, legal, observation)


def make_tri_palki_expert_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> TriPalkiExpertAgent:
    """The Tri Palki ``expert[:key=value,...]`` factory: ``iterated``'s keys (a network key
    applies at every size of :data:`EXPERT_NETS`), :data:`EXPERT_PARAMS` and
    :data:`EXPERT_NETS` where the spec is silent."""
    params, given, spec_seed = _split_net_spec(arg, EXPERT_PARAMS)
    nets = {size: replace(settings, **given) for size, settings in EXPERT_NETS.items()}
    return TriPalkiExpertAgent(
        game, seat, spec_seed if spec_seed is not None else seed, params, nets
    )


def with_samples(params: TriPalkiSearchParams, samples: int) -> TriPalkiSearchParams:
    """``params`` with another number of worlds."""
    return replace(params, samples=samples)
