"""How likely the other Tri Palki players' reconstructed decisions are, world by world.

:func:`steps_log_likelihood` scores a world's hands by how likely the decisions that
:mod:`folkcards.search.tri_palki_reconstruction` rebuilt are under an opponent model the caller
passes in (:class:`OpponentModel`; ``pimc`` passes its rollout policy, the heuristic's core
rules), summed over the histories: walking backwards undoes each player's own swaps, which
gives the hand it held at each decision. :func:`worlds_log_likelihood` does it for many worlds
in compiled code, once per distinct hand of each player (a player's factor depends only on its
own hand).

**Bounded work.** The likelihood evaluates at most ``budget`` modelled decisions
(:data:`LIKELIHOOD_BUDGET`) and, over it, keeps only each player's most recent decisions. The
budget counts work, not time: results are deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np
from numba import njit

from ..envs.compile_notice import install as _announce_compiles
from ..envs.tri_palki.kernels import may_announce
from ..envs.tri_palki.rules import NUM_ACTIONS, PASS, SWAP_ALL, SWAP_BASE, TRIPLES
from .belief import check_epsilon
from .tri_palki_reconstruction import (
    STEP_OFFER,
    STEP_PASS,
    STEP_SWAP,
    STEP_SWAP_ALL,
    OpponentStep,
)

__all__ = [
    "LIKELIHOOD_BUDGET",
    "OpponentModel",
    "Weighting",
    "policy_move",
    "steps_log_likelihood",
    "worlds_log_likelihood",
]


class OpponentModel(Protocol):
    """How the other players are assumed to decide, for :func:`steps_log_likelihood`.

    ``moves`` answers for arrays of tables at once (equal lengths): the move (``PASS``,
    ``SWAP_BASE + 3 * h + c`` or ``SWAP_ALL``) of a player holding ``hand`` facing ``centre``
    (int64 masks), given ``reserve_low`` (fewer than 3 reserve cards), ``announced`` (someone
    has announced: a final turn) and ``deciding`` (a pass would end the round), as an int64
    array. ``announces``: whether the model takes the announcement whenever it is offered (a
    normal 31). A model may also define ``move_probabilities`` (same arguments → an
    ``(n, 11)`` array of probabilities over the moves): the likelihood then counts each
    decision ``(1 - epsilon) * P(the move made) + epsilon / 11`` instead of the one move; each
    row's answer must not depend on the other rows asked with it, since the likelihood asks each
    distinct table once. The ``pimc`` agent passes its rollout policy
    (:data:`folkcards.agents.tri_palki_search.CORE_MODEL`)."""

    announces: bool

    def moves(
        self,
        hand: np.ndarray,
        centre: np.ndarray,
        reserve_low: np.ndarray,
        announced: np.ndarray,
        deciding: np.ndarray,
    ) -> np.ndarray: ...


def policy_move(
    model: OpponentModel,
    hand: int,
    centre: int,
    reserve: int,
    passes: int,
    announced: bool,
    survivors: int,
) -> tuple[str, int, int]:
    """What ``model`` does with ``hand`` facing a public table, as a public step:
    ``(kind, gave, took)``."""
    action = int(
        model.moves(
            np.array([hand], dtype=np.int64),
            np.array([centre], dtype=np.int64),
            np.array([reserve < 3]),
            np.array([announced]),
            np.array([passes == survivors - 1]),
        )[0]
    )
    if action == PASS:
        return STEP_PASS, 0, 0
    if action == SWAP_ALL:
        return STEP_SWAP_ALL, hand, centre
    h, c = divmod(action - SWAP_BASE, 3)
    return STEP_SWAP, TRIPLES[hand].bits[h], TRIPLES[centre].bits[c]


# Step kinds as the compiled likelihood reads them.
_KIND_IDS = {STEP_PASS: 0, STEP_SWAP: 1, STEP_SWAP_ALL: 2, STEP_OFFER: 3}
_K_PASS, _K_SWAP, _K_SWAP_ALL, _K_OFFER = range(4)
LIKELIHOOD_BUDGET = 200_000
"""Default work budget of :func:`worlds_log_likelihood`: modelled decisions evaluated
(distinct hands times steps) per call."""


class _Groups(NamedTuple):
    """Histories by player: each seat's decision sequence within a history is a *group*, equal
    sequences of a seat shared; a history is a row of group ids (-1 padded)."""

    seat: np.ndarray  # (G,) relative seat of each group
    steps: list[tuple[OpponentStep, ...]]  # (G,) its decisions, oldest first
    length: np.ndarray  # (G,) its number of decisions
    rows: np.ndarray  # (H, max groups per history) group ids


class _Encoded(NamedTuple):
    """The most recent ``cap`` decisions of each group as arrays, as the compiled code reads
    them: group ``g``'s kept steps are ``steps[start[g] : start[g] + length[g]]``."""

    seat: np.ndarray  # (G,) relative seat of each group
    start: np.ndarray  # (G,) its first kept step in ``steps``
    length: np.ndarray  # (G,) its number of kept steps
    steps: np.ndarray  # (S, 7) int64: kind, gave, took, centre, reserve_low, announced, deciding


