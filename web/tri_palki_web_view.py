"""Tri Palki at the web table: its :class:`~folkcards.web.views.WebLayout` (the registry's
``web_view``): swaps read as the cards given and taken, a decision not to announce shown only to
the one who made it, and the running sheet of sticks."""

from __future__ import annotations

from typing import Any

from folkcards.envs.cards import TRI_PALKI_CARDS

from .views import WebLayout


def _tri_palki_event(name: str, view: Any, actor: int, private_to_actor: bool) -> str | None:
    who = f"P{actor}"
    if name == "no announce":
        return None if private_to_actor else f"{who}: does not announce"
    if name.startswith("swap ") and name != "swap all":
        _, give, take = name.split()
        return f"{who}: gives {give}, takes {take}"
    return f"{who}: {name}"


def _tri_palki_sheet(results: list[dict[str, Any]], players: int) -> dict[str, Any]:
    rows = []
    before = [0] * players
    for number, result in enumerate(results, 1):
        seats = [result[f"player_{s}"] for s in range(players)]
        after = [seat["sticks"] for seat in seats]
        gained = [a - b for a, b in zip(after, before, strict=True)]
        rows.append({"label": str(number), "values": gained, "note": seats[0].get("outcome", "")})
        before = after
    return {"rows": rows, "total": before if rows else None}


TRI_PALKI_VIEW = WebLayout(
    cards=TRI_PALKI_CARDS,
    seat_lists=("known", "sticks", "eliminated", "final_turn_pending"),
    seat_indexes=("dealer", "to_act", "announcer"),
    card_lists=("hand", "centre", "washed"),
    card_lists_per_seat=("known",),
    event=_tri_palki_event,
    page="swaps",
    dealt_key="deck",
    unit_start=lambda view: view.turn_fraction == 0,  # no turn taken yet this round
    sheet=_tri_palki_sheet,
)


__all__ = ["TRI_PALKI_VIEW"]
