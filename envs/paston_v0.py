"""Paston (v0): the 3-player Armenian trick-taking game of the Preference family.

The page below is generated from the environment's own constants.
"""

from __future__ import annotations

from typing import Any

from ._aec import make_classic
from .paston.env import ACTION_NAMES, raw_env
from .paston.observation import OBSERVATION_SIZE, decode, layout_table
from .paston.rules import NUM_ACTIONS


def replay(record: dict[str, Any] | str) -> raw_env:
    """Rebuild an env from one of its records (the JSON dict, its JSON text or its text form)
    by replaying every action."""
    from .notation import replay_from

    return replay_from(raw_env, record)


def env(**kwargs: Any) -> raw_env:
    """Paston with PettingZoo's classic behaviour: an illegal action ends the episode with -1 for
    the offender (``TerminateIllegalWrapper``), an out-of-range one fails an assertion
    (``AssertOutOfBoundsWrapper``), and ``reset`` must come first (``OrderEnforcingWrapper``).
    The three behaviours live in one thin layer; ``env().unwrapped`` is the env itself."""
    return make_classic(raw_env, **kwargs)  # type: ignore[return-value]


def vector_env(num_envs: int, **options: Any) -> Any:
    """A batched engine of ``num_envs`` games stepped together (numba); see
    ``folkcards.envs.paston.batched`` for the API and the options it supports."""
    from .paston.batched import vector_env as make

    return make(num_envs, **options)


def _action_table() -> str:
    rows = ["| id | action |", "|---|---|"]
    rows.append(
        "| 0–31 | the card with that id: 7S=0 … AS=7, 7C=8 … AH=31 (a discard, or a play) |"
    )
    for action in range(32, NUM_ACTIONS):
        rows.append(f"| {action} | {ACTION_NAMES[action]} |")
    return "\n".join(rows)


__doc__ = f"""Paston (v0): the 3-player Armenian trick-taking game of the Preference family.

| | |
|---|---|
| Import | `from folkcards.envs import paston_v0` |
| Agents | `player_0`, `player_1`, `player_2` (clockwise) |
| Actions | `Discrete({NUM_ACTIONS})` |
| Observation | `Dict(observation=Box({OBSERVATION_SIZE},), action_mask=Box(0, 1, ({NUM_ACTIONS},), int8))` |
| Registry | `pettingzoo.make("aec", "folkcards/paston-v0")` |

Rules: `docs/rules/paston.md` in the repository. A deal: the auction on the ladder spades < clubs < diamonds <
hearts < best spades (pass or the next step), the declarer takes the prikup and discards two
cards, names a contract or surrenders, the declarer's left then right say whist or pass, and
ten tricks are played by three or two active players.

## Actions

{_action_table()}

## Observation

Relative to the observer (relative seat 0 = self, 1 = left, 2 = right). Every element is in
[0, 1] except `totals`. ``folkcards.envs.paston_v0.decode(vector)`` turns it back into named
pieces (a :class:`PastonView`).

{layout_table()}

## Rewards

- `episode="deal"` (default): each agent's rewards sum to its table score × `reward_scale`,
  paid when the deal ends.
- `shaping=True`: potential-based shaping during play with
  Φ = 2 · factor · (tricks taken − tricks needed × tricks played / 10) for each active player
  (0 outside play and at the end), so the sum per deal is unchanged.
- `episode="game"`: deals until a total reaches 121. `reward="score"` pays each deal's change of
  total (the exact −121 → 0 reset included); `reward="win"` pays only at the end: +1 to each
  winner (shared on a tie), −1 to the others. `max_deals` truncates (no win reward).

## Arguments

`paston_v0.env(episode="deal", shaping=False, reward_scale=1.0, reward="score",
max_deals=1000, render_mode=None)`

Reset options: `dealer` (seat), `deal` (`{{"hands": [[10 cards] x 3], "prikup": [2 cards]}}`,
cards as ids or strings), in game mode `totals` (3 ints below 121) and `first_deal` (bool).

## Infos

At the end of every deal: `deal_score`, `tricks`, `role`, `contract`, `bid`, `outcome`,
`dealer`, `declarer`; in game mode also `total`, `totals`, and `winners` when the game ends.
An all-pass redeal is shown the same way in both modes (`outcome="redeal"`, `deal_score` 0,
`role` `none`, the totals unchanged); in game mode the infos stay until the next deal completes.
Stepping after the episode is over raises `ValueError` on `raw_env` and warns (as PettingZoo's
`OrderEnforcingWrapper` does) on `env()`.

## Version history

- v0: first release.
"""

__all__ = ["env", "raw_env", "replay", "vector_env", "decode", "OBSERVATION_SIZE", "NUM_ACTIONS"]
