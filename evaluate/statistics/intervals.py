"""Tournament statistics: t intervals paired by deal, head to head, Wilson intervals.

The Student t and normal quantiles come from :mod:`scipy.stats` (``t.ppf``, ``t.cdf`` through
the regularized incomplete beta function, ``norm.ppf``); everything else is the plain formulas.

The method (documented in the tournament report as well):

* **Paired by deal.** Every deal (fixed by its seed) is played several times: each line-up of
  agents, each seat assignment. An agent's results within one deal are first averaged over all
  the units of that deal it took part in, giving one number per deal. The interval is then the
  Student t interval over those per-deal numbers (``df = deals - 1``): deals are independent,
  the rotations of one deal are not, so the deal is the unit of sampling.
* **Head to head.** For agents A and B, per deal the mean of ``score(A) - score(B)`` over the
  units of that deal in which both sat at the same table, then a t interval over deals.
* **Win rates** (game / match mode) use the Wilson score interval. One game seed is one trial:
  an agent's wins are averaged over the rotations of that game first (a fraction), and the
  interval uses ``n`` = number of games seeds — the honest sample size, since rotations of one
  seed are not independent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

__all__ = [
    "Interval",
    "WinRate",
    "t_cdf",
    "t_quantile",
    "normal_quantile",
    "mean_ci",
    "wilson",
    "win_rate",
    "per_deal_means",
    "paired_ci_by_deal",
    "head_to_head",
    "bootstrap_ratio",
    "pooled_inverse_variance",
    "interval_of",
    "pocock_boundary",
    "pooled_looks",
]


# --- distributions ---------------------------------------------------------------------------


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    from scipy import stats as scipy_stats  # on use: scipy.stats takes seconds to import

    return float(scipy_stats.t.cdf(t, df))


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    from scipy import stats as scipy_stats

    return float(scipy_stats.t.ppf(p, df))


def normal_quantile(p: float) -> float:
    """The ``p`` quantile of the standard normal distribution."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    from scipy import stats as scipy_stats

    return float(scipy_stats.norm.ppf(p))


# --- intervals ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """A mean with a two-sided confidence interval. ``low``/``high`` are NaN when ``n < 2``."""

    mean: float
    low: float
    high: float
    n: int
    sd: float
    confidence: float = 0.95

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def as_dict(self) -> dict[str, float | int]:
        out = asdict(self)
        out["half_width"] = self.half_width
        return out


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Mean and Student t interval (``df = n - 1``) of independent observations."""
    n = len(values)
    if n == 0:
        nan = math.nan
        return Interval(nan, nan, nan, 0, nan, confidence)
    mean = math.fsum(values) / n
    if n < 2:
        return Interval(mean, math.nan, math.nan, n, math.nan, confidence)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    sd = math.sqrt(var)
    q = t_quantile(0.5 + confidence / 2.0, n - 1)
    half = q * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n, sd, confidence)


@dataclass(frozen=True)
class WinRate:
    """A proportion with its Wilson score interval."""

    wins: float
    n: int
    rate: float
    low: float
    high: float
    confidence: float = 0.95

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def wilson(successes: float, n: int, confidence: float = 0.95) -> WinRate:
    """Wilson score interval for ``successes`` out of ``n`` (successes may be fractional)."""
    if n <= 0:
        nan = math.nan
        return WinRate(successes, 0, nan, nan, nan, confidence)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n], got {successes} of {n}")
    z = normal_quantile(0.5 + confidence / 2.0)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, no rounding dust
    high = 1.0 if successes == n else min(1.0, centre + half)
    return WinRate(successes, n, p, low, high, confidence)


# --- tournament aggregation -------------------------------------------------------------------
# An observation is (deal, table, values) where ``values`` maps agent -> number for the agents
# that sat at that table (one unit: a deal played by one line-up in one seat assignment).

Observation = tuple[int, Mapping[str, float]]


def per_deal_means(observations: Iterable[Observation]) -> dict[str, dict[int, float]]:
    """agent -> deal -> the agent's mean value over the units of that deal it took part in."""
    sums: dict[str, dict[int, list[float]]] = {}
    for deal, values in observations:
        for agent, value in values.items():
            sums.setdefault(agent, {}).setdefault(deal, []).append(float(value))
    return {
        agent: {deal: math.fsum(vs) / len(vs) for deal, vs in sorted(by_deal.items())}
        for agent, by_deal in sums.items()
    }


