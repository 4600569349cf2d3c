"""One comparison measured on independent populations (e.g. at several table sizes), read as
one effect by inverse-variance weights (``pooled_inverse_variance``): the fixed-effect estimate
of meta-analysis, checked against its textbook form and by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from folkcards.evaluate.statistics.intervals import mean_ci, pooled_inverse_variance


def test_two_equal_intervals_pool_to_the_same_mean_and_a_narrower_interval() -> None:
    one = mean_ci(np.random.default_rng(3).normal(0.0, 1.0, size=400).tolist())
    both = pooled_inverse_variance([one, one])
    assert both.mean == pytest.approx(one.mean)
    se = one.sd / math.sqrt(one.n)
    assert both.high - both.mean == pytest.approx(1.959964 * se / math.sqrt(2), rel=1e-5)


def test_the_more_precise_comparison_weighs_more() -> None:
    rng = np.random.default_rng(4)
    precise = mean_ci(rng.normal(-0.02, 0.1, size=4000).tolist())
    noisy = mean_ci(rng.normal(+0.05, 1.0, size=400).tolist())
    se_p, se_n = precise.sd / math.sqrt(precise.n), noisy.sd / math.sqrt(noisy.n)
    w_p, w_n = 1 / se_p**2, 1 / se_n**2
    expected = (w_p * precise.mean + w_n * noisy.mean) / (w_p + w_n)
    pooled = pooled_inverse_variance([precise, noisy])
    assert pooled.mean == pytest.approx(expected, rel=1e-9)
    assert abs(pooled.mean - precise.mean) < abs(pooled.mean - noisy.mean)


def test_the_pooled_interval_covers_a_common_effect_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(20261207)
    effect, covered, trials = -0.01, 0, 2000
    for _ in range(trials):
        parts = [mean_ci(rng.normal(effect, sd, size=n).tolist())
                 for sd, n in ((0.2, 300), (0.5, 200), (0.1, 500))]  # fmt: skip
        pooled = pooled_inverse_variance(parts)
        covered += pooled.low <= effect <= pooled.high
    assert covered / trials == pytest.approx(0.95, abs=0.015)


def test_nothing_to_pool_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        pooled_inverse_variance([])
