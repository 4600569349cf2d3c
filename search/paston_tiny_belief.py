"""Belief sampling for Paston tiny: every deal consistent with a seat's view, enumerated.

Usage::

    from folkcards.search import paston_tiny_belief as ptb
    context = ptb.public_context(env, "player_1")   # the seat's history, as at the table
    worlds, weights = ptb.exact_worlds(obs, **context)
    drawn = ptb.tiny_sample_worlds(obs, 64, rng, **context)

**The worlds.** A world is a :class:`folkcards.search.paston_belief.PastonWorld` of the
variant: the three dealt hands, the prikup and the declarer's discard (if made). The seven-card
deck has 630 deals for a dealer, so :func:`exact_worlds` tries every one of them whose dealt
hand for the observer is the one its observation shows, and for a hidden discard every card the
declarer held: a candidate is consistent iff replaying the seat's history in it makes every
action legal for the seat to act, and gives the observer the observation it has now (vector
and legal actions). Nothing is derived by hand: a void, the all-pass designee, the first
bidder of a game's first deal, the declarer's taken prikup all follow from the replay.

**The weights.** As in :mod:`folkcards.search.paston_deal_constraints`, the players' choices
are treated as uninformative, so a world's posterior weight is its deal's prior weight under
the variant's shuffle (:func:`prior_weight`): the bottom card goes to the dealer and is never
the 7♠, so a deal in which the dealer holds the 7♠ comes from half as many deck orders as
another (weight 1/2 on the tiny deck, 9/10 on the full one); a deal dealt again (none on the
tiny deck) weighs 0. :func:`tiny_sample_worlds` draws from the consistent worlds in proportion
to these weights, which is the exact posterior of the env's deal and of OpenSpiel's chance
nodes for the variant.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from math import factorial
from typing import Any

import numpy as np

from ..envs.cards import cards_to_mask, mask_to_cards
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import (
    DISCARD,
    NUM_ACTIONS,
    NUM_SEATS,
    PastonDeal,
    left_of,
    redeal_reason,
    spade_designee,
)
from ..envs.paston.variant import PASTON_TINY, PastonVariant
from ..envs.paston.vocabulary import PHASE_NAMES
from .belief import BeliefSampler, check_count, check_rng, check_seat, observation_vector
from .paston_belief import PastonWorld, public_context, world_start
from .paston_deal_constraints import absolute_totals, first_deal_flag
from .paston_history import history_items, public_prefix

__all__ = [
    "TINY_SAMPLER",
    "all_deals",
    "exact_worlds",
    "prior_weight",
    "tiny_sample_worlds",
]

MAX_DEALS = 100_000
"""The most deals a variant may have for :func:`all_deals` to list them."""

Deal = tuple[tuple[int, int, int], int]  # dealt hands by absolute seat, prikup (card masks)


def prior_weight(
    hands: Sequence[int], dealer: int, first_deal: bool, variant: PastonVariant
) -> float:
    """The relative probability of a deal under the variant's shuffle (1 for most deals).

    Every split of the deck into hands and prikup comes from the same number of deck orders,
    except that the bottom card (the dealer's last) is never ``bottom_card_banned``: with that
    card in the dealer's hand, ``1 / hand_size`` of its orders are shuffled again. A deal that
    is dealt again (``redeal_reason``) weighs 0."""
    if redeal_reason(hands, first_deal, variant) is not None:
        return 0.0
    banned = variant.bottom_card_banned
    if banned is not None and hands[dealer] >> banned & 1:
        return 1.0 - 1.0 / variant.hand_size
    return 1.0


@lru_cache(maxsize=16)
def all_deals(variant: PastonVariant, dealer: int) -> tuple[Deal, ...]:
    """Every split of the variant's deck into the three hands and the prikup (a fixed order);
    ``ValueError`` for a deck with more than :data:`MAX_DEALS` of them."""
    size = variant.hand_size
    count = factorial(variant.num_cards) // (factorial(size) ** 3 * factorial(variant.prikup_size))
    if count > MAX_DEALS:
        raise ValueError(
            f"{variant.name} has {count:,} deals for a dealer: too many to list "
            f"(at most {MAX_DEALS:,}); use its sampler"
        )
    deck = variant.all_cards
    deals: list[Deal] = []
    first, second = left_of(dealer), left_of(left_of(dealer))
    for a in combinations(mask_to_cards(deck), size):
        rest_a = deck & ~cards_to_mask(a)
        for b in combinations(mask_to_cards(rest_a), size):
            rest_b = rest_a & ~cards_to_mask(b)
            for c in combinations(mask_to_cards(rest_b), size):
                hands = [0, 0, 0]
                hands[first], hands[second], hands[dealer] = (
                    cards_to_mask(a),
                    cards_to_mask(b),
                    cards_to_mask(c),
                )
                deals.append(((hands[0], hands[1], hands[2]), rest_b & ~cards_to_mask(c)))
    return tuple(deals)


def _replays(
    deal: PastonDeal, items: Sequence[tuple[int | None, Any]], observer: int
) -> Iterator[PastonDeal]:
    """The engine states after replaying ``items`` in ``deal``: one for every card the declarer
    could have discarded where the history does not say (another seat's discard, or ``None``),
    none where an action is not an action id legal for the seat
    to act, or a named seat is not the one to act."""
    for index, (seat, raw) in enumerate(items):
        if deal.to_act < 0 or (seat is not None and seat != deal.to_act):
            return
        bits = deal.legal_bits()
        if deal.phase == DISCARD and (deal.to_act != observer or raw is None):  # not given
            for card in mask_to_cards(bits):
                branch = deal.copy()
                branch.apply(card)
                yield from _replays(branch, items[index + 1 :], observer)
            return
        if isinstance(raw, (bool, np.bool_)) or not isinstance(raw, (int, np.integer)):
            return
        if not 0 <= raw < NUM_ACTIONS or not bits >> int(raw) & 1:
            return
        deal.apply(int(raw))
    yield deal


def _own_dealt(view: obs_mod.PastonView) -> int:
    """The observer's dealt hand as its observation shows it: its hand, the cards it played
    and discarded, less the prikup it took."""
    held = cards_to_mask(view.hand) | cards_to_mask(view.played[0]) | cards_to_mask(view.discards)
    return held & ~cards_to_mask(view.prikup)


def observed_history(view: obs_mod.PastonView, variant: PastonVariant) -> list[int | None]:
    """The deal's actions rebuilt from one observation (relative seats): the public calls
    (:func:`folkcards.search.paston_history.public_prefix`, the hidden discards ``None``) and
    the cards played, in order. The order of a completed trick is not in the observation
    except for the first (the declarer leads it), so ``ValueError`` past it."""
    actions = public_prefix(view, variant)
    if view.phase not in ("play", "over") or view.declarer is None or view.contract is None:
        return actions
    if not any(view.whist):  # both passed: no card is played
        return actions
    if sum(view.tricks) > 1:
        raise ValueError("past the first trick the order of play needs the deal's history")
    active = [view.declarer, *(r for r in range(NUM_SEATS) if view.whist[r])]
    in_trick = {seat: card for seat, card in view.trick}
    if sum(view.tricks) == 1:
        seat = view.declarer
        for _ in active:
            cards = [c for c in view.played[seat] if in_trick.get(seat) != c]
            if len(cards) != 1:
                raise ValueError("the observation's played cards do not make one trick")
            actions.append(cards[0])
            seat = (
                (seat + 1) % NUM_SEATS
                if (seat + 1) % NUM_SEATS in active
                else (seat + 2) % NUM_SEATS
            )
    return actions + [card for _, card in view.trick]


def exact_worlds(
    observation: Any,
    *,
    observer: int | str | None = None,
    history: Sequence[Any] | None = None,
    first_deal: bool | None = None,
    variant: PastonVariant = PASTON_TINY,
) -> tuple[list[PastonWorld], np.ndarray]:
    """Every world of ``variant`` consistent with one observation, and their posterior
    probabilities (summing to 1), in a fixed order.

    :param observation: the observer's vector, or its ``{"observation": ...}`` dict (with an
        ``action_mask``, a world must give the observer those legal actions too).
    :param observer: required: the observer's absolute seat (int or ``"player_k"``).
    :param history: the deal's actions so far, as :func:`public_context` gives them (the
        declarer's discard ``None`` for the others); ``None``: rebuilt from the observation
        (:func:`observed_history`), as a player without the record does.
    :param first_deal: game mode only: whether this is the game's first deal (inferred from
        the observation where it tells).
    :param variant: the Paston variant (its deck must have at most :data:`MAX_DEALS` deals).
    """
    vector = observation_vector(observation, lambda s: s == obs_mod.OBSERVATION_SIZE, "Paston")
    if observer is None:
        raise ValueError("exact_worlds needs observer= (the observer's seat, e.g. 2 or 'player_2')")
    o = check_seat(observer, NUM_SEATS)
    mask = observation.get("action_mask") if isinstance(observation, dict) else None
    legal = None if mask is None else cards_to_mask(np.flatnonzero(np.asarray(mask)).tolist())
    if history is None:
        history = observed_history(obs_mod.decode(vector), variant)
    items = tuple(history_items(history))
    vector_bytes = vector.astype(np.float32).tobytes()
    worlds, probabilities = _exact(vector_bytes, legal, o, items, first_deal, variant)
    return list(worlds), probabilities.copy()


@lru_cache(maxsize=4096)
def _exact(
    vector_bytes: bytes,
    legal: int | None,
    o: int,
    items: tuple[tuple[int | None, Any], ...],
    first_deal: bool | None,
    variant: PastonVariant,
) -> tuple[tuple[PastonWorld, ...], np.ndarray]:
    vector = np.frombuffer(vector_bytes, dtype=np.float32)
    view = obs_mod.decode(vector)
    dealer = (o + view.dealer) % NUM_SEATS
    totals = absolute_totals(view, o)
    is_first = first_deal_flag(first_deal, dealer, (o + view.first_bidder) % NUM_SEATS, totals)
    totals_list = list(totals) if totals is not None else None
    own = _own_dealt(view)
    history = tuple([f"player_{s}", a] if s is not None else a for s, a in items)
    worlds: list[PastonWorld] = []
    weights: list[float] = []
    for hands, prikup in all_deals(variant, dealer):
        if hands[o] != own:  # the observation shows the observer's dealt hand
            continue
        weight = prior_weight(hands, dealer, is_first, variant)
        if weight == 0:
            continue
        first_bidder = spade_designee(hands, variant) if is_first else left_of(dealer)
        start = PastonDeal(hands, prikup, dealer, first_bidder, variant)
        for deal in _replays(start, items, o):
            if not np.array_equal(obs_mod.encode(deal, o, totals_list), vector):
                continue
            if legal is not None and legal != (deal.legal_bits() if deal.to_act == o else 0):
                continue
            worlds.append(_world(deal, hands, prikup, o, is_first, totals, history, items))
            weights.append(weight)
    if not worlds:
        raise ValueError(
            f"no deal of {variant.name} is consistent with the observation and history "
            "(they contradict each other)"
        )
    probabilities = np.asarray(weights) / sum(weights)
    probabilities.setflags(write=False)
    return tuple(worlds), probabilities


def _world(
    deal: PastonDeal,
    hands: tuple[int, int, int],
    prikup: int,
    o: int,
    first_deal: bool,
    totals: tuple[int, ...] | None,
    history: tuple[Any, ...],
    items: tuple[tuple[int | None, Any], ...],
) -> PastonWorld:
    declarer = deal.declarer if deal.declarer >= 0 else None
    return PastonWorld(
        observer=o,
        phase=PHASE_NAMES[deal.phase],
        dealer=deal.dealer,
        first_bidder=deal.first_bidder,
        first_deal=first_deal,
        totals=(totals[0], totals[1], totals[2]) if totals is not None else None,
        dealt_hands=hands,
        prikup=prikup,
        discards=deal.discards,
        hands=(deal.hands[0], deal.hands[1], deal.hands[2]),
        played=(deal.played[0], deal.played[1], deal.played[2]),
        trick=tuple(deal.trick),
        declarer=declarer,
        trump=deal.trump if deal.trump >= 0 else None,
        active=tuple(deal.active),
        to_act=deal.to_act if deal.to_act >= 0 else None,
        tricks=(deal.tricks[0], deal.tricks[1], deal.tricks[2]),
        history=history,
        parsed_history=items,
        variant=deal.variant,
    )


def tiny_sample_worlds(
    observation: Any, n: int, rng: np.random.Generator, **context: Any
) -> list[PastonWorld]:
    """``n`` worlds of Paston tiny drawn independently from :func:`exact_worlds` in proportion
    to their probabilities (the exact posterior); ``context`` as :func:`public_context` gives it."""
    n = check_count(n)
    rng = check_rng(rng)
    worlds, probabilities = exact_worlds(observation, **context)
    return [worlds[int(i)] for i in rng.choice(len(worlds), size=n, p=probabilities)]


TINY_SAMPLER = BeliefSampler(public_context, tiny_sample_worlds, world_start)
"""Paston tiny's belief sampler (its registry entry's ``belief`` piece)."""
