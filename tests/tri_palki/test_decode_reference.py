"""Tri Palki's observation decoder against the plain numpy reading of the layout it replaced.

``decode`` reads the vector as Python numbers in one conversion; the reference below reads each
piece with numpy. Both must give the same view on every observation of random rounds and
matches at 2 to 11 players, and on arbitrary vectors.
"""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.envs import tri_palki_v0
from folkcards.envs.tri_palki.observation import (
    ELIMINATED_STICKS,
    KIND_NAMES,
    MAX_RESERVE,
    OVER,
    PASSES_SCALE,
    PHASE_NAMES,
    VALUE_SCALE,
    TriPalkiView,
    _infer_players,
    _offsets,
    decode,
    observation_size,
)

from tests.helpers import random_episode_observations


def reference_decode(obs: np.ndarray, num_players: int | None = None) -> TriPalkiView:
    """Turn an observation vector back into a :class:`TriPalkiView` (``num_players`` is
    inferred from the length when not given)."""
    obs = np.asarray(obs)
    if obs.ndim != 1:
        raise ValueError(f"a Tri Palki observation is a 1-d vector, got shape {obs.shape}")
    n = _infer_players(obs.shape[0]) if num_players is None else num_players
    if obs.shape != (observation_size(n),):
        raise ValueError(
            f"a {n}-player observation has {observation_size(n)} elements, got shape {obs.shape}"
        )
    o = _offsets(n)

    def piece(name: str, size: int) -> np.ndarray:
        return obs[o[name] : o[name] + size]

    def cards(bits: np.ndarray) -> list[int]:
        return [int(c) for c in np.flatnonzero(bits)]

    def one_hot(name: str, size: int) -> int | None:
        hits = np.flatnonzero(piece(name, size))
        return int(hits[0]) if len(hits) else None

    known = piece("known", 36 * n).reshape(n, 36)
    stick_bits = piece("sticks", 4 * n).reshape(n, 4)
    eliminated = [bool(x) for x in piece("eliminated", n)]
    sticks = [
        ELIMINATED_STICKS
        if eliminated[r]
        else int(np.flatnonzero(stick_bits[r])[0])
        if stick_bits[r].any()
        else 0
        for r in range(n)
    ]
    phase = one_hot("phase", 3)
    kind = one_hot("hand_kind", 3)
    return TriPalkiView(
        num_players=n,
        hand=cards(piece("hand", 36)),
        centre=cards(piece("centre", 36)),
        washed=cards(piece("washed", 36)),
        known=[cards(known[r]) for r in range(n)],
        reserve_count=round(float(obs[o["reserve_count"]]) * MAX_RESERVE),
        sticks=sticks,
        eliminated=eliminated,
        dealer=one_hot("dealer", n) or 0,
        to_act=one_hot("to_act", n),
        announced=bool(obs[o["announced"]]),
        announcer=one_hot("announcer", n),
        final_turn_pending=[bool(x) for x in piece("final_turn_pending", n)],
        passes=round(float(obs[o["passes"]]) * PASSES_SCALE),
        pass_ends_round=bool(obs[o["pass_ends_round"]]),
        phase=PHASE_NAMES[phase if phase is not None else OVER],
        hand_value=round(float(obs[o["hand_value"]]) * VALUE_SCALE),
        hand_kind=KIND_NAMES[kind] if kind is not None else None,
        turn_fraction=float(obs[o["turns"]]),
    )


def _observations(num_players: int, seed: int, mode: str) -> list[np.ndarray]:
    env = tri_palki_v0.raw_env(num_players=num_players, episode=mode)
    return random_episode_observations(env, seed)


@pytest.mark.parametrize("num_players", [2, 3, 4, 6, 11])
def test_decode_matches_the_reference_on_rounds_and_matches(num_players: int) -> None:
    for mode in ("round", "match"):
        for obs in _observations(num_players, 40 + num_players, mode):
            assert decode(obs) == reference_decode(obs)
            assert decode(obs, num_players) == reference_decode(obs, num_players)


def test_decode_matches_the_reference_on_arbitrary_vectors() -> None:
    rng = np.random.default_rng(8)
    for n in (3, 6):
        for _ in range(100):
            obs = (rng.random(observation_size(n)) < 0.1).astype(np.float32)
            obs[rng.random(len(obs)) < 0.05] = rng.random()
            assert decode(obs) == reference_decode(obs)
