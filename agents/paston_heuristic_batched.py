"""The Paston heuristic, batched: :class:`BatchedPastonHeuristic` decides for many seats at once.

``BatchedPastonHeuristic().act(obs, mask)`` takes ``M`` decisions (any games, any seats: each
row is the acting seat's observation vector and action mask, as ``paston_v0.vector_env`` gives
them) and returns the ``M`` actions that :class:`~folkcards.agents.paston_heuristic.
PastonHeuristicAgent` (with the same :class:`~folkcards.agents.paston_heuristic.PastonParams`)
returns for ``{"observation": obs[i], "action_mask": mask[i]}``, in compiled code (numba).

Exactly the same decisions, not nearly: the rules of ``paston_heuristic.py`` are restated here
over bit masks read straight from the vector, with the per-game arithmetic in the same order
(sums of floats as CPython's ``sum`` does them, which changed in 3.12; ``round(x, 6)`` of the
discard keys correctly rounded, ties to even), the same tie-breaks (the first of equal maxima
and minima, in the order the per-game lists are built), and the per-game agent's wrapper rules
(a forced move is played at once; a choice that is not legal becomes the first legal action).
``tests/agents/test_paston_heuristic_batched.py`` compares both over many thousands of
decisions. The per-game heuristic keeps no state between calls and draws no random numbers, so
neither does this one.

The decision code receives the heuristic's constants (weights, tables, parameters), the
observation offsets and the action ids as two arrays on every call instead of reading them as
globals: numba bakes globals into its on-disk cache, which would go stale when those modules
change. ``suit_tricks`` is read from a table of all 6,561 pairs of disjoint rank masks × 6
variants (0.3 MB, built by the compiled function when the agent is made, in milliseconds).
The heuristic reads only which elements of an observation are nonzero, so observations of
another dtype than float32 are read as such (one compiled form). Batches of 64 rows or more
run on the batched engines' threads (``folkcards.envs._batched.run_in_chunks``). The first
call in a fresh checkout compiles for about 30 s of CPU; numba caches the result on disk.

Observations the env cannot produce (for example a discard phase in which no card of the hand
is legal, or action ids above 31 legal in the play) are answered without crashing, but not
necessarily as the per-game agent answers them.
"""

from __future__ import annotations

import math
import sys
from dataclasses import astuple, fields

import numpy as np
from numba import njit

from ..envs._batched import run_in_chunks
from ..envs.paston.observation import OBSERVATION_SIZE, OFFSETS
from ..envs.paston.vocabulary import (
    AUCTION,
    BEST_SPADES,
    BID_BASE,
    CONTRACT,
    CONTRACT_BASE,
    DEFENCE,
    DISCARD,
    LEVEL_FACTOR,
    LEVEL_TRUMP,
    NUM_ACTIONS,
    NUM_LEVELS,
    PASS,
    PHASE_NAMES,
    PLAY,
    SURRENDER,
    WHIST,
)
from . import paston_heuristic as ph
from .paston_heuristic import PastonParams, trump_control

# CPython's sum() of floats adds left to right before 3.12 and with Neumaier's compensation
# from 3.12 on. Numba's cache is per Python version, so this global may be baked in.
_NEUMAIER_SUM = sys.version_info >= (3, 12)

# The compiled code reads every constant from two arrays, ``K`` (int64) and ``F`` (float64),
# built by :func:`_tables`, at the positions below.
(
    K_O_HAND, K_O_DISCARDS, K_O_PLAYED, K_O_TRICK, K_O_TRICK_LEADER, K_O_PHASE, K_O_HIGH_BID,
    K_O_ALL_PASS, K_O_DECLARER, K_O_CONTRACT, K_O_WHIST, K_O_VOIDS,
    K_A_PASS, K_A_BID, K_A_CONTRACT, K_A_SURRENDER, K_A_WHIST, K_NUM_LEVELS, K_BEST_SPADES,
    K_NUM_PHASES, K_PH_AUCTION, K_PH_DISCARD, K_PH_CONTRACT, K_PH_DEFENCE, K_PH_PLAY,
    K_LEVEL_TRUMP,
) = range(26)  # fmt: skip
K_LEVEL_FACTOR = K_LEVEL_TRUMP + NUM_LEVELS
K_TERN = K_LEVEL_FACTOR + NUM_LEVELS  # 256 entries: a rank mask's bits as base-3 digits
K_SIZE = K_TERN + 256

_COLS = len(ph._MIN_GE[0])  # the split tables are indexed [outstanding cards, count]
F_MIN_GE = 0
F_MAX_LE = F_MIN_GE + len(ph._MIN_GE) * _COLS
F_RUFF_MISS = F_MAX_LE + len(ph._MAX_LE) * _COLS
F_DECLARER_W = F_RUFF_MISS + len(ph.RUFF_MISS)
F_TWO_W = F_DECLARER_W + len(ph.DECLARER_WEIGHTS)
F_TWO_C = F_TWO_W + len(ph.TWO_DEFENCE_WEIGHTS)
F_SOLE_W = F_TWO_C + 1
F_SOLE_C = F_SOLE_W + len(ph.SOLE_DEFENCE_WEIGHTS)
F_TWO_TABLE = F_SOLE_C + 1
F_SOLE_TABLE = F_TWO_TABLE + len(ph._TWO_DEF)
_PARAM_FIELDS = (
    "prikup_bonus", "declarer_scale", "declarer_shift", "declarer_sigma", "bid_sigma",
    "bid_margin", "best_spades_margin", "two_sigma", "sole_sigma", "all_pass_bonus",
    "other_whist_prob", "whist_margin",
)  # fmt: skip
(
    F_PRIKUP_BONUS, F_DECLARER_SCALE, F_DECLARER_SHIFT, F_DECLARER_SIGMA, F_BID_SIGMA,
    F_BID_MARGIN, F_BEST_SPADES_MARGIN, F_TWO_SIGMA, F_SOLE_SIGMA, F_ALL_PASS_BONUS,
    F_OTHER_WHIST_PROB, F_WHIST_MARGIN,
) = range(F_SOLE_TABLE + len(ph._SOLE_DEF), F_SOLE_TABLE + len(ph._SOLE_DEF) + 12)  # fmt: skip
# suit_tricks of every (held, outstanding) pair of disjoint rank masks, as trumps (variant 0)
# and as a side suit under trump control 0..4 (variants 1..5): see _suit_tricks
F_SUIT = F_WHIST_MARGIN + 1
SUIT_PAIRS = 3**8
F_SIZE = F_SUIT + 6 * SUIT_PAIRS


