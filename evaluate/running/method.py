"""How a tournament is fair, in words for its report (each statistic adds its own notes)."""

from __future__ import annotations

from ..config import SEATING_RULES, TournamentConfig


def fairness_text(config: TournamentConfig) -> dict[str, str]:
    """The ``fairness`` note of ``results["method"]``: duplicate play and the seatings."""
    rotations = {
        SEATING_RULES["permutations"]: "every seat assignment",
        SEATING_RULES["mirrored"]: "the cyclic seat rotations in both directions",
    }.get(config.seating_rule, "the cyclic seat rotations")
    return {
        "fairness": (
            f"duplicate play: each {config.unit_name} (fixed by a seed derived from the tournament "
            f"seed) is played by every line-up of {config.seats} agents, with the agents rotated "
            f"through {rotations}"
        )
    }


__all__ = ["fairness_text"]
