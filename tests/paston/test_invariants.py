"""Invariants over many random Paston deals and games (a few thousand by default, 10,000+ when slow)."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.envs import paston_v0
from folkcards.envs.paston.rules import OVER, PLAY

FACTOR = {"spades": 1, "clubs": 2, "diamonds": 3, "hearts": 4, "best_spades": 4}


def expected_scores(infos: dict[str, dict]) -> dict[str, int]:
    """The §7 table, recomputed from the end-of-deal infos alone."""
    first = next(iter(infos.values()))
    outcome, contract = first["outcome"], first["contract"]
    if outcome == "redeal":
        return dict.fromkeys(infos, 0)
    if outcome == "surrender":
        return {a: (-10 if i["role"] == "declarer" else 2) for a, i in infos.items()}
    f = FACTOR[contract]
    defenders = [a for a, i in infos.items() if i["role"] == "defender"]
    scores = {}
    for agent, info in infos.items():
        t = info["tricks"]
        if info["role"] == "declarer":
            made = outcome == "auto_win" or t >= 6
            scores[agent] = (10 if contract == "best_spades" else 10 * f) if made else -10 * f
        elif info["role"] == "passer":
            scores[agent] = 0
        elif len(defenders) == 2:
            scores[agent] = f * ([-10, -9, 0][t] if t <= 2 else 10 * (t - 2))
        else:
            scores[agent] = f * ([-10, -9, -8, -7, 0][t] if t <= 4 else 10 * (t - 4))
    return scores


def check_card_conservation(deal) -> None:
    pieces = list(deal.hands) + [deal.discards] + list(deal.played)
    if not deal.prikup_taken:
        pieces.append(deal.prikup)
    union = 0
    for piece in pieces:
        assert union & piece == 0, "a card is in two places"
        union |= piece
    trick_bits = sum(1 << c for _, c in deal.trick)
    assert union & trick_bits == trick_bits, "trick cards must be among the played cards"
    assert union == (1 << 32) - 1, "a card went missing"


def run_deals(num_deals: int, seed: int, shaping: bool) -> None:
    rng = np.random.default_rng(seed)
    env = paston_v0.raw_env(shaping=shaping, reward_scale=0.5)
    outcomes = set()
    for episode in range(num_deals):
        env.reset(seed=int(rng.integers(2**31)))
        sums = dict.fromkeys(env.possible_agents, 0.0)
        ended = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            sums[agent] += reward
            if term or trunc:
                ended[agent] = info
                env.step(None)
                continue
            deal = env.state_deal()
            check_card_conservation(deal)
            mask = obs["action_mask"]
            assert mask.any(), "the acting agent must have a legal action"
            if deal.phase == PLAY:
                assert sum(deal.tricks) == deal.trick_count <= 9
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
        deal = env.state_deal()
        assert deal.phase == OVER
        check_card_conservation(deal)
        first = next(iter(ended.values()))
        outcomes.add(first["outcome"])
        if first["outcome"] == "played":
            assert sum(i["tricks"] for i in ended.values()) == 10
            assert deal.trick_count == 10
            assert deal.hands[deal.declarer] == 0
        table = expected_scores(ended)
        for agent, info in ended.items():
            assert info["deal_score"] == table[agent], (episode, ended)
            assert sums[agent] == pytest.approx(0.5 * table[agent]), (episode, sums, ended)
    assert {"played", "auto_win"} <= outcomes


@pytest.mark.parametrize("shaping", [False, True])
def test_random_deals_invariants(shaping):
    run_deals(1500, seed=1 if shaping else 0, shaping=shaping)


@pytest.mark.slow
@pytest.mark.parametrize("shaping", [False, True])
def test_random_deals_invariants_many(shaping):
    run_deals(10_000, seed=100 + shaping, shaping=shaping)


def run_games(num_games: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(num_games):
        env = paston_v0.raw_env(episode="game", reward="score", max_deals=400)
        env.reset(seed=int(rng.integers(2**31)))
        sums = dict.fromkeys(env.possible_agents, 0.0)
        totals = [0, 0, 0]
        deals_seen = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            sums[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        record = env.record()
        for deal in record["deals"]:
            result = deal["result"]
            if result is None or result["player_0"]["outcome"] == "redeal":
                continue
            deals_seen += 1
            for seat, agent in enumerate(env.possible_agents):
                after = totals[seat] + result[agent]["deal_score"]
                totals[seat] = 0 if after == -121 else after
                assert result[agent]["total"] == totals[seat]
        # rotation: each completed deal's first bidder deals the next one
        deals = record["deals"]
        for previous, nxt in zip(deals, deals[1:], strict=False):
            if previous["result"]["player_0"]["outcome"] == "redeal":
                assert nxt["dealer"] == previous["dealer"]
            else:
                assert nxt["dealer"] == previous["first_bidder"]
                assert nxt["first_bidder"] == (nxt["dealer"] + 1) % 3
        assert deals[0]["first_deal"] is True
        assert record["totals"] == totals
        assert [sums[a] for a in env.possible_agents] == pytest.approx(totals)
        if max(totals) < 121:
            assert deals_seen == 400  # truncated by max_deals


def test_random_games_totals_and_rotation():
    run_games(15, seed=3)


@pytest.mark.slow
def test_random_games_many():
    run_games(300, seed=4)


def test_determinism_same_seed_same_actions():
    def trajectory(seed):
        env = paston_v0.raw_env(episode="game", max_deals=20)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        out = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            out.append((agent, obs["observation"].tobytes(), reward))
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        return out

    assert trajectory(9) == trajectory(9)
    assert trajectory(9) != trajectory(10)
