"""Paston tiny (v0): Paston with seven cards and two tricks, for exact computation.

| | |
|---|---|
| Import | `from folkcards.envs import paston_tiny_v0` |
| Agents | `player_0`, `player_1`, `player_2` (clockwise) |
| Actions | `Discrete(45)`, as Paston's (cards of the tiny deck only) |
| Observation | Paston's observation (`decode(vector)` names its pieces) |
| Registry | `pettingzoo.make("aec", "folkcards/paston_tiny-v0")` |

Rules: `docs/rules/paston_tiny.md`. Paston's rules with the deck cut to the 7, J, K and A of
spades and the J, K and A of clubs: two cards to each seat and one to the prikup, the ladder
spades < clubs < best spades, the prikup, one discard, the contract or a surrender, whist or
pass, and two tricks, of which the declarer needs both and each defender (two, or a sole one)
one.

`paston_tiny_v0.env(episode="deal", shaping=False, reward_scale=1.0, reward="score",
max_deals=1000, render_mode=None)`; the reset options are Paston's, with a `deal` of
2-card hands and a 1-card prikup. Every other behaviour (rewards, infos, records, text) is Paston's
(`folkcards.envs.paston_v0`).
"""

from __future__ import annotations

from typing import Any

from ._aec import make_classic
from .paston.observation import OBSERVATION_SIZE, decode
from .paston.rules import NUM_ACTIONS
from .paston.tiny import PASTON_TINY, raw_env


def replay(record: dict[str, Any] | str) -> raw_env:
    """Rebuild an env from one of its records by replaying every action."""
    from .notation import replay_from

    return replay_from(raw_env, record)


def env(**kwargs: Any) -> raw_env:
    """Paston tiny with PettingZoo's classic wrappers (as ``paston_v0.env``)."""
    return make_classic(raw_env, **kwargs)  # type: ignore[return-value]


__all__ = ["env", "raw_env", "replay", "decode", "OBSERVATION_SIZE", "NUM_ACTIONS", "PASTON_TINY"]