def _group(histories: Sequence[Sequence[OpponentStep]]) -> _Groups:
    """Each history's decisions split by player into groups, equal groups shared."""
    ids: dict[tuple[int, tuple[OpponentStep, ...]], int] = {}
    rows: list[list[int]] = []
    seats: list[int] = []
    sequences: list[tuple[OpponentStep, ...]] = []
    for history in histories:
        by_seat: dict[int, list[OpponentStep]] = {}
        for step in history:
            by_seat.setdefault(step.seat, []).append(step)
        row = []
        for seat, seat_steps in by_seat.items():
            sequence = tuple(seat_steps)
            key = (seat, sequence)
            group = ids.get(key)
            if group is None:
                group = ids[key] = len(ids)
                seats.append(seat)
                sequences.append(sequence)
            row.append(group)
        rows.append(row)
    width = max((len(row) for row in rows), default=0)
    table = np.full((len(rows), max(width, 1)), -1, dtype=np.int64)
    for h, row in enumerate(rows):
        table[h, : len(row)] = row
    lengths = np.array([len(sequence) for sequence in sequences], dtype=np.int64)
    return _Groups(np.array(seats, dtype=np.int64), sequences, lengths, table)


def _encode(groups: _Groups, cap: int | None = None) -> _Encoded:
    """The last ``cap`` decisions of each group (all with ``None``) as arrays."""
    starts: list[int] = []
    lengths: list[int] = []
    steps: list[tuple[int, ...]] = []
    for sequence in groups.steps:
        kept = sequence if cap is None else sequence[len(sequence) - min(cap, len(sequence)) :]
        starts.append(len(steps))
        lengths.append(len(kept))
        steps.extend(
            (
                _KIND_IDS[st.kind], st.gave, st.took, st.centre, st.reserve < 3,
                st.announced, st.passes == st.survivors - 1,
            )
            for st in kept
        )  # fmt: skip
    return _Encoded(
        groups.seat,
        np.array(starts, dtype=np.int64),
        np.array(lengths, dtype=np.int64),
        np.array(steps, dtype=np.int64).reshape(-1, 7),
    )


@njit(cache=True)
def _cards_in(mask: int) -> int:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


def _steps_per_group(lengths: np.ndarray, worlds: int, budget: int) -> int:
    """The most recent steps of each group that fit ``budget`` over ``worlds`` worlds (the
    longest group's length when everything fits; 0 when not even one step per group does)."""
    longest = int(lengths.max(initial=0))
    if worlds * int(lengths.sum()) <= budget:
        return longest
    low, high = 0, longest  # the largest cap c with worlds * sum(min(length, c)) <= budget
    while low < high:
        mid = (low + high + 1) // 2
        if worlds * int(np.minimum(lengths, mid).sum()) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


