"""The tournament statistics against values computed by hand (and published tables)."""

from __future__ import annotations

import math

import pytest
from folkcards.evaluate.statistics import intervals as st

# Student t 0.975 quantiles from published tables.
T_975 = {
    1: 12.7062047,
    2: 4.3026527,
    3: 3.1824463,
    4: 2.7764451,
    5: 2.5705818,
    10: 2.2281389,
    29: 2.0452296,
    30: 2.0422725,
    100: 1.9839715,
}


@pytest.mark.parametrize("df, expected", sorted(T_975.items()))
def test_t_quantile_matches_tables(df: int, expected: float) -> None:
    assert st.t_quantile(0.975, df) == pytest.approx(expected, abs=1e-6)
    assert st.t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-6)


def test_t_quantile_other_levels_and_limits() -> None:
    assert st.t_quantile(0.995, 10) == pytest.approx(3.1692727, abs=1e-6)
    assert st.t_quantile(0.95, 20) == pytest.approx(1.7247182, abs=1e-6)
    assert st.t_quantile(0.5, 7) == 0.0
    # large df tends to the normal quantile
    assert st.t_quantile(0.975, 1e7) == pytest.approx(st.normal_quantile(0.975), abs=1e-5)
    assert st.normal_quantile(0.975) == pytest.approx(1.959964, abs=1e-6)
    assert st.t_cdf(0.0, 5) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        st.t_quantile(1.0, 3)


def test_mean_ci_by_hand() -> None:
    # values 1, 2, 3, 4: mean 2.5, sd = sqrt(5/3), half width = t(0.975, 3) * sd / 2
    ci = st.mean_ci([1.0, 2.0, 3.0, 4.0])
    sd = math.sqrt(5.0 / 3.0)
    half = 3.1824463 * sd / 2.0
    assert ci.mean == pytest.approx(2.5)
    assert ci.sd == pytest.approx(sd)
    assert ci.low == pytest.approx(2.5 - half, abs=1e-6)
    assert ci.high == pytest.approx(2.5 + half, abs=1e-6)
    assert ci.n == 4
    assert ci.half_width == pytest.approx(half, abs=1e-6)


def test_mean_ci_degenerate() -> None:
    one = st.mean_ci([5.0])
    assert one.mean == 5.0 and math.isnan(one.low) and math.isnan(one.high)
    none = st.mean_ci([])
    assert none.n == 0 and math.isnan(none.mean)
    flat = st.mean_ci([3.0, 3.0, 3.0])
    assert (flat.low, flat.mean, flat.high) == (3.0, 3.0, 3.0)


def test_paired_ci_averages_rotations_first() -> None:
    # Agent A sits twice in deal 0 (scores 10 and 20 -> 15) and twice in deal 1 (0 and -10 -> -5),
    # once in deal 2 (5). Per-deal means 15, -5, 5: mean 5, sd 10, half = t(0.975, 2) * 10 / sqrt(3).
    obs = [
        (0, {"A": 10, "B": -10}),
        (0, {"A": 20, "B": 0}),
        (1, {"A": 0, "B": 4}),
        (1, {"A": -10, "B": 6}),
        (2, {"A": 5, "B": 5}),
    ]
    means = st.per_deal_means(obs)
    assert means["A"] == {0: 15.0, 1: -5.0, 2: 5.0}
    assert means["B"] == {0: -5.0, 1: 5.0, 2: 5.0}
    ci = st.paired_ci_by_deal(obs)["A"]
    half = 4.3026527 * 10.0 / math.sqrt(3.0)
    assert ci.n == 3  # deals, not units
    assert ci.mean == pytest.approx(5.0)
    assert ci.low == pytest.approx(5.0 - half, abs=1e-5)
    assert ci.high == pytest.approx(5.0 + half, abs=1e-5)


