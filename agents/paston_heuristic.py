"""A rule-based Paston agent that reads only its observation.

Every decision reads the observation vector (at the offsets of the env's own layout, so the
agent can never know more than the vector holds) and ends with a legal action of
``observation["action_mask"]``. The agent keeps no memory between calls. The rules are written
once, compiled, in :mod:`folkcards.agents.paston_heuristic_core`; this agent and the batched
form (:mod:`folkcards.agents.paston_heuristic_batched`) both call them. The functions below
(:func:`suit_tricks`, :func:`declarer_tricks`, :func:`defence_tricks`, :func:`defence_call`, ...)
are those rules called one at a time, with the default :class:`PastonParams` unless given.

Design, by phase:

- **Trick estimates.** :func:`suit_tricks` values one suit of a declarer's hand from the
  ranks held and the ranks still outstanding: a card with ``h`` outstanding higher cards and
  ``k`` higher cards of one's own is worth 1 when ``h == 0``, ``1 - 0.5 ** (k - h + 1)`` when
  the higher cards will have been drawn (``h <= k``), else ``0.5 ** (h - k)`` (less when
  unguarded). Low trumps earn length credit once the opponents' trumps are likely exhausted;
  side-suit cards are discounted by the chance that the round is ruffed (the outstanding cards
  split between two hands, and how many trumps the opponents hold against the declarer's).
  :func:`declarer_tricks` combines trump tricks, side tricks, ruffs with short side suits and
  the trump counts with weights fitted by least squares on heuristic play (random forced
  contracts, both defenders whisting; residual spread about 1 trick).
  :func:`defence_tricks` is a linear model of the same kind for a defender (side aces and
  kings, trump honours and length, short and long side suits), fitted separately for two
  defenders and for a sole defender.
- **Auction.** For each contract the next bid would allow (only trump suits of 3+ cards), the
  expected tricks plus the value of the 2 prikup cards (``prikup_bonus``) give a success
  probability (a normal around the estimate) and an expected score ``10·f·(2p − 1)`` (best
  spades: ``10p − 40(1 − p)``). The agent bids the next step only if the best such contract is
  worth at least ``bid_margin`` × factor, so it grows more careful as the factor grows; best
  spades needs ``p`` of about 0.9.
- **Discards.** Every allowed contract is tried with every pair (then every single card) of
  its side cards (trumps only when there are not enough side cards); the agent keeps the
  discard with the best expected score, then the most tricks, then the lowest cards, so
  trumps and winners are kept and short suits become voids.
- **Contract.** The allowed contract with the best expected score, or surrender (−10) when
  every contract is expected to lose more than 10.
- **Defence.** Whist when the expected score of defending is positive: the defender's trick
  estimate gives a distribution of tricks, scored with the 2-trick table (both defend) or the
  4-trick table (sole defender); the first speaker weighs both by the chance that the second
  also whists (0.3, as measured in self-play). A pass scores 0, so whist needs a real chance.
- **Play.** Count every played card (and the declarer's own discards) to know the outstanding
  cards and the masters (cards no outstanding card beats), and use the public voids (plus a
  suit with no outstanding card). Follow cheaply when the trick is lost, win with the lowest
  card that is sure to hold against the players still to play, never overtake a winning
  partner-defender, ruff with the lowest winning trump; as declarer draw trumps (the master,
  the top of a sequence, else a low one) while holding two or more and the opponents may have
  some, then cash masters the opponents cannot ruff and lead low from length; as defender
  cash masters the declarer cannot ruff, lead to a partner's void for a ruff, lead a singleton
  when holding trumps, lead the top of an honour sequence, else low from the longest suit
  without a loose honour; discard from the shortest suit without winners.

The constants live in :class:`PastonParams` and in the core module;
``benchmarks/heuristic_vs_random.py`` measures the agent against ``random``.
"""

from __future__ import annotations

import numpy as np

from ..envs.paston.observation import OBSERVATION_SIZE
from ..envs.paston.vocabulary import NUM_ACTIONS
from . import paston_heuristic_core as core
from .base import RuleBasedAgent
from .paston_heuristic_core import (
    DECLARER_WEIGHTS,
    RUFF_MISS,
    SOLE_DEFENCE_CONSTANT,
    SOLE_DEFENCE_WEIGHTS,
    TWO_DEFENCE_CONSTANT,
    TWO_DEFENCE_WEIGHTS,
    PastonParams,
    trump_control,
)


