"""Tri Palki rulebook tests, written straight from ``docs/rules/tri_palki.md`` (the rules)
and the public contract (``docs/envs/``, "Decided details"), never from the env code.

Every test builds its deal as text (hands, centre, reserve placed at the deck positions of
§3 for the given dealer) and drives the raw AEC env through its public API only. Section
numbers (§) refer to ``tri_palki.md``; "API" to ``api.md``.
"""

from __future__ import annotations

import copy
import importlib.util
import pathlib
import sys

import numpy as np
import pytest
from folkcards.envs import tri_palki_v0
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Load the helpers by path under a unique name (tests/paston has a module of the same name).
_path = pathlib.Path(__file__).with_name("spec_helpers.py")
_spec = importlib.util.spec_from_file_location("tri_palki_spec_helpers", _path)
H = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = H
_spec.loader.exec_module(H)

ANNOUNCE, NO_ANNOUNCE, PASS, SWAP_ALL = H.ANNOUNCE, H.NO_ANNOUNCE, H.PASS, H.SWAP_ALL
NORMAL_MASK, ANNOUNCE_MASK = H.NORMAL_MASK, H.ANNOUNCE_MASK
agent, act, mask_of, setup = H.agent, H.act, H.mask_of, H.setup
all_done, all_terminated, pass_turn, skip_dead = (
    H.all_done,
    H.all_terminated,
    H.pass_turn,
    H.skip_dead,
)
hand_value, hand_kind, cid = H.hand_value, H.hand_kind, H.cid


def hands_of(text_list):
    return [h.split() if isinstance(h, str) else list(h) for h in text_list]


# Four plain hands (no special hand, no 31) and a centre of three suits (no swap-one can
# ever make it one suit). Values: p0 9, p1 20, p2 21, p3 19.
PLAIN4 = hands_of(["9S 7H 6D", "KC QC 8S", "AD JD 7C", "10H 9H 8C"])
CENTRE3 = ["6C", "JS", "AH"]

# The worked example of §8: A safe, B three aces, C and D worth 30.
EX_A, EX_B, EX_C, EX_D = (
    "6H 7H 8H".split(),
    "AC AD AS".split(),
    "KD QD 10D".split(),
    "AH JH 9H".split(),
)

# 11 players, nothing left for the reserve; centre of two suits, p0 can wash it with 8S.
N11_SWAP_HANDS = hands_of(
    [
        "8S 9S 7H",
        "10S JS 6C",
        "QS KS 7C",
        "AS 8C 10C",
        "JC QC KC",
        "AC 6D 7D",
        "8D 9D 10D",
        "JD QD KD",
        "AD 6H 8H",
        "9H 10H JH",
        "QH KH AH",
    ]
)
N11_SWAP_CENTRE = ["6S", "7S", "9C"]


def play_all_pass(env, limit=200):
    """Everyone passes (declining any offered announcement) until all agents are done."""
    for _ in range(limit):
        if all_done(env):
            return
        pass_turn(env)
    raise AssertionError("the round did not end after many passes")


def round_results(hands, dealer=0, sticks=None, centre=None, n=None):
    """Deal ``hands`` (one per seat), let everyone pass, return (env, infos, rewards)."""
    n = len(hands) if n is None else n
    if centre is None:
        centre = H.neutral_centre([c for h in hands for c in h])
    env, _ = setup(n, dealer, hands, centre, sticks=sticks)
    play_all_pass(env)
    assert all_terminated(env)
    return env, copy.deepcopy(env.infos), dict(env._cumulative_rewards)


def stick_seats(infos):
    return {H.seat(a) for a, i in infos.items() if i["stick"]}


def pass_n(env, k):
    for _ in range(k):
        pass_turn(env)


# ====================================================================== §1 / §3 the deal


def test_helper_deck_positions_match_spec_literal():
    """§3 (helper self-check): n=3, dealer 1 -> positions go to p2, p0, p1, centre, three times."""
    deck = H.build_deck(
        3, 1, [["6C", "7C", "9C"], ["AD", "7D", "9D"], ["KS", "QS", "9S"]], ["6H", "JH", "10D"]
    )
    assert deck[:12] == ["KS", "6C", "AD", "6H", "QS", "7C", "7D", "JH", "9S", "9C", "9D", "10D"]


def test_deal_order_two_players_literal_deck():
    """§3, §5: a literal 2-player deck (dealer 0): positions 0,3,6 -> p1; 1,4,7 -> p0; 2,5,8 -> centre.

    Also API Decided: the n-th consecutive pass ends the round even with a normal 31 (p1)."""
    first = ["AH", "6S", "7C", "KH", "7S", "9D", "QH", "9S", "JC"]
    rest = [H.cstr(c) for c in range(36) if H.cstr(c) not in first]
    env = tri_palki_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"dealer": 0, "deck": first + rest})
    assert env.agent_selection == "player_0"
    act(env, PASS)
    assert env.agent_selection == "player_1"
    act(env, PASS)  # 2nd consecutive pass of 2 players: the round ends, no offer for the 31
    assert all_terminated(env)
    inf = env.infos
    assert inf["player_0"]["hand_value"] == 22 and inf["player_0"]["hand_kind"] == "normal"
    assert inf["player_1"]["hand_value"] == 31 and inf["player_1"]["hand_kind"] == "normal"
    assert inf["player_0"]["stick"]
    assert not inf["player_1"]["stick"]
    assert {i["outcome"] for i in inf.values()} == {"all_passed"}


def test_deal_order_three_players_dealer_1_literal_deck():
    """§3: literal 3-player deck with dealer 1; the dealer acts first (§5)."""
    first = ["KS", "6C", "AD", "6H", "QS", "7C", "7D", "JH", "9S", "9C", "9D", "10D"]
    rest = [H.cstr(c) for c in range(36) if H.cstr(c) not in first]
    env = tri_palki_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"dealer": 1, "deck": first + rest})
    order = []
    while not all_done(env):
        order.append(env.agent_selection)
        pass_turn(env)
    assert order == ["player_1", "player_2", "player_0"]
    values = {a: i["hand_value"] for a, i in env.infos.items()}
    assert values == {"player_0": 22, "player_1": 27, "player_2": 29}
    assert stick_seats(env.infos) == {0}


# ====================================================================== §2 hand value


@pytest.mark.parametrize(
    "hand,value,kind",
    [
        ("KH 7C KD", 10, "normal"),  # §8 more cases: worth 10 (not 27)
        ("AS 9S 7H", 20, "normal"),  # §8
        ("KC QC 8D", 20, "normal"),  # §8
        ("KS KC KD", 10, "normal"),  # §2/§8: three kings is normal, worth 10
        ("6S 7C 8D", 8, "normal"),  # 6-7-8 of mixed suits is not safe
        ("6S 7S 8C", 13, "normal"),
        ("AH KH QH", 31, "normal"),
        ("10D 9D 6C", 19, "normal"),
        ("QS JC 10H", 10, "normal"),
        ("AD 6S 7C", 11, "normal"),
        ("7C 8C 9C", 24, "normal"),
        ("6D 7D 9D", 22, "normal"),
        ("AS AC AD", 11, "three_aces"),  # API: hand_value is best single suit for specials too
        ("AS AC AH", 11, "three_aces"),
        ("6S 6C 6D", 6, "safe"),
        ("6C 6D 6H", 6, "safe"),
        ("6H 7H 8H", 21, "safe"),
        ("6S 7S 8S", 21, "safe"),
    ],
)
def test_hand_value_is_best_single_suit_and_kind(hand, value, kind):
    """§2: value = largest sum of one suit; special kinds; API infos hand_value / hand_kind."""
    hand = hand.split()
    assert hand_value(hand) == value and hand_kind(hand) == kind  # the oracle agrees
    centre = H.neutral_centre(hand)
    env, _ = setup(4, 0, {2: hand}, centre)
    play_all_pass(env)
    info = env.infos["player_2"]
    assert info["hand_value"] == value
    assert info["hand_kind"] == kind


