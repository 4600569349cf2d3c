"""pimc on Paston tiny (docs/rules/paston_tiny.md): the variant's ladder, discard, tricks and
needs, read from the variant description, and its exact belief sampler."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.pimc import PimcAgent, greedy_discard, table_scores
from folkcards.envs import paston_tiny_v0
from folkcards.envs.paston import observation as obs_mod
from folkcards.envs.paston.rules import BEST_SPADES, BID_BASE, CLUBS, SPADES
from folkcards.envs.paston.variant import PASTON, PASTON_TINY
from folkcards.search.paston_history import public_prefix

SEATS = ("player_0", "player_1", "player_2")
CHEAP = "pimc:samples=8,bid_samples=4,discard_samples=2"


@pytest.mark.parametrize("episode", ["deal", "game"])
def test_pimc_plays_the_variant_from_its_own_worlds(episode):
    """Every decision is pimc's own (no fallback to the heuristic, which it takes when its
    sampler finds no world), and the deals end as the rules score them."""
    for seed in range(8):
        env = paston_tiny_v0.raw_env(episode=episode, max_deals=3)
        env.reset(seed=seed)
        players = {s: make_agent(CHEAP, "paston_tiny", s, seed=seed) for s in SEATS}
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            seat = env.agent_selection
            env.step(int(players[seat].act(env.observe(seat))))
        assert sum(p.fallbacks for p in players.values()) == 0


def test_the_scores_are_the_variants():
    # two tricks: the declarer needs both; a defender (two, or a sole one) one
    assert table_scores(np.array([2, 1, 0]), level=SPADES, declarer=True, variant=PASTON_TINY)[
        :2
    ].tolist() == [10.0, -10.0]
    sole = table_scores(
        np.array([2, 1, 0]), level=CLUBS, declarer=False, sole=True, variant=PASTON_TINY
    )
    assert sole.tolist() == [-20.0, 0.0, 20.0]  # -10, 0, +10 times the clubs factor 2
    # the full game's default is unchanged: six of ten tricks
    assert table_scores(np.array([6]), level=SPADES, declarer=True).tolist() == [10.0]


def test_the_contracts_and_the_discard_follow_the_variants_ladder_and_prikup():
    agent = PimcAgent("paston_tiny", "player_0", 0)
    assert agent.variant is PASTON_TINY
    assert agent._levels_from(SPADES) == [SPADES, CLUBS]
    assert agent._levels_from(CLUBS) == [CLUBS]
    assert agent._levels_from(BEST_SPADES) == [BEST_SPADES]
    assert PimcAgent("paston", "player_0", 0)._levels_from(CLUBS) == [1, 2, 3]
    hand = (1 << 7) | (1 << 6) | (1 << 12)  # A♠ K♠ J♣: with spades trump the J♣ goes
    assert greedy_discard(hand, 0, PASTON_TINY.prikup_size) == 1 << 12
    assert PASTON.prikup_size == 2


def test_the_public_calls_are_rebuilt_on_the_short_ladder():
    """The auction, discard, contract and defence rebuilt from an observation are the deal's
    own (a clubs bid is followed by best spades, not diamonds)."""
    rng = np.random.default_rng(0)
    best_after_clubs = False
    for seed in range(300):
        env = paston_tiny_v0.raw_env()
        env.reset(seed=seed)
        while not any(env.terminations.values()):
            history = [action for _, action in env.state_deal().history]
            cards = [i for i, action in enumerate(history) if action < 32]
            expected = history[: cards[1]] if len(cards) > 1 else list(history)
            if cards:
                expected[cards[0]] = None  # the discard: hidden
            for seat in SEATS:
                view = obs_mod.decode(env.observe(seat)["observation"])
                assert public_prefix(view, PASTON_TINY) == expected, (seed, seat)
            best_after_clubs |= BID_BASE + CLUBS in history and BID_BASE + BEST_SPADES in history
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert best_after_clubs
