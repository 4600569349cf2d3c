"""The Paston heuristic's rules, compiled once (numba) and called by both of its forms.

:class:`~folkcards.agents.paston_heuristic.PastonHeuristicAgent` (one decision from an
observation dict) and :class:`~folkcards.agents.paston_heuristic_batched.BatchedPastonHeuristic`
(``M`` decisions from arrays) both call :func:`decide_rows` here, so every rule of the heuristic
(see the docstring of :mod:`folkcards.agents.paston_heuristic` for the design) is written once.
The rules read the observation vector directly, at the offsets of
:mod:`folkcards.envs.paston.observation`, and never anything the seat cannot see.

The arithmetic is that of the heuristic's first, pure-Python form, to the last bit: sums of
floats as CPython's ``sum`` does them (which changed in 3.12), ``round(x, 6)`` of the discard
keys correctly rounded (ties to even), and the same tie-breaks (the first of equal maxima and
minima, in the order the Python lists were built). ``tests/agents/paston_heuristic_reference.py``
keeps that form as the oracle of the differential tests.

The compiled code receives the heuristic's constants (weights, tables, parameters), the
observation offsets and the action ids as two arrays, ``K`` (int64) and ``F`` (float64), built
by :func:`tables`, instead of reading them as globals: numba bakes globals into its on-disk
cache, which would go stale when the modules that define them change. ``suit_tricks`` is read
from a table of all 6,561 pairs of disjoint rank masks × 6 variants (0.3 MB, built by the
compiled function when the tables are made, in milliseconds). The first call in a fresh
checkout compiles for about 30 s of CPU; numba caches the result on disk.
"""

from __future__ import annotations

import math
import sys
from dataclasses import astuple, dataclass, fields
from functools import cache

import numpy as np
from numba import njit

from ..envs.compile_notice import install as _announce_compiles
from ..envs.paston.kernels import beats, card_key
from ..envs.paston.observation import OFFSETS
from ..envs.paston.rules import (
    DECLARER_NEED,
    DECLARER_POINTS,
    SOLE_DEFENDER_POINTS,
    TWO_DEFENDER_POINTS,
)
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
    NUM_LEVELS,
    PASS,
    PHASE_NAMES,
    PLAY,
    SURRENDER,
    WHIST,
)


@dataclass(frozen=True)
class PastonParams:
    """The tuned constants. The spreads were measured on heuristic self-play with the defence
    forced; the margins and the prikup bonus were tuned by duplicate deals against the
    heuristic itself and against ``random``. ``tricks = scale · estimate + shift``."""

    prikup_bonus: float = 1.2  # estimated gain from taking the prikup and discarding two
    declarer_scale: float = 1.0
    declarer_shift: float = 0.0
    declarer_sigma: float = 1.3  # spread of the declarer's tricks once the hand is known
    bid_sigma: float = 1.5  # spread at bidding time (the prikup is unknown)
    bid_margin: float = 1.0  # bid when the best contract is worth >= margin x factor
    best_spades_margin: float = 4.0
    two_sigma: float = 0.95  # spread of a defender's tricks when both defend
    sole_sigma: float = 1.1  # spread of a sole defender's tricks
    all_pass_bonus: float = 0.4  # a forced declarer (all passed) is weaker than a bidder
    other_whist_prob: float = (
        0.3  # the first speaker's guess that the second also whists (measured)
    )
    whist_margin: float = 0.0  # whist when defending is worth > margin x factor


# --- the fitted constants ----------------------------------------------------------------------


def _binom_split_tables() -> tuple[list[list[float]], list[list[float]]]:
    """Split probabilities of ``m`` outstanding cards between two hands (each card 50/50):
    ``P(min(X, m - X) >= r)`` and ``P(max(X, m - X) <= r)``, indexed ``[m][r]``."""
    min_ge = [[0.0] * 10 for _ in range(9)]
    max_le = [[0.0] * 10 for _ in range(9)]
    for m in range(9):
        probs = [math.comb(m, x) / 2**m for x in range(m + 1)]
        for r in range(10):
            min_ge[m][r] = sum(p for x, p in enumerate(probs) if min(x, m - x) >= r)
            max_le[m][r] = sum(p for x, p in enumerate(probs) if max(x, m - x) <= r)
    return min_ge, max_le