@njit(cache=True)
def _hands_before(
    hands: np.ndarray,
    seat: np.ndarray,
    start: np.ndarray,
    length: np.ndarray,
    steps: np.ndarray,
    walked: np.ndarray,
    slot: np.ndarray,
    made: np.ndarray,
    held: np.ndarray,
    valid: np.ndarray,
    queries: np.ndarray,
) -> int:
    """Walk each group's encoded steps (:func:`_encode`: its most recent ones) backwards from
    each world's hand of its seat, undoing the seat's own swaps. Kept step ``j`` of group ``g`` (``j`` counted from the
    group's last step, kept steps numbered group after group) gets, per world ``w``:
    ``held[w, i]`` the hand held (before a move; at the end of the turn for an offer) and, for
    a move, ``made[w, i]`` the action id of the recorded move from that hand and ``slot[w, i]``
    its row in ``queries`` (hand, centre, reserve low, announced, deciding: what the model is
    asked; -1 for a step that is not a move or was not walked). ``valid[w, g]`` is False when
    the steps cannot have come from the hand; the walk of that group stops there. Returns the
    number of queries. Only the first ``walked[s]`` rows of hands are walked for the groups of
    seat ``s`` (the rows its hands fill); the other rows get the no-query slot only."""
    count = 0
    for w in range(hands.shape[0]):
        i0 = 0
        for g in range(seat.shape[0]):
            hand = hands[w, seat[g]]
            end = start[g] + length[g]
            kept = length[g]
            if w >= walked[seat[g]]:
                slot[w, i0 : i0 + kept] = -1
                i0 += kept
                continue
            for j in range(kept):
                k = end - 1 - j
                i = i0 + j
                kind = steps[k, 0]
                gave = steps[k, 1]
                took = steps[k, 2]
                slot[w, i] = -1
                if kind == _K_OFFER:
                    held[w, i] = hand
                    continue
                if kind == _K_SWAP:
                    before = (hand & ~took) | gave
                elif kind == _K_SWAP_ALL:
                    before = gave
                else:
                    before = hand
                if _cards_in(before) != 3:
                    valid[w, g] = False
                    for rest in range(i + 1, i0 + kept):  # the group's steps not walked
                        slot[w, rest] = -1
                    break
                held[w, i] = before
                if kind == _K_PASS:
                    made[w, i] = PASS
                elif kind == _K_SWAP_ALL:
                    made[w, i] = SWAP_ALL
                else:  # h, c: the positions of the given and taken cards, ascending
                    h = _cards_in(before & (gave - 1))
                    made[w, i] = SWAP_BASE + 3 * h + _cards_in(steps[k, 3] & (took - 1))
                queries[count, 0] = before
                for f in range(1, 5):
                    queries[count, f] = steps[k, 2 + f]
                slot[w, i] = count
                count += 1
                hand = before
            i0 += kept
    return count


@njit(cache=True)
def _group_logs(
    seat: np.ndarray,
    start: np.ndarray,
    length: np.ndarray,
    steps: np.ndarray,
    walked: np.ndarray,
    slot: np.ndarray,
    made: np.ndarray,
    held: np.ndarray,
    valid: np.ndarray,
    probs: np.ndarray,
    terms: np.ndarray,
    epsilon: float,
    announces: bool,
    options: int,
) -> np.ndarray:
    """Per row of hands and group, the log of the product of every encoded decision's ``(1 -
    epsilon) * P(the move made) + epsilon / options``, ``probs``: the model's move
    probabilities per query (one-hot for a model that names one move); an announcement offer:
    ``[the model's call] / 2``, counted only for a normal 31. Rows not walked for a group
    (``walked``) get NaN. ``terms``: NaN-filled, shaped as ``probs``: each query's term is
    computed once, where it is first used."""
    out = np.empty((slot.shape[0], seat.shape[0]))
    for w in range(slot.shape[0]):
        i0 = 0
        for g in range(seat.shape[0]):
            kept = length[g]
            if w >= walked[seat[g]]:
                out[w, g] = np.nan
                i0 += kept
                continue
            if not valid[w, g]:
                out[w, g] = -np.inf
                i0 += kept
                continue
            total = 0.0
            end = start[g] + length[g]
            for j in range(kept):
                k = end - 1 - j
                i = i0 + j
                if steps[k, 0] == _K_OFFER:
                    hand = held[w, i]
                    if steps[k, 5] or not may_announce(hand):
                        continue  # no offer: nothing to explain
                    agrees = (steps[k, 1] != 0) == announces
                    total += np.log((1 - epsilon) * (1.0 if agrees else 0.0) + epsilon / 2)
                    continue
                q = slot[w, i]
                m = made[w, i]
                if np.isnan(terms[q, m]):
                    terms[q, m] = np.log((1 - epsilon) * probs[q, m] + epsilon / options)
                total += terms[q, m]
            out[w, g] = total
            i0 += kept
    return out


