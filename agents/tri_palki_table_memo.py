"""Answers about Tri Palki tables, each distinct table asked once.

A player's model (the heuristic's rules, a learned policy) answers about a *table*: the hand
of the player to move, the centre, and three public facts (fewer than 3 reserve cards, an
announcement made, a pass would end the round). A search asks about the same tables many
times: the rollouts of one decision meet the same tables in many rows, and the likelihood of
the other players' past decisions asks about the tables of the same round again at every
decision. :class:`TableMemo` remembers a model's answer per table, which gives exactly the
model's answers when each row's answer does not depend on the rows asked beside it (the
package's models are evaluated row by row: :meth:`folkcards.search.mlp.Mlp.rowwise`).
:class:`RememberingModel` is an opponent model whose move probabilities are remembered for
an agent's lifetime.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from ..envs.compile_notice import install as _announce_compiles

__all__ = ["MEMO_BITS", "RememberingModel", "TableMemo", "memo_slot", "remembered", "table_key"]

MEMO_BITS = 16
"""A memo's ``2 ** bits`` slots, at most half of them filled."""


@njit(cache=True)
def table_key(centre, reserve_low, announced, deciding):  # type: ignore[no-untyped-def]
    """The centre and the three facts as one integer (with the hand, a table's memo key)."""
    return centre * 8 + reserve_low + 2 * announced + 4 * deciding


@njit(cache=True)
def memo_slot(memo_hand, memo_table, hand, table, memo_bits):  # type: ignore[no-untyped-def]
    """The memo's slot for a table (``hand``, and ``table``: :func:`table_key`): its own, or
    the empty slot (``memo_hand`` -1) where it would go (open addressing)."""
    mixed = np.uint64(hand) * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= np.uint64(table) * np.uint64(0xBF58476D1CE4E5B9)
    i = np.int64(mixed >> np.uint64(64 - memo_bits))
    while memo_hand[i] >= 0 and (memo_hand[i] != hand or memo_table[i] != table):
        i = (i + 1) & ((1 << memo_bits) - 1)
    return i


class TableMemo:
    """``ask(hand, centre, reserve_low, announced, deciding)`` (arrays of tables, one answer
    row per table) with each distinct table asked once while the memo has room; when it is
    half full it is emptied at the next call. The answers are the same as ``ask``'s only if
    ``ask`` answers each row independently of the other rows."""

    def __init__(self, ask: Callable[..., np.ndarray], memo_bits: int = MEMO_BITS):
        if not 2 <= memo_bits <= 30:
            raise ValueError(f"memo_bits must be between 2 and 30, got {memo_bits}")
        self.ask = ask
        self.bits = memo_bits
        self.hand = np.full(1 << memo_bits, -1, dtype=np.int64)  # -1: an empty slot
        self.table = np.zeros(1 << memo_bits, dtype=np.int64)
        self.ref = np.zeros(1 << memo_bits, dtype=np.int64)  # the slot's row of `answers`
        self.answers: np.ndarray | None = None
        self.stored = 0

    def __call__(self, *tables: np.ndarray) -> np.ndarray:
        """The answers for arrays of tables: ``hand, centre, reserve_low, announced, deciding``."""
        if len(tables) != 5:
            raise ValueError(
                f"a table is 5 arrays (hand, centre and three facts), got {len(tables)}"
            )
        hand, centre, reserve_low, announced, deciding = tables
        if self.stored >= (1 << self.bits) // 2:
            self.hand[:] = -1
            self.stored = 0
        hand = np.asarray(hand, dtype=np.int64)
        table = table_key(
            np.asarray(centre, dtype=np.int64),
            np.asarray(reserve_low, dtype=np.int64),
            np.asarray(announced, dtype=np.int64),
            np.asarray(deciding, dtype=np.int64),
        )
        ref = np.empty(len(hand), dtype=np.int64)
        ask = np.empty(len(hand), dtype=np.int64)
        slots = np.empty(len(hand), dtype=np.int64)
        before = self.stored
        asked, self.stored = _lookup(
            self.hand, self.table, self.ref, hand, table, self.bits, before, ref, ask, slots
        )
        picked = ask[:asked]
        if asked or self.answers is None:
            try:
                fresh = np.asarray(
                    self.ask(hand[picked], np.asarray(centre)[picked],
                             np.asarray(reserve_low)[picked], np.asarray(announced)[picked],
                             np.asarray(deciding)[picked])
                )  # fmt: skip
            except BaseException:
                self.hand[:] = -1  # the slots claimed for this call would never be filled
                self.stored = 0
                raise
        else:
            fresh = self.answers[:0]
        if self.answers is None:
            shape = ((1 << self.bits) // 2, *fresh.shape[1:])
            self.answers = np.zeros(shape, dtype=fresh.dtype)
        claimed = slots[:asked] >= 0
        rows = before + np.arange(self.stored - before)
        self.answers[rows] = fresh[claimed]
        self.ref[slots[:asked][claimed]] = rows
        out = np.empty((len(hand), *fresh.shape[1:]), dtype=fresh.dtype)
        known = ref >= 0
        out[known] = self.answers[ref[known]]
        out[~known] = fresh[-1 - ref[~known]]
        return out


@njit(cache=True)
def _lookup(memo_hand, memo_table, memo_ref, hand, table, bits, stored, ref, ask, slots):  # type: ignore[no-untyped-def]
    """Each row's remembered answer row into ``ref``; a table not remembered is asked once:
    its first row goes to ``ask`` (the slot it claims to ``slots``, -1 with the memo half
    full) and its rows get ``-1 - j``, ``j`` its place in ``ask``; returns how many were
    asked and how many slots are filled."""
    asked = 0
    for r in range(hand.shape[0]):
        i = memo_slot(memo_hand, memo_table, hand[r], table[r], bits)
        if memo_hand[i] >= 0:
            ref[r] = memo_ref[i]  # a stored row, or -1 - j for a table first asked in this call
            continue
        ask[asked] = r
        ref[r] = -1 - asked
        slots[asked] = -1
        if stored < (1 << bits) // 2:
            memo_hand[i] = hand[r]
            memo_table[i] = table[r]
            memo_ref[i] = -1 - asked
            slots[asked] = i
            stored += 1
        asked += 1
    return asked, stored


class RememberingModel:
    """An :class:`~folkcards.search.tri_palki_likelihood.OpponentModel` with move
    probabilities whose answers are remembered per table for the object's lifetime (an
    agent's): the likelihood of the other players' decisions asks about the same tables of a
    round at every decision. The same answers as ``model``'s, whose rows must be independent."""

    def __init__(self, model: Any, memo_bits: int = MEMO_BITS + 1):
        if getattr(model, "move_probabilities", None) is None:
            raise ValueError("RememberingModel needs a model with move_probabilities")
        self.model = model
        self.announces = model.announces
        self._probabilities = TableMemo(model.move_probabilities, memo_bits)

    def moves(self, *tables: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.moves(*tables))

    def move_probabilities(self, *tables: np.ndarray) -> np.ndarray:
        return self._probabilities(*tables)


def remembered(model: Any) -> Any:
    """``model`` as a :class:`RememberingModel` when it has move probabilities, else itself."""
    if getattr(model, "move_probabilities", None) is None:
        return model
    return RememberingModel(model)


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
