"""Agents both ways: a saved OpenSpiel policy plays in folkcards (``openspiel:policy=PATH``, in
a tournament too), and folkcards agents are OpenSpiel policies (``as_policy``) that OpenSpiel's
own bots and evaluation play."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import folkcards.openspiel as fo  # noqa: E402
from folkcards.agents import make_agent  # noqa: E402
from folkcards.agents.episode import play_episode  # noqa: E402
from folkcards.envs.registry import GAMES  # noqa: E402
from folkcards.openspiel.agents import save_policy  # noqa: E402

from folkcards.cli import main  # noqa: E402

GAMES_WITH_CHANCE = [name for name, spec in GAMES.items() if spec.explicit_chance is not None]


class _Table:
    """A tabular policy as OpenSpiel's ``to_dict`` gives it: information state -> pairs."""

    def __init__(self):
        self.rows: dict[str, list[tuple[int, float]]] = {}

    def to_dict(self):
        return self.rows


def _same_deal(name: str, seed: int):
    """A game, an env reset on a seeded deal, and the chance events that deal it."""
    spec = GAMES[name]
    game = fo.load_game(name, dealer=0)
    short = {"max_turns": 12} if "max_turns" in game.get_parameters() else {}
    game = fo.load_game(name, dealer=0, **short)
    env = spec.raw_env(game.num_players(), episode=game.mode, **game.env_options)
    env.reset(seed=seed, options={"dealer": 0})
    events = list(spec.piece("explicit_chance").outcomes_of(env))
    return game, events


@pytest.mark.parametrize("name", GAMES_WITH_CHANCE)
def test_saved_policy_plays_its_actions_at_every_information_state(name, tmp_path):
    """A policy built on the OpenSpiel game (each seat's highest legal action, at every
    information state one deal reaches) is saved, then played by ``openspiel:policy=PATH``
    agents through the env on the same deal: each agent finds its information state (never a
    miss) and plays the policy's action."""
    game, events = _same_deal(name, seed=4)
    table = _Table()
    state = game.new_initial_state()
    queue = list(events)
    chosen = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(queue.pop(0))
            continue
        action = max(state.legal_actions())
        table.rows[state.information_state_string()] = [
            (a, 1.0 if a == action else 0.0) for a in state.legal_actions()
        ]
        chosen.append(action)
        state.apply_action(action)
    path = save_policy(table, tmp_path / "policy.json")

    spec = GAMES[name]
    env = spec.raw_env(game.num_players(), episode=game.mode, **game.env_options)
    agents = [
        make_agent(f"openspiel:policy={path}", name, agent, seed=i)
        for i, agent in enumerate(env.possible_agents)
    ]
    played = []
    run = play_episode(
        env, agents, seed=4, options={"dealer": 0}, on_action=lambda d: played.append(d.action)
    )
    assert played == chosen
    assert [run.returns[a] for a in env.possible_agents] == state.returns()


def test_openspiel_agent_refuses_an_unknown_information_state_in_one_line(tmp_path):
    path = save_policy(_Table(), tmp_path / "empty.json")
    agent = make_agent(f"openspiel:policy={path}", "paston", "player_0", seed=0)
    env = GAMES["paston"].raw_env()
    env.reset(seed=1)
    with pytest.raises(ValueError, match="no information state"):
        agent.act(env.observe(env.agent_selection))
    with pytest.raises(ValueError, match="openspiel:policy=PATH"):
        make_agent("openspiel", "paston", "player_0")
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"openspiel:policy={tmp_path / 'none.json'}", "paston", "player_0")


@pytest.mark.parametrize("name", ["paston", "tri_palki"])
def test_openspiel_agent_plays_a_folkcards_tournament(name, tmp_path):
    game = fo.load_game(name)
    table = _Table()
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():  # a policy that holds one deal's information states
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        legal = state.legal_actions()
        table.rows[state.information_state_string()] = [(a, 1 / len(legal)) for a in legal]
        state.apply_action(legal[0])
    path = save_policy(table, tmp_path / "policy.json")
    spec = GAMES[name]
    lineup = [f"openspiel:policy={path},missing=uniform", *["random"] * (spec.default_players - 1)]
    args = ["tournament", "--game", name, "--agents", *lineup, "--deals", "2", "--seed", "5"]
    args += ["--workers", "1", "--out", str(tmp_path / "out"), "--no-progress", "--no-plot"]
    args += ["--bootstrap", "0", "--verify"]
    assert main(args) == 0


@pytest.mark.parametrize("name", GAMES_WITH_CHANCE)
def test_folkcards_agent_as_openspiel_policy_chooses_what_the_agent_chooses(name):
    game, events = _same_deal(name, seed=2)
    policy = fo.as_policy("heuristic", game)
    state = game.new_initial_state()
    for event in events[:200]:
        if not state.is_chance_node():
            break
        state.apply_action(event)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.current_player()
    probs = policy.action_probabilities(state)
    agent = make_agent("heuristic", name, state.agents[player], seed=0)
    expected = agent.act(state.env.observe(state.agents[player]))
    assert probs == {a: float(a == expected) for a in state.legal_actions()}


