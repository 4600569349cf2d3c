"""Paston ``expert``: built from its spec (bad keys in one line), legal in every phase,
deterministic given its seed, and its auction and defence follow the evaluator's values and
the spec's margins."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.agents.paston_expert import (
    ExpertAgent,
    ExpertParams,
    PastonLearnedCalls,
    default_evaluator_path,
    model_path,
    open_hand_evaluator_path,
    parse_spec,
)
from folkcards.envs import paston_bidding_v0, paston_v0
from folkcards.envs.paston import observation as paston_obs
from folkcards.envs.paston.rules import BID_BASE, HEARTS, PASS, WHIST

CHEAP = "samples=4,bid_samples=2,discard_samples=2,discard_candidates=1"


def test_the_spec_sets_expert_and_pimc_parameters():
    agent = make_agent(f"expert:bid_margin=3.5,whist_margin=-1,{CHEAP},seed=4", "paston")
    assert isinstance(agent, ExpertAgent)
    assert agent.expert == ExpertParams(bid_margin=3.5, whist_margin=-1.0)
    assert agent.params.samples == 4 and agent.params.discard_candidates == 1
    params, model, pimc = parse_spec(None)
    assert params == ExpertParams() and model == str(default_evaluator_path())
    assert pimc == "discard_samples=32"


def test_expert_plays_the_refitted_evaluator_unless_the_spec_names_another():
    assert default_evaluator_path() == model_path("refit_2") != open_hand_evaluator_path()
    assert len({model_path(name) for name in ("open_hand", "refit", "refit_2")}) == 3
    assert make_agent("expert", "paston").model_path == model_path("refit_2")
    assert make_agent("expert:model=open_hand", "paston").model_path == open_hand_evaluator_path()
    assert open_hand_evaluator_path().name == "paston_evaluator.npz"  # train-evaluator's file
    # the distilled player's calls are expert's since 0.12.0; open_hand names the ones before
    assert PastonLearnedCalls().expert.model_path == model_path("refit_2")
    assert PastonLearnedCalls(model="open_hand").expert.model_path == open_hand_evaluator_path()
    with pytest.raises(ValueError, match="evaluator"):
        make_agent("expert:model=/no/such/evaluator.npz", "paston")


def test_the_expert_searches_its_discards_over_32_worlds_unless_the_spec_says_otherwise():
    assert make_agent("expert", "paston").params.discard_samples == 32
    assert make_agent("expert:discard_samples=8", "paston").params.discard_samples == 8
    cheap = make_agent("expert:samples=4,bid_samples=2", "paston").params
    assert cheap.discard_samples == 32 and cheap.samples == 4


@pytest.mark.parametrize(
    "spec",
    [
        "expert:bid_margin=x",
        "expert:margin=3",
        "expert:bid_margin",
        "expert:bid_estimate=2",
        "expert:pass_weight=1.5",
        "expert:discard_search=yes",
        "expert:samples=0",
        "expert:bid_margin=nan",
        "expert:model=/nonexistent/evaluator.npz",
    ],
)
def test_a_bad_spec_parameter_is_one_line(spec):
    with pytest.raises(ValueError) as info:
        make_agent(spec, "paston")
    assert "\n" not in str(info.value)


def test_a_game_without_an_expert_agent_is_refused_in_one_line(monkeypatch):
    import dataclasses

    from folkcards.envs import registry

    variant = dataclasses.replace(
        registry.GAMES["paston"], name="variant", aliases=("variant",), expert_agent=None
    )
    monkeypatch.setitem(registry.GAMES, "variant", variant)
    monkeypatch.setitem(registry._ALIASES, "variant", "variant")
    with pytest.raises(ValueError, match=r"^variant has no expert agent \(the strongest player\)$"):
        make_agent("expert", "variant")


class _Recorder:
    """Wraps an agent and notes the phase of each decision it makes."""

    def __init__(self, agent):
        self.agent = agent
        self.phases: collections.Counter[str] = collections.Counter()
        self.actions: list[int] = []
        self.defence_calls: list[int] = []  # after a won auction (all-pass: pimc's whist)

    def reset(self) -> None:
        self.agent.reset()

    def act(self, observation):
        phase = paston_obs.decode(np.asarray(observation["observation"])).phase
        if np.asarray(observation["action_mask"]).sum() > 1:
            self.phases[phase] += 1
        action = self.agent.act(observation)
        self.actions.append(action)
        view = paston_obs.decode(np.asarray(observation["observation"]))
        if view.phase == "defence" and not view.all_pass:
            self.defence_calls.append(action)
        return action


def _play(spec: str, seed: int, episodes: int, env=None):
    env = env or paston_v0.raw_env()
    experts = [_Recorder(make_agent(spec, "paston", f"player_{i}", seed=seed + i)) for i in (0, 2)]
    table = [experts[0], make_agent("heuristic", "paston", "player_1"), experts[1]]
    for episode in range(episodes):
        play_episode(env, table, seed=seed * 1000 + episode)  # the env raises on an illegal move
    for recorder in experts:
        assert recorder.agent.fallbacks == 0
    return experts


def test_legal_in_every_phase_and_deterministic_given_its_seed():
    # bid_margin=-5: the experts declare often enough to reach the discard and contract
    spec = f"expert:bid_margin=-5,{CHEAP}"
    first = _play(spec, 3, 10)
    phases = first[0].phases + first[1].phases
    assert {"auction", "discard", "contract", "defence", "play"} <= set(phases), phases
    again = _play(spec, 3, 10)
    assert [r.actions for r in again] == [r.actions for r in first]


def test_the_evaluator_discard_and_the_search_contract_are_legal_too():
    _play(f"expert:bid_margin=-5,discard_search=0,contract_search=1,{CHEAP}", 5, 4)


def test_the_bid_margin_decides_the_auction():
    never = _play(f"expert:bid_margin=1000,{CHEAP}", 7, 4)
    always = _play(f"expert:bid_margin=-1000,{CHEAP}", 7, 4)
    bids = range(BID_BASE, BID_BASE + 5)
    assert not any(a in bids for r in never for a in r.actions)
    assert any(a in bids for r in always for a in r.actions)
    # bidding on at any price: an expert passes in the auction only when it has no bid left
    assert all(r.phases["auction"] > 0 for r in always)


def test_the_auction_follows_the_predicted_value():
    agent = make_agent(f"expert:{CHEAP}", "paston")
    strong = sum(1 << c for c in (7, 6, 5, 4, 3, 2, 15, 14, 23, 31))  # A K Q J 10 9 of spades
    weak = sum(1 << c for c in (0, 1, 8, 9, 10, 16, 17, 18, 24, 25))  # sevens, eights, nines
    assert agent.bid_value(strong, 0, 0) > 0 > agent.bid_value(weak, 0, 0)


def test_the_whist_margin_decides_the_defence():
    for margin, call in (("1000", PASS), ("-1000", WHIST)):
        recorders = _play(f"expert:bid_margin=1000,whist_margin={margin},{CHEAP}", 11, 6)
        calls = [a for r in recorders for a in r.defence_calls]
        assert calls and set(calls) == {call}


def test_it_plays_the_bidding_env():
    env = paston_bidding_v0.raw_env()
    _play(f"expert:{CHEAP}", 13, 3, env=env)


# --- the evaluator's policy as a model of the others -----------------------------------------

STRONG = "AS KS QS JS 10S 9S 8S AC AD AH"
WEAK = "7C 8C 9C 10C 7D 8D 9D 7H 8H 9H"
REST = "7S JC QC KC 10D JD QD KD 10H JH"


def _env(hands: list[str], actions: list[int]):
    """Deal mode, dealer player_2 (player_0 bids first), stepped through ``actions``."""
    env = paston_v0.raw_env()
    env.reset(
        seed=0,
        options={
            "dealer": 2,
            "deal": {"hands": [h.split() for h in hands], "prikup": "QH KH".split()},
        },
    )
    for action in actions:
        env.step(action)
    return env


def test_passing_is_worth_the_whist_against_another_seats_bid():
    # player_0 (a middling hand) bids spades; player_1, long in spades with three aces, would
    # whist a declarer's hearts: passing is worth that whist, bidding is worth declaring.
    view = paston_obs.decode(
        np.asarray(_env([REST, STRONG, WEAK], [BID_BASE]).observe("player_1")["observation"])
    )
    opening = _env([STRONG, REST, WEAK], []).observe("player_0")["observation"]
    first = paston_obs.decode(np.asarray(opening))
    off = make_agent(f"expert:pass_weight=0,{CHEAP}", "paston", "player_1")
    on = make_agent(f"expert:pass_weight=1,{CHEAP}", "paston", "player_1")
    half = make_agent(f"expert:pass_weight=0.5,{CHEAP}", "paston", "player_1")
    whist = on.evaluator.whist(sum(1 << c for c in view.hand), HEARTS, True, 0)
    assert whist > 0
    assert off.pass_value(view) == 0.0 and on.pass_value(first) == 0.0  # nobody else bid yet
    assert make_agent("expert", "paston").expert.pass_weight == 0.25  # the default
    assert on.pass_value(view) == pytest.approx(whist)
    assert half.pass_value(view) == pytest.approx(whist / 2)
    # bids iff the bid value exceeds bid_margin + the pass value: put the margin between
    value = on.bid_value(sum(1 << c for c in view.hand), on._position(view), 1)
    margin = value - whist / 2
    legal = [BID_BASE + 1, PASS]
    vector = np.asarray(_env([REST, STRONG, WEAK], [BID_BASE]).observe("player_1")["observation"])
    bidder = make_agent(f"expert:bid_margin={margin},pass_weight=0,{CHEAP}", "paston", "player_1")
    passer = make_agent(f"expert:bid_margin={margin},pass_weight=1,{CHEAP}", "paston", "player_1")
    assert bidder._bid(vector, view, legal) == BID_BASE + 1
    assert passer._bid(vector, view, legal) == PASS


def test_the_policy_bids_more_often_with_a_strong_hand():
    from folkcards.search.paston_evaluator import EvaluatorPolicy, load_evaluator

    policy = EvaluatorPolicy(load_evaluator(open_hand_evaluator_path()))
    strong = policy.action_probabilities(_env([STRONG, WEAK, REST], []).observe("player_0"))
    weak = policy.action_probabilities(_env([WEAK, STRONG, REST], []).observe("player_0"))
    for probs in (strong, weak):
        assert probs.sum() == pytest.approx(1.0) and probs[BID_BASE] + probs[PASS] == pytest.approx(
            1
        )
    assert strong[BID_BASE] > 0.8 > 0.2 > weak[BID_BASE]
    with pytest.raises(ValueError):
        EvaluatorPolicy(policy.evaluator, temperature=0)


def test_weighting_by_the_policy_gives_a_bidder_a_stronger_hand():
    from folkcards.search.paston_belief import sample_worlds, weight_worlds
    from folkcards.search.paston_evaluator import EvaluatorPolicy, load_evaluator

    evaluator = load_evaluator(open_hand_evaluator_path())
    policy = EvaluatorPolicy(evaluator)
    # player_0 bids spades; player_1 (the strong hand, to act) samples player_0's hand
    env = _env([REST, STRONG, WEAK], [BID_BASE])
    obs = env.observe("player_1")["observation"]
    worlds = sample_worlds(obs, 300, np.random.default_rng(0), observer=1)
    weights = weight_worlds(worlds, policy, epsilon=0.1, history=[BID_BASE])
    # the bidder's best predicted contract, as first to bid, in each world
    value = np.array([max(evaluator.declare(int(w.dealt_hands[0]), 0)[:4]) for w in worlds])
    assert (weights * value).sum() > value.mean() + 1.5
    assert (weights * (value > 0)).sum() > (value > 0).mean() + 0.05


def test_card_play_with_worlds_weighted_by_the_policy_is_legal_and_deterministic():
    spec = f"expert:bid_margin=1000,whist_margin=-1000,play_infer=2,{CHEAP}"
    first = _play(spec, 17, 3)
    assert first[0].phases["play"] + first[1].phases["play"] > 0
    assert [r.actions for r in _play(spec, 17, 3)] == [r.actions for r in first]


def test_its_belief_model_is_a_softened_copy_of_its_own_calls():
    """``belief_model()`` (the model other searchers weight worlds by) gives every legal call a
    probability strictly between 0 and 1 and puts the most on the call the expert makes, at
    each auction, contract and whist decision (defaults: one margin, 0, for bids and whists)."""
    from folkcards.search.belief import policy_probabilities

    from tests.helpers import walk_decisions

    env = paston_bidding_v0.raw_env()
    agents = {
        s: make_agent("expert", "paston_bidding", seat=s, seed=1) for s in env.possible_agents
    }
    checked = collections.Counter()
    for seat, observation, action in walk_decisions(
        env, range(40), lambda name, obs: agents[name].act(obs)
    ):
        view = paston_obs.decode(np.asarray(observation["observation"]))
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) < 2 or view.phase not in ("auction", "contract", "defence") or view.all_pass:
            continue
        probs = policy_probabilities(agents[seat].belief_model(), observation)
        assert np.all((probs[legal] > 0) & (probs[legal] < 1)), view.phase
        assert int(np.argmax(probs)) == action, (view.phase, probs[legal], action)
        checked[view.phase] += 1
    assert checked["auction"] > 40 and checked["contract"] > 5 and checked["defence"] > 5, checked


def test_whist_search_with_learned_inference_weights_its_worlds_by_the_evaluators_policy(
    monkeypatch,
):
    """``whist_search=1`` decides whist / pass by pimc's solved worlds (an inferred weighting
    at every defence call with a choice), and ``learned_inference=1`` weights those worlds by
    the evaluator's policy, not the heuristic."""
    from folkcards.search import paston_belief
    from folkcards.search.paston_evaluator import EvaluatorPolicy

    from tests.helpers import walk_decisions

    models: list[object] = []
    original = paston_belief.weight_worlds

    def recording(worlds, model, **kwargs):
        models.append(model)
        return original(worlds, model, **kwargs)

    monkeypatch.setattr(paston_belief, "weight_worlds", recording)
    env = paston_v0.raw_env()
    spec = "expert:whist_search=1,learned_inference=1,samples=8"
    agents = {s: make_agent(spec, "paston", seat=s, seed=2) for s in env.possible_agents}
    defence_calls = 0
    for _seat, observation, _action in walk_decisions(
        env, range(30), lambda name, obs: agents[name].act(obs)
    ):
        view = paston_obs.decode(np.asarray(observation["observation"]))
        if view.phase == "defence" and np.count_nonzero(observation["action_mask"]) > 1:
            defence_calls += 1
    assert defence_calls > 5
    assert len(models) >= defence_calls
    assert all(isinstance(m, EvaluatorPolicy) for m in models)