@njit(cache=True)
def _combine(
    group_log: np.ndarray, row_of: np.ndarray, seat: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """Per world, the log of the sum over the histories (``rows``) of the product of their
    groups' probabilities; ``row_of[w, s]`` is the row of ``group_log`` holding world ``w``'s
    hand of seat ``s``."""
    out = np.empty(row_of.shape[0])
    totals = np.empty(rows.shape[0])
    for w in range(row_of.shape[0]):
        top = -np.inf
        for h in range(rows.shape[0]):
            t = 0.0
            for g in rows[h]:
                if g >= 0:
                    t += group_log[row_of[w, seat[g]], g]
            totals[h] = t
            top = max(top, t)
        if top == -np.inf:
            out[w] = top
            continue
        acc = 0.0
        for h in range(rows.shape[0]):
            acc += np.exp(totals[h] - top)
        out[w] = top + np.log(acc)
    return out


@njit(cache=True)
def _distinct_queries(queries: np.ndarray, count: int, slot: np.ndarray) -> int:
    """Move the distinct rows among ``queries[:count]`` to its front, in order of first
    appearance, and point ``slot`` at them; returns their number. The model's answer depends
    only on a query's row, and in a long round the same few tables recur across steps and
    worlds: it is then asked once per distinct table."""
    bits = 1
    while (1 << bits) < 2 * count:
        bits += 1
    size = 1 << bits
    table = np.full(size, -1, dtype=np.int64)
    fields = queries.shape[1]
    where = np.empty(count, dtype=np.int64)
    distinct = 0
    for q in range(count):
        h = np.uint64(0x9E3779B97F4A7C15)
        for f in range(fields):
            h = (h ^ np.uint64(queries[q, f])) * np.uint64(0xBF58476D1CE4E5B9)
        i = np.int64(h >> np.uint64(64 - bits))
        while True:
            d = table[i]
            if d < 0:
                table[i] = distinct
                for f in range(fields):
                    queries[distinct, f] = queries[q, f]
                where[q] = distinct
                distinct += 1
                break
            same = True
            for f in range(fields):
                if queries[d, f] != queries[q, f]:
                    same = False
                    break
            if same:
                where[q] = d
                break
            i = (i + 1) & (size - 1)
    for w in range(slot.shape[0]):
        for k in range(slot.shape[1]):
            if slot[w, k] >= 0:
                slot[w, k] = where[slot[w, k]]
    return distinct


def _distinct_hands(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct hands of each seat as the columns of one table (a seat with fewer repeats
    its first hand), per world and seat the table's row holding that world's hand, and per
    seat the number of rows its distinct hands fill: a player's factor depends only on its
    own hand, so it is computed once per distinct hand."""
    columns = []
    row_of = np.empty(hands.shape, dtype=np.int64)
    for s in range(hands.shape[1]):
        distinct, row_of[:, s] = np.unique(hands[:, s], return_inverse=True)
        columns.append(distinct)
    height = max(len(c) for c in columns)
    table = np.empty((height, hands.shape[1]), dtype=np.int64)
    for s, distinct in enumerate(columns):
        table[:, s] = distinct[0]
        table[: len(distinct), s] = distinct
    filled = np.array([len(c) for c in columns], dtype=np.int64)
    return table, row_of, filled


class Weighting(NamedTuple):
    """What :func:`worlds_log_likelihood` returned: a log-likelihood per world, the modelled
    decisions it evaluated (distinct hands times steps: its work units) and the most recent steps per
    player and history it kept (``None``: all of them; 0: none, the worlds stay uniform)."""

    logs: np.ndarray
    work: int
    kept_steps: int | None


def worlds_log_likelihood(
    hands: np.ndarray | Sequence[Sequence[int]],
    histories: Sequence[Sequence[OpponentStep]],
    epsilon: float,
    model: OpponentModel,
    budget: int = LIKELIHOOD_BUDGET,
) -> Weighting:
    """:func:`steps_log_likelihood` for many worlds at once (``hands``: worlds x relative seats
    of three-card masks), in compiled code, within a work budget.

    The work is one model decision per step and distinct hand of the step's player (a
    player's factor depends only on its own hand, so worlds that deal it the same hand share
    it), counted over the seat with the most distinct hands. When the histories are longer than
    ``budget`` allows, each player's decisions in each history are cut to its most recent ones
    (the same number for all, the most that fits): the worlds are then weighted by the
    likelihood of those recent decisions only, a partial weighting that is still exact for the
    steps it keeps (walking backwards from the hands now needs no older step); below one step
    per player the worlds stay uniform (all 0). Deterministic: the cut depends only on the
    histories, the worlds' hands and ``budget``."""
    epsilon = check_epsilon(epsilon)
    hands = np.asarray(hands, dtype=np.int64).reshape(len(hands), -1)
    worlds = hands.shape[0]
    if not histories or worlds == 0:
        return Weighting(np.zeros(worlds), 0, None)
    groups = _group(histories)
    distinct, row_of, filled = _distinct_hands(hands)
    rows = distinct.shape[0]
    cap = _steps_per_group(groups.length, rows, int(budget))
    if cap == 0:
        return Weighting(np.zeros(worlds), 0, 0)
    kept = None if cap >= int(groups.length.max(initial=0)) else cap
    enc = _encode(groups, cap)
    width = int(enc.length.sum())  # kept steps per row of hands
    slot = np.empty((rows, width), dtype=np.int64)
    made = np.empty((rows, width), dtype=np.int64)
    held = np.empty((rows, width), dtype=np.int64)
    valid = np.ones((rows, max(len(enc.seat), 1)), dtype=np.bool_)
    queries = np.empty((rows * width, 5), dtype=np.int64)
    # Only the rows a seat's distinct hands fill are walked, and the model is asked once per
    # distinct table.
    move_probabilities = getattr(model, "move_probabilities", None)
    count = _hands_before(
        distinct, enc.seat, enc.start, enc.length, enc.steps, filled, slot, made, held, valid,
        queries,
    )  # fmt: skip
    count = _distinct_queries(queries, count, slot)
    q = queries[:count]
    args = (
        np.ascontiguousarray(q[:, 0]), np.ascontiguousarray(q[:, 1]), q[:, 2] != 0,
        q[:, 3] != 0, q[:, 4] != 0,
    )  # fmt: skip
    options = NUM_ACTIONS - 2
    if move_probabilities is not None:
        probs = np.asarray(move_probabilities(*args), dtype=np.float64)
        if probs.shape != (count, options):
            raise ValueError(
                f"move_probabilities gave shape {probs.shape}, expected {(count, options)}"
            )
    else:
        probs = np.zeros((count, options))
        probs[np.arange(count), np.asarray(model.moves(*args), dtype=np.int64)] = 1.0
    terms = np.full((count, options), np.nan)
    group_log = _group_logs(
        enc.seat, enc.start, enc.length, enc.steps, filled, slot, made, held, valid,
        probs, terms, epsilon, bool(model.announces), options,
    )  # fmt: skip
    logs = _combine(group_log, row_of, enc.seat, groups.rows)
    work = rows * width
    return Weighting(logs, work, kept)


def steps_log_likelihood(
    hands: Sequence[int],
    histories: Sequence[Sequence[OpponentStep]],
    epsilon: float,
    model: OpponentModel,
) -> float:
    """Log of the probability, summed over the possible ``histories``, that the other players
    made their reconstructed decisions under ``model``, given their hands now (``hands``,
    relative seats, as in a world sampled with ``observer=0``).

    Walking each history backwards undoes every player's own swaps, which gives the hand it
    held at each decision. A decision counts ``(1 - epsilon) * [the model makes it] + epsilon /
    options`` (11 options for a move; 2 for the announcement offer, which a hand that is not a
    normal 31 never gets and so counts 1)."""
    weighting = worlds_log_likelihood([list(hands)], histories, epsilon, model, budget=2**62)
    return float(weighting.logs[0])


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