# ============================================== §2 comparison key, via the lowest-hand stick


COMPARISON_CASES = {
    # §8: A♠ 9♠ 7♥ (20, spades) beats K♣ Q♣ 8♦ (20, clubs): the top scoring card A beats K.
    "spec_AS9S7H_beats_KCQC8D": (["AS 9S 7H", "KC QC 8D", "AD KD 6H", "JH QH 9H"], 1),
    # §8: K♥ 7♣ K♦ is worth 10 (scoring K): it beats K♣ 9♠ 8♦ (10, clubs), not worth 7.
    "spec_KH7CKD_worth_10": (["KH 7C KD", "KC 9S 8D", "AS QS 6D", "JH QH 9H"], 1),
    # scoring suit chosen by rank before suit: Q♥ K♦ 7♣ scores K♦, so beats K♣ 8♠ 9♥.
    "scoring_suit_rank_before_suit": (["QH KD 7C", "KC 8S 9H", "AS QS 6D", "JH 10H 6C"], 1),
    # ranks top down beyond the first card: A 9 6 of spades beats A 8 7 of hearts (both 26).
    "ranks_top_down_second_card": (["AS 9S 6S", "AH 8H 7H", "KD QD 9D", "KC QC JC"], 1),
    # K beats Q though both worth 10 (rank before suit).
    "king_beats_queen": (["KS 7H 8C", "QH 7D 6C", "AD KD 9S", "JC 10C 9H"], 1),
    # value first: 21 in spades beats 20 in hearts.
    "value_first": (["AS KS 6C", "AH 9H 7C", "QD JD 8D", "KC QC 9C"], 1),
    # three kings is normal, worth 10: the lowest normal hand here.
    "three_kings_normal_lowest": (["KS KC KD", "AH 6S 7C", "QD JD 8S", "AC QC 9S"], 0),
    # 6-7-8 of mixed suits is an ordinary normal hand worth 8.
    "mixed_678_is_normal": (["6S 7C 8D", "9S 7H 6D", "AH KH 10C", "AC QC 9D"], 0),
    # the lowest hand is found wherever it sits.
    "lowest_at_seat_3": (["KC QC 8S", "AD JD 7C", "10H 9H 8C", "9S 7H 6D"], 3),
}


@pytest.mark.parametrize("case", sorted(COMPARISON_CASES))
def test_lowest_normal_hand_gets_the_only_stick(case):
    """§2 comparison key (value, ranks top down, suit) and §6: the lowest normal hand gets a stick."""
    hands, loser = COMPARISON_CASES[case]
    hands = hands_of(hands)
    assert H.stick_receivers(dict(enumerate(hands))) == {loser}  # the oracle agrees
    for dealer in (0, 2):
        _, infos, rewards = round_results(hands, dealer=dealer)
        assert stick_seats(infos) == {loser}
        for s, h in enumerate(hands):
            assert infos[agent(s)]["hand_value"] == hand_value(h)
            assert infos[agent(s)]["hand_kind"] == "normal"
            assert rewards[agent(s)] == (-1 if s == loser else 0)


def _suit_pair_hands(lo, hi, low_first):
    rest = [s for s in "SCDH" if s not in (lo, hi)]
    low = [f"10{lo}", f"9{lo}", f"6{rest[0]}"]
    high = [f"10{hi}", f"9{hi}", f"6{rest[1]}"]
    big1 = [f"A{rest[0]}", f"K{rest[0]}", f"Q{rest[0]}"]
    big2 = [f"A{rest[1]}", f"K{rest[1]}", f"Q{rest[1]}"]
    return ([low, high, big1, big2], 0) if low_first else ([high, low, big1, big2], 1)


@pytest.mark.parametrize("low_first", [True, False])
@pytest.mark.parametrize(
    "lo,hi", [("S", "C"), ("S", "D"), ("S", "H"), ("C", "D"), ("C", "H"), ("D", "H")]
)
def test_suit_order_breaks_ties_hearts_diamonds_clubs_spades(lo, hi, low_first):
    """§2: equal value and ranks -> the scoring suit decides, hearts > diamonds > clubs > spades."""
    hands, loser = _suit_pair_hands(lo, hi, low_first)
    _, infos, _ = round_results(hands, dealer=1)
    assert infos[agent(loser)]["hand_value"] == 19 == infos[agent(1 - loser)]["hand_value"]
    assert stick_seats(infos) == {loser}


# ======================================================================= §2 / §6 specials


@pytest.mark.parametrize("sixes", ["6S 6C 6D", "6C 6D 6H", "6S 6D 6H"])
def test_three_sixes_are_safe(sixes):
    """§2/§6: three sixes are safe: no stick even though worth least; the lowest normal gets it."""
    sixes = sixes.split()
    others = {
        "6S 6C 6D": ["9H 7S 8C", "AH KH 10D", "AC QC 9D"],
        "6C 6D 6H": ["9S 7H 8C", "AH KH 10D", "AC QC 9D"],
        "6S 6D 6H": ["9C 7S 8H", "AH KH 10D", "AS QC 9D"],
    }[" ".join(sixes)]
    hands = [sixes] + hands_of(others)
    assert H.stick_receivers(dict(enumerate(hands))) == {1}
    _, infos, rewards = round_results(hands)
    assert infos["player_0"]["hand_kind"] == "safe" and infos["player_0"]["hand_value"] == 6
    assert stick_seats(infos) == {1}
    assert rewards["player_0"] == 0


def test_six_seven_eight_of_one_suit_is_safe():
    """§2/§6: 6-7-8 of one suit is safe (its key would be the lowest if it were normal)."""
    hands = hands_of(["6D 7D 8D", "AS KS 6C", "AC QC 7H", "AH JH 9S"])
    _, infos, _ = round_results(hands)
    assert infos["player_0"]["hand_kind"] == "safe" and infos["player_0"]["hand_value"] == 21
    assert stick_seats(infos) == {3}  # (21, A J, hearts) is the lowest normal key


def test_three_aces_give_a_stick_to_every_normal_hand():
    """§6: if someone holds three aces, every normal hand (even a 31) gets a stick; specials none."""
    hands = hands_of(["AS AC AD", "AH KH QH", "6S 7S 8S", "9C 7D 8H"])
    _, infos, rewards = round_results(hands, dealer=3)
    assert infos["player_0"]["hand_kind"] == "three_aces"
    assert infos["player_2"]["hand_kind"] == "safe"
    assert stick_seats(infos) == {1, 3}
    assert rewards == {"player_0": 0, "player_1": -1, "player_2": 0, "player_3": -1}


