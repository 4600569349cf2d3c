"""Training evaluation: the duplicate method through the one episode loop, the shared t interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.evaluate.statistics.intervals import t_quantile
from folkcards.train.evaluation import EvalResult, evaluate_duplicate, score_env_kwargs


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_a_learner_that_plays_as_the_opponent_has_no_advantage(game: str) -> None:
    """Same agent kind and the same random choices in every seat: each seat's result equals the
    baseline's, deal by deal, so the paired advantage and its interval are exactly 0."""
    result = evaluate_duplicate(
        game, lambda seat, seed: make_agent("random", game, seat, seed), "random", deals=4, seed=1
    )
    assert result.advantage == 0.0 and result.advantage_ci95 == 0.0
    assert result.mean_score == pytest.approx(result.baseline_score)
    seats = 3 if game == "paston" else 4
    assert result.games == 4 * (seats + 1)  # every seat once, and the baseline table


def test_intervals_come_from_the_tournaments_t_interval(monkeypatch) -> None:
    """The 95% half-widths are :func:`folkcards.evaluate.statistics.intervals.mean_ci`'s (Student t: 4.30
    standard errors for 3 deals, not 1.96) over the per-deal values."""
    from folkcards.evaluate.statistics import intervals as stats
    from folkcards.train import evaluation

    seen: list[list[float]] = []

    def spy(values, confidence=0.95):
        seen.append(list(values))
        return stats.mean_ci(values, confidence)

    monkeypatch.setattr(evaluation, "mean_ci", spy)
    result = evaluate_duplicate(
        "paston", lambda seat, seed: make_agent("heuristic", "paston", seat, seed), "random", 3, 5
    )
    assert len(seen) == 3 and all(len(values) == 3 for values in seen)
    scores, baselines, advantages = seen
    assert np.mean(scores) == pytest.approx(result.mean_score)
    assert np.mean(baselines) == pytest.approx(result.baseline_score)
    sd = float(np.std(scores, ddof=1))
    assert result.ci95 == pytest.approx(t_quantile(0.975, 2) * sd / math.sqrt(3))
    assert t_quantile(0.975, 2) == pytest.approx(4.3027, abs=1e-3)


def test_score_env_is_one_unscaled_deal_or_round_at_the_training_table() -> None:
    assert score_env_kwargs("paston", {"shaping": True, "reward_scale": 0.05}) == {
        "episode": "deal"
    }
    kwargs = score_env_kwargs("tri_palki", {"num_players": 5, "max_turns": 200, "episode": "match"})
    assert kwargs == {"episode": "round", "num_players": 5, "max_turns": 200}


def _result(game: str, learner: float, baseline: float) -> EvalResult:
    return EvalResult(
        game=game,
        method="tournament",
        opponent="heuristic",
        deals=30,
        games=180,
        mean_score=learner,
        ci95=0.05,
        baseline_score=baseline,
        baseline_ci95=0.04,
        advantage=learner - baseline,
        advantage_ci95=0.02,
        seconds=1.0,
    )


def test_the_summary_speaks_as_a_tournament_does() -> None:
    """A Tri Palki evaluation said "score -0.400 … over 30 deals"; it reports sticks
    per round, lower is better, over rounds, as a tournament does (the registry's metric, unit
    and direction); Paston keeps table points per deal."""
    sticks = _result("tri_palki", -0.4, -0.3).summary()
    assert "sticks per round 0.400 ± 0.050" in sticks, sticks
    assert "heuristic 0.300 ± 0.040" in sticks and "+0.100 ± 0.020" in sticks
    assert "lower is better" in sticks and sticks.endswith("over 30 rounds")
    assert "-0.4" not in sticks and "deals" not in sticks
    points = _result("paston", 12.0, 2.0).summary()
    assert "table score per deal +12.000 ± 0.050" in points and points.endswith("over 30 deals")
    assert "+10.000 ± 0.020" in points and "higher is better" in points
