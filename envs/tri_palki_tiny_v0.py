"""Tri Palki tiny (v0): Tri Palki for two players with ten cards, for exact computation.

| | |
|---|---|
| Import | `from folkcards.envs import tri_palki_tiny_v0` |
| Agents | `player_0`, `player_1` |
| Actions | `Discrete(13)`, as Tri Palki's |
| Observation | Tri Palki's observation for 2 players (`decode(vector)` names its pieces) |
| Registry | `pettingzoo.make("aec", "folkcards/tri_palki_tiny-v0")` |

Rules: `docs/rules/tri_palki_tiny.md`. Tri Palki's rules with the deck cut to the 10, K and A of
spades, clubs and diamonds and the ace of hearts: both hands and the centre take nine cards and
the tenth stays face down as the reserve, so each player sees six of the ten cards. A one-suit
centre (at the deal or after a swap) ends the round at once with the hands as they stand (a
one-card reserve cannot replace a wash). The 31 announcement (A, K and 10 of one suit), three
aces and washes are kept; there are no safe hands. A round reaching `max_turns` (2 by default:
one turn each) is scored as at the round's end (outcome `turn_limit`): the lowest normal hand
takes the stick.

`tri_palki_tiny_v0.env(num_players=2, episode="round", reward="sticks", max_turns=2,
render_mode=None)`; the reset options are Tri Palki's, with `deck` the ten cards in deal
order, the reserve's card last. Every other behaviour (rewards, infos, records, text) is Tri
Palki's (`folkcards.envs.tri_palki_v0`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._aec import make_classic
from .tri_palki.observation import TriPalkiView, observation_size
from .tri_palki.observation import decode as _decode
from .tri_palki.rules import NUM_ACTIONS
from .tri_palki.tiny import TINY_DECK, TINY_MAX_TURNS, TINY_PLAYERS, TURN_LIMIT, raw_env


def decode(vector: np.ndarray) -> TriPalkiView:
    """The named pieces of a tiny observation vector (Tri Palki's for 2 players)."""
    return _decode(vector, TINY_PLAYERS)


def replay(record: dict[str, Any] | str) -> raw_env:
    """Rebuild an env from one of its records by replaying every action."""
    from .notation import replay_from

    return replay_from(raw_env, record)


def env(**kwargs: Any) -> raw_env:
    """Tri Palki tiny with PettingZoo's classic wrappers (as ``tri_palki_v0.env``)."""
    return make_classic(raw_env, **kwargs)  # type: ignore[return-value]


__all__ = [
    "env",
    "raw_env",
    "replay",
    "decode",
    "observation_size",
    "NUM_ACTIONS",
    "TINY_DECK",
    "TINY_MAX_TURNS",
    "TURN_LIMIT",
]
