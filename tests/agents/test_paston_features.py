"""Paston's card-play features (``paston_cards``), checked against how the tricks really end.

The features are claims about the public position (the rules' §6: follow suit, else trump,
highest trump or highest card of the led suit wins). The engine's trick results decide them:
a card that does not beat the trick as it stands never wins it, a card the features call a
sure winner always does, whatever the hidden hands hold and whoever plays after.
"""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.features import get_feature_set
from folkcards.agents.paston_features import CARD_FEATURES, EXTRA_SIZE, GLOBAL_FEATURES
from folkcards.envs import paston_v0
from folkcards.envs.paston.observation import OBSERVATION_SIZE, decode

FEATURES = get_feature_set("paston_cards", "paston")
BEATS, HIGHER_UNSEEN, TRUMP, OWN, UNSEEN, LEFT_VOID, RIGHT_VOID, RANK, SURE = range(CARD_FEATURES)


def _card_row(vector: np.ndarray, card: int) -> np.ndarray:
    start = OBSERVATION_SIZE + GLOBAL_FEATURES + CARD_FEATURES * card
    return vector[start : start + CARD_FEATURES]


def _card_plays(deals: int = 150, seed: int = 0):
    """(features, card, won, last to play) for every card played in mixed heuristic/random
    deals; ``won``: the engine gave the player that trick."""
    env = paston_v0.raw_env()
    seats = env.possible_agents
    heuristics = {s: make_agent("heuristic", "paston", s, i) for i, s in enumerate(seats)}
    randoms = {s: make_agent("random", "paston", s, seed + i) for i, s in enumerate(seats)}
    for d in range(deals):
        env.reset(seed=seed + d)
        pending: list[tuple[np.ndarray, int, int, bool]] = []
        for seat in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            player = heuristics[seat] if d % 2 else randoms[seat]
            action = int(player.act(obs))
            deal = env.unwrapped._deal
            index = seats.index(seat)
            view = decode(obs["observation"])
            playing = view.phase == "play"
            if playing:
                last = len(view.trick) == view.num_active - 1
                pending.append((FEATURES(obs["observation"]), action, index, last))
                before = list(deal.tricks)
            env.step(action)
            if playing and sum(deal.tricks) > sum(before):
                winner = next(s for s in range(3) if deal.tricks[s] > before[s])
                for vector, card, who, last in pending:
                    yield vector, card, who == winner, last
                pending = []


@pytest.fixture(scope="module")
def plays() -> list[tuple[np.ndarray, int, bool, bool]]:
    return list(_card_plays())


def test_size_and_the_observation_comes_first(plays) -> None:
    assert FEATURES.size(OBSERVATION_SIZE) == OBSERVATION_SIZE + EXTRA_SIZE
    for vector, _, _, _ in plays[:200]:
        assert vector.shape == (OBSERVATION_SIZE + EXTRA_SIZE,)
        assert np.isfinite(vector).all()
    with pytest.raises(ValueError, match="not the size of a Paston observation"):
        FEATURES.size(OBSERVATION_SIZE + 1)


def test_a_card_that_does_not_beat_the_trick_never_wins_it(plays) -> None:
    losing = [won for vector, card, won, _ in plays if not _card_row(vector, card)[BEATS]]
    assert len(losing) > 100
    assert not any(losing)


def test_the_last_card_that_beats_the_trick_wins_it(plays) -> None:
    last = [won for vector, card, won, last in plays if last and _card_row(vector, card)[BEATS]]
    assert len(last) > 100
    assert all(last)


def test_a_sure_winner_always_wins_and_is_not_rare(plays) -> None:
    sure = [won for vector, card, won, _ in plays if _card_row(vector, card)[SURE]]
    beating_early = [
        won for vector, card, won, last in plays if not last and _card_row(vector, card)[BEATS]
    ]
    assert all(sure)
    assert len(sure) > 100
    # the claim has teeth: among cards that beat the trick before the last seat, some lose
    assert not all(beating_early)


def test_counts_agree_with_the_visible_cards(plays) -> None:
    for vector, card, _, _ in plays[:400]:
        view = decode(vector[:OBSERVATION_SIZE])
        suit = card // 8
        seen = set(view.hand) | {c for cards in view.played for c in cards}
        seen |= {c for _, c in view.trick} | set(view.prikup) | set(view.discards)
        row = _card_row(vector, card)
        assert row[OWN] * 8 == pytest.approx(sum(c // 8 == suit for c in view.hand))
        unseen_suit = [c for c in range(suit * 8, suit * 8 + 8) if c not in seen]
        assert row[UNSEEN] * 8 == pytest.approx(len(unseen_suit))
        assert row[HIGHER_UNSEEN] * 8 == pytest.approx(sum(c > card for c in unseen_suit))
        assert row[TRUMP] == (suit == view.trump)
        assert row[LEFT_VOID] == view.voids[1][suit]
        assert row[RIGHT_VOID] == view.voids[2][suit]
        assert row[RANK] * 7 == pytest.approx(card % 8)


def test_outside_the_play_no_card_beats_anything() -> None:
    env = paston_v0.raw_env()
    env.reset(seed=3)
    obs, *_ = env.last()
    vector = FEATURES(obs["observation"])
    rows = vector[OBSERVATION_SIZE + GLOBAL_FEATURES :].reshape(32, CARD_FEATURES)
    assert decode(obs["observation"]).phase == "auction"
    assert not rows[:, BEATS].any() and not rows[:, SURE].any() and not rows[:, TRUMP].any()
    hand = decode(obs["observation"]).hand
    assert sum(rows[c, OWN] * 8 for c in range(0, 32, 8)) == pytest.approx(len(hand))
