"""One line per seat that explains a finished Tri Palki round's sticks.

The comparison comes from the rules' own ``hand_key``, so what is printed is what the engine
decided; the full rules are in ``docs/rules/tri_palki.md`` §9.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from folkcards.envs.tri_palki.rules import hand_key

from .base import plural

Label = Callable[[str], str]


def tri_palki_explanations(result: dict[str, dict[str, Any]], label: Label) -> list[str]:
    """``label(name): why this seat did or did not take a stick`` for each seat of a round."""
    first = next(iter(result.values()))
    if first["outcome"] == "truncated":
        return ["the turn limit was reached: nobody takes a stick"]
    kinds = {name: r["hand_kind"] for name, r in result.items()}
    normals = [name for name, kind in kinds.items() if kind == "normal"]
    aces = any(kind == "three_aces" for kind in kinds.values())
    lowest = (
        None if aces or not normals else min(normals, key=lambda n: hand_key(result[n]["hand"]))
    )
    out = []
    for name, r in result.items():
        value, kind = r["hand_value"], r["hand_kind"]
        if kind == "safe":
            why = "a safe hand: never a stick"
        elif kind == "three_aces":
            why = "three aces: never a stick"
        elif aces:
            why = f"three aces were shown: every normal hand takes a stick ({value})"
        elif name == lowest:
            why = f"lowest normal hand ({value}): a stick"
        else:
            low = result[lowest]["hand_value"] if lowest else value
            why = f"normal hand ({value}), above the lowest ({low}): no stick"
        if r.get("eliminated"):
            why += " — a fourth stick: out of the match"
        elif r.get("stick"):
            why += f" (now {plural(r['sticks'], 'stick')})"
        out.append(f"{label(name)}: {why}")
    if not normals:
        out.append("nobody holds a normal hand: no stick, the same dealer deals again")
    return out
