"""The Tri Palki heuristic and its ``tri_palki_actions`` features for whole batches (numba).

:class:`BatchedTriPalkiHeuristic` decides ``M`` rows of observations and masks at once, and
:func:`tri_palki_actions_batch` computes ``M`` feature rows, both in compiled code working
straight from the observation vectors (no :func:`~folkcards.envs.tri_palki.observation.decode`,
no Python objects per row). They are the per-game
:class:`~folkcards.agents.tri_palki_heuristic.TriPalkiHeuristicAgent` and
:func:`~folkcards.agents.features.tri_palki_actions` for batches; the rules themselves (scores,
feeding costs, pass rules) are the compiled functions of
:mod:`~folkcards.agents.tri_palki_heuristic_core`, which the per-game agent calls too. This
module only reads the rows and applies the per-game agent's fallbacks:

- the same decisions, bit for bit (the same compiled rules, fed the same facts);
- the same fallbacks: a single legal action is played as is, an offered announcement is taken,
  a chosen action outside the mask becomes pass (or the lowest legal id), and an observation the
  per-game agent cannot decode (a non-finite reserve count, pass count or hand value) or whose
  swaps leave a hand or centre of other than three cards (hand and centre sharing a card) gets
  the fallback the per-game agent plays after its exception;
- the same feature values: each element is the same float64 expression rounded once to float32
  (exact equality, no tolerance).

The per-game agent keeps no state between decisions and never draws from its random generator
(the ``rng`` of :class:`~folkcards.agents.base.Agent` is unused), so a batch needs neither.
The differential tests in ``tests/agents/test_tri_palki_heuristic_batched.py`` compare both with
the per-game versions: 20,000 decisions at 2, 4, 7 and 11 players by default, 300,000 over every
table size 2–11 in the slow test, and every decision and assessment with the Python heuristic
the compiled rules replaced (``tests/agents/tri_palki_heuristic_reference.py``).

    heuristic = BatchedTriPalkiHeuristic(4)
    actions = heuristic.act(obs, mask)       # (M, 301), (M, 13) -> int64 (M,)
    features = tri_palki_actions_batch(obs)  # (M, 301) -> float32 (M, 301 + extra)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..envs._batched import run_in_chunks
from ..envs.compile_notice import install as _announce_compiles
from ..envs.tri_palki.kernels import hand_key, hand_kind
from ..envs.tri_palki.observation import (
    VALUE_SCALE,
    observation_offsets,
    observation_size,
)
from ..envs.tri_palki.rules import MAX_RESERVE
from ..envs.tri_palki.vocabulary import (
    ACTION,
    ANNOUNCE,
    KEY_VALUE_SHIFT,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NORMAL,
    NUM_ACTIONS,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
)
from .features import _GLOBAL_FEATURES, _MOVE_FEATURES, _SEAT_FEATURES, _tri_palki_extra_for
from .tri_palki_heuristic_core import (
    F_BAD,
    F_ENDS,
    F_KIND,
    F_VALUE,
    F_WASHES,
    TriPalkiParams,
    assess_moves,
    choose_move,
    params_array,
    popcount,
    prepare,
    scratch,
    suit_value_of,
)

# observation pieces read here, in this order in the offsets array
_PIECES = (
    "hand", "centre", "washed", "known", "reserve_count", "passes", "hand_value", "eliminated",
    "announced", "final_turn_pending", "pass_ends_round", "phase",
)  # fmt: skip
(
    O_HAND, O_CENTRE, O_WASHED, O_KNOWN, O_RESERVE, O_PASSES, O_HAND_VALUE, O_ELIMINATED,
    O_ANNOUNCED, O_FINAL, O_PASS_ENDS, O_PHASE,
) = range(len(_PIECES))  # fmt: skip

# per-row error codes of the kernels
OK, UNDECODABLE, BAD_SWAP, NO_LEGAL = 0, 1, 2, 3


def _offsets(num_players: int) -> np.ndarray:
    offsets = observation_offsets(num_players)
    return np.array([offsets[name] for name in _PIECES], dtype=np.int64)


# --- reading the observation --------------------------------------------------------------------


@njit(cache=True)
def _cards(obs: np.ndarray, i: int, start: int) -> int:
    """The 36-bit mask of the nonzero elements ``obs[i, start : start + 36]`` (as ``decode``)."""
    mask = 0
    for card in range(36):
        if obs[i, start + card] != 0:
            mask |= 1 << card
    return mask


@njit(cache=True)
def _read(
    obs: np.ndarray, i: int, off: np.ndarray, n: int, known: np.ndarray, flags: np.ndarray
) -> tuple[int, int, int, int]:
    """Row ``i``: ``known[r]`` for every relative seat and ``flags`` (eliminated, final turn
    pending) per seat; returns ``(hand, centre, washed, error)`` with ``error`` UNDECODABLE where
    ``decode`` would raise (``round`` of a non-finite number)."""
    for r in range(n):
        known[r] = _cards(obs, i, off[O_KNOWN] + 36 * r)
        flags[0, r] = obs[i, off[O_ELIMINATED] + r] != 0
        flags[1, r] = obs[i, off[O_FINAL] + r] != 0
    error = OK
    for piece in (O_RESERVE, O_PASSES, O_HAND_VALUE):
        if not np.isfinite(obs[i, off[piece]]):
            error = UNDECODABLE
    hand = _cards(obs, i, off[O_HAND])
    return hand, _cards(obs, i, off[O_CENTRE]), _cards(obs, i, off[O_WASHED]), error


@njit(cache=True)
def _reserve_low(obs: np.ndarray, i: int, off: np.ndarray) -> bool:
    # decode: round(float(x) * MAX_RESERVE) < 3, with round half to even as np.rint
    return np.rint(np.float64(obs[i, off[O_RESERVE]]) * MAX_RESERVE) < 3


@njit(cache=True)
def _assess(
    hand: int,
    centre: int,
    washed: int,
    known: np.ndarray,
    flags: np.ndarray,
    n: int,
    announced: bool,
    reserve_low: bool,
    params: np.ndarray,
    pool: np.ndarray,
    seat_cards: np.ndarray,
    seat_weight: np.ndarray,
    score: np.ndarray,
    facts: np.ndarray,
) -> float:
    """The shared rules' :func:`~.tri_palki_heuristic_core.prepare` then
    :func:`~.tri_palki_heuristic_core.assess_moves` for one row."""
    seats = prepare(
        hand, centre, washed, known, flags, n, announced, params, pool, seat_cards, seat_weight
    )
    return assess_moves(
        hand, centre, announced, reserve_low, params, pool, seats, seat_cards, seat_weight,
        score, facts,
    )  # fmt: skip


# --- the decision (RuleBasedAgent.act, TriPalkiHeuristicAgent._decide / _choose) ---------------


@njit(cache=True, nogil=True)
def _decide_range(
    lo: int,
    hi: int,
    obs: np.ndarray,
    mask: np.ndarray,
    off: np.ndarray,
    n: int,
    params: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[i]`` for rows ``lo .. hi-1``: the heuristic's action, or -1 if the mask allows
    nothing."""
    known, flags, pool, seat_cards, seat_weight, score, facts = scratch(n)
    for i in range(lo, hi):
        count = 0
        single = -1
        fallback = -1  # pass if legal, else the lowest legal id
        for a in range(mask.shape[1]):
            if mask[i, a] != 0:
                count += 1
                single = a
                if fallback < 0:
                    fallback = a
        if count <= 1:
            out[i] = single
            continue
        if mask[i, ANNOUNCE] != 0:
            out[i] = ANNOUNCE
            continue
        hand, centre, washed, error = _read(obs, i, off, n, known, flags)
        if error != OK:
            out[i] = fallback
            continue
        choice = PASS
        if popcount(hand) == 3 and popcount(centre) == 3 and hand_kind(hand) == NORMAL:
            announced = obs[i, off[O_ANNOUNCED]] != 0
            keep = _assess(
                hand, centre, washed, known, flags, n, announced, _reserve_low(obs, i, off),
                params, pool, seat_cards, seat_weight, score, facts,
            )  # fmt: skip
            legal = 0
            for a in range(SWAP_BASE, SWAP_ALL + 1):
                if mask[i, a] != 0:
                    legal |= 1 << a
            pass_ends = obs[i, off[O_PASS_ENDS]] != 0
            choice = choose_move(hand, keep, score, facts, legal, announced, pass_ends, params)
            if choice < 0:  # the per-game agent raises here and falls back
                out[i] = fallback
                continue
        out[i] = choice if mask[i, choice] != 0 else fallback