def paired_ci_by_deal(
    observations: Iterable[Observation], confidence: float = 0.95
) -> dict[str, Interval]:
    """Per agent: t interval over deals of the agent's per-deal mean (see the module docstring)."""
    means = per_deal_means(observations)
    return {
        agent: mean_ci([by_deal[d] for d in sorted(by_deal)], confidence)
        for agent, by_deal in means.items()
    }


def win_rate(observations: Iterable[Observation], confidence: float = 0.95) -> dict[str, WinRate]:
    """Per agent: Wilson interval of the win rate, one trial per game seed (wins averaged first)."""
    means = per_deal_means(observations)
    return {
        agent: wilson(math.fsum(by_deal.values()), len(by_deal), confidence)
        for agent, by_deal in means.items()
    }


def head_to_head(
    observations: Iterable[Observation], agents: Sequence[str], confidence: float = 0.95
) -> dict[tuple[str, str], Interval]:
    """(A, B) -> t interval over deals of the per-deal mean of ``A - B`` at shared tables.

    Only ordered pairs with A before B in ``agents`` are returned; B - A is the negation.
    """
    order = {agent: i for i, agent in enumerate(agents)}
    diffs: dict[tuple[str, str], dict[int, list[float]]] = {}
    for deal, values in observations:
        present = sorted(values, key=order.__getitem__)
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                diff = float(values[a]) - float(values[b])
                diffs.setdefault((a, b), {}).setdefault(deal, []).append(diff)
    out: dict[tuple[str, str], Interval] = {}
    for i, a in enumerate(agents):
        for b in agents[i + 1 :]:
            by_deal = diffs.get((a, b), {})
            per_deal = [math.fsum(v) / len(v) for _, v in sorted(by_deal.items())]
            out[(a, b)] = mean_ci(per_deal, confidence)
    return out


# --- looking again: independent runs of one comparison pooled ----------------------------------


def interval_of(mean: float, low: float, high: float, n: int, confidence: float = 0.95) -> Interval:
    """The :class:`Interval` a stored t interval over ``n`` deals describes (its ``sd`` read back
    from the half-width), e.g. a ``results["head_to_head"]`` row."""
    if n < 2 or not low <= mean <= high:
        raise ValueError(f"a t interval needs n >= 2 and low <= mean <= high; got {n}, {low}, "
                         f"{mean}, {high}")  # fmt: skip
    q = t_quantile(0.5 + confidence / 2.0, n - 1)
    return Interval(mean, low, high, n, (high - low) / 2.0 * math.sqrt(n) / q, confidence)


