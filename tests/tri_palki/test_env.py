"""The Tri Palki env as a PettingZoo environment: API conformance, registry, names, records,
bad input, illegal actions, truncation and the rounds that end at the deal."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pettingzoo
import pytest
from folkcards.envs import tri_palki_v0
from folkcards.envs._aec import make_classic
from folkcards.envs.tri_palki.observation import observation_size
from folkcards.envs.tri_palki.rules import OVER
from pettingzoo.test import api_test, render_test, seed_test

from tests.helpers import play_random_episode

# 4 players, dealer player_0: deal order player_1, player_2, player_3, player_0, centre, x3.
# Hands: p1 6S 9C QD, p2 7S 10C KD, p3 8S JC AD, p0 AH KH QH (a normal 31); centre 9S JD 6H.
DECK = (
    "6S 7S 8S AH 9S  9C 10C JC KH JD  QD KD AD QH 6H "
    "7C 8C 6D 7D 8D 9D 10D 6C 10S JS QS KS AS QC KC AC 7H 8H 9H 10H JH"
).split()


@pytest.fixture(autouse=True)
def _quiet_unknown_option_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


class _NoRewardAtReset(tri_palki_v0.raw_env):
    """The env, except that a reset whose deal ends the round at once is dealt again.

    api.md decides that such a round (a one-suit centre the reserve cannot replace: 4.7% of
    11-player deals) terminates everyone at ``reset`` with its sticks already paid. PettingZoo's
    ``play_test`` assumes no reward before the first step, and its fixed chain of seedless
    resets after ``reset(seed=0)`` meets such a deal for 11 players. That behaviour is tested
    on its own below; here it is skipped so that the API test checks everything else.
    """

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        while len(self._round_records) > 1 or self._round.phase == OVER:
            super().reset(seed=None, options=options)


def _factory(kind: str, **kwargs):
    if kind == "env":
        return make_classic(_NoRewardAtReset, **kwargs)
    return _NoRewardAtReset(**kwargs)


@pytest.mark.parametrize("episode", ["round", "match"])
@pytest.mark.parametrize("num_players", [2, 4, 11])
@pytest.mark.parametrize("kind", ["env", "raw_env"])
def test_pettingzoo_api_test(kind, num_players, episode):
    env = _factory(kind, num_players=num_players, episode=episode)
    env.action_space(env.possible_agents[0]).seed(num_players)  # one space object for all agents
    api_test(env, num_cycles=300, verbose_progress=False)


def test_pettingzoo_api_test_match_win_rewards():
    env = _factory("env", num_players=3, episode="match", reward="win")
    env.action_space("player_0").seed(0)
    api_test(env, num_cycles=1000)


@pytest.mark.parametrize("episode", ["round", "match"])
@pytest.mark.parametrize("num_players", [2, 4, 11])
def test_pettingzoo_seed_test(num_players, episode):
    seed_test(lambda: tri_palki_v0.env(num_players=num_players, episode=episode), num_cycles=300)


@pytest.mark.parametrize("episode", ["round", "match"])
@pytest.mark.parametrize("num_players", [2, 4, 11])
def test_pettingzoo_render_test(num_players, episode, capsys):
    render_test(
        lambda render_mode=None: tri_palki_v0.env(
            num_players=num_players, episode=episode, render_mode=render_mode
        )
    )


def test_registry_make():
    env = pettingzoo.make("aec", "folkcards/tri_palki-v0", num_players=5, episode="match")
    env.reset(seed=3)
    assert env.agents == [f"player_{i}" for i in range(5)]
    assert env.unwrapped.metadata["name"] == "tri_palki_v0"
    assert env.unwrapped._classic


@pytest.mark.parametrize("num_players", [2, 4, 11])
def test_spaces_are_built_once_and_shaped_per_contract(num_players):
    env = tri_palki_v0.raw_env(num_players=num_players)
    space = env.observation_space("player_0")
    assert space is env.observation_space("player_1")
    assert space["observation"].shape == (observation_size(num_players),)
    assert observation_size(num_players) == 121 + 45 * num_players
    assert space["action_mask"].shape == (13,)
    assert env.action_space("player_1").n == 13


def test_observe_every_agent_any_time_and_mask_zero_when_not_to_act():
    env = tri_palki_v0.raw_env(num_players=5)
    env.reset(seed=5)
    rng = np.random.default_rng(5)

    def check(env, agent, action):
        for name in env.possible_agents:
            obs = env.observe(name)
            assert obs["observation"].dtype == np.float32
            assert obs["action_mask"].dtype == np.int8
            live = name in env.agents and not (env.terminations[name] or env.truncations[name])
            if name == env.agent_selection and live:
                legal = set(np.flatnonzero(obs["action_mask"]).tolist())
                assert legal in (set(range(11)), {11, 12})
            else:
                assert not obs["action_mask"].any()

    play_random_episode(env, rng, on_step=check)


def test_action_strings_name_the_cards_and_round_trip():
    env = tri_palki_v0.raw_env()
    env.reset(seed=0, options={"dealer": 0, "deck": DECK})
    # player_0 holds QH KH AH (ids 33 34 35); the centre is 9S JD 6H (ids 3 23 27).
    assert env.action_to_string(0) == "pass"
    assert env.action_to_string(1) == "swap QH 9S"
    assert env.action_to_string(9) == "swap AH 6H"
    assert env.action_to_string(10) == "swap all"
    assert env.action_to_string(11) == "announce"
    assert env.action_to_string(12) == "no announce"
    for action in range(13):
        text = env.action_to_string(action)
        assert env.string_to_action(text) == action
        assert env.string_to_action(text.lower()) == action
    assert env.string_to_action("Swap  K♥ j♦") == 1 + 3 * 1 + 1
    assert env.string_to_action("swap h2 c3") == 6
    assert env.string_to_action("do not announce") == 12
    with pytest.raises(ValueError, match="not in player_0's hand"):
        env.string_to_action("swap 6S 9S")
    with pytest.raises(ValueError, match="not in the centre"):
        env.string_to_action("swap AH AS")
    with pytest.raises(ValueError, match="unknown Tri Palki action"):
        env.string_to_action("draw")
    with pytest.raises(ValueError, match="unknown card"):
        env.string_to_action("swap 5H 9S")
    with pytest.raises(ValueError):
        env.action_to_string(13)


def test_action_strings_round_trip_through_random_play():
    env = tri_palki_v0.raw_env(num_players=3, episode="match")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    checked = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        for action in legal:
            assert env.string_to_action(env.action_to_string(int(action))) == action
            checked += 1
        env.step(int(rng.choice(legal)))
    assert checked > 100


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 4},
        {"num_players": 2, "episode": "match"},
        {"num_players": 7, "episode": "match", "reward": "win"},
        {"num_players": 11, "episode": "match", "max_turns": 30},
    ],
)
def test_record_is_json_and_replays_exactly(kwargs):
    env = tri_palki_v0.raw_env(**kwargs)
    env.reset(seed=11, options={"sticks": [2] * kwargs["num_players"]})
    totals = play_random_episode(env, np.random.default_rng(0))
    record = json.loads(json.dumps(env.record()))
    again = tri_palki_v0.replay(record)
    assert again.record() == record
    assert record["rounds"][-1]["result"] is not None
    play_random_episode(again, np.random.default_rng(99))  # only dead steps remain
    assert not again.agents and not env.agents
    assert set(totals) == set(env.possible_agents)


def test_record_of_seedless_reset_replays():
    env = tri_palki_v0.raw_env(num_players=3, episode="match", max_turns=50)
    env.reset()
    play_random_episode(env, np.random.default_rng(1))
    record = env.record()
    assert isinstance(record["seed"], int)
    assert tri_palki_v0.replay(record).record() == record


def test_record_rounds_replay_through_the_deck_option():
    """Each recorded round's deck and sticks, given back as options, replays that round."""
    env = tri_palki_v0.raw_env(num_players=4, episode="match", max_turns=1000)
    env.reset(seed=8)
    play_random_episode(env, np.random.default_rng(8))
    rounds = env.record()["rounds"]
    assert len(rounds) >= 2
    for rnd in rounds:
        alive = [s < 4 for s in rnd["sticks"]]
        if not all(alive):
            continue  # the round option deals to every seat; later rounds skip the eliminated
        single = tri_palki_v0.raw_env(num_players=4, max_turns=1000)
        single.reset(
            seed=0, options={"dealer": rnd["dealer"], "deck": rnd["deck"], "sticks": rnd["sticks"]}
        )
        for agent, action in rnd["actions"]:
            assert single.agent_selection == agent
            single.step(action)

        def strip(result):
            return {
                a: {k: v for k, v in r.items() if k not in ("round", "sticks_all", "winner")}
                for a, r in result.items()
            }

        assert strip(single.record()["rounds"][0]["result"]) == strip(rnd["result"])