# --- the features (features.tri_palki_action_extra) ----------------------------------------------


@njit(cache=True, nogil=True)
def _features_range(
    lo: int,
    hi: int,
    obs: np.ndarray,
    off: np.ndarray,
    n: int,
    params: np.ndarray,
    out: np.ndarray,
    errors: np.ndarray,
) -> None:
    dim = obs.shape[1]
    known, flags, pool, seat_cards, seat_weight, score, facts = scratch(n)
    seats = _GLOBAL_FEATURES
    moves = _GLOBAL_FEATURES + _SEAT_FEATURES * (n - 1)
    for i in range(lo, hi):
        for j in range(dim):
            out[i, j] = obs[i, j]
        for j in range(dim, out.shape[1]):
            out[i, j] = 0.0
        errors[i] = OK
        hand, centre, washed, error = _read(obs, i, off, n, known, flags)
        if error != OK:
            errors[i] = error
            continue
        if popcount(hand) != 3 or popcount(centre) != 3:
            continue
        announced = obs[i, off[O_ANNOUNCED]] != 0
        pass_ends = obs[i, off[O_PASS_ENDS]] != 0
        reserve_low = _reserve_low(obs, i, off)
        hand_value = hand_key(hand) >> KEY_VALUE_SHIFT
        special = hand_kind(hand) != NORMAL
        x = out[i, dim:]
        x[0] = hand_value / VALUE_SCALE
        x[1] = special
        x[2] = pass_ends
        x[3] = reserve_low
        x[4] = announced
        for r in range(1, n):
            base = seats + _SEAT_FEATURES * (r - 1)
            x[base] = suit_value_of(known[r]) / VALUE_SCALE
            x[base + 1] = popcount(known[r]) / 3.0
        playable = 1.0 if obs[i, off[O_PHASE] + ACTION] != 0 else 0.0  # the first phase bit
        keep = _assess(
            hand, centre, washed, known, flags, n, announced, reserve_low, params, pool,
            seat_cards, seat_weight, score, facts,
        )  # fmt: skip
        x[moves] = playable
        x[moves + 1] = hand_value / VALUE_SCALE
        x[moves + 2] = special
        x[moves + 5] = pass_ends
        for a in range(SWAP_BASE, SWAP_ALL + 1):
            if facts[F_BAD, a]:
                errors[i] = BAD_SWAP
                break
            start = moves + _MOVE_FEATURES * a
            x[start] = playable
            x[start + 1] = facts[F_VALUE, a] / VALUE_SCALE
            x[start + 2] = facts[F_KIND, a] != NORMAL
            x[start + 3] = min(max((score[0, a] - keep) / 10.0, -2.0), 2.0)
            x[start + 4] = facts[F_WASHES, a]
            x[start + 5] = facts[F_ENDS, a]
            x[start + 6] = score[1, a] / 10.0


