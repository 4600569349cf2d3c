"""Tri Palki ``iterated``: the ``pimc`` search with a network, the player of ``folkcards iterate``.

The same decision as :class:`~folkcards.agents.tri_palki_search.TriPalkiSearchAgent` (worlds
drawn from the observation and weighted by the round so far, every candidate action rolled out
in every world, the fewest sticks wins), with three parts that a network may take over:

- **rollouts**: all worlds x candidate actions are played together in compiled code (the batched
  engine's rules, :mod:`folkcards.envs.tri_palki.batched`), every seat's move chosen for the whole
  batch at once by the network's policy (one matrix product per step), or by the heuristic's
  core rules when there is no network (then the decisions are ``expert``'s, at a fraction of
  its time: :func:`rollout_sticks` and the Python rollout agree exactly);
- **priors**: with ``top_k`` > 0 only the ``top_k`` legal actions the policy likes most (and the
  heuristic's own move) are rolled out;
- **the model of the others**: the worlds are weighted by the network's move probabilities
  (the policy has the learned opponent model's shape,
  :class:`~folkcards.agents.tri_palki_opponent_model.LearnedOpponentModel`);
- **the others**: with ``others=learned`` (or ``rules``) the other seats move in the rollouts,
  and the worlds are weighted, by the shipped learned opponent model (or the heuristic's core
  rules) while the network plays this seat;
- **values**: with ``cutoff`` > 0 and a value network, a rollout still running after ``cutoff``
  actions is scored by the value network's probability that this seat gets the stick.

Spec: ``iterated[:net=DIR,samples=N,top_k=N,cutoff=N,others=net|learned|rules,...]`` (``DIR`` holds ``policy.npz`` and
optionally ``value.npz``, as ``folkcards iterate`` writes them; the other keys are ``pimc``'s).
Without ``net`` the search is ``expert``'s with the heuristic's rules; the keys the spec leaves
out are the 0.4.0 ``expert``'s (:data:`~folkcards.agents.tri_palki_search.EXPERT_PARAMS_0_4`,
the budget the loop's stored generations were made with). Deterministic given its
seed. Rounds with an eliminated player fall back to ``pimc``'s rollouts, and so does
``rollout=heuristic`` without a network (the full heuristic is not compiled).

Tri Palki's ``expert`` is this search without a network (:class:`TriPalkiExpertAgent`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from ..envs.compile_notice import install as _announce_compiles
from ..envs.tri_palki import observation as obs_mod
from ..envs.tri_palki.batched import (
    ANNOUNCER,
    CENTRE,
    DEALER,
    FINAL_LEFT,
    NUM_FIELDS,
    NUM_FIN,
    OUTCOME,
    PASSES,
    PHASE,
    TO_ACT,
    TOP,
    WASHED,
    _apply,
    _settle,
)
from ..envs.tri_palki.kernels import hand_key, hand_kind
from ..envs.tri_palki.rules import (
    ACTION,
    ANNOUNCE,
    ANNOUNCE_DECISION,
    MAX_PLAYERS,
    NORMAL,
    NUM_CARDS,
    OVER,
    THREE_ACES,
)
from ..envs.tri_palki.vocabulary import KEY_VALUE_SHIFT
from ..search.mlp import Mlp
from ..search.tri_palki_likelihood import OpponentModel
from .tri_palki_heuristic_core import MOVES, core_move_into
from .tri_palki_opponent_model import LearnedOpponentModel, load_opponent_model, opponent_features
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

__all__ = [
    "NUM_WORLD_FEATURES",
    "NetSearchParams",
    "TriPalkiExpertAgent",
    "TriPalkiNet",
    "TriPalkiNetSearchAgent",
    "load_net",
    "make_net_search_agent",
    "make_tri_palki_expert_agent",
    "rollout_sticks",
    "world_features",
]

_OTHERS = MAX_PLAYERS - 1
NUM_WORLD_FEATURES = 2 * NUM_CARDS + 3 * (1 + _OTHERS) + _OTHERS + MAX_PLAYERS + 6
"""The value network's input (:func:`world_features`)."""


