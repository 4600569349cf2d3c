"""One line per seat that explains a finished Paston deal's score.

The arithmetic comes from the rules' own helpers (``declarer_score``, ``defender_score``,
``LEVEL_FACTOR``), so what is printed is what the engine scored; the full rules are in
``docs/rules/paston.md`` §7.

>>> result = {
...     "player_0": {"outcome": "played", "role": "declarer", "tricks": 7, "contract": "diamonds"},
...     "player_1": {"outcome": "played", "role": "defender", "tricks": 3, "contract": "diamonds"},
...     "player_2": {"outcome": "played", "role": "passer", "tricks": 0, "contract": "diamonds"},
... }
>>> for line in paston_explanations(result, str):
...     print(line)
player_0: made diamonds with 7 tricks: +10 × factor 3 = +30
player_1: whisted alone (sole defender, needs 4) and took 3 tricks: −7 × factor 3 = −21
player_2: passed in the defence and sat out: 0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from folkcards.envs.paston.rules import (
    BEST_SPADES,
    LEVEL_FACTOR,
    LEVEL_NAMES,
    NUM_TRICKS,
    declarer_score,
    defender_score,
)

from .base import plural, signed

Label = Callable[[str], str]


def paston_explanations(result: dict[str, dict[str, Any]], label: Label) -> list[str]:
    """``label(name): why this seat scored what it did`` for each seat of a finished deal."""
    sole = sum(r["role"] == "defender" for r in result.values()) == 1
    return [f"{label(name)}: {paston_reason(r, sole)}" for name, r in result.items()]


def paston_reason(r: dict[str, Any], sole: bool) -> str:
    """Why one seat scored what it did; ``sole``: the deal had one defender."""
    outcome, role, tricks = r["outcome"], r["role"], r["tricks"]
    if outcome == "redeal":
        return "all passed with J♠ and 7♠ in the prikup: the deal is dealt again, 0"
    if outcome == "surrender":
        if role == "declarer":
            return "surrendered: −10 (no factor on a surrender)"
        return "the declarer surrendered: +2"
    level = LEVEL_NAMES.index(r["contract"])
    factor = LEVEL_FACTOR[level]
    contract = LEVEL_NAMES[level].replace("_", " ")
    if role == "declarer":
        if outcome == "auto_win":
            what = f"both opponents passed: won {contract} without play"
            tricks = NUM_TRICKS
        else:
            made = "made" if tricks >= 6 else "went down in"
            what = f"{made} {contract} with {plural(tricks, 'trick')}"
        score = declarer_score(tricks, level)
        if tricks >= 6 and level == BEST_SPADES:
            return f"{what}: +10 (no factor when best spades is made)"
        return f"{what}: {signed(10 if tricks >= 6 else -10)} × factor {factor} = {signed(score)}"
    if role == "defender":
        need = 4 if sole else 2
        base = defender_score(tricks, sole)
        who = "whisted alone (sole defender, needs 4)" if sole else "whisted (needs 2)"
        working = signed(base)
        if tricks > need:
            working = f"+10 × ({tricks} − {need}) = {signed(base)}, {signed(base)}"
        return (
            f"{who} and took {plural(tricks, 'trick')}: "
            f"{working} × factor {factor} = {signed(base * factor)}"
        )
    if outcome == "auto_win":
        return "passed in the defence: 0"
    return "passed in the defence and sat out: 0"
