"""``montecarlo``: the textbook one-ply Monte Carlo player, written apart from the heuristics.

At every decision with more than one legal action the agent draws ``worlds`` complete hidden
states consistent with its observation from the exact belief samplers
(:mod:`folkcards.search.paston_belief`, :mod:`folkcards.search.tri_palki_belief`: uniform over
what the player cannot see, its opponents' choices treated as uninformative). For each legal
action and each world it plays the action in the rules engine, finishes the deal (Paston) or the
round (Tri Palki) with a fixed default policy for every seat, its own included, and scores the
end with the engine's own scoring rule. It plays the action with the best mean over the worlds
(every action is tried on the same worlds: common random numbers); ties go to the lowest id.

The default policy of the rollouts, fixed and documented so the baseline is reproducible:

- **Paston**: uniformly random among the legal actions, for every decision (auction, discards,
  contract or surrender, whist or pass, cards). The value is this seat's table score of the deal
  (a redeal scores 0).
- **Tri Palki**: each player takes the action that makes its own hand strongest now (a safe or
  three-aces hand above every normal hand, normal hands by the comparison key of the rules),
  passing unless a swap improves its hand strictly, and announces whenever it may. The value is
  minus the sticks this seat receives when the round is settled (``rules.settle``). A greedy
  rather than a random default because random swapping almost never ends a round (the round
  ends after a full circle of consecutive passes).

Nothing here reads the package's heuristic or search agents: the two baselines share only the
belief samplers and the rules engines with them, so a blind spot of the heuristic family is not
built in. Parameters come from the spec: ``montecarlo:worlds=64,seed=3`` (``worlds`` default
32). The agent is deterministic given its seed. If the sampler reports the observation
inconsistent (which a legal table never produces), the decision is uniformly random among the
legal actions and counted in ``fallbacks``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..envs.paston import observation as paston_obs
from ..envs.paston.rules import OVER as PASTON_OVER
from ..envs.paston.rules import PLAY as PASTON_PLAY
from ..envs.paston.rules import PastonDeal
from ..envs.registry import game_spec
from ..envs.tri_palki import observation as tri_palki_obs
from ..envs.tri_palki.observation import TURNS_HORIZON
from ..envs.tri_palki.rules import (
    ACTION,
    ANNOUNCE,
    ANNOUNCE_DECISION,
    NORMAL,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
    TRIPLES,
    TriPalkiRound,
    next_alive,
    settle,
)
from ..envs.tri_palki.rules import OVER as TRI_PALKI_OVER
from ..envs.tri_palki.tiny import TINY_DECK, TINY_MAX_TURNS
from .base import Agent, legal_actions, spec_pairs

DEFAULT_WORLDS = 32
MAX_ROLLOUT_ACTIONS = 500  # a greedy Tri Palki round ends far sooner; a guard, never reached


def parse_spec(arg: str | None) -> tuple[int, int | None]:
    """``worlds`` and ``seed`` of a ``montecarlo:worlds=N,seed=S`` spec (one line if bad)."""
    worlds, seed = DEFAULT_WORLDS, None
    for key, text in spec_pairs(arg, ("worlds", "seed"), "montecarlo"):
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"montecarlo {key} must be an integer, got {text!r}") from None
        if key == "worlds":
            if value < 1:
                raise ValueError(f"montecarlo worlds must be at least 1, got {value}")
            worlds = value
        else:
            seed = value
    return worlds, seed


def _random_bit(bits: int, draw: random.Random) -> int:
    """A uniformly random set bit's index of ``bits`` (non-zero)."""
    ids = []
    while bits:
        low = bits & -bits
        ids.append(low.bit_length() - 1)
        bits ^= low
    return ids[draw.randrange(len(ids))]


class MonteCarloAgent(Agent):
    """One-ply Monte Carlo over sampled worlds (see the module docstring); the game-specific
    part is how a world becomes an engine state, the rollout policy and the score."""

    name = "montecarlo"

    def __init__(
        self,
        game: str,
        seat: str = "player_0",
        seed: int | None = None,
        worlds: int = DEFAULT_WORLDS,
    ):
        super().__init__(game, seat, seed)
        self.worlds = worlds
        self.seat_index = int(seat.rpartition("_")[2])
        self.fallbacks = 0
        self._draw = random.Random(int(self.rng.integers(2**63)))

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.last_action_values = None
        legal = legal_actions(observation)
        if len(legal) == 1:
            return legal[0]
        vector = np.asarray(observation["observation"])
        try:
            states = self._states(vector)
        except ValueError:  # the sampler found the observation inconsistent
            self.fallbacks += 1
            return legal[self._draw.randrange(len(legal))]
        totals = dict.fromkeys(legal, 0.0)
        for state in states:
            for action in legal:
                totals[action] += self._rollout(state, action)
        self.last_action_values = {a: totals[a] / len(states) for a in legal}
        return max(legal, key=lambda a: (totals[a], -a))

    def _states(self, vector: np.ndarray) -> list[Any]:
        """Engine states of ``worlds`` sampled worlds at this decision."""
        raise NotImplementedError

    def _rollout(self, state: Any, action: int) -> float:
        """This seat's value after ``action`` in a copy of ``state`` and the default play."""
        raise NotImplementedError