@dataclass(frozen=True)
class NetSearchParams:
    """What the network changes in the search (spec keys of the same names)."""

    net: str | None = None  # a folder with policy.npz (and value.npz); None: the heuristic's rules
    top_k: int = 0  # roll out only the policy's top_k actions and the heuristic's (0: all)
    cutoff: int = 0  # score a rollout by the value network after this many actions (0: never)
    others: str = "net"  # the other seats' model (rollout moves and world weights) with a
    # network: "net" (its policy), "learned" (the shipped learned opponent model) or "rules"


@dataclass(frozen=True)
class TriPalkiNet:
    """A generation's network: the policy (move scores from
    :func:`~folkcards.agents.tri_palki_opponent_model.opponent_features`, which also weights the
    worlds) and optionally the value (the probability of a stick for seat 0 of a world,
    from :func:`world_features`)."""

    policy: LearnedOpponentModel
    value: Mlp | None = None

    def stick_probability(self, features: np.ndarray) -> np.ndarray:
        """The value network's probability of a stick per row of world features."""
        if self.value is None:
            raise ValueError("this network has no value head")
        return 1.0 / (1.0 + np.exp(-self.value(features)[:, 0]))


def save_value(value: Mlp, path: str | Path) -> None:
    """Write a value network (``.npz``: ``w0, b0, ...``)."""
    arrays = {f"w{i}": w for i, w in enumerate(value.weights)}
    arrays.update({f"b{i}": b for i, b in enumerate(value.biases)})
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=16)
def load_net(folder: str) -> TriPalkiNet:
    """The network in ``folder`` (``policy.npz``, optional ``value.npz``); ``ValueError`` in one
    line if there is none."""
    path = Path(folder)
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


# --- batched rollouts ------------------------------------------------------------------------


class Batch:
    """Engine states, one row per rollout, in the batched engine's layout (every seat alive)."""

    def __init__(self, rows: int, n: int):
        self.n = n
        self.st = np.zeros((rows, NUM_FIELDS), dtype=np.int64)
        self.hands = np.zeros((rows, n), dtype=np.int64)
        self.known = np.zeros((rows, n), dtype=np.int64)
        self.deck = np.zeros((rows, NUM_CARDS), dtype=np.int64)


def load_worlds(worlds: list[Any], view: obs_mod.TriPalkiView, repeat: int) -> Batch:
    """Each world (sampled with ``observer=0``) ``repeat`` times in a row, at the observer's
    decision point (the facts :func:`~folkcards.agents.tri_palki_search.engine_from_world`
    reads)."""
    n = worlds[0].num_players
    batch = Batch(len(worlds) * repeat, n)
    st = batch.st

    def each(values: list[int]) -> np.ndarray:
        return np.repeat(np.array(values, dtype=np.int64), repeat)

    announced = [world.announcer is not None for world in worlds]
    st[:, DEALER] = each([world.dealer for world in worlds])
    st[:, TO_ACT] = view.to_act if view.to_act is not None else 0
    st[:, PHASE] = ANNOUNCE_DECISION if view.phase == "announce" else ACTION
    st[:, PASSES] = each([0 if a else view.passes for a in announced])
    st[:, ANNOUNCER] = each([-1 if w.announcer is None else w.announcer for w in worlds])
    st[:, FINAL_LEFT] = sum(view.final_turn_pending)
    st[:, TOP] = each([NUM_CARDS - len(world.reserve) for world in worlds])
    st[:, CENTRE] = each([world.centre for world in worlds])
    st[:, WASHED] = each([world.washed for world in worlds])
    st[:, OUTCOME] = -1
    batch.hands[:] = np.repeat(np.array([world.hands for world in worlds], np.int64), repeat, 0)
    for size in {len(world.reserve) for world in worlds} - {0}:
        rows = [w for w, world in enumerate(worlds) if len(world.reserve) == size]
        reserves = np.array([worlds[w].reserve for w in rows], dtype=np.int64)
        picked = (np.array(rows)[:, None] * repeat + np.arange(repeat)).ravel()
        batch.deck[picked, NUM_CARDS - size :] = np.repeat(reserves, repeat, axis=0)
    return batch


