"""The actions of a Paston deal as one player knows them, and replaying them in a sampled world.

The observation does not hold the order of play, and during the discard phase others cannot
tell whether the declarer has discarded one card yet. A *history* is the current deal's actions
in order (ints, or ``[agent, action]`` pairs as in ``record()["deals"][-1]["actions"]``); the
declarer's discards are hidden from the others, so a non-declarer's history may hold anything
(e.g. ``None``) in their place and the world's own discards are used
(:func:`replay_history`). :func:`public_prefix` rebuilds the public part of it (the auction, the
contract and the defence) from an observation alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ..envs.cards import mask_to_cards
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import (
    BID_BASE,
    CONTRACT_BASE,
    DISCARD,
    NUM_ACTIONS,
    NUM_SEATS,
    PASS,
    SURRENDER,
    WHIST,
    PastonDeal,
)
from ..envs.paston.variant import PASTON, PastonVariant
from .belief import check_seat

__all__ = ["HistoryItem", "HistoryWorld", "history_items", "public_prefix", "replay_history"]

HistoryItem = Any  # an action id, None (a hidden discard), or an [agent, action] pair


class HistoryWorld(Protocol):
    """What a world shows of itself to be replayed (a ``PastonWorld``): absolute seats, card
    masks, and the history it was sampled with (as given, and parsed)."""

    @property
    def observer(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def first_bidder(self) -> int: ...
    @property
    def dealt_hands(self) -> tuple[int, int, int]: ...
    @property
    def prikup(self) -> int: ...
    @property
    def discards(self) -> int: ...
    @property
    def history(self) -> tuple[HistoryItem, ...] | None: ...
    @property
    def parsed_history(self) -> tuple[tuple[int | None, Any], ...] | None: ...
    @property
    def variant(self) -> PastonVariant: ...


def history_items(history: Any) -> list[tuple[int | None, Any]]:
    """``[(seat or None, action), ...]`` from ints / None / ``[agent, action]`` pairs."""
    if isinstance(history, (str, bytes, dict)) or not hasattr(history, "__iter__"):
        raise ValueError(f"history must be a list of actions, got {history!r}")
    items: list[tuple[int | None, Any]] = []
    for item in history:
        if isinstance(item, (list, tuple)):
            if len(item) != 2:
                raise ValueError(
                    f"a history entry must be an action or [agent, action], got {item!r}"
                )
            items.append((check_seat(item[0], NUM_SEATS, "history agent"), item[1]))
        else:
            items.append((None, item))
    return items


def replay_history(
    world: HistoryWorld, history: Sequence[HistoryItem] | None
) -> tuple[PastonDeal, list[int]]:
    """The engine state of ``world`` after ``history`` (default: the world's own) and the
    world's action ids for it (hidden discards filled in from the world)."""
    if history is None and world.parsed_history is not None:
        items: Sequence[tuple[int | None, Any]] = world.parsed_history
    elif history is None and world.history is None:
        raise ValueError("this world needs the deal's history (list of actions) to be replayed")
    else:
        items = history_items(history if history is not None else world.history)
    deal = PastonDeal(
        world.dealt_hands, world.prikup, world.dealer, world.first_bidder, world.variant
    )
    hidden_discards = mask_to_cards(world.discards)
    actions: list[int] = []
    for seat, raw in items:
        if deal.to_act < 0:
            raise ValueError("history goes on after the deal is over")
        if seat is not None and seat != deal.to_act:
            raise ValueError(f"history: player_{seat} acts where player_{deal.to_act} is to act")
        if deal.phase == DISCARD and deal.to_act != world.observer:
            if not hidden_discards:
                raise ValueError("history has more discards than the world")
            action = hidden_discards.pop(0)
        else:
            if isinstance(raw, (bool, np.bool_)) or not isinstance(raw, (int, np.integer)):
                raise ValueError(f"history action {raw!r} is not an action id")
            action = int(raw)
        if not 0 <= action < NUM_ACTIONS or not deal.legal_bits() >> action & 1:
            raise ValueError(
                f"history action {action} is illegal for player_{deal.to_act} in this world"
            )
        deal.apply(action)
        actions.append(action)
    return deal, actions


def public_prefix(view: obs_mod.PastonView, variant: PastonVariant = PASTON) -> list[int | None]:
    """The deal's public actions up to the play (or up to now, before it), rebuilt from an
    observation (relative seats) of a deal of ``variant``: the auction (at each turn the seat
    bids the next level of the ladder if the observation shows it bid that level, else it
    passes), the declarer's discards (``None``: hidden), the contract and the defence calls
    made so far (the declarer's left first)."""
    actions: list[int | None] = []
    passed = [False, False, False]
    seat, high, high_bidder = view.first_bidder, -1, None
    while True:
        level = variant.next_bid[high + 1]
        bids_next = level >= 0 and level in view.bids[seat]
        if view.phase == "auction" and not bids_next and not view.auction_passed[seat]:
            break  # this seat is to act now
        if bids_next:
            actions.append(BID_BASE + level)
            high_bidder, high = seat, level
            if level == variant.ladder[-1]:
                break
        else:
            actions.append(PASS)
            passed[seat] = True
        remaining = [s for s in range(3) if not passed[s]]
        if not remaining or (len(remaining) == 1 and remaining[0] == high_bidder):
            break
        seat = (seat + 1) % 3
        while passed[seat]:
            seat = (seat + 1) % 3
    if view.declarer is None:
        return actions
    if view.phase == "discard":  # only the declarer acts now and sees its discards
        return actions + [None] * len(view.discards)
    actions += [None] * variant.prikup_size
    if view.surrendered:
        return actions + [SURRENDER]
    if view.contract is None:
        return actions
    actions.append(CONTRACT_BASE + view.contract)
    for r in ((view.declarer + 1) % 3, (view.declarer + 2) % 3):
        if view.whist[r]:
            actions.append(WHIST)
        elif view.defence_pass[r]:
            actions.append(PASS)
        else:
            break
    return actions
