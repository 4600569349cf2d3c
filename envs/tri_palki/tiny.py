"""Tri Palki tiny: two players and ten cards, small enough for exact equilibrium computation.

The same rules engine and observation as Tri Palki (``docs/rules/tri_palki_tiny.md``): the deck
is the 10, K and A of spades, clubs and diamonds and the ace of hearts, so after the deal one
card lies face down as the reserve, which no player ever sees. A one-suit centre (at the deal
or after a swap) ends the round at once with the hands as they stand (the full game's rule for
a reserve that cannot replace a wash). A round reaching ``max_turns`` (2 by default) is scored
as if it had ended there (outcome ``turn_limit``): the lowest normal hand takes a stick, so
stalling does not pay.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from ..cards import TRI_PALKI_CARDS
from .env import raw_env as TriPalkiEnv
from .rules import TriPalkiRound

TINY_SUITS = (0, 1, 2)  # spades, clubs, diamonds
TINY_RANKS = (4, 7, 8)  # 10, K, A
ACE_OF_HEARTS = 9 * 3 + 8  # the tenth card: the reserve's one card after the deal
TINY_DECK: tuple[int, ...] = (
    *(9 * suit + rank for suit in TINY_SUITS for rank in TINY_RANKS),
    ACE_OF_HEARTS,
)
TINY_PLAYERS = 2
TINY_MAX_TURNS = 2
TURN_LIMIT = "turn_limit"  # the outcome of a round settled at max_turns
# every three-card hand of the tiny deck, in a fixed order: the deal's chance outcomes
TINY_HANDS: tuple[tuple[int, int, int], ...] = tuple(combinations(TINY_DECK, 3))


def parse_tiny_deck(deck: Any) -> list[int]:
    """Validate a user-given tiny deck: its ten cards once each, as ids or strings."""
    cards = TRI_PALKI_CARDS.parse_cards(deck, "option 'deck'")
    if sorted(cards) != sorted(TINY_DECK):
        names = " ".join(TRI_PALKI_CARDS.name(c) for c in TINY_DECK)
        raise ValueError(f"option 'deck' must hold the ten cards {names} once each")
    return cards


class raw_env(TriPalkiEnv):  # noqa: N801 - PettingZoo's naming convention
    """Tri Palki tiny for 2 players; see ``folkcards.envs.tri_palki_tiny_v0``."""

    metadata = {**TriPalkiEnv.metadata, "name": "tri_palki_tiny_v0"}
    game_name = "tri_palki_tiny"

    def __init__(
        self,
        num_players: int = TINY_PLAYERS,
        episode: str = "round",
        reward: str = "sticks",
        max_turns: int = TINY_MAX_TURNS,
        render_mode: str | None = None,
    ):
        if isinstance(num_players, bool) or num_players != TINY_PLAYERS:
            raise ValueError(f"tri_palki_tiny is played by exactly 2 players, got {num_players!r}")
        super().__init__(TINY_PLAYERS, episode, reward, max_turns, render_mode)

    def _parse_options(self, options: Any) -> dict[str, Any]:
        if isinstance(options, dict) and options.get("deck") is not None:
            plan = super()._parse_options({k: v for k, v in options.items() if k != "deck"})
            plan["deck"] = parse_tiny_deck(options["deck"])
            return plan
        return super()._parse_options(options)

    def _shuffled_deck(self) -> list[int]:
        return [TINY_DECK[i] for i in self._rng.permutation(len(TINY_DECK))]

    def _truncate(self, rnd: TriPalkiRound) -> None:
        """``max_turns`` reached: the round is scored with the hands as they stand."""
        rnd.end(TURN_LIMIT)
        if self._finish_round(rnd):
            self._start_round(self._match.next_dealer, None)
        if self.episode == "match":
            self._deads_step_first()


__all__ = ["TINY_DECK", "TINY_HANDS", "TINY_MAX_TURNS", "TURN_LIMIT", "parse_tiny_deck", "raw_env"]