@pytest.mark.parametrize(
    "hands",
    [
        ["6S 7S 8S", "6C 7C 8C", "6D 7D 8D", "6H 7H 8H"],
        ["AS AC AD", "6S 7S 8S", "6C 7C 8C", "6H 7H 8H"],
        ["6S 6C 6D", "6H 7H 8H", "AS AC AD"],
    ],
    ids=["four_safe", "aces_and_safe", "three_players"],
)
def test_no_normal_hand_nobody_gets_a_stick(hands):
    """§6: if no player holds a normal hand, nobody receives a stick."""
    _, infos, rewards = round_results(hands_of(hands))
    assert stick_seats(infos) == set()
    assert all(r == 0 for r in rewards.values())
    assert all(i["sticks"] == 0 and not i["eliminated"] for i in infos.values())


def test_worked_example_round():
    """§8 worked example: C and D get a stick because of B's aces; A (safe) and B none."""
    _, infos, rewards = round_results([EX_A, EX_B, EX_C, EX_D])
    kinds = [infos[agent(s)]["hand_kind"] for s in range(4)]
    values = [infos[agent(s)]["hand_value"] for s in range(4)]
    assert kinds == ["safe", "three_aces", "normal", "normal"]
    assert values == [21, 11, 30, 30]
    assert [infos[agent(s)]["stick"] for s in range(4)] == [False, False, True, True]
    assert [infos[agent(s)]["sticks"] for s in range(4)] == [0, 0, 1, 1]
    assert rewards == {"player_0": 0, "player_1": 0, "player_2": -1, "player_3": -1}


def test_worked_example_with_d_at_three_sticks_round():
    """§8 + §6: D had 3 sticks before the round: D is eliminated (sticks 4); C just gets one."""
    _, infos, rewards = round_results([EX_A, EX_B, EX_C, EX_D], sticks=[0, 0, 0, 3])
    assert infos["player_3"]["eliminated"] and infos["player_3"]["sticks"] == 4
    assert not infos["player_2"]["eliminated"] and infos["player_2"]["sticks"] == 1
    assert rewards["player_3"] == -1 and rewards["player_2"] == -1


@pytest.mark.parametrize("before", [0, 1, 2, 3])
def test_sticks_accumulate_and_fourth_eliminates(before):
    """§6: a stick adds one up to 3; a player with 3 who receives another is eliminated (API: sticks 4).

    Three sticks alone do not eliminate (the others hold 3 and receive none)."""
    hands = COMPARISON_CASES["value_first"][0]  # p1 is the lowest normal hand
    sticks = [3, before, 3, 3]
    _, infos, rewards = round_results(hands_of(hands), sticks=sticks)
    p1 = infos["player_1"]
    assert p1["stick"]
    assert p1["sticks"] == (4 if before == 3 else before + 1)
    assert bool(p1["eliminated"]) == (before == 3)
    for s in (0, 2, 3):
        i = infos[agent(s)]
        assert not i["stick"] and i["sticks"] == 3 and not i["eliminated"]
    assert rewards == {"player_0": 0, "player_1": -1, "player_2": 0, "player_3": 0}


# ================================================================================ §4 washes


def test_deal_washes_repeat_until_two_suits():
    """§4: a one-suit centre at the deal is washed and replaced from the reserve top, repeatedly."""
    hands = hands_of(["6D 9D AH", "KS QD 7C", "JH 10H 6C", "KH QC 10D"])
    env, t = setup(4, 0, hands, ["6S", "7S", "8S"], reserve=["9S", "10S", "JS", "AC", "9C", "8H"])
    assert sorted(t.centre) == sorted(map(cid, ["AC", "9C", "8H"])) and t.washes == 2
    assert env.agent_selection == "player_0" and mask_of(env) == NORMAL_MASK
    act(env, SWAP_ALL)  # p0 takes the centre: A♣ 9♣ 8♥ = 20 (no wash: old hand is mixed)
    assert env.agent_selection == "player_1"
    pass_n(env, 4)
    assert all_terminated(env)
    assert env.infos["player_0"]["hand_value"] == 20
    assert env.infos["player_0"]["hand_kind"] == "normal"
    assert env.infos["player_0"]["outcome"] == "all_passed"


# centre + 21 reserve cards in 8 one-suit triples: 7 washes, then no replacement.
N4_EXHAUST_CENTRE = ["6S", "7S", "8S"]
N4_EXHAUST_RESERVE = "9S 10S JS QS KS AS 6C 7C 8C 9C 10C JC QC KC AC 6D 7D 8D 9D 10D JD".split()
N4_EXHAUST_HANDS = hands_of(["QD KD AD", "6H 7H 8H", "9H 10H JH", "QH KH AH"])


def _dead_loop(env):
    """Run the standard AEC loop over terminated agents; return (rewards, infos) via last()."""
    seen_r, seen_i = {}, {}
    for _ in range(100):
        if not env.agents:
            break
        a = env.agent_selection
        _, r, term, trunc, info = env.last()
        assert term, f"{a} should be terminated"
        seen_r[a] = seen_r.get(a, 0) + r
        seen_i[a] = copy.deepcopy(info)
        env.step(None)
    return seen_r, seen_i


def test_deal_wash_unreplaceable_ends_round_at_reset_4_players():
    """§4 + API Decided: a deal that leaves a one-suit centre with < 3 reserve cards ends the
    round before anyone acts; in round mode every agent is terminated right after reset."""
    env, t = setup(4, 0, N4_EXHAUST_HANDS, N4_EXHAUST_CENTRE, reserve=N4_EXHAUST_RESERVE)
    assert t.reserve_empty and t.washes == 7
    assert all_terminated(env)
    assert all(not m for m in [mask_of(env, a) for a in env.agents])
    rewards, infos = _dead_loop(env)
    assert set(infos) == {agent(s) for s in range(4)}
    assert {i["outcome"] for i in infos.values()} == {"reserve_empty"}
    assert [infos[agent(s)]["hand_value"] for s in range(4)] == [31, 21, 29, 31]
    assert stick_seats(infos) == {2}
    assert rewards == {"player_0": 0, "player_1": 0, "player_2": -1, "player_3": 0}


N11_DEAL_HANDS = hands_of(
    [
        "6C 7C 8C",
        "9C 10C JC",
        "QC KC AC",
        "6D 7D 8D",
        "9D 10D JD",
        "QD KD AD",
        "6H 7H 8H",
        "9H 10H JH",
        "QH KH AH",
        "9S 10S JS",
        "QS KS AS",
    ]
)


def test_deal_wash_unreplaceable_ends_round_at_reset_11_players():
    """§4 + API Decided: 11 players leave no reserve; a one-suit centre ends the round at reset."""
    env, t = setup(11, 0, N11_DEAL_HANDS, ["6S", "7S", "8S"])
    assert t.reserve_empty
    assert all_terminated(env)
    rewards, infos = _dead_loop(env)
    assert len(infos) == 11
    assert {i["outcome"] for i in infos.values()} == {"reserve_empty"}
    assert stick_seats(infos) == {9}  # four 29s with J 10 9: spades is the lowest suit
    assert rewards["player_9"] == -1 and sum(rewards.values()) == -1


def test_deal_wash_unreplaceable_match_mode_deals_next_round():
    """API Decided: in match mode a round ended at the deal is scored and the next round dealt;
    §7: the highest normal hand (Q♥ K♥ A♥ beats Q♦ K♦ A♦ by suit) deals and acts first (§5)."""
    env, _ = setup(
        4, 0, N4_EXHAUST_HANDS, N4_EXHAUST_CENTRE, reserve=N4_EXHAUST_RESERVE, episode="match"
    )
    skip_dead(env)
    assert len(env.agents) == 4
    assert env.agent_selection == "player_3"
    assert mask_of(env) == NORMAL_MASK
    pass_n(env, 4)  # round 2: everyone passes
    infos = env.infos
    assert {i["outcome"] for i in infos.values()} <= {"all_passed", "reserve_empty"}
    for s in range(4):
        i = infos[agent(s)]
        assert i["sticks"] == (1 if s == 2 else 0) + int(bool(i["stick"])), (s, i)