def test_head_to_head_by_hand() -> None:
    # Per-deal mean of A - B: deal 0: (20 + 20) / 2 = 20; deal 1: (-4 - 16) / 2 = -10; deal 2: 0.
    # C sits only in deal 2, so A-C and B-C rest on a single deal (no interval).
    obs = [
        (0, {"A": 10, "B": -10}),
        (0, {"A": 20, "B": 0}),
        (1, {"A": 0, "B": 4}),
        (1, {"A": -10, "B": 6}),
        (2, {"A": 5, "B": 5, "C": 1}),
    ]
    h2h = st.head_to_head(obs, ["A", "B", "C"])
    ab = h2h[("A", "B")]
    sd = math.sqrt(((20 - 10 / 3) ** 2 + (-10 - 10 / 3) ** 2 + (0 - 10 / 3) ** 2) / 2)
    half = 4.3026527 * sd / math.sqrt(3)
    assert ab.n == 3
    assert ab.mean == pytest.approx(10 / 3)
    assert ab.low == pytest.approx(10 / 3 - half, abs=1e-5)
    assert ab.high == pytest.approx(10 / 3 + half, abs=1e-5)
    assert h2h[("A", "C")].n == 1 and h2h[("A", "C")].mean == pytest.approx(4.0)
    assert h2h[("B", "C")].mean == pytest.approx(4.0)
    assert set(h2h) == {("A", "B"), ("A", "C"), ("B", "C")}


def test_wilson_by_hand() -> None:
    # 8 of 10, z = 1.959964: centre (0.8 + z²/20) / (1 + z²/10), half z·sqrt(0.016 + z²/400) / (1 + z²/10)
    z = 1.959963984540054
    denom = 1 + z * z / 10
    centre = (0.8 + z * z / 20) / denom
    half = z * math.sqrt(0.8 * 0.2 / 10 + z * z / 400) / denom
    w = st.wilson(8, 10)
    assert w.rate == pytest.approx(0.8)
    assert w.low == pytest.approx(centre - half)
    assert w.high == pytest.approx(centre + half)
    assert (w.low, w.high) == pytest.approx((0.4901625, 0.9433178), abs=1e-6)


def test_wilson_edges() -> None:
    zero = st.wilson(0, 10)
    assert zero.low == 0.0 and zero.high == pytest.approx(0.2775328, abs=1e-6)
    full = st.wilson(10, 10)
    assert full.high == 1.0 and full.low == pytest.approx(1 - 0.2775328, abs=1e-6)
    half = st.wilson(2.5, 5)  # fractional successes (wins averaged over rotations)
    assert half.rate == 0.5 and half.low < 0.5 < half.high
    assert math.isnan(st.wilson(0, 0).rate)
    with pytest.raises(ValueError):
        st.wilson(11, 10)


def test_win_rate_counts_one_trial_per_seed() -> None:
    # A wins 1 of 2 rotations of seed 0 and 2 of 2 of seed 1: successes 0.5 + 1 = 1.5 of n = 2.
    obs = [
        (0, {"A": 1.0, "B": 0.0}),
        (0, {"A": 0.0, "B": 1.0}),
        (1, {"A": 1.0, "B": 0.0}),
        (1, {"A": 1.0, "B": 0.0}),
    ]
    rates = st.win_rate(obs)
    assert rates["A"].n == 2 and rates["A"].wins == pytest.approx(1.5)
    assert rates["A"].rate == pytest.approx(0.75)
    assert rates["A"] == st.wilson(1.5, 2)
    assert rates["B"].rate == pytest.approx(0.25)


# --- scipy against independent values -----------------------------------------------------------


@pytest.mark.parametrize("p", [0.6, 0.9, 0.95, 0.975, 0.995, 0.9995])
def test_t_quantile_closed_forms(p: float) -> None:
    # df = 1 is the Cauchy distribution: tan(pi (p - 1/2)); df = 2: (2p - 1) / sqrt(2p(1 - p)).
    assert st.t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-12)
    assert st.t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-12)
    # df = 4: with a = 4p(1 - p), q = sqrt(4 cos(arccos(sqrt a) / 3) / sqrt a - 4).
    a = 4 * p * (1 - p)
    q4 = math.sqrt(4 * math.cos(math.acos(math.sqrt(a)) / 3) / math.sqrt(a) - 4)
    assert st.t_quantile(p, 4) == pytest.approx(q4, rel=1e-12)


