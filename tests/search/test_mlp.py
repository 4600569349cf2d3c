"""The shared perceptron (``folkcards.search.mlp``): ReLU between layers, the last linear."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.search.mlp import Mlp


def test_the_mlp_is_relu_then_linear():
    mlp = Mlp((np.eye(2, dtype=np.float32), np.ones((2, 1), np.float32)), (np.zeros(2), np.ones(1)))
    assert mlp(np.array([2.0, -3.0])).tolist() == [3.0]  # relu(2) + relu(-3) + 1


def test_rows_are_evaluated_independently():
    mlp = Mlp((np.array([[1.0, -1.0]], np.float32),), (np.array([0.5, 0.0], np.float32),))
    out = mlp(np.array([[2.0], [-1.0]]))
    assert out.tolist() == [[2.5, -2.0], [-0.5, 1.0]]  # one linear layer: no ReLU


def test_unmatched_layers_are_refused():
    with pytest.raises(ValueError, match="bias"):
        Mlp((np.eye(2, dtype=np.float32),), ())


def _random_mlp(rng, sizes):
    weights = tuple(
        rng.normal(size=(a, b)).astype(np.float32)
        for a, b in zip(sizes[:-1], sizes[1:], strict=True)
    )
    biases = tuple(rng.normal(size=b).astype(np.float32) for b in sizes[1:])
    return Mlp(weights, biases)


def test_rowwise_is_the_same_network():
    rng = np.random.default_rng(3)
    mlp = _random_mlp(rng, [20, 32, 32, 5])
    x = (rng.random((300, 20)) < 0.3).astype(np.float32) * rng.normal(size=(300, 20))
    exact = x.astype(np.float64)
    for i, (w, b) in enumerate(zip(mlp.weights, mlp.biases, strict=True)):
        exact = exact @ w.astype(np.float64) + b
        if i < len(mlp.weights) - 1:
            exact = np.maximum(exact, 0.0)
    out = mlp.rowwise(x)
    assert out.dtype == np.float32 and out.shape == (300, 5)
    scale = float(np.abs(exact).max())  # float32 rounding, relative to the outputs' size
    assert np.abs(out - exact).max() < 1e-5 * scale
    assert np.abs(out - mlp(x)).max() < 1e-5 * scale


def test_a_rows_answer_does_not_depend_on_the_rows_beside_it():
    """The matrix product's answer for a row may change in its last bits with the batch;
    ``rowwise``'s may not: alone, in any batch, at any position, the same float32 bits."""
    rng = np.random.default_rng(4)
    mlp = _random_mlp(rng, [86, 128, 128, 11])
    x = (rng.random((2000, 86)) < 0.12).astype(np.float32)
    whole = mlp.rowwise(x)
    for size in (1, 2, 3, 7, 16, 17, 100, 999):
        picked = rng.choice(len(x), size, replace=False)
        assert mlp.rowwise(x[picked]).tobytes() == whole[picked].tobytes()
    assert mlp.rowwise(x[:1]).tobytes() == whole[:1].tobytes()


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 5, 1)])
def test_rowwise_refuses_inputs_of_the_wrong_shape(shape):
    mlp = Mlp((np.ones((5, 2), np.float32),), (np.zeros(2, np.float32),))
    with pytest.raises(ValueError, match="rows of 5 inputs"):
        mlp.rowwise(np.zeros(shape))