def test_a_network_playing_its_most_likely_move_is_that_move_as_a_policy():
    """``ppo`` plays the argmax of its network: as a policy it is that one move, not the
    softmax it does not sample from."""
    game = fo.load_game("tri_palki", players=4)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    seat = state.agents[state.current_player()]
    agent = make_agent("ppo", "tri_palki", seat, seed=0)
    assert agent.deterministic
    expected = agent.act(state.env.observe(seat))
    probs = fo.as_policy("ppo", game).action_probabilities(state)
    assert probs == {a: float(a == expected) for a in state.legal_actions()}


def test_random_agent_as_policy_gives_its_choice_frequencies():
    game = fo.load_game("tri_palki", players=3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = fo.as_policy("random", game, samples=400).action_probabilities(state)
    legal = state.legal_actions()
    assert sorted(probs) == legal
    assert sum(probs.values()) == pytest.approx(1.0)
    assert max(abs(p - 1 / len(legal)) for p in probs.values()) < 0.08


def _sampled_returns(game, policies, episodes: int, seed: int) -> np.ndarray:
    """Mean returns of seats playing OpenSpiel policies over sampled episodes."""
    rng = np.random.default_rng(seed)
    total = np.zeros(game.num_players())
    for _ in range(episodes):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                pairs = state.chance_outcomes()
            else:
                pairs = list(policies[state.current_player()].action_probabilities(state).items())
            actions, probs = zip(*pairs, strict=True)
            state.apply_action(int(rng.choice(actions, p=np.array(probs) / sum(probs))))
        total += state.returns()
    return total / episodes


def test_folkcards_policies_play_through_openspiel_and_score_table_points():
    """The heuristic (seat 0) against random (seats 1, 2), all as OpenSpiel policies over
    sampled Paston deals: the returns are table points within the game's bounds."""
    game = fo.load_game("paston")
    heuristic = fo.as_policy("heuristic", game)
    uniform = fo.as_policy("random", game, samples=4)
    mixed = _sampled_returns(game, [heuristic, uniform, uniform], episodes=6, seed=3)
    assert (mixed >= game.min_utility()).all() and (mixed <= game.max_utility()).all()
    assert (mixed != 0).any()


def test_as_policy_refuses_a_bad_spec_or_game():
    game = fo.load_game("paston")
    with pytest.raises(ValueError, match="unknown agent"):
        fo.as_policy("nonsense", game)
    with pytest.raises(ValueError, match="samples"):
        fo.as_policy("random", game, samples=0)
    with pytest.raises(ValueError, match="load_game"):
        fo.as_policy("random", pyspiel.load_game("kuhn_poker"))


def test_save_policy_writes_openspiels_cpp_tabular_policy(tmp_path):
    """CFR+ in C++ (``pyspiel.CFRPlusSolver``) returns a ``pyspiel.TabularPolicy``."""
    import pyspiel
    from folkcards.openspiel.agents import load_policy

    policy = pyspiel.TabularPolicy({"player_0\nx": [(0, 0.25), (3, 0.75), (5, 0.0)]})
    path = save_policy(policy, tmp_path / "cfr.json")
    assert load_policy(path) == {"player_0\nx": {0: 0.25, 3: 0.75}}


def test_copies_of_a_policy_agent_share_its_table_and_keep_their_own_history(tmp_path):
    """A search probe copies the table's agents for every rollout: the copies must act as the
    original would from the same point, without reading or copying the policy again; a file
    written anew is read anew."""
    import copy

    game, events = _same_deal("tri_palki_tiny", seed=2)
    table = _Table()
    state = game.new_initial_state()
    queue = list(events)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(queue.pop(0))
            continue
        legal = state.legal_actions()
        table.rows[state.information_state_string()] = [(a, 1 / len(legal)) for a in legal]
        state.apply_action(legal[0])
    path = save_policy(table, tmp_path / "policy.json")
    spec = GAMES["tri_palki_tiny"]
    env = spec.raw_env(game.num_players(), episode=game.mode, **game.env_options)
    env.reset(seed=2, options={"dealer": 0})
    seat = env.agent_selection
    agent = make_agent(f"openspiel:policy={path}", "tri_palki_tiny", seat, seed=7)
    agent.reset()
    clone = copy.deepcopy(agent)
    assert clone.table is agent.table and clone.tracker is not agent.tracker
    observation = env.observe(seat)
    assert clone.act(observation) == agent.act(observation)  # same seed, same point
    assert make_agent(f"openspiel:policy={path}", "tri_palki_tiny", seat).table is agent.table
    with pytest.raises(TypeError):
        agent.table["x"] = {}  # read-only: shared by every copy
    save_policy(_Table(), path)  # rewritten: another size, so read again
    assert make_agent(f"openspiel:policy={path}", "tri_palki_tiny", seat).table is not agent.table
