"""A learned model of how the other Tri Palki players decide, for weighting sampled worlds.

The Tri Palki search weights each sampled world by how likely the others' decisions this round
are if their hands were that world's (:func:`folkcards.search.tri_palki_likelihood.worlds_log_likelihood`).
The likelihood asks an :class:`~folkcards.search.tri_palki_likelihood.OpponentModel` what a player
holding ``hand`` facing ``centre`` does, given three public flags. The package's first model is
the heuristic's rules (``CORE_MODEL``); this module's is a trained policy: a small multilayer
perceptron fitted to the decisions players actually made in recorded tournaments (the training
code is :mod:`folkcards.train.tri_palki_opponent_model_training`; the committed model is
``agents/models/tri_palki_opponents.npz``).

Input (:func:`opponent_features`, 86 numbers): the hand's 36 card bits, the centre's 36 card
bits, ``reserve_low`` (fewer than 3 reserve cards), ``announced`` (a final turn),
``deciding`` (a pass would end the round) and the heuristic rules' move one-hot (11), so the
network learns where players leave the rules rather than the rules themselves. Output: a
score for each of the 11 moves of the action phase (``PASS``, ``SWAP_BASE + 3 * h + c``: give
hand card ``h``, take centre card ``c`` in ascending card order, ``SWAP_ALL``): their softmax
is the probability of each move (fitted by cross-entropy), the highest the model's move. The likelihood weights a world by
those probabilities (:meth:`LearnedOpponentModel.move_probabilities`). It always announces a
normal 31 when offered. Evaluated with numpy, deterministic.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from ..envs.compile_notice import install as _announce_compiles
from ..envs.tri_palki.vocabulary import SWAP_ALL
from ..search.mlp import Mlp
from .tri_palki_heuristic_core import MOVES, core_move_into

__all__ = [
    "NUM_FEATURES",
    "NUM_MOVES",
    "LearnedOpponentModel",
    "load_opponent_model",
    "opponent_features",
]

NUM_CARD_BITS = 36
NUM_MOVES = SWAP_ALL + 1  # PASS, the nine swaps, SWAP_ALL
NUM_FEATURES = 2 * NUM_CARD_BITS + 3 + NUM_MOVES
FORMAT = 1


def opponent_features(
    hand: np.ndarray,
    centre: np.ndarray,
    reserve_low: np.ndarray,
    announced: np.ndarray,
    deciding: np.ndarray,
) -> np.ndarray:
    """The model's input for arrays of decisions (equal lengths): hand bits, centre bits, the
    three flags and the heuristic rules' move one-hot, ``(n, NUM_FEATURES)`` float32."""
    hand = np.asarray(hand, dtype=np.int64).reshape(-1)
    centre = np.asarray(centre, dtype=np.int64).reshape(-1)
    flags = [np.asarray(f, dtype=bool).reshape(-1) for f in (reserve_low, announced, deciding)]
    if any(len(f) != len(hand) for f in (centre, *flags)):
        raise ValueError("opponent_features: hand, centre and the three flags differ in length")
    out = np.zeros((len(hand), NUM_FEATURES), dtype=np.float32)
    _features_into(hand, centre, flags[0], flags[1], flags[2], out)
    return out


@njit(cache=True)
def _features_into(hand, centre, reserve_low, announced, deciding, out):  # type: ignore[no-untyped-def]
    score = np.zeros((2, MOVES), dtype=np.float64)
    facts = np.zeros((5, MOVES), dtype=np.int64)
    for i in range(hand.shape[0]):
        for k in range(NUM_CARD_BITS):
            out[i, k] = (hand[i] >> k) & 1
            out[i, NUM_CARD_BITS + k] = (centre[i] >> k) & 1
        out[i, 2 * NUM_CARD_BITS] = reserve_low[i]
        out[i, 2 * NUM_CARD_BITS + 1] = announced[i]
        out[i, 2 * NUM_CARD_BITS + 2] = deciding[i]
        rule = core_move_into(
            hand[i], centre[i], reserve_low[i], announced[i], deciding[i], score, facts
        )
        out[i, 2 * NUM_CARD_BITS + 3 + rule] = 1.0


@dataclass(frozen=True)
class LearnedOpponentModel:
    """A ReLU perceptron over :func:`opponent_features` → one score per move (see the module
    docstring); an :class:`~folkcards.search.tri_palki_likelihood.OpponentModel`."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
    announces: bool = True
    network: Mlp = field(init=False, repr=False, compare=False)  # the weights, checked once

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.biases) or not self.weights:
            raise ValueError("the opponent model needs as many bias vectors as weight matrices")
        if self.weights[0].shape[0] != NUM_FEATURES or self.weights[-1].shape[1] != NUM_MOVES:
            raise ValueError(
                f"the opponent model maps {NUM_FEATURES} features to {NUM_MOVES} moves; got "
                f"{self.weights[0].shape[0]} to {self.weights[-1].shape[1]}"
            )
        object.__setattr__(self, "network", Mlp(self.weights, self.biases))

    def scores(self, features: np.ndarray) -> np.ndarray:
        """The move scores (logits) of feature rows, ``(n, NUM_MOVES)``, each row's the same
        in any batch and with any number of threads (:meth:`Mlp.rowwise <folkcards.search.mlp.Mlp.rowwise>`)."""
        return self.network.rowwise(features)

    def moves(
        self,
        hand: np.ndarray,
        centre: np.ndarray,
        reserve_low: np.ndarray,
        announced: np.ndarray,
        deciding: np.ndarray,
    ) -> np.ndarray:
        """The model's move for each decision (ties: the lowest move id), int64."""
        x = opponent_features(hand, centre, reserve_low, announced, deciding)
        return np.argmax(self.scores(x), axis=1).astype(np.int64)

    def move_probabilities(
        self,
        hand: np.ndarray,
        centre: np.ndarray,
        reserve_low: np.ndarray,
        announced: np.ndarray,
        deciding: np.ndarray,
    ) -> np.ndarray:
        """The model's probability of each move (softmax of the scores), ``(n, NUM_MOVES)``:
        the likelihood weights a world by how probable the moves made are, not only by whether
        they are the single most likely one. Each row's answer is independent of the other
        rows asked with it (:meth:`scores`), so the likelihood may ask each distinct table
        once."""
        z = self.scores(opponent_features(hand, centre, reserve_low, announced, deciding))
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the weights (``.npz``) and a sidecar ``.json`` describing the data and fit."""
        path = Path(path)
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]
        sidecar = {"format": FORMAT, "layers": len(self.weights), **self.meta}
        path.with_suffix(".json").write_text(json.dumps(sidecar, indent=2, sort_keys=True) + "\n")


def load_opponent_model(path: str | os.PathLike[str]) -> LearnedOpponentModel:
    """Load a model written by :meth:`LearnedOpponentModel.save`; ``ValueError`` in one line
    for a missing or malformed file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no Tri Palki opponent model at {path}")
    try:
        with np.load(path) as data:
            layers = sum(1 for name in data.files if name.startswith("w"))
            weights = tuple(np.asarray(data[f"w{i}"], dtype=np.float32) for i in range(layers))
            biases = tuple(np.asarray(data[f"b{i}"], dtype=np.float32) for i in range(layers))
    except (OSError, KeyError, ValueError) as error:
        raise ValueError(f"{path} is not a Tri Palki opponent model: {error}") from None
    sidecar = path.with_suffix(".json")
    meta = json.loads(sidecar.read_text()) if sidecar.is_file() else {}
    return LearnedOpponentModel(weights, biases, meta)


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