def test_wash_after_swap_same_player_acts_again_repeatedly():
    """§4: a swap that makes the centre one suit washes it; the same player acts again, several
    times in one turn; §5: the pass that ends the turn counts toward the consecutive passes."""
    hands = hands_of(["8S 8D KC", "JD QS 10H", "AD KD 6H", "QH KH 8C"])
    env, t = setup(4, 0, hands, ["6S", "7S", "9C"], reserve="6D 7D 9H AS 10C 7H".split())
    act(env, t.swap(0, "8S", "9C"))
    assert t.washes == 1
    assert env.agent_selection == "player_0" and mask_of(env) == NORMAL_MASK
    act(env, t.swap(0, "8D", "9H"))
    assert t.washes == 2
    assert env.agent_selection == "player_0" and mask_of(env) == NORMAL_MASK
    act(env, PASS)
    assert env.agent_selection == "player_1"
    pass_n(env, 2)
    assert not all_done(env) and env.agent_selection == "player_3"
    act(env, PASS)  # 4th consecutive pass (p0's pass after the washes counts)
    assert all_terminated(env)
    infos = env.infos
    assert infos["player_0"]["hand_value"] == 19  # 9♣ 9♥ K♣
    assert stick_seats(infos) == {1}
    assert infos["player_0"]["outcome"] == "all_passed"


def test_wash_after_swap_all_same_player_acts_again():
    """§4: swapping all three for a one-suit hand washes the centre; the same player acts again."""
    hands = hands_of(["9S 10S JS", "QS KC 9D", "AC QC 8D", "AD JD 9H"])
    env, t = setup(4, 0, hands, ["AH", "7C", "6D"], reserve=["KD", "8C", "7H"])
    act(env, SWAP_ALL)
    assert env.agent_selection == "player_0" and mask_of(env) == NORMAL_MASK
    pass_n(env, 4)
    assert all_terminated(env)
    assert env.infos["player_0"]["hand_value"] == 11  # A♥ 7♣ 6♦
    assert stick_seats(env.infos) == {1}


def test_wash_after_swap_unreplaceable_ends_round_at_once():
    """§4: a wash with fewer than 3 reserve cards ends the round at once, no partial replacement;
    the hands are scored as they are (after the swap). API: outcome reserve_empty."""
    env, t = setup(11, 0, N11_SWAP_HANDS, N11_SWAP_CENTRE)
    assert env.agent_selection == "player_0"
    act(env, t.swap(0, "8S", "9C"))
    assert all_terminated(env)
    infos = env.infos
    assert {i["outcome"] for i in infos.values()} == {"reserve_empty"}
    assert infos["player_0"]["hand_value"] == 9
    assert stick_seats(infos) == {0}  # without the swap p5 (13) would have been lowest
    assert env._cumulative_rewards["player_0"] == -1


def test_washed_cards_never_return():
    """§4: washed cards never return: 10 players leave 3 reserve cards; after the deal's wash
    the reserve is empty, so the next wash cannot be replaced (reserve_empty)."""
    env, t = setup(10, 0, {0: ["QC", "6D", "7H"]}, ["6S", "7S", "8S"], reserve=["9C", "10C", "JH"])
    assert t.washes == 1 and not t.reserve
    assert env.agent_selection == "player_0" and mask_of(env) == NORMAL_MASK
    act(env, t.swap(0, "QC", "JH"))  # centre 9♣ 10♣ Q♣: a wash with nothing left to draw
    assert t.reserve_empty
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"reserve_empty"}
    assert env.infos["player_0"]["hand_value"] == 17  # J♥ 7♥ 6♦, scored after the swap


# ================================================================================= §5 turns


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_dealer_acts_first_then_clockwise(dealer):
    """§5: the dealer acts first, then play goes clockwise; only the acting agent has a mask."""
    env, _ = setup(4, dealer, PLAIN4, CENTRE3)
    for k in range(3):
        s = (dealer + k) % 4
        assert env.agent_selection == agent(s)
        assert mask_of(env) == NORMAL_MASK
        for other in env.agents:
            if other != agent(s):
                assert mask_of(env, other) == frozenset()
        act(env, PASS)


def test_action_space_and_mask_shape():
    """API: Discrete(13); action_mask int8 of length 13; pass, 9 swap-one, swap-all, never two."""
    env, _ = setup(4, 0, PLAIN4, CENTRE3)
    for a in env.possible_agents:
        assert env.action_space(a).n == 13
    m = env.observe("player_0")["action_mask"]
    assert np.asarray(m).dtype == np.int8 and np.asarray(m).shape == (13,)
    assert list(np.asarray(m)) == [1] * 11 + [0, 0]


# p0 (hand dealt unsorted) with the centre of three suits (any swap-one leaves two suits).
IDS_HANDS = hands_of(["KD 6S 9C", "8H 10D QS"])
IDS_CENTRE = ["AH", "7S", "JC"]
# expected (p0 value, value of the centre p1 then takes), worked out by hand from the spec
IDS_EXPECTED = {
    1: (10, 11),
    2: (19, 13),
    3: (11, 13),
    4: (13, 19),
    5: (10, 11),
    6: (11, 19),
    7: (13, 11),
    8: (19, 11),
    9: (11, 10),
    10: (11, 10),
}


@pytest.mark.parametrize("action", list(range(1, 11)))
def test_swap_action_ids(action):
    """API actions: 1 + 3h + c swaps the h-th hand card with the c-th centre card (both in
    increasing id order); 10 swaps all three (§5)."""
    hs = sorted(cid(c) for c in IDS_HANDS[0])
    cs = sorted(cid(c) for c in IDS_CENTRE)
    if action == SWAP_ALL:
        new_hand, new_centre = cs, hs
    else:
        h, c = divmod(action - 1, 3)
        new_hand = [cs[c] if i == h else x for i, x in enumerate(hs)]
        new_centre = [hs[h] if i == c else x for i, x in enumerate(cs)]
    assert (hand_value(new_hand), hand_value(new_centre)) == IDS_EXPECTED[action]
    env, _ = setup(2, 0, IDS_HANDS, IDS_CENTRE)
    act(env, action)
    assert env.agent_selection == "player_1"
    act(env, SWAP_ALL)  # p1 takes the centre left by p0's swap
    act(env, PASS)
    act(env, PASS)
    assert all_terminated(env)
    assert env.infos["player_0"]["hand_value"] == hand_value(new_hand)
    assert env.infos["player_1"]["hand_value"] == hand_value(new_centre)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 11])
def test_n_consecutive_passes_end_the_round(n):
    """§5: the round ends when every surviving player has passed consecutively (n passes)."""
    centre = H.neutral_centre([])
    env, _ = setup(n, 1 % n, {}, centre)
    for k in range(n):
        assert not all_done(env)
        assert env.agent_selection == agent((1 + k) % n)
        pass_turn(env)
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"all_passed"}


