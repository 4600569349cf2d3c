"""The Paston env as a PettingZoo environment: API conformance, registry, names, records, bad input."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pettingzoo
import pytest
from folkcards.envs import paston_v0
from folkcards.envs.paston.observation import OBSERVATION_SIZE, decode
from pettingzoo.test import api_test, render_test, seed_test

from tests.helpers import play_random_episode

DEAL = {
    "hands": [
        "7C 10C KC 7D QD KD AD 7H 10H QH".split(),
        "7S 8S JS 8C 9C 10D 8H 9H JH AH".split(),
        "9S 10S KS AS JC QC AC 8D 9D JD".split(),
    ],
    "prikup": ["QS", "KH"],
}


@pytest.fixture(autouse=True)
def _quiet_unknown_option_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("episode", ["deal", "game"])
@pytest.mark.parametrize("factory", [paston_v0.env, paston_v0.raw_env])
def test_pettingzoo_api_test(factory, episode):
    api_test(factory(episode=episode), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("episode", ["deal", "game"])
def test_pettingzoo_seed_test(episode):
    seed_test(lambda: paston_v0.env(episode=episode), num_cycles=300)


@pytest.mark.parametrize("episode", ["deal", "game"])
def test_pettingzoo_render_test(episode, capsys):
    render_test(lambda render_mode=None: paston_v0.env(episode=episode, render_mode=render_mode))


def test_registry_make():
    env = pettingzoo.make("aec", "folkcards/paston-v0", episode="deal")
    env.reset(seed=3)
    assert env.agents == ["player_0", "player_1", "player_2"]
    assert env.unwrapped.metadata["name"] == "paston_v0"


def test_spaces_are_built_once_and_shaped_per_contract():
    env = paston_v0.raw_env()
    space = env.observation_space("player_0")
    assert space is env.observation_space("player_1")
    assert space["observation"].shape == (OBSERVATION_SIZE,)
    assert space["action_mask"].shape == (45,)
    assert env.action_space("player_2").n == 45


def test_observe_every_agent_any_time_and_mask_zero_when_not_to_act():
    env = paston_v0.raw_env()
    env.reset(seed=5)
    for agent in env.agents:
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.float32
        assert obs["action_mask"].dtype == np.int8
        if agent != env.agent_selection:
            assert not obs["action_mask"].any()
        else:
            assert obs["action_mask"].any()


def test_action_strings_round_trip():
    env = paston_v0.raw_env()
    for action in range(45):
        text = env.action_to_string(action)
        assert env.string_to_action(text) == action
        assert env.string_to_action(text.upper()) == action
    assert env.string_to_action("10♥") == env.string_to_action("10H") == 27
    assert env.string_to_action("bid best spades") == 37
    with pytest.raises(ValueError, match="unknown Paston action"):
        env.string_to_action("bid no-trump")
    with pytest.raises(ValueError):
        env.action_to_string(45)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"episode": "deal"},
        {"episode": "game", "max_deals": 5},
        {"episode": "deal", "shaping": True},
    ],
)
def test_record_is_json_and_replays_exactly(kwargs):
    env = paston_v0.raw_env(**kwargs)
    env.reset(seed=11)
    play_random_episode(env, np.random.default_rng(0))
    record = env.record()
    record = json.loads(json.dumps(record))
    again = paston_v0.replay(record)
    assert again.record() == record
    assert record["deals"][-1]["result"] is not None


def test_record_of_seedless_reset_replays():
    env = paston_v0.raw_env(episode="game", max_deals=3)
    env.reset()
    play_random_episode(env, np.random.default_rng(1))
    record = env.record()
    assert isinstance(record["seed"], int)
    assert paston_v0.replay(record).record() == record


def test_same_seed_same_deal_and_different_seed_differs():
    a, b, c = (paston_v0.raw_env() for _ in range(3))
    a.reset(seed=7)
    b.reset(seed=7)
    c.reset(seed=8)
    assert a.record()["deals"] == b.record()["deals"]
    assert a.record()["deals"] != c.record()["deals"]


def _snapshot(env):
    return (
        env.agent_selection,
        [env.observe(a)["observation"].tobytes() for a in env.possible_agents],
        copy.deepcopy(env.record()),
    )


BAD_OPTIONS = [
    ({"deal": {"hands": DEAL["hands"][:2], "prikup": DEAL["prikup"]}}, "3 hands"),
    (
        {"deal": {"hands": [DEAL["hands"][0][:9], *DEAL["hands"][1:]], "prikup": DEAL["prikup"]}},
        "10 cards",
    ),
    ({"deal": {"hands": DEAL["hands"], "prikup": ["QS"]}}, "2 cards"),
    ({"deal": {"hands": DEAL["hands"], "prikup": ["QS", "QS"]}}, "QS"),
    ({"deal": {"hands": DEAL["hands"], "prikup": ["QS", "ZZ"]}}, "ZZ"),
    ({"deal": {"hands": DEAL["hands"], "prikup": ["QS", "6H"]}}, "6H"),
    ({"deal": {"hands": DEAL["hands"], "prikup": ["QS", 32]}}, "32"),
    ({"deal": {"hands": DEAL["hands"]}}, "prikup"),
    ({"deal": "7S 8S"}, "deal"),
    ({"dealer": 3}, "dealer"),
    ({"dealer": "north"}, "dealer"),
]


@pytest.mark.parametrize(("options", "needle"), BAD_OPTIONS)
def test_bad_options_raise_and_leave_env_unchanged(options, needle):
    env = paston_v0.raw_env()
    env.reset(seed=2)
    env.step(32)
    before = _snapshot(env)
    with pytest.raises(ValueError, match=needle):
        env.reset(seed=5, options=options)
    assert _snapshot(env) == before
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"episode": "match"}, "episode"),
        ({"reward": "sticks"}, "reward"),
        ({"reward_scale": 0}, "reward_scale"),
        ({"reward_scale": float("nan")}, "reward_scale"),
        ({"max_deals": 0}, "max_deals"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"shaping": "yes"}, "shaping"),
        ({"reward": "win"}, "game"),
    ],
)
def test_bad_constructor_arguments(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        paston_v0.raw_env(**kwargs)


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"totals": [0, 0, 121]}, "121"),
        ({"totals": [0, 0]}, "totals"),
        ({"totals": [0, 0.5, 0]}, "totals"),
        ({"first_deal": "no"}, "first_deal"),
    ],
)
def test_bad_game_options(options, needle):
    env = paston_v0.raw_env(episode="game")
    with pytest.raises(ValueError, match=needle):
        env.reset(seed=0, options=options)


def test_illegal_action_on_raw_env_raises_and_leaves_env_unchanged():
    env = paston_v0.raw_env()
    env.reset(seed=0, options={"dealer": 1, "deal": DEAL})
    before = _snapshot(env)
    for bad in (34, 0, 44, 45, -1, None, 1.5):
        with pytest.raises(ValueError):
            env.step(bad)
        assert _snapshot(env) == before
    env.step(33)
    assert env.agent_selection == "player_0"


def test_classic_env_terminates_on_illegal_action_with_minus_one():
    env = paston_v0.env()
    env.reset(seed=0, options={"dealer": 1, "deal": DEAL})
    offender = env.agent_selection
    env.step(0)  # a card during the auction
    assert all(env.terminations.values())
    _, reward, *_ = env.last()
    assert env._cumulative_rewards[offender] == -1.0
    assert env.infos[offender]["illegal_move"] is True


def test_classic_env_enforces_reset_first_and_bounds():
    env = paston_v0.env()
    with pytest.raises(AttributeError):
        _ = env.agents
    with pytest.raises(Exception):  # noqa: B017 - PettingZoo raises its own error type here
        env.step(32)
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(99)


def test_decode_round_trip_of_named_pieces():
    env = paston_v0.raw_env()
    env.reset(seed=21)
    rng = np.random.default_rng(0)

    def check(env, agent, action):
        deal = env.state_deal()
        for seat, name in enumerate(env.possible_agents):
            view = decode(env.observe(name)["observation"])
            assert view.hand == sorted(deal.hand_cards(seat))
            assert view.tricks == [deal.tricks[(seat + k) % 3] for k in range(3)]
            assert (
                view.phase
                == ("auction", "discard", "contract", "defence", "play", "over")[deal.phase]
            )
            if deal.trick:
                assert [c for _, c in view.trick] == [c for _, c in deal.trick]

    play_random_episode(env, rng, on_step=check)


def test_ansi_render_shows_suits_and_turn():
    env = paston_v0.raw_env(render_mode="ansi")
    env.reset(seed=0, options={"dealer": 1, "deal": DEAL})
    text = env.render()
    assert "♠" in text and "♥" in text and "to act" in text and "auction" in text


# --- the edges a new user hits ------------------------------------------------------------------


@pytest.mark.parametrize("episode", ["deal", "game"])
def test_raw_env_step_after_the_episode_is_over_says_so(episode):
    env = paston_v0.raw_env(episode=episode, max_deals=2)
    env.reset(seed=4)
    play_random_episode(env, np.random.default_rng(0))
    assert env.agents == []
    for action in (None, 32):
        with pytest.raises(ValueError, match=r"the episode is over; call reset\(\)"):
            env.step(action)


def test_classic_env_step_after_the_episode_is_over_warns_like_pettingzoo(caplog):
    """PettingZoo's OrderEnforcingWrapper: a warning and no change, never a KeyError."""
    env = paston_v0.env()
    env.reset(seed=4)
    play_random_episode(env, np.random.default_rng(0))
    with caplog.at_level("WARNING"):
        env.step(None)
        env.step(32)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert env.agents == []


