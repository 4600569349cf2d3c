"""Remembering a model's answers per Tri Palki table changes no answer."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents.tri_palki_search import CORE_MODEL, shipped_opponent_model
from folkcards.agents.tri_palki_table_memo import RememberingModel, TableMemo, remembered


def _tables(rng: np.random.Generator, n: int, pool: int) -> tuple[np.ndarray, ...]:
    """``n`` tables drawn from ``pool`` distinct ones (so that tables recur)."""
    hands = np.array([sum(1 << int(c) for c in rng.choice(36, 3, replace=False))
                      for _ in range(pool)], dtype=np.int64)  # fmt: skip
    centres = np.array([sum(1 << int(c) for c in rng.choice(36, 3, replace=False))
                        for _ in range(pool)], dtype=np.int64)  # fmt: skip
    flags = rng.random((3, pool)) < 0.5
    pick = rng.integers(0, pool, n)
    return hands[pick], centres[pick], flags[0][pick], flags[1][pick], flags[2][pick]


class _Counting:
    """A model answering from a fixed table of numbers per table, counting the tables asked."""

    announces = True

    def __init__(self) -> None:
        self.asked: list[tuple[int, ...]] = []

    def move_probabilities(self, hand, centre, low, announced, deciding):  # type: ignore[no-untyped-def]
        rows = list(zip(hand.tolist(), centre.tolist(), low.tolist(), announced.tolist(),
                        deciding.tolist(), strict=True))  # fmt: skip
        self.asked += rows
        return np.array([[hash((row, k)) % 1000 / 1000 for k in range(11)] for row in rows])

    def moves(self, *tables):  # type: ignore[no-untyped-def]
        return np.argmax(self.move_probabilities(*tables), axis=1)


@pytest.mark.parametrize("bits", [2, 5, 17])
def test_remembered_probabilities_are_the_models_whatever_the_memo_size(bits: int) -> None:
    """Over calls whose tables recur within and across calls, the learned model remembered
    answers bit for bit as asked directly, with a memo emptied many times and with room for
    all."""
    model = shipped_opponent_model()
    memo = RememberingModel(model, bits)
    rng = np.random.default_rng(bits)
    for size in (1, 40, 0, 300, 7, 300):
        tables = _tables(rng, size, 60)
        assert np.array_equal(memo.move_probabilities(*tables), model.move_probabilities(*tables))
        assert np.array_equal(memo.moves(*tables), model.moves(*tables))


def test_each_distinct_table_is_asked_once_while_the_memo_has_room() -> None:
    counting = _Counting()
    memo = TableMemo(counting.move_probabilities, 12)
    rng = np.random.default_rng(5)
    calls = [_tables(rng, n, 50) for n in (80, 80, 200)]
    answers = [memo(*tables) for tables in calls]
    distinct = {row for t in calls for row in zip(*(a.tolist() for a in t), strict=True)}
    assert len(counting.asked) == len(set(counting.asked)) == len(distinct)
    for tables, got in zip(calls, answers, strict=True):
        assert np.array_equal(got, _Counting().move_probabilities(*tables))


def test_only_models_with_probabilities_are_remembered() -> None:
    assert remembered(CORE_MODEL) is CORE_MODEL  # the rules' moves: nothing to remember
    learned = shipped_opponent_model()
    assert remembered(learned).model is learned
    with pytest.raises(ValueError, match="move_probabilities"):
        RememberingModel(object())
    with pytest.raises(ValueError, match="memo_bits"):
        TableMemo(CORE_MODEL.moves, 1)


def test_a_failed_question_leaves_nothing_half_remembered() -> None:
    model = shipped_opponent_model()
    calls = []

    def flaky(*tables):  # type: ignore[no-untyped-def]
        calls.append(len(tables[0]))
        if len(calls) == 2:
            raise RuntimeError("model failed")
        return model.move_probabilities(*tables)

    memo = TableMemo(flaky, 10)
    rng = np.random.default_rng(9)
    first, second = _tables(rng, 50, 30), _tables(rng, 50, 30)
    memo(*first)
    with pytest.raises(RuntimeError):
        memo(*second)
    assert np.array_equal(memo(*second), model.move_probabilities(*second))
    with pytest.raises(ValueError, match="5 arrays"):
        memo(*second[:4])
