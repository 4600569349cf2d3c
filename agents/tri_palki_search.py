"""Tri Palki ``pimc``: sampled worlds and heuristic rollouts, the fewest expected sticks.

At every decision with a choice (a turn's pass / swaps / swap all, or announce / no announce)
the agent draws ``samples`` complete hidden states consistent with its observation — the other
hands and the reserve order — with :func:`folkcards.search.tri_palki_belief.sample_worlds`
(exact and uniform given the observation), then weights them by the round so far (below).
Each world is loaded into the rules engine
(:class:`folkcards.envs.tri_palki.rules.TriPalkiRound`) directly from the world and the
observation's public facts (whose turn, passes, the announcer and the final turns owed, the
publicly known cards). For every legal action the agent applies it in every world and plays
the round to its end with the Tri Palki heuristic's rules in every seat (its own included), then
scores the revealed hands with the rules' ``settle``: a stick for this seat counts 1. A rollout
that has not ended after ``horizon`` actions is scored on the hands it holds then. The same
worlds serve every action, and the agent plays the action with the fewest sticks
(:func:`choose_action`; with ``confidence`` > 0 it keeps the heuristic's own move unless
another is better by that many standard errors of the paired difference).

**Inference from the round so far** (``infer`` > 1; 8 by default). Uniform worlds ignore that
the other players have been choosing all round which cards to keep: their hidden cards are the
ones they kept. The agent remembers its own observations within the round (forgotten at
``reset`` and when a new round begins) and rebuilds from each pair of them the other players'
decisions in between (:func:`folkcards.search.tri_palki_reconstruction.reconstruct_steps`; swaps are
public, the centre is face up), and from the deal to its first decision
(:func:`~folkcards.search.tri_palki_reconstruction.reconstruct_opening`). It draws ``infer * samples``
uniform worlds and keeps ``samples`` of them, resampled in proportion to how likely all those
decisions (passes, swaps, keeping cards, not announcing a 31) are under the rollout policy in
each world, each counting ``(1 - eps) * [the policy makes it] + eps / options``
(:func:`~folkcards.search.tri_palki_likelihood.steps_log_likelihood`, ``eps`` =
``infer_epsilon``; the rollout policy's rules are passed to the search code as its opponent
model, :data:`CORE_MODEL`); identical worlds are rolled out once. At the first decision of a round the
run of passes just before the agent is all it can use (:func:`pass_likelihood`). Everything the
agent uses is in its observations, so two tables that differ only in hidden cards get the same
decisions for the same seed.

Measured (3 players, the agent in one seat and the heuristic in the other two, the same rounds
replayed with the heuristic in its seat; deal seeds 50000+, used for development):

- with the true hidden hands (an oracle, not an agent; reserve order sampled): -0.17 sticks per
  round [-0.21, -0.14] (500 rounds) — the sampler, not the rollouts, was the bottleneck;
- uniform worlds, the plain minimum: -0.01 [-0.06, +0.03] (300 rounds); the earlier default
  (uniform, ``confidence`` 1.5) was +0.04 worse than the heuristic in 3-player tournaments;
- worlds weighted by the round so far (the defaults): -0.033 [-0.058, -0.008] (1,000 rounds).

Check on rounds not used for development, ``folkcards tournament --game tri_palki --num-players 3
--agents pimc ppo:tri_palki heuristic --rounds 2000 --seed 2028`` (every seating; sticks per
round, paired by round; report in ``docs/tournaments/tri_palki_pimc/``): pimc - heuristic
-0.084 [-0.095, -0.073], pimc - ppo:tri_palki -0.077 [-0.089, -0.066]. Decision time (CPU, 3 players,
``benchmarks/agent_speed.py --game tri_palki --agent pimc --episodes 30 --players 3 --seed 7``):
median 33 ms, 95th percentile 53 ms, slowest 80 ms.

**A bound on every decision.** Against players unlike the heuristic (swapping
cards back and forth, rounds running towards ``max_turns``) the reconstructed histories grow to
hundreds of decisions; the work of a decision is therefore counted and capped, whatever the
other players do (``self.work`` after each ``act``): each reconstruction tries at most
``reconstruct_budget`` candidate moves (50,000) and otherwise gives up (the round is then
weighted as from a fresh start); the likelihood, compiled and computed once per distinct hand of
each player, evaluates at most ``infer_budget`` modelled decisions (200,000) and otherwise keeps
each player's most recent decisions only (``self.kept_steps``); rollouts play at most
``worlds x 11 x horizon`` actions (``worlds`` the larger of ``samples`` and
``endgame_samples``). The budgets count work, not time, so decisions stay
deterministic given the seed; where no budget binds they are the decisions made before the
bound (332 decisions against the heuristic and two of the styles replayed identically before
and after). ``benchmarks/pimc_decision_time.py`` measures the decision time against four such
styles and the heuristic at 3, 4 and 6 players: with ``--rounds 4`` (max_turns 300, seed 11, 2
shared cores) the median per cell was 0.05-0.12 s, the 95th percentile 0.09-0.26 s and the
slowest decision 0.54 s; with max_turns 1000 (3 and 6 players, swapping back and forth, long
rounds) the slowest was 0.68 s. Before the bound, 4 players swapping back and forth cost a
median 0.92 s and up to 2.3 s per decision, and long histories grew without limit.

**expert** (:func:`folkcards.agents.tri_palki_net_search.make_tri_palki_expert_agent`): the
same search with :data:`EXPERT_PARAMS` (192 worlds, 768 where the round is about to end, a
softer model of the others), its rollouts played together in compiled code; at 3 players
with the expert-iteration loop's network for its own seat
(``iterated:net=shipped,top_k=5,cutoff=10,others=rules``), at the other table sizes without a
network: there the same
decisions as this agent with that budget (``pimc`` with the same keys, the reference the tests
compare it with) in less time (docs/iterate.md, "The speed of Tri Palki's expert"). Measured against
the 0.4.0 budget (:data:`EXPERT_PARAMS_0_4`) in docs/guide/expert.md, "Tri Palki's expert".

**Tri Palki tiny** (:func:`make_tri_palki_tiny_search_agent`, the variant's ``search_agent``):
its belief sampler lists every world a seat cannot tell apart (at most four: the four cards it
has not seen, one of them the reserve's), so the agent values every one of them, each weighted
by the likelihood of the round so far instead of resampled; rollouts stop at the table's turn
limit (``pimc:max_turns=N``, the variant's 2 by default), where the variant scores the hands as
they stand. At ``max_turns=1`` only the dealer decides and its move ends the round, so the
agent's choice is the best one over the four worlds: an exact best response.

Parameters come from the spec, e.g. ``pimc:samples=32,horizon=60,seed=3`` (fields of
:class:`TriPalkiSearchParams`: ``samples`` 32, ``horizon`` 60, ``rollout`` fast,
``infer`` 8, ``infer_epsilon`` 0.1, ``confidence`` 0, ``infer_budget`` 200000,
``reconstruct_budget`` 50000, ``endgame_samples`` 0, ``histories`` 32,
``interval_histories`` 8). ``endgame_samples`` > 0 draws that many
worlds instead of ``samples`` (still ``infer`` times as many weighted candidates) at the
decisions where the round is about to end: a final turn after an announcement, the announce
decision itself, and a turn where a pass would end the round; these few decisions decide most
sticks, and the outcome of each world is nearly fixed there, so more worlds cut the noise of
the choice where it matters at little cost to the median decision. The agent is
deterministic given its seed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.registry import game_spec
from ..envs.tri_palki import observation as obs_mod
from ..envs.tri_palki.rules import (
    ACTION,
    ANNOUNCE,
    ANNOUNCE_DECISION,
    OVER,
    PASS,
    TriPalkiRound,
    next_alive,
    settle,
)
from ..envs.tri_palki.tiny import TINY_MAX_TURNS
from ..search.tri_palki_likelihood import LIKELIHOOD_BUDGET, OpponentModel
from ..search.tri_palki_reconstruction import MAX_HISTORIES, RECONSTRUCTION_BUDGET
from .base import Agent, legal_actions, make_agent
from .tri_palki_heuristic_core import core_move, core_moves
from .tri_palki_opponent_model import LearnedOpponentModel, load_opponent_model
from .tri_palki_table_memo import remembered


@dataclass(frozen=True)
class TriPalkiSearchParams:
    """The search budget of :class:`TriPalkiSearchAgent` (spec keys of the same names)."""

    samples: int = 32  # worlds per decision
    horizon: int = 60  # actions per rollout before the hands are scored as they stand
    rollout: str = "fast"  # "fast" (engine-level copy of the heuristic's core) or "heuristic"
    infer: int = 8  # draw infer * samples worlds and keep samples, resampled by how likely
    # the other players' decisions this round are under the rollout policy (1 = uniform)
    confidence: float = 0.0  # leave the rollout policy's own move only when another is better
    # by more than this many standard errors over the worlds (0: the plain minimum)
    infer_epsilon: float = 0.1  # each modelled decision counts (1 - eps) * [policy's] + eps / n
    infer_budget: int = LIKELIHOOD_BUDGET  # modelled decisions (worlds x steps) per weighting
    reconstruct_budget: int = RECONSTRUCTION_BUDGET  # candidate moves per reconstruction
    opponents: str = "rules"  # the model the worlds are weighted by: "rules" (the heuristic's
    # core rules) or "learned" (the committed learned opponent model, trained on records)
    endgame_samples: int = 0  # worlds at an endgame decision (an announcement made, the
    # announce decision, or a pass would end the round); 0: ``samples``
    histories: int = 32  # most reconstructions of the round's decisions kept (more: none kept)
    interval_histories: int = MAX_HISTORIES  # most fitting one interval between two decisions

    def worlds_at(self, view: obs_mod.TriPalkiView) -> int:
        """The worlds a decision at ``view`` draws: ``endgame_samples`` in the endgame (a final
        turn, the announce decision, or a pass would end the round), else ``samples``."""
        endgame = view.announced or view.phase == "announce" or view.pass_ends_round
        return self.endgame_samples if endgame and self.endgame_samples else self.samples


_KEYS = (
    "samples", "horizon", "rollout", "infer", "infer_epsilon", "confidence", "infer_budget",
    "reconstruct_budget", "opponents", "endgame_samples", "histories", "interval_histories",
    "seed",
)  # fmt: skip
ROLLOUTS = ("fast", "heuristic")
OPPONENT_MODELS = ("rules", "learned")


def parse_spec(
    arg: str | None, defaults: TriPalkiSearchParams | None = None
) -> tuple[TriPalkiSearchParams, int | None]:
    """``(params, seed)`` from a spec argument such as ``"samples=32,seed=3"``; the keys it
    does not name keep ``defaults`` (``pimc``'s: :class:`TriPalkiSearchParams` ())."""
    params = defaults or TriPalkiSearchParams()
    seed = None
    values: dict[str, Any] = {}
    for item in (arg or "").split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or key not in _KEYS:
            raise ValueError(
                f"Tri Palki pimc parameter {item!r} is not key=value with a key of: "
                f"{', '.join(_KEYS)}"
            )
        if key in ("infer_epsilon", "confidence"):
            try:
                number = float(text)
            except ValueError:
                raise ValueError(
                    f"Tri Palki pimc parameter {key} needs a number, got {text.strip()!r}"
                ) from None
            if key == "infer_epsilon" and not 0 < number <= 1:
                raise ValueError(
                    f"Tri Palki pimc parameter infer_epsilon must be in (0, 1], got {number}"
                )
            if key == "confidence" and number < 0:
                raise ValueError(f"Tri Palki pimc parameter confidence must be >= 0, got {number}")
            if key == "confidence":
                params = replace(params, confidence=number)
            else:
                params = replace(params, infer_epsilon=number)
            continue
        if key == "rollout":
            if text.strip() not in ROLLOUTS:
                raise ValueError(f"Tri Palki pimc rollout must be one of {ROLLOUTS}, got {text!r}")
            params = replace(params, rollout=text.strip())
            continue
        if key == "opponents":
            if text.strip() not in OPPONENT_MODELS:
                raise ValueError(
                    f"Tri Palki pimc opponents must be one of {OPPONENT_MODELS}, got {text!r}"
                )
            params = replace(params, opponents=text.strip())
            continue
        try:
            value = int(text)
        except ValueError:
            raise ValueError(
                f"Tri Palki pimc parameter {key} needs an integer, got {text.strip()!r}"
            ) from None
        if key not in ("seed", "endgame_samples") and value < 1:
            raise ValueError(f"Tri Palki pimc parameter {key} must be at least 1, got {value}")
        if key == "endgame_samples" and value < 0:
            raise ValueError(
                f"Tri Palki pimc parameter endgame_samples must be at least 0, got {value}"
            )
        if key == "seed":
            seed = value
        else:
            values[key] = value
    return replace(params, **values), seed


def engine_from_world(world: Any, view: obs_mod.TriPalkiView) -> TriPalkiRound:
    """A rules-engine round at the observer's decision point, from a sampled world (seats
    relative to the observer, i.e. sampled with ``observer=0``) and the observation's view."""
    return engines_from_worlds([world], view)[0]


def engines_from_worlds(worlds: list[Any], view: obs_mod.TriPalkiView) -> list[TriPalkiRound]:
    """:func:`engine_from_world` of each world, what the view fixes worked out once."""
    known = [sum(1 << c for c in cards) for cards in view.known]
    to_act = view.to_act if view.to_act is not None else 0
    phase = ANNOUNCE_DECISION if view.phase == "announce" else ACTION
    final_left = sum(view.final_turn_pending)
    shared: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # the facts worlds of a view share
    rounds = []
    for world in worlds:
        alive = tuple(world.alive)
        facts = shared.get(alive)
        if facts is None:
            left = tuple(next_alive(seat, alive) for seat in range(world.num_players))
            facts = shared[alive] = (sum(alive), left)
        rnd = TriPalkiRound.__new__(TriPalkiRound)
        rnd.num_seats = world.num_players
        rnd.alive = alive
        rnd.survivors, rnd.left = facts
        rnd.dealer = world.dealer
        rnd.deck = ()
        rnd.hands = list(world.hands)
        rnd.centre = world.centre
        rnd.dealt_centre = world.centre
        rnd.reserve = tuple(world.reserve)
        rnd.top = 0
        rnd.washed = world.washed
        rnd.washes = []
        rnd.known = known.copy()
        rnd.to_act = to_act
        rnd.phase = phase
        rnd.passes = view.passes if world.announcer is None else 0
        rnd.announcer = world.announcer if world.announcer is not None else -1
        rnd.final_left = final_left
        rnd.turns = 0
        rnd.outcome = None
        rnd.history = []
        rounds.append(rnd)
    return rounds


def copy_round(rnd: TriPalkiRound) -> TriPalkiRound:
    """An independent copy of an engine round (lists copied, tuples shared)."""
    new = TriPalkiRound.__new__(TriPalkiRound)
    for name in TriPalkiRound.__slots__:
        value = getattr(rnd, name)
        setattr(new, name, list(value) if isinstance(value, list) else value)
    return new


def fast_policy(rnd: TriPalkiRound) -> int:
    """The Tri Palki heuristic's decision rules on the engine state, without its two small
    terms (a two-card suit's potential and the cost of feeding known opponent cards): always
    announce; never break a special hand; score every swap by the hand it leaves (special
    hands first, then the comparison key; a wash +1.5, or +-3 when it ends the round); pass
    with 31, with 30 unless a swap reaches 31 or a special hand, with 24 on the deciding pass,
    or when no swap gains 0.5. About 50 times faster than encoding an observation for the
    heuristic agent."""
    if rnd.phase == ANNOUNCE_DECISION:
        return ANNOUNCE
    return core_move(
        rnd.hands[rnd.to_act],
        rnd.centre,
        len(rnd.reserve) - rnd.top < 3,
        rnd.announcer >= 0,
        rnd.passes == rnd.survivors - 1,
    )


def policy_core(hand: int, centre: int, reserve_low: bool, announced: bool, deciding: bool) -> int:
    """:func:`fast_policy`'s move from the facts it reads: the hand and centre masks, fewer
    than 3 reserve cards, an announcement made, and whether a pass would end the round (the
    shared compiled rules, :func:`~folkcards.agents.tri_palki_heuristic_core.core_move`)."""
    return int(core_move(hand, centre, reserve_low, announced, deciding))


class _CoreModel:
    """The rollout policy's rules (:func:`policy_core`) as the opponent model the worlds are
    weighted by (:class:`folkcards.search.tri_palki_likelihood.OpponentModel`): it always announces
    a normal 31."""

    announces = True

    @staticmethod
    def moves(
        hand: np.ndarray,
        centre: np.ndarray,
        reserve_low: np.ndarray,
        announced: np.ndarray,
        deciding: np.ndarray,
    ) -> np.ndarray:
        return core_moves(hand, centre, reserve_low, announced, deciding)


CORE_MODEL = _CoreModel()
OPPONENT_MODEL_FILE = "tri_palki_opponents.npz"


@functools.lru_cache(maxsize=1)
def shipped_opponent_model() -> LearnedOpponentModel:
    """The learned opponent model committed with the package (``opponents=learned``)."""
    return load_opponent_model(Path(__file__).parent / "models" / OPPONENT_MODEL_FILE)


def choose_action(
    outcomes: np.ndarray,
    legal: list[int],
    preferred: int,
    confidence: float,
    weights: np.ndarray | None = None,
) -> int:
    """The action with the fewest sticks over the worlds (``outcomes``: worlds x actions),
    but the rollout policy's own choice ``preferred`` unless the best action beats it by more
    than ``confidence`` standard errors of the paired (same worlds) difference. With a few
    dozen worlds the plain minimum mostly picks actions that were lucky in this sample; the
    test keeps the policy's move unless the evidence against it is clear. Ties: fewest
    sticks, then ``preferred``, then the lowest id. ``weights`` (one per world): the worlds
    are every world there is, each counting that much (no sampling error, so no
    ``confidence``)."""
    if weights is not None and confidence > 0:
        raise ValueError("confidence is for sampled worlds, not for weighted ones")
    sticks = np.average(outcomes, axis=0, weights=weights)
    order = sorted(range(len(legal)), key=lambda i: (sticks[i], legal[i] != preferred, legal[i]))
    best = order[0]
    if preferred not in legal or legal[best] == preferred or confidence <= 0:
        return legal[best]
    diff = outcomes[:, legal.index(preferred)] - outcomes[:, best]
    n = len(diff)
    error = diff.std(ddof=1) / np.sqrt(n) if n > 1 else np.inf
    return legal[best] if diff.mean() > confidence * error else preferred


def pass_likelihood(rnd: TriPalkiRound, epsilon: float) -> float:
    """How likely the run of passes just before ``rnd.to_act`` is under :func:`fast_policy`.

    A pass changes nothing on the table, so each of the last ``rnd.passes`` players passed
    holding the hand it holds now, facing the same centre, with fewer passes before it. Each
    pass counts ``(1 - epsilon) * [the policy passes there] + epsilon / legal moves``."""
    likelihood = 1.0
    seat = rnd.to_act
    for k in range(rnd.passes, 0, -1):
        seat = _previous_alive(seat, rnd.alive)
        then = copy_round(rnd)
        then.to_act, then.passes, then.phase = seat, k - 1, ACTION
        legal = then.legal_bits().bit_count()
        passes = fast_policy(then) == PASS
        likelihood *= (1 - epsilon) * passes + epsilon / legal
    return likelihood


def _previous_alive(seat: int, alive: tuple[bool, ...]) -> int:
    n = len(alive)
    seat = (seat - 1) % n
    while not alive[seat]:
        seat = (seat - 1) % n
    return seat


class TriPalkiSearchAgent(Agent):
    """Tri Palki PIMC agent with heuristic rollouts (see the module docstring).

    In a game whose belief sampler lists every world (its ``every_world``, as Tri Palki
    tiny's does) the agent values every world consistent with its view instead of a sample,
    each counting in proportion to the likelihood of the round so far (the same inference;
    ``infer=1``: equally), so ``samples``, ``endgame_samples`` and ``confidence`` do not apply.
    ``max_turns``: the table's turn limit, at which a rollout stops and the hands are scored
    as they stand (Tri Palki tiny's rule; ``None``: only ``horizon`` stops it)."""

    name = "pimc"

    def __init__(
        self,
        game: str = "tri_palki",
        seat: str = "player_0",
        seed: int | None = None,
        params: TriPalkiSearchParams | None = None,
        max_turns: int | None = None,
    ):
        spec = game_spec(game)
        if spec.family != "tri_palki":
            raise ValueError(
                f"the Tri Palki search agent plays tri_palki and its variants, not {game!r}"
            )
        super().__init__(game, seat, seed)
        self.params = params or TriPalkiSearchParams()
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"Tri Palki pimc max_turns must be at least 1, got {max_turns}")
        self.max_turns = max_turns
        self._every_world = spec.piece("belief").every_world if spec.has("belief") else None
        if self._every_world is not None and self.params.confidence > 0:
            raise ValueError(
                "Tri Palki pimc confidence is for sampled worlds; here every world is valued"
            )
        self._policy = make_agent("heuristic", "tri_palki", seat, seed=0)  # draws nothing
        self.opponent_model: OpponentModel = self._budget_model()
        self.reset()

    def _budget_model(self) -> OpponentModel:
        """The others' model the parameters name (``opponents``): the heuristic's core rules,
        or the shipped learned model remembered per table."""
        if self.params.opponents == "learned":
            return remembered(shipped_opponent_model())
        return CORE_MODEL

    def reset(self) -> None:
        """Forget the round's observations (called at the start of every episode)."""
        self._trail: tuple[obs_mod.TriPalkiView, int] | None = None
        self._histories: list[tuple[Any, ...]] = [()]
        self.work: dict[str, int] = {}
        self.kept_steps: int | None = None  # the last weighting kept only this many steps

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The action with the fewest sticks over the sampled worlds. ``self.work`` then holds
        the work of this decision in counted units: ``reconstruction`` (candidate moves tried
        rebuilding the other players' decisions), ``likelihood`` (modelled decisions evaluated
        weighting the worlds) and ``rollout`` (actions played in rollouts); each is bounded by
        the parameters (``reconstruct_budget`` per interval reconstructed, ``infer_budget``,
        ``max(samples, endgame_samples) x 11 x horizon``), whatever the other players do.
        ``last_action_values`` then holds minus the mean sticks of each legal action over the worlds (None when only one
        action was legal); distillation can fit them as soft targets."""
        self.work = {"reconstruction": 0, "likelihood": 0, "rollout": 0}
        self.kept_steps = None
        return self._act(observation)

    def _act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        self.last_action_values = None
        vector = np.asarray(observation["observation"])
        view = self._on_full_scale(obs_mod.decode(vector))
        self._remember(view)
        action = legal[0] if len(legal) == 1 else self._search(vector, view, legal, observation)
        self._trail = (view, action)
        return action

    def _on_full_scale(self, view: obs_mod.TriPalkiView) -> obs_mod.TriPalkiView:
        """``view`` with its turns counted as at a table of the full turn horizon (the
        reconstruction reads turns that way), when the table's ``max_turns`` is below it."""
        if self.max_turns is None or self.max_turns >= obs_mod.TURNS_HORIZON:
            return view
        turns = round(view.turn_fraction * self.max_turns)
        return replace(view, turn_fraction=turns / obs_mod.TURNS_HORIZON)

    def _remember(self, view: obs_mod.TriPalkiView) -> None:
        """Extend the opponents' reconstructed decisions with those since the last decision
        (a new round, or views that do not fit together, start afresh)."""
        from ..search.tri_palki_reconstruction import reconstruct_opening, reconstruct_steps

        budget, most = self.params.reconstruct_budget, self.params.interval_histories
        steps = None
        if self._trail is not None:
            steps = reconstruct_steps(
                self._trail[0], self._trail[1], view, budget=budget, counter=self.work,
                max_histories=most,
            )  # fmt: skip
        if steps is None:  # the first decision of a round, or views that do not fit
            opening = reconstruct_opening(
                view, budget=budget, counter=self.work, max_histories=most
            )
            self._histories = opening or [()]
            return
        combined = [old + new for old in self._histories for new in steps]
        # too many ways the round may have gone: forget it rather than keep a biased part
        self._histories = combined if len(combined) <= self.params.histories else [()]

    def _search(
        self,
        vector: np.ndarray,
        view: obs_mod.TriPalkiView,
        legal: list[int],
        observation: dict[str, np.ndarray],
    ) -> int:
        preferred = self._policy.act(observation)
        weights = None
        if self._every_world is None:
            bases, counts = self._worlds(vector, view)
        else:
            bases, weights = self._every_world_weighted(vector, view)
            counts = None
        outcomes = np.zeros((len(bases), len(legal)))  # worlds x actions: 1 = a stick
        for w, (world, base) in enumerate(bases):
            assert base is not None  # asked with its rounds
            if self.max_turns is not None:  # the turns taken count towards the limit
                base.turns = round(view.turn_fraction * obs_mod.TURNS_HORIZON)
            for i, action in enumerate(legal):
                rnd = copy_round(base)
                rnd.apply(action)
                outcomes[w, i] = self._rollout(rnd, list(world.sticks))
        if counts is not None:
            outcomes = np.repeat(outcomes, counts, axis=0)
        sticks = np.average(outcomes, axis=0, weights=weights)
        self.last_action_values = {a: -float(s) for a, s in zip(legal, sticks, strict=True)}
        return choose_action(outcomes, legal, preferred, self.params.confidence, weights)

    def _history_weights(self, hands: np.ndarray) -> np.ndarray:
        """Each world's weight: the likelihood of the other players' decisions this round
        under the opponent model, relative to the likeliest world's (equal weights if no world
        had any: only if the reconstruction were wrong); notes the work done and the steps
        kept."""
        from ..search.tri_palki_likelihood import worlds_log_likelihood

        p = self.params
        weighting = worlds_log_likelihood(
            hands, self._histories, p.infer_epsilon, self.opponent_model, p.infer_budget
        )
        self.work["likelihood"] = weighting.work
        self.kept_steps = weighting.kept_steps
        top = weighting.logs.max()
        return np.exp(weighting.logs - top) if np.isfinite(top) else np.ones(len(hands))

    def _every_world_weighted(
        self, vector: np.ndarray, view: obs_mod.TriPalkiView
    ) -> tuple[list[tuple[Any, TriPalkiRound]], np.ndarray]:
        """Every world consistent with the view (the belief sampler's ``every_world``) with its
        engine round, and the weight of each: the likelihood of the other players' decisions
        this round under the rollout policy, as :meth:`_worlds` resamples by (equal with
        ``infer=1``, at an announce decision, or with nothing of the round to read)."""
        assert self._every_world is not None
        p = self.params
        worlds = self._every_world(vector, observer=0)
        rounds = engines_from_worlds(worlds, view)
        bases = list(zip(worlds, rounds, strict=True))
        history = any(self._histories)
        if p.infer <= 1 or view.phase == "announce" or not (history or view.passes):
            return bases, np.ones(len(worlds))
        if history:
            return bases, self._history_weights(np.array([w.hands for w in worlds]))
        weights = np.array([pass_likelihood(rnd, p.infer_epsilon) for rnd in rounds])
        return bases, weights if weights.sum() > 0 else np.ones(len(worlds))

    def _worlds(
        self, vector: np.ndarray, view: obs_mod.TriPalkiView, with_rounds: bool = True
    ) -> tuple[list[tuple[Any, TriPalkiRound | None]], np.ndarray | None]:
        """``samples`` worlds with their engine rounds, and how many times each counts
        (``None``: once each). With ``infer`` > 1, drawn from ``infer * samples`` uniform ones
        in proportion to the likelihood of the other players' decisions this round
        (:func:`folkcards.search.tri_palki_likelihood.steps_log_likelihood`), or at the first
        decision of a round, of the passes just before it (:func:`pass_likelihood`). With
        ``with_rounds`` False the rounds are left out (``None``) where the weighting did not
        need them: the compiled rollouts load the worlds themselves."""
        from ..search.belief import resample
        from ..search.tri_palki_belief import sample_world_batch, sample_worlds

        p = self.params
        samples = p.worlds_at(view)
        history = any(self._histories)
        if p.infer <= 1 or view.phase == "announce" or not (history or view.passes):
            worlds = sample_worlds(vector, samples, self.rng, observer=0)
            return list(zip(worlds, self._rounds_of(worlds, view, with_rounds), strict=True)), None
        drawn = sample_world_batch(vector, samples * p.infer, self.rng, observer=0)
        if history:  # weighed by the hands alone: only the worlds kept are built
            weights = self._history_weights(drawn.hands)
        else:
            worlds = drawn.worlds()
            rounds = list(engines_from_worlds(worlds, view))
            weights = np.array([pass_likelihood(rnd, p.infer_epsilon) for rnd in rounds])
        picks = resample(range(len(drawn)), weights, samples, self.rng)
        unique, counts = np.unique(picks, return_counts=True)
        if history:
            chosen = drawn.worlds(unique)
            return list(
                zip(chosen, self._rounds_of(chosen, view, with_rounds), strict=True)
            ), counts
        return [(worlds[int(i)], rounds[int(i)]) for i in unique], counts

    @staticmethod
    def _rounds_of(worlds: list[Any], view: obs_mod.TriPalkiView, wanted: bool) -> list[Any]:
        """The engine round of each world if ``wanted``, else ``None`` for each."""
        return list(engines_from_worlds(worlds, view)) if wanted else [None] * len(worlds)

    def _rollout(self, rnd: TriPalkiRound, sticks: list[int]) -> int:
        """Play ``rnd`` to its end with the heuristic in every seat; 1 if seat 0 gets a stick."""
        policy = self._policy
        fast = self.params.rollout == "fast"
        limit = self.max_turns
        for _ in range(self.params.horizon):
            if rnd.phase == OVER or (limit is not None and rnd.turns >= limit):
                break
            self.work["rollout"] += 1
            if fast:
                rnd.apply(fast_policy(rnd))
                continue
            seat = rnd.to_act
            bits = rnd.legal_bits()
            mask = np.array([bits >> a & 1 for a in range(13)], dtype=np.int8)
            obs = {"observation": obs_mod.encode(rnd, seat, sticks), "action_mask": mask}
            rnd.apply(policy.act(obs))
        return int(settle(rnd.hands, rnd.alive, sticks, rnd.dealer).stick[0])