@pytest.mark.parametrize("kind", ["swap_one", "swap_all"])
def test_any_swap_resets_the_pass_count(kind):
    """§5: any swap resets the consecutive-pass count."""
    env, t = setup(4, 0, PLAIN4, CENTRE3)
    pass_n(env, 3)
    assert env.agent_selection == "player_3"
    act(env, t.swap(3, "8C", "6C") if kind == "swap_one" else SWAP_ALL)
    pass_n(env, 3)
    assert not all_done(env) and env.agent_selection == "player_3"
    act(env, PASS)
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"all_passed"}


def test_nth_pass_with_normal_31_ends_round_without_offer():
    """API Decided: the n-th consecutive pass ends the round at once, even when that player
    holds a normal 31: no announcement is offered then."""
    hands = hands_of(["9S 7H 6D", "KC QC 8S", "AD JD 7C", "AH KH QH"])
    env, _ = setup(4, 0, hands, ["6C", "JS", "10H"])
    pass_n(env, 3)
    assert env.agent_selection == "player_3" and mask_of(env) == NORMAL_MASK
    act(env, PASS)
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"all_passed"}
    assert stick_seats(env.infos) == {0}


def test_do_not_announce_neither_counts_as_pass_nor_resets_first_player():
    """API Decided: action 12 neither counts as a pass nor resets the count (12 after pass 1)."""
    hands = hands_of(["AH KH QH", "9S 7H 6D", "KC QC 8S", "AD JD 7C"])
    env, _ = setup(4, 0, hands, ["6C", "JS", "10H"])
    act(env, PASS)
    assert env.agent_selection == "player_0" and mask_of(env) == ANNOUNCE_MASK
    act(env, NO_ANNOUNCE)
    assert env.agent_selection == "player_1" and mask_of(env) == NORMAL_MASK
    act(env, PASS)
    act(env, PASS)
    assert not all_done(env), "action 12 must not count as a pass"
    assert env.agent_selection == "player_3"
    act(env, PASS)
    assert all_terminated(env), "action 12 must not reset the pass count"
    assert {i["outcome"] for i in env.infos.values()} == {"all_passed"}


def test_do_not_announce_neither_counts_as_pass_nor_resets_second_player():
    """API Decided: action 12 neither counts as a pass nor resets the count (12 after pass 2)."""
    hands = hands_of(["9S 7H 6D", "AH KH QH", "KC QC 8S", "AD JD 7C"])
    env, _ = setup(4, 0, hands, ["6C", "JS", "10H"])
    act(env, PASS)
    act(env, PASS)
    assert env.agent_selection == "player_1" and mask_of(env) == ANNOUNCE_MASK
    act(env, NO_ANNOUNCE)
    act(env, PASS)  # p2: third pass
    assert not all_done(env), "action 12 must not count as a pass"
    assert env.agent_selection == "player_3"
    act(env, PASS)  # p3: fourth consecutive pass
    assert all_terminated(env), "action 12 must not reset the pass count"


@pytest.mark.parametrize(
    "hand,offered",
    [
        ("AH KH QH", True),
        ("AS KS JS", True),
        ("AH KH 9H", False),
        ("AS AC AD", False),
        ("6H 7H 8H", False),
        ("KS KC KD", False),
    ],
)
def test_announce_offered_only_with_normal_31_at_end_of_turn(hand, offered):
    """§5: at the end of their turn a player holding a normal 31 may announce; a special hand
    never allows it. API: 11/12 offered only then (and nothing else at that decision)."""
    hand = hand.split()
    env, _ = setup(4, 0, {0: hand}, H.neutral_centre(hand))
    assert mask_of(env) == NORMAL_MASK  # not offered before acting
    act(env, PASS)
    if offered:
        assert env.agent_selection == "player_0"
        assert mask_of(env) == ANNOUNCE_MASK
        assert all(mask_of(env, a) == frozenset() for a in env.agents if a != "player_0")
    else:
        assert env.agent_selection == "player_1"
        assert mask_of(env) == NORMAL_MASK


def test_announce_after_swap_making_31_and_final_turns():
    """§5: a swap that makes a normal 31 (no wash) ends the turn with the offer; after the
    announcement each other player takes one final turn clockwise, then the round ends."""
    hands = hands_of(["AH KH 8S", "KC QC 6S", "AD JD 7C", "10H 9H 8D"])
    env, t = setup(4, 0, hands, ["QH", "9C", "7D"])
    act(env, t.swap(0, "8S", "QH"))
    assert env.agent_selection == "player_0" and mask_of(env) == ANNOUNCE_MASK
    act(env, ANNOUNCE)
    order = []
    while not all_done(env):
        order.append(env.agent_selection)
        assert mask_of(env) == NORMAL_MASK
        act(env, PASS)
    assert order == ["player_1", "player_2", "player_3"]
    assert {i["outcome"] for i in env.infos.values()} == {"announced"}
    assert stick_seats(env.infos) == {3}


def test_announce_turns_off_consecutive_pass_rule():
    """§5 + API Decided: after an announcement the consecutive-pass rule is off; every other
    player takes the final turn (outcome announced); the announcer does not act again."""
    hands = hands_of(["9S 7H 6D", "AH KH QH", "KC QC 8S", "AD JD 7C"])
    env, _ = setup(4, 0, hands, ["6C", "JS", "10H"])
    act(env, PASS)  # p0: 1st pass
    act(env, PASS)  # p1: 2nd pass, holds a normal 31
    assert env.agent_selection == "player_1" and mask_of(env) == ANNOUNCE_MASK
    act(env, ANNOUNCE)
    assert env.agent_selection == "player_2"
    act(env, PASS)
    act(env, PASS)  # p3: would be the 4th consecutive pass
    assert not all_done(env), "the pass rule is off after an announcement"
    assert env.agent_selection == "player_0"
    act(env, PASS)  # p0: last final turn
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"announced"}
    assert stick_seats(env.infos) == {0}


def test_announce_only_once_per_round():
    """§5: only one announcement per round: another normal 31 is not offered after one."""
    hands = hands_of(["AH KH QH", "9S 7H 6D", "AD KD QD", "KC QC 8S"])
    env, _ = setup(4, 0, hands, ["6C", "JS", "10H"])
    act(env, PASS)
    act(env, ANNOUNCE)
    act(env, PASS)  # p1
    assert env.agent_selection == "player_2"
    act(env, PASS)  # p2 holds a normal 31: no offer
    assert env.agent_selection == "player_3" and mask_of(env) == NORMAL_MASK
    act(env, PASS)
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"announced"}


def test_declined_announcement_is_offered_again_later():
    """§5: declining is not announcing; at the end of a later turn a normal 31 is offered again."""
    hands = hands_of(["AH KH QH", "9S 7H 6D", "KC QC 8S", "AD JD 7C"])
    env, t = setup(4, 0, hands, ["6C", "JS", "10H"])
    act(env, PASS)
    act(env, NO_ANNOUNCE)
    act(env, t.swap(1, "9S", "6C"))  # p1 swaps (no wash), resetting the count
    act(env, PASS)
    act(env, PASS)
    assert env.agent_selection == "player_0"
    act(env, PASS)  # 3rd consecutive pass: not the n-th
    assert env.agent_selection == "player_0" and mask_of(env) == ANNOUNCE_MASK


