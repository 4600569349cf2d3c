"""The Paston heuristic, batched: :class:`BatchedPastonHeuristic` decides for many seats at once.

``BatchedPastonHeuristic().act(obs, mask)`` takes ``M`` decisions (any games, any seats: each
row is the acting seat's observation vector and action mask, as ``paston_v0.vector_env`` gives
them) and returns the ``M`` actions that :class:`~folkcards.agents.paston_heuristic.
PastonHeuristicAgent` (with the same :class:`~folkcards.agents.paston_heuristic.PastonParams`)
returns for ``{"observation": obs[i], "action_mask": mask[i]}``. Both call the same compiled
rules, :func:`folkcards.agents.paston_heuristic_core.decide_rows`, including the per-game agent's
wrapper rules (a forced move is played at once; a choice that is not legal becomes the first
legal action); ``tests/agents/test_paston_heuristic_batched.py`` compares both, and the rules
with their pure-Python reference, over many thousands of decisions. The heuristic keeps no
state between calls and draws no random numbers.

The heuristic reads only which elements of an observation are nonzero, so observations of
another dtype than float32 are read as such (one compiled form). Batches of 64 rows or more
run on the batched engines' threads (``folkcards.envs._batched.run_in_chunks``).

Observations the env cannot produce (for example a discard phase in which no card of the hand
is legal, or action ids above 31 legal in the play) are answered without crashing, but not
necessarily as the heuristic's pure-Python reference answers them.
"""

from __future__ import annotations

import numpy as np

from ..envs._batched import run_in_chunks
from ..envs.paston.observation import OBSERVATION_SIZE
from ..envs.paston.vocabulary import NUM_ACTIONS
from . import paston_heuristic_core as core
from .paston_heuristic_core import PastonParams, decide_rows, py_round6, tables


def suit_tricks_batched(mine: int, out: int, trump: bool, control: int = 2) -> float:
    """:func:`~folkcards.agents.paston_heuristic.suit_tricks` as the compiled code gets it (a
    table lookup; for tests)."""
    return float(core.suit_tricks(mine, out, trump, control, *tables(PastonParams())))


class BatchedPastonHeuristic:
    """The Paston heuristic over a batch of decisions: the same actions as
    :class:`~folkcards.agents.paston_heuristic.PastonHeuristicAgent` with the same ``params``."""

    name = "heuristic"
    game_name = "paston"

    def __init__(self, params: PastonParams | None = None):
        self.params = params or PastonParams()
        self._tables = tables(self.params)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions int64 ``(M,)`` for observations ``(M, obs_dim)`` and masks ``(M, 45)``
        (bool or integer) of ``M`` decisions; ``ValueError`` for bad shapes or a row with no
        legal action."""
        obs = np.asarray(obs)
        mask = np.asarray(mask)
        if obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE:
            raise ValueError(f"obs must have shape (M, {OBSERVATION_SIZE}), got {obs.shape}")
        if mask.ndim != 2 or mask.shape[1] != NUM_ACTIONS:
            raise ValueError(f"mask must have shape (M, {NUM_ACTIONS}), got {mask.shape}")
        if mask.shape[0] != obs.shape[0]:
            raise ValueError(f"obs has {obs.shape[0]} rows but mask has {mask.shape[0]}")
        if obs.dtype.kind not in "fiub":
            raise ValueError(f"obs must be a numeric array, got dtype {obs.dtype}")
        if mask.dtype.kind not in "fiub":
            raise ValueError(f"mask must be a bool or integer array, got dtype {mask.dtype}")
        rows = obs.shape[0]
        out = np.empty(rows, dtype=np.int64)
        if rows == 0:
            return out
        if obs.dtype != np.float32:
            # the heuristic reads only which elements are nonzero: keep one compiled form
            obs = (obs != 0).astype(np.float32)
        obs = np.ascontiguousarray(obs)
        mask = np.ascontiguousarray(mask.view(np.int8) if mask.dtype == np.bool_ else mask)
        if mask.dtype != np.int8:
            mask = (mask != 0).view(np.int8)
        run_in_chunks(decide_rows, rows, obs, mask, *self._tables, out)
        if (out < 0).any():
            bad = int(np.flatnonzero(out < 0)[0])
            raise ValueError(f"row {bad} of the mask has no legal action")
        return out


__all__ = ["BatchedPastonHeuristic", "py_round6", "suit_tricks_batched"]