# --- public API ------------------------------------------------------------------------------------


def _players_of(obs_dim: int) -> int:
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        if observation_size(n) == obs_dim:
            return n
    sizes = ", ".join(f"{observation_size(n)} ({n}p)" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
    raise ValueError(f"no Tri Palki observation has {obs_dim} elements; valid sizes: {sizes}")


def _numeric(array: np.ndarray, what: str) -> np.ndarray:
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{what} must hold numbers, got dtype {array.dtype}")
    return np.ascontiguousarray(array)


_DEFAULT_PARAMS = params_array(TriPalkiParams())


class BatchedTriPalkiHeuristic:
    """:class:`~folkcards.agents.tri_palki_heuristic.TriPalkiHeuristicAgent` for ``M`` decisions at
    once at a table of ``num_players`` (2–11); ``params`` as the per-game agent's (default its
    defaults)."""

    def __init__(self, num_players: int, params: TriPalkiParams | None = None):
        if (
            isinstance(num_players, (bool, np.bool_))
            or not isinstance(num_players, (int, np.integer))
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS
        ):
            raise ValueError(
                f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                f"got {num_players!r}"
            )
        self.num_players = int(num_players)
        self.obs_dim = observation_size(self.num_players)
        self.params = params or TriPalkiParams()
        self._params = params_array(self.params)
        self._off = _offsets(self.num_players)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """int64 ``(M,)``: the per-game heuristic's action for each row of ``obs`` ``(M,
        obs_dim)`` (the acting seat's observation) and ``mask`` ``(M, 13)``."""
        obs = np.asarray(obs)
        mask = np.asarray(mask)
        if obs.ndim != 2 or obs.shape[1] != self.obs_dim:
            raise ValueError(
                f"obs must have shape (M, {self.obs_dim}) for {self.num_players} players, "
                f"got {obs.shape}"
            )
        if mask.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(
                f"mask must have shape ({obs.shape[0]}, {NUM_ACTIONS}) to match obs, "
                f"got {mask.shape}"
            )
        obs = _numeric(obs, "obs")
        if obs.dtype.kind != "f":
            obs = obs.astype(np.float64)
        mask = _numeric(mask, "mask")
        out = np.empty(obs.shape[0], dtype=np.int64)
        if obs.shape[0]:
            run_in_chunks(
                _decide_range, obs.shape[0], obs, mask, self._off, self.num_players, self._params,
                out,
            )  # fmt: skip
            if out.min() < 0:
                i = int(np.argmin(out))
                raise ValueError(f"row {i}: the action mask has no legal action")
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players})"


