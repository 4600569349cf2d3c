"""Paston's observation decoder against the plain numpy reading of the layout it replaced.

``decode`` reads the vector as Python numbers in one conversion (a decision decodes its
observation once); the reference below reads each piece with numpy, as the layout table
describes it. Both must give the same view on every observation of random episodes, in game
mode too, and on arbitrary 0/1 vectors.
"""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.envs import paston_v0
from folkcards.envs.paston.observation import (
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    OFFSETS,
    PastonView,
    decode,
)
from folkcards.envs.paston.vocabulary import NUM_LEVELS, NUM_SEATS, OVER, PHASE_NAMES

from tests.helpers import random_episode_observations


def _piece(obs: np.ndarray, name: str) -> np.ndarray:
    start = OFFSETS[name]
    size = next(size for n, size, _ in OBSERVATION_LAYOUT if n == name)
    return obs[start : start + size]


def _one_hot(obs: np.ndarray, name: str) -> int | None:
    hits = np.flatnonzero(_piece(obs, name))
    return int(hits[0]) if len(hits) else None


def _cards(bits: np.ndarray) -> list[int]:
    return [int(c) for c in np.flatnonzero(bits)]


def reference_decode(obs: np.ndarray) -> PastonView:
    """Turn an observation vector back into a :class:`PastonView`."""
    obs = np.asarray(obs)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(
            f"a Paston observation is a vector of {OBSERVATION_SIZE} elements, got shape {obs.shape}"
        )
    played = _piece(obs, "played").reshape(3, 32)
    trick_bits = _piece(obs, "trick").reshape(3, 32)
    leader = _one_hot(obs, "trick_leader")
    trick: list[tuple[int, int]] = []
    if leader is not None:
        for k in range(NUM_SEATS):
            r = (leader + k) % NUM_SEATS
            cards = _cards(trick_bits[r])
            if cards:
                trick.append((r, cards[0]))
    phase = _one_hot(obs, "phase")
    totals = None
    if obs[OFFSETS["game_mode"]] > 0:
        totals = [float(x) * 121.0 for x in _piece(obs, "totals")]
    return PastonView(
        hand=_cards(_piece(obs, "hand")),
        prikup=_cards(_piece(obs, "prikup")),
        discards=_cards(_piece(obs, "discards")),
        played=[_cards(played[r]) for r in range(NUM_SEATS)],
        trick=trick,
        trick_leader=leader,
        to_act=_one_hot(obs, "to_act"),
        dealer=_one_hot(obs, "dealer") or 0,
        first_bidder=_one_hot(obs, "first_bidder") or 0,
        phase=PHASE_NAMES[phase if phase is not None else OVER],
        auction_passed=[bool(x) for x in _piece(obs, "auction_passed")],
        high_bid=_one_hot(obs, "high_bid"),
        high_bidder=_one_hot(obs, "high_bidder"),
        bids=[_cards(row) for row in _piece(obs, "bids").reshape(NUM_SEATS, NUM_LEVELS)],
        all_pass=bool(obs[OFFSETS["all_pass"]]),
        declarer=_one_hot(obs, "declarer"),
        contract=_one_hot(obs, "contract"),
        surrendered=bool(obs[OFFSETS["surrendered"]]),
        whist=[bool(x) for x in _piece(obs, "whist")],
        defence_pass=[bool(x) for x in _piece(obs, "defence_pass")],
        tricks=[round(float(x) * 10) for x in _piece(obs, "tricks")],
        voids=[[bool(x) for x in row] for row in _piece(obs, "voids").reshape(3, 4)],
        totals=totals,
    )


def _episode_observations(seed: int, game_mode: bool) -> list[np.ndarray]:
    env = paston_v0.raw_env(episode="game" if game_mode else "deal", max_deals=3)
    return random_episode_observations(env, seed)


@pytest.mark.parametrize("seed", range(6))
def test_decode_matches_the_reference_on_episodes(seed: int) -> None:
    for obs in _episode_observations(seed, game_mode=seed % 2 == 1):
        assert decode(obs) == reference_decode(obs)


def test_decode_matches_the_reference_on_arbitrary_bits() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        obs = (rng.random(OBSERVATION_SIZE) < 0.1).astype(np.float32)
        obs[OFFSETS["phase"] : OFFSETS["phase"] + 6] = 0
        assert decode(obs) == reference_decode(obs)