def _tables(params: PastonParams) -> tuple[np.ndarray, np.ndarray]:
    """``(K, F)``: everything the compiled code needs to know, read from the modules that
    define it (observation offsets, action ids, the heuristic's weights and tables, params)."""
    if [f.name for f in fields(PastonParams)] != list(_PARAM_FIELDS):
        raise RuntimeError("PastonParams changed: update paston_heuristic_batched to match")
    ints = [
        *(OFFSETS[k] for k in ("hand", "discards", "played", "trick", "trick_leader", "phase")),
        *(OFFSETS[k] for k in ("high_bid", "all_pass", "declarer", "contract", "whist", "voids")),
        PASS, BID_BASE, CONTRACT_BASE, SURRENDER, WHIST, NUM_LEVELS, BEST_SPADES,
        len(PHASE_NAMES), AUCTION, DISCARD, CONTRACT, DEFENCE, PLAY,
        *LEVEL_TRUMP, *LEVEL_FACTOR,
        *(sum(3**r for r in range(8) if bits >> r & 1) for bits in range(256)),
    ]  # fmt: skip
    floats = [
        *(x for row in ph._MIN_GE for x in row),
        *(x for row in ph._MAX_LE for x in row),
        *ph.RUFF_MISS, *ph.DECLARER_WEIGHTS,
        *ph.TWO_DEFENCE_WEIGHTS, ph.TWO_DEFENCE_CONSTANT,
        *ph.SOLE_DEFENCE_WEIGHTS, ph.SOLE_DEFENCE_CONSTANT,
        *ph._TWO_DEF, *ph._SOLE_DEF,
        *astuple(params),
        *np.zeros(6 * SUIT_PAIRS),
    ]  # fmt: skip
    K = np.array(ints, dtype=np.int64)
    F = np.array(floats, dtype=np.float64)
    assert K.shape == (K_SIZE,) and F.shape == (F_SIZE,)
    _fill_suit_table(K, F)
    return K, F


# --- arithmetic as CPython does it -----------------------------------------------------------


@njit(cache=True)
def _acc(s: float, c: float, x: float) -> tuple[float, float]:
    """One step of CPython's ``sum`` over floats: running sum ``s``, compensation ``c``."""
    if not _NEUMAIER_SUM:
        return s + x, c
    t = s + x
    if abs(s) >= abs(x):
        c += (s - t) + x
    else:
        c += (x - t) + s
    return t, c


@njit(cache=True)
def _total(s: float, c: float) -> float:
    if _NEUMAIER_SUM and c != 0.0 and math.isfinite(c):
        return s + c
    return s


@njit(cache=True)
def py_round6(x: float) -> float:
    """Python's ``round(x, 6)``: the double nearest to the multiple of 1e-6 nearest to ``x``
    (ties to even), decided exactly (``x * 1e6`` as an unrounded product plus its error)."""
    if not abs(x) < 2.0**33:
        return x  # nan, inf, or so large that its ulp exceeds 2e-6: round(x, 6) == x
    a = abs(x)
    scale = 1e6
    p = a * scale
    # Dekker's exact product: a = hi + lo (Veltkamp split), a * scale = p + err exactly
    split = 134217729.0 * a
    hi = split - (split - a)
    lo = a - hi
    err = (hi * scale - p) + lo * scale
    k = np.floor(p)
    g = (p - k) - 0.5  # exact whenever it is near 0
    d = g + err
    if d > 0.0 or (d == 0.0 and k % 2.0 == 1.0):
        k += 1.0
    r = k / scale
    return math.copysign(r, x)


@njit(cache=True)
def _popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


# --- trick estimates (paston_heuristic.suit_tricks, declarer_tricks, ...) ---------------------


_trump_control = njit(cache=True)(trump_control)  # the per-game function, compiled


@njit(cache=True)
def _suit_tricks_direct(
    mine: int, out: int, trump: bool, control: int, K: np.ndarray, F: np.ndarray
) -> float:
    n = _popcount(mine)
    m = _popcount(out)
    miss = F[F_RUFF_MISS + control]
    total = 0.0
    k = 0
    for r in range(7, -1, -1):
        if not (mine >> r) & 1:
            continue
        h = _popcount(out >> (r + 1))
        if h == 0:
            credit = 1.0
        elif h <= k:
            credit = 1.0 - 0.5 ** (k - h + 1)
        else:
            guard = n - k - 1
            credit = 0.5 ** (h - k) * (1.0 if guard >= h - k else 0.4)
        if trump:
            credit = 1.0 if k >= m else max(credit, 0.9 * F[F_MAX_LE + min(m, 8) * _COLS + k])
        else:
            survive = F[F_MIN_GE + min(m, 8) * _COLS + k + 1]
            credit *= survive + (1.0 - survive) * miss
        total += credit
        k += 1
    return total


