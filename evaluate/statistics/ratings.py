"""openskill ratings of the agents: one PlackettLuce update per unit, in canonical order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

METHOD = (
    "openskill PlackettLuce, one rating update per unit in canonical order (deal, line-up, "
    "seating), ranked by the unit's result; ordinal = mu - 3 sigma"
)


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    ordinal: float


def ratings(names: Sequence[str], units: Sequence[dict[str, Any]]) -> dict[str, Rating]:
    """agent -> its rating after every unit of ``units`` (in the given order)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {name: model.rating(name=name) for name in names}
    for unit in units:
        teams = [[current[a]] for a in unit["seats"]]
        new = model.rate(teams, scores=[float(r["rank_key"]) for r in unit["result"]])
        for a, team in zip(unit["seats"], new, strict=True):
            current[a] = team[0]
    return {name: Rating(r.mu, r.sigma, r.ordinal()) for name, r in current.items()}


__all__ = ["METHOD", "Rating", "ratings"]
