"""What a game's text form of records is made of: :class:`TextFormat` and the words of a line.

A module of its own so that each game's notation (``envs/<game>/notation.py``, named by its
registry entry's ``text_format``) and the reader and writer of :mod:`.notation` use it without
importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def seat_word(agent: str) -> str:
    """``"player_2"`` as a text record writes it: ``"P2"``."""
    return "P" + agent.rsplit("_", 1)[1]


def cards_word(cards: list[str]) -> str:
    """Card names separated by spaces; ``"-"`` for none."""
    return " ".join(cards) if cards else "-"


@dataclass
class Move:
    """One move of a record as its line writes it."""

    agent: str
    name: str  # the env's action name with spaces as hyphens


@dataclass(frozen=True)
class TextFormat:
    """A game's text form: which record key holds its units, and how one unit is written.

    ``line(number, unit, moves, agents)`` writes the unit's line; a game's registry entry names
    its format (``GameSpec.text_format``), and :meth:`GameSpec.record_units
    <folkcards.envs.registry.GameSpec.record_units>` reads a record's units by ``units_key``.
    """

    units_key: str
    line: Callable[[int, dict[str, Any], list[Move], list[str]], str]


__all__ = ["Move", "TextFormat", "cards_word", "seat_word"]