@njit(cache=True)
def _apply_rows(st, hands, known, deck, rows, actions):  # type: ignore[no-untyped-def]
    for k in range(rows.shape[0]):
        _apply(st, hands, known, deck, rows[k], actions[k])


@njit(cache=True)
def _stick_of_seat0(st, hands, out):  # type: ignore[no-untyped-def]
    """1.0 where seat 0 gets the stick in the settled rows (PHASE over), else left as is."""
    rows, n = hands.shape
    sticks = np.zeros((1, n), dtype=np.int64)
    rewards = np.zeros((1, n), dtype=np.float32)
    fin = np.zeros((1, NUM_FIN), dtype=np.int64)
    fin_hands = np.zeros((1, n), dtype=np.int64)
    fin_sticks = np.zeros((1, n), dtype=np.int64)
    fin_stick = np.zeros((1, n), dtype=np.bool_)
    one_st = np.zeros((1, st.shape[1]), dtype=np.int64)
    one_hands = np.zeros((1, n), dtype=np.int64)
    for i in range(rows):
        for f in range(st.shape[1]):
            one_st[0, f] = st[i, f]
        for s in range(n):
            one_hands[0, s] = hands[i, s]
        _settle(one_st, one_hands, sticks, 0, rewards, fin, fin_hands, fin_sticks, fin_stick)
        out[i] = 1.0 if fin_stick[0, 0] else 0.0


@njit(cache=True)
def _core_rollouts(st, hands, known, deck, steps):  # type: ignore[no-untyped-def]
    """Play each row on with the heuristic's core rules in every seat (always announcing a
    normal 31) for at most ``steps`` actions; returns the actions played. The rows are
    independent: one row played to its end after another is the same as all rows a step at a
    time."""
    n = hands.shape[1]
    score = np.zeros((2, MOVES), dtype=np.float64)
    facts = np.zeros((5, MOVES), dtype=np.int64)
    played = 0
    for r in range(st.shape[0]):
        for _ in range(steps):
            if st[r, PHASE] == OVER:
                break
            played += 1
            if st[r, PHASE] == ANNOUNCE_DECISION:
                move = ANNOUNCE
            else:
                move = core_move_into(
                    hands[r, st[r, TO_ACT]], st[r, CENTRE], NUM_CARDS - st[r, TOP] < 3,
                    st[r, ANNOUNCER] >= 0, st[r, PASSES] == n - 1, score, facts,
                )  # fmt: skip
            _apply(st, hands, known, deck, r, move)
    return played