@njit(cache=True)
def _fill_suit_table(K: np.ndarray, F: np.ndarray) -> None:
    for mine in range(256):
        for out in range(256):
            if mine & out:
                continue
            at = F_SUIT + K[K_TERN + mine] + 2 * K[K_TERN + out]
            F[at] = _suit_tricks_direct(mine, out, True, 2, K, F)
            for control in range(5):
                F[at + (1 + control) * SUIT_PAIRS] = _suit_tricks_direct(
                    mine, out, False, control, K, F
                )


@njit(cache=True)
def _suit_tricks(
    mine: int, out: int, trump: bool, control: int, K: np.ndarray, F: np.ndarray
) -> float:
    """``suit_tricks`` from the table (``mine`` and ``out`` are disjoint rank masks)."""
    variant = 0 if trump else 1 + control
    return F[F_SUIT + variant * SUIT_PAIRS + K[K_TERN + mine] + 2 * K[K_TERN + out]]


def suit_tricks_batched(mine: int, out: int, trump: bool, control: int = 2) -> float:
    """:func:`~folkcards.agents.paston_heuristic.suit_tricks` as the compiled code gets it (a
    table lookup; for tests)."""
    return float(_suit_tricks(mine, out, trump, control, *_DEFAULT_TABLES))


@njit(cache=True)
def _weighted(
    tt: float, side: float, ruffs: float, n_t: int, m_t: int, K: np.ndarray, F: np.ndarray
) -> float:
    """``declarer_tricks``: ``sum(w * c for the five components) + constant``."""
    w = F[F_DECLARER_W : F_DECLARER_W + 6]
    s, c = _acc(0.0, 0.0, w[0] * tt)
    s, c = _acc(s, c, w[1] * side)
    s, c = _acc(s, c, w[2] * ruffs)
    s, c = _acc(s, c, w[3] * n_t)
    s, c = _acc(s, c, w[4] * m_t)
    return _total(s, c) + w[5]


@njit(cache=True)
def _declarer_tricks(hand: int, gone: int, trump: int, K: np.ndarray, F: np.ndarray) -> float:
    other = ~(hand | gone) & 0xFFFFFFFF
    t_mine = hand >> (8 * trump) & 0xFF
    t_out = other >> (8 * trump) & 0xFF
    n_t = _popcount(t_mine)
    m_t = _popcount(t_out)
    control = _trump_control(n_t, m_t)
    tt = _suit_tricks(t_mine, t_out, True, 2, K, F)
    side = 0.0
    shortness = 0
    for s in range(4):
        if s == trump:
            continue
        mine = hand >> (8 * s) & 0xFF
        side += _suit_tricks(mine, other >> (8 * s) & 0xFF, False, control, K, F)
        shortness += max(0, 2 - _popcount(mine))
    ruffs = min(max(0.0, n_t - tt), float(shortness))
    return _weighted(tt, side, ruffs, n_t, m_t, K, F)


@njit(cache=True)
def _contract_value(tricks: float, level: int, sigma: float, K: np.ndarray, F: np.ndarray) -> float:
    z = (tricks - (6 - 0.5)) / sigma
    p = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    if level == K[K_BEST_SPADES]:
        return 10.0 * p - 40.0 * (1.0 - p)
    return 10.0 * K[K_LEVEL_FACTOR + level] * (2.0 * p - 1.0)


@njit(cache=True)
def _defence_tricks(hand: int, trump: int, sole: bool, K: np.ndarray, F: np.ndarray) -> float:
    f = np.zeros(14)
    t = hand >> (8 * trump) & 0xFF
    nt = _popcount(t)
    for s in range(4):
        if s == trump:
            continue
        mine = hand >> (8 * s) & 0xFF
        n = _popcount(mine)
        a, k, q = mine >> 7 & 1, mine >> 6 & 1, mine >> 5 & 1
        f[0] += a
        f[1] += a * k
        f[2] += 1 if k == 1 and a == 0 and n >= 2 else 0
        f[3] += 1 if k == 1 and n == 1 else 0
        f[4] += 1 if q == 1 and n >= 3 and (a == 1 or k == 1) else 0
        if n <= 1 and nt >= 2:
            f[12] += 1
        if n >= 5:
            f[13] += 1
    f[5] = t >> 7 & 1
    f[6] = 1.0 if (t >> 6 & 1) != 0 and nt >= 2 else 0.0
    f[7] = 1.0 if (t >> 6 & 1) != 0 and nt == 1 else 0.0
    f[8] = 1.0 if (t >> 5 & 1) != 0 and nt >= 3 else 0.0
    f[9] = 1.0 if (t >> 4 & 1) != 0 and nt >= 4 else 0.0
    f[10] = max(0, nt - 3)
    f[11] = nt
    w = F[F_SOLE_W : F_SOLE_W + 14] if sole else F[F_TWO_W : F_TWO_W + 14]
    total, comp = 0.0, 0.0
    for i in range(14):
        total, comp = _acc(total, comp, w[i] * f[i])
    return (F[F_SOLE_C] if sole else F[F_TWO_C]) + _total(total, comp)


@njit(cache=True)
def _defence_value(
    tricks: float, sigma: float, sole: bool, factor: int, K: np.ndarray, F: np.ndarray
) -> float:
    table = F[F_SOLE_TABLE : F_SOLE_TABLE + 11] if sole else F[F_TWO_TABLE : F_TWO_TABLE + 11]
    cdf = np.empty(11)
    for t in range(11):
        cdf[t] = 0.5 * (1.0 + math.erf((t + 0.5 - tricks) / (sigma * math.sqrt(2.0))))
    s, c = _acc(0.0, 0.0, cdf[0] * table[0])
    for t in range(1, 10):
        s, c = _acc(s, c, (cdf[t] - cdf[t - 1]) * table[t])
    s, c = _acc(s, c, (1.0 - cdf[9]) * table[10])
    return factor * _total(s, c)


