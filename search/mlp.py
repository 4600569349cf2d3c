"""A small multilayer perceptron evaluated with numpy, shared by the package's learned models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
