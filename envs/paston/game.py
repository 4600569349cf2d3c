"""A Paston game to 121: the totals, the exact −121 → 0 reset, the winners and whose deal is next.

Free of PettingZoo, beside :mod:`.rules` (which plays one deal). ``docs/rules/paston.md`` §9
explains the game to 121.
"""

from __future__ import annotations

from collections.abc import Sequence

from .rules import PastonDeal
from .vocabulary import NUM_SEATS

WIN_TOTAL = 121
RESET_TOTAL = -121  # a total landing exactly here goes back to 0


class PastonGame:
    """The running totals of a game, updated deal by deal with :meth:`add_deal`."""

    __slots__ = ("totals", "deals_completed")

    def __init__(self, totals: Sequence[int] = (0, 0, 0)):
        self.totals = [int(t) for t in totals]
        self.deals_completed = 0

    def add_deal(self, scores: Sequence[int]) -> list[int]:
        """Add one completed deal's table scores; returns each seat's change of total."""
        changes = []
        for seat in range(NUM_SEATS):
            before = self.totals[seat]
            after = before + scores[seat]
            if after == RESET_TOTAL:
                after = 0
            self.totals[seat] = after
            changes.append(after - before)
        self.deals_completed += 1
        return changes

    @property
    def winners(self) -> list[int]:
        """The seats with the highest total once some total reaches 121 (a tie shares), else []."""
        best = max(self.totals)
        if best < WIN_TOTAL:
            return []
        return [seat for seat in range(NUM_SEATS) if self.totals[seat] == best]

    @staticmethod
    def next_deal(deal: PastonDeal, first_deal: bool) -> tuple[int, bool]:
        """``(dealer, first_deal)`` of the deal after ``deal``: an all-pass redeal is dealt again
        by the same dealer; otherwise this deal's first bidder deals, and it is no first deal."""
        if deal.outcome == "redeal":
            return deal.dealer, first_deal
        return deal.first_bidder, False