@pytest.mark.parametrize("size", [0, OBSERVATION_SIZE - 1, OBSERVATION_SIZE + 1])
def test_decode_of_a_wrong_length_names_expected_and_got(size):
    with pytest.raises(ValueError, match=rf"{OBSERVATION_SIZE}.*{size}"):
        decode(np.zeros(size, dtype=np.float32))


# Both spade designees (J♠ 7♠) in the prikup, no six-spade hand: all pass means a redeal.
REDEAL_DEAL = {
    "hands": [
        ["8S", "9S", "10S", "QS", "KS", "AS", "7C", "8C", "9C", "10C"],
        ["JC", "QC", "KC", "AC", "7D", "8D", "9D", "10D", "JD", "QD"],
        ["KD", "AD", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH"],
    ],
    "prikup": ["7S", "JS"],
}


def test_game_mode_shows_an_all_pass_redeal_in_every_infos():
    """As in deal mode, with the totals unchanged, until the next deal completes."""
    totals = [15, -30, 4]
    env = paston_v0.raw_env(episode="game")
    env.reset(
        seed=1,
        options={"dealer": 0, "first_deal": False, "totals": totals, "deal": REDEAL_DEAL},
    )
    for agent in ("player_1", "player_2", "player_0"):  # the dealer's left bids first
        assert env.agent_selection == agent
        env.step(paston_v0.raw_env().string_to_action("pass"))
    assert not any(env.terminations.values())
    for seat, agent in enumerate(env.possible_agents):
        info = env.infos[agent]
        assert info["outcome"] == "redeal"
        assert info["deal_score"] == 0
        assert info["role"] == "none"
        assert info["total"] == totals[seat]
        assert info["totals"] == totals
    assert env.totals == totals
    redeal_infos = copy.deepcopy(env.infos)
    rng = np.random.default_rng(5)
    while env.infos == redeal_infos:  # the next deal: the infos hold until it completes
        assert env.state_deal().outcome is None
        observation = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert env.infos["player_0"]["outcome"] in ("played", "auto_win", "surrender")
