"""Independent runs of one comparison read together (``pooled_looks``, ``pocock_boundary``).

The boundaries are checked against Pocock's published table (Pocock 1977, Biometrika 64:191;
Jennison and Turnbull 2000, table 2.1: two-sided 5%, equal looks), and the error rate they
promise by simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from folkcards.evaluate.statistics.intervals import (
    interval_of,
    mean_ci,
    pocock_boundary,
    pooled_looks,
)


@pytest.mark.parametrize(
    ("looks", "published"), [(1, 1.960), (2, 2.178), (3, 2.289), (4, 2.361), (5, 2.413)]
)
def test_pocock_boundary_matches_the_published_table(looks: int, published: float) -> None:
    sizes = [1000 * (k + 1) for k in range(looks)]
    assert pocock_boundary(sizes) == pytest.approx(published, abs=0.002)


def test_pocock_boundary_is_the_same_every_time() -> None:
    assert pocock_boundary([4000, 8000]) == pocock_boundary([4000, 8000])


def test_two_looks_at_pococks_boundary_keep_the_error_rate() -> None:
    """No effect, two equal looks: rejecting at either look when |z| >= c happens about 5% of
    the time at Pocock's c, and clearly more often at 1.96 each time."""
    rng = np.random.default_rng(20261206)
    trials, half = 40_000, 50
    first = rng.standard_normal((trials, half)).sum(axis=1)
    second = rng.standard_normal((trials, half)).sum(axis=1)
    z1 = first / math.sqrt(half)
    z2 = (first + second) / math.sqrt(2 * half)

    def rate(c: float) -> float:
        return float(np.mean((np.abs(z1) >= c) | (np.abs(z2) >= c)))

    assert rate(pocock_boundary([half, 2 * half])) == pytest.approx(0.05, abs=0.005)
    assert rate(1.959964) > 0.075


def test_interval_of_reads_back_the_sd() -> None:
    values = np.random.default_rng(1).normal(0.2, 1.5, size=500).tolist()
    ci = mean_ci(values)
    back = interval_of(ci.mean, ci.low, ci.high, ci.n)
    assert back.sd == pytest.approx(ci.sd, rel=1e-9)


def test_pooled_looks_is_the_mean_over_all_deals_with_a_wider_interval() -> None:
    rng = np.random.default_rng(7)
    a = rng.normal(-0.01, 0.17, size=4000)
    b = rng.normal(-0.01, 0.17, size=4000)
    looks = [mean_ci(a.tolist()), mean_ci(b.tolist())]
    pooled = pooled_looks(looks)
    both = mean_ci(np.concatenate([a, b]).tolist())
    assert pooled.n == 8000
    assert pooled.mean == pytest.approx(both.mean, abs=1e-12)
    # the same standard error as one run of all the deals, read at Pocock's boundary
    se = pooled.half_width / pocock_boundary([4000, 8000])
    assert se == pytest.approx(both.half_width / 1.9603, rel=0.01)
    assert pooled.confidence == pytest.approx(0.95)
    # one look is the look itself, read at the normal quantile
    alone = pooled_looks(looks[:1])
    assert alone.mean == looks[0].mean
    assert alone.half_width == pytest.approx(looks[0].half_width, rel=1e-3)


def test_pooled_looks_weights_runs_by_their_deals() -> None:
    small = interval_of(1.0, 0.0, 2.0, 100)
    large = interval_of(0.0, -0.5, 0.5, 300)
    assert pooled_looks([small, large]).mean == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pocock_boundary([]), "increasing positive"),
        (lambda: pocock_boundary([8000, 4000]), "increasing positive"),
        (lambda: pocock_boundary([4000, 4000]), "increasing positive"),
        (lambda: pocock_boundary([4000], alpha=1.5), "alpha"),
        (lambda: pooled_looks([]), "at least one look"),
        (lambda: interval_of(0.0, -1.0, 1.0, 1), "n >= 2"),
        (lambda: interval_of(2.0, -1.0, 1.0, 100), "low <= mean <= high"),
    ],
)
def test_bad_input_is_refused_in_one_line(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()
