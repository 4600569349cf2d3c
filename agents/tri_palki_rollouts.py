"""Tri Palki's batched rollouts: many worlds x candidate actions played on together in compiled code.

The rows are engine states in the batched engine's layout (:mod:`folkcards.envs.tri_palki.batched`),
one per world and first action (:func:`load_worlds`). :func:`rollout_sticks` plays them on with
the heuristic's core rules in every seat (one compiled loop) or with a network's policy (one
batched call per step; :class:`TriPalkiNet`, a generation's policy and value), and scores each
row by whether seat 0 gets the stick, or by the value network's probability for a rollout cut
short (:func:`world_features`, its input). The search of
:mod:`folkcards.agents.tri_palki_net_search` (``expert``, ``iterated``) rolls out with them.
"""

from __future__ import annotations

from dataclasses import dataclass
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
from .tri_palki_opponent_model import LearnedOpponentModel
from .tri_palki_table_memo import MEMO_BITS, TableMemo, memo_slot, table_key

__all__ = [
    "NUM_WORLD_FEATURES",
    "Batch",
    "TriPalkiNet",
    "apply_rows",
    "load_worlds",
    "rollout_sticks",
    "world_features",
]

_OTHERS = MAX_PLAYERS - 1
NUM_WORLD_FEATURES = 2 * NUM_CARDS + 3 * (1 + _OTHERS) + _OTHERS + MAX_PLAYERS + 6
"""The value network's input (:func:`world_features`)."""


@dataclass(frozen=True)
class TriPalkiNet:
    """A generation's network: the policy (move scores from
    :func:`~folkcards.agents.tri_palki_opponent_model.opponent_features`, which also weights the
    worlds) and optionally the value (the probability of a stick for seat 0 of a world,
    from :func:`world_features`)."""

    policy: LearnedOpponentModel
    value: Mlp | None = None

    def stick_probability(self, features: np.ndarray) -> np.ndarray:
        """The value network's probability of a stick per row of world features (each row's
        the same in any batch and with any number of threads)."""
        if self.value is None:
            raise ValueError("this network has no value head")
        return 1.0 / (1.0 + np.exp(-self.value.rowwise(features)[:, 0]))


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
def apply_rows(st, hands, known, deck, rows, actions):  # type: ignore[no-untyped-def]
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
def _core_rollouts(st, hands, known, deck, steps, memo_bits=MEMO_BITS):  # type: ignore[no-untyped-def]
    """Play each row on with the heuristic's core rules in every seat (always announcing a
    normal 31) for at most ``steps`` actions; returns the actions played. The rows are
    independent: one row played to its end after another is the same as all rows a step at a
    time. The rules' move depends only on the table it reads (hand, centre and three facts),
    which recur across rows: each distinct table's move is computed once (up to half the
    memo's ``2 ** memo_bits`` slots of them, then computed each time)."""
    n = hands.shape[1]
    score = np.zeros((2, MOVES), dtype=np.float64)
    facts = np.zeros((5, MOVES), dtype=np.int64)
    size = 1 << memo_bits
    memo_hand = np.full(size, -1, dtype=np.int64)  # -1: an empty slot
    memo_table = np.zeros(size, dtype=np.int64)
    memo_move = np.zeros(size, dtype=np.int64)
    stored = 0
    played = 0
    for r in range(st.shape[0]):
        for _ in range(steps):
            if st[r, PHASE] == OVER:
                break
            played += 1
            if st[r, PHASE] == ANNOUNCE_DECISION:
                _apply(st, hands, known, deck, r, ANNOUNCE)
                continue
            hand = hands[r, st[r, TO_ACT]]
            centre = st[r, CENTRE]
            reserve_low = NUM_CARDS - st[r, TOP] < 3
            announced = st[r, ANNOUNCER] >= 0
            deciding = st[r, PASSES] == n - 1
            table = table_key(centre, reserve_low, announced, deciding)
            i = memo_slot(memo_hand, memo_table, hand, table, memo_bits)
            if memo_hand[i] >= 0:
                move = memo_move[i]
            else:
                move = core_move_into(hand, centre, reserve_low, announced, deciding, score, facts)
                if stored < size // 2:
                    memo_hand[i] = hand
                    memo_table[i] = table
                    memo_move[i] = move
                    stored += 1
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
    apply_rows(st, hands, known, deck, all_rows, first.astype(np.int64))
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


def _net_rollouts(
    batch: Batch,
    steps: int,
    net: TriPalkiNet,
    others: OpponentModel | None,
    memo_bits: int = MEMO_BITS,
) -> int:
    """:func:`_core_rollouts` with the network's policy (``others``, when given, in every seat
    but seat 0), all rows a step at a time (one batched network call per step). A row's move
    is the same in any batch (:meth:`~folkcards.agents.tri_palki_opponent_model.LearnedOpponentModel.scores`),
    so each distinct table is asked once per call
    (:class:`~folkcards.agents.tri_palki_table_memo.TableMemo`)."""
    st, hands, known, deck = batch.st, batch.hands, batch.known, batch.deck
    policy_moves = TableMemo(net.policy.moves, memo_bits)
    played = 0
    for _ in range(steps):
        rows = np.flatnonzero(st[:, PHASE] != OVER)
        if not len(rows):
            break
        played += len(rows)
        facts = _move_facts(batch, rows)
        if others is None:
            moves = policy_moves(*facts)
        else:
            mine = st[rows, TO_ACT] == 0
            moves = np.empty(len(rows), dtype=np.int64)
            moves[mine] = policy_moves(*(f[mine] for f in facts))
            moves[~mine] = others.moves(*(f[~mine] for f in facts))
        moves = np.where(st[rows, PHASE] == ANNOUNCE_DECISION, ANNOUNCE, moves).astype(np.int64)
        apply_rows(st, hands, known, deck, rows, moves)
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


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
