"""The Paston heuristic seated in ``paston_bidding_v0`` (same observations and actions as Paston).

The rule-based agents check the game they are made for; this subclass only names the bidding
variant, so ``make_agent("heuristic", "paston_bidding")`` (the registry's ``heuristic`` entry)
works in training pools, behaviour cloning and evaluation. Its card play is never asked.
"""

from __future__ import annotations

from .paston_heuristic import PastonHeuristicAgent


class PastonBiddingHeuristicAgent(PastonHeuristicAgent):
    """:class:`PastonHeuristicAgent` for the game ``paston_bidding``."""

    game_name = "paston_bidding"

    def __init__(
        self, game: str = "paston_bidding", seat: str = "player_0", seed: int | None = None
    ):
        super().__init__(game, seat, seed)


__all__ = ["PastonBiddingHeuristicAgent"]
