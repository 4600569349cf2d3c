"""The cross-fitted control variate (``folkcards.evaluate.reports.variance``): unbiased whatever the
features, narrower where they explain the differences, and its parts refuse bad input."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.evaluate.reports.variance import (
    control_variate,
    folds_of,
    pair_differences,
    reference_features,
    unbiasedness_check,
)


def _deals(n: int, rng: np.random.Generator, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """Differences ``0.5 + strength * x1 + noise`` with features of known mean (1, 0)."""
    x = np.column_stack([rng.exponential(1.0, n), rng.normal(0.0, 1.0, n)])
    d = 0.5 + strength * (x[:, 0] - 1.0) + rng.normal(0.0, 1.0, n)
    return d, x


@pytest.mark.parametrize("strength", [0.0, 3.0])
def test_the_corrected_mean_is_unbiased_by_simulation(strength: float) -> None:
    """Over many independent samples the corrected estimates average to the true 0.5 within
    their Monte Carlo interval, with or without features that explain the differences."""
    rng = np.random.default_rng(1)
    estimates = []
    for seed in range(400):
        d, x = _deals(40, rng, strength)
        estimates.append(control_variate(d, x, np.array([1.0, 0.0]), seed=seed).corrected)
    values = np.array(estimates)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    assert abs(values.mean() - 0.5) < max(half, 1e-9) * 1.5


def test_features_that_explain_the_differences_shrink_the_variance() -> None:
    rng = np.random.default_rng(2)
    d, x = _deals(600, rng, 3.0)
    est = control_variate(d, x, np.array([1.0, 0.0]))
    assert est.variance_ratio < 0.2 and est.effective_gain > 5
    assert est.corrected_ci95 < est.plain_ci95 / 2
    unrelated = control_variate(*_deals(600, rng, 0.0), np.array([1.0, 0.0]))
    assert 0.9 < unrelated.variance_ratio < 1.1


def test_the_finite_population_check_agrees() -> None:
    rng = np.random.default_rng(3)
    d, x = _deals(500, rng, 2.0)
    check = unbiasedness_check(d, x, sample=50, repeats=300, seed=4)
    for kind in ("plain", "corrected"):
        gap = abs(check[f"{kind}_mean"] - check["population_mean"])
        assert gap < 1.5 * check[f"{kind}_mean_ci95"]
    assert check["corrected_sd"] < check["plain_sd"]


def test_folds_are_balanced_and_seeded() -> None:
    fold = folds_of(11, 2, seed=5)
    assert sorted(np.bincount(fold)) == [5, 6]
    assert np.array_equal(fold, folds_of(11, 2, seed=5))
    with pytest.raises(ValueError, match="needs 4 deals, got 3"):
        folds_of(3, 2, seed=0)
    with pytest.raises(ValueError, match="shape"):
        control_variate([1.0, 2.0, 3.0, 4.0], np.ones((3, 1)), np.ones(1))


def test_pair_differences_average_the_shared_units_of_a_deal() -> None:
    def unit(deal: int, seats: list[str], scores: list[float]) -> dict:
        return {"deal": deal, "seats": seats, "result": [{"score": s} for s in scores]}

    units = [
        unit(0, ["a", "b", "c"], [3.0, 1.0, 0.0]),
        unit(0, ["b", "a", "c"], [2.0, 0.0, 0.0]),
        unit(1, ["a", "c", "c2"], [5.0, 0.0, 0.0]),  # b absent: not a term
        unit(2, ["b", "a", "c"], [1.0, 4.0, 0.0]),
    ]
    assert pair_differences(units, "a", "b") == {0: 0.0, 2: 3.0}


def test_reference_features_depend_on_the_deal_alone() -> None:
    from folkcards.envs.registry import game_spec

    spec = game_spec("tri_palki")
    kwargs = spec.env_kwargs(3, episode="round")
    deals = [(7, None), (8, None), (7, None)]
    x = reference_features("tri_palki", deals, kwargs)
    assert x.shape == (3, 4)
    assert np.array_equal(x[0], x[2]) and np.array_equal(np.abs(x[:, :3]).sum(axis=1), x[:, 3])


def test_the_page_table_is_the_stored_files() -> None:
    """docs/variance_reduction.md's table is generated from docs/tournaments/variance."""
    from pathlib import Path

    from folkcards.evaluate.reports.variance import (
        TABLE_BEGIN,
        TABLE_END,
        markdown_table,
        stored_files,
    )

    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "variance_reduction.md").read_text()
    shown = text[text.index(TABLE_BEGIN) + len(TABLE_BEGIN) : text.index(TABLE_END)].strip()
    files = stored_files(root / "docs" / "tournaments" / "variance")
    assert files, "no stored control-variate measurement"
    assert shown == markdown_table(files).strip()