def _copy(state: Any, lists: tuple[str, ...]) -> Any:
    """A copy of a slotted engine state whose ``lists`` are copied (the rest is immutable)."""
    cls: Any = type(state)
    new = object.__new__(cls)
    for name in cls.__slots__:
        value = getattr(state, name)
        setattr(new, name, list(value) if name in lists else value)
    return new


class PastonMonteCarlo(MonteCarloAgent):
    """Paston: random rollouts, the deal's table score."""

    _LISTS = (
        "hands",
        "passed",
        "bids",
        "defence",
        "trick",
        "tricks",
        "played",
        "voids",
        "scores",
        "history",
    )

    def _states(self, vector: np.ndarray) -> list[PastonDeal]:
        from ..search.paston_belief import public_prefix, sample_worlds

        view = paston_obs.decode(vector)
        try:
            worlds = sample_worlds(vector, self.worlds, self.rng, observer=self.seat_index)
        except ValueError as exc:  # a game's deal that may or may not be its first
            if "first deal" not in str(exc):
                raise
            worlds = sample_worlds(
                vector, self.worlds, self.rng, observer=self.seat_index, first_deal=False
            )
        own_discards = iter(view.discards)  # the declarer (only) sees its own discards
        prefix = [next(own_discards, None) if a is None else a for a in public_prefix(view)]
        return [self._engine(world, prefix, view.phase) for world in worlds]

    @staticmethod
    def _engine(world: Any, prefix: list[Any], phase: str) -> PastonDeal:
        deal = world.to_engine(prefix)
        if phase == "play":
            # the observation does not tell the order of the past tricks: the play's state is
            # set from the world (every field the rest of the play and its score read)
            deal.hands = list(world.hands)
            deal.played = list(world.played)
            deal.trick = list(world.trick)
            deal.tricks = list(world.tricks)
            deal.trick_count = sum(world.tricks)
            deal.to_act = world.to_act
            deal.leader = world.trick[0][0] if world.trick else world.to_act
            deal.phase = PASTON_PLAY
        return deal

    def _rollout(self, state: PastonDeal, action: int) -> float:
        deal = _copy(state, self._LISTS)
        deal.apply(action)
        draw = self._draw
        while deal.phase != PASTON_OVER:
            deal.apply(_random_bit(deal.legal_bits(), draw))
        return float(deal.scores[self.seat_index])


# a hand's strength for the Tri Palki default policy: specials above every normal hand
_STRENGTH = {mask: t.key if t.kind == NORMAL else 1 << 40 for mask, t in TRIPLES.items()}
_SWAPS = {mask: t.bits for mask, t in TRIPLES.items()}
_GREEDY: dict[tuple[int, int], int] = {}  # (hand, centre) -> the default policy's action


def greedy_action(state: TriPalkiRound) -> int:
    """The Tri Palki default policy: announce when offered; else the swap (one card or all)
    that makes the hand strongest, if it beats the hand kept; else pass."""
    if state.phase == ANNOUNCE_DECISION:
        return ANNOUNCE
    hand, centre = state.hands[state.to_act], state.centre
    known = _GREEDY.get((hand, centre))
    if known is not None:
        return known
    strength = _STRENGTH
    best, best_action = strength[hand], PASS
    mine, theirs = _SWAPS[hand], _SWAPS[centre]
    for h in range(3):
        kept = hand ^ mine[h]
        for c in range(3):
            value = strength[kept | theirs[c]]
            if value > best:
                best, best_action = value, SWAP_BASE + 3 * h + c
    if strength[centre] > best:
        best_action = SWAP_ALL
    if len(_GREEDY) > 2_000_000:  # bounded memory; the policy does not depend on the cache
        _GREEDY.clear()
    _GREEDY[(hand, centre)] = best_action
    return best_action