def make_tri_palki_search_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> TriPalkiSearchAgent:
    """The Tri Palki ``pimc[:samples=N,horizon=N,seed=N]`` factory."""
    params, spec_seed = parse_spec(arg)
    return TriPalkiSearchAgent(game, seat, spec_seed if spec_seed is not None else seed, params)


_EVERY_WORLD_REFUSED = ("samples", "endgame_samples", "confidence")


def make_tri_palki_tiny_search_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **_: Any
) -> TriPalkiSearchAgent:
    """``pimc`` on Tri Palki tiny (its registry entry's ``search_agent``): every world of the
    ten-card deck (the variant's belief sampler lists them) and rollouts scored at the turn
    limit, ``pimc:max_turns=N`` at a table whose limit is not the variant's default; the other
    keys as for Tri Palki's ``pimc`` but ``samples``, ``endgame_samples`` and ``confidence``
    (every world is valued, none sampled)."""
    max_turns = TINY_MAX_TURNS
    rest = []
    for item in (arg or "").split(","):
        key, text = item.strip().partition("=")[::2]
        key = key.strip()
        if key in _EVERY_WORLD_REFUSED:
            raise ValueError(
                f"Tri Palki pimc parameter {key} does not apply to {game}: every world is valued"
            )
        if key == "max_turns":
            try:
                max_turns = int(text)
            except ValueError:
                raise ValueError(
                    f"Tri Palki pimc parameter max_turns needs an integer, got {text.strip()!r}"
                ) from None
        elif item.strip():
            rest.append(item)
    params, spec_seed = parse_spec(",".join(rest))
    return TriPalkiSearchAgent(
        game, seat, spec_seed if spec_seed is not None else seed, params, max_turns=max_turns
    )


EXPERT_PARAMS = TriPalkiSearchParams(samples=192, infer=4, endgame_samples=768, infer_epsilon=0.3)
"""The Tri Palki ``expert``'s budget since 0.5.0: six times ``pimc``'s worlds (192, drawn from
768 weighted candidates), four times that where the round is about to end (768 worlds from
3,072), and a softer model of the others' decisions (each counts ``0.7 * [the rules'] + 0.3 /
options``). Measured against the 0.4.0 budget in docs/guide/expert.md."""

EXPERT_PARAMS_0_4 = TriPalkiSearchParams(samples=96, infer=8, endgame_samples=0, infer_epsilon=0.1)
"""The 0.4.0 ``expert``'s budget (96 worlds from 768 weighted candidates, ``infer_epsilon``
0.1), kept where stored results were made with it: ``distilled:version=0.6``'s unsure search,
the ``iterated`` search's defaults and the expert-iteration loop's search."""
