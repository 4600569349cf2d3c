"""``pimc`` on Tri Palki tiny (docs/rules/tri_palki_tiny.md): every world of the ten-card deck
that the seat cannot tell apart, rollouts scored at the table's turn limit."""

from __future__ import annotations

import copy
from itertools import combinations

import numpy as np
import pytest
from folkcards.agents.base import make_agent
from folkcards.agents.tri_palki_search import fast_policy
from folkcards.envs import tri_palki_tiny_v0
from folkcards.envs.tri_palki.rules import NO_ANNOUNCE, TRIPLES
from folkcards.envs.tri_palki.tiny import TINY_DECK, TINY_HANDS

from tests.helpers import load_script, tri_palki_tiny_dealer_values


def _over(env) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


def _play(spec: str, max_turns: int, seed: int, agent_seed: int = 0) -> list[int]:
    """One round with ``spec`` in both seats; every action checked legal. The actions."""
    env = tri_palki_tiny_v0.raw_env(max_turns=max_turns)
    env.reset(seed=seed)
    agents = {s: make_agent(spec, "tri_palki_tiny", s, agent_seed) for s in env.possible_agents}
    actions = []
    while not _over(env):
        observation = env.observe(env.agent_selection)
        action = agents[env.agent_selection].act(observation)
        assert observation["action_mask"][action] == 1, "an illegal action"
        actions.append(int(action))
        env.step(action)
    return actions


@pytest.mark.parametrize("max_turns", [1, 2])
@pytest.mark.parametrize("seed", range(12))
def test_pimc_plays_legal_moves_to_the_end_of_the_round(max_turns, seed):
    _play(f"pimc:max_turns={max_turns}", max_turns, seed)


@pytest.mark.parametrize("seed", range(6))
def test_pimc_at_the_variants_default_turn_limit_plays_a_whole_round(seed):
    _play("pimc", 2, seed)


def test_pimc_is_deterministic_given_its_seed():
    for seed in range(8):
        for max_turns in (1, 2):
            spec = f"pimc:max_turns={max_turns}"
            assert _play(spec, max_turns, seed, agent_seed=3) == _play(
                spec, max_turns, seed, agent_seed=3
            )


@pytest.mark.parametrize("seed", range(10))
def test_at_max_turns_1_pimc_takes_the_best_action_over_the_four_worlds(seed):
    """At max_turns=1 the dealer's action ends the round (an announce decision changes
    nothing): the best decision is the one with the best mean over the four deals the dealer
    cannot tell apart, and pimc's value of each action is that mean."""
    env = tri_palki_tiny_v0.raw_env(max_turns=1)
    env.reset(seed=seed, options={"dealer": 0})
    if _over(env):
        pytest.skip("a wash at the deal ended the round")
    observation = env.observe("player_0")
    agent = make_agent("pimc:max_turns=1", "tri_palki_tiny", "player_0", seed)
    chosen = agent.act(observation)
    values = tri_palki_tiny_dealer_values(env, observation)
    assert agent.last_action_values == pytest.approx(values)
    assert values[chosen] == max(values.values())


def test_at_max_turns_1_pimc_is_at_least_as_good_as_the_heuristic_in_exact_value():
    """The exact best-response gain over each agent as the dealer (the NashConv at max_turns=1,
    ``benchmarks/tri_palki_tiny_exact.py``'s enumeration of the dealer's decision, which a
    test checks against OpenSpiel's tree) on the deals of two hands of the dealer's left:
    pimc told the turn limit leaves nothing to gain, the heuristic leaves something there."""
    module = load_script("benchmarks/tri_palki_tiny_exact.py")
    left = [TINY_HANDS[0], TINY_HANDS[57]]
    heuristic = module.dealer_gain("heuristic", left_hands=left)
    pimc = module.dealer_gain("pimc:max_turns=1", left_hands=left)
    assert pimc <= heuristic
    assert pimc == pytest.approx(0.0, abs=1e-12)


def _to_player_1(env, dealer_actions) -> bool:
    """Step the dealer (player_0) through ``dealer_actions`` (its turn, then declining an
    announcement if offered); whether player_1 is then to act."""
    for action in dealer_actions:
        if _over(env) or env.agent_selection != "player_0":
            return False
        env.step(action)
    while not _over(env) and env.agent_selection == "player_0":
        env.step(NO_ANNOUNCE)
    return not _over(env)


