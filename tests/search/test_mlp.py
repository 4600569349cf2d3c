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