def test_same_seed_same_round_and_different_seed_differs():
    a, b, c = (tri_palki_v0.raw_env() for _ in range(3))
    a.reset(seed=7)
    b.reset(seed=7)
    c.reset(seed=8)
    assert a.record()["rounds"] == b.record()["rounds"]
    assert a.record()["rounds"] != c.record()["rounds"]


def test_deck_option_deals_from_the_dealers_left_with_a_face_up_centre():
    env = tri_palki_v0.raw_env()
    env.reset(seed=0, options={"dealer": "player_0", "deck": [c.lower() for c in DECK]})
    rnd = env.state_round()
    assert rnd.hand_cards(1) == [0, 12, 24]  # 6S 9C QD
    assert rnd.hand_cards(2) == [1, 13, 25]  # 7S 10C KD
    assert rnd.hand_cards(0) == [33, 34, 35]  # QH KH AH
    assert env.agent_selection == "player_0"  # the dealer acts first
    assert rnd.reserve_cards()[:2] == [10, 11]  # 7C 8C, top first
    view = tri_palki_v0.decode(env.observe("player_1")["observation"], 4)
    assert view.centre == [3, 23, 27] and view.hand == [0, 12, 24]  # 9S JD 6H


def _snapshot(env):
    return (
        env.agent_selection,
        list(env.agents),
        dict(env.terminations),
        dict(env.truncations),
        copy.deepcopy(env.infos),
        dict(env._cumulative_rewards),
        [env.observe(a)["observation"].tobytes() for a in env.possible_agents],
        [env.observe(a)["action_mask"].tobytes() for a in env.possible_agents],
        copy.deepcopy(env.record()),
        env.next_dealer,
    )


