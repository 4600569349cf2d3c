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
weight under :func:`folkcards.envs.paston.rules.random_deal`
(:mod:`folkcards.search.paston_deal_constraints` says which constraints and weights, and how
they are drawn); after ``10_000 + 1000 * n`` draws without enough acceptances ``ValueError``
reports an inconsistent input. Policy-informed beliefs are :func:`weight_worlds` plus
:func:`folkcards.search.belief.resample` on top.

**History.** ``history`` is the current deal's actions in order
(:mod:`folkcards.search.paston_history`); :func:`public_context` builds it from an env. It is
needed to build a world's env (:meth:`PastonWorld.to_env`) and, in the discard phase, to
sample; otherwise optional.

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
from typing import Any

import numpy as np

from ..envs.cards import PASTON_CARDS, mask_to_cards
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import NUM_ACTIONS, NUM_SEATS, PastonDeal
from ..envs.paston.variant import PASTON, PastonVariant
from .belief import (
    BeliefSampler,
    check_attempts,
    check_count,
    check_epsilon,
    check_rng,
    check_seat,
    normalise_log_weights,
    observation_vector,
    replay_log_likelihood,
)
from .paston_deal_constraints import draw_worlds, plan_worlds
from .paston_history import HistoryItem, replay_history

__all__ = [
    "PastonWorld",
    "sample_worlds",
    "sample_world_arrays",
    "PastonWorldArrays",
    "public_context",
    "weight_worlds",
]


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
    variant: PastonVariant = field(default=PASTON, repr=False)  # the deck and sizes it is dealt by

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
        return replay_history(self, history)[1]

    def to_engine(self, history: Sequence[HistoryItem] | None = None) -> PastonDeal:
        """A :class:`PastonDeal` engine state at the observed decision point."""
        return replay_history(self, history)[0]

    def to_env(self, history: Sequence[HistoryItem] | None = None, **env_kwargs: Any) -> Any:
        """A ``paston_v0.raw_env`` reset with this world's deal and stepped through
        ``history`` (default: the history given to :func:`sample_worlds`). ``env_kwargs`` go to
        ``raw_env``; ``episode="game"`` is implied when the observation was a game's."""
        raw_env = _env_class(self.variant)
        actions = self.actions(history)
        if self.totals is not None:
            env_kwargs.setdefault("episode", "game")
        env = raw_env(**env_kwargs)
        env.reset(seed=0, options=self.reset_options())
        for action in actions:
            env.step(action)
        return env


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
    plan = plan_worlds(vector, history, observer, first_deal)
    parts: list[tuple[np.ndarray, ...]] = []
    got = 0
    attempts = 0
    limit = 10_000 + 1000 * n
    while got < n:
        # batches sized from the acceptance so far (a function of the inputs only: deterministic)
        rate = max(got, 1) / attempts if attempts else 1.0
        batch = min(max(int((n - got) / rate * 1.1) + 8, 16), 50_000)
        part = draw_worlds(plan, rng, batch)
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
        if action < 32 and deal.declarer >= 0 and cards_seen < deal.variant.prikup_size:
            cards_seen += 1  # a deal's first card actions are the discards
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
        deal = PastonDeal(
            world.dealt_hands, world.prikup, world.dealer, world.first_bidder, world.variant
        )
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


def _env_class(variant: PastonVariant) -> Any:
    """The raw env class that plays ``variant``: the registry's Paston game whose env deals it."""
    from ..envs.registry import GAMES

    for spec in GAMES.values():
        if spec.family == "paston":
            env_class = spec.env_module().raw_env
            if getattr(env_class, "variant", None) == variant:
                return env_class
    raise ValueError(f"no env plays the Paston variant {variant.name!r}")


def world_start(world: PastonWorld) -> tuple[dict[str, Any], list[int]]:
    """``(reset options, actions)`` that lead a raw env to ``world`` (as :meth:`PastonWorld.to_env`)."""
    return world.reset_options(), world.actions()


SAMPLER = BeliefSampler(public_context, sample_worlds, world_start)
"""This game's belief sampler (the registry's ``belief`` piece)."""
