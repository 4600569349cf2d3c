"""The public history of a Tri Palki round, and replaying it in a sampled world.

Other players' swap action ids are not public (the id's positions would reveal the order of a
hidden hand), so the history is a list of *public events* in order, all seats absolute:
``["centre", [3 cards]]`` (the dealt centre, first), ``["wash", [3 cards]]`` (the cards that
replaced a washed centre), ``["pass", seat]``, ``["swap", seat, gave, took]``,
``["swap_all", seat, [gave], [took]]`` and ``["announce", seat]``. :func:`public_history` builds
it from an env; :func:`parse_history` checks it once (:class:`ParsedHistory`).

A world (:class:`folkcards.search.tri_palki_belief.TriPalkiWorld`) rebuilds the original deck
from it (:func:`rebuild_deck`: undoing the swaps on its hands, putting the drawn reserve cards
back in front of its reserve), re-deals, and turns each event into the world's action id
(:func:`replay_history`); where the world offers a player the announcement and the history
shows none, that player declines. If the history ends where a player would decide whether to
announce, the world declines for them (the table as the observer sees it), unless the
observation shows the observer itself deciding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..envs.cards import cards_to_mask, mask_to_cards
from ..envs.tri_palki.rules import (
    ANNOUNCE,
    ANNOUNCE_DECISION,
    NO_ANNOUNCE,
    OVER,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
    TRIPLES,
    TriPalkiRound,
    deal_order,
)
from .belief import check_seat

__all__ = [
    "HistoryWorld",
    "ParsedHistory",
    "parse_history",
    "public_history",
    "rebuild_deck",
    "replay_history",
]


class HistoryWorld(Protocol):
    """What a world shows of itself to be replayed (a ``TriPalkiWorld``): seats are absolute,
    hands and the centre 36-bit masks, ``reserve`` the undrawn reserve, top first."""

    @property
    def num_players(self) -> int: ...
    @property
    def observer(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def alive(self) -> tuple[bool, ...]: ...
    @property
    def hands(self) -> tuple[int, ...]: ...
    @property
    def centre(self) -> int: ...
    @property
    def reserve(self) -> tuple[int, ...]: ...
    @property
    def deck_mask(self) -> int: ...
    @property
    def observer_deciding(self) -> bool: ...


def _event(event: Any) -> tuple[str, list[Any]]:
    if isinstance(event, (str, bytes)) or not isinstance(event, (list, tuple)) or not event:
        raise ValueError(f"a history event must be a list like ['pass', seat], got {event!r}")
    kind = event[0]
    args = list(event[1:])
    arity = {"centre": 1, "wash": 1, "pass": 1, "swap": 3, "swap_all": 3, "announce": 1}
    if kind not in arity or len(args) != arity[kind]:
        raise ValueError(f"unknown or malformed history event {event!r}")
    return kind, args


def _triple_mask(cards: Any, what: str) -> int:
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__iter__"):
        raise ValueError(f"{what} must be a list of 3 card ids, got {cards!r}")
    mask = cards_to_mask(cards)
    if mask not in TRIPLES:
        raise ValueError(f"{what} must be 3 different card ids, got {cards!r}")
    return mask


def _card_bit(card: Any, what: str) -> int:
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)):
        raise ValueError(f"{what} must be a card id, got {card!r}")
    if not 0 <= card < 36:
        raise ValueError(f"{what} must be a card id 0..35, got {card!r}")
    return 1 << int(card)


@dataclass(frozen=True)
class ParsedHistory:
    """A checked public history: the world-independent facts, computed once."""

    dealt_centre: int
    events: tuple[tuple[str, int, int, int], ...]  # (kind, seat, a, b) after the dealt centre
    drawn: tuple[int, ...]  # reserve cards drawn by washes, in order
    final_centre: int


def parse_history(history: Any, num_players: int) -> ParsedHistory:
    """``history`` (a list of public events, or one parsed already) checked and parsed;
    ``ValueError`` naming the first malformed event."""
    if isinstance(history, ParsedHistory):
        return history
    if isinstance(history, (str, bytes, dict)) or not hasattr(history, "__iter__"):
        raise ValueError(f"a Tri Palki history must be a list of events, got {history!r}")
    raw = [_event(e) for e in history]
    if not raw or raw[0][0] != "centre":
        raise ValueError("a Tri Palki history starts with ['centre', [the 3 dealt centre cards]]")
    dealt_centre = _triple_mask(raw[0][1][0], "the dealt centre")
    centre = dealt_centre
    drawn: list[int] = []
    events: list[tuple[str, int, int, int]] = []
    for kind, args in raw[1:]:
        if kind == "centre":
            raise ValueError("the history has two 'centre' events")
        if kind == "wash":
            new = _triple_mask(args[0], "a wash's new centre")
            drawn.extend(mask_to_cards(new))
            centre = new
            events.append((kind, -1, new, 0))
            continue
        seat = check_seat(args[0], num_players, "history seat")
        if kind == "swap":
            gave, took = _card_bit(args[1], "swap gave"), _card_bit(args[2], "swap took")
            centre = centre & ~took | gave
            events.append((kind, seat, gave, took))
        elif kind == "swap_all":
            gave = _triple_mask(args[1], "swap_all gave")
            took = _triple_mask(args[2], "swap_all took")
            centre = gave
            events.append((kind, seat, gave, took))
        else:
            events.append((kind, seat, 0, 0))
    return ParsedHistory(dealt_centre, tuple(events), tuple(drawn), centre)


def rebuild_deck(world: HistoryWorld, history: Any) -> list[int]:
    """The deck in deal order (the env's ``deck`` option: 36 cards, or a variant's short deck,
    ``world.deck_mask``) that leads to ``world`` through ``history``."""
    parsed = parse_history(history, world.num_players)
    if parsed.final_centre != world.centre:
        raise ValueError("the history's centre does not end as the observed centre")
    hands = list(world.hands)
    for kind, seat, gave, took in reversed(parsed.events):
        if kind == "swap":
            hands[seat] = hands[seat] & ~took | gave
        elif kind == "swap_all":
            hands[seat] = gave
    deck: list[int] = []
    dealt_centre = TRIPLES[parsed.dealt_centre].cards
    order = deal_order(world.dealer, world.alive)
    dealt = {}
    for seat in order:
        if hands[seat] not in TRIPLES:
            raise ValueError(f"the history leaves player_{seat} without a three-card dealt hand")
        dealt[seat] = TRIPLES[hands[seat]].cards
    for r in range(3):
        deck.extend(dealt[seat][r] for seat in order)
        deck.append(dealt_centre[r])
    deck.extend(parsed.drawn)
    deck.extend(world.reserve)
    if len(deck) != bin(world.deck_mask).count("1") or cards_to_mask(deck) != world.deck_mask:
        raise ValueError(f"the history and the world do not make a {len(deck)}-card deck")
    return deck


def replay_history(
    world: HistoryWorld, history: Any, deck: list[int] | None = None
) -> tuple[TriPalkiRound, list[int]]:
    """The engine state of ``world`` at the observed decision point, and the world's action
    ids for the events of ``history`` (``deck``: :func:`rebuild_deck`'s, if known)."""
    parsed = parse_history(history, world.num_players)
    if deck is None:
        deck = rebuild_deck(world, parsed)
    rnd = TriPalkiRound(deck, world.dealer, world.alive)
    actions: list[int] = []

    def apply(action: int) -> None:
        rnd.apply(action)
        actions.append(action)

    for kind, seat, gave, took in parsed.events:
        if kind == "wash":
            continue
        while rnd.phase == ANNOUNCE_DECISION and not (kind == "announce" and seat == rnd.to_act):
            apply(NO_ANNOUNCE)
        if rnd.phase == OVER:
            raise ValueError("the history goes on after the round is over")
        if seat != rnd.to_act:
            raise ValueError(f"history: player_{seat} acts where player_{rnd.to_act} is to act")
        if kind == "announce":
            if rnd.phase != ANNOUNCE_DECISION:
                raise ValueError(f"history: player_{seat} announces without a normal 31")
            apply(ANNOUNCE)
        elif kind == "pass":
            apply(PASS)
        elif kind == "swap_all":
            if rnd.hands[seat] != gave or rnd.centre != took:
                raise ValueError("history swap_all is impossible in this world")
            apply(SWAP_ALL)
        else:
            hand = TRIPLES[rnd.hands[seat]].bits
            centre = TRIPLES[rnd.centre].bits
            if gave not in hand or took not in centre:
                raise ValueError("a history swap is impossible in this world")
            apply(SWAP_BASE + 3 * hand.index(gave) + centre.index(took))
    if rnd.phase == ANNOUNCE_DECISION and not (
        rnd.to_act == world.observer and world.observer_deciding
    ):
        apply(NO_ANNOUNCE)
    return rnd, actions


def public_history(env: Any, observer: int | str | None = None) -> list[list[Any]]:
    """The current round's public events (see the module docstring) from an env, as any
    player at the table sees them; ``observer``'s own decisions not to announce are left out
    like everyone else's (the world re-creates them)."""
    raw = getattr(env, "unwrapped", env)
    if observer is not None:
        check_seat(observer, raw.num_players)
    rnd = raw.state_round()
    fresh = TriPalkiRound(rnd.deck, rnd.dealer, rnd.alive)
    events: list[list[Any]] = [["centre", mask_to_cards(rnd.dealt_centre)]]
    reserve = rnd.deck[len(rnd.deck) - len(rnd.reserve) :]
    washes = 0

    def note_washes() -> None:
        nonlocal washes
        while washes < len(fresh.washes):
            events.append(["wash", sorted(int(c) for c in reserve[3 * washes : 3 * washes + 3])])
            washes += 1

    note_washes()
    for seat, action in rnd.history:
        if action == PASS:
            events.append(["pass", seat])
        elif SWAP_BASE <= action < SWAP_ALL:
            gave, took = fresh.swap_cards(action)
            events.append(["swap", seat, gave, took])
        elif action == SWAP_ALL:
            events.append(
                ["swap_all", seat, mask_to_cards(fresh.hands[seat]), mask_to_cards(fresh.centre)]
            )
        elif action == ANNOUNCE:
            events.append(["announce", seat])
        fresh.apply(action)
        note_washes()
    return events
