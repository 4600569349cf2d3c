"""Paston ``expert``: the learned evaluator's bidding, contract and whist, ``pimc``'s card play.

The decisions before the play come from the Paston evaluator
(:mod:`folkcards.search.paston_evaluator`). Two are committed: ``open_hand``, trained on
solver-scored open-hand tables by ``folkcards train-evaluator``
(``agents/models/paston_evaluator.npz``, ``expert``'s evaluator before 0.11.0); ``refit``,
that one refitted to the expert's own results by ``folkcards refit-evaluator``
(``agents/models/paston_evaluator_refit.npz``); and ``refit_2``, ``refit`` refitted again by the
loop (``folkcards iterate --config configs/paston/iterate.yaml``, its generation 1;
``agents/models/paston_evaluator_refit_2.npz``), which ``expert`` plays by default:

- **Auction.** The agent may bid the next level ``L``. The value of winning the auction at
  ``L`` is the best predicted value of declaring a contract it could then name,
  ``max(declare_c for c reachable from L)`` (``bid_estimate=0``; ``1``: the head's optimistic
  "best reachable once everything is known", ``best_from_L``; values between blend the two).
  It bids while that value exceeds ``bid_margin`` plus the value of passing: 0 while nobody
  else holds a bid; once another seat does, ``pass_weight`` times what whisting against it is
  worth (the whist head's value of defending the contract such a declarer names most, hearts,
  or best spades after a best-spades bid, from this seat's side of the declarer; 0 when it
  would not whist). Passing to a declarer one can beat is worth points, not nothing.
- **Discards.** ``pimc``'s search (``discard_search=1``, default) over 32 worlds per
  candidate pair (``discard_samples=32``; pimc's own default is 8, and ``expert`` before 0.6.0
  is ``expert:discard_samples=8``), or the evaluator's contract head over the table's
  candidate pairs (``0``; the head only saw the tables' best discards,
  so it may not rank a poor pair low).
- **Contract.** The evaluator's contract head: the predicted score of each legal contract
  with the 10 cards kept, surrender (−10) when every contract is predicted below it;
  ``contract_search=1``: ``pimc``'s solver search instead.
- **Whist.** The evaluator's whist head (the contract, whether this seat speaks first, the
  first speaker's call); whist when the prediction exceeds ``whist_margin``. After an
  all-pass (a designated declarer, not one who chose to play) ``pimc``'s whist decides, and
  always with ``whist_search=1`` (solved worlds instead of the head).
- **Inference.** ``pimc``'s searches before the play (auction with ``defence_model=2``,
  contract, whist) weight their worlds by the others' calls under the heuristic's rules; with
  ``learned_inference=1`` under the evaluator's policy instead, the learned model that reads
  other players' calls better (docs/bidding_benchmark.md, "A learned model of the bidder").
- **Card play**: ``pimc``'s (the agent *is* a :class:`~folkcards.agents.pimc.PimcAgent`;
  its card-play keys ``samples``, ``time`` … apply). With ``play_infer=K`` (K > 1) the card
  play draws ``K * samples`` worlds and resamples ``samples`` of them by the likelihood of the
  others' bids, contract and defence calls under the evaluator's own policy
  (:class:`~folkcards.search.paston_evaluator.EvaluatorPolicy`, softness
  ``policy_temperature`` points) instead of treating them as uninformative; off by default
  (not yet measured).

Spec: ``expert[:key=value,...]`` with the :class:`ExpertParams` keys, any ``pimc`` key, ``seed``
and ``model=NAME`` (a committed evaluator: ``refit_2``, the default, ``refit`` or ``open_hand``) or
``model=PATH`` (another evaluator file). Deterministic given its seed (unless pimc's ``time``
is set). Plays Paston and its variants (``paston_bidding``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.cards import mask_to_cards
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import (
    BEST_SPADES,
    BID_BASE,
    CONTRACT_BASE,
    HEARTS,
    PASS,
    SURRENDER,
    WHIST,
)
from ..envs.paston_bidding.tables import candidate_pairs
from ..envs.registry import game_spec
from ..search.paston_evaluator import (
    EvaluatorPolicy,
    PastonEvaluator,
    load_evaluator,
    pass_value,
)
from .base import spec_pairs
from .pimc import PARAM_NAMES as PIMC_KEYS
from .pimc import SURRENDER_SCORE, PimcAgent, _cards_by_lowness
from .pimc import parse_spec as parse_pimc_spec


@dataclass(frozen=True)
class ExpertParams:
    """The evaluator-driven decisions' parameters (spec keys of the same names)."""

    bid_margin: float = 0.0  # bid while the value of winning at the next level exceeds this
    pass_weight: float = 0.25  # plus this times the value of whisting the current high bidder
    bid_estimate: float = 0.0  # 0: max over contracts of their mean; 1: the optimistic head
    whist_margin: float = -2.0  # whist when its predicted value exceeds this
    discard_search: int = 1  # 1: pimc's discard search; 0: the evaluator's contract head
    contract_search: int = 0  # 1: pimc's contract search; 0: the evaluator's contract head
    play_infer: int = 1  # card play: draw play_infer * samples worlds and resample them by the
    # likelihood of the others' public calls under the evaluator's policy (1 = uniform worlds)
    policy_temperature: float = 5.0  # that policy's softness, in points
    whist_search: int = 0  # 1: pimc's solved whist/pass (worlds inferred) instead of the head
    learned_inference: int = 0  # 1: pimc's inferred worlds (auction, contract, whist searches)
    # weighted by the evaluator's policy instead of the heuristic's rules