def tri_palki_actions_batch(obs: np.ndarray) -> np.ndarray:
    """float32 ``(M, obs_dim + extra)``: :func:`~folkcards.agents.features.tri_palki_actions` of
    every row of ``obs`` ``(M, obs_dim)``, exactly (the table size is read from ``obs_dim``)."""
    array = np.asarray(obs)
    if array.ndim != 2:
        raise ValueError(f"obs must be a 2-d array (M, obs_dim), got shape {array.shape}")
    n = _players_of(array.shape[1])
    array = np.ascontiguousarray(_numeric(array, "obs"), dtype=np.float32)
    m = array.shape[0]
    out = np.empty((m, array.shape[1] + _tri_palki_extra_for(n)), dtype=np.float32)
    errors = np.zeros(m, dtype=np.int8)
    if m:
        run_in_chunks(
            _features_range, m, array, _offsets(n), n, _DEFAULT_PARAMS, out, errors
        )  # fmt: skip
        if errors.any():
            i = int(np.flatnonzero(errors)[0])
            problem = (
                "the reserve count, pass count or hand value is not finite"
                if errors[i] == UNDECODABLE
                else "its hand and centre share a card"
            )
            raise ValueError(f"row {i}: not a Tri Palki observation: {problem}")
    return out


__all__ = ["BatchedTriPalkiHeuristic", "tri_palki_actions_batch"]

_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