@njit(cache=True)
def _declarer_value(hand: int, level: int, K: np.ndarray, F: np.ndarray) -> float:
    """The bidding-time value of ``level`` (``PastonHeuristicAgent._declarer_value``)."""
    raw = _declarer_tricks(hand, 0, K[K_LEVEL_TRUMP + level], K, F)
    raw += F[F_PRIKUP_BONUS]
    tricks = F[F_DECLARER_SCALE] * raw + F[F_DECLARER_SHIFT]
    return _contract_value(tricks, level, F[F_BID_SIGMA], K, F)


# --- the phases ------------------------------------------------------------------------------


@njit(cache=True)
def _auction(
    hand: int, legal: np.ndarray, n_legal: int, is_legal: np.ndarray, K: np.ndarray, F: np.ndarray
) -> int:
    bid0 = -1
    for j in range(n_legal):
        if K[K_A_BID] <= legal[j] < K[K_A_BID] + K[K_NUM_LEVELS]:
            bid0 = legal[j]
            break
    if bid0 < 0:
        return K[K_A_PASS]
    level = bid0 - K[K_A_BID]
    lo = K[K_BEST_SPADES] if level == K[K_BEST_SPADES] else level
    hi = K[K_BEST_SPADES] + 1 if level == K[K_BEST_SPADES] else 4
    best = -np.inf
    found = False
    for c in range(lo, hi):
        if _popcount(hand >> (8 * K[K_LEVEL_TRUMP + c]) & 0xFF) < 3:
            continue  # a contract needs trumps: a suit of fewer than three cards is never bid on
        v = _declarer_value(hand, c, K, F)
        if not found or v > best:
            best = v
        found = True
    if not found:
        return K[K_A_PASS] if is_legal[K[K_A_PASS]] else bid0
    if level == K[K_BEST_SPADES]:
        margin = F[F_BEST_SPADES_MARGIN]
    else:
        margin = F[F_BID_MARGIN] * K[K_LEVEL_FACTOR + level]
    if best >= margin:
        return bid0
    return K[K_A_PASS] if is_legal[K[K_A_PASS]] else bid0


@njit(cache=True)
def _keep_value(card: int, trump: int) -> float:
    return (10.0 if card >> 3 == trump else 0.0) + (card & 7)


@njit(cache=True)
def _discard(
    hand: int,
    gone: int,
    high_bid: int,
    legal: np.ndarray,
    n_legal: int,
    K: np.ndarray,
    F: np.ndarray,
) -> int:
    # the cards to choose from: the hand's legal cards (the env's mask is exactly the hand)
    cards = np.empty(32, dtype=np.int64)
    n_cards = 0
    n_hand = 0
    for c in range(32):
        if hand >> c & 1:
            n_hand += 1
            for j in range(n_legal):
                if legal[j] == c:
                    cards[n_cards] = c
                    n_cards += 1
                    break
    if n_cards == 0:
        return legal[0]  # not an env observation; see the module docstring
    to_drop = max(1, min(2, n_hand - 10))
    if high_bid == K[K_BEST_SPADES]:
        lo, hi = K[K_BEST_SPADES], K[K_BEST_SPADES] + 1
    else:
        lo, hi = (high_bid if high_bid >= 0 else 0), 4
    pool = np.empty(32, dtype=np.int64)
    mine = np.empty(4, dtype=np.int64)
    out = np.empty(4, dtype=np.int64)
    values = np.empty(4)
    shortness = np.empty(4, dtype=np.int64)
    has_best = False
    best_v = best_t = best_k = 0.0
    best_card = cards[0]
    other = ~(hand | gone) & 0xFFFFFFFF
    for level in range(lo, hi):
        trump = K[K_LEVEL_TRUMP + level]
        n_pool = 0
        for j in range(n_cards):
            if cards[j] >> 3 != trump:
                pool[n_pool] = cards[j]
                n_pool += 1
        fast = n_pool >= to_drop
        if fast:
            # PastonHeuristicAgent's _SideDiscards: a side discard changes only its own suit
            t_mine = hand >> (8 * trump) & 0xFF
            t_out = other >> (8 * trump) & 0xFF
            n_t = _popcount(t_mine)
            m_t = _popcount(t_out)
            control = _trump_control(n_t, m_t)
            tt = _suit_tricks(t_mine, t_out, True, 2, K, F)
            short_total = 0
            s_side, c_side = 0.0, 0.0
            for s in range(4):
                mine[s] = hand >> (8 * s) & 0xFF
                out[s] = other >> (8 * s) & 0xFF
                if s == trump:
                    values[s] = 0.0
                    shortness[s] = 0
                else:
                    values[s] = _suit_tricks(mine[s], out[s], False, control, K, F)
                    shortness[s] = max(0, 2 - _popcount(mine[s]))
                s_side, c_side = _acc(s_side, c_side, values[s])
                short_total += shortness[s]
            side0 = _total(s_side, c_side)
        else:
            n_pool = n_cards
            pool[:n_cards] = cards[:n_cards]
        n_combos = n_pool * (n_pool - 1) // 2 if to_drop == 2 else n_pool
        for q in range(n_combos):
            # combinations(pool, to_drop) in itertools order
            if to_drop == 2:
                i, rest = 0, q
                while rest >= n_pool - 1 - i:
                    rest -= n_pool - 1 - i
                    i += 1
                c1, c2 = pool[i], pool[i + 1 + rest]
            else:
                c1, c2 = pool[q], -1
            if fast:
                side = side0
                short = short_total
                s1 = c1 >> 3
                if c2 >= 0 and c2 >> 3 != s1:
                    # two suits, in ascending order (a set of small ints iterates so)
                    s2 = c2 >> 3
                    for s in (min(s1, s2), max(s1, s2)):
                        m_new = mine[s] & ~(1 << (c1 & 7)) if s == s1 else mine[s]
                        m_new = m_new & ~(1 << (c2 & 7)) if s == s2 else m_new
                        side += _suit_tricks(m_new, out[s], False, control, K, F) - values[s]
                        short += max(0, 2 - _popcount(m_new)) - shortness[s]
                else:
                    m_new = mine[s1] & ~(1 << (c1 & 7))
                    if c2 >= 0:
                        m_new &= ~(1 << (c2 & 7))
                    side += _suit_tricks(m_new, out[s1], False, control, K, F) - values[s1]
                    short += max(0, 2 - _popcount(m_new)) - shortness[s1]
                ruffs = min(max(0.0, n_t - tt), float(short))
                w = F[F_DECLARER_W : F_DECLARER_W + 6]
                raw = w[0] * tt + w[1] * side + w[2] * ruffs + w[3] * n_t + w[4] * m_t + w[5]
            else:
                drop = 1 << c1
                if c2 >= 0:
                    drop |= 1 << c2
                raw = _declarer_tricks(hand & ~drop, gone | drop, trump, K, F)
            tricks = F[F_DECLARER_SCALE] * raw + F[F_DECLARER_SHIFT]
            value = _contract_value(tricks, level, F[F_DECLARER_SIGMA], K, F)
            k1 = _keep_value(c1, trump)
            keep_sum = k1
            chosen = c1
            if c2 >= 0:
                k2 = _keep_value(c2, trump)
                keep_sum = k1 + k2
                if k2 < k1:
                    chosen = c2
            rv = py_round6(value)
            rt = py_round6(tricks)
            rk = -keep_sum
            if (
                not has_best
                or rv > best_v
                or (rv == best_v and (rt > best_t or (rt == best_t and rk > best_k)))
            ):
                has_best = True
                best_v, best_t, best_k = rv, rt, rk
                best_card = chosen
    return best_card


