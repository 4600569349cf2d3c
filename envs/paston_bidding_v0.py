"""Paston bidding (v0): Paston's auction, discards, contract and defence; the tricks from a solver.

The page below is generated from the environment's own constants.
"""

from __future__ import annotations

from typing import Any

from ._aec import make_classic
from .paston.observation import OBSERVATION_SIZE, decode, layout_table
from .paston.rules import NUM_ACTIONS
from .paston.vocabulary import ACTION_NAMES
from .paston_bidding.env import raw_env
from .paston_bidding.solved_scores import (
    OpenHandResult,
    credit_tricks,
    first_lead_result,
    table_scores,
)


def replay(record: dict[str, Any] | str) -> raw_env:
    """Rebuild an env from one of its records (the JSON dict, its JSON text or its text form)
    by replaying every action."""
    from .notation import replay_from

    return replay_from(raw_env, record)


def env(**kwargs: Any) -> raw_env:
    """Paston bidding with PettingZoo's classic behaviour (as ``paston_v0.env``): an illegal action
    ends the episode with -1 for the offender, an out-of-range one fails an assertion, and
    ``reset`` must come first. ``env().unwrapped`` is the env itself."""
    return make_classic(raw_env, **kwargs)  # type: ignore[return-value]


def vector_env(num_envs: int, tables: Any = None, **options: Any) -> Any:
    """``num_envs`` bidding deals stepped together in compiled code, each drawn from the
    open-hand table ``tables`` (a file; default the table shipped with the package) and scored
    by a lookup: see :mod:`folkcards.envs.paston_bidding.batched`."""
    from .paston_bidding.batched import vector_env as _vector_env

    return _vector_env(num_envs, tables=tables, **options)


def _action_table() -> str:
    rows = ["| id | action |", "|---|---|"]
    rows.append("| 0–31 | the card with that id: 7S=0 … AS=7, 7C=8 … AH=31 (a discard) |")
    for action in range(32, NUM_ACTIONS):
        rows.append(f"| {action} | {ACTION_NAMES[action]} |")
    return "\n".join(rows)


