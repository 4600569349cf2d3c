"""Tri Palki tiny (docs/rules/tri_palki_tiny.md): nine cards, two players, an empty reserve,
and a round settled at its turn limit; the deal's chance events for the OpenSpiel binding."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from folkcards.envs import tri_palki_tiny_v0, tri_palki_v0
from folkcards.envs.cards import TRI_PALKI_CARDS
from folkcards.envs.registry import game_spec
from folkcards.envs.tri_palki.chance import TriPalkiTinyChance
from folkcards.envs.tri_palki.rules import ANNOUNCE, NO_ANNOUNCE
from folkcards.envs.tri_palki.tiny import TINY_DECK, TINY_HANDS

NINE = "10S KS AS 10C KC AC 10D KD AD".split()


def _deck(p1: str, p0: str, centre: str) -> list[str]:
    """The deal order for dealer player_0: player_1, player_0, the centre, three times."""
    piles = [p1.split(), p0.split(), centre.split()]
    return [pile[i] for i in range(3) for pile in piles]


def _env(deck: list[str], **kwargs):
    env = tri_palki_tiny_v0.raw_env(**kwargs)
    env.reset(seed=0, options={"dealer": 0, "deck": deck})
    return env


def _outcome(env) -> str:
    return next(iter(env.infos.values()))["outcome"]


def test_the_deck_is_ten_king_ace_of_three_suits():
    assert sorted(TRI_PALKI_CARDS.name(c) for c in TINY_DECK) == sorted(NINE)


@pytest.mark.parametrize("seed", range(20))
def test_every_deal_uses_all_nine_cards_and_leaves_no_reserve(seed):
    env = tri_palki_tiny_v0.raw_env()
    env.reset(seed=seed)
    rnd = env.state_round()
    assert sorted(rnd.deck) == sorted(TINY_DECK)
    assert rnd.reserve_count == 0
    assert tri_palki_tiny_v0.decode(env.observe("player_0")["observation"]).reserve_low


def test_only_two_players_and_the_nine_cards_are_accepted():
    with pytest.raises(ValueError, match="exactly 2 players"):
        tri_palki_tiny_v0.raw_env(num_players=3)
    env = tri_palki_tiny_v0.raw_env()
    full_deck = [TRI_PALKI_CARDS.name(c) for c in range(36)]
    with pytest.raises(ValueError, match="nine cards"):
        env.reset(options={"deck": full_deck})


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


def test_the_chance_events_deal_1680_equally_likely_deals():
    env = game_spec("tri_palki_tiny").raw_env()
    first = TriPalkiTinyChance(env, dealer=0)
    outcomes = first.outcomes()
    assert len(outcomes) == math.comb(9, 3) == len(TINY_HANDS)
    deals = 0
    for hand, p in outcomes:
        chance = TriPalkiTinyChance(env, dealer=0)
        chance.apply(hand)
        second = chance.outcomes()
        assert len(second) == math.comb(6, 3)
        deals += len(second)
        assert math.isclose(p * sum(q for _, q in second), 1 / math.comb(9, 3))
    assert deals == 1680


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


def test_no_deal_hides_a_card_from_either_seat():
    """Own hand and centre are six of the nine cards: each seat's first observation tells
    every deal apart (the reason the leak test skips this game)."""
    env = tri_palki_tiny_v0.raw_env()
    seen: dict[str, set[bytes]] = {"player_0": set(), "player_1": set()}
    hands = [TINY_HANDS[i] for i in range(len(TINY_HANDS))]
    deals = 0
    for p1, p0 in product(hands, hands):
        if set(p1) & set(p0):
            continue
        centre = [c for c in TINY_DECK if c not in p1 + p0]
        piles = [p1, p0, centre]
        env.reset(
            seed=0, options={"dealer": 0, "deck": [pile[i] for i in range(3) for pile in piles]}
        )
        deals += 1
        for agent in seen:
            seen[agent].add(env.observe(agent)["observation"].tobytes())
    assert deals == 1680
    assert len(seen["player_0"]) == len(seen["player_1"]) == 1680