@njit(cache=True)
def _contract(
    hand: int,
    gone: int,
    legal: np.ndarray,
    n_legal: int,
    is_legal: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
) -> int:
    best_v = -1e9
    best_t = 0.0
    best_c = -1
    for j in range(n_legal):
        a = legal[j]
        if not (K[K_A_CONTRACT] <= a < K[K_A_CONTRACT] + K[K_NUM_LEVELS]):
            continue
        c = a - K[K_A_CONTRACT]
        if best_c < 0:
            best_c = c  # _best_contract starts from (-1e9, allowed[0], 0.0)
        raw = _declarer_tricks(hand, gone, K[K_LEVEL_TRUMP + c], K, F)
        tricks = F[F_DECLARER_SCALE] * raw + F[F_DECLARER_SHIFT]
        value = _contract_value(tricks, c, F[F_DECLARER_SIGMA], K, F)
        if value > best_v or (value == best_v and tricks > best_t):
            best_v, best_c, best_t = value, c, tricks
    if best_c < 0:
        return K[K_A_SURRENDER]
    if best_v < -10.0 and is_legal[K[K_A_SURRENDER]]:
        return K[K_A_SURRENDER]
    return K[K_A_CONTRACT] + best_c


@njit(cache=True)
def _defence(
    hand: int,
    contract: int,
    declarer: int,
    all_pass: bool,
    whist: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
) -> bool:
    """Whether to whist (``paston_heuristic.defence_call``)."""
    trump = K[K_LEVEL_TRUMP + contract]
    factor = K[K_LEVEL_FACTOR + contract]
    bonus = F[F_ALL_PASS_BONUS] if all_pass else 0.0
    two = _defence_value(_defence_tricks(hand, trump, False, K, F) + bonus, F[F_TWO_SIGMA], False,
                         factor, K, F)  # fmt: skip
    sole = _defence_value(_defence_tricks(hand, trump, True, K, F) + bonus, F[F_SOLE_SIGMA], True,
                          factor, K, F)  # fmt: skip
    if declarer == 2:  # the declarer's left (relative seat 0 when the declarer is 2) speaks first
        value = F[F_OTHER_WHIST_PROB] * two + (1.0 - F[F_OTHER_WHIST_PROB]) * sole
    else:
        value = two if whist[2] else sole
    return value > F[F_WHIST_MARGIN] * factor


# --- the play (paston_heuristic._PlayContext) ------------------------------------------------


@njit(cache=True)
def _higher_out(card: int, unknown: int) -> int:
    return _popcount((unknown >> (8 * (card >> 3)) & 0xFF) >> ((card & 7) + 1))


@njit(cache=True)
def _may_hold(seat: int, suit: int, voids: np.ndarray, unknown: int) -> bool:
    return not (voids[seat] >> suit & 1) and (unknown >> (8 * suit) & 0xFF) != 0


@njit(cache=True)
def _beats(card: int, best: int, trump: int) -> bool:
    if card >> 3 == best >> 3:
        return (card & 7) > (best & 7)
    return card >> 3 == trump