@pytest.mark.parametrize("t", [-3.0, -0.3, 0.0, 0.7, 1.5, 4.0])
def test_t_cdf_closed_forms(t: float) -> None:
    assert st.t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, rel=1e-12)
    assert st.t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), rel=1e-12)


# Printed t tables (10 significant digits) for degrees of freedom without a closed form.
T_TABLE = {
    (0.975, 7): 2.364624252,
    (0.975, 14): 2.144786688,
    (0.9, 3): 1.637744354,
    (0.995, 60): 2.660283029,
}

# What the hand-written implementation (incomplete beta by Lentz's continued fraction, bisection
# to 1e-12) returned before scipy replaced it.
OLD_T_QUANTILE = {
    (0.975, 7): 2.3646242515924314,
    (0.975, 39): 2.022690920036439,
    (0.975, 14): 2.1447866879179855,
    (0.9, 3): 1.6377443536962346,
    (0.995, 60): 2.660283028854792,
    (0.6, 25): 0.2560596848275054,
    (0.975, 1000): 1.9623390808255863,
}
OLD_T_CDF = {
    (1.5, 7): 0.911350756505015,
    (-0.3, 3): 0.3918816460199595,
    (2.0, 39): 0.9737504923280726,
    (4.0, 12): 0.9991191518778025,
}
OLD_WILSON = {
    (8, 10): (0.49016247153664183, 0.9433178485456247),
    (1.5, 2): (0.19786745576231113, 0.9733226579910154),
    (0, 7): (0.0, 0.3543304350666873),
    (37.25, 90): (0.31770036447280364, 0.5171274377077193),
}


@pytest.mark.parametrize("key", sorted(T_TABLE))
def test_t_quantile_matches_printed_tables(key: tuple[float, int]) -> None:
    assert st.t_quantile(*key) == pytest.approx(T_TABLE[key], abs=1e-9)


@pytest.mark.parametrize("key", sorted(OLD_T_QUANTILE))
def test_t_quantile_matches_the_old_implementation(key: tuple[float, int]) -> None:
    assert st.t_quantile(*key) == pytest.approx(OLD_T_QUANTILE[key], rel=1e-11)


@pytest.mark.parametrize("key", sorted(OLD_T_CDF))
def test_t_cdf_matches_the_old_implementation(key: tuple[float, int]) -> None:
    assert st.t_cdf(*key) == pytest.approx(OLD_T_CDF[key], rel=1e-12)


@pytest.mark.parametrize("key", sorted(OLD_WILSON))
def test_wilson_matches_the_old_implementation_and_the_formula(key: tuple[float, int]) -> None:
    successes, n = key
    w = st.wilson(successes, n)
    assert (w.low, w.high) == pytest.approx(OLD_WILSON[key], rel=1e-12, abs=1e-15)
    z = 1.959963984540054  # the 0.975 normal quantile
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    assert w.low == pytest.approx(max(0.0, centre - half), rel=1e-12, abs=1e-15)
    assert w.high == pytest.approx(min(1.0, centre + half), rel=1e-12)


def test_mean_ci_uses_the_exact_t_quantile() -> None:
    values = [3.0, -1.0, 4.0, 1.0, 5.0, -9.0, 2.0, 6.0]  # n = 8, df = 7
    mean = sum(values) / 8
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 7)
    ci = st.mean_ci(values)
    half = OLD_T_QUANTILE[(0.975, 7)] * sd / math.sqrt(8)
    assert (ci.low, ci.high) == pytest.approx((mean - half, mean + half), rel=1e-12)
