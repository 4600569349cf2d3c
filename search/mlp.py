"""A small multilayer perceptron evaluated with numpy, shared by the package's learned models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..envs.compile_notice import install as _announce_compiles

__all__ = ["Mlp"]


@dataclass(frozen=True)
class Mlp:
    """A ReLU multilayer perceptron: ``weights[i]`` is (in, out), the last layer linear."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        if not self.weights or len(self.weights) != len(self.biases):
            raise ValueError("a perceptron needs as many bias vectors as weight matrices")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float32)
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if i < len(self.weights) - 1:
                h = np.maximum(h, 0.0)
        return h

    def rowwise(self, x: np.ndarray) -> np.ndarray:
        """The same network, each row's answer independent of the other rows in ``x``.

        A matrix product sums in an order that depends on the batch's shape, so a row's
        answer from :meth:`__call__` can differ in its last bits with the rows asked beside
        it. Here each row is summed alone, input by input, in one fixed order (compiled):
        asking a row alone, in a batch or twice gives the same float32 answer. Faster than
        the matrix product for a few hundred rows, slower for many thousands."""
        h = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
        if h.ndim != 2 or h.shape[1] != self.weights[0].shape[0]:
            raise ValueError(
                f"rowwise takes rows of {self.weights[0].shape[0]} inputs; got shape {h.shape}"
            )
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = _rowwise_layer(
                h,
                np.ascontiguousarray(w, dtype=np.float32),
                np.ascontiguousarray(b, dtype=np.float32).reshape(-1),
                i < last,
            )
        return h


@njit(cache=True)
def _rowwise_layer(x: np.ndarray, w: np.ndarray, b: np.ndarray, relu: bool) -> np.ndarray:
    """``x @ w + b`` (then ReLU), each output summed over the inputs in order, row by row."""
    rows, inputs = x.shape
    outputs = w.shape[1]
    out = np.empty((rows, outputs), dtype=np.float32)
    acc = np.empty(outputs, dtype=np.float32)
    for r in range(rows):
        acc[:] = 0.0
        for k in range(inputs):
            v = x[r, k]
            if v != 0.0:  # adding 0 * w changes no sum: skipping it is exact
                for j in range(outputs):
                    acc[j] += v * w[k, j]
        for j in range(outputs):
            y = acc[j] + b[j]
            out[r, j] = max(y, np.float32(0.0)) if relu else y
    return out


_announce_compiles()