def suit_tricks(mine: int, out: int, trump: bool, control: int = 2) -> float:
    """Expected declarer tricks from one suit: ``mine``/``out`` are 8-bit rank masks (A = bit 7)
    of the cards held and of the cards still outstanding (not held, not gone); ``control`` is
    :func:`trump_control` (how likely a void opponent can ruff a side suit)."""
    if mine & out or not (0 <= mine < 256 and 0 <= out < 256 and 0 <= control < len(RUFF_MISS)):
        raise ValueError("suit_tricks needs disjoint 8-bit rank masks and a control of 0 to 4")
    return float(core.suit_tricks(mine, out, trump, control, *core.tables(PastonParams())))


def declarer_tricks(hand: int, gone: int, trump: int) -> float:
    """The trick estimate of a 10-card declarer hand (32-bit mask) with ``trump``; ``gone``
    holds cards out of play (played or discarded). :class:`PastonParams` calibrates it."""
    return float(core.declarer_tricks(hand, gone, trump, *core.tables(PastonParams())))


def defence_tricks(hand: int, trump: int, sole: bool = False) -> float:
    """Expected tricks of a defender's 10-card hand against ``trump``: one of two defenders, or
    a sole defender."""
    return float(core.defence_tricks(hand, trump, sole, *core.tables(PastonParams())))


def contract_value(tricks: float, level: int, sigma: float) -> float:
    """Expected score of declaring ``level`` when the tricks are about ``tricks`` ± ``sigma``."""
    return float(core.contract_value(tricks, level, sigma, *core.tables(PastonParams())))


def defence_value(tricks: float, sigma: float, sole: bool, factor: int) -> float:
    """Expected score of defending with about ``tricks`` ± ``sigma`` tricks."""
    return float(core.defence_value(tricks, sigma, sole, factor, *core.tables(PastonParams())))


def defence_call(
    hand: int,
    level: int,
    *,
    all_pass: bool,
    first_speaker: bool,
    other_whisted: bool,
    params: PastonParams | None = None,
) -> bool:
    """Whether the heuristic whists with this 10-card ``hand`` (mask) against ``level``.

    ``first_speaker``: the declarer's left, who speaks before the other defender (and guesses
    that they whist with ``other_whist_prob``); otherwise ``other_whisted`` is what the first
    speaker said. ``all_pass``: the declarer was designated after all three passed.
    """
    K, F = core.tables(params or PastonParams())
    return bool(
        core.defence_call(
            hand, level, bool(all_pass), bool(first_speaker), bool(other_whisted), K, F
        )
    )


class PastonHeuristicAgent(RuleBasedAgent):
    """Rule-based Paston player; see the module docstring for the rules it follows."""

    name = "heuristic"
    game_name = "paston"

    def __init__(
        self,
        game: str = "paston",
        seat: str = "player_0",
        seed: int | None = None,
        params: PastonParams | None = None,
    ):
        super().__init__(game, seat, seed)
        self.params = params or PastonParams()
        self._tables = core.tables(self.params)

    def _decide(self, vector: np.ndarray, legal: list[int]) -> int | None:
        if vector.shape != (OBSERVATION_SIZE,):
            raise ValueError(
                f"observation must have shape ({OBSERVATION_SIZE},), got {vector.shape}"
            )
        row = vector if vector.dtype == np.float32 else (vector != 0).astype(np.float32)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[legal] = 1
        return int(core.decide_one(np.ascontiguousarray(row), mask, *self._tables))


__all__ = [
    "DECLARER_WEIGHTS",
    "SOLE_DEFENCE_CONSTANT",
    "SOLE_DEFENCE_WEIGHTS",
    "TWO_DEFENCE_CONSTANT",
    "TWO_DEFENCE_WEIGHTS",
    "PastonHeuristicAgent",
    "PastonParams",
    "contract_value",
    "declarer_tricks",
    "defence_call",
    "defence_tricks",
    "defence_value",
    "suit_tricks",
    "trump_control",
]
