"""Open-hand accuracy of Paston play: what each card and each contract cost against the solver.

For every card decision of a played Paston deal (a seat with more than one legal card), the
open-hand solver (:func:`folkcards.search.paston_solver.move_values`, every hand visible) gives
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

import functools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from folkcards.envs.paston.rules import (
    BEST_SPADES,
    DECLARER_NEED,
    OVER,
    PLAY,
    declarer_score,
)
from folkcards.envs.paston.vocabulary import LEVEL_TRUMP
from folkcards.search.paston_solver import PastonSolver, Position

SURRENDER_SCORE = -10  # the declarer's score after a surrender (rules §7.2)


@dataclass(frozen=True)
class CardDecision:
    """One card played where the seat had a choice, valued open-handed."""

    seat: int
    role: str  # "declarer" or "defender"
    card: int
    best_card: int  # the card itself if it was one of the best, else the lowest best card
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


_THREAD = threading.local()


def _deal_solver() -> PastonSolver:
    """The analysis' solver (one per thread: a solver's workspace is not shared). It keeps its
    table from call to call: each position's search is mostly a part of the previous one's,
    and the seatings of a duplicate deal replay the same hands; the entries are exact bounds
    keyed by the cards, so they never go stale (the table replaces the shallower of two
    entries when it is full)."""
    solver = getattr(_THREAD, "solver", None)
    if solver is None:
        solver = _THREAD.solver = PastonSolver(keep_table=True)
    return solver


def check_contract(deal: Any, solver: PastonSolver | None = None) -> ContractCheck:
    """The contract check of an engine deal at its first lead (``deal.phase`` is the play).

    A declarer's score depends only on whether it takes its six tricks, so each other trump
    is checked by one zero-window search (``can_make``), not a full solve."""
    solver = solver if solver is not None else _deal_solver()
    first = Position.from_deal(deal)
    tricks = solver.solve(first)
    scores: dict[str, int] = {"surrender": SURRENDER_SCORE}
    makes: dict[int, bool] = {deal.trump: tricks >= DECLARER_NEED}
    for level in reachable_levels(deal.high_bid):
        trump = LEVEL_TRUMP[level]
        if trump not in makes:
            makes[trump] = solver.can_make(_position_with_trump(first, trump), DECLARER_NEED)
        scores[LEVEL_NAMES[level]] = declarer_score(DECLARER_NEED if makes[trump] else 0, level)
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


def _new_replay_env(kwargs_json: str) -> Any:
    from folkcards.envs.paston.env import raw_env

    return raw_env(**json.loads(kwargs_json))


def _replay_env(env_kwargs: dict[str, Any]) -> Any:
    """One env per set of arguments and thread (an env is not shared between threads; each
    thread keeps its 8 most recently used), reset for each record (building an env costs more
    than replaying a deal through it)."""
    cached = getattr(_THREAD, "replay_env", None)
    if cached is None:
        cached = _THREAD.replay_env = functools.lru_cache(maxsize=8)(_new_replay_env)
    return cached(json.dumps(env_kwargs, sort_keys=True))


def _deal_steps(
    record: dict[str, Any], through_env: bool = False
) -> Iterator[tuple[Any, Any, int]]:
    """``(env, deal, action)`` before each action of the record, replaying it: a one-deal
    record on the engine state directly (a tenth of the env's cost), each move checked as the
    env checks it; a game, or any record with ``through_env``, through the env's steps."""
    env = _replay_env(record.get("env_kwargs", {}))
    env.reset(seed=record.get("seed"), options=record.get("options") or None)
    if through_env or env.episode != "deal":
        for agent, action in record["actions"]:
            selected = env.agent_selection
            if env.terminations.get(selected) or env.truncations.get(selected):
                raise ValueError(f"the record's move by {agent} does not replay: the game is over")
            if agent != env.agent_selection:
                raise ValueError(
                    f"the record's move by {agent} does not replay: {env.agent_selection} acts"
                )
            yield env, env.state_deal(), int(action)
            env.step(int(action))
        return
    deal = env.state_deal()
    names = env.possible_agents
    for agent, action in record["actions"]:
        if deal.phase == OVER:
            raise ValueError(f"the record's move by {agent} does not replay: the deal is over")
        if agent != names[deal.to_act]:
            raise ValueError(
                f"the record's move by {agent} does not replay: {names[deal.to_act]} acts"
            )
        if (
            isinstance(action, bool)
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < env.num_actions
        ):
            raise ValueError(f"the record's move {action!r} by {agent} is not an action id")
        if not deal.legal_bits() >> int(action) & 1:
            raise ValueError(f"the record's move {action!r} by {agent} is not legal there")
        yield env, deal, int(action)
        deal.apply(int(action))


@dataclass
class _Pending:
    """A card decision whose value after the card is not known yet."""

    analysis: DealAnalysis
    seat: int
    role: str
    card: int
    level: int
    before: int  # the position's value: the declarer's total tricks with best play by all
    position: Position


def _card_choices(deal: Any) -> int:
    return bin(deal.legal_bits() & ((1 << 32) - 1)).count("1")


def _resolve(pending: _Pending, after: int, solver: PastonSolver) -> None:
    """Record ``pending`` given the value after its card (the next choice's value, or the
    deal's final count: a forced card never changes the value)."""
    lost = abs(pending.before - after)
    best_card = pending.card
    if lost:  # a mistake: find a best card (rare, so the per-card values only here)
        values = solver.move_values(pending.position)
        declarer_side = pending.role == "declarer"
        target = max(values.values()) if declarer_side else min(values.values())
        best_card = min(c for c, v in values.items() if v == target)
    score_lost = abs(
        declarer_score(pending.before, pending.level) - declarer_score(after, pending.level)
    )
    pending.analysis.decisions.append(
        CardDecision(pending.seat, pending.role, pending.card, best_card, lost, score_lost)
    )


def analyse_record(record: dict[str, Any], through_env: bool = False) -> list[DealAnalysis]:
    """The open-hand analysis of every deal of a Paston record, in order (one for a deal).

    A card's value is the value of the next position where a player has a choice (or the
    deal's final count), so a card's loss is the drop from the position's value: one solve per
    card decision, the per-card values only where a card lost something. The solver keeps its
    table from record to record (:func:`_deal_solver`). ``through_env`` replays a one-deal
    record through the env's steps too (the tests compare the two replays).
    """
    solver = _deal_solver()
    analyses: list[DealAnalysis] = []
    current_deal: Any = None
    pending: _Pending | None = None
    pending_deal: Any = None
    for _, deal, action in _deal_steps(record, through_env):
        if deal is not current_deal:
            if pending is not None:  # the previous deal ended after a forced card
                _resolve(pending, pending_deal.tricks[pending_deal.declarer], solver)
                pending = None
            current_deal = deal
            analyses.append(DealAnalysis())
        if deal.phase != PLAY:
            continue
        analysis = analyses[-1]
        first_lead_value = None
        if analysis.contract is None:
            analysis.contract = check_contract(deal, solver)  # solves this very position already
            first_lead_value = analysis.contract.open_hand_tricks
        if _card_choices(deal) < 2:
            continue
        position = Position.from_deal(deal)
        value = solver.solve(position) if first_lead_value is None else first_lead_value
        if pending is not None:
            _resolve(pending, value, solver)
        role = "declarer" if deal.to_act == deal.declarer else "defender"
        pending = _Pending(analysis, deal.to_act, role, action, deal.level, value, position)
        pending_deal = deal
    if pending is not None:
        _resolve(pending, pending_deal.tricks[pending_deal.declarer], solver)
    return analyses