__doc__ = f"""Paston bidding (v0): Paston's decisions before the play, scored by an open-hand solver.

| | |
|---|---|
| Import | `from folkcards.envs import paston_bidding_v0` |
| Agents | `player_0`, `player_1`, `player_2` (clockwise) |
| Actions | `Discrete({NUM_ACTIONS})` (those of `paston_v0`) |
| Observation | `Dict(observation=Box({OBSERVATION_SIZE},), action_mask=Box(0, 1, ({NUM_ACTIONS},), int8))` |
| Registry | `pettingzoo.make("aec", "folkcards/paston-bidding-v0")`; game `paston_bidding` |

A research environment for Paston's bidding, in the manner of bridge-bidding environments scored
from double-dummy tables (OpenSpiel's uncontested bridge bidding, Pgx's bridge bidding). Rules:
`docs/rules/paston.md`. The auction, the declarer's two discards, the contract or surrender and
the whist/pass decisions are exactly those of `paston_v0`: the same deals for the same seed and
options, the same observations and action masks at every one of these decisions. Then, instead
of ten tricks of play, the deal ends and is scored from an open-hand (double-dummy) analysis of
the three hands as they stand after the discards (``folkcards.search.paston_solver``).

## Difference from `paston_v0`

- The deal ends as soon as the defence is decided. No agent ever plays a card; card ids appear
  only as the declarer's discards.
- Both pass (automatic win), surrender and the all-pass redeal are scored exactly as in
  `paston_v0`, without the solver.
- Otherwise each seat is credited with tricks as follows, and the score table (`paston.md` §7)
  is applied to them:
  - **Declarer**: the open-hand count, the declarer maximising their tricks and the defenders
    jointly minimising them (what a bridge double-dummy table gives for a side).
  - **Sole defender**: the other tricks (against one opponent the game is two-sided and exact).
  - **Two defenders**: the solver's count fixes only the defence's total, but each defender scores
    its own tricks, and the table rewards an uneven split (4-0 is +20 and −10, 2-2 is 0 and 0).
    Each defender is credited with its **guarantee**: the tricks it wins by itself when it
    maximises them and the declarer and the other defender both minimise them (the "paranoid"
    value of multi-player search: a second and third solve, with that defender as the
    maximising seat and the declarer still on lead). The three guarantees add up to at most ten,
    since each is secured by one strategy whatever the others play. The remaining **contested**
    tricks, which the defence takes only by playing together, are shared equally (as whisters
    share tricks under Preference's "gentleman's whist"); an odd one goes to the defender with
    the larger guarantee, on equal guarantees to the declarer's left.
- The rule keeps the declarer's count exact, ties part of each defender's credit (its
  guarantee) to its own cards, and is symmetric between the defenders except for the odd
  contested trick. The contested part is shared whoever holds the winners: a defender with a weak
  hand still gets half of it. It is a model; in a real deal the split depends on the play (and
  the `pimc` agent, when it values its own card play, uses yet another estimate: its own tricks
  plus half of the defence's tricks to come).
- The terminal observation shows phase `over` and the credited tricks; no card is in `played`.
- Cost: one solve (sole defender) or up to three (two defenders) per played deal; measured
  under heuristic and random bidding about 1.7 solves and 4-8 ms of CPU per solved deal on
  average, with a long tail (a few deals take 0.1-0.2 s). The first solve in a fresh process
  loads (or compiles) the solver's kernels.

## Batched, on open-hand tables

`paston_bidding_v0.vector_env(num_envs, tables=FILE, reward_scale=1.0)` steps many deals in
compiled code with the API of the other batched engines, every deal drawn from an open-hand
table (`folkcards tables`; the default is the table shipped with the package) and scored by a
lookup. The declarer's discards are then the table's pair (see
`folkcards.envs.paston_bidding.tables`), made automatically; every other decision has this
env's observation and mask. `docs/bidding_benchmark.md` describes the tables and the env.

`paston_bidding_v0.first_lead_result(hands, trump, declarer, defenders)` and
`paston_bidding_v0.credit_tricks(position, solve=None)` give the same crediting for any deal or
ending (an :class:`OpenHandResult`: `tricks`, `declarer_tricks`, `guaranteed`, `contested`);
`table_scores(tricks, level, declarer, defenders)` applies the score table.

## Actions

{_action_table()}

## Observation

The layout of `paston_v0` (relative seats: 0 = self, 1 = left, 2 = right);
``folkcards.envs.paston_bidding_v0.decode(vector)`` turns it into a :class:`PastonView`.

{layout_table()}

## Rewards

- `episode="deal"` (default): each agent's reward is its table score × `reward_scale`, paid when
  the deal ends.
- `episode="game"`: deals until a total reaches 121, as in `paston_v0`. `reward="score"` pays each
  deal's change of total (the exact −121 → 0 reset included); `reward="win"` pays only at the end:
  +1 to each winner (shared on a tie), −1 to the others. `max_deals` truncates.
- There is no `shaping` argument: with no tricks played there is nothing to shape.

## Arguments

`paston_bidding_v0.env(episode="deal", reward_scale=1.0, reward="score", max_deals=1000,
render_mode=None)`

Reset options as in `paston_v0`: `dealer` (seat), `deal` (`{{"hands": [[10 cards] x 3],
"prikup": [2 cards]}}`), in game mode `totals` and `first_deal`.

## Infos

At the end of every deal the keys of `paston_v0` (`deal_score`, `tricks` (the credited tricks),
`role`, `contract`, `bid`, `outcome` (`"played"` for a deal scored by the solver), `dealer`,
`declarer`; in game mode `total`, `totals`, `winners`) and two more: `guaranteed` (this seat's
guarantee: the declarer's open-hand count, a defender's own guarantee; `None` for a passer and
for deals the solver did not score) and `contested` (the deal's contested tricks; 0 with a sole
defender, `None` without a solve). `env.unwrapped.open_hand_result()` returns the same as an
:class:`OpenHandResult`.

## Records

`env.unwrapped.record()` is a `paston_v0`-style record with `"game": "paston_bidding"` and
`"env": "paston_bidding_v0"`; `paston_bidding_v0.replay(record)` (or the registry's
`game_spec("paston_bidding").replay`) rebuilds the env by replaying every action, solving again.

## Version history

- v0: first release.
"""

__all__ = [
    "env",
    "vector_env",
    "raw_env",
    "replay",
    "decode",
    "credit_tricks",
    "first_lead_result",
    "table_scores",
    "OpenHandResult",
    "OBSERVATION_SIZE",
    "NUM_ACTIONS",
]
