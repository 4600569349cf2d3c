"""Tri Palki (v0): the Russian "three sticks" game of the Schwimmen / 31 family, 2 to 11 players.

The page below is generated from the environment's own constants.
"""

from __future__ import annotations

from typing import Any

from ._aec import make_classic
from .tri_palki.env import ACTION_NAMES, raw_env
from .tri_palki.observation import (
    TriPalkiView,
    decode,
    encode_view,
    layout_table,
    observation_layout,
    observation_size,
)
from .tri_palki.rules import (
    ANNOUNCE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_ANNOUNCE,
    NUM_ACTIONS,
    OUTCOMES,
    PASS,
    SWAP_ALL,
)


def replay(record: dict[str, Any] | str) -> raw_env:
    """Rebuild an env from one of its records (the JSON dict, its JSON text or its text form)
    by replaying every action."""
    from .notation import replay_from

    return replay_from(raw_env, record)


def env(**kwargs: Any) -> raw_env:
    """Tri Palki with PettingZoo's classic behaviour: an illegal action ends the episode with -1
    for the offender (``TerminateIllegalWrapper``), an out-of-range one fails an assertion
    (``AssertOutOfBoundsWrapper``), and ``reset`` must come first (``OrderEnforcingWrapper``).
    The three behaviours live in one thin layer; ``env().unwrapped`` is the env itself."""
    return make_classic(raw_env, **kwargs)  # type: ignore[return-value]


def vector_env(num_envs: int, num_players: int = 4, **options: Any) -> Any:
    """A batched engine of ``num_envs`` games stepped together (numba); see
    ``folkcards.envs.tri_palki.batched`` for the API and the options it supports."""
    from .tri_palki.batched import vector_env as make

    return make(num_envs, num_players=num_players, **options)


def _action_table() -> str:
    rows = ["| id | action | `action_to_string` |", "|---|---|---|"]
    rows.append(f"| {PASS} | pass | `pass` |")
    rows.append(
        "| 1–9 | swap one card: `1 + 3·h + c`, giving hand card `h` and taking centre card `c` "
        "(each indexed 0–2 in increasing card-id order of the current hand and centre) "
        "| `swap 10H QS` (give 10H, take QS) |"
    )
    rows.append(
        f"| {SWAP_ALL} | swap all three hand cards for the three centre cards | `swap all` |"
    )
    rows.append(
        f"| {ANNOUNCE} | announce the last round (offered only at the end of a turn, with a normal 31) "
        f"| `{ACTION_NAMES[ANNOUNCE]}` |"
    )
    rows.append(f"| {NO_ANNOUNCE} | do not announce | `{ACTION_NAMES[NO_ANNOUNCE]}` |")
    return "\n".join(rows)


