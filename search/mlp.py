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
        if not all(np.isfinite(a).all() for a in (*self.weights, *self.biases)):
            raise ValueError("a perceptron's weights and biases must be finite")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float32)
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if i < len(self.weights) - 1:
                h = np.maximum(h, 0.0)
        return h

    def rowwise(self, x: np.ndarray) -> np.ndarray:
        """The same network, each row's answer independent of the other rows in ``x`` and of
        the machine's threads.

        A matrix product sums in an order that depends on the batch's shape and on how many
        threads the BLAS library runs, so a row's answer from :meth:`__call__` can differ in
        its last bits with the rows asked beside it, and from one machine to another. Here
        each row is summed input by input in one fixed order (compiled, without fused
        multiply-adds): asking a row alone, in a batch or twice, on any number of cores, gives
        the same float32 answer; a search that takes the best-scored move takes the same one.
        It costs more CPU time than a one-thread matrix product of many rows, less than a
        threaded one."""
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


_BLOCK = 4  # rows summed together: each weight row is read once for the block


@njit(cache=True)
def _rowwise_layer(x: np.ndarray, w: np.ndarray, b: np.ndarray, relu: bool) -> np.ndarray:
    """``x @ w + b`` (then ReLU), each output summed over the inputs in order, row by row.

    Rows go through in blocks that share each weight row's reads. A row whose input is zero
    where a block-mate's is not adds ``0 * w``, a signed zero, to a sum that is never ``-0.0``
    (it starts at ``+0.0`` and rounds to nearest), which leaves it unchanged for finite weights:
    each row's bits are those of the row alone."""
    rows, inputs = x.shape
    outputs = w.shape[1]
    out = np.empty((rows, outputs), dtype=np.float32)
    acc = np.empty((_BLOCK, outputs), dtype=np.float32)
    for first in range(0, rows, _BLOCK):
        if rows - first < _BLOCK:
            for r in range(first, rows):
                dense_row(x[r], w, b, relu, acc[0], out[r])
            continue
        acc[:, :] = 0.0
        for k in range(inputs):
            v0, v1, v2, v3 = x[first, k], x[first + 1, k], x[first + 2, k], x[first + 3, k]
            if v0 == 0.0 and v1 == 0.0 and v2 == 0.0 and v3 == 0.0:
                continue
            for j in range(outputs):
                wk = w[k, j]
                acc[0, j] += v0 * wk
                acc[1, j] += v1 * wk
                acc[2, j] += v2 * wk
                acc[3, j] += v3 * wk
        for r in range(_BLOCK):
            for j in range(outputs):
                y = acc[r, j] + b[j]
                out[first + r, j] = max(y, np.float32(0.0)) if relu else y
    return out


@njit(cache=True)
def dense_row(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, relu: bool, acc: np.ndarray, out: np.ndarray
) -> None:
    """One row of :meth:`Mlp.rowwise`'s layer into ``out`` (``acc``: scratch of the same length)."""
    outputs = w.shape[1]
    acc[:outputs] = 0.0
    for k in range(w.shape[0]):
        v = x[k]
        if v != 0.0:  # adding 0 * w changes no sum: skipping it is exact
            for j in range(outputs):
                acc[j] += v * w[k, j]
    for j in range(outputs):
        y = acc[j] + b[j]
        out[j] = max(y, np.float32(0.0)) if relu else y


_announce_compiles()
