"""Belief sampling for Paston: complete deals consistent with one player's observation.

Usage::

    from folkcards.search import paston_belief as pb
    context = pb.public_context(env, "player_1")        # public history, seat, first-deal flag
    worlds = pb.sample_worlds(obs, 64, rng, **context)  # obs = env.observe("player_1")
    # without a context the seat is still required: sample_worlds(obs, 64, rng, observer=1)
    env_w = worlds[0].to_env()                          # a raw env at the same decision point
    worlds[0].hands, worlds[0].trick, worlds[0].trump    # what an open-hand solver needs

**What is sampled.** A :class:`PastonWorld` is the complete hidden state: the three dealt hands,
the prikup and the declarer's discards so far, from which the current hands follow (all masks,
absolute seats). ``sample_worlds`` draws from the exact posterior of the engine's deal
procedure given everything the observer knows, treating the players' choices (bids, discards,
whist) as uninformative: each consistent world has probability proportional to its prior
weight under :func:`folkcards.envs.paston.rules.random_deal`. Policy-informed beliefs are
:func:`weight_worlds` plus :func:`folkcards.search.belief.resample` on top.

**The deal distribution (checked against the engine).** ``random_deal`` draws a uniform
permutation of the 32 cards, reshuffles while the bottom card (deck position 31, which goes to
the dealer) is 7♠, deals, and starts again while a dealt hand is a six-spade hand (7–Q♠ without
K♠/A♠) or, on a game's first deal, J♠ and 7♠ both lie in the prikup. Every split of the cards
into hands and prikup comes from the same number of permutations, and when the dealer holds 7♠
exactly 1 in 10 of them has it at position 31, so the prior weight of a split is 9/10 if the
dealer's dealt hand holds 7♠, else 1, and 0 for a redealt split. Constraints used:

- hand sizes; the cards played by each seat; the observer's own hand (and, for the declarer,
  the prikup and discards);
- revealed voids (the ``voids`` piece): a seat void in a suit holds none of it now (the
  declarer's discards are not constrained: they were made before play);
- the prikup is any 2 of the declarer's 12 cards (dealt hand + prikup), played cards included;
- all-pass: the declarer is the holder of J♠ in the dealt hand, or of 7♠ with J♠ in the
  prikup (after a redeal, J♠ and 7♠ are both in the prikup);
- a game's first deal (``first_deal``): the first bidder is designated the same way, and J♠ and
  7♠ are not both in the prikup;
- no dealt hand is a six-spade hand; the 9/10 weight above.

**How.** The unknown cards are split among the hidden slots (hands now, the prikup before it
is taken, the discards) uniformly among the splits that respect the voids and sizes, exactly,
by :class:`folkcards.search.belief.PartitionSampler`; a non-declarer observer's world also picks
which 2 of the declarer's 12 cards were the prikup, uniformly. The deal constraints then accept
the draw with probability equal to its prior weight (1, 9/10 or 0). This rejection step is the
only one: it is fast except where the designation rules reject most draws (e.g. an all-pass
declarer who turned out void in spades while J♠ is unseen), and after ``10_000 + 1000 * n``
draws without enough acceptances ``ValueError`` reports an inconsistent input.

**History.** The observation does not hold the order of play, and during the discard phase
others cannot tell whether the declarer has discarded one card yet. ``history`` is the current
deal's actions in order (ints, or ``[agent, action]`` pairs as in ``record()["deals"][-1]
["actions"]``); the declarer's discards are hidden from the others, so a non-declarer's
history may hold anything (e.g. ``None``) in their place and the world's own discards are used.
:func:`public_context` builds it from an env. It is needed to build a world's env
(:meth:`PastonWorld.to_env`) and, in the discard phase, to sample; otherwise optional.

**Policy weighting.** :func:`weight_worlds` replays each world's deal and multiplies, for every
action of a player other than the observer (bids, passes, the declarer's discards and contract,
whist/pass, plays), the probability that ``policy`` gives that action at that player's
observation in the world, smoothed as ``(1 - epsilon) * p + epsilon / legal_count`` so that a
deterministic heuristic (0/1 probabilities) never rules a world out. The normalised weights go
to :func:`folkcards.search.belief.resample` (or serve as importance weights directly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from ..envs.cards import PASTON_CARDS, mask_to_cards
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import (
    ALL_CARDS,
    BID_BASE,
    CONTRACT_BASE,
    DISCARD,
    JACK_OF_SPADES,
    NUM_ACTIONS,
    NUM_SEATS,
    PASS,
    SEVEN_OF_SPADES,
    SURRENDER,
    WHIST,
    PastonDeal,
    left_of,
    right_of,
)
from .belief import (
    BeliefSampler,
    PartitionSampler,
    check_attempts,
    check_count,
    check_epsilon,
    check_rng,
    check_seat,
    normalise_log_weights,
    observation_vector,
    replay_log_likelihood,
    resample,
)

__all__ = [
    "PastonWorld",
    "sample_worlds",
    "sample_world_arrays",
    "PastonWorldArrays",
    "public_context",
    "public_prefix",
    "weight_worlds",
    "resample",
    "DEALER_SEVEN_WEIGHT",
]

DEALER_SEVEN_WEIGHT = 0.9
"""Prior weight of a deal where the dealer holds 7♠ (the bottom card is never 7♠)."""

HistoryItem = Any  # an action id, None (a hidden discard), or an [agent, action] pair


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


@dataclass(frozen=True)
class PastonWorld:
    """One complete hidden state consistent with an observation. Seats are absolute; cards
    are 32-bit masks (``1 << card_id``)."""

    observer: int
    phase: str  # "auction", "discard", "contract", "defence", "play" or "over"
    dealer: int
    first_bidder: int
    first_deal: bool
    totals: tuple[int, int, int] | None  # game mode totals, else None
    dealt_hands: tuple[int, int, int]
    prikup: int
    discards: int  # the declarer's discards made so far
    hands: tuple[int, int, int]  # every seat's cards now (the declarer's include the prikup)
    played: tuple[int, int, int]
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the current trick, in play order
    declarer: int | None
    trump: int | None
    active: tuple[int, ...]  # seats in the play (declarer and whisters), () before it
    to_act: int | None
    tricks: tuple[int, int, int]
    history: tuple[HistoryItem, ...] | None = field(default=None, compare=False, repr=False)
    parsed_history: tuple[tuple[int | None, Any], ...] | None = field(
        default=None, compare=False, repr=False
    )  # ``history`` as (seat or None, action) pairs, parsed once for all worlds of a call

    def hand_cards(self, seat: int) -> list[int]:
        """The card ids seat ``seat`` holds now."""
        return mask_to_cards(self.hands[seat])

    def deal_option(self) -> dict[str, list[str]]:
        """The env's ``reset(options={"deal": ...})`` value for this world's deal."""
        return {
            "hands": [[PASTON_CARDS.name(c) for c in mask_to_cards(h)] for h in self.dealt_hands],
            "prikup": [PASTON_CARDS.name(c) for c in mask_to_cards(self.prikup)],
        }

    def reset_options(self) -> dict[str, Any]:
        """All reset options that recreate this deal (``deal``, ``dealer``; game mode extras)."""
        options: dict[str, Any] = {"dealer": self.dealer, "deal": self.deal_option()}
        if self.totals is not None:
            options["totals"] = list(self.totals)
            options["first_deal"] = self.first_deal
        return options

    def solver_position(self) -> Any:
        """The open-hand solver's ``folkcards.search.paston_solver.Position`` of this world
        (play phase only): current hands, trump, declarer, active seats, leader, trick so far
        and the declarer's tricks. Built from the world's fields, without a replay."""
        from .paston_solver import Position

        if self.phase != "play" or self.declarer is None or self.trump is None:
            raise ValueError(f"a solver position needs the play phase, not {self.phase!r}")
        leader = None if self.trick else self.to_act  # a trick's leader is its first pair
        return Position(
            self.hands,
            self.trump,
            self.declarer,
            self.active,
            leader,
            self.trick,
            self.tricks[self.declarer],
        )

    def actions(self, history: Sequence[HistoryItem] | None = None) -> list[int]:
        """The concrete action ids of ``history`` in this world (hidden discards filled in)."""
        return _replay(self, history)[1]

    def to_engine(self, history: Sequence[HistoryItem] | None = None) -> PastonDeal:
        """A :class:`PastonDeal` engine state at the observed decision point."""
        return _replay(self, history)[0]

    def to_env(self, history: Sequence[HistoryItem] | None = None, **env_kwargs: Any) -> Any:
        """A ``paston_v0.raw_env`` reset with this world's deal and stepped through
        ``history`` (default: the history given to :func:`sample_worlds`). ``env_kwargs`` go to
        ``raw_env``; ``episode="game"`` is implied when the observation was a game's."""
        from ..envs.paston.env import raw_env

        actions = self.actions(history)
        if self.totals is not None:
            env_kwargs.setdefault("episode", "game")
        env = raw_env(**env_kwargs)
        env.reset(seed=0, options=self.reset_options())
        for action in actions:
            env.step(action)
        return env


