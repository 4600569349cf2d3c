"""Tri Palki's vocabulary: action ids and their legal sets, phases, hand kinds, outcomes, names.

The one place these facts are written; the rules, the observation, the env, the heuristic and
terminal play import them from here. Action ids are those of the environment page
(``folkcards.envs.tri_palki_v0``).
"""

from __future__ import annotations

from enum import IntEnum

MIN_PLAYERS = 2
MAX_PLAYERS = 11  # 3 cards each plus 3 in the centre from 36

# --- action ids ---
PASS = 0
SWAP_BASE = 1  # 1..9: 1 + 3 * h + c, giving hand card h and taking centre card c
SWAP_ALL = 10
ANNOUNCE = 11
NO_ANNOUNCE = 12
NUM_ACTIONS = 13
ACTION_BITS = (1 << (SWAP_ALL + 1)) - 1  # a turn: pass, the nine swaps, swap all
ANNOUNCE_BITS = (1 << ANNOUNCE) | (1 << NO_ANNOUNCE)  # the announce decision


class Phase(IntEnum):
    """The phases of a round: a turn's action, the announce decision, the end."""

    ACTION = 0
    ANNOUNCE = 1
    OVER = 2


# Plain ints for the engine's hot paths.
ACTION, ANNOUNCE_DECISION, OVER = (int(phase) for phase in Phase)
PHASE_NAMES = tuple(phase.name.lower() for phase in Phase)

# --- hand kinds ---
NORMAL, SAFE, THREE_ACES = range(3)
KIND_NAMES = ("normal", "safe", "three_aces")

OUTCOMES = ("announced", "all_passed", "reserve_empty")

ACTION_NAMES: tuple[str, ...] = (
    ("pass",)
    + tuple(f"swap hand card {h + 1} for centre card {c + 1}" for h in range(3) for c in range(3))
    + ("swap all", "announce", "no announce")
)
"""Generic names of the 13 ids (the card-specific names come from ``action_to_string``)."""

# --- hand comparison keys ---
KEY_VALUE_SHIFT = 11  # a hand's comparison key is value << 11 | ranks << 2 | suit
KEY_RANKS_SHIFT = 2
