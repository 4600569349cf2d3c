"""Tri Palki tiny (docs/rules/tri_palki_tiny.md): ten cards, two players, one hidden reserve
card, and a round settled at its turn limit; the deal's chance events for the OpenSpiel binding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from folkcards.agents.base import make_agent
from folkcards.envs import tri_palki_tiny_v0, tri_palki_v0
from folkcards.envs.cards import TRI_PALKI_CARDS
from folkcards.envs.registry import game_spec
from folkcards.envs.tri_palki.chance import TriPalkiTinyChance
from folkcards.envs.tri_palki.rules import ANNOUNCE, NO_ANNOUNCE
from folkcards.envs.tri_palki.tiny import TINY_DECK, TINY_HANDS
from folkcards.search.tri_palki_belief import exact_worlds

from tests.helpers import tri_palki_tiny_dealer_values

TEN = "10S KS AS 10C KC AC 10D KD AD AH".split()


def _deck(p1: str, p0: str, centre: str, reserve: str = "AH") -> list[str]:
    """The deal order for dealer player_0: player_1, player_0, the centre, three times; then
    the reserve."""
    piles = [p1.split(), p0.split(), centre.split()]
    return [pile[i] for i in range(3) for pile in piles] + [reserve]


def _env(deck: list[str], **kwargs):
    env = tri_palki_tiny_v0.raw_env(**kwargs)
    env.reset(seed=0, options={"dealer": 0, "deck": deck})
    return env


def _outcome(env) -> str:
    return next(iter(env.infos.values()))["outcome"]


def test_the_deck_is_ten_king_ace_of_three_suits_and_the_ace_of_hearts():
    assert sorted(TRI_PALKI_CARDS.name(c) for c in TINY_DECK) == sorted(TEN)


@pytest.mark.parametrize("seed", range(20))
def test_every_deal_uses_the_ten_cards_and_leaves_one_in_the_reserve(seed):
    env = tri_palki_tiny_v0.raw_env()
    env.reset(seed=seed)
    rnd = env.state_round()
    assert sorted(rnd.deck) == sorted(TINY_DECK)
    assert rnd.reserve_count == 1
    assert tri_palki_tiny_v0.decode(env.observe("player_0")["observation"]).reserve_low


def test_only_two_players_and_the_ten_cards_are_accepted():
    with pytest.raises(ValueError, match="exactly 2 players"):
        tri_palki_tiny_v0.raw_env(num_players=3)
    env = tri_palki_tiny_v0.raw_env()
    full_deck = [TRI_PALKI_CARDS.name(c) for c in range(36)]
    with pytest.raises(ValueError, match="ten cards"):
        env.reset(options={"deck": full_deck})
    with pytest.raises(ValueError, match="ten cards"):
        env.reset(options={"deck": TEN[:9]})


def test_the_turn_limit_settles_the_round_where_the_full_game_truncates():
    deck = _deck(p1="AC KD 10S", p0="AS KC 10D", centre="KS 10C AD")
    env = _env(deck)
    env.step(env.string_to_action("pass"))
    env.step(env.string_to_action("swap 10S KS"))  # player_1: AC KD KS, the centre 10S 10C AD
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert _outcome(env) == "turn_limit"
    # both hands are worth 11 with an ace; clubs beat spades, so player_0 is the lowest
    assert env.infos["player_0"]["stick"] and not env.infos["player_1"]["stick"]
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}

    full = tri_palki_v0.raw_env(num_players=2, max_turns=2)
    rest = [TRI_PALKI_CARDS.name(c) for c in range(36) if TRI_PALKI_CARDS.name(c) not in deck]
    full.reset(seed=0, options={"dealer": 0, "deck": deck + rest})
    full.step(full.string_to_action("pass"))
    full.step(full.string_to_action("swap 10S KS"))
    assert all(full.truncations.values())
    assert full.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_a_one_suit_centre_ends_the_round_at_once_with_the_hands_as_they_stand():
    env = _env(_deck(p1="AC KD 10C", p0="AS KC 10D", centre="KS 10S AD"))
    env.step(env.string_to_action("swap AS AD"))  # the centre KS 10S AS: one suit
    assert _outcome(env) == "reserve_empty"
    assert env.state_round().centre == sum(
        1 << TRI_PALKI_CARDS.card_id(c) for c in ("KS", "10S", "AS")
    )
    # 21 each (A and 10); diamonds beat clubs, so player_1 holds the lowest hand
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}


def test_a_normal_31_may_announce_and_the_other_player_takes_a_final_turn():
    env = _env(_deck(p1="AC KD 10C", p0="AS KS 10D", centre="10S KC AD"), max_turns=5)
    env.step(env.string_to_action("swap 10D 10S"))  # player_0: AS KS 10S = 31
    mask = env.observe("player_0")["action_mask"]
    assert list(np.flatnonzero(mask)) == [ANNOUNCE, NO_ANNOUNCE]
    env.step(ANNOUNCE)
    assert env.agent_selection == "player_1"
    env.step(env.string_to_action("pass"))
    assert _outcome(env) == "announced"
    assert env.rewards["player_1"] == -1.0


def test_three_aces_give_the_other_normal_hand_the_stick():
    env = _env(_deck(p1="KS KC KD", p0="AS AC AD", centre="10S 10C 10D"))
    env.step(env.string_to_action("pass"))
    env.step(env.string_to_action("pass"))
    assert _outcome(env) == "all_passed"
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}


def test_every_round_gives_exactly_one_stick():
    """Two players and no safe hand: the round is constant-sum (-1 in all)."""
    env = tri_palki_tiny_v0.raw_env()
    for seed in range(200):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = sum(env.rewards.values())
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            total += sum(env.rewards.values())
        assert total == -1.0


def test_the_chance_events_deal_16800_equally_likely_deals():
    """The hand of the dealer's left (120 of the ten cards), the dealer's (35 of the seven
    left), the centre (4 of the four left); the reserve is the card left."""
    env = game_spec("tri_palki_tiny").raw_env()
    first = TriPalkiTinyChance(env, dealer=0)
    outcomes = first.outcomes()
    assert len(outcomes) == math.comb(10, 3) == len(TINY_HANDS)
    deals = 0
    total = 0.0
    for hand, p in outcomes[:: len(outcomes) // 6]:
        chance = TriPalkiTinyChance(env, dealer=0)
        chance.apply(hand)
        second = chance.outcomes()
        assert len(second) == math.comb(7, 3)
        for other, q in second:
            chance = TriPalkiTinyChance(env, dealer=0)
            chance.apply(hand)
            chance.apply(other)
            centres = chance.outcomes()
            assert len(centres) == 4
            deals += len(centres)
            total += p * q * sum(r for _, r in centres)
            chance.apply(centres[0][0])
            assert chance.outcomes() == []
    assert deals == 35 * 4 * len(outcomes[:: len(outcomes) // 6])
    assert math.isclose(total * math.comb(10, 3), len(outcomes[:: len(outcomes) // 6]))
    assert 120 * 35 * 4 == 16800


@pytest.mark.parametrize("seed", range(10))
def test_the_chance_events_of_an_env_deal_deal_it_again(seed):
    env = tri_palki_tiny_v0.raw_env()
    env.reset(seed=seed, options={"dealer": 0})
    events = TriPalkiTinyChance.outcomes_of(env)
    chance = TriPalkiTinyChance(env, dealer=0)
    for event in events:
        chance.apply(event)
    again = tri_palki_tiny_v0.raw_env()
    chance.reset(again)
    for seat in (0, 1):
        assert again.state_round().hands[seat] == env.state_round().hands[seat]
    assert again.state_round().centre == env.state_round().centre
    assert again.state_round().reserve == env.state_round().reserve


@pytest.mark.parametrize("seed", range(12))
def test_the_other_hand_is_hidden_among_four_deals(seed):
    """Own hand and centre are six of the ten cards: the other hand is three of the four
    unseen cards, and the four deals that differ only in which is the reserve's card look the
    same to the seat, and different to the other seat (whose hand differs)."""
    rng = np.random.default_rng(seed)
    cards = [TINY_DECK[i] for i in rng.permutation(10)]
    own, centre, unseen = cards[:3], cards[3:6], cards[6:]
    env = tri_palki_tiny_v0.raw_env()
    seen: dict[str, set[bytes]] = {"player_0": set(), "player_1": set()}
    for reserve in unseen:
        other = [c for c in unseen if c != reserve]
        piles = [other, own, centre]  # player_1, player_0 (the dealer), the centre
        deck = [pile[i] for i in range(3) for pile in piles] + [reserve]
        env.reset(seed=0, options={"dealer": 0, "deck": deck})
        for agent in seen:
            seen[agent].add(env.observe(agent)["observation"].tobytes())
    assert len(seen["player_0"]) == 1
    assert len(seen["player_1"]) == 4


def _play_to_a_decision(seed: int, max_turns: int = 6):
    """A tiny env after a few random moves, at a decision (or None if the round ended)."""
    env = tri_palki_tiny_v0.raw_env(max_turns=max_turns)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    moves = int(rng.integers(0, 4))
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        if not moves:
            return env
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        moves -= 1
    return None


@pytest.mark.parametrize("seed", range(15))
def test_exact_worlds_hold_the_true_world_once_and_only_what_the_seat_may_believe(seed):
    env = _play_to_a_decision(seed)
    if env is None:
        pytest.skip("the round ended")
    seat = env.agent_selection
    o = int(seat.rpartition("_")[2])
    rnd = env.state_round()
    worlds = exact_worlds(env.observe(seat), TINY_DECK, observer=seat)
    truth = (tuple(rnd.hands), tuple(rnd.reserve_cards()))
    assert [(w.hands, w.reserve) for w in worlds].count(truth) == 1
    assert len({(w.hands, w.reserve) for w in worlds}) == len(worlds) <= 4
    for world in worlds:
        assert world.hands[o] == rnd.hands[o] and world.centre == rnd.centre
        other = 1 - o
        assert world.hands[other] & rnd.known[other] == rnd.known[other]
        cards = world.hands[0] | world.hands[1] | world.centre | world.washed
        assert sorted([c for c in range(36) if cards >> c & 1] + list(world.reserve)) == sorted(
            TINY_DECK
        )


def test_exact_worlds_refuse_a_card_outside_the_deck():
    env = tri_palki_v0.raw_env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="not in the deck"):
        exact_worlds(env.observe("player_0"), TINY_DECK, observer="player_0")


@pytest.mark.parametrize("seed", range(8))
def test_montecarlo_values_each_action_by_the_env_over_the_four_worlds(seed):
    """At max_turns=1 the dealer's action ends the round: the one-ply search's value of each
    action is the env's mean reward over the four deals the dealer cannot tell apart."""
    env = tri_palki_tiny_v0.raw_env(max_turns=1)
    env.reset(seed=seed, options={"dealer": 0})
    agent = make_agent("montecarlo:max_turns=1", "tri_palki_tiny", "player_0", seed)
    observation = env.observe("player_0")
    chosen = agent.act(observation)
    values = tri_palki_tiny_dealer_values(env, observation)
    assert agent.last_action_values == pytest.approx(values)
    assert values[chosen] == max(values.values())