def test_announce_not_offered_mid_turn_before_wash_replacement():
    """§5/§4: a swap making a normal 31 but washing the centre does not end the turn: no offer
    until the player's next action ends the turn without a wash."""
    hands = hands_of(["AH KH 8S", "9S 7H 6D", "KC QC 8C", "AD JD 7C"])
    env, t = setup(4, 0, hands, ["QH", "6S", "7S"], reserve=["9D", "10C", "JS"])
    act(env, t.swap(0, "8S", "QH"))
    assert t.washes == 1
    assert env.agent_selection == "player_0" and mask_of(env) == NORMAL_MASK
    act(env, PASS)
    assert env.agent_selection == "player_0" and mask_of(env) == ANNOUNCE_MASK
    act(env, NO_ANNOUNCE)
    assert env.agent_selection == "player_1" and mask_of(env) == NORMAL_MASK


def test_final_turn_with_wash_same_player_acts_again():
    """§5: during the final turns washes repeat as usual (the same player acts again)."""
    hands = hands_of(["AH KH QH", "8S 9D 7H", "KC QC 8D", "AD JD 7C"])
    env, t = setup(4, 0, hands, ["6S", "7S", "10C"], reserve=["9C", "QS", "6H"])
    act(env, PASS)
    act(env, ANNOUNCE)
    assert env.agent_selection == "player_1"
    act(env, t.swap(1, "8S", "10C"))
    assert t.washes == 1
    assert env.agent_selection == "player_1" and mask_of(env) == NORMAL_MASK
    act(env, PASS)
    assert env.agent_selection == "player_2"
    act(env, PASS)
    act(env, PASS)
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"announced"}
    assert env.infos["player_1"]["hand_value"] == 10
    assert stick_seats(env.infos) == {1}


def test_announcement_then_reserve_runs_out():
    """API Decided: after an announcement the final turns end the round (announced) unless the
    reserve runs out first (reserve_empty)."""
    env, t = setup(11, 10, N11_SWAP_HANDS, N11_SWAP_CENTRE)
    assert env.agent_selection == "player_10"
    act(env, PASS)
    assert mask_of(env) == ANNOUNCE_MASK
    act(env, ANNOUNCE)
    assert env.agent_selection == "player_0"
    act(env, t.swap(0, "8S", "9C"))
    assert all_terminated(env)
    assert {i["outcome"] for i in env.infos.values()} == {"reserve_empty"}
    assert stick_seats(env.infos) == {0}


# ============================================================= §7 next dealer (match mode)


def _end_round(env, k):
    pass_n(env, k)
    infos = copy.deepcopy(env.infos)
    rewards = dict(env._cumulative_rewards)
    totals = {}
    skip_dead(env, totals)
    return infos, rewards


def test_worked_example_next_dealer_is_d():
    """§8/§7: D's A♥ J♥ 9♥ beats C's K♦ Q♦ 10♦ (A beats K), so D deals (acts first) next."""
    env, _ = setup(
        4, 1, [EX_A, EX_B, EX_C, EX_D], H.neutral_centre(EX_A + EX_B + EX_C + EX_D), episode="match"
    )
    infos, rewards = _end_round(env, 4)
    assert [infos[agent(s)]["stick"] for s in range(4)] == [False, False, True, True]
    assert rewards == {"player_0": 0, "player_1": 0, "player_2": -1, "player_3": -1}
    assert len(env.agents) == 4
    assert env.agent_selection == "player_3" and mask_of(env) == NORMAL_MASK


def test_worked_example_d_eliminated_next_surviving_deals():
    """§8/§7: with D at 3 sticks, D is eliminated and the next surviving player clockwise deals."""
    env, _ = setup(
        4,
        1,
        [EX_A, EX_B, EX_C, EX_D],
        H.neutral_centre(EX_A + EX_B + EX_C + EX_D),
        sticks=[0, 0, 0, 3],
        episode="match",
    )
    infos, _ = _end_round(env, 4)
    assert infos["player_3"]["eliminated"] and infos["player_3"]["sticks"] == 4
    assert "player_3" not in env.agents
    assert env.agent_selection == "player_0" and mask_of(env) == NORMAL_MASK


def test_next_dealer_skips_players_eliminated_the_same_round():
    """§7: the highest normal hand eliminated -> next *surviving* seat clockwise (skipping a
    neighbour eliminated in the same round)."""
    hands = [EX_D, EX_C, EX_A, EX_B]  # D=p0, C=p1, A=p2, B=p3
    env, _ = setup(
        4, 3, hands, H.neutral_centre(sum(hands, [])), sticks=[3, 3, 0, 0], episode="match"
    )
    infos, _ = _end_round(env, 4)
    assert infos["player_0"]["eliminated"] and infos["player_1"]["eliminated"]
    assert sorted(env.agents) == ["player_2", "player_3"]
    assert env.agent_selection == "player_2" and mask_of(env) == NORMAL_MASK


def test_highest_normal_hand_deals_next_specials_never():
    """§7: the highest normal hand deals next; a special hand (safe 21) never gives the deal."""
    hands = hands_of(["9S 7C 6D", "KC QC 8S", "AD 9D 7S", "6H 7H 8H"])
    env, _ = setup(4, 3, hands, ["6C", "JS", "AH"], episode="match")
    infos, _ = _end_round(env, 4)
    assert stick_seats(infos) == {0}
    assert env.agent_selection == "player_2" and mask_of(env) == NORMAL_MASK


def test_no_normal_hand_same_dealer_deals_again():
    """§6/§7: no normal hand -> nobody gets a stick and the same dealer deals again."""
    hands = hands_of(["6S 7S 8S", "6C 7C 8C", "6D 7D 8D", "6H 7H 8H"])
    env, _ = setup(4, 2, hands, ["AS", "KC", "QD"], episode="match")
    infos, rewards = _end_round(env, 4)
    assert {i["outcome"] for i in infos.values()} == {"all_passed"}
    assert stick_seats(infos) == set()
    assert all(r == 0 for r in rewards.values())
    assert env.agent_selection == "player_2" and mask_of(env) == NORMAL_MASK


# ======================================================================= match mode, rewards


def test_eliminated_player_leaves_agents_and_turns_skip_them():
    """API match: eliminated players are terminated at the end of their round and leave
    env.agents; §5: play goes clockwise among surviving players; win reward -1 on elimination."""
    hands = hands_of(["KC QC 8S", "9S 7H 6D", "AD JD 7C"])
    env, _ = setup(3, 0, hands, ["6C", "JS", "AH"], sticks=[0, 3, 0], episode="match", reward="win")
    pass_n(env, 3)
    assert env.infos["player_1"]["eliminated"]
    assert env.terminations.get("player_1", True) or "player_1" not in env.agents
    totals = {}
    skip_dead(env, totals)
    assert totals.get("player_1") == -1
    assert env.agents == ["player_0", "player_2"]
    assert env.agent_selection == "player_2"  # p2 held the highest normal hand (21)
    pass_turn(env)
    assert env.agent_selection == "player_0", "the eliminated seat must be skipped"


def test_two_player_match_win_rewards():
    """API match/win: the last survivor gets +1, the other -1; the match then ends."""
    hands = hands_of(["9S 7H 6D", "KC QC 8S"])
    env, _ = setup(2, 0, hands, ["6C", "JS", "AH"], sticks=[3, 3], episode="match", reward="win")
    pass_n(env, 2)
    assert all_terminated(env)
    totals = {}
    skip_dead(env, totals)
    assert not env.agents
    assert totals == {"player_0": -1, "player_1": 1}


