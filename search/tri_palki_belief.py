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

**History.** The round's public events (:mod:`folkcards.search.tri_palki_history`, built by
:func:`public_context`) let a world rebuild its deck and replay the round up to the observed
decision (:meth:`TriPalkiWorld.to_env`). Worlds of a match with eliminated players cannot be
loaded into an env (the env has no reset option for eliminations); sampling them works.

**Policy weighting.** :func:`weight_worlds` replays each world and multiplies, for every
action of another player (passes, swaps, announce and the private decline), the probability
``policy`` gives it at that player's observation in the world, smoothed as
``(1 - epsilon) * p + epsilon / legal_count``; :func:`folkcards.search.belief.resample` draws
from the weighted worlds. What an agent can tell of the others' decisions from its own views
alone, and their likelihood under an opponent model, are
:mod:`folkcards.search.tri_palki_reconstruction` and :mod:`folkcards.search.tri_palki_likelihood`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations, permutations
from typing import Any, NamedTuple

import numpy as np

from ..envs.cards import TRI_PALKI_CARDS, cards_to_mask, mask_to_cards, popcount
from ..envs.tri_palki import observation as obs_mod
from ..envs.tri_palki.rules import (
    ALL_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    TRIPLES,
    TriPalkiRound,
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
)
from .tri_palki_history import (
    ParsedHistory,
    parse_history,
    public_history,
    rebuild_deck,
    replay_history,
)

__all__ = [
    "TriPalkiWorld",
    "WorldBatch",
    "sample_worlds",
    "sample_world_batch",
    "exact_worlds",
    "tiny_sample_worlds",
    "tiny_every_world",
    "public_context",
    "weight_worlds",
    "log_likelihoods",
    "NORMAL_31_HANDS",
    "world_start",
    "SAMPLER",
]

NORMAL_31_HANDS: tuple[int, ...] = tuple(
    sorted(mask for mask, info in TRIPLES.items() if info.normal_31)
)
"""The 24 three-card masks that are a normal hand worth 31 (A and two ten-point cards)."""

_VALID_SIZES = {obs_mod.observation_size(n): n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


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
    deck_mask: int = field(default=ALL_CARDS, repr=False)  # the game's cards (a short deck's)
    history: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)
    parsed_history: ParsedHistory | None = field(default=None, compare=False, repr=False)
    env_kwargs: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    def hand_cards(self, seat: int) -> list[int]:
        return mask_to_cards(self.hands[seat])

    def deck(self, history: Sequence[Any] | None = None) -> list[int]:
        """The deck in deal order (the env's ``deck`` option) that leads to this world."""
        return rebuild_deck(self, self._history(history))

    def actions(self, history: Sequence[Any] | None = None) -> list[int]:
        """The world's action ids for the public events of ``history``."""
        return replay_history(self, self._history(history))[1]

    def to_engine(self, history: Sequence[Any] | None = None) -> TriPalkiRound:
        """A :class:`TriPalkiRound` engine state at the observed decision point."""
        return replay_history(self, self._history(history))[0]

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
        deck = rebuild_deck(self, history)
        actions = replay_history(self, history, deck)[1]
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
        known[s] = cards_to_mask(view.known[r])
    return _Seen(
        alive,
        sticks,
        known,
        cards_to_mask(view.hand),
        cards_to_mask(view.centre),
        cards_to_mask(view.washed),
    )