_EXPERT_FLOATS = {
    "bid_margin",
    "bid_estimate",
    "whist_margin",
    "policy_temperature",
    "pass_weight",
}
_EXPERT_INTS = {"play_infer"}
_EXPERT_FLAGS = {"discard_search", "contract_search", "whist_search", "learned_inference"}

# The expert's own defaults for pimc's keys (a spec's keys override them): its discard search
# weighs each candidate pair over 32 worlds (pimc's own default is 8; `expert` before 0.6.0
# is ``expert:discard_samples=8``).
PIMC_DEFAULTS = {"discard_samples": "32"}


NAMED_MODELS = {
    "open_hand": "paston_evaluator.npz",  # configs/paston/evaluator.yaml
    "refit": "paston_evaluator_refit.npz",  # configs/paston/evaluator_outcomes.yaml
    "refit_2": "paston_evaluator_refit_2.npz",  # configs/paston/iterate.yaml, generation 1
}
"""``model=NAME``: the evaluators committed with the package, by name."""
DEFAULT_MODEL = "refit_2"
"""The evaluator ``expert`` plays when the spec names none (``open_hand`` before 0.11.0)."""


def model_path(text: str) -> Path:
    """The evaluator file that ``model=text`` names: a committed one by name, else a path."""
    if text in NAMED_MODELS and not Path(text).exists():
        return Path(__file__).parent / "models" / NAMED_MODELS[text]
    return Path(text)


def open_hand_evaluator_path() -> Path:
    """The committed evaluator trained on solver-scored open-hand tables."""
    return model_path("open_hand")


def default_evaluator_path() -> Path:
    """The committed evaluator ``expert`` plays by default."""
    return model_path(DEFAULT_MODEL)


@functools.lru_cache(maxsize=4)
def _evaluator(path: str) -> PastonEvaluator:
    return load_evaluator(path)


