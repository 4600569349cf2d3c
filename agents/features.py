"""Derived observation features for learned agents: computed from the observation vector only.

A feature set maps a game's observation vector to a longer vector: the observation itself
followed by quantities a network would otherwise have to learn to compute from card bits.
Everything comes from ``decode(observation)``, so a feature set sees exactly what the player
sees and cannot leak anything. A model trained with a feature set records its name in its
metadata (``features``), and :class:`~folkcards.agents.ppo_agent.PolicyAgent` applies the same
set before its network, so saved models stay usable through the plain observation API.

Feature sets (``FEATURE_SETS``):

- ``tri_palki_actions`` — Tri Palki. Global: the hand's value / 31 and whether it is special,
  whether a pass ends the round, whether the reserve is low, whether it is a final turn after an
  announcement, and for every other seat the value / 31 of its publicly known cards' best suit
  and how many of its cards are known / 3. Then for each of the 11 moves (pass, the 9 single
  swaps, swap all): legal, the value / 31 of the hand it leaves, special hand, the rule-based
  heuristic's score of the move minus its score of keeping the hand (/ 10, clipped to ±2;
  hand key, two-card potential, wash bonus, feeding cost), whether it washes the centre,
  whether it ends the round, and its feeding cost / 10. Only the per-seat block depends on the
  table size; a model playing another size than it was trained at gets the per-seat block of
  the adapted table and the rest from the real one (:func:`tri_palki_action_extra`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..envs.registry import GAME_NAMES, game_spec, resolve
from ..envs.tri_palki.observation import TriPalkiView
from ..envs.tri_palki.observation import decode as decode_tri_palki
from ..envs.tri_palki.observation import observation_size as tri_palki_observation_size
from .tri_palki_heuristic import SWAP_ALL, TriPalkiHeuristicAgent, hand_info, suit_value

TRI_PALKI_MOVES = SWAP_ALL + 1  # pass, nine single swaps, swap all
_MOVE_FEATURES = 7
_GLOBAL_FEATURES = 5
_SEAT_FEATURES = 2


@dataclass(frozen=True)
class FeatureSet:
    """A named observation transform: ``extra_size(obs_size)`` extra elements, ``transform``."""

    name: str
    game: str  # the game it was made for (for messages; games list it in their registry entry)
    extra_size: Callable[[int], int]
    transform: Callable[[np.ndarray], np.ndarray]
    batch: str | None = None  # "module:attr" of its batched form ((M, D) -> (M, D')), if any

    def size(self, obs_size: int) -> int:
        return obs_size + self.extra_size(obs_size)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        return self.transform(observation)


def _tri_palki_players(obs_size: int) -> int:
    for n in range(2, 12):
        if tri_palki_observation_size(n) == obs_size:
            return n
    raise ValueError(f"{obs_size} is not the size of a Tri Palki observation")


def _tri_palki_extra_for(num_players: int) -> int:
    return _GLOBAL_FEATURES + _SEAT_FEATURES * (num_players - 1) + _MOVE_FEATURES * TRI_PALKI_MOVES


def _tri_palki_extra(obs_size: int) -> int:
    return _tri_palki_extra_for(_tri_palki_players(obs_size))


_ASSESSOR = TriPalkiHeuristicAgent()


def tri_palki_actions(observation: np.ndarray) -> np.ndarray:
    """The ``tri_palki_actions`` feature vector (observation first); see the module docstring."""
    obs = np.asarray(observation, dtype=np.float32)
    return np.concatenate([obs, tri_palki_action_extra(decode_tri_palki(obs))])


def tri_palki_action_extra(view: TriPalkiView, seats: TriPalkiView | None = None) -> np.ndarray:
    """The extra ``tri_palki_actions`` elements of ``view``.

    The global and per-move features come from ``view``; the per-seat block from ``seats``
    (default ``view``), which may be the same table adapted to another size
    (:mod:`~folkcards.agents.size_adapter`) and sets the block's length.
    """
    seats = view if seats is None else seats
    n = seats.num_players
    extra = np.zeros(_tri_palki_extra_for(n), dtype=np.float32)
    if len(view.hand) == 3 and len(view.centre) == 3:
        value, _, kind = hand_info(tuple(sorted(view.hand)))
        special = kind != "normal"
        extra[0] = value / 31.0
        extra[1] = special
        extra[2] = view.pass_ends_round
        extra[3] = view.reserve_low
        extra[4] = view.announced
        for r in range(1, n):
            base = _GLOBAL_FEATURES + _SEAT_FEATURES * (r - 1)
            known = seats.known[r]
            extra[base] = suit_value(known) / 31.0
            extra[base + 1] = len(known) / 3.0
        moves = _GLOBAL_FEATURES + _SEAT_FEATURES * (n - 1)
        playable = float(view.phase == "action")  # else only announce / decline are legal
        keep, options = _ASSESSOR.assess(view, list(range(1, TRI_PALKI_MOVES)))
        row = extra[moves : moves + _MOVE_FEATURES]
        row[:] = (playable, value / 31.0, special, 0.0, 0.0, view.pass_ends_round, 0.0)
        for option in options:
            start = moves + _MOVE_FEATURES * option.action
            extra[start : start + _MOVE_FEATURES] = (
                playable,
                option.value / 31.0,
                option.kind != "normal",
                np.clip((option.score - keep) / 10.0, -2.0, 2.0),
                option.washes,
                option.ends_round,
                option.feed / 10.0,
            )
    return extra


TRI_PALKI_ACTIONS = FeatureSet(
    "tri_palki_actions",
    "tri_palki",
    _tri_palki_extra,
    tri_palki_actions,
    batch="folkcards.agents.tri_palki_heuristic_batched:tri_palki_actions_batch",
)

# The feature sets defined here; a game offers those its registry entry lists (``feature_sets``).
FEATURE_SETS: dict[str, FeatureSet] = {TRI_PALKI_ACTIONS.name: TRI_PALKI_ACTIONS}


def game_feature_sets(game: str) -> dict[str, FeatureSet]:
    """The feature sets ``game`` offers (its registry entry's ``feature_sets``), by name."""
    sets = (resolve(hook) for hook in game_spec(game).feature_sets)
    return {features.name: features for features in sets}


def get_feature_set(name: str, game: str | None = None) -> FeatureSet:
    """The feature set called ``name``; ``ValueError`` if unknown or not offered by ``game``."""
    known: dict[str, FeatureSet] = {}
    for other in GAME_NAMES:
        known.update(game_feature_sets(other))
    if name not in known:
        raise ValueError(f"unknown feature set {name!r}; known: {', '.join(known)}")
    if game is not None:
        offered = game_feature_sets(game)
        if name not in offered:
            raise ValueError(f"feature set {name!r} is for {known[name].game}, not {game}")
        return offered[name]
    return known[name]


__all__ = [
    "FEATURE_SETS",
    "TRI_PALKI_ACTIONS",
    "FeatureSet",
    "game_feature_sets",
    "get_feature_set",
    "tri_palki_action_extra",
    "tri_palki_actions",
]