def _hidden_places(
    seen: _Seen, o: int, num: int, reserve_count: int, deck: int = ALL_CARDS
) -> tuple[int, list[int]]:
    """The unseen cards of ``deck`` (masks) and the other surviving seats, whose unknown cards
    with the reserve take them; checks that the observation's cards fit together."""
    known = seen.known
    shown = 0
    for mask in (seen.hand_o, seen.centre, seen.washed, *(known[s] for s in range(num) if s != o)):
        if shown & mask:
            raise ValueError("the observation shows a card in two places")
        shown |= mask
    if shown & ~deck:
        raise ValueError(f"the observation shows cards not in the deck: {_names(shown & ~deck)}")
    if popcount(seen.centre) != 3 or (seen.alive[o] and popcount(seen.hand_o) != 3):
        raise ValueError("the observation needs a three-card centre and a three-card own hand")
    if known[o] & ~seen.hand_o:
        raise ValueError("the observer is known to hold a card not in its hand")
    others = [s for s in range(num) if s != o and seen.alive[s]]
    for s in range(num):
        if s != o and not seen.alive[s] and known[s]:
            raise ValueError(f"eliminated player_{s} is shown holding cards")
        if popcount(known[s]) > 3:
            raise ValueError(f"player_{s} is known to hold more than 3 cards")
    unknown = deck & ~shown
    sizes = [3 - popcount(known[s]) for s in others]
    if sum(sizes) + reserve_count != popcount(unknown):
        raise ValueError(
            f"{popcount(unknown)} unseen cards cannot fill {sum(sizes)} hidden hand places "
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


def _check_observer_fits(parsed: ParsedHistory, seen: _Seen, dealer: int, num: int) -> None:
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


class _Observed(NamedTuple):
    """What one observation fixes of every world consistent with it."""

    seen: _Seen
    observer: int
    unknown: int  # the unseen cards of the deck (mask)
    others: list[int]  # the other surviving seats, whose unknown places take them
    announcer: int | None
    completions: list[int]  # unseen cards that can complete another announcer's normal 31
    base: dict[str, Any]  # the fields every world shares


def _observed(
    vector: np.ndarray,
    observer: Any,
    history: Sequence[Any] | None,
    env_kwargs: dict[str, Any] | None,
    deck_mask: int,
) -> _Observed:
    """Decode and check one observation (and the history, if given) of a game dealt from the
    cards of ``deck_mask``."""
    view, num, o = _decode(vector, observer)
    seen = _seen(view, o, num)
    dealer = (o + view.dealer) % num
    parsed = parse_history(history, num) if history is not None else None
    if parsed is not None:
        _check_observer_fits(parsed, seen, dealer, num)
    unknown, others = _hidden_places(seen, o, num, view.reserve_count, deck_mask)
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
        "deck_mask": deck_mask,
        "history": tuple(history) if history is not None else None,
        "parsed_history": parsed,
        "env_kwargs": dict(env_kwargs) if env_kwargs else None,
    }
    return _Observed(seen, o, unknown, others, announcer, completions, base)


def sample_worlds(
    observation: Any, n: int, rng: np.random.Generator, **context: Any
) -> list[TriPalkiWorld]:
    """``n`` worlds drawn independently from the exact posterior given one observation: the
    worlds of :func:`sample_world_batch`, which documents the arguments (``context``:
    ``observer``, required, ``history`` and ``env_kwargs``)."""
    return sample_world_batch(observation, n, rng, **context).worlds()


class WorldBatch:
    """Worlds drawn together, kept as arrays: ``hands`` (worlds x seats, int64 masks) and the
    reserves (worlds x cards, top first); :meth:`worlds` builds the :class:`TriPalkiWorld` of
    those asked for (a search that weighs thousands of drawn worlds by their hands keeps a
    few hundred)."""

    def __init__(self, base: dict[str, Any], hands: np.ndarray, reserves: np.ndarray):
        self.base = base
        self.hands = hands
        self.reserves = reserves

    def __len__(self) -> int:
        return len(self.hands)

    def worlds(self, indices: Sequence[int] | np.ndarray | None = None) -> list[TriPalkiWorld]:
        """The worlds at ``indices`` (all of them by default), in that order."""
        hands, reserves = self.hands, self.reserves
        if indices is not None:
            hands, reserves = hands[np.asarray(indices, dtype=np.int64)], reserves[indices]
        return [
            _world(self.base, tuple(h), tuple(r))
            for h, r in zip(hands.tolist(), reserves.tolist(), strict=True)
        ]