def parse_spec(arg: str | None) -> tuple[ExpertParams, str, str | None]:
    """``(params, model path, pimc spec)`` from a spec argument such as
    ``"bid_margin=2,samples=64,seed=3"``; ``ValueError`` in one line for a bad key or value."""
    params = ExpertParams()
    model = str(default_evaluator_path())
    pimc_items = dict(PIMC_DEFAULTS)
    values: dict[str, Any] = {}
    known = sorted({f.name for f in fields(ExpertParams)} | set(PIMC_KEYS) | {"seed", "model"})
    for key, text in spec_pairs(arg, known, "expert"):
        if key == "model":
            model = str(model_path(text))
        elif key in _EXPERT_FLOATS:
            try:
                values[key] = float(text)
            except ValueError:
                raise ValueError(f"expert parameter {key} needs a number, got {text!r}") from None
            if not np.isfinite(values[key]):
                raise ValueError(f"expert parameter {key} must be finite, got {text!r}")
            if key in ("bid_estimate", "pass_weight") and not 0 <= values[key] <= 1:
                raise ValueError(f"expert parameter {key} must be in [0, 1], got {text}")
            if key == "policy_temperature" and not values[key] > 0:
                raise ValueError(f"expert parameter policy_temperature must be > 0, got {text}")
        elif key in _EXPERT_INTS:
            try:
                values[key] = int(text)
            except ValueError:
                raise ValueError(f"expert parameter {key} needs an integer, got {text!r}") from None
            if values[key] < 1:
                raise ValueError(f"expert parameter {key} must be at least 1, got {text}")
        elif key in _EXPERT_FLAGS:
            if text not in ("0", "1"):
                raise ValueError(f"expert parameter {key} must be 0 or 1, got {text!r}")
            values[key] = int(text)
        else:
            pimc_items[key] = text
    pimc_arg = ",".join(f"{key}={text}" for key, text in pimc_items.items()) or None
    try:
        parse_pimc_spec(pimc_arg)
    except ValueError as error:
        raise ValueError(f"expert: {error}") from None
    return replace(params, **values), model, pimc_arg


