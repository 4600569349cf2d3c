"""Paston ``pimc``: perfect-information Monte Carlo with the open-hand solver.

Every decision samples complete deals consistent with the agent's observation
(:func:`folkcards.search.paston_belief.sample_worlds`, exact and uniform, built from the
observation alone: the agent needs no history), solves each world open-handed
(:mod:`folkcards.search.paston_solver`) and chooses the option with the best mean *table
score* for its own seat (the score table of ``docs/rules/paston.md``, via the rules'
``declarer_score`` / ``defender_score``), not the best trick count:

- **Card play** (``samples`` worlds): ``move_values`` per world gives the declarer's total
  tricks ``T`` after each legal card. The declarer's score is ``declarer_score(T, level)``
  (only reaching six tricks matters); a sole defender takes every other trick:
  ``defender_score(10 - T, sole=True) * factor``; with two defenders the solver only tells the
  defenders' total, so the agent counts its own tricks as those it has won plus half of the
  defenders' tricks still to come (the score interpolated between whole tricks), except when
  it plays last to a trick: then each card's trick is credited to whoever it makes win it
  (the solver counts the partner's tricks as the agent's). Ties go to the
  most tricks for the agent's side, then the lowest card. Each card's mean score is kept in
  ``last_action_values`` (distillation fits them).
- **The defence in a world** (``defence_model``). Declaring is worth an automatic win when
  both others pass, so the declarer's value of a contract in a world is not just the open-hand
  result against two defenders: each defender whists or passes as the Paston heuristic would
  with its hand in that world (:func:`folkcards.agents.paston_heuristic.defence_call`: the
  declarer's left first, the right knowing that call); both passing scores the automatic win
  (``declarer_score(10, level)``), one whisting is solved as a sole defence (the passer's cards
  out of play), both as two defenders. ``defence_model=1`` (default) uses this at the discard
  and contract decisions, ``2`` in the auction too, ``0`` always assumes two defenders.
- **Auction** (``bid_samples`` worlds, each with an unknown prikup): the agent takes the
  world's prikup, discards greedily (the two lowest non-trump cards, the shorter suit first)
  for each trump it could still name, and scores each reachable contract level as the mean of
  ``max(score, -10)`` (surrender, -10, is open once the prikup is seen), the score solved as
  above. It bids when the best level's value exceeds ``bid_margin`` (passing counts as 0).
- **Discards** (``discard_samples`` worlds, the opponents' hands): candidate pairs are the
  pairs among the ``discard_candidates`` lowest non-trump cards for each trump still
  nameable, plus the greedy pair; each pair is scored as the contract decision below would
  score it, and the best pair is discarded, the second card at the next decision.
- **Contract / surrender** (``bid_samples`` worlds): each legal contract's mean score as
  above, surrender -10; the best is named.
- **Whist / pass** (``bid_samples`` worlds, inferred): pass scores 0; whist scores the
  two-defender value if the partner whists and the sole-defender value if it passes. The
  solver gives the two defenders' tricks together; this seat's share is in proportion to the
  heuristic's trick estimates of the two hands (``defence_split=1``; ``0``: half each, which
  made a hand with no tricks whist beside a strong partner). When the
  partner speaks after this seat, its call in each world is the heuristic's with its hand
  (``partner_model=1``; ``0`` averages the two values). Uniform worlds give the declarer a
  random hand, far weaker than the hands that win auctions, so here ``infer * bid_samples``
  worlds are drawn and resampled to ``bid_samples`` by the likelihood of the others' public
  calls (auction, contract, defence; rebuilt from the observation by
  :func:`folkcards.search.paston_history.public_prefix`)
  under the Paston heuristic as their model
  (:func:`folkcards.search.paston_belief.weight_worlds`, each call's probability mixed with a
  uniform choice by ``infer_epsilon``). Measured: without inference the agent whisted 82
  times in 37 duplicate deals and lost 9.2 points per defence.

Parameters come from the spec, e.g. ``pimc:samples=64,bid_samples=16,seed=3`` (the
:class:`PimcParams` fields: ``samples`` 128, ``bid_samples`` 16, ``discard_samples`` 8,
``discard_candidates`` 4, ``bid_margin`` -2, ``bid_floor`` 1, ``whist_margin`` 0, ``infer`` 4,
``infer_epsilon`` 0.4, ``defence_model`` 1, ``defence_split`` 1, ``partner_model`` 1,
``fusion`` 0, ``fusion_samples`` 32, ``time`` 0);
``fusion=1`` (as declarer) or ``2`` (every seat) lowers each card's value by what PIMC
over-credits it for choosing the next card per world, measured on the first
``fusion_samples`` worlds (:mod:`folkcards.search.paston_fused_play`);
``time=SECONDS`` (default 0, no limit) caps the card-play sampling by the clock, which makes
the agent's choices depend on the machine's speed (not deterministic); without it the agent is
deterministic given its seed. If the sampler cannot produce worlds (it reports an inconsistent
observation) the decision falls back to the Paston heuristic.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, fields, replace
from itertools import combinations
from typing import Any

import numpy as np

from ..envs.cards import mask_to_cards
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import (
    BEST_SPADES,
    BID_BASE,
    CONTRACT_BASE,
    LEVEL_FACTOR,
    LEVEL_TRUMP,
    NUM_TRICKS,
    PASS,
    SURRENDER,
    WHIST,
    declarer_score,
    defender_score,
    trick_winner,
)
from ..envs.paston.variant import PASTON, PastonVariant
from ..envs.registry import game_spec
from ..search.paston_history import public_prefix
from .base import Agent, legal_actions, spec_pairs
from .paston_heuristic import defence_call, defence_tricks

SURRENDER_SCORE = -10
_SUIT = 0xFF


@dataclass(frozen=True)
class PimcParams:
    """The search budget and thresholds of :class:`PimcAgent` (spec keys of the same names)."""

    samples: int = 128  # worlds per card-play decision
    bid_samples: int = 16  # worlds for the auction, contract and whist decisions
    discard_samples: int = 8  # worlds for the discard decision
    discard_candidates: int = 4  # lowest non-trump cards per trump whose pairs are tried
    bid_margin: float = -2.0  # bid when the best reachable contract is worth more than this
    # (below 0: the estimate assumes both others defend, which makes it pessimistic; replaying
    # stored deals with the call flipped, bidding from estimates just below 0 gained points)
    time: float = 0.0  # seconds of card-play sampling per decision; 0 = no clock limit
    bid_floor: int = 1  # auction: 1 = floor each world's score at surrender's -10 (the
    # prikup is seen before the contract), 0 = no floor (each world counts its full loss)
    whist_margin: float = 0.0  # whist when its value exceeds this (passing scores 0)
    infer: int = 4  # whist: draw infer * bid_samples worlds, weight them by the heuristic
    # as a model of the others' bids and contract, keep bid_samples (1 = no weighting)
    defence_model: int = 1  # declaring: the defenders whist or pass in each world as the
    # heuristic would with their hands (both passing is an automatic win) at the contract and
    # discard decisions (1) and in the auction too (2); 0 = both always whist
    infer_epsilon: float = 0.4  # whist inference: each modelled call's probability is mixed
    # with a uniform choice by this much (1 = no inference)
    defence_split: int = 1  # whist: this seat's share of two defenders' tricks in a world is
    # in proportion to the heuristic's estimates of the two hands (1) or half (0)
    partner_model: int = 1  # whist as the first speaker: 1 = the partner's call in each world
    # is the heuristic's with its hand, 0 = half the worlds each way
    fusion: int = 0  # card play: subtract the strategy-fusion over-credit one own decision
    # ahead (folkcards.search.paston_fused_play): 0 = never, 1 = as declarer, 2 = every seat
    fusion_samples: int = 32  # worlds for that correction (the first of the decision's worlds)


_INT_KEYS = {
    "samples",
    "bid_samples",
    "discard_samples",
    "discard_candidates",
    "infer",
    "bid_floor",
    "defence_model",
    "partner_model",
    "defence_split",
    "fusion",
    "fusion_samples",
    "seed",
}
_FLOAT_KEYS = {"bid_margin", "whist_margin", "time", "infer_epsilon"}
_ZERO_OK = {"seed", "bid_floor", "defence_model", "partner_model", "defence_split", "fusion"}


def parse_spec(arg: str | None) -> tuple[PimcParams, int | None]:
    """``(params, seed)`` from a spec argument such as ``"samples=64,time=0.4,seed=3"``."""
    params = PimcParams()
    seed = None
    if not arg:
        return params, seed
    values: dict[str, Any] = {}
    for key, text in spec_pairs(arg, _INT_KEYS | _FLOAT_KEYS, "pimc"):
        try:
            value: Any = int(text) if key in _INT_KEYS else float(text)
        except ValueError:
            raise ValueError(f"pimc parameter {key} needs a number, got {text!r}") from None
        if key in _INT_KEYS and key not in _ZERO_OK and value < 1:
            raise ValueError(f"pimc parameter {key} must be at least 1, got {value}")
        if key == "infer_epsilon" and not 0 <= value <= 1:
            raise ValueError(f"pimc parameter infer_epsilon must be in [0, 1], got {value}")
        if key == "fusion" and value not in (0, 1, 2):
            raise ValueError(f"pimc parameter fusion must be 0, 1 or 2, got {value}")
        if key == "time" and value < 0:
            raise ValueError(f"pimc parameter time must be >= 0 seconds, got {value}")
        if key == "seed":
            seed = value
        else:
            values[key] = value
    return replace(params, **values), seed


def _cards_by_lowness(cards: list[int], hand: int) -> list[int]:
    """``cards`` ordered lowest first (rank, then shorter suit in ``hand``, then id)."""
    return sorted(cards, key=lambda c: (c & 7, bin(hand & (_SUIT << (c & ~7))).count("1"), c))


def greedy_discard(hand: int, trump: int, count: int = 2) -> int:
    """The ``count`` cards (the prikup's size) of a declarer's ``hand`` (mask, the prikup
    taken) it discards greedily with ``trump``: the lowest non-trump cards, the shorter suit
    first (lowest trumps if fewer)."""
    trumps = _SUIT << (8 * trump)
    side = _cards_by_lowness(mask_to_cards(hand & ~trumps), hand)
    low_trumps = _cards_by_lowness(mask_to_cards(hand & trumps), hand)
    return sum(1 << card for card in (side + low_trumps)[:count])


def _defender_value(own_tricks: float, sole: bool, variant: PastonVariant = PASTON) -> float:
    """``defender_score`` linearly interpolated for a fractional trick count."""
    low = int(np.floor(own_tricks))
    frac = own_tricks - low
    value = defender_score(low, sole, variant)
    if frac > 1e-9:
        value = (1 - frac) * value + frac * defender_score(low + 1, sole, variant)
    return float(value)


def table_scores(
    totals: np.ndarray,
    *,
    level: int,
    declarer: bool,
    sole: bool = False,
    own_tricks: int = 0,
    defence_tricks: int = 0,
    variant: PastonVariant = PASTON,
) -> np.ndarray:
    """The score of one seat for each declarer's trick total in ``totals`` (any shape), in a
    deal of ``variant`` (its tricks and needs; the full game's 10 below).

    The declarer scores ``declarer_score(T, level)``; a sole defender takes the other tricks,
    ``defender_score(10 - T, True) * factor``; one of two defenders is credited with
    ``own_tricks`` (won so far) plus half of the defenders' tricks still to come
    (``10 - T - defence_tricks``), its score interpolated between whole tricks.
    """
    totals = np.asarray(totals)
    if declarer:
        return np.vectorize(
            lambda t: float(declarer_score(int(t), level, variant)), otypes=[float]
        )(totals)
    factor = LEVEL_FACTOR[level]
    defence = variant.num_tricks - totals
    if sole:
        return factor * np.vectorize(
            lambda d: defender_score(int(d), True, variant), otypes=[float]
        )(defence)
    own = own_tricks + 0.5 * (defence - defence_tricks)
    return factor * np.vectorize(
        lambda x: _defender_value(float(x), False, variant), otypes=[float]
    )(own)


def _seat_scores(
    view: obs_mod.PastonView, totals: np.ndarray, variant: PastonVariant = PASTON
) -> np.ndarray:
    """:func:`table_scores` of the observing seat (seat 0 of ``view``, in the play) for the
    declarer's trick totals ``totals``, with the tricks won so far."""
    declarer, level = view.declarer, view.contract
    assert declarer is not None and level is not None
    return table_scores(
        totals,
        level=level,
        declarer=declarer == 0,
        sole=view.num_active == 2,
        own_tricks=view.tricks[0],
        defence_tricks=sum(view.tricks[r] for r in range(3) if r != declarer),
        variant=variant,
    )


@functools.lru_cache(maxsize=1)
def load_compiled_kernels() -> None:
    """Load the compiled code pimc's searches call (the open-hand solver and the heuristic's
    defence model: numba's disk cache, or a compile on a cache miss) once per process, when the
    first agent is built: otherwise the first decision that needs it pays for it (about a second
    from the cache, ten or more for a compile), and a tournament reports that as the agent's
    slowest decision."""
    from ..search.paston_solver import load_kernels

    defence_call(0b1111111111, 0, all_pass=False, first_speaker=True, other_whisted=False)
    defence_call(0b1111111111, 0, all_pass=True, first_speaker=False, other_whisted=True)
    load_kernels()


@dataclass(frozen=True)
class FusionNote:
    """What the strategy-fusion correction did at one card-play decision (for analysis):
    the seat's role, the tricks left, each legal card's fusion cost (table score) and the card
    plain pimc would have played beside the one played."""

    declaring: bool
    sole: bool
    tricks_left: int
    cost: dict[int, float]
    plain: int
    chosen: int


class PimcAgent(Agent):
    """Paston PIMC agent (see the module docstring)."""

    name = "pimc"

    def __init__(
        self,
        game: str = "paston",
        seat: str = "player_0",
        seed: int | None = None,
        params: PimcParams | None = None,
    ):
        if game_spec(game).family != "paston":  # Paston and its variants (paston_bidding)
            raise ValueError(f"pimc plays paston, not {game!r}")
        super().__init__(game, seat, seed)
        self.params = params or PimcParams()
        # the deck, ladder, discards, tricks and needs of the variant the game plays
        self.variant: PastonVariant = game_spec(game).env_module().raw_env.variant
        self._sample_worlds = game_spec(game).piece("belief").sample_worlds
        from ..search.paston_solver import PastonSolver

        # the table kept from call to call: the same values (exact bounds keyed by the cards),
        # found 5-20% faster (benchmarks/pimc_solver_table.py, on the loaded 2-core machine)
        self.solver = PastonSolver(keep_table=True)
        load_compiled_kernels()
        from .base import make_agent

        # the heuristic draws no random numbers: seeded only so that nothing is unseeded
        self._fallback_agent: Agent = make_agent("heuristic", game, seat, seed=0)
        self._planned_discard: tuple[int, int] | None = None  # (first card, second card)
        self._first_dealer: int | None = None
        self._other_dealer_seen = False
        self.fallbacks = 0
        self.last_fusion: FusionNote | None = None  # the last corrected card decision
        self.last_estimate: float | None = None  # the value behind the last auction or
        # whist decision (mean score of bidding / whisting; for analysis)

    def reset(self) -> None:
        self._planned_discard = None
        self._first_dealer = None
        self._other_dealer_seen = False

    # --- the decision ----------------------------------------------------------------------

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.last_action_values = None
        legal = legal_actions(observation)
        if len(legal) == 1:
            return legal[0]
        vector = np.asarray(observation["observation"])
        view = obs_mod.decode(vector)
        self._note_dealer(view)
        try:
            if view.phase == "play":
                action = self._play(vector, view, legal)
            elif view.phase == "auction":
                action = self._bid(vector, view, legal)
            elif view.phase == "discard":
                action = self._discard(vector, view, legal)
            elif view.phase == "contract":
                action = self._contract(vector, view, legal)
            elif view.phase == "defence":
                action = self._whist(vector, view, legal)
            else:
                action = None
        except ValueError:  # the sampler found the observation inconsistent
            action = None
        if action is None or action not in legal:
            self.fallbacks += 1
            return self._fallback_agent.act(observation)
        return action

    def _note_dealer(self, view: obs_mod.PastonView) -> None:
        if self._first_dealer is None:
            self._first_dealer = view.dealer
        elif view.dealer != self._first_dealer:
            self._other_dealer_seen = True

    def _worlds(self, vector: np.ndarray, view: obs_mod.PastonView, n: int) -> list[Any]:
        sample_worlds = self._sample_worlds  # the game's belief sampler (observation alone)
        first_deal = None
        if view.totals is not None:
            try:
                return sample_worlds(vector, n, self.rng, observer=0)
            except ValueError as exc:
                if "first deal" not in str(exc):
                    raise
            first_deal = not self._other_dealer_seen
        return sample_worlds(vector, n, self.rng, observer=0, first_deal=first_deal)

    def _inferred_worlds(self, vector: np.ndarray, view: obs_mod.PastonView, n: int) -> list[Any]:
        """``n`` worlds resampled from ``infer * n`` by the likelihood of the others' public
        calls under the heuristic (:func:`folkcards.search.paston_belief.weight_worlds`)."""
        if self.params.infer <= 1:
            return self._worlds(vector, view, n)
        return self._worlds_weighted_by(self._fallback_agent, vector, view, n, self.params.infer)

    def _worlds_weighted_by(
        self, model: Any, vector: np.ndarray, view: obs_mod.PastonView, n: int, factor: int
    ) -> list[Any]:
        """``n`` worlds resampled from ``factor * n`` uniform ones (:meth:`PimcAgent._worlds`)
        by the likelihood of the others' public calls under ``model`` (each call mixed with a
        uniform choice by ``infer_epsilon``)."""
        from ..search.belief import resample
        from ..search.paston_belief import weight_worlds

        worlds = PimcAgent._worlds(self, vector, view, n * factor)
        weights = weight_worlds(
            worlds,
            model,
            epsilon=self.params.infer_epsilon,
            history=public_prefix(view, self.variant),
        )
        return resample(worlds, weights, n, self.rng)

    # --- card play -------------------------------------------------------------------------

    def _play(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        p = self.params
        deadline = time.perf_counter() + p.time if p.time > 0 else None
        rows: list[list[int]] = []
        positions: list[Any] = []
        batch = p.samples if deadline is None else max(4, p.samples // 8)
        while len(rows) < p.samples:
            worlds = self._worlds(vector, view, min(batch, p.samples - len(rows)))
            for world in worlds:
                position = world.solver_position()
                positions.append(position)
                values = self.solver.move_values(position)
                rows.append([values[card] for card in legal])
            if deadline is not None and time.perf_counter() > deadline:
                break
        totals = np.asarray(rows, dtype=float)  # worlds x legal: declarer's total tricks
        scores, side = self._play_scores(view, totals, legal)

        def best(values: np.ndarray) -> int:
            return min(
                range(len(legal)), key=lambda i: (-values[i], -side[i], legal[i] & 7, legal[i])
            )

        self.last_fusion = None
        if not self._fusion_applies(view, positions[0]):
            self.last_action_values = dict(zip(legal, scores.tolist(), strict=True))
            return legal[best(scores)]
        cost = self._fusion_cost(view, positions[: p.fusion_samples], legal)
        chosen = best(scores - cost)
        self.last_action_values = dict(zip(legal, (scores - cost).tolist(), strict=True))
        self.last_fusion = FusionNote(
            declaring=view.declarer == 0,
            sole=view.num_active == 2,
            tricks_left=positions[0].tricks_left,
            cost=dict(zip(legal, cost.tolist(), strict=True)),
            plain=legal[best(scores)],
            chosen=legal[chosen],
        )
        return legal[chosen]

    def _fusion_applies(self, view: obs_mod.PastonView, position: Any) -> bool:
        """Whether this card-play decision gets the strategy-fusion correction: ``fusion``
        asks for it in this seat, and a later decision of this seat is still a choice (more
        than two tricks to play)."""
        wanted = self.params.fusion == 2 or (self.params.fusion == 1 and view.declarer == 0)
        return wanted and position.tricks_left > 2

    def _fusion_cost(
        self, view: obs_mod.PastonView, positions: list[Any], legal: list[int]
    ) -> np.ndarray:
        """PIMC's over-credit of each legal card for choosing the next card per world
        (:func:`folkcards.search.paston_fused_play.fused_card_values` on ``positions``)."""
        from ..search.paston_fused_play import fused_card_values

        scores = functools.partial(_seat_scores, view, variant=self.variant)
        values = fused_card_values(self.solver, positions, scores)
        cost = dict(zip(values.cards, values.fusion_cost, strict=True))
        return np.array([cost[card] for card in legal])

    def _play_scores(
        self, view: obs_mod.PastonView, totals: np.ndarray, legal: list[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Mean table score for this seat and mean tricks of its side, per legal card."""
        declarer, level = view.declarer, view.contract
        assert declarer is not None and level is not None
        defence_tricks = sum(view.tricks[r] for r in range(3) if r != declarer)
        scores = _seat_scores(view, totals, self.variant)
        if declarer != 0 and view.num_active == 3 and len(view.trick) == 2:
            # last to play beside a partner: who takes this trick is known for each card, and
            # a trick taken by the partner is not this seat's (the solver counts them alike)
            for i, card in enumerate(legal):
                winner = trick_winner([*view.trick, (0, card)], LEVEL_TRUMP[level])
                scores[:, i] = table_scores(
                    totals[:, i],
                    level=level,
                    declarer=False,
                    own_tricks=view.tricks[0] + (winner == 0),
                    defence_tricks=defence_tricks + (winner != declarer),
                    variant=self.variant,
                )
        side = totals if declarer == 0 else self.variant.num_tricks - totals
        return scores.mean(axis=0), side.mean(axis=0)

    # --- solving full deals ----------------------------------------------------------------

    def _declarer_tricks(self, hands: list[int], trump: int, defenders: list[int]) -> int:
        return self.solver.solve(_first_lead(hands, trump, 0, defenders))

    def _defenders(
        self, hands: list[int], level: int, all_pass: bool, auction: bool
    ) -> tuple[int, ...]:
        """The seats that defend against this seat's ``level`` in a world: both, or as the
        heuristic would call with their hands (see ``defence_model``)."""
        if self.params.defence_model < (2 if auction else 1):
            return (1, 2)
        left = defence_call(
            hands[1], level, all_pass=all_pass, first_speaker=True, other_whisted=False
        )
        right = defence_call(
            hands[2], level, all_pass=all_pass, first_speaker=False, other_whisted=left
        )
        return tuple(seat for seat, whists in ((1, left), (2, right)) if whists)

    def _declaring_score(
        self,
        hands: list[int],
        level: int,
        all_pass: bool,
        solved: dict[tuple[Any, ...], int],
        key: Any,
        auction: bool = False,
    ) -> float:
        """This seat's score for declaring ``level`` with ``hands[0]`` in one world: the
        defence calls (:meth:`_defenders`), then an automatic win or the open-hand result.
        ``solved`` caches trick counts under ``(key, trump, defenders)``."""
        defenders = self._defenders(hands, level, all_pass, auction)
        variant = self.variant
        if not defenders:  # both passed: automatic win
            return float(declarer_score(variant.num_tricks, level, variant))
        trump = LEVEL_TRUMP[level]
        if (key, trump, defenders) not in solved:
            solved[key, trump, defenders] = self._declarer_tricks(hands, trump, list(defenders))
        return float(declarer_score(solved[key, trump, defenders], level, variant))

    def _contract_values(
        self, hand: int, worlds: list[Any], levels: list[int], all_pass: bool
    ) -> list[float]:
        """Mean score of declaring each contract level with this ``hand`` (seat 0, discarded) over
        ``worlds`` (opponents' hands from the world)."""
        solved: dict[tuple[Any, ...], int] = {}
        return [
            float(
                np.mean(
                    [
                        self._declaring_score(
                            [hand, w.hands[1], w.hands[2]], level, all_pass, solved, i
                        )
                        for i, w in enumerate(worlds)
                    ]
                )
            )
            for level in levels
        ]

    # --- auction ---------------------------------------------------------------------------

    def _bid(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        bids = [a for a in legal if a != PASS]
        if not bids:
            return PASS
        levels = self._levels_from(bids[0] - BID_BASE)
        worlds = self._worlds(vector, view, self.params.bid_samples)
        hand = sum(1 << c for c in view.hand)
        values = dict.fromkeys(levels, 0.0)
        solved: dict[tuple[Any, ...], int] = {}
        for i, world in enumerate(worlds):
            twelve = hand | world.prikup
            for lv in levels:
                kept = twelve & ~greedy_discard(twelve, LEVEL_TRUMP[lv], self.variant.prikup_size)
                hands = [kept, world.hands[1], world.hands[2]]
                score = self._declaring_score(hands, lv, False, solved, i, auction=True)
                if self.params.bid_floor:
                    score = max(score, SURRENDER_SCORE)
                values[lv] += score / len(worlds)
        best = max(values.values())
        self.last_estimate = best
        return bids[0] if best > self.params.bid_margin else PASS

    # --- discards --------------------------------------------------------------------------

    def _levels_from(self, low: int) -> list[int]:
        """The contracts a declarer may name after a won bid of ``low``: best spades alone,
        else the ladder's trump levels from ``low`` up."""
        if low == BEST_SPADES:
            return [BEST_SPADES]
        return [level for level in self.variant.ladder if low <= level < BEST_SPADES]

    def _contract_levels(self, view: obs_mod.PastonView) -> list[int]:
        return self._levels_from(max(view.high_bid or 0, 0))

    def _discard(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        planned = self._planned_discard
        if planned is not None and list(view.discards) == [planned[0]] and planned[1] in legal:
            return planned[1]  # the pair's second card, if its first is the one discarded
        hand = sum(1 << c for c in view.hand)
        levels = self._contract_levels(view)
        worlds = self._worlds(vector, view, self.params.discard_samples)
        need = self.variant.prikup_size - len(view.discards)
        # the trump first, each with its greedy discard; then the candidate sets for it
        best_trump = max(
            sorted({LEVEL_TRUMP[lv] for lv in levels}),
            key=lambda trump: max(
                self._contract_values(
                    hand & ~self._greedy(hand, trump, need),
                    worlds,
                    [lv for lv in levels if LEVEL_TRUMP[lv] == trump],
                    view.all_pass,
                )
            ),
        )
        trump_levels = [lv for lv in levels if LEVEL_TRUMP[lv] == best_trump]
        scored = [
            (max(self._contract_values(hand & ~mask, worlds, trump_levels, view.all_pass)), -mask)
            for mask in self._candidate_discards(hand, best_trump, need)
        ]
        mask = -max(scored)[1]
        cards = _cards_by_lowness(mask_to_cards(mask), hand)
        self._planned_discard = (cards[0], cards[1]) if need == 2 else None
        return cards[0]

    @staticmethod
    def _greedy(hand: int, trump: int, need: int) -> int:
        if need == 2:
            return greedy_discard(hand, trump)
        trumps = _SUIT << (8 * trump)
        cards = _cards_by_lowness(mask_to_cards(hand & ~trumps) or mask_to_cards(hand), hand)
        return 1 << cards[0]

    def _candidate_discards(self, hand: int, trump: int, need: int) -> list[int]:
        """Discard sets of ``need`` cards to try with ``trump``: every pair (or single) of the
        ``discard_candidates`` lowest non-trump cards, and the greedy choice."""
        trumps = _SUIT << (8 * trump)
        side = _cards_by_lowness(mask_to_cards(hand & ~trumps), hand)
        pool = side[: max(self.params.discard_candidates, need)]
        if len(pool) < need:
            pool = _cards_by_lowness(mask_to_cards(hand), hand)[: max(need, 2)]
        masks = {sum(1 << c for c in combo) for combo in combinations(pool, need)}
        if need == 2:
            masks.add(greedy_discard(hand, trump))
        return sorted(masks)

    # --- contract and defence --------------------------------------------------------------

    def _contract(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        levels = [a - CONTRACT_BASE for a in legal if a != SURRENDER]
        if not levels:
            return SURRENDER
        worlds = self._worlds(vector, view, self.params.bid_samples)
        hand = sum(1 << c for c in view.hand)
        values = self._contract_values(hand, worlds, levels, view.all_pass)
        i = int(np.argmax(values))
        if SURRENDER in legal and values[i] < SURRENDER_SCORE:
            return SURRENDER
        return CONTRACT_BASE + levels[i]

    def _whist(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        declarer, level = view.declarer, view.contract
        assert declarer is not None and level is not None
        partner = 3 - declarer  # relative seats: the agent is 0, the others 1 and 2
        trump = LEVEL_TRUMP[level]
        factor = LEVEL_FACTOR[level]
        said_whist = bool(view.whist[partner])
        said_pass = bool(view.defence_pass[partner])
        worlds = self._inferred_worlds(vector, view, self.params.bid_samples)
        tricks = self.variant.num_tricks
        total = 0.0
        for world in worlds:
            hands = [world.hands[0], world.hands[1], world.hands[2]]
            partner_whists, partner_passed = said_whist, said_pass
            if not said_whist and not said_pass and self.params.partner_model:
                # the partner speaks after this seat's whist: its call as the heuristic's
                partner_whists = defence_call(
                    hands[partner],
                    level,
                    all_pass=view.all_pass,
                    first_speaker=False,
                    other_whisted=True,
                )
                partner_passed = not partner_whists
            value = 0.0
            weight = 0.0
            if not partner_passed:
                t = self.solver.solve(_first_lead(hands, trump, declarer, [0, partner]))
                own = (tricks - t) * self._defence_share(hands[0], hands[partner], trump)
                value += _defender_value(own, False, self.variant) * factor
                weight += 1
            if not partner_whists:
                t = self.solver.solve(_first_lead(hands, trump, declarer, [0]))
                value += defender_score(tricks - t, True, self.variant) * factor
                weight += 1
            total += value / weight
        self.last_estimate = total / len(worlds)
        return WHIST if self.last_estimate > self.params.whist_margin else PASS

    def _defence_share(self, mine: int, partner: int, trump: int) -> float:
        """This seat's share of the two defenders' tricks: in proportion to the heuristic's
        trick estimates of the two hands (``defence_split=1``), or half (``0``)."""
        if not self.params.defence_split:
            return 0.5
        own = max(defence_tricks(mine, trump), _MIN_ESTIMATE)
        other = max(defence_tricks(partner, trump), _MIN_ESTIMATE)
        return own / (own + other)


_MIN_ESTIMATE = 0.1  # tricks: no hand's share of the defence is ever quite zero


def _first_lead(hands: list[int], trump: int, declarer: int, defenders: list[int]) -> Any:
    """The solver's position before the first lead (any hand size: a variant's too)."""
    from ..search.paston_solver import Position

    return Position(hands, trump, declarer, active=[declarer, *defenders])


def make_pimc_agent(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> PimcAgent:
    """The ``pimc[:key=value,...]`` factory (keys: the :class:`PimcParams` fields and seed)."""
    params, spec_seed = parse_spec(arg)
    return PimcAgent(game, seat, spec_seed if spec_seed is not None else seed, params)


PARAM_NAMES = tuple(f.name for f in fields(PimcParams))


_PHASE_PLAY = obs_mod.OFFSETS["phase"] + 4  # the phase piece: auction, discard, contract,
# defence, play, over
_HAND = slice(obs_mod.OFFSETS["hand"], obs_mod.OFFSETS["hand"] + 32)


class PastonEndgameSearch:
    """The distilled player's card play: :class:`PimcAgent`'s card play (``samples`` worlds,
    each solved open-handed) for every card-play decision with ``cards`` or fewer cards in the
    seat's hand; ``None`` (the network decides) elsewhere.

    By default it plays every card with a choice (``cards`` 10) over 64 worlds: the card play is
    where the network lost most of its teacher's points, and the number of worlds mattered as
    much as the number of tricks searched (``docs/guide/distilled.md``: 6, 8 and 10 cards, 16
    and 64 worlds compared; with these defaults the player was level with the expert). The
    median decision stays far below a millisecond (most decisions are calls or forced cards);
    the 95th percentile was about 12 ms. Deterministic given its seed; a batched caller reseeds
    it per row (:meth:`reseed`)."""

    default_cards = 10
    default_samples = 64

    def __init__(
        self,
        game: str = "paston",
        seat: str = "player_0",
        seed: int | None = None,
        cards: int | None = None,
        samples: int | None = None,
    ):
        self.cards = self.default_cards if cards is None else int(cards)
        self.samples = self.default_samples if samples is None else int(samples)
        if not 0 <= self.cards <= NUM_TRICKS:
            raise ValueError(f"endgame cards must be 0-{NUM_TRICKS}, got {self.cards}")
        if self.samples < 1:
            raise ValueError(f"endgame samples must be at least 1, got {self.samples}")
        self.search = PimcAgent(game, seat, seed, PimcParams(samples=self.samples))

    def applies(self, vector: np.ndarray) -> bool:
        """Whether the search takes this decision: card play, ``cards`` or fewer in hand."""
        return bool(vector[_PHASE_PLAY] > 0) and int(np.count_nonzero(vector[_HAND])) <= self.cards

    def reset(self) -> None:
        """Forget what the search noted of the game so far (a new episode)."""
        self.search.reset()

    def reseed(self, seed: int) -> None:
        """Start a fresh decision state (no dealer noted) drawing its worlds from a generator
        seeded by ``seed``."""
        self.search.reseed(seed)
        self.search.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int | None:
        """The search's card, or ``None`` when it does not apply or the card is forced (or it
        cannot sample worlds: the sampler found the observation inconsistent)."""
        vector = np.asarray(observation["observation"])
        if not self.applies(vector):
            return None
        legal = legal_actions(observation)
        if len(legal) < 2:
            return None
        view = obs_mod.decode(vector)
        self.search._note_dealer(view)
        try:
            action = self.search._play(vector, view, legal)
        except ValueError:
            return None
        return action if action in legal else None