class TriPalkiMonteCarlo(MonteCarloAgent):
    """Tri Palki: greedy rollouts, minus this seat's sticks when the round is settled."""

    _LISTS = ("hands", "known", "washes", "history")

    def _states(self, vector: np.ndarray) -> list[TriPalkiRound]:
        from ..search.tri_palki_belief import sample_worlds

        view = tri_palki_obs.decode(vector)
        worlds = sample_worlds(vector, self.worlds, self.rng, observer=self.seat_index)
        return [self._engine(world, view) for world in worlds]

    def _engine(self, world: Any, view: Any) -> TriPalkiRound:
        """The round's state in ``world`` at this seat's decision (the fields the rest of the
        round and its settlement read; the deal order and past events are not needed)."""
        state = TriPalkiRound.__new__(TriPalkiRound)
        n = world.num_players
        state.num_seats = n
        state.alive = tuple(world.alive)
        state.survivors = sum(state.alive)
        state.left = tuple(next_alive(seat, state.alive) for seat in range(n))
        state.dealer = world.dealer
        state.deck = ()
        state.hands = list(world.hands)
        state.centre = world.centre
        state.dealt_centre = 0
        state.reserve = tuple(world.reserve)
        state.top = 0
        state.washed = world.washed
        state.washes = []
        state.known = [0] * n
        state.to_act = self.seat_index
        state.phase = ANNOUNCE_DECISION if view.phase == "announce" else ACTION
        state.passes = view.passes
        state.announcer = -1 if world.announcer is None else world.announcer
        state.final_left = sum(view.final_turn_pending)
        state.turns = 0
        state.outcome = None
        state.history = []
        return state

    def _rollout(self, state: TriPalkiRound, action: int) -> float:
        round_ = _copy(state, self._LISTS)
        round_.apply(action)
        for _ in range(MAX_ROLLOUT_ACTIONS):
            if round_.phase == TRI_PALKI_OVER:
                break
            round_.apply(greedy_action(round_))
        sticks = [0] * round_.num_seats
        result = settle(round_.hands, round_.alive, sticks, round_.dealer)
        return -float(result.stick[self.seat_index])


class TriPalkiTinyMonteCarlo(TriPalkiMonteCarlo):
    """Tri Palki tiny: every world of the ten-card deck instead of a sample (at most four
    arrangements of the four unseen cards), and rollouts scored at the table's turn limit
    (``max_turns``, the variant's default unless the spec gives another), as the variant
    scores a round reaching it. The greedy rollouts are deterministic, so each action's value
    is exact under the default policy; ``worlds`` is not used."""

    max_turns = TINY_MAX_TURNS

    def _states(self, vector: np.ndarray) -> list[TriPalkiRound]:
        from ..search.tri_palki_belief import exact_worlds

        view = tri_palki_obs.decode(vector)
        worlds = exact_worlds(vector, TINY_DECK, observer=self.seat_index)
        turns = round(view.turn_fraction * min(self.max_turns, TURNS_HORIZON))
        states = [self._engine(world, view) for world in worlds]
        for state in states:
            state.turns = turns
        return states

    def _rollout(self, state: TriPalkiRound, action: int) -> float:
        round_ = _copy(state, self._LISTS)
        round_.apply(action)
        while round_.phase != TRI_PALKI_OVER and round_.turns < self.max_turns:
            round_.apply(greedy_action(round_))
        result = settle(round_.hands, round_.alive, [0] * round_.num_seats, round_.dealer)
        return -float(result.stick[self.seat_index])


def _factory(cls: type[MonteCarloAgent], family: str) -> Callable[..., MonteCarloAgent]:
    def make(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> MonteCarloAgent:
        if game_spec(game).name != family:
            raise ValueError(f"this montecarlo player plays {family}, not {game!r}")
        worlds, spec_seed = parse_spec(arg)
        return cls(game, seat, spec_seed if spec_seed is not None else seed, worlds)

    return make


def make_tri_palki_tiny_montecarlo(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> MonteCarloAgent:
    """``montecarlo`` on Tri Palki tiny: ``montecarlo:max_turns=N`` for a table whose turn
    limit is not the variant's default (``seed=S`` as for the other games)."""
    if game_spec(game).name != "tri_palki_tiny":
        raise ValueError(f"this montecarlo player plays tri_palki_tiny, not {game!r}")
    pairs = dict(spec_pairs(arg, ("max_turns", "seed"), "montecarlo"))
    values = {}
    for key, text in pairs.items():
        try:
            values[key] = int(text)
        except ValueError:
            raise ValueError(f"montecarlo {key} must be an integer, got {text!r}") from None
    if values.get("max_turns", TINY_MAX_TURNS) < 1:
        raise ValueError(f"montecarlo max_turns must be at least 1, got {values['max_turns']}")
    agent = TriPalkiTinyMonteCarlo(game, seat, values.get("seed", seed))
    agent.max_turns = values.get("max_turns", TINY_MAX_TURNS)
    return agent


make_paston_montecarlo = _factory(PastonMonteCarlo, "paston")
make_tri_palki_montecarlo = _factory(TriPalkiMonteCarlo, "tri_palki")