class ExpertAgent(PimcAgent):
    """Paston expert agent (see the module docstring)."""

    name = "expert"

    def __init__(
        self,
        game: str = "paston",
        seat: str = "player_0",
        seed: int | None = None,
        arg: str | None = None,
    ):
        expert, model, pimc_arg = parse_spec(arg)
        pimc_params, pimc_seed = parse_pimc_spec(pimc_arg)
        super().__init__(game, seat, pimc_seed if pimc_seed is not None else seed, pimc_params)
        self.expert = expert
        self.model_path = Path(model)
        self.evaluator = _evaluator(model)
        self.last_values: np.ndarray | None = None  # the evaluator's last outputs (analysis)
        self.policy = EvaluatorPolicy(
            self.evaluator,
            expert.bid_margin,
            temperature=expert.policy_temperature,
            pass_weight=expert.pass_weight,
            whist_margin=expert.whist_margin,
        )

    def model_files(self) -> tuple[Path, ...]:
        return (self.model_path,)

    def belief_model(self) -> EvaluatorPolicy:
        """This player as a model for weighting worlds: the evaluator's policy, the expert's own
        decisions softened by ``policy_temperature`` points (its card play: no opinion). Belief
        measurements (``folkcards bidding information --models expert``) weight by it instead of
        the agent's deterministic choices."""
        return self.policy

    @staticmethod
    def _position(view: obs_mod.PastonView) -> int:
        """This seat's order in the auction: 0 first bidder, 1 second, 2 third."""
        return (0 - view.first_bidder) % 3

    @staticmethod
    def _min_level(view: obs_mod.PastonView) -> int:
        return max(view.high_bid if view.high_bid is not None else 0, 0)

    # --- auction ---------------------------------------------------------------------------

    def bid_value(self, hand: int, position: int, level: int) -> float:
        """The predicted value of winning the auction at ``level`` with the dealt ``hand``."""
        values = self.evaluator.declare(hand, position)
        self.last_values = values
        reachable = [BEST_SPADES] if level == BEST_SPADES else list(range(level, HEARTS + 1))
        committed = max(float(values[c]) for c in reachable)
        optimistic = float(values[5 + level])
        w = self.expert.bid_estimate
        return (1 - w) * committed + w * optimistic

    def _bid(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        bids = [a for a in legal if a != PASS]
        if not bids:
            return PASS
        hand = sum(1 << c for c in view.hand)
        value = self.bid_value(hand, self._position(view), bids[0] - BID_BASE)
        self.last_estimate = value
        return bids[0] if value > self.expert.bid_margin + self.pass_value(view) else PASS

    def pass_value(self, view: obs_mod.PastonView) -> float:
        """What passing is worth in the auction: ``pass_weight`` times the whist head's value of
        defending the current high bidder's likely contract (hearts; best spades after a
        best-spades bid), 0 if it would not whist or nobody else holds a bid."""
        hand = sum(1 << c for c in view.hand)
        return pass_value(
            self.evaluator, hand, view.high_bid, view.high_bidder, self.expert.pass_weight,
            self.expert.whist_margin,
        )  # fmt: skip

    # --- discards and contract -------------------------------------------------------------

    def _levels(self, view: obs_mod.PastonView) -> list[int]:
        return self._contract_levels(view)

    def evaluator_discard(self, view: obs_mod.PastonView) -> tuple[int, int]:
        """The pair of cards the evaluator's contract head discards from the declarer's twelve
        (the hand and any card already discarded), the lower card first: the pair whose kept
        ten it predicts best over the contracts the auction allows."""
        hand = sum(1 << c for c in (*view.hand, *view.discards))
        levels = self._levels(view)
        pairs = candidate_pairs(hand)
        values = self.evaluator.contract_many(
            [hand & ~p for p in pairs], self._position(view), self._min_level(view)
        )
        best = max(range(len(pairs)), key=lambda k: (max(values[k, lv] for lv in levels), -k))
        cards = _cards_by_lowness(mask_to_cards(pairs[best]), hand)
        return cards[0], cards[1]

    def _discard(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        if self.expert.discard_search or len(view.hand) + len(view.discards) != 12:
            return super()._discard(vector, view, legal)
        first, second = self.evaluator_discard(view)
        if not view.discards:
            return first
        # the pair's second card; worked out again from the twelve, so it needs no memory
        if list(view.discards) == [first]:
            return second
        return super()._discard(vector, view, legal)  # the first card was not the pair's

    def _contract(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        if self.expert.contract_search:
            return super()._contract(vector, view, legal)
        levels = [a - CONTRACT_BASE for a in legal if a != SURRENDER]
        if not levels:
            return SURRENDER
        kept = sum(1 << c for c in view.hand)
        values = self.evaluator.contract(kept, self._position(view), self._min_level(view))
        self.last_values = values
        best = max(levels, key=lambda lv: (float(values[lv]), -lv))
        if SURRENDER in legal and float(values[best]) < SURRENDER_SCORE:
            return SURRENDER
        return CONTRACT_BASE + best

    # --- card play: worlds weighted by the evaluator's policy --------------------------------

    def _worlds(self, vector: np.ndarray, view: obs_mod.PastonView, n: int) -> list[Any]:
        if view.phase != "play" or self.expert.play_infer <= 1:
            return super()._worlds(vector, view, n)
        return self._worlds_weighted_by(self.policy, vector, view, n, self.expert.play_infer)

    def _inferred_worlds(self, vector: np.ndarray, view: obs_mod.PastonView, n: int) -> list[Any]:
        """pimc's inferred worlds; with ``learned_inference``, weighted by the evaluator's
        policy (the learned model of the others' calls) instead of the heuristic."""
        if not self.expert.learned_inference or self.params.infer <= 1:
            return super()._inferred_worlds(vector, view, n)
        return self._worlds_weighted_by(self.policy, vector, view, n, self.params.infer)

    # --- defence ---------------------------------------------------------------------------

    @staticmethod
    def whist_inputs(view: obs_mod.PastonView) -> tuple[int, int, bool, int]:
        """What the whist head reads in this defence decision: ``(hand, contract, first
        speaker, the first speaker's call)`` (:func:`~folkcards.search.paston_evaluator.whist_features`)."""
        declarer, level = view.declarer, view.contract
        assert declarer is not None and level is not None
        first = declarer == 2  # this seat (0) is the declarer's left
        partner = 3 - declarer
        call = (
            0 if first else (1 if view.whist[partner] else 2 if view.defence_pass[partner] else 0)
        )
        return sum(1 << c for c in view.hand), level, first, call

    def whist_value(self, view: obs_mod.PastonView) -> float:
        """The evaluator's value of whisting in this defence decision."""
        return self.evaluator.whist(*self.whist_inputs(view))

    def _whist(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        if view.all_pass or self.expert.whist_search:
            return super()._whist(vector, view, legal)
        self.last_estimate = self.whist_value(view)
        return WHIST if self.last_estimate > self.expert.whist_margin else PASS


_PHASE = obs_mod.OFFSETS["phase"]  # auction, discard, contract, defence, play, over
_ALL_PASS = obs_mod.OFFSETS["all_pass"]


DISTILLED_CALLS_MODEL = "refit_2"
"""The evaluator of ``distilled``'s calls: ``expert``'s since 0.12.0 (``open_hand`` before)."""


class PastonLearnedCalls:
    """The expert's learned calls for the ``distilled`` player, with the evaluator
    :data:`DISTILLED_CALLS_MODEL` unless ``model`` names another
    (``distilled:calls_model=open_hand``: the calls before 0.12.0): its bids, discards (the
    evaluator's pair, ``discard_search=0``; ``1``: the
    expert's discard search over ``discard_samples`` worlds, 32 by default, the one decision a
    deal that then costs milliseconds), contract and whist (except after an all-pass, where the
    expert searches), each from the evaluator alone, so under a millisecond; the network plays
    the rest. The protocol of the distilled player's searches (``applies``, ``act``, ``reset``,
    ``reseed``); deterministic, and with the evaluator's discards stateless, so a batched row
    needs no history (with the discard search a row's second discard is searched again, as one
    card to discard)."""

    def __init__(
        self,
        game: str = "paston",
        seat: str = "player_0",
        seed: int | None = None,
        discard_search: int = 0,
        model: str | None = None,
    ):
        # the expert's spec parser refuses a value other than 0 or 1 and a model it cannot find
        spec = f"discard_search={discard_search},model={model or DISTILLED_CALLS_MODEL}"
        self.expert = ExpertAgent(game, seat, seed, spec)

    def applies(self, vector: np.ndarray) -> bool:
        """Whether this decision is one of the calls it makes (read from the vector's phase and
        all-pass pieces alone: the batched form asks it of every row)."""
        phase = vector[_PHASE : _PHASE + 4]
        return bool(phase[:3].any() or (phase[3] > 0 and not vector[_ALL_PASS] > 0))

    def reset(self) -> None:
        """Forget the planned second discard (the only thing kept between calls)."""
        self.expert.reset()

    def reseed(self, seed: int) -> None:
        """A fresh state whose discard search (if on) draws from a generator seeded by
        ``seed``; the evaluator's calls draw no random numbers."""
        self.expert.reseed(seed)
        self.expert.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int | None:
        """The expert's call, or ``None`` when this is not one of its calls or it is forced."""
        vector = np.asarray(observation["observation"])
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if len(legal) < 2 or not self.applies(vector):
            return None  # decided before decoding: the player asks this of every card it plays
        view = obs_mod.decode(vector)
        agent = self.expert
        decide = {
            "auction": agent._bid,
            "discard": agent._discard,
            "contract": agent._contract,
            "defence": agent._whist,
        }[view.phase]
        action = decide(vector, view, legal)
        return action if action in legal else None


def make_expert_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> ExpertAgent:
    """The ``expert[:key=value,...]`` factory (keys: :class:`ExpertParams`, pimc's, seed,
    model)."""
    if game_spec(game).family != "paston":
        raise ValueError(f"expert plays paston, not {game!r}")
    return ExpertAgent(game, seat, seed, arg)
