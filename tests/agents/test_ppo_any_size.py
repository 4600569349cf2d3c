"""The Tri Palki PPO agent sits at any table of 2-11, and an agent that cannot play
a table size is refused before play with one line naming the sizes it plays."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent, size_adapter
from folkcards.agents.features import get_feature_set, tri_palki_action_extra
from folkcards.agents.policy_network import NumpyPolicy, PPOModelError
from folkcards.agents.ppo_agent import PolicyAgent
from folkcards.agents.size_adapter import adapt_view, kept_seats
from folkcards.agents.table_sizes import agent_table_sizes, check_table
from folkcards.envs import tri_palki_v0
from folkcards.envs.tri_palki.observation import TriPalkiView, decode, observation_size

from ..helpers import walk_decisions

pytest.importorskip("sb3_contrib")

FEATURES = get_feature_set("tri_palki_actions", "tri_palki")
SIZES = range(2, 12)


def _card(name: str) -> int:
    """``"AS"`` -> the card id."""
    from folkcards.envs.tri_palki.rules import TRI_PALKI_CARDS

    return TRI_PALKI_CARDS.parse_cards([name], "test")[0]


def _view(n: int, **changes) -> TriPalkiView:
    base = dict(
        num_players=n,
        hand=[_card("7S"), _card("8C"), _card("9D")],
        centre=[_card("6H"), _card("7H"), _card("8H")],
        washed=[],
        known=[[] for _ in range(n)],
        reserve_count=5,
        sticks=[0] * n,
        eliminated=[False] * n,
        dealer=0,
        to_act=0,
        announced=False,
        announcer=None,
        final_turn_pending=[False] * n,
        passes=0,
        pass_ends_round=False,
        phase="action",
        hand_value=10,
        hand_kind="normal",
    )
    base.update(changes)
    return TriPalkiView(**base)


# --- the adapter, from its contract ----------------------------------------------------------


def test_seven_players_keep_left_right_and_the_most_threatening_seat() -> None:
    known = [[] for _ in range(7)]
    known[3] = [_card("AC"), _card("KC")]  # two clubs: the biggest threat among 2..5
    known[4] = [_card("6D")]
    known[5] = [_card("10S")]
    sticks = [0, 1, 2, 3, 1, 2, 0]
    view = _view(7, known=known, sticks=sticks, dealer=4, passes=2)
    assert kept_seats(view, 4) == [1, 3, 6]
    adapted = adapt_view(view, 4)
    assert adapted.num_players == 4
    assert adapted.known == [[], [], known[3], []]
    assert adapted.sticks == [0, 1, 3, 0]
    assert adapted.eliminated == [False] * 4
    # the cards known in the left-out seats 4 and 5 are out of play: shown as washed
    assert sorted(adapted.washed) == sorted(known[4] + known[5])
    # the dealer (seat 4, left out) becomes the nearest kept seat before it: seat 3 -> slot 2
    assert adapted.dealer == 2
    # 7 survivors, 2 passes: 4 more end the round; with 4 survivors that is 3 - 4 < 0 -> 0 passes
    assert adapted.passes == 0
    assert adapted.hand == view.hand and adapted.centre == view.centre
    assert adapted.reserve_count == view.reserve_count


def test_passes_still_needed_are_kept() -> None:
    view = _view(6, passes=4, pass_ends_round=True)  # one more pass ends a 6-survivor round
    adapted = adapt_view(view, 4)
    assert adapted.passes == 2 and adapted.pass_ends_round  # 4 survivors: one more ends it


def test_eliminated_seats_are_skipped_and_small_tables_padded() -> None:
    eliminated = [False, True, False, True, True, False, False]
    sticks = [1, 4, 2, 4, 4, 0, 3]
    view = _view(7, eliminated=eliminated, sticks=sticks)
    assert kept_seats(view, 4) == [2, 5, 6]
    three = adapt_view(_view(3, sticks=[0, 1, 2]), 4)
    assert three.eliminated == [False, False, True, False]
    assert three.sticks == [0, 1, 4, 2]  # left, a padded eliminated seat, right
    two = adapt_view(_view(2, sticks=[2, 1]), 4)
    assert two.eliminated == [False, False, True, True]


def test_same_size_is_unchanged() -> None:
    view = _view(4)
    assert adapt_view(view, 4) is view


def test_move_features_come_from_the_real_table() -> None:
    """The per-move and global features of an adapted input are those of the real table."""
    env = tri_palki_v0.raw_env(num_players=8)
    for _seat, obs, _ in walk_decisions(env, range(5), lambda s, o: _heuristic(s).act(o)):
        view = decode(obs["observation"])
        adapted = adapt_view(view, 4)
        real = tri_palki_action_extra(view)
        mixed = tri_palki_action_extra(view, adapted)
        assert len(mixed) == FEATURES.size(observation_size(4)) - observation_size(4)
        np.testing.assert_array_equal(mixed[:5], real[:5])
        np.testing.assert_array_equal(mixed[5 + 2 * 3 :], real[5 + 2 * 7 :])


_HEURISTICS: dict[str, object] = {}


def _heuristic(seat: str):
    return _HEURISTICS.setdefault(seat, make_agent("heuristic", "tri_palki", seat))


# --- the agents at every size -----------------------------------------------------------------


def _play_all_ppo(spec_or_agents, n: int, decisions: int) -> int:
    """Play rounds of ``n`` PPO seats until ``decisions`` are made; every action must be legal."""
    env = tri_palki_v0.raw_env(num_players=n)
    if isinstance(spec_or_agents, str):
        agents = {
            s: make_agent(spec_or_agents, "tri_palki", s, seed=i, num_players=n)
            for i, s in enumerate(env.possible_agents)
        }
    else:
        agents = {s: spec_or_agents(s) for s in env.possible_agents}
    made = 0
    for _seat, obs, action in walk_decisions(env, range(10_000), lambda s, o: agents[s].act(o)):
        assert obs["action_mask"][action], f"illegal action {action} at {n} players"
        made += 1
        if made >= decisions:
            break
    return made


@pytest.mark.parametrize("n", SIZES)
def test_committed_model_plays_legally_at_every_size(n: int) -> None:
    assert _play_all_ppo("ppo:tri_palki", n, 1000) == 1000


@pytest.mark.slow
@pytest.mark.parametrize("n", SIZES)
def test_committed_model_plays_legally_many_decisions(n: int) -> None:
    assert _play_all_ppo("ppo:tri_palki", n, 20_000) == 20_000


def _random_policy(obs_size: int, meta: dict) -> NumpyPolicy:
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(16, obs_size)), rng.normal(size=(13, 16))]
    return NumpyPolicy(weights, [np.zeros(16), np.zeros(13)], "tanh", meta)


@pytest.mark.parametrize("n", [2, 3, 6, 9, 11])
def test_a_plain_model_trained_at_six_plays_every_size(n: int) -> None:
    """A model without features, trained at 6 players (its input fits 6 only), plays any table."""
    policy = _random_policy(observation_size(6), {"game": "tri_palki"})

    def agent(seat: str) -> PolicyAgent:
        return PolicyAgent("tri_palki", seat, 0, policy=policy, num_players=n)

    assert agent("player_0").model_players == 6
    assert agent("player_0").table_sizes() == tuple(SIZES)
    assert _play_all_ppo(agent, n, 400) == 400


# --- refusing what cannot be played -----------------------------------------------------------


def test_a_model_that_cannot_be_adapted_is_refused_before_play(monkeypatch) -> None:
    monkeypatch.setattr(size_adapter.TriPalkiSizeAdapter, "features", ())
    agent = make_agent("ppo:tri_palki", "tri_palki", num_players=4)
    assert agent.table_sizes() == (4,) and agent.supports(4) and not agent.supports(5)
    with pytest.raises(
        PPOModelError,
        match=r"^agent 'ppo:tri_palki' plays tri_palki at 4 "
        r"players only, not at 5$",
    ):
        make_agent("ppo:tri_palki", "tri_palki", num_players=5)
    with pytest.raises(ValueError, match="plays tri_palki at 4 players only, not at 6$"):
        check_table(["heuristic", "ppo:tri_palki"], "tri_palki", 6)
    # built without a table size, it still refuses a wrong table at its first move, in one line
    env = tri_palki_v0.raw_env(num_players=5)
    env.reset(seed=0)
    with pytest.raises(PPOModelError, match=r"^[^\n]*4 players only, not at 5$"):
        agent.act(env.observe(env.agent_selection))


def test_a_model_whose_input_fits_no_table_plays_none() -> None:
    agent = PolicyAgent("tri_palki", policy=_random_policy(100, {"game": "tri_palki"}))
    assert agent.table_sizes() == ()
    with pytest.raises(PPOModelError, match="plays tri_palki at no table size, not at 4$"):
        PolicyAgent("tri_palki", policy=_random_policy(100, {}), num_players=4)


def test_table_sizes_of_specs() -> None:
    assert agent_table_sizes("ppo:tri_palki", "tri_palki") == tuple(SIZES)
    assert agent_table_sizes("heuristic", "tri_palki") == tuple(SIZES)
    assert agent_table_sizes("random", "paston") == (3,)
    check_table(["ppo:tri_palki", "heuristic", "random"], "tri_palki", 11)
    with pytest.raises(ValueError, match="^agent 'ppo:paston' plays paston at 3 players only"):
        check_table(["ppo:paston"], "paston", 4)
