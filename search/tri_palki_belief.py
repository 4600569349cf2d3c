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
are under the heuristic's core rules (:func:`policy_move`), summed over the histories: walking
backwards undoes each player's own swaps, which gives the hand it held at each decision. A
player's factor depends only on its own hand, so it is cached per hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np

from ..envs.cards import mask_to_cards
from ..envs.tri_palki import observation as obs_mod
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


def sample_worlds(
    observation: Any,
    n: int,
    rng: np.random.Generator,
    *,
    history: Sequence[Any] | None = None,
    observer: int | str = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> list[TriPalkiWorld]:
    """``n`` worlds drawn independently from the exact posterior given one observation.

    :param observation: the observer's vector (its length gives the number of players), or its
        ``{"observation": ..., ...}`` dict.
    :param n: how many worlds.
    :param rng: a numpy Generator; the same seed and inputs give the same worlds.
    :param history: the round's public events (see the module docstring); not needed to sample,
        stored in each world for :meth:`TriPalkiWorld.to_env`.
    :param observer: the observer's absolute seat (int or ``"player_k"``).
    :param env_kwargs: ``raw_env`` arguments stored for :meth:`TriPalkiWorld.to_env`.
    """
    vector = observation_vector(observation, lambda s: s in _VALID_SIZES, "Tri Palki")
    n = check_count(n)
    rng = check_rng(rng)
    view, num, o = _decode(vector, observer)
    seen = _seen(view, o, num)
    unknown, others = _hidden_places(seen, o, num, view.reserve_count)
    announcer, completions = _announcer_completions(view, seen, unknown, o, num)
    base = {
        "num_players": num,
        "observer": o,
        "dealer": (o + view.dealer) % num,
        "alive": tuple(seen.alive),
        "sticks": tuple(seen.sticks),
        "centre": seen.centre,
        "washed": seen.washed,
        "announcer": announcer,
        "observer_deciding": view.phase == "announce",
        "history": tuple(history) if history is not None else None,
        "parsed_history": _parse(history, num) if history is not None else None,
        "env_kwargs": dict(env_kwargs) if env_kwargs else None,
    }
    unknown_cards = np.array(mask_to_cards(unknown), dtype=np.int64)
    return [
        _draw_world(rng, seen, o, announcer, completions, unknown_cards, others, base)
        for _ in range(n)
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
    before: obs_mod.TriPalkiView, action: int, after: obs_mod.TriPalkiView
) -> list[tuple[OpponentStep, ...]] | None:
    """Every sequence of other players' decisions that leads from the observer's decision
    ``before`` (where it played ``action``) to its next decision ``after`` (both views of the
    same observer; relative seats).

    Swaps are public, but the observer sees the table only at its own turns, so some details
    can be ambiguous (which hidden card a player gave when two players gave one each; which
    cards a wash brought): every public history that fits both views is returned (``None``
    when more than 8 fit). ``[()]`` if nobody else acted (the observer acts again after a wash or an offer to
    announce); ``None`` if the views do not fit one round (a new round began) or the search
    gave up."""
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
    return _fit([(start, seen_after & ~seen_before)], after)


def reconstruct_opening(view: obs_mod.TriPalkiView) -> list[tuple[OpponentStep, ...]] | None:
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
    return _fit(starts, view)


def _fit(
    starts: Sequence[tuple[_Public, int]], after: obs_mod.TriPalkiView
) -> list[tuple[OpponentStep, ...]] | None:
    """The other players' decisions that lead from one of ``starts`` (a public table and the
    cards still to appear) to the observer's decision ``after``."""
    t_centre, t_known, t_washed, _ = _view_masks(after)
    t_announcer = -1 if after.announcer is None else after.announcer
    alive = [not e for e in after.eliminated]
    survivors = sum(alive)
    results: list[tuple[OpponentStep, ...]] = []
    nodes = 0

    def turn_end(ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        if ps.known[seat] != t_known[seat]:
            return
        announces = ps.announcer < 0 and t_announcer == seat
        offer = OpponentStep(
            seat, STEP_OFFER, int(announces), 0, ps.centre, ps.reserve, ps.passes,
            ps.announcer >= 0, survivors,
        )  # fmt: skip
        announcer, final_left = ps.announcer, ps.final_left
        if announces:
            announcer, final_left = seat, survivors - 1
        elif announcer >= 0:
            final_left -= 1
            if final_left <= 0:
                return  # the round ended
        nxt = _next_seat(seat, alive)
        state = ps._replace(to_act=nxt, announcer=announcer, final_left=final_left)
        search(state, path + (offer,), pool)

    def washes(ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        """After an action of ``seat``: the turn ends, or the centre is washed (each
        replacement is any three cards still to appear) and the same player acts again."""
        if not TRIPLES[ps.centre].one_suit:
            turn_end(ps, seat, path, pool)
            return
        if ps.reserve < 3:
            return  # the round ended
        for combo in combinations(mask_to_cards(pool), 3):
            if nodes > _MAX_NODES:
                return
            new = _bits(combo)
            state = ps._replace(centre=new, washed=ps.washed | ps.centre, reserve=ps.reserve - 3)
            if TRIPLES[new].one_suit:
                washes(state, seat, path, pool & ~new)
            else:
                act(state, seat, path, pool & ~new)

    def act(ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > _MAX_NODES or len(results) > _MAX_HISTORIES:
            return
        face = (ps.centre, ps.reserve, ps.passes if ps.announcer < 0 else 0, ps.announcer >= 0)
        # pass
        passes = ps.passes + 1
        if ps.announcer >= 0 or passes < survivors:
            step = OpponentStep(seat, STEP_PASS, 0, 0, *face, survivors)
            turn_end(ps._replace(passes=passes), seat, path + (step,), pool)
        known, hidden = ps.known[seat], ps.hidden[seat]
        # one card: from the known cards, or a hidden one that shows later
        givable = known | (pool if hidden else 0)
        for took in TRIPLES[ps.centre].bits:
            for gave_card in mask_to_cards(givable):
                gave = 1 << gave_card
                from_hidden = not known & gave
                new_centre = ps.centre & ~took | gave
                kept = known & ~gave | took
                if kept != t_known[seat] and not TRIPLES[new_centre].one_suit:
                    continue  # the turn would end with the wrong known cards
                new_known = list(ps.known)
                new_known[seat] = kept
                new_hidden = list(ps.hidden)
                new_hidden[seat] = hidden - from_hidden
                state = ps._replace(
                    centre=new_centre,
                    known=tuple(new_known),
                    hidden=tuple(new_hidden),
                    passes=0,
                )
                step = OpponentStep(seat, STEP_SWAP, gave, took, *face, survivors)
                washes(state, seat, path + (step,), pool & ~gave if from_hidden else pool)
        # all three (unless the turn goes on after a wash, the known cards become the centre)
        final = ps.centre == t_known[seat]
        if not final and sum(1 for m in SUIT_MASKS if known & m) > 1:
            return
        for combo in combinations(mask_to_cards(pool), hidden):
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
            step = OpponentStep(seat, STEP_SWAP_ALL, given, ps.centre, *face, survivors)
            washes(state, seat, path + (step,), pool & ~extra)

    def search(ps: _Public, path: tuple[OpponentStep, ...], pool: int) -> None:
        if ps.to_act == 0:
            t_passes = after.passes if t_announcer < 0 else 0
            if (
                pool == 0
                and ps.centre == t_centre
                and ps.washed == t_washed
                and ps.reserve == after.reserve_count
                and ps.announcer == t_announcer
                and (ps.passes if ps.announcer < 0 else 0) == t_passes
                and path not in results
            ):
                results.append(path)
            return
        act(ps, ps.to_act, path, pool)

    for start, pool in starts:
        search(start, (), pool)
    if not results or nodes > _MAX_NODES or len(results) > _MAX_HISTORIES:
        return None
    return results


def policy_move(
    hand: int, centre: int, reserve: int, passes: int, announced: bool, survivors: int
) -> tuple[str, int, int]:
    """What the heuristic's core rules (:func:`folkcards.agents.tri_palki_search.fast_policy`)
    do with ``hand`` facing a public table, as a public step: ``(kind, gave, took)``."""
    from ..agents.tri_palki_search import policy_core

    action = policy_core(hand, centre, reserve < 3, announced, passes == survivors - 1)
    if action == PASS:
        return STEP_PASS, 0, 0
    if action == SWAP_ALL:
        return STEP_SWAP_ALL, hand, centre
    h, c = divmod(action - SWAP_BASE, 3)
    return STEP_SWAP, TRIPLES[hand].bits[h], TRIPLES[centre].bits[c]


def steps_log_likelihood(
    hands: Sequence[int],
    histories: Sequence[Sequence[OpponentStep]],
    epsilon: float,
    cache: dict[Any, float] | None = None,
) -> float:
    """Log of the probability, summed over the possible ``histories``, that the other players
    made their reconstructed decisions under the heuristic's core rules, given their hands
    now (``hands``, relative seats, as in a world sampled with ``observer=0``).

    Walking each history backwards undoes every player's own swaps, which gives the hand it
    held at each decision. A decision counts ``(1 - epsilon) * [the rules make it] + epsilon /
    options`` (11 options for a move; 2 for the announcement offer, which a hand that is not a
    normal 31 never gets and so counts 1). Each player's product depends only on its own
    decisions and its own hand now, so it is cached per (decisions, hand) in ``cache`` (a dict
    to pass again with the same ``histories``)."""
    if not histories:
        return 0.0
    cache = {} if cache is None else cache
    groups = _seat_groups(histories, cache)
    totals = []
    for history in groups:
        log_total = 0.0
        for seat, group, seat_steps in history:
            key = (group, hands[seat])
            value = cache.get(key)
            if value is None:
                value = cache[key] = _seat_log_likelihood(hands[seat], seat_steps, epsilon)
            log_total += value
        totals.append(log_total)
    top = max(totals)
    if top == -np.inf:
        return top
    return float(top + np.log(sum(np.exp(t - top) for t in totals)))


def _seat_groups(
    histories: Sequence[Sequence[OpponentStep]], cache: dict[Any, Any]
) -> list[list[tuple[int, int, tuple[OpponentStep, ...]]]]:
    """Per history, ``(seat, id, steps)`` for each player's decisions; equal decision
    sequences (of the same seat) share an id. Computed once per ``histories`` and cached."""
    held = cache.get("groups")
    if held is not None and held[0] is histories:
        return held[1]
    ids: dict[tuple[OpponentStep, ...], int] = {}
    out = []
    for steps in histories:
        by_seat: dict[int, list[OpponentStep]] = {}
        for step in steps:
            by_seat.setdefault(step.seat, []).append(step)
        row = []
        for seat, seat_steps in by_seat.items():
            key = tuple(seat_steps)
            row.append((seat, ids.setdefault(key, len(ids)), key))
        out.append(row)
    cache["groups"] = (histories, out)
    return out


def _seat_log_likelihood(hand: int, steps: Sequence[OpponentStep], epsilon: float) -> float:
    total = 0.0
    for step in reversed(steps):
        if step.kind == STEP_OFFER:
            if step.announced or not TRIPLES[hand].normal_31:
                continue  # no offer: nothing to explain
            policy_announces = True
            made = bool(step.gave)
            total += np.log((1 - epsilon) * (made == policy_announces) + epsilon / 2)
            continue
        if step.kind == STEP_SWAP:
            before = hand & ~step.took | step.gave
        elif step.kind == STEP_SWAP_ALL:
            before = step.gave
        else:
            before = hand
        if before not in TRIPLES:
            return -np.inf
        move = policy_move(
            before, step.centre, step.reserve, step.passes, step.announced, step.survivors
        )
        agrees = move == (step.kind, step.gave, step.took)
        total += np.log((1 - epsilon) * agrees + epsilon / (NUM_ACTIONS - 2))
        hand = before
    return total