def _history_items(history: Any) -> list[tuple[int | None, Any]]:
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


def _replay(
    world: PastonWorld, history: Sequence[HistoryItem] | None
) -> tuple[PastonDeal, list[int]]:
    if history is None and world.parsed_history is not None:
        items: Sequence[tuple[int | None, Any]] = world.parsed_history
    elif history is None and world.history is None:
        raise ValueError("this world needs the deal's history (list of actions) to be replayed")
    else:
        items = _history_items(history if history is not None else world.history)
    deal = PastonDeal(world.dealt_hands, world.prikup, world.dealer, world.first_bidder)
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


# --- the sampler -------------------------------------------------------------------------------


@dataclass
class _Plan:
    observer: int
    dealer: int
    first_bidder: int
    first_deal: bool
    all_pass: bool
    declarer: int | None
    case: str  # "auction", "declarer", "defender"
    sampler: PartitionSampler
    own_dealt: int  # the observer's dealt hand (cases "declarer" and "defender")
    hand_o: int
    played: tuple[int, int, int]
    prikup: int  # known prikup (case "declarer")
    discards: int  # known discards (case "declarer")
    others: tuple[int, ...]  # seats of the sampler's hand slots
    base: dict[str, Any]


def _bits(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _check_card_pieces(vector: np.ndarray) -> None:
    pieces = vector[: obs_mod.CARD_PIECES_SIZE]
    if not np.all((pieces == 0) | (pieces == 1)):
        raise ValueError("the observation's card pieces must be 0 or 1")


class _Slots(NamedTuple):
    """What one case of :func:`_plan` fixes: the hidden slots and the observer's known cards."""

    case: str  # "auction", "declarer", "defender"
    sampler: PartitionSampler
    own_dealt: int
    others: tuple[int, ...]  # seats of the sampler's hand slots
    prikup: int = 0
    discards: int = 0


def _absolute(observer: int, rel: int) -> int:
    return (observer + rel) % NUM_SEATS


def _absolute_totals(view: obs_mod.PastonView, o: int) -> tuple[int, ...] | None:
    """Game mode totals by absolute seat (``None`` in deal mode)."""
    if view.totals is None:
        return None
    return tuple(int(round(view.totals[(s - o) % NUM_SEATS])) for s in range(NUM_SEATS))


def _first_deal_flag(
    first_deal: Any, dealer: int, first_bidder: int, totals: tuple[int, ...] | None
) -> bool:
    """Whether this is a game's first deal: ``first_deal`` checked against the observation, or
    inferred from it where it tells (a first bidder other than the dealer's left, or a score)."""
    if first_deal is not None and not isinstance(first_deal, (bool, np.bool_)):
        raise ValueError(f"first_deal must be True, False or None, got {first_deal!r}")
    if totals is None:
        if first_deal:
            raise ValueError(
                "first_deal=True applies to game mode only (a deal-mode deal never is)"
            )
        is_first = False
    elif first_deal is not None:
        is_first = bool(first_deal)
        if not is_first and first_bidder != left_of(dealer):
            raise ValueError("first_deal=False, but the first bidder is not the dealer's left")
    elif first_bidder != left_of(dealer):
        is_first = True
    elif any(totals):
        is_first = False
    else:
        raise ValueError(
            "cannot tell from the observation whether this is the game's first deal: "
            "pass first_deal=True or False"
        )
    if not is_first and first_bidder != left_of(dealer):
        raise ValueError("the first bidder is not the dealer's left on a later deal")
    return is_first


def _observed_cards(
    view: obs_mod.PastonView, o: int
) -> tuple[tuple[int, int, int], list[int], int]:
    """Cards played and suit voids by absolute seat, and the observer's hand; checks that no
    card is shown twice."""
    played: list[int] = [0, 0, 0]
    voids = [0, 0, 0]
    for r in range(NUM_SEATS):
        played[_absolute(o, r)] = _bits(view.played[r])
        voids[_absolute(o, r)] = sum(1 << s for s in range(4) if view.voids[r][s])
    hand_o = _bits(view.hand)
    seen = hand_o
    for mask in played:
        if seen & mask:
            raise ValueError("the observation shows a card both in hand and played")
        seen |= mask
    return (played[0], played[1], played[2]), voids, hand_o


def _public_fields(
    view: obs_mod.PastonView,
    o: int,
    played: tuple[int, int, int],
    history: Any,
    items: list[tuple[int | None, Any]] | None,
) -> dict[str, Any]:
    """The :class:`PastonWorld` fields every world of the observation shares, apart from the
    deal's dealer, first bidder, first-deal flag and totals."""
    declarer = _absolute(o, view.declarer) if view.declarer is not None else None
    fields: dict[str, Any] = {
        "observer": o,
        "phase": view.phase,
        "played": played,
        "trick": tuple((_absolute(o, r), c) for r, c in view.trick),
        "declarer": declarer,
        "trump": view.trump,
        "active": (),
        "to_act": _absolute(o, view.to_act) if view.to_act is not None else None,
        "tricks": tuple(view.tricks[(s - o) % NUM_SEATS] for s in range(NUM_SEATS)),
        "history": tuple(history) if history is not None else None,
        "parsed_history": tuple(items) if items is not None else None,
    }
    if view.phase == "play" or (view.phase == "over" and any(view.whist)):
        whisters = [_absolute(o, r) for r in range(NUM_SEATS) if view.whist[r]]
        if declarer is not None:
            fields["active"] = tuple(sorted([declarer, *whisters]))
    return fields


def _auction_slots(
    view: obs_mod.PastonView, o: int, played: tuple[int, int, int], hand_o: int
) -> _Slots:
    """No declarer yet: the two other hands and the prikup are all unknown."""
    if any(played) or view.phase not in ("auction", "over"):
        raise ValueError("the observation has no declarer but is past the auction")
    if _popcount(hand_o) != 10:
        raise ValueError(f"the observer holds {_popcount(hand_o)} cards in the auction, not 10")
    sampler = PartitionSampler(mask_to_cards(ALL_CARDS & ~hand_o), [10, 10, 2], [0, 0, 0], 8)
    return _Slots("auction", sampler, hand_o, (left_of(o), right_of(o)))


def _declarer_slots(
    view: obs_mod.PastonView, o: int, played: tuple[int, int, int], voids: list[int], hand_o: int
) -> _Slots:
    """The observer declares: it knows the prikup and its discards; the defenders' unplayed
    cards are unknown."""
    x, y = left_of(o), right_of(o)
    seen = hand_o | played[0] | played[1] | played[2]
    prikup = _bits(view.prikup)
    discards = _bits(view.discards)
    if _popcount(prikup) != 2:
        raise ValueError("the declarer's observation must show the two prikup cards")
    if discards & (hand_o | seen) or prikup & ~(hand_o | played[o] | discards):
        raise ValueError("the declarer's prikup and discards contradict the hand")
    own_dealt = (hand_o | played[o] | discards) & ~prikup
    if _popcount(own_dealt) != 10:
        raise ValueError("the declarer's hand, plays and discards do not add up to 12 cards")
    unknown = ALL_CARDS & ~(hand_o | discards | played[0] | played[1] | played[2])
    sizes = [10 - _popcount(played[x]), 10 - _popcount(played[y])]
    sampler = PartitionSampler(mask_to_cards(unknown), sizes, [voids[x], voids[y]], 8)
    return _Slots("declarer", sampler, own_dealt, (x, y), prikup, discards)


def _discards_made(view: obs_mod.PastonView, items: list[tuple[int | None, Any]] | None) -> int:
    """How many cards the declarer has discarded (2 once past the discard phase)."""
    if view.phase != "discard":
        return 2
    if items is None:
        raise ValueError(
            "in the discard phase the history is needed to tell how many cards the "
            "declarer has discarded"
        )
    k = sum(1 for _, a in items if a is None or (isinstance(a, (int, np.integer)) and a < 32))
    if k > 1:
        raise ValueError("history has the declarer's discards finished but the phase is discard")
    return k


def _defender_slots(
    view: obs_mod.PastonView,
    o: int,
    d: int,
    played: tuple[int, int, int],
    voids: list[int],
    hand_o: int,
    items: list[tuple[int | None, Any]] | None,
) -> _Slots:
    """Another seat ``d`` declares: the other non-declarer's hand, the declarer's hand and its
    ``k`` discards so far are unknown (which 2 of the declarer's 12 were the prikup is drawn
    later)."""
    x, y = left_of(o), right_of(o)
    other = x if d == y else y
    k = _discards_made(view, items)
    own_dealt = hand_o | played[o]
    if _popcount(own_dealt) != 10:
        raise ValueError("the observer's hand and plays do not add up to 10 cards")
    unknown = ALL_CARDS & ~(hand_o | played[0] | played[1] | played[2])
    sizes = [10 - _popcount(played[other]), 12 - k - _popcount(played[d]), k]
    sampler = PartitionSampler(mask_to_cards(unknown), sizes, [voids[other], voids[d], 0], 8)
    return _Slots("defender", sampler, own_dealt, (other, d))


def _check_observer_fits(items: list[tuple[int | None, Any]] | None, first_bidder: int) -> None:
    """The history's first actor is the first bidder: with agent names in the history, a wrong
    ``observer`` puts the observation's first bidder at another seat."""
    if items and items[0][0] is not None and items[0][0] != first_bidder:
        raise ValueError(
            f"observer does not match the observation: with this observer the first bidder "
            f"is player_{first_bidder}, but the history starts with player_{items[0][0]}"
        )


def _plan(vector: np.ndarray, history: Any, observer: Any, first_deal: Any) -> _Plan:
    """Check one observation and fix everything its worlds share: the sampler of the unknown
    cards and the known fields."""
    if observer is None:
        raise ValueError(
            "sample_worlds needs observer= (the observer's seat, e.g. 2 or 'player_2'): the "
            "observation is relative to its player"
        )
    o = check_seat(observer, NUM_SEATS)
    _check_card_pieces(vector)
    view = obs_mod.decode(vector)
    dealer = _absolute(o, view.dealer)
    first_bidder = _absolute(o, view.first_bidder)
    totals = _absolute_totals(view, o)
    is_first = _first_deal_flag(first_deal, dealer, first_bidder, totals)
    played, voids, hand_o = _observed_cards(view, o)
    items = _history_items(history) if history is not None else None
    _check_observer_fits(items, first_bidder)
    base = {
        "dealer": dealer,
        "first_bidder": first_bidder,
        "first_deal": is_first,
        "totals": totals,
        **_public_fields(view, o, played, history, items),
    }
    declarer = base["declarer"]
    if declarer is None:
        slots = _auction_slots(view, o, played, hand_o)
    elif declarer == o:
        slots = _declarer_slots(view, o, played, voids, hand_o)
    else:
        slots = _defender_slots(view, o, declarer, played, voids, hand_o, items)
    return _Plan(
        observer=o,
        dealer=dealer,
        first_bidder=first_bidder,
        first_deal=is_first,
        all_pass=view.all_pass,
        declarer=declarer,
        case=slots.case,
        sampler=slots.sampler,
        own_dealt=slots.own_dealt,
        hand_o=hand_o,
        played=played,
        prikup=slots.prikup,
        discards=slots.discards,
        others=slots.others,
        base=base,
    )


_U1 = np.uint64(1)
_SIX_RUN = np.uint64(0b00111111)
_HONOURS = np.uint64(0b11000000)


def _nth_card(masks: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Per row, the card id of the ``index``-th (0-based, ascending) set bit of ``masks``."""
    bits = (masks[:, None] >> np.arange(32, dtype=np.uint64)[None, :]) & _U1
    ranks = np.cumsum(bits, axis=1) - 1
    return np.argmax((ranks == index[:, None]) & (bits == 1), axis=1).astype(np.uint64)


def _designee(dealt: np.ndarray) -> np.ndarray:
    """Vectorised :func:`spade_designee` over rows of three dealt hands."""
    out = np.full(len(dealt), -1, dtype=np.int64)
    for card in (SEVEN_OF_SPADES, JACK_OF_SPADES):  # J♠ last, so it wins
        for seat in range(NUM_SEATS):
            out[((dealt[:, seat] >> np.uint64(card)) & _U1) == 1] = seat
    return out


def _draw_arrays(
    plan: _Plan, rng: np.random.Generator, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``m`` candidate worlds as arrays; the rows the deal constraints accept are returned."""
    masks = plan.sampler.sample_many(rng, m)
    o = plan.observer
    played = [np.uint64(p) for p in plan.played]
    dealt = np.zeros((m, NUM_SEATS), dtype=np.uint64)
    hands = np.zeros((m, NUM_SEATS), dtype=np.uint64)
    discards = np.zeros(m, dtype=np.uint64)
    if plan.case == "auction":
        x, y = plan.others
        dealt[:, o], dealt[:, x], dealt[:, y] = plan.own_dealt, masks[:, 0], masks[:, 1]
        prikup = masks[:, 2]
        hands[:] = dealt
    elif plan.case == "declarer":
        x, y = plan.others
        prikup = np.full(m, plan.prikup, dtype=np.uint64)
        discards[:] = plan.discards
        dealt[:, o] = plan.own_dealt
        dealt[:, x] = masks[:, 0] | played[x]
        dealt[:, y] = masks[:, 1] | played[y]
        hands[:, o], hands[:, x], hands[:, y] = plan.hand_o, masks[:, 0], masks[:, 1]
    else:
        x, d = plan.others
        discards = masks[:, 2]
        twelve = masks[:, 1] | played[d] | discards
        i = rng.integers(12, size=m)
        j = rng.integers(11, size=m)
        j += j >= i
        prikup = (_U1 << _nth_card(twelve, i)) | (_U1 << _nth_card(twelve, j))
        dealt[:, o] = plan.own_dealt
        dealt[:, x] = masks[:, 0] | played[x]
        dealt[:, d] = twelve & ~prikup
        hands[:, o], hands[:, x], hands[:, d] = plan.hand_o, masks[:, 0], masks[:, 1]
    accept = np.ones(m, dtype=bool)
    for seat in range(NUM_SEATS):
        accept &= ~(((dealt[:, seat] & _SIX_RUN) == _SIX_RUN) & ((dealt[:, seat] & _HONOURS) == 0))
    if plan.first_deal:
        accept &= _designee(dealt) == plan.first_bidder
    if plan.all_pass:
        accept &= _designee(dealt) == (plan.declarer if plan.declarer is not None else -1)
    dealer_seven = ((dealt[:, plan.dealer] >> np.uint64(SEVEN_OF_SPADES)) & _U1) == 1
    accept &= ~dealer_seven | (rng.random(m) < DEALER_SEVEN_WEIGHT)
    return dealt[accept], hands[accept], prikup[accept], discards[accept]


def sample_worlds(
    observation: Any,
    n: int,
    rng: np.random.Generator,
    *,
    history: Sequence[HistoryItem] | None = None,
    observer: int | str | None = None,
    first_deal: bool | None = None,
) -> list[PastonWorld]:
    """``n`` worlds drawn independently from the exact posterior given one observation.

    :param observation: the observer's vector, or its ``{"observation": ..., ...}`` dict.
    :param n: how many worlds.
    :param rng: a numpy Generator; the same seed and inputs give the same worlds.
    :param history: the deal's actions so far (see the module docstring); stored in each
        world for :meth:`PastonWorld.to_env`; required in the discard phase.
    :param observer: required: the observer's absolute seat (int or ``"player_k"``). The
        observation is relative (seat 0 = self), so the worlds' seats are absolute only with
        this given; ``observer=0`` deliberately keeps the observation's relative frame. When
        ``history`` names its agents (``[agent, action]`` pairs, as :func:`public_context`
        gives), a seat that does not fit the observation (its first bidder) is refused.
    :param first_deal: game mode only: whether this is the game's first deal (the J♠/7♠
        first-bidder rule); inferred when the observation tells, else required.
    """
    arrays = sample_world_arrays(
        observation, n, rng, history=history, observer=observer, first_deal=first_deal
    )
    return [arrays.world(k) for k in range(len(arrays))]


@dataclass(frozen=True)
class PastonWorldArrays:
    """A batch of ``n`` worlds as arrays (card masks as uint64, absolute seats); the fields every
    world of an observation shares are in ``shared`` (those of :class:`PastonWorld`)."""

    dealt_hands: np.ndarray  # (n, 3)
    hands: np.ndarray  # (n, 3): every seat's cards now
    prikup: np.ndarray  # (n,)
    discards: np.ndarray  # (n,)
    shared: dict[str, Any]

    def __len__(self) -> int:
        return len(self.prikup)

    def world(self, k: int) -> PastonWorld:
        """World ``k`` as a :class:`PastonWorld`."""
        dh = [int(x) for x in self.dealt_hands[k]]
        hh = [int(x) for x in self.hands[k]]
        return PastonWorld(
            dealt_hands=(dh[0], dh[1], dh[2]),
            prikup=int(self.prikup[k]),
            discards=int(self.discards[k]),
            hands=(hh[0], hh[1], hh[2]),
            **self.shared,
        )

    def solver_positions(self) -> list[Any]:
        """Every world's solver position (play phase), for ``solve_many``/``move_values_many``."""
        from .paston_solver import Position

        shared = self.shared
        if shared["phase"] != "play" or shared["declarer"] is None:
            raise ValueError(f"a solver position needs the play phase, not {shared['phase']!r}")
        trick = shared["trick"]
        leader = None if trick else shared["to_act"]
        won = shared["tricks"][shared["declarer"]]
        return [
            Position(
                [int(h) for h in row],
                shared["trump"],
                shared["declarer"],
                shared["active"],
                leader,
                trick,
                won,
            )
            for row in self.hands
        ]


def sample_world_arrays(
    observation: Any,
    n: int,
    rng: np.random.Generator,
    *,
    history: Sequence[HistoryItem] | None = None,
    observer: int | str | None = None,
    first_deal: bool | None = None,
) -> PastonWorldArrays:
    """:func:`sample_worlds` as arrays (no Python object per world): the same worlds for the
    same arguments and generator state."""
    vector = observation_vector(observation, lambda s: s == obs_mod.OBSERVATION_SIZE, "Paston")
    n = check_count(n)
    rng = check_rng(rng)
    plan = _plan(vector, history, observer, first_deal)
    parts: list[tuple[np.ndarray, ...]] = []
    got = 0
    attempts = 0
    limit = 10_000 + 1000 * n
    while got < n:
        # batches sized from the acceptance so far (a function of the inputs only: deterministic)
        rate = max(got, 1) / attempts if attempts else 1.0
        batch = min(max(int((n - got) / rate * 1.1) + 8, 16), 50_000)
        part = _draw_arrays(plan, rng, batch)
        parts.append(part)
        got += len(part[0])
        attempts += batch
        if got < n:
            check_attempts(got, n, attempts, limit)
    dealt, hands, prikup, discards = (np.concatenate([p[j] for p in parts])[:n] for j in range(4))
    return PastonWorldArrays(dealt, hands, prikup, discards, dict(plan.base))


def public_context(env: Any, observer: int | str) -> dict[str, Any]:
    """``history``, ``observer`` and ``first_deal`` for :func:`sample_worlds`, as ``observer``
    knows them at the table: the current deal's actions with the declarer's discards replaced
    by ``None`` unless ``observer`` is the declarer."""
    raw = getattr(env, "unwrapped", env)
    o = check_seat(observer, NUM_SEATS)
    deal = raw.state_deal()
    history: list[Any] = []
    cards_seen = 0
    for seat, action in deal.history:
        if action < 32 and deal.declarer >= 0 and cards_seen < 2:
            cards_seen += 1  # the first two card actions of a deal are the discards
            history.append([f"player_{seat}", action if seat == o else None])
        else:
            history.append([f"player_{seat}", action])
    record = raw.record()
    first_deal = record["deals"][-1]["first_deal"] if raw.episode == "game" else None
    return {"history": history, "observer": o, "first_deal": first_deal}


def log_likelihoods(
    worlds: Sequence[PastonWorld],
    policy: Any,
    *,
    epsilon: float = 0.05,
    history: Sequence[HistoryItem] | None = None,
) -> np.ndarray:
    """Per world, the log-probability of the other players' actions under ``policy``."""
    epsilon = check_epsilon(epsilon)
    out = np.empty(len(worlds))
    for index, world in enumerate(worlds):
        actions = world.actions(history)
        deal = PastonDeal(world.dealt_hands, world.prikup, world.dealer, world.first_bidder)
        totals = list(world.totals) if world.totals is not None else None
        out[index] = replay_log_likelihood(
            deal,
            actions,
            world.observer,
            partial(obs_mod.encode, totals=totals),
            NUM_ACTIONS,
            policy,
            epsilon,
        )
    return out


def weight_worlds(
    worlds: Sequence[PastonWorld],
    policy: Any,
    *,
    epsilon: float = 0.05,
    history: Sequence[HistoryItem] | None = None,
) -> np.ndarray:
    """Normalised weights of ``worlds``: the likelihood of the other players' actions under
    ``policy`` (see the module docstring). ``policy``: an ``action_probabilities`` object, a
    callable ``observation -> probabilities``, or an agent with ``act``."""
    return normalise_log_weights(log_likelihoods(worlds, policy, epsilon=epsilon, history=history))


def public_prefix(view: obs_mod.PastonView) -> list[int | None]:
    """The deal's public actions up to the play (or up to now, before it), rebuilt from an
    observation (relative seats): the auction (at each turn the seat bids the next level if the observation shows it bid
    that level, else it passes), the declarer's two discards (``None``: hidden), the contract
    and the defence calls made so far (the declarer's left first)."""
    actions: list[int | None] = []
    passed = [False, False, False]
    seat, level, high_bidder = view.first_bidder, 0, None
    while True:
        bids_next = level < 5 and level in view.bids[seat]
        if view.phase == "auction" and not bids_next and not view.auction_passed[seat]:
            break  # this seat is to act now
        if bids_next:
            actions.append(BID_BASE + level)
            high_bidder, level = seat, level + 1
            if level == 5:
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
    actions += [None, None]
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


def world_start(world: PastonWorld) -> tuple[dict[str, Any], list[int]]:
    """``(reset options, actions)`` that lead a raw env to ``world`` (as :meth:`PastonWorld.to_env`)."""
    return world.reset_options(), world.actions()


SAMPLER = BeliefSampler(public_context, sample_worlds, world_start)
"""This game's belief sampler (the registry's ``belief`` piece)."""