def test_three_aces_simultaneous_eliminations_leave_exactly_one_winner():
    """§6 [decided]: the three-aces holder never gets a stick, so simultaneous eliminations
    leave exactly one winner."""
    hands = hands_of(["9S 7H 6D", "KC QC 8S", "AS AC AD"])
    env, _ = setup(3, 0, hands, ["6C", "JS", "AH"], sticks=[3, 3, 3], episode="match", reward="win")
    pass_n(env, 3)
    infos = copy.deepcopy(env.infos)
    assert infos["player_0"]["eliminated"] and infos["player_1"]["eliminated"]
    assert infos["player_2"]["sticks"] == 3 and not infos["player_2"]["eliminated"]
    assert all_terminated(env)
    totals = {}
    skip_dead(env, totals)
    assert not env.agents
    assert totals == {"player_0": -1, "player_1": -1, "player_2": 1}


def _play_random_match(env, rng, max_steps=20000):
    """Standard AEC loop with a pass-biased random policy; returns (totals, last infos)."""
    totals = {a: 0 for a in env.possible_agents}
    last_info = {}
    for _ in range(max_steps):
        if not env.agents:
            return totals, last_info
        a = env.agent_selection
        obs, r, term, trunc, info = env.last()
        assert not trunc, "a pass-biased match should not reach max_turns"
        totals[a] += r
        last_info[a] = copy.deepcopy(info)
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = PASS if PASS in legal and rng.random() < 0.75 else int(rng.choice(legal))
        env.step(action)
    raise AssertionError("match did not end")


@pytest.mark.parametrize("seed", range(6))
def test_random_matches_end_with_exactly_one_winner(seed):
    """§6 / API match+win: a match ends with exactly one winner: +1 to it, -1 to every other."""
    n = 2 + seed % 3
    env = tri_palki_v0.raw_env(num_players=n, episode="match", reward="win")
    env.reset(seed=seed, options={"sticks": [2] * n})
    totals, infos = _play_random_match(env, np.random.default_rng(seed))
    assert sorted(totals.values()) == [-1] * (n - 1) + [1]
    winner = max(totals, key=totals.get)
    assert all(infos[a]["eliminated"] for a in totals if a != winner)
    assert not infos[winner]["eliminated"]


@pytest.mark.parametrize("seed", range(4))
def test_random_matches_sticks_reward_counts_sticks(seed):
    """API match+sticks: -1 to each player who receives a stick, every round (elimination too)."""
    n = 3
    env = tri_palki_v0.raw_env(num_players=n, episode="match", reward="sticks")
    start = [1, 2, 3]
    env.reset(seed=seed, options={"sticks": start})
    totals, infos = _play_random_match(env, np.random.default_rng(100 + seed))
    for s in range(n):
        final = infos[agent(s)]["sticks"]
        assert totals[agent(s)] == -(final - start[s]), (s, totals, infos)


# ============================================================================ truncation


def _same_suit_swap(t, s):
    for g in sorted(t.hands[s]):
        for c in sorted(t.centre):
            if H.suit_of(g) == H.suit_of(c):
                return t.swap(s, g, c)
    raise AssertionError("no same-suit swap")


def test_max_turns_truncates_every_agent_without_sticks():
    """API: max_turns truncates a round that would not end, for every agent, with no sticks."""
    env, t = setup(4, 0, PLAIN4, CENTRE3, max_turns=6)
    for _ in range(10):
        if all_done(env):
            break
        act(env, _same_suit_swap(t, H.seat(env.agent_selection)))
    assert env.agents and all(env.truncations[a] for a in env.agents)
    assert all(r == 0 for r in env._cumulative_rewards.values())
    assert not any(env.infos[a].get("stick") for a in env.agents)


def test_max_turns_counts_turns_exactly():
    """API Decided: max_turns counts turns in the round; reaching it truncates the episode."""
    env, t = setup(4, 0, PLAIN4, CENTRE3, max_turns=3)
    for _ in range(2):
        act(env, _same_suit_swap(t, H.seat(env.agent_selection)))
    assert not all_done(env) and not any(env.truncations.values())
    act(env, _same_suit_swap(t, H.seat(env.agent_selection)))
    assert all(env.truncations[a] for a in env.agents)


# ======================================================================= validation (API)


@pytest.mark.parametrize("n", [0, 1, 12])
def test_num_players_out_of_range_raises(n):
    """§1 [decided] / API Decided: num_players outside 2-11 raises ValueError."""
    with pytest.raises(ValueError):
        env = tri_palki_v0.raw_env(num_players=n)
        env.reset(seed=0)


@pytest.mark.parametrize("n", [2, 11])
def test_num_players_2_and_11_work(n):
    """§1: 2 to 11 players."""
    env = tri_palki_v0.raw_env(num_players=n)
    env.reset(seed=3)
    assert env.agents == [agent(i) for i in range(n)]
    play_all_pass(env)
    assert all_terminated(env)
    assert all(i["outcome"] in ("all_passed", "reserve_empty") for i in env.infos.values())


def _twin_after_one_pass():
    env, _ = setup(4, 0, PLAIN4, CENTRE3)
    act(env, PASS)
    return env


def _finish_and_compare(env):
    twin = _twin_after_one_pass()
    for e in (env, twin):
        pass_turn(e)
        act(e, H.Table(4, 0, H.build_deck(4, 0, PLAIN4, CENTRE3)).swap_id(2, "7C", "6C"))
        play_all_pass(e)
    assert H.snapshot(env) == H.snapshot(twin)


def _bad_decks():
    good = H.build_deck(4, 0, PLAIN4, CENTRE3)
    rep = list(good)
    rep[5] = rep[4]
    unknown = list(good)
    unknown[7] = "1X"
    eleven = list(good)
    eleven[8] = "11H"
    big_id = [cid(c) for c in good]
    big_id[0] = 36
    return {
        "repeated": rep,
        "35_cards": good[:35],
        "37_cards": good + [good[0]],
        "unknown_string": unknown,
        "rank_11": eleven,
        "id_36": big_id,
    }


@pytest.mark.parametrize("case", sorted(_bad_decks()))
def test_bad_deck_raises_and_leaves_env_unchanged(case):
    """API: a deck that is not the 36 cards once each (or an unknown string) raises ValueError
    and leaves the environment unchanged."""
    env = _twin_after_one_pass()
    before = H.snapshot(env)
    with pytest.raises(ValueError):
        env.reset(seed=1, options={"dealer": 0, "deck": _bad_decks()[case]})
    assert H.snapshot(env) == before
    _finish_and_compare(env)


@pytest.mark.parametrize(
    "sticks",
    [[0, 0, 0, 4], [-1, 0, 0, 0], [0, 0, 0], [0, 0, 0, 0, 0]],
    ids=["four", "negative", "too_few", "too_many"],
)
def test_bad_sticks_raise_and_leave_env_unchanged(sticks):
    """API Decided: sticks outside 0-3 (or not one per player) raise ValueError, env unchanged."""
    env = _twin_after_one_pass()
    before = H.snapshot(env)
    with pytest.raises(ValueError):
        H.reset(env, H.build_deck(4, 1, PLAIN4, CENTRE3), 1, sticks=sticks, seed=2)
    assert H.snapshot(env) == before
    _finish_and_compare(env)


