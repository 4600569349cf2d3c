"""Open-hand accuracy of Paston play: what each card and each contract cost against the solver.

For every card decision of a played Paston deal (a seat with more than one legal card), the
open-hand solver (:func:`folkcards.envs.paston.solver.move_values`, every hand visible) gives
the declarer's final trick count after each legal card, with best play from there on. A card
*loses tricks* when another card would have given its side more: the declarer's tricks for the
declarer, fewer declarer tricks for a defender (the defenders are one side, as the solver plays
them). The cost is also given in table points of the declarer's score (for a defender: the
points it conceded to the declarer).

For every deal that reached the play, the contract is checked the same way at the first lead,
with the hands as they were after the discards and the defence that was chosen: the open-hand
score of the contract played, of every other contract the auction allowed, and of a surrender.

What this does and does not measure: the solver sees every card, the players did not. A
defender who loses a trick the solver keeps may have played well for what it could know, and a
contract that fails open-handed may still have been the right bid. Open-hand accuracy is a
diagnostic beside the duplicate score (where an agent loses tricks: as declarer or defender,
early or late), never a replacement for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from folkcards.envs.paston.rules import (
    BEST_SPADES,
    PLAY,
    declarer_score,
)
from folkcards.envs.paston.solver import Position, move_values, solve
from folkcards.envs.paston.vocabulary import LEVEL_TRUMP

SURRENDER_SCORE = -10  # the declarer's score after a surrender (rules §7.2)


@dataclass(frozen=True)
class CardDecision:
    """One card played where the seat had a choice, valued open-handed."""

    seat: int
    role: str  # "declarer" or "defender"
    card: int
    best_card: int  # a card with the best value for the seat's side (the lowest id on ties)
    tricks_lost: int  # 0 when the card was one of the best
    score_lost: int  # declarer's table points lost (declarer) or conceded (defender)


@dataclass(frozen=True)
class ContractCheck:
    """The played contract against the alternatives, open-handed, at the first lead."""

    declarer: int
    level: int  # the contract played (0 spades … 4 best spades)
    open_hand_tricks: int  # the declarer's tricks with best play by all
    open_hand_score: int  # the declarer's table score for those tricks
    alternatives: dict[str, int]  # contract name (or "surrender") -> open-hand declarer score
    higher_better: bool  # a higher contract the auction allowed would have scored more
    surrender_better: bool  # surrendering would have scored more


@dataclass
class DealAnalysis:
    """The open-hand analysis of one deal of a record."""

    decisions: list[CardDecision] = field(default_factory=list)
    contract: ContractCheck | None = None

    def tricks_lost(self, seat: int, role: str | None = None) -> int:
        """Tricks ``seat`` lost to open-hand play in this deal (as ``role`` only, if given)."""
        return sum(
            d.tricks_lost
            for d in self.decisions
            if d.seat == seat and (role is None or d.role == role)
        )


LEVEL_NAMES = ("spades", "clubs", "diamonds", "hearts", "best_spades")


def reachable_levels(high_bid: int) -> tuple[int, ...]:
    """The contracts a declarer may name after a high bid (``-1``: the all-pass declarer)."""
    if high_bid == BEST_SPADES:
        return (BEST_SPADES,)
    return tuple(range(max(high_bid, 0), BEST_SPADES))


def _position_with_trump(first: Position, trump: int) -> Position:
    return Position(
        hands=list(first.hands),
        trump=trump,
        declarer=first.declarer,
        active=list(first.active),
        leader=first.leader,
    )


def check_contract(deal: Any) -> ContractCheck:
    """The contract check of an engine deal at its first lead (``deal.phase`` is the play)."""
    first = Position.from_deal(deal)
    tricks = solve(first)
    scores: dict[str, int] = {"surrender": SURRENDER_SCORE}
    by_trump: dict[int, int] = {deal.trump: tricks}
    for level in reachable_levels(deal.high_bid):
        trump = LEVEL_TRUMP[level]
        if trump not in by_trump:
            by_trump[trump] = solve(_position_with_trump(first, trump))
        scores[LEVEL_NAMES[level]] = declarer_score(by_trump[trump], level)
    played = declarer_score(tricks, deal.level)
    higher = [scores[LEVEL_NAMES[lv]] for lv in reachable_levels(deal.high_bid) if lv > deal.level]
    return ContractCheck(
        declarer=deal.declarer,
        level=deal.level,
        open_hand_tricks=tricks,
        open_hand_score=played,
        alternatives=scores,
        higher_better=any(score > played for score in higher),
        surrender_better=played < SURRENDER_SCORE,
    )


def value_card(deal: Any, card: int) -> CardDecision | None:
    """The open-hand value of playing ``card`` now; ``None`` if the seat had no choice."""
    values = move_values(Position.from_deal(deal))
    if len(values) < 2:
        return None
    seat = deal.to_act
    declarer_side = seat == deal.declarer
    best_value = max(values.values()) if declarer_side else min(values.values())
    best_card = min(c for c, v in values.items() if v == best_value)
    lost = abs(best_value - values[card])
    level = deal.level
    chosen_score = declarer_score(values[card], level)
    best_score = declarer_score(best_value, level)
    return CardDecision(
        seat=seat,
        role="declarer" if declarer_side else "defender",
        card=card,
        best_card=best_card,
        tricks_lost=lost,
        score_lost=abs(best_score - chosen_score),
    )


def _deal_steps(record: dict[str, Any]) -> Iterator[tuple[Any, Any, int]]:
    """``(env, deal, action)`` before each action of the record, replaying it."""
    from folkcards.envs.paston.env import raw_env

    env = raw_env(**record.get("env_kwargs", {}))
    env.reset(seed=record.get("seed"), options=record.get("options") or None)
    for agent, action in record["actions"]:
        if agent != env.agent_selection:
            raise ValueError(
                f"the record's move by {agent} does not replay: {env.agent_selection} acts"
            )
        yield env, env.state_deal(), int(action)
        env.step(int(action))


def analyse_record(record: dict[str, Any]) -> list[DealAnalysis]:
    """The open-hand analysis of every deal of a Paston record, in order (one for a deal)."""
    analyses: list[DealAnalysis] = []
    current_deal: Any = None
    for _, deal, action in _deal_steps(record):
        if deal is not current_deal:
            current_deal = deal
            analyses.append(DealAnalysis())
        if deal.phase != PLAY:
            continue
        analysis = analyses[-1]
        if analysis.contract is None:
            analysis.contract = check_contract(deal)
        decision = value_card(deal, action)
        if decision is not None:
            analysis.decisions.append(decision)
    return analyses
