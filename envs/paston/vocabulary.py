"""Paston's vocabulary: action ids, ladder levels, phases, outcomes and action names.

The one place these facts are written; the rules, the observation, the env, the heuristic and
terminal play import them from here. Action ids are those of the environment page
(``folkcards.envs.paston_v0``): 0–31 a card (a discard or a play), then the calls.
"""

from __future__ import annotations

from enum import IntEnum

from ..cards import PASTON_CARDS

NUM_SEATS = 3

# --- action ids ---
PASS = 32
BID_BASE = 33  # 33..37: bid spades, clubs, diamonds, hearts, best spades
CONTRACT_BASE = 38  # 38..42: the same five levels as a contract
SURRENDER = 43
WHIST = 44
NUM_ACTIONS = 45

# --- levels of the ladder (docs/rules/paston.md, the auction) ---
SPADES, CLUBS, DIAMONDS, HEARTS, BEST_SPADES = range(5)
NUM_LEVELS = 5
LEVEL_NAMES = ("spades", "clubs", "diamonds", "hearts", "best_spades")
LEVEL_TRUMP = (0, 1, 2, 3, 0)  # best spades plays with spades as trump
LEVEL_FACTOR = (1, 2, 3, 4, 4)


class Phase(IntEnum):
    """The phases of a deal, in order."""

    AUCTION = 0
    DISCARD = 1
    CONTRACT = 2
    DEFENCE = 3
    PLAY = 4
    OVER = 5


# Plain ints for the engine's hot paths (an IntEnum compares more slowly than an int).
AUCTION, DISCARD, CONTRACT, DEFENCE, PLAY, OVER = (int(phase) for phase in Phase)
PHASE_NAMES = tuple(phase.name.lower() for phase in Phase)

OUTCOMES = ("played", "auto_win", "surrender", "redeal")

ACTION_NAMES: tuple[str, ...] = (
    tuple(PASTON_CARDS.names)
    + ("pass",)
    + tuple(f"bid {name.replace('_', ' ')}" for name in LEVEL_NAMES)
    + tuple(f"contract {name.replace('_', ' ')}" for name in LEVEL_NAMES)
    + ("surrender", "whist")
)