MIN_GE, MAX_LE = _binom_split_tables()
# chance that an opponent void in a side suit cannot ruff it, by the declarer's trump control
RUFF_MISS = (1.0, 0.75, 0.5, 0.3, 0.1)
# weights of the declarer's trick components, fitted on heuristic play (forced random
# contracts, both defend): trumps, side, ruffs, held, out, constant
DECLARER_WEIGHTS = (0.97, 1.08, 0.21, 0.31, 0.19, -2.0)
# Fitted on heuristic play (declarers from the heuristic's auction, the defence forced) by least
# squares: a defender's tricks when both defend, and a sole defender's tricks.
# side A, side AK, side Kx, side K single, side Q with A/K, trump A, trump Kx, trump K single,
# trump Qxx, trump Jxxx, trumps beyond 3, trumps, short side suits with 2+ trumps, long side suits
TWO_DEFENCE_WEIGHTS = (
    0.77, 0.07, 0.46, 0.22, 0.0, 1.04, 0.9, 0.07, 0.84, 0.42, 0.76, 0.33, -0.17, -0.36,
)  # fmt: skip
TWO_DEFENCE_CONSTANT = -0.17
SOLE_DEFENCE_WEIGHTS = (
    0.73, 0.07, 0.45, 0.22, 0.01, 1.03, 0.77, 0.03, 0.84, 0.46, 0.69, 0.43, -0.42, -0.6,
)  # fmt: skip
SOLE_DEFENCE_CONSTANT = 0.33
NUM_DEFENCE_FEATURES = len(TWO_DEFENCE_WEIGHTS)

# CPython's sum() of floats adds left to right before 3.12 and with Neumaier's compensation
# from 3.12 on. Numba's cache is per Python version, so this global may be baked in.
_NEUMAIER_SUM = sys.version_info >= (3, 12)

# The compiled code reads every constant from two arrays, ``K`` (int64) and ``F`` (float64),
# built by :func:`tables`, at the positions below.
(
    K_O_HAND, K_O_DISCARDS, K_O_PLAYED, K_O_TRICK, K_O_TRICK_LEADER, K_O_PHASE, K_O_HIGH_BID,
    K_O_ALL_PASS, K_O_DECLARER, K_O_CONTRACT, K_O_WHIST, K_O_VOIDS,
    K_A_PASS, K_A_BID, K_A_CONTRACT, K_A_SURRENDER, K_A_WHIST, K_NUM_LEVELS, K_BEST_SPADES,
    K_NUM_PHASES, K_PH_AUCTION, K_PH_DISCARD, K_PH_CONTRACT, K_PH_DEFENCE, K_PH_PLAY,
    K_DECLARER_NEED, K_LEVEL_TRUMP,
) = range(27)  # fmt: skip
K_LEVEL_FACTOR = K_LEVEL_TRUMP + NUM_LEVELS
K_TERN = K_LEVEL_FACTOR + NUM_LEVELS  # 256 entries: a rank mask's bits as base-3 digits
K_SIZE = K_TERN + 256

_COLS = len(MIN_GE[0])  # the split tables are indexed [outstanding cards, count]
F_MIN_GE = 0
F_MAX_LE = F_MIN_GE + len(MIN_GE) * _COLS
F_RUFF_MISS = F_MAX_LE + len(MAX_LE) * _COLS
F_DECLARER_W = F_RUFF_MISS + len(RUFF_MISS)
F_TWO_W = F_DECLARER_W + len(DECLARER_WEIGHTS)
F_TWO_C = F_TWO_W + len(TWO_DEFENCE_WEIGHTS)
F_SOLE_W = F_TWO_C + 1
F_SOLE_C = F_SOLE_W + len(SOLE_DEFENCE_WEIGHTS)
F_TWO_TABLE = F_SOLE_C + 1  # the defenders' score tables (rules.py), by tricks
F_SOLE_TABLE = F_TWO_TABLE + len(TWO_DEFENDER_POINTS)
F_DECLARER_WIN = F_SOLE_TABLE + len(SOLE_DEFENDER_POINTS)  # by level: the declarer's score
F_DECLARER_LOSS = F_DECLARER_WIN + NUM_LEVELS  # with the tricks needed and one fewer
_PARAM_FIELDS = (
    "prikup_bonus", "declarer_scale", "declarer_shift", "declarer_sigma", "bid_sigma",
    "bid_margin", "best_spades_margin", "two_sigma", "sole_sigma", "all_pass_bonus",
    "other_whist_prob", "whist_margin",
)  # fmt: skip
(
    F_PRIKUP_BONUS, F_DECLARER_SCALE, F_DECLARER_SHIFT, F_DECLARER_SIGMA, F_BID_SIGMA,
    F_BID_MARGIN, F_BEST_SPADES_MARGIN, F_TWO_SIGMA, F_SOLE_SIGMA, F_ALL_PASS_BONUS,
    F_OTHER_WHIST_PROB, F_WHIST_MARGIN,
) = range(F_DECLARER_LOSS + NUM_LEVELS, F_DECLARER_LOSS + NUM_LEVELS + 12)  # fmt: skip
# suit_tricks of every (held, outstanding) pair of disjoint rank masks, as trumps (variant 0)
# and as a side suit under trump control 0..4 (variants 1..5): see suit_tricks
F_SUIT = F_WHIST_MARGIN + 1
SUIT_PAIRS = 3**8
F_SIZE = F_SUIT + 6 * SUIT_PAIRS


