"""Tri Palki's text form of records: one round a line.

A round's line: ``number. dealer Pd sticks ... | deck | moves | outcome hands ... stick ...
[next Pn]`` (the grammar is in ``docs/records.md``).
"""

from __future__ import annotations

from typing import Any

from ..text_format import Move, TextFormat, cards_word, seat_word


def _tri_palki_line(number: int, rnd: dict[str, Any], moves: list[Move], agents: list[str]) -> str:
    head = f"{number}. dealer {seat_word(rnd['dealer'])} sticks " + " ".join(
        map(str, rnd["sticks"])
    )
    words = " ".join(f"{seat_word(m.agent)}:{m.name}" for m in moves) or "-"
    result = rnd.get("result") or {}
    if result:
        seen = [a for a in agents if a in result]
        first = result[seen[0]]
        end = f"{first['outcome']} hands " + " / ".join(
            f"{seat_word(a)} {cards_word(result[a]['hand'])}" for a in seen
        )
        end += " stick " + (" ".join(seat_word(a) for a in seen if result[a]["stick"]) or "-")
        end += f" next {seat_word(first['next_dealer'])}" if first.get("next_dealer") else ""
    else:
        end = "unfinished"
    return " | ".join([head, cards_word(rnd["deck"]), words, end])


TRI_PALKI_TEXT = TextFormat("rounds", _tri_palki_line)
"""The registry's ``text_format`` piece of Tri Palki."""


__all__ = ["TRI_PALKI_TEXT"]
