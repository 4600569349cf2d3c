"""The shared episode loop: returns, final infos, dead steps, stop points and timing."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import advance, play_episode
from folkcards.envs.registry import GAMES, game_spec

CASES = [
    ("paston", {"episode": "deal"}, None),
    ("paston", {"episode": "game", "max_deals": 6}, None),
    ("tri_palki", {"episode": "round"}, 3),
    ("tri_palki", {"episode": "match", "max_turns": 60}, 5),
]


def _reference_returns(env, agents, seed):
    """Returns by the PettingZoo reading: the reward ``last()`` shows each agent, summed."""
    env.reset(seed=seed)
    for agent in agents.values():
        agent.reset()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    infos = {}
    for name in env.agent_iter(max_iter=100_000):
        observation, reward, termination, truncation, info = env.last()
        totals[name] += reward
        if termination or truncation:
            infos[name] = dict(info)
            env.step(None)
        else:
            env.step(agents[name].act(observation))
    return totals, infos


def _random_table(game, env, seed):
    return {
        name: make_agent("random", game, name, seed=100 * seed + i)
        for i, name in enumerate(env.possible_agents)
    }


@pytest.mark.parametrize(("game", "kwargs", "players"), CASES)
def test_returns_and_infos_match_the_agent_iter_reading(game, kwargs, players):
    spec = game_spec(game)
    for seed in range(8):
        env = spec.raw_env(players, **kwargs)

        run = play_episode(env, _random_table(game, env, seed), seed=seed)
        totals, infos = _reference_returns(
            spec.raw_env(players, **kwargs), _random_table(game, env, seed), seed
        )
        assert run.returns == pytest.approx(totals)
        assert run.final_infos == infos
        assert run.steps == sum(len(v) for v in run.decision_seconds.values())


def test_advance_stops_before_the_chosen_agent_acts():
    spec = game_spec("paston")
    env = spec.raw_env()
    env.reset(seed=3)
    agents = [make_agent("random", "paston", f"player_{i}", seed=i) for i in range(3)]
    seen = []
    run = advance(
        env,
        agents,
        stop=lambda name: name == "player_2" and len(seen) >= 2,
        on_action=lambda d: seen.append(d.agent),
    )
    assert env.agent_selection == "player_2"
    assert len(seen) == run.steps >= 2
    assert all(isinstance(t, float) and t >= 0 for ts in run.decision_seconds.values() for t in ts)


def test_an_illegal_action_names_the_seat():
    class Stubborn:
        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    env = game_spec("tri_palki").raw_env(3)
    with pytest.raises(RuntimeError, match="player_"):
        play_episode(env, [Stubborn()] * 3, seed=0)


def test_wrong_number_of_agents_is_a_value_error():
    env = GAMES["paston"].raw_env()
    with pytest.raises(ValueError, match="2 agents for 3 seats"):
        play_episode(env, [make_agent("random", "paston")] * 2, seed=0)