@cache
def tables(params: PastonParams) -> tuple[np.ndarray, np.ndarray]:
    """``(K, F)``: everything the compiled code needs to know, read from the modules that
    define it (observation offsets, action ids, the heuristic's weights and tables, params).
    Cached per ``params``: the arrays are shared, never write to them."""
    if [f.name for f in fields(PastonParams)] != list(_PARAM_FIELDS):
        raise RuntimeError("PastonParams changed: update paston_heuristic_core to match")
    ints = [
        *(OFFSETS[k] for k in ("hand", "discards", "played", "trick", "trick_leader", "phase")),
        *(OFFSETS[k] for k in ("high_bid", "all_pass", "declarer", "contract", "whist", "voids")),
        PASS, BID_BASE, CONTRACT_BASE, SURRENDER, WHIST, NUM_LEVELS, BEST_SPADES,
        len(PHASE_NAMES), AUCTION, DISCARD, CONTRACT, DEFENCE, PLAY,
        DECLARER_NEED, *LEVEL_TRUMP, *LEVEL_FACTOR,
        *(sum(3**r for r in range(8) if bits >> r & 1) for bits in range(256)),
    ]  # fmt: skip
    floats = [
        *(x for row in MIN_GE for x in row),
        *(x for row in MAX_LE for x in row),
        *RUFF_MISS, *DECLARER_WEIGHTS,
        *TWO_DEFENCE_WEIGHTS, TWO_DEFENCE_CONSTANT,
        *SOLE_DEFENCE_WEIGHTS, SOLE_DEFENCE_CONSTANT,
        *TWO_DEFENDER_POINTS, *SOLE_DEFENDER_POINTS,
        *(DECLARER_POINTS[level][DECLARER_NEED] for level in range(NUM_LEVELS)),
        *(DECLARER_POINTS[level][DECLARER_NEED - 1] for level in range(NUM_LEVELS)),
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


# --- trick estimates (suit_tricks, declarer_tricks, ...) ---------------------------------------


@njit(cache=True)
def trump_control(mine: int, out: int) -> int:
    """0: no trumps out; 1..4: from comfortably more trumps than the opponents to far fewer."""
    if out == 0:
        return 0
    if mine >= out + 2:
        return 1
    if mine >= out:
        return 2
    if mine >= out - 2:
        return 3
    return 4


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
def suit_tricks(
    mine: int, out: int, trump: bool, control: int, K: np.ndarray, F: np.ndarray
) -> float:
    """Expected declarer tricks from one suit (from the table): ``mine``/``out`` are disjoint
    8-bit rank masks (A = bit 7) of the cards held and still outstanding; ``control`` is
    :func:`trump_control` (how likely a void opponent can ruff a side suit)."""
    variant = 0 if trump else 1 + control
    return F[F_SUIT + variant * SUIT_PAIRS + K[K_TERN + mine] + 2 * K[K_TERN + out]]


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
def declarer_tricks(hand: int, gone: int, trump: int, K: np.ndarray, F: np.ndarray) -> float:
    """The raw trick estimate of a declarer hand (32-bit mask) with ``trump``; ``gone`` holds
    cards out of play (played or discarded)."""
    other = ~(hand | gone) & 0xFFFFFFFF
    t_mine = hand >> (8 * trump) & 0xFF
    t_out = other >> (8 * trump) & 0xFF
    n_t = _popcount(t_mine)
    m_t = _popcount(t_out)
    control = trump_control(n_t, m_t)
    tt = suit_tricks(t_mine, t_out, True, 2, K, F)
    side = 0.0
    shortness = 0
    for s in range(4):
        if s == trump:
            continue
        mine = hand >> (8 * s) & 0xFF
        side += suit_tricks(mine, other >> (8 * s) & 0xFF, False, control, K, F)
        shortness += max(0, 2 - _popcount(mine))
    ruffs = min(max(0.0, n_t - tt), float(shortness))
    return _weighted(tt, side, ruffs, n_t, m_t, K, F)


@njit(cache=True)
def contract_value(tricks: float, level: int, sigma: float, K: np.ndarray, F: np.ndarray) -> float:
    """Expected score of declaring ``level`` when the tricks are about ``tricks`` ± ``sigma``."""
    z = (tricks - (K[K_DECLARER_NEED] - 0.5)) / sigma  # P(at least the tricks needed)
    p = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    win = F[F_DECLARER_WIN + level]
    loss = F[F_DECLARER_LOSS + level]
    if win == -loss:  # (2p - 1) * win: the arithmetic of the heuristic's first form
        return win * (2.0 * p - 1.0)
    return win * p + loss * (1.0 - p)


@njit(cache=True)
def defence_tricks(hand: int, trump: int, sole: bool, K: np.ndarray, F: np.ndarray) -> float:
    """Expected tricks of a defender's 10-card hand against ``trump`` (a linear model of the
    hand's features), one of two defenders or a sole defender."""
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
def defence_value(
    tricks: float, sigma: float, sole: bool, factor: int, K: np.ndarray, F: np.ndarray
) -> float:
    """Expected score of defending with about ``tricks`` ± ``sigma`` tricks (the defenders'
    score table of the rules, times ``factor``)."""
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
    """The expected score of declaring ``level`` at bidding time: the hand's estimate plus the
    prikup bonus, with the bidding spread."""
    raw = declarer_tricks(hand, 0, K[K_LEVEL_TRUMP + level], K, F)
    raw += F[F_PRIKUP_BONUS]
    tricks = F[F_DECLARER_SCALE] * raw + F[F_DECLARER_SHIFT]
    return contract_value(tricks, level, F[F_BID_SIGMA], K, F)


# --- the phases ------------------------------------------------------------------------------


@njit(cache=True)
def _allowed_levels(high_bid: int, K: np.ndarray) -> tuple[int, int]:
    """The contracts the declarer may name, ``range(lo, hi)``: best spades alone after a best
    spades bid, else from the high bid (spades after an all-pass) to hearts."""
    if high_bid == K[K_BEST_SPADES]:
        return K[K_BEST_SPADES], K[K_BEST_SPADES] + 1
    return (high_bid if high_bid >= 0 else 0), 4


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
    lo, hi = _allowed_levels(level, K)  # the contracts this bid would allow
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
def _discard_choices(hand: int, legal: np.ndarray, n_legal: int, cards: np.ndarray) -> int:
    """The hand's legal cards into ``cards`` (the env's mask is exactly the hand); their count."""
    n_cards = 0
    for c in range(32):
        if hand >> c & 1:
            for j in range(n_legal):
                if legal[j] == c:
                    cards[n_cards] = c
                    n_cards += 1
                    break
    return n_cards


@njit(cache=True)
def _side_suits(
    hand: int,
    other: int,
    trump: int,
    mine: np.ndarray,
    out: np.ndarray,
    values: np.ndarray,
    shortness: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
) -> tuple[int, int, int, float, int, float]:
    """The declarer estimate's parts that a side discard leaves alone (the reference's
    ``_SideDiscards``): fills the suits' held and outstanding ranks, values and shortness and
    returns ``(trumps held, trumps out, trump control, trump tricks, shortness, side tricks)``."""
    t_mine = hand >> (8 * trump) & 0xFF
    t_out = other >> (8 * trump) & 0xFF
    n_t = _popcount(t_mine)
    m_t = _popcount(t_out)
    control = trump_control(n_t, m_t)
    tt = suit_tricks(t_mine, t_out, True, 2, K, F)
    short_total = 0
    s_side, c_side = 0.0, 0.0
    for s in range(4):
        mine[s] = hand >> (8 * s) & 0xFF
        out[s] = other >> (8 * s) & 0xFF
        if s == trump:
            values[s] = 0.0
            shortness[s] = 0
        else:
            values[s] = suit_tricks(mine[s], out[s], False, control, K, F)
            shortness[s] = max(0, 2 - _popcount(mine[s]))
        s_side, c_side = _acc(s_side, c_side, values[s])
        short_total += shortness[s]
    return n_t, m_t, control, tt, short_total, _total(s_side, c_side)


@njit(cache=True)
def _combination(q: int, pool: np.ndarray, n_pool: int, to_drop: int) -> tuple[int, int]:
    """The ``q``-th of ``combinations(pool[:n_pool], to_drop)`` in itertools order, as
    ``(card, second card or -1)``."""
    if to_drop == 1:
        return pool[q], -1
    i, rest = 0, q
    while rest >= n_pool - 1 - i:
        rest -= n_pool - 1 - i
        i += 1
    return pool[i], pool[i + 1 + rest]


@njit(cache=True)
def _side_discard_tricks(
    c1: int,
    c2: int,
    parts: tuple[int, int, int, float, int, float],
    mine: np.ndarray,
    out: np.ndarray,
    values: np.ndarray,
    shortness: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
) -> float:
    """The raw declarer estimate after discarding side cards ``c1`` (and ``c2`` unless -1):
    only their suits' values and shortness change (``_SideDiscards.tricks``)."""
    n_t, m_t, control, tt, short, side = parts
    s1 = c1 >> 3
    if c2 >= 0 and c2 >> 3 != s1:
        # two suits, in ascending order (a set of small ints iterates so)
        s2 = c2 >> 3
        for s in (min(s1, s2), max(s1, s2)):
            m_new = mine[s] & ~(1 << (c1 & 7)) if s == s1 else mine[s]
            m_new = m_new & ~(1 << (c2 & 7)) if s == s2 else m_new
            side += suit_tricks(m_new, out[s], False, control, K, F) - values[s]
            short += max(0, 2 - _popcount(m_new)) - shortness[s]
    else:
        m_new = mine[s1] & ~(1 << (c1 & 7))
        if c2 >= 0:
            m_new &= ~(1 << (c2 & 7))
        side += suit_tricks(m_new, out[s1], False, control, K, F) - values[s1]
        short += max(0, 2 - _popcount(m_new)) - shortness[s1]
    ruffs = min(max(0.0, n_t - tt), float(short))
    w = F[F_DECLARER_W : F_DECLARER_W + 6]
    return w[0] * tt + w[1] * side + w[2] * ruffs + w[3] * n_t + w[4] * m_t + w[5]


@njit(cache=True)
def _kept(c1: int, c2: int, trump: int) -> tuple[float, int]:
    """``(sum of the keep values, the card to discard now)`` of a discard set: the one least
    worth keeping (the first on a tie)."""
    k1 = _keep_value(c1, trump)
    if c2 < 0:
        return k1, c1
    k2 = _keep_value(c2, trump)
    return k1 + k2, (c2 if k2 < k1 else c1)


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
    """Try every contract with every set of cards still to discard (side cards only when there
    are enough of them) and keep the set with the best expected score, then the most tricks,
    then the lowest cards; returns its card least worth keeping."""
    cards = np.empty(32, dtype=np.int64)
    n_cards = _discard_choices(hand, legal, n_legal, cards)
    if n_cards == 0:
        return legal[0]  # not an env observation; see the module docstring
    to_drop = max(1, min(2, _popcount(hand) - 10))
    lo, hi = _allowed_levels(high_bid, K)
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
            parts = _side_suits(hand, other, trump, mine, out, values, shortness, K, F)
        else:
            n_pool = n_cards
            pool[:n_cards] = cards[:n_cards]
        n_combos = n_pool * (n_pool - 1) // 2 if to_drop == 2 else n_pool
        for q in range(n_combos):
            c1, c2 = _combination(q, pool, n_pool, to_drop)
            if fast:
                raw = _side_discard_tricks(c1, c2, parts, mine, out, values, shortness, K, F)
            else:
                drop = (1 << c1) | ((1 << c2) if c2 >= 0 else 0)
                raw = declarer_tricks(hand & ~drop, gone | drop, trump, K, F)
            tricks = F[F_DECLARER_SCALE] * raw + F[F_DECLARER_SHIFT]
            value = contract_value(tricks, level, F[F_DECLARER_SIGMA], K, F)
            keep_sum, chosen = _kept(c1, c2, trump)
            rv, rt, rk = py_round6(value), py_round6(tricks), -keep_sum
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
        raw = declarer_tricks(hand, gone, K[K_LEVEL_TRUMP + c], K, F)
        tricks = F[F_DECLARER_SCALE] * raw + F[F_DECLARER_SHIFT]
        value = contract_value(tricks, c, F[F_DECLARER_SIGMA], K, F)
        if value > best_v or (value == best_v and tricks > best_t):
            best_v, best_c, best_t = value, c, tricks
    if best_c < 0:
        return K[K_A_SURRENDER]
    if best_v < -10.0 and is_legal[K[K_A_SURRENDER]]:
        return K[K_A_SURRENDER]
    return K[K_A_CONTRACT] + best_c


@njit(cache=True)
def defence_call(
    hand: int,
    level: int,
    all_pass: bool,
    first_speaker: bool,
    other_whisted: bool,
    K: np.ndarray,
    F: np.ndarray,
) -> bool:
    """Whether to whist with this 10-card ``hand`` (mask) against ``level``: the expected score
    of defending (two defenders or a sole one, weighed for the first speaker by the chance that
    the other whists) above ``whist_margin`` × factor."""
    trump = K[K_LEVEL_TRUMP + level]
    factor = K[K_LEVEL_FACTOR + level]
    bonus = F[F_ALL_PASS_BONUS] if all_pass else 0.0  # a forced declarer is weaker
    two = defence_value(defence_tricks(hand, trump, False, K, F) + bonus, F[F_TWO_SIGMA], False,
                         factor, K, F)  # fmt: skip
    sole = defence_value(defence_tricks(hand, trump, True, K, F) + bonus, F[F_SOLE_SIGMA], True,
                          factor, K, F)  # fmt: skip
    if first_speaker:
        value = F[F_OTHER_WHIST_PROB] * two + (1.0 - F[F_OTHER_WHIST_PROB]) * sole
    else:
        value = two if other_whisted else sole
    return value > F[F_WHIST_MARGIN] * factor


@njit(cache=True)
def _defence(row: np.ndarray, hand: int, is_legal: np.ndarray, K: np.ndarray, F: np.ndarray) -> int:
    """Whist or pass, from the observation: the declarer's left speaks first (relative seat 2 is
    the declarer then), and the second speaker hears what the first (my right) said."""
    contract = _first_set(row, K[K_O_CONTRACT], K[K_NUM_LEVELS])
    declarer = _first_set(row, K[K_O_DECLARER], 3)
    if contract < 0 or declarer < 0:
        return K[K_A_PASS]
    first_speaker = declarer == 2
    other_whisted = not first_speaker and row[K[K_O_WHIST] + 2] != 0
    all_pass = row[K[K_O_ALL_PASS]] != 0
    whists = defence_call(hand, contract, all_pass, first_speaker, other_whisted, K, F)
    return K[K_A_WHIST] if whists and is_legal[K[K_A_WHIST]] else K[K_A_PASS]


# --- the play ------------------------------------------------


@njit(cache=True)
def _higher_out(card: int, unknown: int) -> int:
    return _popcount((unknown >> (8 * (card >> 3)) & 0xFF) >> ((card & 7) + 1))


@njit(cache=True)
def _may_hold(seat: int, suit: int, voids: np.ndarray, unknown: int) -> bool:
    return not (voids[seat] >> suit & 1) and (unknown >> (8 * suit) & 0xFF) != 0


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
        if beats(t_card[j], best, trump):
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
        if not beats(c, best, trump):
            continue
        strength = card_key(c, led, trump)
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
def _draw_trump(my_trumps: int, trump: int, unknown: int) -> int:
    """The trump that draws the opponents' trumps: the master, the top of a sequence, else the
    lowest."""
    top = 8 * trump + _highest_in(my_trumps)
    if _higher_out(top, unknown) == 0:
        return top
    if (top & 7) > 0 and my_trumps >> ((top & 7) - 1) & 1:
        return top
    return 8 * trump + _lowest_in(my_trumps)


@njit(cache=True)
def _unruffable_master(
    legal: np.ndarray,
    n_legal: int,
    trump: int,
    opponents: int,
    hand: int,
    unknown: int,
    voids: np.ndarray,
) -> int:
    """A side master the opponents cannot ruff: the longest suit, then the highest rank; -1 if
    none."""
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
    return best


@njit(cache=True)
def _long_suit_low(trump: int, opponents: int, hand: int, unknown: int, voids: np.ndarray) -> int:
    """Low from the longest side suit the opponents cannot ruff (then the one with the lower low
    card); -1 if none."""
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
    return best_low if best_suit >= 0 else -1


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
    """The declarer's lead: draw trumps while holding two or more and the opponents may have
    some, then cash masters they cannot ruff, then lead low from length."""
    my_trumps = hand >> (8 * trump) & 0xFF
    n_trumps = _popcount(my_trumps)
    out_trumps = _popcount(unknown >> (8 * trump) & 0xFF)
    opps_with_trumps = False
    for r in range(3):
        if opponents >> r & 1 and _may_hold(r, trump, voids, unknown):
            opps_with_trumps = True
    if n_trumps and out_trumps and opps_with_trumps and n_trumps >= 2:
        return _draw_trump(my_trumps, trump, unknown)
    master = _unruffable_master(legal, n_legal, trump, opponents, hand, unknown, voids)
    if master >= 0:
        return master
    if n_trumps:
        top = 8 * trump + _highest_in(my_trumps)
        if _higher_out(top, unknown) == 0 and opps_with_trumps:
            return top
    low = _long_suit_low(trump, opponents, hand, unknown, voids)
    if low >= 0:
        return low
    if n_trumps:
        return 8 * trump + _lowest_in(my_trumps)
    return _lowest_rank(legal, n_legal)


@njit(cache=True)
def _declarer_ruffs(trump: int, declarer: int, voids: np.ndarray, unknown: int) -> int:
    """The side suits (bitmask) the declarer may ruff: void in them and may hold trumps."""
    ruffs = 0
    decl_trumps = _may_hold(declarer, trump, voids, unknown)
    for s in range(4):
        if s != trump and voids[declarer] >> s & 1 and decl_trumps:
            ruffs |= 1 << s
    return ruffs


@njit(cache=True)
def _unruffed_master(
    legal: np.ndarray, n_legal: int, trump: int, ruffs: int, hand: int, unknown: int
) -> int:
    """A side master in a suit the declarer cannot ruff: the highest rank, then the shortest
    suit; -1 if none."""
    best = -1
    best_key = -1
    for j in range(n_legal):
        c = legal[j]
        if c >> 3 == trump or _higher_out(c, unknown) != 0 or ruffs >> (c >> 3) & 1:
            continue
        key = (c & 7) * 16 + (8 - _popcount(hand >> (8 * (c >> 3)) & 0xFF))
        if key > best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def _singleton_lead(side: int, hand: int, unknown: int) -> int:
    """The lowest singleton of the side suits ``side`` that is not a master; -1 if none."""
    single = -1
    for s in range(4):
        mine = hand >> (8 * s) & 0xFF
        if side >> s & 1 and _popcount(mine) == 1:
            c = 8 * s + _lowest_in(mine)
            if _higher_out(c, unknown) != 0 and (single < 0 or c < single):
                single = c
    return single


@njit(cache=True)
def _sequence_top(side: int, hand: int, unknown: int) -> int:
    """The top of an honour sequence (K Q, Q J ...) in ``side`` with a higher card still out:
    it forces out the declarer's cards; -1 if none."""
    for s in range(4):
        if not side >> s & 1:
            continue
        mine = hand >> (8 * s) & 0xFF
        for r in range(7, 0, -1):
            held = mine >> r & 1 and mine >> (r - 1) & 1
            if held and r >= 4 and _higher_out(8 * s + r, unknown) >= 1:
                return 8 * s + r
    return -1


@njit(cache=True)
def _plain_suit_lead(side: int, hand: int, unknown: int) -> int:
    """Low from the longest suit of ``side`` (not empty) without a loose honour (one that is not
    a master), else from the longest suit."""
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
    """A defender's lead: a master the declarer cannot ruff, a lead to the partner's void, a
    singleton when holding trumps, the top of an honour sequence, low from a plain suit, then
    trumps."""
    my_trumps = hand >> (8 * trump) & 0xFF
    ruffs = _declarer_ruffs(trump, declarer, voids, unknown)
    master = _unruffed_master(legal, n_legal, trump, ruffs, hand, unknown)
    if master >= 0:
        return master
    if partner >= 0 and _may_hold(partner, trump, voids, unknown):  # for the partner to ruff
        for s in range(4):
            mine = hand >> (8 * s) & 0xFF
            if s != trump and voids[partner] >> s & 1 and not ruffs >> s & 1 and mine:
                return 8 * s + _lowest_in(mine)
    side = 0
    for s in range(4):
        if s != trump and hand >> (8 * s) & 0xFF and not ruffs >> s & 1:
            side |= 1 << s
    if my_trumps:
        single = _singleton_lead(side, hand, unknown)
        if single >= 0:
            return single
    top = _sequence_top(side, hand, unknown)
    if top >= 0:
        return top
    if side:
        return _plain_suit_lead(side, hand, unknown)
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
    """The heuristic's action for one row; -1 when the row has no legal action. A forced move
    is played at once; a choice that is not legal becomes the first legal action."""
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
        action = _defence(row, hand, is_legal, K, F)
    elif phase == K[K_PH_PLAY]:
        action = _play(row, hand, legal, n_legal, t_seat, t_card, voids, K, F)
    if action < 0 or action >= is_legal.shape[0] or not is_legal[action]:
        return legal[0]  # the fallback of every rule-based agent
    return action


@njit(cache=True)
def _unknown_cards(row: np.ndarray, hand: int, K: np.ndarray) -> int:
    """The cards (mask) still outstanding: neither in the hand nor discarded nor played."""
    gone = _card_mask(row, K[K_O_DISCARDS])
    for r in range(3):
        gone |= _card_mask(row, K[K_O_PLAYED] + 32 * r)
    return ~(hand | gone) & 0xFFFFFFFF


@njit(cache=True)
def _read_voids(row: np.ndarray, unknown: int, voids: np.ndarray, K: np.ndarray) -> None:
    """Every seat's known voids (bit ``s``: suit ``s``) into ``voids``: the public ones, and
    for the other two seats every suit with no outstanding card."""
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


@njit(cache=True)
def _read_trick(row: np.ndarray, t_seat: np.ndarray, t_card: np.ndarray, K: np.ndarray) -> int:
    """The current trick's seats and cards in play order from its leader; its length."""
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
    return n_trick


@njit(cache=True)
def _sides(declarer: int, active: int) -> tuple[int, int]:
    """``(opponents as a seat bitmask, partner or -1)`` of relative seat 0 in the play."""
    if declarer == 0:
        return active & ~1, -1
    for r in range(3):
        if active >> r & 1 and r != 0 and r != declarer:
            return 1 << declarer, r
    return 1 << declarer, -1


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
    """A card to play: read the contract, the sides, the outstanding cards, the voids and the
    trick from the observation, then lead or follow."""
    for j in range(n_legal):
        if legal[j] >= 32:
            return legal[0]  # not an env observation; see the module docstring
    contract = _first_set(row, K[K_O_CONTRACT], K[K_NUM_LEVELS])
    trump = K[K_LEVEL_TRUMP + contract] if contract >= 0 else 0
    declarer = max(_first_set(row, K[K_O_DECLARER], 3), 0)
    active = 0
    for r in range(3):
        if r == declarer or row[K[K_O_WHIST] + r] != 0:
            active |= 1 << r
    opponents, partner = _sides(declarer, active)
    unknown = _unknown_cards(row, hand, K)
    _read_voids(row, unknown, voids, K)
    n_trick = _read_trick(row, t_seat, t_card, K)
    if n_trick == 0:
        if declarer == 0:
            return _declarer_lead(legal, n_legal, trump, opponents, hand, unknown, voids)
        return _defender_lead(legal, n_legal, trump, declarer, partner, hand, unknown, voids)
    return _follow(
        legal, n_legal, t_seat, t_card, n_trick, trump, active, opponents, partner, hand,
        unknown, voids,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def decide_rows(
    lo: int,
    hi: int,
    obs: np.ndarray,
    mask: np.ndarray,
    K: np.ndarray,
    F: np.ndarray,
    out: np.ndarray,
) -> None:
    """The heuristic's actions for rows ``lo .. hi-1`` of ``obs`` (float32) and ``mask`` (int8)
    into ``out``; -1 for a row with no legal action. Rows must be observation-sized."""
    legal = np.empty(mask.shape[1], dtype=np.int64)
    is_legal = np.empty(mask.shape[1], dtype=np.bool_)
    t_seat = np.empty(3, dtype=np.int64)
    t_card = np.empty(3, dtype=np.int64)
    voids = np.empty(3, dtype=np.int64)
    for i in range(lo, hi):
        out[i] = _decide(obs[i], mask[i], legal, is_legal, t_seat, t_card, voids, K, F)


@njit(cache=True)
def decide_one(row: np.ndarray, mrow: np.ndarray, K: np.ndarray, F: np.ndarray) -> int:
    """The heuristic's action for one observation (float32) and mask (int8); -1 if no action
    is legal."""
    obs = row.reshape(1, row.shape[0])
    mask = mrow.reshape(1, mrow.shape[0])
    out = np.empty(1, dtype=np.int64)
    decide_rows(0, 1, obs, mask, K, F, out)
    return out[0]


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