def pocock_boundary(looks: Sequence[int], alpha: float = 0.05) -> float:
    """Pocock's constant boundary: the ``c`` such that, with no effect, the z statistic of the
    data up to some look reaches ``|z| >= c`` with probability ``alpha`` (two-sided). ``looks``
    are the looks' cumulative sample sizes (the statistics of looks ``i < j`` correlate as
    ``sqrt(n_i / n_j)``). One look gives the normal quantile; two equal looks at 5% give 2.178
    (Pocock 1977, Biometrika 64:191). The multivariate normal probabilities are scipy's, with a
    fixed seed: the same boundary every time."""
    sizes = np.asarray(looks, dtype=float)
    if sizes.ndim != 1 or not len(sizes) or (sizes <= 0).any() or (np.diff(sizes) <= 0).any():
        raise ValueError(f"looks must be increasing positive sample sizes, got {list(looks)}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if len(sizes) == 1:
        return normal_quantile(1.0 - alpha / 2.0)
    from scipy import optimize
    from scipy import stats as scipy_stats

    k = len(sizes)
    correlation = np.sqrt(np.minimum.outer(sizes, sizes) / np.maximum.outer(sizes, sizes))
    z = scipy_stats.multivariate_normal(np.zeros(k), correlation, seed=0)

    def excess(c: float) -> float:
        return 1.0 - float(z.cdf(np.full(k, c), lower_limit=np.full(k, -c))) - alpha

    return float(optimize.brentq(excess, normal_quantile(1.0 - alpha / 2.0), 10.0, xtol=1e-6))


def pooled_looks(looks: Sequence[Interval], alpha: float = 0.05) -> Interval:
    """Independent runs of one comparison (each an interval over its own deals) read together:
    the mean over all their deals, and its interval at Pocock's boundary for the looks taken so
    far (:func:`pocock_boundary`, the runs in the order they were played), so that looking again
    after a run that did not decide keeps the overall chance of a false finding at ``alpha``.
    The returned ``confidence`` is ``1 - alpha``, over all the looks."""
    if not looks:
        raise ValueError("pooling needs at least one look")
    n = sum(look.n for look in looks)
    mean = math.fsum(look.n * look.mean for look in looks) / n
    variance = math.fsum((look.n / n) ** 2 * look.sd**2 / look.n for look in looks)
    sizes = np.cumsum([look.n for look in looks])
    half = pocock_boundary([int(x) for x in sizes], alpha) * math.sqrt(variance)
    return Interval(mean, mean - half, mean + half, n, math.sqrt(variance * n), 1.0 - alpha)


def pooled_inverse_variance(intervals: Sequence[Interval], confidence: float = 0.95) -> Interval:
    """Independent comparisons of one question on different populations (e.g. one pair of
    players at several table sizes) read as one effect: the means weighted by the inverse of
    their variances (the fixed-effect estimate), with its normal interval. ``n`` is the deals of
    all of them; ``sd`` is the pooled standard error times ``sqrt(n)``."""
    if not intervals:
        raise ValueError("pooling needs at least one interval")
    weights = [look.n / look.sd**2 for look in intervals]  # 1 / (standard error squared)
    total = math.fsum(weights)
    mean = math.fsum(w * look.mean for w, look in zip(weights, intervals, strict=True)) / total
    se = math.sqrt(1.0 / total)
    half = normal_quantile(0.5 + confidence / 2.0) * se
    n = sum(look.n for look in intervals)
    return Interval(mean, mean - half, mean + half, n, se * math.sqrt(n), confidence)


# --- bootstrap over deals ---------------------------------------------------------------------


def bootstrap_ratio(
    num: Sequence[float] | np.ndarray,
    den: Sequence[float] | np.ndarray,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | Sequence[int] = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``sum(num) / sum(den)`` resampling deals.

    ``num[i]`` and ``den[i]`` are the counts of deal ``i`` (deals are the independent unit, so
    whole deals are drawn with replacement). A resample draws deal multiplicities from a
    multinomial (the same distribution as drawing ``n`` deals with replacement), seeded by
    ``seed`` through :class:`numpy.random.SeedSequence`; resamples whose denominator is 0 are
    dropped. Returns ``(low, high)``, NaN when fewer than 2 deals or no usable resample.
    """
    num_a = np.asarray(num, dtype=float)
    den_a = np.asarray(den, dtype=float)
    if num_a.shape != den_a.shape or num_a.ndim != 1:
        raise ValueError(
            f"num and den must be 1-d of one length, got {num_a.shape} and {den_a.shape}"
        )
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    n = len(num_a)
    if n < 2:
        return math.nan, math.nan
    words = [seed] if isinstance(seed, int) else list(seed)
    rng = np.random.default_rng(np.random.SeedSequence([int(w) for w in words]))
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(float)
    nums, dens = weights @ num_a, weights @ den_a
    usable = dens > 0
    if not usable.any():
        return math.nan, math.nan
    ratios = nums[usable] / dens[usable]
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(ratios, [alpha, 1.0 - alpha])
    return float(low), float(high)