@njit(cache=True)
def _safe_against(
    card: int, seat: int, led: int, trump: int, voids: np.ndarray, unknown: int
) -> bool:
    suit = card >> 3
    if suit == led:
        if _may_hold(seat, led, voids, unknown):
            return _higher_out(card, unknown) == 0
        if suit == trump:
            return True
        return not _may_hold(seat, trump, voids, unknown)
    if suit == trump:
        if _may_hold(seat, led, voids, unknown):
            return True
        if not _may_hold(seat, trump, voids, unknown):
            return True
        return _higher_out(card, unknown) == 0
    return False


@njit(cache=True)
def _safe_against_all(
    card: int, seats: int, led: int, trump: int, voids: np.ndarray, unknown: int
) -> bool:
    for r in range(3):
        if seats >> r & 1 and not _safe_against(card, r, led, trump, voids, unknown):
            return False
    return True


@njit(cache=True)
def _discard_key(card: int, hand: int, unknown: int) -> int:
    """``_PlayContext._discard_key`` as one integer ordered like the tuple."""
    suit = card >> 3
    in_suit = hand >> (8 * suit) & 0xFF
    length = _popcount(in_suit)
    has_winner = False
    for r in range(8):
        if in_suit >> r & 1 and _higher_out(8 * suit + r, unknown) == 0:
            has_winner = True
    master = _higher_out(card, unknown) == 0
    guarded = (card & 7) >= 5 and length >= 2 and _higher_out(card, unknown) <= length - 1
    third = (10 if has_winner else 0) + length
    return ((int(master) * 2 + int(guarded)) * 32 + third) * 8 + (card & 7)


@njit(cache=True)
def _lowest_rank(legal: np.ndarray, n_legal: int) -> int:
    """``min(legal, key=lambda c: c & 7)``: the first card of the lowest rank."""
    best = legal[0]
    for j in range(1, n_legal):
        if (legal[j] & 7) < (best & 7):
            best = legal[j]
    return best


@njit(cache=True)
def _cheapest(
    legal: np.ndarray, n_legal: int, led: int, trump: int, hand: int, unknown: int
) -> int:
    low = -1
    for j in range(n_legal):
        c = legal[j]
        if c >> 3 == led and (low < 0 or c < low):
            low = c
    if low >= 0:
        return low
    best = -1
    best_key = 0
    for j in range(n_legal):
        c = legal[j]
        if c >> 3 == trump:
            continue
        key = _discard_key(c, hand, unknown)
        if best < 0 or key < best_key:
            best, best_key = c, key
    if best < 0:
        return _lowest_rank(legal, n_legal)
    return best


@njit(cache=True)
def _follow(
    legal: np.ndarray,
    n_legal: int,
    t_seat: np.ndarray,
    t_card: np.ndarray,
    n_trick: int,
    trump: int,
    active: int,
    opponents: int,
    partner: int,
    hand: int,
    unknown: int,
    voids: np.ndarray,
) -> int:
    led = t_card[0] >> 3
    best_seat, best = t_seat[0], t_card[0]
    played = 1 << t_seat[0]
    for j in range(1, n_trick):
        played |= 1 << t_seat[j]
        if _beats(t_card[j], best, trump):
            best_seat, best = t_seat[j], t_card[j]
    later_opps = active & ~played & ~1 & opponents
    partner_winning = partner >= 0 and best_seat == partner
    # the winners by strength (rank, trumps above); the strengths of winners are all different
    first_winner = -1
    first_sure = -1
    w_strength = 99
    s_strength = 99
    for j in range(n_legal):
        c = legal[j]
        if not _beats(c, best, trump):
            continue
        strength = (c & 7) + (16 if c >> 3 == trump else 0)
        if strength < w_strength:
            first_winner, w_strength = c, strength
        if strength < s_strength and _safe_against_all(c, later_opps, led, trump, voids, unknown):
            first_sure, s_strength = c, strength
    if partner_winning:
        holds = _safe_against_all(best, later_opps, led, trump, voids, unknown)
        if holds or first_sure < 0:
            return _cheapest(legal, n_legal, led, trump, hand, unknown)
        return first_sure
    if first_sure >= 0:
        return first_sure
    if first_winner >= 0 and later_opps == 0:
        return first_winner
    if first_winner >= 0 and first_winner >> 3 == trump and led != trump:
        return first_winner  # a ruff that may be overruffed: still take the chance cheaply
    return _cheapest(legal, n_legal, led, trump, hand, unknown)


@njit(cache=True)
def _lowest_in(bits: int) -> int:
    r = 0
    while not bits >> r & 1:
        r += 1
    return r


@njit(cache=True)
def _highest_in(bits: int) -> int:
    r = 7
    while not bits >> r & 1:
        r -= 1
    return r


@njit(cache=True)
def _opps_may_ruff(suit: int, trump: int, opponents: int, voids: np.ndarray, unknown: int) -> bool:
    if suit == trump:
        return False
    for r in range(3):
        if opponents >> r & 1 and voids[r] >> suit & 1 and _may_hold(r, trump, voids, unknown):
            return True
    return False


