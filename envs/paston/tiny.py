"""Paston tiny: Paston with seven cards, two in each hand, for exact equilibrium computation.

The same rules engine, observation and action ids as Paston (``docs/rules/paston_tiny.md``),
played with the variant :data:`~.variant.PASTON_TINY`: the 7, J, K and A of spades and the J, K
and A of clubs, two cards to each seat and one to the prikup, the ladder spades, clubs, best
spades, one discard, two tricks of which the declarer needs both and each defender one.
"""

from __future__ import annotations

from .env import raw_env as PastonEnv
from .variant import PASTON_TINY, PastonVariant


class raw_env(PastonEnv):  # noqa: N801 - PettingZoo's naming convention
    """Paston tiny for 3 players; see ``folkcards.envs.paston_tiny_v0``."""

    metadata = {**PastonEnv.metadata, "name": "paston_tiny_v0"}
    game_name = "paston_tiny"
    variant: PastonVariant = PASTON_TINY


__all__ = ["PASTON_TINY", "raw_env"]
