"""Belief sampling for Tri Palki: every hand and the reserve order, from one player's view.

Usage::

    from folkcards.search import tri_palki_belief as tb
    context = tb.public_context(env, "player_2")        # public history, seat, env kwargs
    worlds = tb.sample_worlds(obs, 64, rng, **context)  # obs = env.observe("player_2")
    env_w = worlds[0].to_env()                          # a raw env at the same decision point

**What is sampled.** A :class:`TriPalkiWorld` holds every seat's hand now and the undrawn
reserve, top first (the centre and washed cards are public). ``sample_worlds`` draws from the
exact posterior given the observation, treating the players' choices as uninformative: the
shuffle is uniform (the engine deals from ``rng.permutation(36)`` with no redeal), and every
public event (the dealt centre, washes and the cards they bring, each swap's cards) is a
deterministic function of the deck, so every assignment of the unseen cards that agrees with
the observation is equally likely. Constraints:

- the observer's hand; the centre; washed cards; for each other surviving seat the cards it is
  publicly known to hold (``known``) and 3 cards in all; the reserve count;
- the announcer (if another seat announced) holds a normal hand worth 31 now (the announcement
  needs one, and the announcer's hand does not change afterwards);
- nothing else: swaps and passes are always legal, and whether a player was offered (or
  declined) the announcement is private, so a player not announcing says nothing.

**How.** Exact and without rejection: if another seat announced, its unseen cards are drawn
uniformly from the completions of its known cards to one of the 24 normal 31 hands (every
completion leaves the same number of ways to deal the rest, so this is exact); the remaining
unseen cards are shuffled uniformly into the other hands' unseen places and the reserve order.
Cost is one permutation per world, so there is no slow case.

**History.** Other players' swap action ids are not public (the id's positions would reveal
the order of a hidden hand), so the history is a list of *public events* in order, all seats
absolute: ``["centre", [3 cards]]`` (the dealt centre, first), ``["wash", [3 cards]]`` (the
cards that replaced a washed centre), ``["pass", seat]``, ``["swap", seat, gave, took]``,
``["swap_all", seat, [gave], [took]]`` and ``["announce", seat]``. :func:`public_history`
builds it from an env. A world rebuilds the original deck from it (undoing the swaps on its
hands, putting the drawn reserve cards back in front of its reserve), re-deals, and turns each
event into the world's action id; where the world offers a player the announcement and the
history shows none, that player declines. If the history ends where a player would decide
whether to announce, the world declines for them (the table as the observer sees it), unless
the observation shows the observer itself deciding. Worlds of a match with eliminated players cannot be loaded into an env
(the env has no reset option for eliminations); sampling them works.

**Policy weighting.** :func:`weight_worlds` replays each world and multiplies, for every
action of another player (passes, swaps, announce and the private decline), the probability
``policy`` gives it at that player's observation in the world, smoothed as
``(1 - epsilon) * p + epsilon / legal_count``; :func:`folkcards.search.belief.resample` draws
from the weighted worlds.

**What an agent sees.** An agent is shown the table only at its own decisions, not the public
history. :func:`reconstruct_steps` rebuilds, from two consecutive views of one observer (and
its move in between), every sequence of the other players' decisions that leads from one to the
other (:class:`OpponentStep`: passes, swaps with the cards given and taken, swaps of all three,
and the end of each turn, where a normal 31 would have been offered the announcement);
:func:`reconstruct_opening` does the same from the deal to the observer's first decision,
trying every three cards seen as the dealt centre. Swaps are public, so the ambiguity left is
small (which hidden card each of two players gave, what a wash brought): every fitting history
is kept. :func:`steps_log_likelihood` then scores a world's hands by how likely those decisions
are under an opponent model the caller passes in (:class:`OpponentModel`; ``pimc`` passes its
rollout policy, the heuristic's core rules), summed over the histories: walking backwards undoes
each player's own swaps, which gives the hand it held at each decision.
:func:`worlds_log_likelihood` does it for many worlds in compiled code, once per distinct hand
of each player (a player's factor depends only on its own hand).

**Bounded work.** Both searches count their work and stop at a budget, so a decision costs at
most a known amount whatever the other players do: a reconstruction tries at most ``budget``
candidate moves (:data:`RECONSTRUCTION_BUDGET`) and then gives up; the likelihood evaluates at
most ``budget`` modelled decisions (:data:`LIKELIHOOD_BUDGET`) and, over it, keeps only each
player's most recent decisions. The budgets count work, not time: results are deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from typing import Any, NamedTuple, Protocol

import numpy as np
from numba import njit

from ..envs.cards import TRI_PALKI_CARDS, mask_to_cards
from ..envs.compile_notice import install as _announce_compiles
from ..envs.tri_palki import observation as obs_mod
from ..envs.tri_palki.kernels import may_announce
from ..envs.tri_palki.rules import (
    ALL_CARDS,
    ANNOUNCE,
    ANNOUNCE_DECISION,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_ANNOUNCE,
    NUM_ACTIONS,
    OVER,
    PASS,
    SUIT_MASKS,
    SWAP_ALL,
    SWAP_BASE,
    TRIPLES,
    TriPalkiRound,
    deal_order,
)
from .belief import (
    BeliefSampler,
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
    "TriPalkiWorld",
    "sample_worlds",
    "public_history",
    "public_context",
    "weight_worlds",
    "log_likelihoods",
    "resample",
    "NORMAL_31_HANDS",
    "OpponentStep",
    "reconstruct_steps",
    "reconstruct_opening",
    "policy_move",
    "steps_log_likelihood",
    "worlds_log_likelihood",
    "OpponentModel",
    "Weighting",
    "LIKELIHOOD_BUDGET",
]

NORMAL_31_HANDS: tuple[int, ...] = tuple(
    sorted(mask for mask, info in TRIPLES.items() if info.normal_31)
)
"""The 24 three-card masks that are a normal hand worth 31 (A and two ten-point cards)."""

_VALID_SIZES = {obs_mod.observation_size(n): n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def _bits(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


@dataclass(frozen=True)
class TriPalkiWorld:
    """One complete hidden state consistent with an observation. Seats are absolute; hands,
    centre and washed cards are 36-bit masks; ``reserve`` is the undrawn reserve, top first."""

    num_players: int
    observer: int
    dealer: int
    alive: tuple[bool, ...]
    sticks: tuple[int, ...]  # 4 = eliminated
    hands: tuple[int, ...]  # 0 for an eliminated seat
    centre: int
    washed: int
    reserve: tuple[int, ...]
    announcer: int | None
    observer_deciding: bool = False  # the observer is deciding whether to announce
    history: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)
    parsed_history: _Parsed | None = field(default=None, compare=False, repr=False)
    env_kwargs: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    def hand_cards(self, seat: int) -> list[int]:
        return mask_to_cards(self.hands[seat])

    def deck(self, history: Sequence[Any] | None = None) -> list[int]:
        """The 36 cards in deal order (the env's ``deck`` option) that lead to this world."""
        return _rebuild_deck(self, self._history(history))

    def actions(self, history: Sequence[Any] | None = None) -> list[int]:
        """The world's action ids for the public events of ``history``."""
        return _replay(self, self._history(history))[1]

    def to_engine(self, history: Sequence[Any] | None = None) -> TriPalkiRound:
        """A :class:`TriPalkiRound` engine state at the observed decision point."""
        return _replay(self, self._history(history))[0]

    def to_env(self, history: Sequence[Any] | None = None, **env_kwargs: Any) -> Any:
        """A ``tri_palki_v0.raw_env`` dealt this world's deck and stepped through the history.

        ``env_kwargs`` go to ``raw_env`` (default: those given to :func:`sample_worlds`, e.g.
        by :func:`public_context`); ``max_turns`` must be the original env's for the ``turns``
        piece of the observation to agree."""
        from ..envs.tri_palki.env import raw_env

        if not all(self.alive):
            raise ValueError(
                "a world with eliminated players cannot be loaded into the env "
                "(raw_env.reset has no option for eliminations)"
            )
        history = self._history(history)
        deck = _rebuild_deck(self, history)
        actions = _replay(self, history, deck)[1]
        kwargs = dict(self.env_kwargs or {})
        kwargs.update(env_kwargs)
        kwargs["num_players"] = self.num_players
        env = raw_env(**kwargs)
        env.reset(
            seed=0,
            options={"deck": deck, "dealer": self.dealer, "sticks": list(self.sticks)},
        )
        for action in actions:
            env.step(action)
        return env

    def _history(self, history: Sequence[Any] | None) -> Any:
        if history is not None:
            return history
        if self.parsed_history is not None:
            return self.parsed_history
        if self.history is None:
            raise ValueError("this world needs the round's public history to be replayed")
        return self.history


# --- history -----------------------------------------------------------------------------------


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
    mask = _bits(cards)
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
class _Parsed:
    """A checked public history: the world-independent facts, computed once."""

    dealt_centre: int
    events: tuple[tuple[str, int, int, int], ...]  # (kind, seat, a, b) after the dealt centre
    drawn: tuple[int, ...]  # reserve cards drawn by washes, in order
    final_centre: int


def _parse(history: Any, num_players: int) -> _Parsed:
    if isinstance(history, _Parsed):
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
    return _Parsed(dealt_centre, tuple(events), tuple(drawn), centre)


def _rebuild_deck(world: TriPalkiWorld, history: Any) -> list[int]:
    parsed = _parse(history, world.num_players)
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
    if len(deck) != 36 or _bits(deck) != ALL_CARDS:
        raise ValueError("the history and the world do not make a 36-card deck")
    return deck


def _replay(
    world: TriPalkiWorld, history: Any, deck: list[int] | None = None
) -> tuple[TriPalkiRound, list[int]]:
    parsed = _parse(history, world.num_players)
    if deck is None:
        deck = _rebuild_deck(world, parsed)
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


def public_context(env: Any, observer: int | str) -> dict[str, Any]:
    """``history``, ``observer`` and ``env_kwargs`` for :func:`sample_worlds` from an env."""
    raw = getattr(env, "unwrapped", env)
    o = check_seat(observer, raw.num_players)
    kwargs = {"max_turns": raw.max_turns, "episode": raw.episode, "reward": raw.reward_mode}
    return {"history": public_history(raw, o), "observer": o, "env_kwargs": kwargs}


# --- the sampler -------------------------------------------------------------------------------


class _Seen(NamedTuple):
    """The cards and seats an observation shows, by absolute seat."""

    alive: list[bool]
    sticks: list[int]
    known: list[int]  # cards each seat is publicly known to hold
    hand_o: int
    centre: int
    washed: int


def _decode(vector: np.ndarray, observer: Any) -> tuple[obs_mod.TriPalkiView, int, int]:
    """The decoded view, the number of players and the observer's seat; checks the card
    pieces are 0 or 1."""
    num = _VALID_SIZES[vector.shape[0]]
    o = check_seat(observer, num)
    card_end = obs_mod.observation_offsets(num)["reserve_count"]
    if not np.all((vector[:card_end] == 0) | (vector[:card_end] == 1)):
        raise ValueError("the observation's card pieces must be 0 or 1")
    return obs_mod.decode(vector.astype(np.float32), num), num, o


def _seen(view: obs_mod.TriPalkiView, o: int, num: int) -> _Seen:
    """The view's seats turned absolute and its cards turned into masks."""
    alive = [True] * num
    sticks = [0] * num
    known = [0] * num
    for r in range(num):
        s = (o + r) % num
        alive[s] = not view.eliminated[r]
        sticks[s] = view.sticks[r]
        known[s] = _bits(view.known[r])
    return _Seen(alive, sticks, known, _bits(view.hand), _bits(view.centre), _bits(view.washed))


def _hidden_places(seen: _Seen, o: int, num: int, reserve_count: int) -> tuple[int, list[int]]:
    """The unseen cards (mask) and the other surviving seats, whose unknown cards with the
    reserve take them; checks that the observation's cards fit together."""
    known = seen.known
    shown = 0
    for mask in (seen.hand_o, seen.centre, seen.washed, *(known[s] for s in range(num) if s != o)):
        if shown & mask:
            raise ValueError("the observation shows a card in two places")
        shown |= mask
    if _popcount(seen.centre) != 3 or (seen.alive[o] and _popcount(seen.hand_o) != 3):
        raise ValueError("the observation needs a three-card centre and a three-card own hand")
    if known[o] & ~seen.hand_o:
        raise ValueError("the observer is known to hold a card not in its hand")
    others = [s for s in range(num) if s != o and seen.alive[s]]
    for s in range(num):
        if s != o and not seen.alive[s] and known[s]:
            raise ValueError(f"eliminated player_{s} is shown holding cards")
        if _popcount(known[s]) > 3:
            raise ValueError(f"player_{s} is known to hold more than 3 cards")
    unknown = ALL_CARDS & ~shown
    sizes = [3 - _popcount(known[s]) for s in others]
    if sum(sizes) + reserve_count != _popcount(unknown):
        raise ValueError(
            f"{_popcount(unknown)} unseen cards cannot fill {sum(sizes)} hidden hand places "
            f"and a reserve of {reserve_count}"
        )
    return unknown, others


def _announcer_completions(
    view: obs_mod.TriPalkiView, seen: _Seen, unknown: int, o: int, num: int
) -> tuple[int | None, list[int]]:
    """The announcer's absolute seat (or ``None``) and, when it is another seat, the unseen
    cards that can complete its known cards to a normal 31."""
    announcer = (o + view.announcer) % num if view.announcer is not None else None
    if announcer is not None and not seen.alive[announcer]:
        raise ValueError("the announcer is an eliminated player")
    completions: list[int] = []
    if announcer is not None and announcer != o:
        k = seen.known[announcer]
        completions = [h & ~k for h in NORMAL_31_HANDS if h & k == k and (h & ~k) & ~unknown == 0]
        if not completions:
            raise ValueError(f"the announcer player_{announcer} cannot hold a normal 31")
    elif announcer == o and not TRIPLES[seen.hand_o].normal_31:
        raise ValueError("the observer announced without a normal 31")
    return announcer, completions


def _draw_world(
    rng: np.random.Generator,
    seen: _Seen,
    o: int,
    announcer: int | None,
    completions: list[int],
    unknown_cards: np.ndarray,
    slot_seats: list[int],
    base: dict[str, Any],
) -> TriPalkiWorld:
    """One world: the announcer's completion (if any), then one shuffle of the remaining unseen
    cards into the hidden hand places (in seat order) and the reserve."""
    hands = list(seen.known)
    hands[o] = seen.hand_o
    pool = unknown_cards
    if completions:
        extra = completions[int(rng.integers(len(completions)))]
        hands[announcer] |= extra  # type: ignore[index]
        pool = pool[[not extra >> int(c) & 1 for c in pool]]
    order = pool[rng.permutation(len(pool))].tolist()
    start = 0
    for seat in slot_seats:
        need = 3 - _popcount(hands[seat])
        for card in order[start : start + need]:
            hands[seat] |= 1 << card
        start += need
    return TriPalkiWorld(hands=tuple(hands), reserve=tuple(order[start:]), **base)


def _check_observer_fits(parsed: _Parsed, seen: _Seen, dealer: int, num: int) -> None:
    """The history as the observation shows it from ``observer``: the dealer moves first, and
    every seat is publicly known to hold the cards its swaps took and it still holds (§9).
    A wrong ``observer`` turns the observation's seats and misses one of these."""
    moves = [seat for kind, seat, _, _ in parsed.events if kind != "wash"]
    if moves and moves[0] != dealer:
        raise ValueError(
            f"observer does not match the observation: with this observer the dealer (who moves "
            f"first) is player_{dealer}, but the history starts with player_{moves[0]}"
        )
    known = [0] * num
    for kind, seat, gave, took in parsed.events:
        if kind == "swap":
            known[seat] = (known[seat] & ~gave) | took
        elif kind == "swap_all":
            known[seat] = took
    for s in range(num):
        if known[s] != seen.known[s]:
            raise ValueError(
                f"observer does not match the observation: the history's swaps leave player_{s} "
                f"publicly holding {_names(known[s])}, the observation {_names(seen.known[s])}"
            )


def _names(mask: int) -> str:
    cards = [TRI_PALKI_CARDS.name(c) for c in mask_to_cards(mask)]
    return " ".join(cards) if cards else "no card"


def sample_worlds(
    observation: Any,
    n: int,
    rng: np.random.Generator,
    *,
    history: Sequence[Any] | None = None,
    observer: int | str | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> list[TriPalkiWorld]:
    """``n`` worlds drawn independently from the exact posterior given one observation.

    :param observation: the observer's vector (its length gives the number of players), or its
        ``{"observation": ..., ...}`` dict.
    :param n: how many worlds.
    :param rng: a numpy Generator; the same seed and inputs give the same worlds.
    :param history: the round's public events (see the module docstring); not needed to sample,
        stored in each world for :meth:`TriPalkiWorld.to_env`.
    :param observer: required: the observer's absolute seat (int or ``"player_k"``). The
        observation is relative (seat 0 = self), so the worlds' seats are absolute only with
        this given; ``observer=0`` deliberately keeps the observation's relative frame. With a
        ``history``, a seat that does not fit the observation (the dealer, who moves first, or
        the cards each seat is publicly known to hold after its swaps) is refused.
    :param env_kwargs: ``raw_env`` arguments stored for :meth:`TriPalkiWorld.to_env`.
    """
    vector = observation_vector(observation, lambda s: s in _VALID_SIZES, "Tri Palki")
    n = check_count(n)
    rng = check_rng(rng)
    if observer is None:
        raise ValueError(
            "sample_worlds needs observer= (the observer's seat, e.g. 2 or 'player_2'): the "
            "observation is relative to its player"
        )
    view, num, o = _decode(vector, observer)
    seen = _seen(view, o, num)
    dealer = (o + view.dealer) % num
    parsed = _parse(history, num) if history is not None else None
    if parsed is not None:
        _check_observer_fits(parsed, seen, dealer, num)
    unknown, others = _hidden_places(seen, o, num, view.reserve_count)
    announcer, completions = _announcer_completions(view, seen, unknown, o, num)
    base = {
        "num_players": num,
        "observer": o,
        "dealer": dealer,
        "alive": tuple(seen.alive),
        "sticks": tuple(seen.sticks),
        "centre": seen.centre,
        "washed": seen.washed,
        "announcer": announcer,
        "observer_deciding": view.phase == "announce",
        "history": tuple(history) if history is not None else None,
        "parsed_history": parsed,
        "env_kwargs": dict(env_kwargs) if env_kwargs else None,
    }
    unknown_cards = np.array(mask_to_cards(unknown), dtype=np.int64)
    if not completions:
        return _draw_worlds(rng, seen, o, unknown_cards, others, base, n)
    return [
        _draw_world(rng, seen, o, announcer, completions, unknown_cards, others, base)
        for _ in range(n)
    ]


def _draw_worlds(
    rng: np.random.Generator,
    seen: _Seen,
    o: int,
    unknown_cards: np.ndarray,
    slot_seats: list[int],
    base: dict[str, Any],
    n: int,
) -> list[TriPalkiWorld]:
    """``n`` of :func:`_draw_world`'s worlds when no announcer's hand is to complete, drawn
    together: ``rng.permuted`` shuffles each row with the same draws as one
    ``rng.permutation`` per world, so the worlds (and the generator's state after) are the
    same."""
    hands = list(seen.known)
    hands[o] = seen.hand_o
    orders = rng.permuted(np.tile(unknown_cards, (n, 1)), axis=1)
    masks = np.tile(np.array(hands, dtype=np.int64), (n, 1))
    start = 0
    for seat in slot_seats:
        need = 3 - _popcount(hands[seat])
        masks[:, seat] |= np.sum(np.left_shift(1, orders[:, start : start + need]), axis=1)
        start += need
    return [
        TriPalkiWorld(hands=tuple(h), reserve=tuple(r), **base)
        for h, r in zip(masks.tolist(), orders[:, start:].tolist(), strict=True)
    ]


# --- policy weighting --------------------------------------------------------------------------


def log_likelihoods(
    worlds: Sequence[TriPalkiWorld],
    policy: Any,
    *,
    epsilon: float = 0.05,
    history: Sequence[Any] | None = None,
    max_turns: int | None = None,
) -> np.ndarray:
    """Per world, the log-probability of the other players' actions under ``policy``.

    ``max_turns`` fills the ``turns`` piece of the observations given to the policy (default:
    the worlds' ``env_kwargs``, else 200: the ``turns`` piece never counts past 200)."""
    epsilon = check_epsilon(epsilon)
    out = np.empty(len(worlds))
    for index, world in enumerate(worlds):
        hist = world._history(history)
        deck = _rebuild_deck(world, hist)
        actions = _replay(world, hist, deck)[1]
        limit = max_turns or (world.env_kwargs or {}).get("max_turns", 200)
        rnd = TriPalkiRound(deck, world.dealer, world.alive)
        sticks = list(world.sticks)
        out[index] = replay_log_likelihood(
            rnd,
            actions,
            world.observer,
            partial(obs_mod.encode, sticks=sticks, max_turns=limit),
            NUM_ACTIONS,
            policy,
            epsilon,
        )
    return out


def weight_worlds(
    worlds: Sequence[TriPalkiWorld],
    policy: Any,
    *,
    epsilon: float = 0.05,
    history: Sequence[Any] | None = None,
    max_turns: int | None = None,
) -> np.ndarray:
    """Normalised weights of ``worlds`` by the likelihood of the other players' actions under
    ``policy`` (see the module docstring)."""
    return normalise_log_weights(
        log_likelihoods(worlds, policy, epsilon=epsilon, history=history, max_turns=max_turns)
    )


# --- the history an agent sees: observations at its own decisions ------------------------------

# Step kinds of an observed opponent decision (relative seats, masks), see :class:`OpponentStep`.
STEP_PASS, STEP_SWAP, STEP_SWAP_ALL, STEP_OFFER = "pass", "swap", "swap_all", "offer"
_MAX_NODES = 4000  # search nodes per reconstructed interval before giving up
_MAX_HISTORIES = 8  # more histories fitting one interval than this: too ambiguous, None
RECONSTRUCTION_BUDGET = 50_000
"""Default work budget of one reconstruction: candidate moves tried before giving up."""


class OpponentStep(NamedTuple):
    """One decision of another player, as the observer could reconstruct it (relative seats).

    ``kind`` is pass / swap / swap_all / offer. For a swap, ``gave`` and ``took`` are one-card
    masks; for swap all, the whole hand given and the centre taken. ``offer`` is the end of a turn
    without a wash: a player then holding a normal 31 (and no announcement made) is offered the
    announcement, ``gave`` = 1 if it announced. The other fields are the public table the player
    faced: the centre, the reserve count, the consecutive passes, whether someone had announced
    and how many players survive."""

    seat: int
    kind: str
    gave: int
    took: int
    centre: int
    reserve: int
    passes: int
    announced: bool
    survivors: int


class _Public(NamedTuple):
    """The public table between two of the observer's decisions (relative seats)."""

    centre: int
    known: tuple[int, ...]
    hidden: tuple[int, ...]  # unknown cards in each hand
    washed: int
    reserve: int
    passes: int
    to_act: int
    announcer: int  # -1: none
    final_left: int
    own: int  # the observer's hand


def _view_masks(view: obs_mod.TriPalkiView) -> tuple[int, tuple[int, ...], int, int]:
    known = tuple(_bits(k) for k in view.known)
    return _bits(view.centre), known, _bits(view.washed), _bits(view.hand)


def _visible(view: obs_mod.TriPalkiView) -> int:
    centre, known, washed, hand = _view_masks(view)
    mask = centre | washed | hand
    for k in known:
        mask |= k
    return mask


def _next_seat(seat: int, alive: Sequence[bool]) -> int:
    n = len(alive)
    for step in range(1, n + 1):
        if alive[(seat + step) % n]:
            return (seat + step) % n
    return seat


def _after_own_action(view: obs_mod.TriPalkiView, action: int) -> _Public | None:
    """The public table when the observer's turn has ended after ``action`` at ``view``, or
    ``None`` if the observer acts again (a wash, an announcement offer) or the round ends."""
    alive = [not e for e in view.eliminated]
    survivors = sum(alive)
    centre, known, washed, hand = _view_masks(view)
    known_l = list(known)
    announcer = -1 if view.announcer is None else view.announcer
    final_left = sum(view.final_turn_pending)
    passes = view.passes if announcer < 0 else 0
    announced_now = False
    if view.phase == "announce":
        if action == ANNOUNCE:
            announcer, final_left, announced_now = 0, survivors - 1, True
    elif action == PASS:
        passes += 1
        if announcer < 0 and passes >= survivors:
            return None
        if announcer < 0 and TRIPLES[hand].normal_31:
            return None
    elif SWAP_BASE <= action <= SWAP_ALL:
        passes = 0
        if action == SWAP_ALL:
            hand, centre = centre, hand
            known_l[0] = hand
        else:
            h, c = divmod(action - SWAP_BASE, 3)
            gave, took = TRIPLES[hand].bits[h], TRIPLES[centre].bits[c]
            hand, centre = hand ^ gave ^ took, centre ^ gave ^ took
            known_l[0] = known_l[0] & ~gave | took
        if TRIPLES[centre].one_suit or (announcer < 0 and TRIPLES[hand].normal_31):
            return None
    else:
        return None
    if announcer >= 0 and not announced_now:
        final_left -= 1
        if final_left <= 0:
            return None
    hidden = tuple(
        3 - _popcount(known_l[s]) if alive[s] and s != 0 else 0 for s in range(len(alive))
    )
    return _Public(
        centre, tuple(known_l), hidden, washed, view.reserve_count, passes,
        _next_seat(0, alive), announcer, final_left, hand,
    )  # fmt: skip


def reconstruct_steps(
    before: obs_mod.TriPalkiView,
    action: int,
    after: obs_mod.TriPalkiView,
    *,
    budget: int = RECONSTRUCTION_BUDGET,
    counter: dict[str, int] | None = None,
) -> list[tuple[OpponentStep, ...]] | None:
    """Every sequence of other players' decisions that leads from the observer's decision
    ``before`` (where it played ``action``) to its next decision ``after`` (both views of the
    same observer; relative seats).

    Swaps are public, but the observer sees the table only at its own turns, so some details
    can be ambiguous (which hidden card a player gave when two players gave one each; which
    cards a wash brought): every public history that fits both views is returned (``None``
    when more than 8 fit). ``[()]`` if nobody else acted (the observer acts again after a wash or an offer to
    announce); ``None`` if the views do not fit one round (a new round began) or the search
    gave up (after 4,000 players' turns, or when ``budget`` candidate moves were not enough;
    the moves tried, at most ``budget``, are added to ``counter["reconstruction"]``)."""
    if before.num_players != after.num_players or after.phase == "over":
        return None
    if after.to_act != 0 or before.turn_fraction > after.turn_fraction:
        return None
    start = _after_own_action(before, action)
    if start is None:
        same = (
            after.reserve_count <= before.reserve_count and _visible(before) & ~_visible(after) == 0
        )
        return [()] if same else None
    if after.phase != "action":
        return None
    seen_before = start.centre | start.washed | start.own
    for k in start.known:
        seen_before |= k
    seen_after = _visible(after)
    if seen_before & ~seen_after or start.own != _bits(after.hand):
        return None
    return _fit([(start, seen_after & ~seen_before)], after, budget, counter)


def reconstruct_opening(
    view: obs_mod.TriPalkiView,
    *,
    budget: int = RECONSTRUCTION_BUDGET,
    counter: dict[str, int] | None = None,
) -> list[tuple[OpponentStep, ...]] | None:
    """Every sequence of other players' decisions from the deal to the observer's first
    decision ``view`` (relative seats), as :func:`reconstruct_steps`. The dealt centre is not
    seen, so every three cards seen now (not in the observer's hand) are tried as the dealt
    centre; ``None`` when a wash has happened (the dealt cards are then too uncertain) or the
    search gave up; ``[()]`` when the observer deals (it acts first)."""
    if view.phase != "action" or view.to_act != 0 or view.washed or view.announcer is not None:
        return None
    alive = [not e for e in view.eliminated]
    if round(view.turn_fraction * obs_mod.TURNS_HORIZON) >= sum(alive):
        return None  # more turns than one round of the table: not the first decision
    if view.dealer == 0:
        return [()]
    hand = _bits(view.hand)
    seen = _visible(view) & ~hand
    n = view.num_players
    hidden = tuple(3 if alive[s] and s != 0 else 0 for s in range(n))
    starts = []
    for combo in combinations(mask_to_cards(seen), 3):
        centre = _bits(combo)
        if TRIPLES[centre].one_suit:
            continue
        start = _Public(
            centre, (0,) * n, hidden, 0, view.reserve_count, 0, view.dealer, -1, 0, hand
        )
        starts.append((start, seen & ~centre))
    return _fit(starts, view, budget, counter)


def _fit(
    starts: Sequence[tuple[_Public, int]],
    after: obs_mod.TriPalkiView,
    budget: int = RECONSTRUCTION_BUDGET,
    counter: dict[str, int] | None = None,
) -> list[tuple[OpponentStep, ...]] | None:
    """The other players' decisions that lead from one of ``starts`` (a public table and the
    cards still to appear) to the observer's decision ``after``; ``None`` if there are none,
    too many, or the search needed more than ``budget`` candidate moves (added to
    ``counter["reconstruction"]``)."""
    fit = _Fit(after, budget)
    for start, pool in starts:
        fit.search(start, (), pool)
    if counter is not None:
        counter["reconstruction"] = counter.get("reconstruction", 0) + fit.work
    if not fit.results or fit.gave_up():
        return None
    return fit.results


class _Fit:
    """The depth-first search of :func:`_fit`: from a public table, each other player's
    possible decisions in turn (pass, a single swap, swap all; washes and their replacement
    cards), kept when the table reaches the observer's decision ``after``. Every public fact of
    ``after`` (known cards at the end of each player's turn, the centre, washed cards, reserve,
    announcer, passes) prunes the search."""

    def __init__(self, after: obs_mod.TriPalkiView, budget: int):
        self.centre, self.known, self.washed, _ = _view_masks(after)
        self.announcer = -1 if after.announcer is None else after.announcer
        self.passes = after.passes if self.announcer < 0 else 0
        self.reserve = after.reserve_count
        self.alive = [not e for e in after.eliminated]
        self.survivors = sum(self.alive)
        self.results: list[tuple[OpponentStep, ...]] = []
        self.nodes = 0  # players' turns searched
        self.work = 0  # candidate moves tried
        self.budget = budget
        self.spent = False  # a candidate move was refused: the budget is spent

    def gave_up(self) -> bool:
        return self.nodes > _MAX_NODES or len(self.results) > _MAX_HISTORIES or self.spent

    def try_one(self) -> bool:
        """Count one candidate move; ``False`` (the search gives up) once ``budget`` are."""
        if self.work >= self.budget:
            self.spent = True
            return False
        self.work += 1
        return True

    def search(self, ps: _Public, path: tuple[OpponentStep, ...], pool: int) -> None:
        """From table ``ps``: the observer is to act (keep ``path`` if the table is ``after``'s
        and every card due to appear has), or the player to act decides."""
        if ps.to_act != 0:
            self.act(ps, ps.to_act, path, pool)
            return
        if (
            pool == 0
            and ps.centre == self.centre
            and ps.washed == self.washed
            and ps.reserve == self.reserve
            and ps.announcer == self.announcer
            and (ps.passes if ps.announcer < 0 else 0) == self.passes
            and path not in self.results
        ):
            self.results.append(path)

    def act(self, ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        """Every decision of ``seat`` at table ``ps``."""
        self.nodes += 1
        if self.nodes > _MAX_NODES or len(self.results) > _MAX_HISTORIES:
            return
        face = (ps.centre, ps.reserve, ps.passes if ps.announcer < 0 else 0, ps.announcer >= 0)
        passes = ps.passes + 1
        if ps.announcer >= 0 or passes < self.survivors:
            step = OpponentStep(seat, STEP_PASS, 0, 0, *face, self.survivors)
            self.turn_end(ps._replace(passes=passes), seat, path + (step,), pool)
        self.single_swaps(ps, seat, path, pool, face)
        self.swaps_of_all(ps, seat, path, pool, face)

    def single_swaps(
        self,
        ps: _Public,
        seat: int,
        path: tuple[OpponentStep, ...],
        pool: int,
        face: tuple[int, int, int, bool],
    ) -> None:
        """One card for one: a known card given, or a hidden one that shows later."""
        known, hidden = ps.known[seat], ps.hidden[seat]
        givable = known | (pool if hidden else 0)
        for took in TRIPLES[ps.centre].bits:
            for gave_card in mask_to_cards(givable):
                if not self.try_one():
                    return
                gave = 1 << gave_card
                from_hidden = not known & gave
                new_centre = ps.centre & ~took | gave
                kept = known & ~gave | took
                if kept != self.known[seat] and not TRIPLES[new_centre].one_suit:
                    continue  # the turn would end with the wrong known cards
                new_known = list(ps.known)
                new_known[seat] = kept
                new_hidden = list(ps.hidden)
                new_hidden[seat] = hidden - from_hidden
                state = ps._replace(
                    centre=new_centre, known=tuple(new_known), hidden=tuple(new_hidden), passes=0
                )
                step = OpponentStep(seat, STEP_SWAP, gave, took, *face, self.survivors)
                self.washes(state, seat, path + (step,), pool & ~gave if from_hidden else pool)

    def swaps_of_all(
        self,
        ps: _Public,
        seat: int,
        path: tuple[OpponentStep, ...],
        pool: int,
        face: tuple[int, int, int, bool],
    ) -> None:
        """All three: the known cards and any hidden ones become the centre (unless the turn
        goes on after a wash, the known cards end as the centre taken)."""
        known, hidden = ps.known[seat], ps.hidden[seat]
        final = ps.centre == self.known[seat]
        if not final and sum(1 for m in SUIT_MASKS if known & m) > 1:
            return
        for combo in combinations(mask_to_cards(pool), hidden):
            if not self.try_one():
                return
            extra = _bits(combo)
            given = known | extra
            if not final and not TRIPLES[given].one_suit:
                continue
            new_known = list(ps.known)
            new_known[seat] = ps.centre
            new_hidden = list(ps.hidden)
            new_hidden[seat] = 0
            state = ps._replace(
                centre=given, known=tuple(new_known), hidden=tuple(new_hidden), passes=0
            )
            step = OpponentStep(seat, STEP_SWAP_ALL, given, ps.centre, *face, self.survivors)
            self.washes(state, seat, path + (step,), pool & ~extra)

    def washes(self, ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        """After an action of ``seat``: the turn ends, or the centre is washed (each
        replacement is any three cards still to appear) and the same player acts again."""
        if not TRIPLES[ps.centre].one_suit:
            self.turn_end(ps, seat, path, pool)
            return
        if ps.reserve < 3:
            return  # the round ended
        for combo in combinations(mask_to_cards(pool), 3):
            if self.nodes > _MAX_NODES or not self.try_one():
                return
            new = _bits(combo)
            state = ps._replace(centre=new, washed=ps.washed | ps.centre, reserve=ps.reserve - 3)
            if TRIPLES[new].one_suit:
                self.washes(state, seat, path, pool & ~new)
            else:
                self.act(state, seat, path, pool & ~new)

    def turn_end(self, ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        """The end of ``seat``'s turn: its known cards must be ``after``'s; the announcement
        offer (taken if ``after`` shows it as the announcer); the next player's turn."""
        if ps.known[seat] != self.known[seat]:
            return
        announces = ps.announcer < 0 and self.announcer == seat
        offer = OpponentStep(
            seat, STEP_OFFER, int(announces), 0, ps.centre, ps.reserve, ps.passes,
            ps.announcer >= 0, self.survivors,
        )  # fmt: skip
        announcer, final_left = ps.announcer, ps.final_left
        if announces:
            announcer, final_left = seat, self.survivors - 1
        elif announcer >= 0:
            final_left -= 1
            if final_left <= 0:
                return  # the round ended
        nxt = _next_seat(seat, self.alive)
        state = ps._replace(to_act=nxt, announcer=announcer, final_left=final_left)
        self.search(state, path + (offer,), pool)


class OpponentModel(Protocol):
    """How the other players are assumed to decide, for :func:`steps_log_likelihood`.

    ``moves`` answers for arrays of tables at once (equal lengths): the move (``PASS``,
    ``SWAP_BASE + 3 * h + c`` or ``SWAP_ALL``) of a player holding ``hand`` facing ``centre``
    (int64 masks), given ``reserve_low`` (fewer than 3 reserve cards), ``announced`` (someone
    has announced: a final turn) and ``deciding`` (a pass would end the round), as an int64
    array. ``announces``: whether the model takes the announcement whenever it is offered (a
    normal 31). A model may also define ``move_probabilities`` (same arguments → an
    ``(n, 11)`` array of probabilities over the moves): the likelihood then counts each
    decision ``(1 - epsilon) * P(the move made) + epsilon / 11`` instead of the one move. The ``pimc`` agent passes its rollout policy
    (:data:`folkcards.agents.tri_palki_search.CORE_MODEL`)."""

    announces: bool

    def moves(
        self,
        hand: np.ndarray,
        centre: np.ndarray,
        reserve_low: np.ndarray,
        announced: np.ndarray,
        deciding: np.ndarray,
    ) -> np.ndarray: ...


def policy_move(
    model: OpponentModel,
    hand: int,
    centre: int,
    reserve: int,
    passes: int,
    announced: bool,
    survivors: int,
) -> tuple[str, int, int]:
    """What ``model`` does with ``hand`` facing a public table, as a public step:
    ``(kind, gave, took)``."""
    action = int(
        model.moves(
            np.array([hand], dtype=np.int64),
            np.array([centre], dtype=np.int64),
            np.array([reserve < 3]),
            np.array([announced]),
            np.array([passes == survivors - 1]),
        )[0]
    )
    if action == PASS:
        return STEP_PASS, 0, 0
    if action == SWAP_ALL:
        return STEP_SWAP_ALL, hand, centre
    h, c = divmod(action - SWAP_BASE, 3)
    return STEP_SWAP, TRIPLES[hand].bits[h], TRIPLES[centre].bits[c]


# Step kinds as the compiled likelihood reads them.
_KIND_IDS = {STEP_PASS: 0, STEP_SWAP: 1, STEP_SWAP_ALL: 2, STEP_OFFER: 3}
_K_PASS, _K_SWAP, _K_SWAP_ALL, _K_OFFER = range(4)
LIKELIHOOD_BUDGET = 200_000
"""Default work budget of :func:`worlds_log_likelihood`: modelled decisions evaluated
(distinct hands times steps) per call."""


class _Encoded(NamedTuple):
    """Histories as arrays: each seat's decision sequence within a history is a *group*, equal
    sequences of a seat shared; a history is a row of group ids (-1 padded)."""

    seat: np.ndarray  # (G,) relative seat of each group
    start: np.ndarray  # (G,) its first step in the step arrays
    length: np.ndarray  # (G,) its number of steps
    steps: np.ndarray  # (S, 7) int64: kind, gave, took, centre, reserve_low, announced, deciding
    rows: np.ndarray  # (H, max groups per history) group ids


def _encode(histories: Sequence[Sequence[OpponentStep]]) -> _Encoded:
    ids: dict[tuple[int, tuple[OpponentStep, ...]], int] = {}
    rows: list[list[int]] = []
    seats: list[int] = []
    starts: list[int] = []
    lengths: list[int] = []
    steps: list[tuple[int, ...]] = []
    for history in histories:
        by_seat: dict[int, list[OpponentStep]] = {}
        for step in history:
            by_seat.setdefault(step.seat, []).append(step)
        row = []
        for seat, seat_steps in by_seat.items():
            key = (seat, tuple(seat_steps))
            if key not in ids:
                ids[key] = len(ids)
                seats.append(seat)
                starts.append(len(steps))
                lengths.append(len(seat_steps))
                steps.extend(
                    (
                        _KIND_IDS[st.kind], st.gave, st.took, st.centre, st.reserve < 3,
                        st.announced, st.passes == st.survivors - 1,
                    )
                    for st in seat_steps
                )  # fmt: skip
            row.append(ids[key])
        rows.append(row)
    width = max((len(row) for row in rows), default=0)
    table = np.full((len(rows), max(width, 1)), -1, dtype=np.int64)
    for h, row in enumerate(rows):
        table[h, : len(row)] = row
    return _Encoded(
        np.array(seats, dtype=np.int64),
        np.array(starts, dtype=np.int64),
        np.array(lengths, dtype=np.int64),
        np.array(steps, dtype=np.int64).reshape(-1, 7),
        table,
    )


@njit(cache=True)
def _cards_in(mask: int) -> int:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


def _steps_per_group(lengths: np.ndarray, worlds: int, budget: int) -> int:
    """The most recent steps of each group that fit ``budget`` over ``worlds`` worlds (the
    longest group's length when everything fits; 0 when not even one step per group does)."""
    longest = int(lengths.max(initial=0))
    if worlds * int(lengths.sum()) <= budget:
        return longest
    low, high = 0, longest  # the largest cap c with worlds * sum(min(length, c)) <= budget
    while low < high:
        mid = (low + high + 1) // 2
        if worlds * int(np.minimum(lengths, mid).sum()) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


@njit(cache=True)
def _hands_before(
    hands: np.ndarray,
    seat: np.ndarray,
    start: np.ndarray,
    length: np.ndarray,
    steps: np.ndarray,
    cap: int,
    slot: np.ndarray,
    made: np.ndarray,
    held: np.ndarray,
    valid: np.ndarray,
    queries: np.ndarray,
) -> int:
    """Walk each group's last ``cap`` steps backwards from each world's hand of its seat,
    undoing the seat's own swaps. Kept step ``j`` of group ``g`` (``j`` counted from the
    group's last step, kept steps numbered group after group) gets, per world ``w``:
    ``held[w, i]`` the hand held (before a move; at the end of the turn for an offer) and, for
    a move, ``made[w, i]`` the action id of the recorded move from that hand and ``slot[w, i]``
    its row in ``queries`` (hand, centre, reserve low, announced, deciding: what the model is
    asked). ``valid[w, g]`` is False when the steps cannot have come from the hand. Returns the
    number of queries."""
    count = 0
    for w in range(hands.shape[0]):
        i0 = 0
        for g in range(seat.shape[0]):
            hand = hands[w, seat[g]]
            end = start[g] + length[g]
            kept = min(length[g], cap)
            for j in range(kept):
                k = end - 1 - j
                i = i0 + j
                kind = steps[k, 0]
                gave = steps[k, 1]
                took = steps[k, 2]
                slot[w, i] = -1
                if kind == _K_OFFER:
                    held[w, i] = hand
                    continue
                if kind == _K_SWAP:
                    before = (hand & ~took) | gave
                elif kind == _K_SWAP_ALL:
                    before = gave
                else:
                    before = hand
                if _cards_in(before) != 3:
                    valid[w, g] = False
                    break
                held[w, i] = before
                if kind == _K_PASS:
                    made[w, i] = PASS
                elif kind == _K_SWAP_ALL:
                    made[w, i] = SWAP_ALL
                else:  # h, c: the positions of the given and taken cards, ascending
                    h = _cards_in(before & (gave - 1))
                    made[w, i] = SWAP_BASE + 3 * h + _cards_in(steps[k, 3] & (took - 1))
                queries[count, 0] = before
                for f in range(1, 5):
                    queries[count, f] = steps[k, 2 + f]
                slot[w, i] = count
                count += 1
                hand = before
            i0 += kept
    return count


@njit(cache=True)
def _group_logs(
    seat: np.ndarray,
    start: np.ndarray,
    length: np.ndarray,
    steps: np.ndarray,
    cap: int,
    slot: np.ndarray,
    made: np.ndarray,
    held: np.ndarray,
    valid: np.ndarray,
    probs: np.ndarray,
    epsilon: float,
    announces: bool,
    options: int,
) -> np.ndarray:
    """Per row of hands and group, the log of the product of every kept decision's ``(1 -
    epsilon) * P(the move made) + epsilon / options``, ``probs``: the model's move
    probabilities per query (one-hot for a model that names one move); an announcement offer:
    ``[the model's call] / 2``, counted only for a normal 31."""
    out = np.empty((slot.shape[0], seat.shape[0]))
    for w in range(slot.shape[0]):
        i0 = 0
        for g in range(seat.shape[0]):
            kept = min(length[g], cap)
            if not valid[w, g]:
                out[w, g] = -np.inf
                i0 += kept
                continue
            total = 0.0
            end = start[g] + length[g]
            for j in range(kept):
                k = end - 1 - j
                i = i0 + j
                if steps[k, 0] == _K_OFFER:
                    hand = held[w, i]
                    if steps[k, 5] or not may_announce(hand):
                        continue  # no offer: nothing to explain
                    agrees = (steps[k, 1] != 0) == announces
                    total += np.log((1 - epsilon) * (1.0 if agrees else 0.0) + epsilon / 2)
                    continue
                p = probs[slot[w, i], made[w, i]]
                total += np.log((1 - epsilon) * p + epsilon / options)
            out[w, g] = total
            i0 += kept
    return out


@njit(cache=True)
def _combine(
    group_log: np.ndarray, row_of: np.ndarray, seat: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """Per world, the log of the sum over the histories (``rows``) of the product of their
    groups' probabilities; ``row_of[w, s]`` is the row of ``group_log`` holding world ``w``'s
    hand of seat ``s``."""
    out = np.empty(row_of.shape[0])
    totals = np.empty(rows.shape[0])
    for w in range(row_of.shape[0]):
        top = -np.inf
        for h in range(rows.shape[0]):
            t = 0.0
            for g in rows[h]:
                if g >= 0:
                    t += group_log[row_of[w, seat[g]], g]
            totals[h] = t
            top = max(top, t)
        if top == -np.inf:
            out[w] = top
            continue
        acc = 0.0
        for h in range(rows.shape[0]):
            acc += np.exp(totals[h] - top)
        out[w] = top + np.log(acc)
    return out


def _distinct_hands(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct hands of each seat as the columns of one table (a seat with fewer repeats
    its first hand) and, per world and seat, the table's row holding that world's hand: a
    player's factor depends only on its own hand, so it is computed once per distinct hand."""
    columns = []
    row_of = np.empty(hands.shape, dtype=np.int64)
    for s in range(hands.shape[1]):
        distinct, row_of[:, s] = np.unique(hands[:, s], return_inverse=True)
        columns.append(distinct)
    height = max(len(c) for c in columns)
    table = np.empty((height, hands.shape[1]), dtype=np.int64)
    for s, distinct in enumerate(columns):
        table[:, s] = distinct[0]
        table[: len(distinct), s] = distinct
    return table, row_of


class Weighting(NamedTuple):
    """What :func:`worlds_log_likelihood` returned: a log-likelihood per world, the modelled
    decisions it evaluated (distinct hands times steps: its work units) and the most recent steps per
    player and history it kept (``None``: all of them; 0: none, the worlds stay uniform)."""

    logs: np.ndarray
    work: int
    kept_steps: int | None


def worlds_log_likelihood(
    hands: np.ndarray | Sequence[Sequence[int]],
    histories: Sequence[Sequence[OpponentStep]],
    epsilon: float,
    model: OpponentModel,
    budget: int = LIKELIHOOD_BUDGET,
) -> Weighting:
    """:func:`steps_log_likelihood` for many worlds at once (``hands``: worlds x relative seats
    of three-card masks), in compiled code, within a work budget.

    The work is one model decision per step and distinct hand of the step's player (a
    player's factor depends only on its own hand, so worlds that deal it the same hand share
    it), counted over the seat with the most distinct hands. When the histories are longer than
    ``budget`` allows, each player's decisions in each history are cut to its most recent ones
    (the same number for all, the most that fits): the worlds are then weighted by the
    likelihood of those recent decisions only, a partial weighting that is still exact for the
    steps it keeps (walking backwards from the hands now needs no older step); below one step
    per player the worlds stay uniform (all 0). Deterministic: the cut depends only on the
    histories, the worlds' hands and ``budget``."""
    epsilon = check_epsilon(epsilon)
    hands = np.asarray(hands, dtype=np.int64).reshape(len(hands), -1)
    worlds = hands.shape[0]
    if not histories or worlds == 0:
        return Weighting(np.zeros(worlds), 0, None)
    enc = _encode(histories)
    distinct, row_of = _distinct_hands(hands)
    rows = distinct.shape[0]
    cap = _steps_per_group(enc.length, rows, int(budget))
    if cap == 0:
        return Weighting(np.zeros(worlds), 0, 0)
    kept = None if cap >= int(enc.length.max(initial=0)) else cap
    width = int(np.minimum(enc.length, cap).sum())  # kept steps per row of hands
    slot = np.empty((rows, width), dtype=np.int64)
    made = np.empty((rows, width), dtype=np.int64)
    held = np.empty((rows, width), dtype=np.int64)
    valid = np.ones((rows, max(len(enc.seat), 1)), dtype=np.bool_)
    queries = np.empty((rows * width, 5), dtype=np.int64)
    count = _hands_before(
        distinct, enc.seat, enc.start, enc.length, enc.steps, cap, slot, made, held, valid,
        queries,
    )  # fmt: skip
    q = queries[:count]
    args = (
        np.ascontiguousarray(q[:, 0]), np.ascontiguousarray(q[:, 1]), q[:, 2] != 0,
        q[:, 3] != 0, q[:, 4] != 0,
    )  # fmt: skip
    options = NUM_ACTIONS - 2
    if hasattr(model, "move_probabilities"):
        probs = np.asarray(model.move_probabilities(*args), dtype=np.float64)
        if probs.shape != (count, options):
            raise ValueError(
                f"move_probabilities gave shape {probs.shape}, expected {(count, options)}"
            )
    else:
        probs = np.zeros((count, options))
        probs[np.arange(count), np.asarray(model.moves(*args), dtype=np.int64)] = 1.0
    group_log = _group_logs(
        enc.seat, enc.start, enc.length, enc.steps, cap, slot, made, held, valid,
        probs, epsilon, bool(model.announces), options,
    )  # fmt: skip
    logs = _combine(group_log, row_of, enc.seat, enc.rows)
    work = rows * width
    return Weighting(logs, work, kept)


def steps_log_likelihood(
    hands: Sequence[int],
    histories: Sequence[Sequence[OpponentStep]],
    epsilon: float,
    model: OpponentModel,
) -> float:
    """Log of the probability, summed over the possible ``histories``, that the other players
    made their reconstructed decisions under ``model``, given their hands now (``hands``,
    relative seats, as in a world sampled with ``observer=0``).

    Walking each history backwards undoes every player's own swaps, which gives the hand it
    held at each decision. A decision counts ``(1 - epsilon) * [the model makes it] + epsilon /
    options`` (11 options for a move; 2 for the announcement offer, which a hand that is not a
    normal 31 never gets and so counts 1)."""
    weighting = worlds_log_likelihood([list(hands)], histories, epsilon, model, budget=2**62)
    return float(weighting.logs[0])


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)


def world_start(world: TriPalkiWorld) -> tuple[dict[str, Any], list[int]]:
    """``(reset options, actions)`` that lead a raw env to ``world`` (as
    :meth:`TriPalkiWorld.to_env`, which refuses eliminated players likewise)."""
    if not all(world.alive):
        raise ValueError("a world with eliminated players cannot be loaded into the env")
    history = world._history(None)
    deck = _rebuild_deck(world, history)
    options = {"deck": deck, "dealer": world.dealer, "sticks": list(world.sticks)}
    return options, _replay(world, history, deck)[1]


SAMPLER = BeliefSampler(public_context, sample_worlds, world_start)
"""This game's belief sampler (the registry's ``belief`` piece)."""
