"""How estimates are written: the sign convention and the rounding every page shares."""

from folkcards.evaluate.formatting import estimate, num


def test_an_estimate_is_the_mean_then_its_interval_with_signs():
    assert estimate(1.254, 0.5, 2.0) == "+1.25 [+0.50, +2.00]"
    assert estimate(-0.5, -1.0, 0.25, 1) == "-0.5 [-1.0, +0.2]"


def test_a_value_that_rounds_to_zero_is_written_without_a_sign():
    assert num(-0.0004, 3, True) == "0.000"
    assert estimate(-0.001, -0.004, 0.002) == "0.00 [0.00, 0.00]"


def test_unsigned_estimates_for_ratings():
    assert estimate(1000.4, 951.2, 1049.6, 0, sign=False) == "1000 [951, 1050]"


def test_a_missing_interval_or_mean():
    assert estimate(0.25, None, None) == "+0.25"
    assert estimate(None, 0.1, 0.2) == "—"
