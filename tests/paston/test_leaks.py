"""Leak tests: cards hidden from an agent never change that agent's observation (paston.md §9)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from folkcards.envs import paston_v0
from folkcards.envs.paston import observation
from folkcards.envs.paston.rules import NUM_SEATS


def hidden_slots(deal, observer: int) -> list[tuple[str, int]]:
    """Every (place, card) the observer cannot see: others' hands, the prikup, the discards."""
    slots = []
    for seat in range(NUM_SEATS):
        if seat != observer:
            slots += [(f"hand{seat}", c) for c in range(32) if deal.hands[seat] >> c & 1]
    is_declarer = deal.declarer == observer
    if not deal.prikup_taken:
        slots += [("prikup", c) for c in range(32) if deal.prikup >> c & 1]
    if not is_declarer:
        slots += [("discards", c) for c in range(32) if deal.discards >> c & 1]
    return slots


def shuffled_hidden(deal, observer: int, rng: np.random.Generator):
    """A copy of ``deal`` with the observer's hidden cards permuted among their hidden places."""
    slots = hidden_slots(deal, observer)
    cards = [c for _, c in slots]
    permuted = list(rng.permutation(cards))
    other = copy.deepcopy(deal)
    for seat in range(NUM_SEATS):
        if seat != observer:
            other.hands[seat] = 0
    if not deal.prikup_taken:
        other.prikup = 0
    if deal.declarer != observer:
        other.discards = 0
    for (place, _), card in zip(slots, permuted, strict=True):
        bit = 1 << int(card)
        if place == "prikup":
            other.prikup |= bit
        elif place == "discards":
            other.discards |= bit
        else:
            other.hands[int(place[4:])] |= bit
    if deal.prikup_taken and deal.declarer != observer:
        other.prikup = 0b11 << 30 if deal.prikup != 0b11 << 30 else 0b11  # any other two cards
    return other


@pytest.mark.parametrize("seed", range(6))
def test_hidden_cards_never_reach_the_observation(seed):
    """At every step of random deals, permuting what an agent cannot see leaves its vector equal."""
    rng = np.random.default_rng(seed)
    env = paston_v0.raw_env(episode="game", max_deals=30)
    env.reset(seed=seed)
    checked = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        deal = env.state_deal()
        totals = env.totals
        for observer in range(NUM_SEATS):
            base = observation.encode(deal, observer, totals)
            for _ in range(2):
                other = shuffled_hidden(deal, observer, rng)
                assert np.array_equal(observation.encode(other, observer, totals), base)
                checked += 1
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert checked > 200


def test_hidden_card_swap_between_whole_deals_same_trajectory():
    """Two deals that differ only in cards never shown to player_0 give player_0 equal vectors.

    player_0 passes and a fixed sequence is replayed; the opponents' hands differ by an exchange of
    cards that neither of them plays in the scripted prefix.
    """
    hands_a = [
        "7S 8S 9S 7C 8C 9C 7D 8D 9D 7H".split(),
        "10S JS QS 10C JC QC 10D JD QD 8H".split(),
        "KS AS KC AC KD AD 9H 10H JH QH".split(),
    ]
    prikup = ["KH", "AH"]
    hands_b = copy.deepcopy(hands_a)
    hands_b[1][-1], hands_b[2][-1] = hands_a[2][-1], hands_a[1][-1]  # 8H <-> QH
    observations = []
    for hands in (hands_a, hands_b):
        env = paston_v0.raw_env()
        env.reset(seed=0, options={"dealer": 2, "deal": {"hands": hands, "prikup": prikup}})
        seen = [env.observe("player_0")["observation"].copy()]
        for action in (32, 33, 32):  # player_0 passes, player_1 bids spades, player_2 passes
            env.step(action)
            seen.append(env.observe("player_0")["observation"].copy())
        observations.append(seen)
    for a, b in zip(*observations, strict=True):
        assert np.array_equal(a, b)


def test_prikup_and_discards_visible_to_declarer_only():
    env = paston_v0.raw_env()
    hands = [
        "7S 8S 9S 7C 8C 9C 7D 8D 9D 7H".split(),
        "10S JS QS 10C JC QC 10D JD QD 8H".split(),
        "KS AS KC AC KD AD 9H 10H JH QH".split(),
    ]
    env.reset(seed=0, options={"dealer": 2, "deal": {"hands": hands, "prikup": ["KH", "AH"]}})
    env.step(32)  # player_0 passes
    env.step(33)  # player_1 bids spades
    env.step(32)  # player_2 passes -> player_1 declares, takes KH AH
    views = {a: observation.decode(env.observe(a)["observation"]) for a in env.agents}
    kh, ah = 30, 31
    assert views["player_1"].prikup == [kh, ah]
    assert kh in views["player_1"].hand
    assert views["player_0"].prikup == [] and views["player_2"].prikup == []
    env.step(kh)
    env.step(ah)
    views = {a: observation.decode(env.observe(a)["observation"]) for a in env.agents}
    assert views["player_1"].discards == [kh, ah]
    assert views["player_0"].discards == [] and views["player_2"].discards == []
