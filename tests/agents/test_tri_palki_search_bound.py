"""Tri Palki ``pimc``: a hard bound on the work of a decision whatever the other players do,
and the compiled rules it shares with the heuristic.

The opponents are written for the test (``tri_palki_styles.py``): players that rarely pass, that
swap cards back and forth, that swap all three often, and that keep rounds going towards
``max_turns``. Their long, ambiguous rounds made the history reconstruction and likelihood run
for minutes per decision; now each decision's work is counted (``agent.work``) and bounded by
the agent's parameters. Wall time is checked only as a generous safety net."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents.tri_palki_heuristic_core import core_moves
from folkcards.agents.tri_palki_search import CORE_MODEL, policy_core, shipped_opponent_model
from folkcards.envs.tri_palki import observation as obs_mod
from folkcards.envs.tri_palki.rules import TRIPLES
from folkcards.search.tri_palki_belief import sample_worlds
from folkcards.search.tri_palki_likelihood import steps_log_likelihood, worlds_log_likelihood
from folkcards.search.tri_palki_reconstruction import reconstruct_steps

from .tri_palki_heuristic_reference import reference_policy_core
from .tri_palki_styles import play_rounds, style_opponents

MOVES = 11  # pass, nine swaps, swap all: what a turn's decision can be
SAFETY_SECONDS = 60.0  # a decision slower than this is a hang, not a slow machine


def test_policy_core_is_the_python_rules_it_replaced():
    """The compiled core rules give the old Python ``policy_core``'s move on 20,000 random
    tables (hand, centre, reserve low, final turn, deciding pass), one at a time and in a batch."""
    rng = np.random.default_rng(5)
    masks = list(TRIPLES)
    rows = []
    while len(rows) < 20_000:
        hand, centre = (masks[i] for i in rng.integers(len(masks), size=2))
        if hand & centre:
            continue
        rows.append((hand, centre, *(bool(b) for b in rng.integers(2, size=3))))
    expected = [reference_policy_core(*row) for row in rows]
    assert [policy_core(*row) for row in rows] == expected
    columns = [np.array(c) for c in zip(*rows, strict=True)]
    assert core_moves(*columns).tolist() == expected
    assert len(set(expected)) == MOVES  # every move occurs


def _play(style: str, num_players: int, rounds: int, seed: int, spec: str, max_turns: int = 1000):
    """Rounds of pimc in seat 0 against ``style`` players; yields (agent, observation, action,
    seconds) at each of pimc's decisions."""
    opponents = style_opponents(style, num_players, seed)
    rounds_seeds = [seed * 100 + r for r in range(rounds)]
    yield from play_rounds(spec, opponents, rounds_seeds, seed, max_turns)


SPEC = "pimc:samples=8,infer=8,horizon=40,infer_budget=1500,reconstruct_budget=5000"
LIMITS = {"likelihood": 1_500, "reconstruction": 2 * 5_000, "rollout": 8 * MOVES * 40}


@pytest.mark.parametrize(
    ("style", "num_players", "max_turns", "rounds"),
    [
        ("rare_pass", 3, 1000, 6),
        ("back_and_forth", 3, 300, 2),
        ("swap_all", 3, 1000, 4),
        ("swap_all", 4, 1000, 4),
        ("long_rounds", 3, 300, 2),
        ("long_rounds", 4, 200, 2),
    ],
)
def test_work_per_decision_is_bounded_whatever_the_opponents(style, num_players, max_turns, rounds):
    """Every decision stays within the counted budgets (the reconstruction can run twice: the
    interval, then the round from the deal) and stays legal; against players swapping back and
    forth the likelihood budget is reached, so the cut is exercised."""
    decisions = cut = 0
    slowest = 0.0
    for agent, _, _, seconds in _play(style, num_players, rounds, 3, SPEC, max_turns):
        for key, limit in LIMITS.items():
            assert agent.work[key] <= limit, (key, agent.work)
        cut += agent.kept_steps is not None
        decisions += 1
        slowest = max(slowest, seconds)
    assert decisions > 20
    assert slowest < SAFETY_SECONDS
    if style == "back_and_forth":
        assert cut > 0  # long, known histories: the likelihood kept only the recent decisions