def test_montecarlo_refuses_a_bad_turn_limit():
    with pytest.raises(ValueError, match="max_turns must be at least 1"):
        make_agent("montecarlo:max_turns=0", "tri_palki_tiny", "player_0", 0)
    with pytest.raises(ValueError, match="plays tri_palki_tiny"):
        from folkcards.agents.tri_palki_montecarlo import make_tri_palki_tiny_montecarlo

        make_tri_palki_tiny_montecarlo("tri_palki", "player_0", 0, None)


@pytest.mark.parametrize("seed", range(10))
def test_the_belief_samplers_worlds_deal_again_to_the_seats_view(seed):
    """Each world the variant's sampler draws, dealt and replayed by its ``start``, gives the
    observing seat the observation it had (the ten-card deck rebuilt from the history)."""
    sampler = game_spec("tri_palki_tiny").piece("belief")
    env = _play_to_a_decision(seed)
    if env is None:
        pytest.skip("the round ended")
    seat = env.agent_selection
    observation = env.observe(seat)
    context = sampler.public_context(env, seat)
    worlds = sampler.sample_worlds(observation, 6, np.random.default_rng(seed), **context)
    for world in worlds:
        options, actions = sampler.start(world)
        again = tri_palki_tiny_v0.raw_env(max_turns=6)
        again.reset(seed=0, options=options)
        for action in actions:
            again.step(action)
        assert again.agent_selection == seat
        mine = again.observe(seat)
        assert all(np.array_equal(mine[k], observation[k]) for k in observation)


def test_the_search_probe_plays_the_variant_at_its_turn_limit(tmp_path):
    from folkcards.train.exploit.search import SearchParams, search_exploit

    result = search_exploit(
        "tri_palki_tiny",
        "random",
        SearchParams(worlds=8, candidates=8),
        30,
        0,
        tmp_path / "probe",
        max_turns=1,
        log=lambda _line: None,
    )
    assert result.gain > 0  # a best response to random as the dealer keeps a stick it would take
    with pytest.raises(ValueError, match="no turn limit"):
        search_exploit("paston", "random", SearchParams(), 1, 0, tmp_path / "p", max_turns=1)