BAD_OPTIONS = [
    ({"deck": DECK[:35]}, "36 cards"),
    ({"deck": DECK[:35] + ["6S"]}, "6S appears more than once"),
    ({"deck": DECK[:35] + ["5H"]}, "5H"),
    ({"deck": DECK[:35] + [36]}, "36"),
    ({"deck": DECK[:35] + [True]}, "True"),
    ({"deck": "6S 7S"}, "deck"),
    ({"deck": DECK + ["6S"]}, "more than once"),
    ({"dealer": 4}, "dealer"),
    ({"dealer": -1}, "dealer"),
    ({"dealer": "north"}, "dealer"),
    ({"dealer": 1.0}, "dealer"),
    ({"sticks": [0, 0, 4, 0]}, "player_2 has 4"),
    ({"sticks": [0, 0, -1, 0]}, "player_2 has -1"),
    ({"sticks": [0, 0, 0]}, "4 integers"),
    ({"sticks": [0, 0, 0.5, 0]}, "sticks"),
    ({"sticks": "0000"}, "sticks"),
    ("dealer 0", "options must be a dict"),
]


@pytest.mark.parametrize(("options", "needle"), BAD_OPTIONS)
def test_bad_options_raise_and_leave_env_unchanged(options, needle):
    env = tri_palki_v0.raw_env(episode="match")
    env.reset(seed=2)
    env.step(0)
    before = _snapshot(env)
    with pytest.raises(ValueError, match=needle):
        env.reset(seed=5, options=options)
    assert _snapshot(env) == before
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def test_bad_seed_raises_and_leaves_env_unchanged():
    env = tri_palki_v0.raw_env()
    env.reset(seed=2)
    before = _snapshot(env)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed="two")
    assert _snapshot(env) == before