def _move_facts(batch: Batch, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """What a policy reads at each row's decision: the mover's hand, the centre, fewer than 3
    reserve cards, an announcement made, a pass would end the round."""
    st = batch.st[rows]
    hand = batch.hands[rows, st[:, TO_ACT]]
    return (
        hand,
        st[:, CENTRE],
        NUM_CARDS - st[:, TOP] < 3,
        st[:, ANNOUNCER] >= 0,
        st[:, PASSES] == batch.n - 1,
    )


def rollout_sticks(
    batch: Batch,
    first: np.ndarray,
    horizon: int,
    net: TriPalkiNet | None = None,
    cutoff: int = 0,
    others: OpponentModel | None = None,
) -> tuple[np.ndarray, int]:
    """Apply ``first[i]`` in row ``i``, then play every row on with the policy in every seat
    (the network's best move, or the heuristic's core rules without one; always announce a
    normal 31) for at most ``horizon`` actions, or ``cutoff`` when > 0 and the network has a
    value head; with a network, ``others`` (when given) moves every seat but seat 0; returns seat 0's stick per row (1/0 for a finished round, the value network's
    probability or the stick the hands as they stand would give for an unfinished one) and the
    actions played."""
    st, hands, known, deck = batch.st, batch.hands, batch.known, batch.deck
    all_rows = np.arange(len(st), dtype=np.int64)
    _apply_rows(st, hands, known, deck, all_rows, first.astype(np.int64))
    use_value = cutoff > 0 and net is not None and net.value is not None
    steps = min(horizon, cutoff) if use_value else horizon
    if net is None:
        played = _core_rollouts(st, hands, known, deck, steps)
    else:
        played = _net_rollouts(batch, steps, net, others)
    sticks = np.zeros(len(st))
    _stick_of_seat0(st, hands, sticks)  # a round not over is scored on the hands it holds
    open_rows = np.flatnonzero(st[:, PHASE] != OVER)
    if use_value and len(open_rows):
        assert net is not None
        sticks[open_rows] = net.stick_probability(world_features(batch, open_rows))
    return sticks, played


def _net_rollouts(batch: Batch, steps: int, net: TriPalkiNet, others: OpponentModel | None) -> int:
    """:func:`_core_rollouts` with the network's policy (``others``, when given, in every seat
    but seat 0), all rows a step at a time (one batched network call per step)."""
    st, hands, known, deck = batch.st, batch.hands, batch.known, batch.deck
    played = 0
    for _ in range(steps):
        rows = np.flatnonzero(st[:, PHASE] != OVER)
        if not len(rows):
            break
        played += len(rows)
        facts = _move_facts(batch, rows)
        if others is None:
            moves = net.policy.moves(*facts)
        else:
            mine = st[rows, TO_ACT] == 0
            moves = np.empty(len(rows), dtype=np.int64)
            moves[mine] = net.policy.moves(*(f[mine] for f in facts))
            moves[~mine] = others.moves(*(f[~mine] for f in facts))
        moves = np.where(st[rows, PHASE] == ANNOUNCE_DECISION, ANNOUNCE, moves).astype(np.int64)
        _apply_rows(st, hands, known, deck, rows, moves)
    return played


def world_features(batch: Batch, rows: np.ndarray) -> np.ndarray:
    """The value network's input for rows of a batch, seen from seat 0 with the hidden cards
    known: seat 0's hand and the centre (card bits); per seat (seat 0, then the others in order,
    padded to the largest table) its hand's value / 31, three aces, and safe; a seat present;
    the seat to act (one-hot); announced, seat 0 announced, the final turns owed / table size,
    the passes / table size, fewer than 3 reserve cards, and whether it is the announcement
    decision."""
    st = batch.st[rows]
    hands = batch.hands[rows]
    n = batch.n
    m = len(rows)
    bits = np.arange(NUM_CARDS, dtype=np.int64)
    out = np.zeros((m, NUM_WORLD_FEATURES), dtype=np.float32)
    out[:, :NUM_CARDS] = (hands[:, :1] >> bits) & 1
    out[:, NUM_CARDS : 2 * NUM_CARDS] = (st[:, CENTRE][:, None] >> bits) & 1
    at = 2 * NUM_CARDS
    value, kind = _hand_facts(hands)
    for seat in range(MAX_PLAYERS):
        if seat < n:
            out[:, at] = value[:, seat] / 31.0
            out[:, at + 1] = kind[:, seat] == THREE_ACES
            out[:, at + 2] = (kind[:, seat] != NORMAL) & (kind[:, seat] != THREE_ACES)
        at += 3
    out[:, at : at + n - 1] = 1.0
    at += _OTHERS
    out[np.arange(m), at + st[:, TO_ACT]] = 1.0
    at += MAX_PLAYERS
    announcer = st[:, ANNOUNCER]
    out[:, at] = announcer >= 0
    out[:, at + 1] = announcer == 0
    out[:, at + 2] = st[:, FINAL_LEFT] / n
    out[:, at + 3] = st[:, PASSES] / n
    out[:, at + 4] = NUM_CARDS - st[:, TOP] < 3
    out[:, at + 5] = st[:, PHASE] == ANNOUNCE_DECISION
    return out


@njit(cache=True)
def _hand_facts_kernel(hands, value, kind):  # type: ignore[no-untyped-def]
    for i in range(hands.shape[0]):
        for s in range(hands.shape[1]):
            value[i, s] = hand_key(hands[i, s]) >> KEY_VALUE_SHIFT
            kind[i, s] = hand_kind(hands[i, s])


def _hand_facts(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    value = np.zeros(hands.shape, dtype=np.int64)
    kind = np.zeros(hands.shape, dtype=np.int64)
    _hand_facts_kernel(hands, value, kind)
    return value, kind


# --- the agent -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _blas() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


_NET_KEYS = ("net", "top_k", "cutoff", "others")
OTHERS = ("net", "learned", "rules")


def parse_net_spec(
    arg: str | None, defaults: TriPalkiSearchParams = EXPERT_PARAMS_0_4
) -> tuple[TriPalkiSearchParams, NetSearchParams, int | None]:
    """``(search params, network params, seed)`` from ``"net=DIR,top_k=4,samples=24"``."""
    net_values: dict[str, Any] = {}
    rest = []
    for item in (arg or "").split(","):
        key, eq, text = item.strip().partition("=")
        if key.strip() in _NET_KEYS and eq:
            key, text = key.strip(), text.strip()
            if key == "net":
                net_values[key] = text
                continue
            if key == "others":
                if text not in OTHERS:
                    raise ValueError(f"iterated others must be one of {OTHERS}, got {text!r}")
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
    return params, NetSearchParams(**net_values), seed


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
        self.net = net if net is not None else (
            load_net(self.net_params.net) if self.net_params.net else None
        )  # fmt: skip
        self.others: OpponentModel | None = None  # the other seats' model when not the network's
        if self.net is not None and self.net_params.others == "learned":
            self.others = shipped_opponent_model()
        elif self.net is not None and self.net_params.others == "rules":
            self.others = CORE_MODEL
        if self.net is not None:
            self.opponent_model = self.others if self.others is not None else self.net.policy
        self.record = record
        self.records: list[dict[str, Any]] = []

    def _search(
        self,
        vector: np.ndarray,
        view: obs_mod.TriPalkiView,
        legal: list[int],
        observation: dict[str, np.ndarray],
    ) -> int:
        if self.net is None:  # no matrix products
            return self._search_batched(vector, view, legal, observation)
        with _blas().limit(limits=1, user_api="blas"):  # threads cost more than small products
            return self._search_batched(vector, view, legal, observation)

    def _search_batched(
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
        _apply_rows(after.st, after.hands, after.known, after.deck, np.arange(len(st)), first)
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


class TriPalkiExpertAgent(TriPalkiNetSearchAgent):
    """Tri Palki ``expert``: the search with :data:`EXPERT_PARAMS` and no network, its rollouts
    compiled and batched; the same decisions as
    :class:`~folkcards.agents.tri_palki_search.TriPalkiSearchAgent` with that budget
    (``pimc`` with the same keys), in less time."""

    name = "expert"

    def __init__(
        self,
        game: str = "tri_palki",
        seat: str = "player_0",
        seed: int | None = None,
        params: TriPalkiSearchParams | None = None,
    ):
        super().__init__(game, seat, seed, params or EXPERT_PARAMS)


def make_tri_palki_expert_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> TriPalkiExpertAgent:
    """The Tri Palki ``expert[:key=value,...]`` factory: ``pimc``'s keys, :data:`EXPERT_PARAMS`
    where the spec is silent."""
    params, spec_seed = parse_spec(arg, EXPERT_PARAMS)
    return TriPalkiExpertAgent(game, seat, spec_seed if spec_seed is not None else seed, params)


def with_samples(params: TriPalkiSearchParams, samples: int) -> TriPalkiSearchParams:
    """``params`` with another number of worlds."""
    return replace(params, samples=samples)


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