def test_decisions_are_deterministic_when_the_budget_binds():
    """Two agents with the same seed facing the same players make the same decisions, budget cuts
    included (the budgets count work, not time)."""
    runs = []
    for _ in range(2):
        runs.append(
            [
                (a, agent.kept_steps)
                for agent, _, a, _ in _play("back_and_forth", 3, 2, 3, SPEC, 300)
            ]
        )
    assert runs[0] == runs[1]
    assert any(kept is not None for _, kept in runs[0])


def _long_histories():
    """pimc's reconstructed histories and its observation at a decision late in a long round."""
    best = None
    for agent, obs, _, _ in _play("back_and_forth", 3, 2, 3, "pimc:samples=4,infer=2", 300):
        histories = agent._histories
        if any(histories) and (best is None or len(histories[0]) > len(best[0][0])):
            best = (list(histories), obs)
    assert best is not None and len(best[0][0]) > 40
    return best


def _recent(history, keep: int):
    """``history`` with only each seat's last ``keep`` steps."""
    seats = [step.seat for step in history]
    out = []
    for i, step in enumerate(history):
        later = seats[i + 1 :].count(step.seat)
        if later < keep:
            out.append(step)
    return tuple(out)


def test_budgeted_likelihood_is_the_likelihood_of_the_recent_decisions():
    """Within budget the compiled likelihood is the per-world one; over budget it is exactly the
    likelihood of each player's most recent decisions (the same number for every player and
    history), its work within the budget; below one step per player the worlds stay uniform."""
    histories, obs = _long_histories()
    worlds = sample_worlds(obs, 12, np.random.default_rng(0), observer=0)
    hands = [w.hands for w in worlds]
    full = worlds_log_likelihood(hands, histories, 0.1, CORE_MODEL, budget=10**9)
    assert full.kept_steps is None
    singles = [steps_log_likelihood(h, histories, 0.1, CORE_MODEL) for h in hands]
    assert full.logs.tolist() == pytest.approx(singles)
    assert np.isfinite(full.logs).any()

    budget = full.work // 3
    cut = worlds_log_likelihood(hands, histories, 0.1, CORE_MODEL, budget=budget)
    assert cut.kept_steps is not None and cut.kept_steps > 0
    assert 0 < cut.work <= budget
    recent = [_recent(h, cut.kept_steps) for h in histories]
    expected = worlds_log_likelihood(hands, recent, 0.1, CORE_MODEL, budget=10**9)
    assert cut.logs.tolist() == pytest.approx(expected.logs.tolist())
    assert not np.allclose(cut.logs, full.logs)

    none = worlds_log_likelihood(hands, histories, 0.1, CORE_MODEL, budget=1)
    assert none.kept_steps == 0 and none.work == 0
    assert none.logs.tolist() == [0.0] * len(hands)


def test_reconstruction_gives_up_within_its_budget():
    """A reconstruction that needs more than ``budget`` candidate moves stops after ``budget``
    and gives no history (the same intervals are reconstructed with the default budget)."""
    views = []
    for _, obs, action, _ in _play("swap_all", 4, 1, 2, "pimc:samples=2,infer=1", 1000):
        views.append((obs_mod.decode(np.asarray(obs["observation"])), action))
    checked = 0
    for (before, action), (after, _) in zip(views, views[1:], strict=False):
        counter: dict[str, int] = {}
        full = reconstruct_steps(before, action, after, counter=counter)
        if full is None or counter.get("reconstruction", 0) < 4:
            continue
        budget = counter["reconstruction"] // 2
        small: dict[str, int] = {}
        assert reconstruct_steps(before, action, after, budget=budget, counter=small) is None
        assert small["reconstruction"] == budget
        checked += 1
    assert checked > 3


class _CountingRules:
    """The core rules as an opponent model that notes the tables it is asked about."""

    announces = True

    def __init__(self) -> None:
        self.asked: list[tuple[int, ...]] = []

    def moves(self, *columns: np.ndarray) -> np.ndarray:
        self.asked += zip(*(c.tolist() for c in columns), strict=True)
        return core_moves(*columns)