def sample_world_batch(
    observation: Any,
    n: int,
    rng: np.random.Generator,
    *,
    history: Sequence[Any] | None = None,
    observer: int | str | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> WorldBatch:
    """``n`` worlds drawn independently from the exact posterior given one observation, as a
    :class:`WorldBatch` (the worlds' hands as one array; a world built only when asked for).

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
    seen, o, unknown, others, announcer, completions, base = _observed(
        vector, observer, history, env_kwargs, ALL_CARDS
    )
    unknown_cards = np.array(mask_to_cards(unknown), dtype=np.int64)
    if not completions:
        return _draw_worlds(rng, seen, o, unknown_cards, others, base, n)
    return _draw_completed_worlds(
        rng, seen, o, announcer, completions, unknown_cards, others, base, n
    )


def _world(base: dict[str, Any], hands: tuple[int, ...], reserve: tuple[int, ...]) -> TriPalkiWorld:
    """``TriPalkiWorld(hands=hands, reserve=reserve, **base)`` without the frozen dataclass's
    field-by-field ``__init__`` (the sampler makes thousands per decision)."""
    world = object.__new__(TriPalkiWorld)
    world.__dict__.update(base, hands=hands, reserve=reserve)
    return world


def _draw_completed_worlds(
    rng: np.random.Generator,
    seen: _Seen,
    o: int,
    announcer: int | None,
    completions: list[int],
    unknown_cards: np.ndarray,
    slot_seats: list[int],
    base: dict[str, Any],
    n: int,
) -> WorldBatch:
    """``n`` worlds with an announcer's hand to complete, each drawn from ``rng`` in turn: a
    completion of the announcer's hand, then one shuffle of the remaining unseen cards into the
    hidden hand places (in seat order) and the reserve; each completion's pool worked out
    once."""
    start_hands = list(seen.known)
    start_hands[o] = seen.hand_o
    extras = np.array(completions, dtype=np.int64)
    pools: dict[int, np.ndarray] = {}
    picks = np.empty(n, dtype=np.int64)
    orders = []
    for i in range(n):  # one draw after another: the generator's order of use is the contract
        k = picks[i] = int(rng.integers(len(completions)))
        pool = pools.get(k)
        if pool is None:
            pool = pools[k] = unknown_cards[(extras[k] >> unknown_cards) & 1 == 0]
        orders.append(pool[rng.permutation(len(pool))])
    masks = np.tile(np.array(start_hands, dtype=np.int64), (n, 1))
    masks[:, announcer] |= extras[picks]  # the announcer's hand is now complete in every world
    order = np.array(orders, dtype=np.int64).reshape(n, -1)  # every completion leaves as many
    return _dealt(base, masks, order, slot_seats)


def _draw_worlds(
    rng: np.random.Generator,
    seen: _Seen,
    o: int,
    unknown_cards: np.ndarray,
    slot_seats: list[int],
    base: dict[str, Any],
    n: int,
) -> WorldBatch:
    """``n`` worlds when no announcer's hand is to complete, each one shuffle of the unseen
    cards into the hidden hand places (in seat order) and the reserve, drawn together:
    ``rng.permuted`` shuffles each row with the same draws as one ``rng.permutation`` per
    world, so the worlds (and the generator's state after) are those drawn one at a time."""
    hands = list(seen.known)
    hands[o] = seen.hand_o
    orders = rng.permuted(np.tile(unknown_cards, (n, 1)), axis=1)
    return _dealt(base, np.tile(np.array(hands, dtype=np.int64), (n, 1)), orders, slot_seats)


def _dealt(
    base: dict[str, Any], masks: np.ndarray, orders: np.ndarray, slot_seats: list[int]
) -> WorldBatch:
    """The worlds whose known cards are ``masks`` (worlds x seats) and whose unseen cards come in
    each row's ``orders``: the first ones fill the hidden hand places, in seat order (each seat
    lacks the same cards in every world), the rest are the reserve."""
    start = 0
    for seat in slot_seats:
        need = 3 - popcount(int(masks[0, seat]))
        masks[:, seat] |= np.sum(np.left_shift(1, orders[:, start : start + need]), axis=1)
        start += need
    return WorldBatch(base, masks, orders[:, start:])


def exact_worlds(
    observation: Any,
    deck: Sequence[int],
    *,
    observer: int | str,
    history: Sequence[Any] | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> list[TriPalkiWorld]:
    """Every world consistent with one observation of a game dealt from ``deck`` (a variant's
    short deck, such as Tri Palki tiny's ten cards), in a fixed order: the unseen cards of
    ``deck`` in every way they fill the other seats' unknown places and the reserve, in every
    reserve order. Under the posterior of :func:`sample_worlds` (a uniform shuffle, choices
    uninformative) they are equally likely, so averaging over them is the exact expectation.
    A deck of a few unseen cards only: their number of arrangements is the cost. ``history``
    and ``env_kwargs`` as for :func:`sample_worlds`."""
    vector = observation_vector(observation, lambda s: s in _VALID_SIZES, "Tri Palki")
    seen, o, unknown, others, announcer, _, base = _observed(
        vector, observer, history, env_kwargs, cards_to_mask(deck)
    )
    hands = list(seen.known)
    hands[o] = seen.hand_o
    worlds: list[TriPalkiWorld] = []

    def fill(index: int, pool: int) -> None:
        if index == len(others):
            for reserve in permutations(mask_to_cards(pool)):
                worlds.append(TriPalkiWorld(hands=tuple(hands), reserve=reserve, **base))
            return
        seat = others[index]
        held = hands[seat]
        for cards in combinations(mask_to_cards(pool), 3 - popcount(held)):
            hands[seat] = held | cards_to_mask(cards)
            if seat != announcer or TRIPLES[hands[seat]].normal_31:
                fill(index + 1, pool & ~cards_to_mask(cards))
        hands[seat] = held

    fill(0, unknown)
    return worlds


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
        deck = rebuild_deck(world, hist)
        actions = replay_history(world, hist, deck)[1]
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


def world_start(world: TriPalkiWorld) -> tuple[dict[str, Any], list[int]]:
    """``(reset options, actions)`` that lead a raw env to ``world`` (as
    :meth:`TriPalkiWorld.to_env`, which refuses eliminated players likewise)."""
    if not all(world.alive):
        raise ValueError("a world with eliminated players cannot be loaded into the env")
    history = world._history(None)
    deck = rebuild_deck(world, history)
    options = {"deck": deck, "dealer": world.dealer, "sticks": list(world.sticks)}
    return options, replay_history(world, history, deck)[1]


SAMPLER = BeliefSampler(public_context, sample_worlds, world_start)
"""This game's belief sampler (the registry's ``belief`` piece)."""


def tiny_sample_worlds(
    observation: Any, n: int, rng: np.random.Generator, **context: Any
) -> list[TriPalkiWorld]:
    """``n`` worlds of Tri Palki tiny drawn uniformly from :func:`exact_worlds` (its ten-card
    deck): the same posterior as :func:`sample_worlds`, for the short deck."""
    from ..envs.tri_palki.tiny import TINY_DECK

    n = check_count(n)
    rng = check_rng(rng)
    worlds = exact_worlds(observation, TINY_DECK, **context)
    return [worlds[int(i)] for i in rng.integers(len(worlds), size=n)]


def tiny_every_world(observation: Any, **context: Any) -> list[TriPalkiWorld]:
    """Every world of Tri Palki tiny consistent with one observation (:func:`exact_worlds`
    over its ten-card deck; at most four)."""
    from ..envs.tri_palki.tiny import TINY_DECK

    return exact_worlds(observation, TINY_DECK, **context)


TINY_SAMPLER = BeliefSampler(public_context, tiny_sample_worlds, world_start, tiny_every_world)
"""Tri Palki tiny's belief sampler (its registry entry's ``belief`` piece)."""