@njit(cache=True)
def _declarer_lead(
    legal: np.ndarray,
    n_legal: int,
    trump: int,
    opponents: int,
    hand: int,
    unknown: int,
    voids: np.ndarray,
) -> int:
    my_trumps = hand >> (8 * trump) & 0xFF
    n_trumps = _popcount(my_trumps)
    out_trumps = _popcount(unknown >> (8 * trump) & 0xFF)
    opps_with_trumps = False
    for r in range(3):
        if opponents >> r & 1 and _may_hold(r, trump, voids, unknown):
            opps_with_trumps = True
    if n_trumps and out_trumps and opps_with_trumps and n_trumps >= 2:
        top = 8 * trump + _highest_in(my_trumps)
        if _higher_out(top, unknown) == 0:
            return top
        if (top & 7) > 0 and my_trumps >> ((top & 7) - 1) & 1:
            return top
        return 8 * trump + _lowest_in(my_trumps)
    # masters the opponents cannot ruff: the longest suit, then the highest rank
    best = -1
    best_key = -1
    for j in range(n_legal):
        c = legal[j]
        if c >> 3 == trump or _higher_out(c, unknown) != 0:
            continue
        if _opps_may_ruff(c >> 3, trump, opponents, voids, unknown):
            continue
        key = _popcount(hand >> (8 * (c >> 3)) & 0xFF) * 8 + (c & 7)
        if key > best_key:
            best, best_key = c, key
    if best >= 0:
        return best
    if n_trumps:
        top = 8 * trump + _highest_in(my_trumps)
        if _higher_out(top, unknown) == 0 and opps_with_trumps:
            return top
    # lead low from the longest side suit (then the one with the lower low card)
    best_suit = -1
    best_len = -1
    best_low = 0
    for s in range(4):
        mine = hand >> (8 * s) & 0xFF
        if s == trump or not mine or _opps_may_ruff(s, trump, opponents, voids, unknown):
            continue
        length = _popcount(mine)
        low = 8 * s + _lowest_in(mine)
        if length > best_len or (length == best_len and -low > -best_low):
            best_suit, best_len, best_low = s, length, low
    if best_suit >= 0:
        return best_low
    if n_trumps:
        return 8 * trump + _lowest_in(my_trumps)
    return _lowest_rank(legal, n_legal)


@njit(cache=True)
def _defender_lead(
    legal: np.ndarray,
    n_legal: int,
    trump: int,
    declarer: int,
    partner: int,
    hand: int,
    unknown: int,
    voids: np.ndarray,
) -> int:
    my_trumps = hand >> (8 * trump) & 0xFF
    decl_ruffs = 0
    decl_trumps = _may_hold(declarer, trump, voids, unknown)
    for s in range(4):
        if s != trump and voids[declarer] >> s & 1 and decl_trumps:
            decl_ruffs |= 1 << s
    # masters the declarer cannot ruff: the highest rank, then the shortest suit
    best = -1
    best_key = -1
    for j in range(n_legal):
        c = legal[j]
        if c >> 3 == trump or _higher_out(c, unknown) != 0 or decl_ruffs >> (c >> 3) & 1:
            continue
        key = (c & 7) * 16 + (8 - _popcount(hand >> (8 * (c >> 3)) & 0xFF))
        if key > best_key:
            best, best_key = c, key
    if best >= 0:
        return best
    # lead to a partner's void for a ruff
    if partner >= 0 and _may_hold(partner, trump, voids, unknown):
        for s in range(4):
            mine = hand >> (8 * s) & 0xFF
            if s != trump and voids[partner] >> s & 1 and not decl_ruffs >> s & 1 and mine:
                return 8 * s + _lowest_in(mine)
    side = 0
    for s in range(4):
        if s != trump and hand >> (8 * s) & 0xFF and not decl_ruffs >> s & 1:
            side |= 1 << s
    # a singleton (not a master) when holding trumps
    if my_trumps:
        single = -1
        for s in range(4):
            mine = hand >> (8 * s) & 0xFF
            if side >> s & 1 and _popcount(mine) == 1:
                c = 8 * s + _lowest_in(mine)
                if _higher_out(c, unknown) != 0 and (single < 0 or c < single):
                    single = c
        if single >= 0:
            return single
    # the top of an honour sequence (K Q, Q J ...): it forces out the declarer's cards
    for s in range(4):
        if not side >> s & 1:
            continue
        mine = hand >> (8 * s) & 0xFF
        for r in range(7, 0, -1):
            held = mine >> r & 1 and mine >> (r - 1) & 1
            if held and r >= 4 and _higher_out(8 * s + r, unknown) >= 1:
                return 8 * s + r
    if side:
        # avoid leading away from an unguarded honour; prefer the longest plain suit
        best_suit = -1
        best_key = -1
        for s in range(4):
            if not side >> s & 1:
                continue
            mine = hand >> (8 * s) & 0xFF
            honour = False
            for r in range(5, 8):
                if mine >> r & 1 and _higher_out(8 * s + r, unknown) != 0:
                    honour = True
            key = (0 if honour else 1) * 16 + _popcount(mine)
            if key > best_key:
                best_suit, best_key = s, key
        return 8 * best_suit + _lowest_in(hand >> (8 * best_suit) & 0xFF)
    if my_trumps:
        top = 8 * trump + _highest_in(my_trumps)
        if _higher_out(top, unknown) == 0:
            return top
        return 8 * trump + _lowest_in(my_trumps)
    return _lowest_rank(legal, n_legal)


# --- one decision ----------------------------------------------------------------------------


@njit(cache=True)
def _first_set(row: np.ndarray, start: int, size: int) -> int:
    for k in range(size):
        if row[start + k] != 0:
            return k
    return -1


@njit(cache=True)
def _card_mask(row: np.ndarray, start: int) -> int:
    bits = 0
    for c in range(32):
        if row[start + c] != 0:
            bits |= 1 << c
    return bits