class _RulesAsProbabilities(_CountingRules):
    """The same rules answering with move probabilities (one-hot)."""

    def move_probabilities(self, *columns: np.ndarray) -> np.ndarray:
        self.asked += zip(*(c.tolist() for c in columns), strict=True)
        return np.eye(MOVES)[core_moves(*columns)]


class _CountingLearned:
    """The shipped learned opponent model, noting the tables it is asked about."""

    announces = True

    def __init__(self) -> None:
        self.model = shipped_opponent_model()
        self.asked: list[tuple[int, ...]] = []

    def moves(self, *columns: np.ndarray) -> np.ndarray:
        raise AssertionError("the likelihood asks a learned model for probabilities")

    def move_probabilities(self, *columns: np.ndarray) -> np.ndarray:
        self.asked += zip(*(c.tolist() for c in columns), strict=True)
        return self.model.move_probabilities(*columns)


_MODELS = {"rules": _CountingRules, "probabilities": _RulesAsProbabilities,
           "learned": _CountingLearned}  # fmt: skip


def _histories_with_unknown_hands():
    """pimc's histories and 40 sampled worlds' hands at the decision with the longest history,
    at a 3-player table of heuristic players, where both other players' hands vary between the
    worlds (in different numbers)."""
    best = None
    for agent, obs, _, _ in _play("heuristic", 3, 3, 2, "pimc:samples=4,infer=2", 300):
        worlds = sample_worlds(obs, 40, np.random.default_rng(1), observer=0)
        hands = np.array([w.hands for w in worlds])
        distinct = [len(np.unique(hands[:, s])) for s in (1, 2)]
        length = len(agent._histories[0])
        if min(distinct) > 1 and (best is None or length > len(best[0][0])):
            best = (list(agent._histories), hands, distinct)
    assert best is not None and len(best[0]) > 1 and len(best[0][0]) > 10
    assert best[2][0] != best[2][1]
    return best[0], best[1]


@pytest.mark.parametrize("model", list(_MODELS))
@pytest.mark.parametrize("cut", [False, True])
@pytest.mark.parametrize("one_hand_seat", [None, 1, 2])
def test_the_likelihood_asks_each_distinct_table_once(one_hand_seat, cut, model):
    """A long round repeats the same tables across steps and worlds: the likelihood asks the
    model about each distinct table once (a model naming one move, the same rules as
    probabilities, the learned model), whole or cut to the recent decisions, also when the
    players have different numbers of distinct hands over the worlds; and the worlds get the
    weights each would get alone."""
    histories, hands = _histories_with_unknown_hands()
    if one_hand_seat is not None:
        hands[:, one_hand_seat] = hands[0, one_hand_seat]
    budget = 10**9
    if cut:
        budget = worlds_log_likelihood(hands, histories, 0.1, CORE_MODEL, budget).work // 3
    counting = _MODELS[model]()
    together = worlds_log_likelihood(hands, histories, 0.1, counting, budget=budget)
    assert (together.kept_steps is not None) == cut
    assert np.isfinite(together.logs).sum() > 1
    assert len(counting.asked) == len(set(counting.asked))
    assert len(counting.asked) < together.work // 2  # the decisions walked, far more
    rules = worlds_log_likelihood(hands, histories, 0.1, CORE_MODEL, budget=budget)
    assert (together.work, together.kept_steps) == (rules.work, rules.kept_steps)
    if model != "learned":
        assert together.logs.tolist() == rules.logs.tolist()
    else:
        assert len(np.unique(together.logs.round(9))) > len(np.unique(rules.logs.round(9)))
    if not cut:  # each world alone: one distinct hand per player, nothing to share
        alone = _MODELS[model]()
        singles = [steps_log_likelihood(h, histories, 0.1, alone.model if model == "learned"
                                        else CORE_MODEL) for h in hands]  # fmt: skip
        assert together.logs.tolist() == pytest.approx(singles, rel=1e-12)