def _size_table() -> str:
    sizes = " | ".join(str(observation_size(n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
    players = " | ".join(str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
    return f"| players | {players} |\n|---|{'---|' * (MAX_PLAYERS - MIN_PLAYERS + 1)}\n| size | {sizes} |"


__doc__ = f"""Tri Palki (v0): the Russian "three sticks" game of the Schwimmen / 31 family.

| | |
|---|---|
| Import | `from folkcards.envs import tri_palki_v0` |
| Agents | `player_0` … `player_{{n-1}}` (clockwise), `num_players` {MIN_PLAYERS}–{MAX_PLAYERS} (default 4) |
| Actions | `Discrete({NUM_ACTIONS})` |
| Observation | `Dict(observation=Box(0, 1, ({observation_size(4)},) for 4 players), action_mask=Box(0, 1, ({NUM_ACTIONS},), int8))` |
| Registry | `pettingzoo.make("aec", "folkcards/tri_palki-v0")` |

Rules: `docs/rules/tri_palki.md` in the repository. 36 cards (6–A); a hand is worth its best single suit
(A 11, K Q J 10, else face value; 31 at most). From the dealer's left each player gets three
cards and three lie face up in the centre; the rest is the face-down reserve. Whenever the
centre shows one suit it is washed (out of play) and replaced from the reserve, and the player
whose action caused it acts again; a wash the reserve cannot replace ends the round (the
centre then stays as it is, and the hands are scored as they stand). The dealer
acts first: pass, swap one card with the centre, or swap all three. A player ending a turn with a
normal 31 may announce: every other player then takes one final turn. As many consecutive passes
as surviving players also end the round. The lowest normal hand gets a stick (every normal hand
does if someone holds three aces; safe hands — three sixes, or 6-7-8 of a suit — never do); a
fourth stick eliminates. The highest normal hand deals next.

## Actions

{_action_table()}

During a turn the mask is ids 0–10 (all always legal); when the announcement is offered it is
11 and 12 only. Action 12 neither counts as a pass nor resets the consecutive passes.

## Observation

Relative to the observer (relative seat 0 = self, then clockwise over all seats, eliminated ones
included), so its length depends on `num_players`: `121 + 45 · num_players`.

{_size_table()}

Every element is in [0, 1]. ``folkcards.envs.tri_palki_v0.decode(vector, num_players)`` turns
it back into named pieces (a :class:`TriPalkiView`; ``encode_view`` is the inverse). Others' swaps
appear only as the cards that moved (the `known` and `centre` pieces), never as action ids. While
a player decides whether to announce, every other player's observation shows the table as it
will be if they decline, so the offer and a refusal are never visible. The layout for 4 players:

{layout_table(4)}

## Rewards

- `episode="round"` (default), `reward="sticks"`: −1 to each player who receives a stick
  (an elimination included) when the round ends, 0 otherwise.
- `episode="match"`: rounds until one player survives; eliminated players are terminated at the
  end of their round and leave `env.agents`. `reward="sticks"` pays −1 for every stick received;
  `reward="win"` pays −1 to each player when eliminated and +1 to the winner at the end.
  (`reward="win"` needs `episode="match"`.)
- `max_turns` truncates a round that reaches that many turns (an action with its wash repeats
  and the announce decision is one turn): every agent is truncated, nobody gets a stick, no win
  reward is paid.

## Arguments

`tri_palki_v0.env(num_players=4, episode="round", reward="sticks", max_turns=1000,
render_mode=None)`

Reset options (cards as ids or strings like `"10H"`, case-insensitive; every value is checked
before anything changes, and a bad one raises `ValueError` naming it):
- `dealer`: seat (int or `"player_k"`) of the first dealer; random from the seed otherwise.
- `deck`: all 36 cards in deal order — the first 3n+3 dealt as the rules say (one to each player
  from the dealer's left, then one to the centre, three times), the rest the reserve, top first.
  In match mode it fixes the first round only; later rounds are shuffled from the seed.
- `sticks`: one int 0–3 per player.

A deal whose one-suit centre cannot be replaced ends before anyone acts: in round mode every
agent is terminated right after `reset` (infos and rewards readable through `last()`); in match
mode the next round is dealt.

## Infos

Empty until the first round ends. When a round ends, for every player who took part: `hand_value` (best
single-suit value, special hands too), `hand_kind` (`normal`, `safe`, `three_aces`), `stick`
(bool), `sticks` (after the round, 4 once eliminated), `eliminated` (in this round), `outcome`
({", ".join(f"`{o}`" for o in OUTCOMES)}, or `truncated` when `max_turns` cut the round),
`hand` (the revealed cards), `dealer`, `next_dealer`, `announcer`, `round` (index), `turns`; in
match mode also `sticks_all` (every seat's sticks) and `winner` once the match is over. They
stay until the next round ends. `env.unwrapped.next_dealer` (an agent name) is set after every
round, `env.unwrapped.winner` after a match.

Also: `env.unwrapped.record()` (JSON-serialisable; `tri_palki_v0.replay(record)` reproduces
it), `action_to_string` / `string_to_action` (swap names resolve against the acting player's
current hand and centre), `render_mode="ansi"` / `"human"` (a god's-eye text table).

## Version history

- v0: first release.
"""

__all__ = [
    "env",
    "raw_env",
    "replay",
    "vector_env",
    "decode",
    "encode_view",
    "TriPalkiView",
    "observation_layout",
    "observation_size",
    "layout_table",
    "NUM_ACTIONS",
]