def test_bad_dealer_raises_and_leaves_env_unchanged():
    """API: anything malformed (a dealer seat that does not exist) raises ValueError."""
    env = _twin_after_one_pass()
    before = H.snapshot(env)
    with pytest.raises(ValueError):
        H.reset(env, H.build_deck(4, 0, PLAIN4, CENTRE3), 4, seed=2)
    assert H.snapshot(env) == before
    _finish_and_compare(env)


@pytest.mark.parametrize("action", [11, 12, 13, -1])
def test_illegal_action_raises_and_leaves_env_unchanged(action):
    """API: raw_env.step raises ValueError on an action outside the mask; env unchanged."""
    env = _twin_after_one_pass()
    before = H.snapshot(env)
    with pytest.raises(ValueError):
        env.step(action)
    assert H.snapshot(env) == before
    _finish_and_compare(env)


@pytest.mark.parametrize("action", [0, 1, 10])
def test_illegal_action_at_announce_decision_raises(action):
    """API: at the announce decision only 11/12 are legal; others raise ValueError, env unchanged."""
    hands = hands_of(["AH KH QH", "9S 7H 6D", "KC QC 8S", "AD JD 7C"])
    env, _ = setup(4, 0, hands, ["6C", "JS", "10H"])
    act(env, PASS)
    before = H.snapshot(env)
    with pytest.raises(ValueError):
        env.step(action)
    assert H.snapshot(env) == before
    act(env, NO_ANNOUNCE)
    assert env.agent_selection == "player_1"


def test_cards_as_ids_or_strings_case_insensitive():
    """§1/API: cards may be ids or strings; strings are read case-insensitively."""
    deck = H.build_deck(4, 2, PLAIN4, CENTRE3)
    variants = [
        deck,
        [c.lower() for c in deck],
        [cid(c) for c in deck],
        [c.lower() if i % 2 else cid(c) for i, c in enumerate(deck)],
    ]
    snaps = []
    for d in variants:
        env = tri_palki_v0.raw_env(num_players=4)
        env.reset(seed=5, options={"dealer": 2, "deck": d})
        play_all_pass(env)
        snaps.append(H.snapshot(env))
    assert all(s == snaps[0] for s in snaps)
    assert snaps[0]["infos"]["player_0"]["hand_value"] == 9


def test_action_strings_round_trip():
    """API: action_to_string and string_to_action translate both ways."""
    hands = hands_of(["AH KH QH", "9S 7H 6D", "KC QC 8S", "AD JD 7C"])
    env, _ = setup(4, 0, hands, ["6C", "JS", "10H"])
    u = env.unwrapped
    texts = {a: u.action_to_string(a) for a in range(11)}
    assert len(set(texts.values())) == 11
    for a, text in texts.items():
        assert isinstance(text, str) and u.string_to_action(text) == a
    act(env, PASS)
    for a in (11, 12):
        assert u.string_to_action(u.action_to_string(a)) == a


# ================================================================ §9 who sees what (API)


def test_announce_offer_and_decline_are_invisible_to_others():
    """API Decided: whether a player was offered, or declined, the announcement is never
    visible to the others (only hidden cards differ between the two deals)."""
    others = hands_of(["9S 7H 6D", "KC QC 8S", "AD JD 7C"])
    obs = []
    for p0, hidden in ((["AH", "KH", "QH"], "9H"), (["AH", "KH", "9H"], "QH")):
        env, _ = setup(4, 0, [p0] + others, ["6C", "JS", "10H"], reserve=[hidden])
        pass_turn(env)  # with the 31 this is pass + "do not announce"
        assert env.agent_selection == "player_1"
        obs.append({a: H.to_py(env.observe(a)) for a in ("player_1", "player_2", "player_3")})
    assert obs[0] == obs[1]


def test_swaps_are_observed_by_cards_not_by_action_id():
    """API Decided: others see a swap by the cards that moved, never by the action id (the
    id's positions would reveal the order of a hidden hand)."""
    others = hands_of(["KC QC 8S", "AD 6H 8C", "10H 9H 7S"])
    obs, actions = [], []
    for p0, hidden in ((["6S", "9D", "10S"], "AH"), (["9D", "10S", "AH"], "6S")):
        env, t = setup(4, 0, [p0] + others, ["7C", "JS", "QD"], reserve=[hidden])
        a = t.swap(0, "9D", "JS")
        assert t.washes == 0
        actions.append(a)
        act(env, a)
        assert env.agent_selection == "player_1"
        obs.append({x: H.to_py(env.observe(x)) for x in ("player_1", "player_2", "player_3")})
    assert actions == [7, 4]
    assert obs[0] == obs[1]


# ========================================================================= properties


@st.composite
def random_deals(draw, min_n=2, max_n=11):
    n = draw(st.integers(min_n, max_n))
    dealer = draw(st.integers(0, n - 1))
    sticks = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    deck = draw(st.permutations(list(range(36))))
    return n, dealer, sticks, list(deck)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_deals())
def test_property_round_results_match_the_rules(deal):
    """§2-§6 on random deals, everyone passing: offers only to a normal 31 that is not the n-th
    pass; infos hand_value / hand_kind / stick / sticks / eliminated / outcome; rewards."""
    n, dealer, sticks, deck = deal
    t = H.Table(n, dealer, deck)
    env = tri_palki_v0.raw_env(num_players=n)
    H.reset(env, deck, dealer, sticks=sticks, seed=0)
    if t.reserve_empty:
        assert all_terminated(env)
        outcome = "reserve_empty"
    else:
        for k in range(n):
            s = (dealer + k) % n
            assert env.agent_selection == agent(s) and mask_of(env) == NORMAL_MASK
            act(env, PASS)
            if k < n - 1:
                if H.is_normal_31(t.hands[s]):
                    assert env.agent_selection == agent(s) and mask_of(env) == ANNOUNCE_MASK
                    act(env, NO_ANNOUNCE)
                assert env.agent_selection == agent((s + 1) % n)
        assert all_terminated(env)
        outcome = "all_passed"
    receivers = H.stick_receivers(t.hands)
    rewards = dict(env._cumulative_rewards)
    for s in range(n):
        i = env.infos[agent(s)]
        got = bool(s in receivers)
        assert i["hand_value"] == hand_value(t.hands[s])
        assert i["hand_kind"] == hand_kind(t.hands[s])
        assert bool(i["stick"]) == got
        assert bool(i["eliminated"]) == (got and sticks[s] == 3)
        assert i["sticks"] == (4 if got and sticks[s] == 3 else sticks[s] + got)
        assert i["outcome"] == outcome
        assert rewards[agent(s)] == (-1 if got else 0)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_deals(max_n=8))
def test_property_next_dealer_in_match_mode(deal):
    """§7 on random deals in match mode: highest normal deals (acts first), next surviving
    clockwise if eliminated, same dealer without a normal hand; eliminated leave env.agents."""
    n, dealer, sticks, deck = deal
    t = H.Table(n, dealer, deck)
    env = tri_palki_v0.raw_env(num_players=n, episode="match")
    H.reset(env, deck, dealer, sticks=sticks, seed=0)
    if not t.reserve_empty:
        pass_n(env, n)
    receivers = H.stick_receivers(t.hands)
    alive = {s for s in range(n) if not (s in receivers and sticks[s] == 3)}
    skip_dead(env)
    if len(alive) == 1:
        assert not env.agents
        return
    assert sorted(env.agents, key=H.seat) == [agent(s) for s in sorted(alive)]
    assert env.agent_selection == agent(H.next_dealer(t.hands, dealer, alive, n))
    assert mask_of(env) == NORMAL_MASK