def _second_players_deals(seed: int):
    """At max_turns=2, after a random move of the dealer (player_0): player_1's observation;
    every deal and dealer's move that give player_1 that view (the dealer's table before the
    move, the move, and the world it leaves: the dealer's hand and the reserve); and
    player_1's reward from each of its actions in each such world, by the env. ``None`` if the
    round ended before player_1's turn."""
    env = tri_palki_tiny_v0.raw_env(max_turns=2)
    env.reset(seed=seed, options={"dealer": 0})
    if _over(env):
        return None
    rng = np.random.default_rng(seed)
    first = int(rng.choice(np.flatnonzero(env.observe("player_0")["action_mask"])))
    if not _to_player_1(env, [first]):
        return None
    observation = env.observe("player_1")
    view = observation["observation"].tobytes()
    own = [c for c in TINY_DECK if env.state_round().hands[1] >> c & 1]
    rest = [c for c in TINY_DECK if c not in own]
    deals, rewards = [], {}
    for hand in combinations(rest, 3):
        for centre in combinations([c for c in rest if c not in hand], 3):
            reserve = next(c for c in rest if c not in hand and c not in centre)
            piles = [own, list(hand), list(centre)]
            deck = [pile[i] for i in range(3) for pile in piles] + [reserve]
            for move in range(13):
                trial = tri_palki_tiny_v0.raw_env(max_turns=2)
                trial.reset(seed=0, options={"dealer": 0, "deck": deck})
                if _over(trial) or not trial.observe("player_0")["action_mask"][move]:
                    continue
                before = copy.deepcopy(trial.state_round())
                if not _to_player_1(trial, [move]):
                    continue
                if trial.observe("player_1")["observation"].tobytes() != view:
                    continue
                world = (trial.state_round().hands[0], reserve)
                deals.append((before, move, world))
                if world in rewards:
                    continue
                rewards[world] = {}
                for action in np.flatnonzero(observation["action_mask"]):
                    again = copy.deepcopy(trial)
                    again.step(int(action))
                    while not _over(again):
                        again.step(NO_ANNOUNCE)
                    rewards[world][int(action)] = again.rewards["player_1"]
    assert deals
    return observation, deals, rewards


@pytest.mark.parametrize("seed", range(8))
def test_at_max_turns_2_the_second_players_values_are_its_mean_over_every_world(seed):
    """At max_turns=2 the other player's turn is the last: with every world counting the same
    (``infer=1``) pimc's value of each of its actions is its mean reward over the worlds (the
    dealer's hand and the reserve) that fit its view."""
    found = _second_players_deals(seed)
    if found is None:
        pytest.skip("the round ended before player_1's turn")
    observation, _, rewards = found
    agent = make_agent("pimc:max_turns=2,infer=1", "tri_palki_tiny", "player_1", seed)
    chosen = agent.act(observation)
    actions = next(iter(rewards.values()))
    means = {a: float(np.mean([r[a] for r in rewards.values()])) for a in actions}
    assert agent.last_action_values == pytest.approx(means)
    assert means[chosen] == max(means.values())


@pytest.mark.parametrize("seed", range(8))
def test_at_max_turns_2_each_world_counts_as_likely_as_the_dealers_move_makes_it(seed):
    """With inference (the default) pimc values its actions under the posterior over the worlds
    given that the dealer plays the rollout policy (``fast_policy``) with probability 1 - eps
    and any of the 11 moves with eps / 11 (eps = ``infer_epsilon``, 0.1): every deal equally
    likely, each world counting the sum over the deals and dealer's moves that lead to it of
    the move's probability, times eps / 2 when the dealer is left holding a normal 31 and did
    not announce (the policy always announces)."""
    found = _second_players_deals(seed)
    if found is None:
        pytest.skip("the round ended before player_1's turn")
    observation, deals, rewards = found
    agent = make_agent("pimc:max_turns=2", "tri_palki_tiny", "player_1", seed)
    agent.act(observation)
    eps = 0.1
    weight = dict.fromkeys(rewards, 0.0)
    for before, move, world in deals:
        chance = (1 - eps) * (fast_policy(before) == move) + eps / 11
        if TRIPLES[world[0]].normal_31:
            chance *= eps / 2
        weight[world] += chance
    total = sum(weight.values())
    actions = next(iter(rewards.values()))
    expected = {a: sum(weight[w] * rewards[w][a] for w in rewards) / total for a in actions}
    assert agent.last_action_values == pytest.approx(expected)


@pytest.mark.parametrize(
    "spec, words",
    [
        ("pimc:samples=8", "does not apply"),
        ("pimc:confidence=1", "does not apply"),
        ("pimc:max_turns=0", "max_turns must be at least 1"),
        ("pimc:max_turns=two", "needs an integer"),
        ("pimc:max_turns", "needs an integer"),
        ("pimc:turns=1", "not key=value"),
    ],
)
def test_pimc_on_the_variant_refuses_sampling_keys_and_a_bad_turn_limit(spec, words):
    with pytest.raises(ValueError, match=words):
        make_agent(spec, "tri_palki_tiny", "player_0", 0)