@njit(cache=True)
def _decide(
    row: np.ndarray,
    mrow: np.ndarray,
    legal: np.ndarray,
    is_legal: np.ndarray,
    t_seat: np.ndarray,
    t_card: np.ndarray,
    voids: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
) -> int:
    """PastonHeuristicAgent.act for one row; -1 when the row has no legal action."""
    n_legal = 0
    for a in range(mrow.shape[0]):
        is_legal[a] = mrow[a] != 0
        if is_legal[a]:
            legal[n_legal] = a
            n_legal += 1
    if n_legal == 0:
        return -1
    if n_legal == 1:
        return legal[0]
    phase = _first_set(row, K[K_O_PHASE], K[K_NUM_PHASES])
    hand = _card_mask(row, K[K_O_HAND])
    action = -1
    if phase == K[K_PH_AUCTION]:
        action = _auction(hand, legal, n_legal, is_legal, K, F)
    elif phase == K[K_PH_DISCARD]:
        high_bid = _first_set(row, K[K_O_HIGH_BID], K[K_NUM_LEVELS])
        gone = _card_mask(row, K[K_O_DISCARDS])
        action = _discard(hand, gone, high_bid, legal, n_legal, K, F)
    elif phase == K[K_PH_CONTRACT]:
        gone = _card_mask(row, K[K_O_DISCARDS])
        action = _contract(hand, gone, legal, n_legal, is_legal, K, F)
    elif phase == K[K_PH_DEFENCE]:
        contract = _first_set(row, K[K_O_CONTRACT], K[K_NUM_LEVELS])
        declarer = _first_set(row, K[K_O_DECLARER], 3)
        if contract < 0 or declarer < 0:
            action = K[K_A_PASS]
        else:
            whist = np.zeros(3, dtype=np.bool_)
            for r in range(3):
                whist[r] = row[K[K_O_WHIST] + r] != 0
            all_pass = row[K[K_O_ALL_PASS]] != 0
            if _defence(hand, contract, declarer, all_pass, whist, K, F) and is_legal[K[K_A_WHIST]]:
                action = K[K_A_WHIST]
            else:
                action = K[K_A_PASS]
    elif phase == K[K_PH_PLAY]:
        action = _play(row, hand, legal, n_legal, t_seat, t_card, voids, K, F)
    if action < 0 or action >= is_legal.shape[0] or not is_legal[action]:
        return legal[0]  # the per-game agent's fallback
    return action


@njit(cache=True)
def _play(
    row: np.ndarray,
    hand: int,
    legal: np.ndarray,
    n_legal: int,
    t_seat: np.ndarray,
    t_card: np.ndarray,
    voids: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
) -> int:
    for j in range(n_legal):
        if legal[j] >= 32:
            return legal[0]  # not an env observation; see the module docstring
    contract = _first_set(row, K[K_O_CONTRACT], K[K_NUM_LEVELS])
    trump = K[K_LEVEL_TRUMP + contract] if contract >= 0 else 0
    declarer = _first_set(row, K[K_O_DECLARER], 3)
    if declarer < 0:
        declarer = 0
    active = 0
    for r in range(3):
        if r == declarer or row[K[K_O_WHIST] + r] != 0:
            active |= 1 << r
    gone = _card_mask(row, K[K_O_DISCARDS])
    for r in range(3):
        gone |= _card_mask(row, K[K_O_PLAYED] + 32 * r)
    unknown = ~(hand | gone) & 0xFFFFFFFF
    if declarer == 0:
        opponents = active & ~1
        partner = -1
    else:
        opponents = 1 << declarer
        partner = -1
        for r in range(3):
            if active >> r & 1 and r != 0 and r != declarer:
                partner = r
                break
    for r in range(3):
        v = 0
        for s in range(4):
            if row[K[K_O_VOIDS] + 4 * r + s] != 0:
                v |= 1 << s
        voids[r] = v
    for s in range(4):
        if not unknown >> (8 * s) & 0xFF:
            voids[1] |= 1 << s
            voids[2] |= 1 << s
    n_trick = 0
    leader = _first_set(row, K[K_O_TRICK_LEADER], 3)
    if leader >= 0:
        for k in range(3):
            r = (leader + k) % 3
            c = _first_set(row, K[K_O_TRICK] + 32 * r, 32)
            if c >= 0:
                t_seat[n_trick] = r
                t_card[n_trick] = c
                n_trick += 1
    if n_trick == 0:
        if declarer == 0:
            return _declarer_lead(legal, n_legal, trump, opponents, hand, unknown, voids)
        return _defender_lead(legal, n_legal, trump, declarer, partner, hand, unknown, voids)
    return _follow(
        legal, n_legal, t_seat, t_card, n_trick, trump, active, opponents, partner, hand,
        unknown, voids,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _act_range(
    lo: int,
    hi: int,
    obs: np.ndarray,
    mask: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
    out: np.ndarray,
) -> None:
    legal = np.empty(mask.shape[1], dtype=np.int64)
    is_legal = np.empty(mask.shape[1], dtype=np.bool_)
    t_seat = np.empty(3, dtype=np.int64)
    t_card = np.empty(3, dtype=np.int64)
    voids = np.empty(3, dtype=np.int64)
    for i in range(lo, hi):
        out[i] = _decide(obs[i], mask[i], legal, is_legal, t_seat, t_card, voids, K, F)


_DEFAULT_TABLES = _tables(PastonParams())


class BatchedPastonHeuristic:
    """The Paston heuristic over a batch of decisions: the same actions as
    :class:`~folkcards.agents.paston_heuristic.PastonHeuristicAgent` with the same ``params``."""

    name = "heuristic"
    game_name = "paston"

    def __init__(self, params: PastonParams | None = None):
        self.params = params or PastonParams()
        self._tables = _tables(self.params)

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
        run_in_chunks(_act_range, rows, obs, mask, *self._tables, out)
        if (out < 0).any():
            bad = int(np.flatnonzero(out < 0)[0])
            raise ValueError(f"row {bad} of the mask has no legal action")
        return out