def test_unknown_option_warns_and_is_ignored():
    env = tri_palki_v0.raw_env()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.reset(seed=0, options={"delaer": 2})
    assert any("delaer" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"num_players": 12}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": 4.0}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"episode": "game"}, "episode"),
        ({"reward": "score"}, "reward"),
        ({"reward": "win"}, "match"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": 2.5}, "max_turns"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_bad_constructor_arguments(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        tri_palki_v0.raw_env(**kwargs)


def test_illegal_action_on_raw_env_raises_and_leaves_env_unchanged():
    env = tri_palki_v0.raw_env()
    env.reset(seed=0, options={"dealer": 0, "deck": DECK})
    before = _snapshot(env)
    for bad in (11, 12, 13, -1, None, 1.5, "pass", True):
        with pytest.raises(ValueError):
            env.step(bad)
        assert _snapshot(env) == before
    env.step(0)  # player_0 passes with a normal 31: the announcement is offered
    assert env.agent_selection == "player_0"
    offered = _snapshot(env)
    for bad in (0, 5, 10):
        with pytest.raises(ValueError, match="illegal action"):
            env.step(bad)
        assert _snapshot(env) == offered
    env.step(12)
    assert env.agent_selection == "player_1"


def test_classic_env_terminates_on_illegal_action_with_minus_one():
    env = tri_palki_v0.env(num_players=3)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(11)  # announcing is not offered at the start of a turn
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1.0
    assert all(env._cumulative_rewards[a] == 0.0 for a in env.agents if a != offender)
    assert env.infos[offender]["illegal_move"] is True
    _, reward, termination, _, _ = env.last()
    assert termination
    seen = {}
    for agent in env.agent_iter():
        _, reward, *_ = env.last()
        seen[agent] = reward
        env.step(None)
    assert seen[offender] == -1.0 and not env.agents


def test_classic_env_enforces_reset_first_and_bounds():
    env = tri_palki_v0.env()
    with pytest.raises(AttributeError):
        _ = env.agents
    with pytest.raises(Exception):  # noqa: B017 - PettingZoo raises its own error type here
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(13)


# A 4-player deck, dealer player_0, whose centre is 6S 7S 8S (one suit): washed at the deal.
ONE_SUIT_CENTRE = "9S 10S JS QS 6S  KS AS 6C 7C 7S  8C 9C 10C JC 8S".split()


def _deck_with_prefix(prefix):
    # The other cards follow rank by rank, suits interleaved, so the reserve never washes.
    rest = [f"{r}{s}" for r in "6 7 8 9 10 J Q K A".split() for s in "SCDH"]
    return prefix + [c for c in rest if c not in prefix]


def test_wash_at_the_deal_replaces_the_centre_from_the_reserve():
    env = tri_palki_v0.raw_env()
    env.reset(seed=0, options={"dealer": 0, "deck": _deck_with_prefix(ONE_SUIT_CENTRE)})
    rnd = env.state_round()
    assert rnd.washed == (1 << 0) | (1 << 1) | (1 << 2)  # 6S 7S 8S
    assert rnd.reserve_count == 36 - 15 - 3
    assert not any(env.terminations.values())


def _eleven_player_one_suit_deck():
    # 11 players: the 34th card ends the deal, the centre is deck positions 11, 23, 35.
    deck = [None] * 36
    centre = ["6H", "7H", "8H"]
    for position, card in zip((11, 23, 35), centre, strict=True):
        deck[position] = card
    others = [c for c in _deck_with_prefix([]) if c not in centre]
    it = iter(others)
    return [card if card is not None else next(it) for card in deck]


def test_round_ending_at_the_deal_terminates_everyone_at_reset():
    env = tri_palki_v0.raw_env(num_players=11)
    env.reset(
        seed=0,
        options={"dealer": 10, "deck": _eleven_player_one_suit_deck(), "sticks": [3] + [0] * 10},
    )
    assert all(env.terminations.values())
    totals, infos = {}, {}
    for agent in env.agent_iter():
        _, reward, termination, _, info = env.last()
        assert termination
        totals[agent] = reward
        infos[agent] = info
        env.step(None)
    assert set(infos) == set(env.possible_agents)
    assert {i["outcome"] for i in infos.values()} == {"reserve_empty"}
    losers = [a for a, i in infos.items() if i["stick"]]
    assert len(losers) == 1 and totals[losers[0]] == -1.0
    assert sum(totals.values()) == -1.0
    assert env.unwrapped.next_dealer in env.possible_agents


def test_round_ending_at_the_deal_in_match_mode_deals_the_next_round():
    env = tri_palki_v0.raw_env(num_players=11, episode="match")
    env.reset(seed=0, options={"dealer": 10, "deck": _eleven_player_one_suit_deck()})
    record = env.record()
    assert len(record["rounds"]) >= 2
    assert record["rounds"][0]["actions"] == [] and record["rounds"][0]["result"]
    loser = next(a for a, r in record["rounds"][0]["result"].items() if r["stick"])
    assert env._cumulative_rewards[loser] == -1.0  # readable through last() when it acts
    assert not any(env.terminations.values())
    assert env.agent_selection == record["rounds"][-1]["dealer"]


def test_max_turns_truncates_everyone_without_sticks():
    env = tri_palki_v0.raw_env(num_players=4, episode="match", max_turns=3)
    env.reset(seed=0, options={"dealer": 0, "deck": DECK, "sticks": [3, 3, 3, 3]})
    env.step(0)  # player_0 passes holding 31 ...
    env.step(12)  # ... and declines: turn 1 ends
    env.step(5)  # player_1 swaps: turn 2
    assert not any(env.truncations.values())
    env.step(5)  # player_2 swaps: turn 3 reaches max_turns
    assert all(env.truncations.values())
    assert not any(env.terminations.values())
    for _agent in env.agent_iter():
        _, reward, _, truncation, info = env.last()
        assert truncation and reward == 0.0
        assert info["outcome"] == "truncated" and info["stick"] is False and info["sticks"] == 3
        env.step(None)


def test_match_eliminated_players_leave_and_the_winner_is_paid():
    env = tri_palki_v0.raw_env(num_players=5, episode="match", reward="win", max_turns=100_000)
    env.reset(seed=3, options={"sticks": [3, 3, 3, 2, 3]})
    totals = play_random_episode(env, np.random.default_rng(3))
    record = env.record()
    winner = record["winner"]
    assert winner is not None and totals[winner] == 1.0
    assert all(totals[a] == -1.0 for a in env.possible_agents if a != winner)
    assert record["sticks"].count(4) == 4


def test_ansi_render_shows_suits_turn_and_sticks():
    env = tri_palki_v0.raw_env(render_mode="ansi")
    env.reset(seed=0, options={"dealer": 0, "deck": DECK, "sticks": [0, 2, 0, 3]})
    text = env.render()
    assert "♥" in text and "♠" in text and "to act" in text and "centre" in text and "|||" in text
    env.step(0)
    assert "announce?" in env.render()


def test_docstring_page_is_generated():
    doc = tri_palki_v0.__doc__
    for needle in (
        "| id | action |",
        "`swap 10H QS`",
        "| index | size | piece | meaning |",
        "`final_turn_pending`",
        "## Rewards",
        "## Arguments",
        "## Infos",
        "## Version history",
    ):
        assert needle in doc


def test_observation_shows_how_near_the_round_is_to_truncation():
    """The `turns` piece is the turns taken this round ÷ max_turns (public: everyone counts them)."""
    env = tri_palki_v0.raw_env(num_players=4, max_turns=50)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    seen = set()
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        view = tri_palki_v0.decode(obs["observation"], 4)
        assert view.turn_fraction == pytest.approx(env.state_round().turns / 50)
        seen.add(round(view.turn_fraction * 50))
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    assert len(seen) > 5


def test_default_max_turns_lets_long_rounds_finish():
    """The rules know no turn limit: the default cap is far above the referee's longest round
    (356 turns, 11 players), and the `turns` piece counts against min(max_turns, 200)."""
    env = tri_palki_v0.raw_env(num_players=4)
    assert env.max_turns >= 1000
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        view = tri_palki_v0.decode(obs["observation"], 4)
        assert view.turn_fraction == pytest.approx(min(1.0, env.state_round().turns / 200))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# --- the edges a new user hits ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "seed"), [({"num_players": 3}, 2), ({"num_players": 3, "episode": "match"}, 5)]
)
def test_raw_env_step_after_the_episode_is_over_says_so(kwargs, seed):
    env = tri_palki_v0.raw_env(**kwargs)
    env.reset(seed=seed)
    play_random_episode(env, np.random.default_rng(0))
    assert env.agents == []
    for action in (None, 0):
        with pytest.raises(ValueError, match=r"the episode is over; call reset\(\)"):
            env.step(action)


def test_classic_env_step_after_the_episode_is_over_warns_like_pettingzoo(caplog):
    """PettingZoo's OrderEnforcingWrapper: a warning and no change, never a KeyError."""
    env = tri_palki_v0.env(num_players=3)
    env.reset(seed=2)
    play_random_episode(env, np.random.default_rng(0))
    with caplog.at_level("WARNING"):
        env.step(None)
        env.step(0)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert env.agents == []


@pytest.mark.parametrize("size", [0, 100, observation_size(4) + 1])
def test_decode_of_a_wrong_length_names_the_valid_sizes(size):
    sizes = [observation_size(n) for n in range(2, 12)]
    with pytest.raises(ValueError, match=rf"{size}.*{sizes[0]}.*{sizes[-1]}"):
        tri_palki_v0.decode(np.zeros(size, dtype=np.float32))


def test_decode_with_a_player_count_names_expected_and_got():
    with pytest.raises(ValueError, match=rf"{observation_size(5)}.*{observation_size(4)}"):
        tri_palki_v0.decode(np.zeros(observation_size(4), dtype=np.float32), 5)
