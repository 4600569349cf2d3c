"""Paston at the web table: its :class:`~folkcards.web.views.WebLayout` (the registry's
``web_view``): the trick with absolute seats, the bid and contract names, the finished tricks a
seat has seen and who won them, and the running score sheet."""

from __future__ import annotations

from typing import Any

from folkcards.envs.cards import PASTON_CARDS, CardSet
from folkcards.envs.paston.rules import trick_winner
from folkcards.envs.paston.vocabulary import LEVEL_NAMES

from .views import WebLayout, absolute_seat

_LEVELS = tuple(name.replace("_", " ") for name in LEVEL_NAMES)


def _paston_finish(view: dict[str, Any], seat: int, players: int, cards: CardSet) -> None:
    view["trick"] = [
        [absolute_seat(seat, rel, players), cards.name(card)] for rel, card in view["trick"]
    ]
    view["high_bid_name"] = None if view["high_bid"] is None else _LEVELS[view["high_bid"]]
    view["contract_name"] = None if view["contract"] is None else _LEVELS[view["contract"]]
    if view["totals"] is not None:  # the observation holds totals / 121 (clipped to ±2)
        view["totals"] = [round(total) for total in view["totals"]]


def _paston_follow(
    memory: dict[str, Any], view: Any, viewer: int, players: int, actor: int, action: int
) -> list[str]:
    """A card played in the play phase (public); when it ends a trick, the trick and its
    winner become ``last_trick`` and join ``tricks_won`` (this deal's tricks, in order)."""
    if view.phase != "play" or not 0 <= action < PASTON_CARDS.num_cards or view.trump is None:
        return []
    if not view.trick and not any(view.tricks):  # the first card of a deal
        memory["tricks_won"] = []
    trick = [(absolute_seat(viewer, rel, players), card) for rel, card in view.trick]
    trick.append((actor, action))
    if len(trick) < view.num_active:
        return []
    winner = trick_winner(trick, view.trump)
    number = sum(view.tricks) + 1
    done = {
        "number": number,
        "winner": winner,
        "cards": [[seat, PASTON_CARDS.name(card)] for seat, card in trick],
    }
    memory["last_trick"] = done
    memory.setdefault("tricks_won", []).append(done)
    return [f"trick {number} won by P{winner}"]


def _paston_recall(memory: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    """The tricks of the deal on the table (once a new deal is dealt, the last one's cards are
    no longer shown: they are in the new hands)."""
    played = {card for cards in view["played"] for card in cards}
    won = memory.get("tricks_won", [])
    if not all(card in played for trick in won for _, card in trick["cards"]):
        return {"last_trick": None, "tricks_won": []}
    return {"last_trick": memory.get("last_trick") if won else None, "tricks_won": won}


def _paston_sheet(results: list[dict[str, Any]], players: int) -> dict[str, Any]:
    rows = []
    total = None
    for number, result in enumerate(results, 1):
        seats = [result[f"player_{s}"] for s in range(players)]
        first = seats[0]
        declarer = first.get("declarer")
        note = first.get("outcome", "")
        if first.get("contract") and declarer:
            note = f"{first['contract'].replace('_', ' ')} by P{declarer.split('_')[1]}, {note}"
        rows.append(
            {"label": str(number), "values": [s["deal_score"] for s in seats], "note": note}
        )
        total = [s.get("total", s["deal_score"]) for s in seats]
    return {"rows": rows, "total": total}


def _paston_unit_start(view: Any) -> bool:
    return view.phase == "auction" and not any(view.bids) and not any(view.auction_passed)


def _paston_event(name: str, view: Any, actor: int, private_to_actor: bool) -> str | None:
    if view.phase == "discard" and private_to_actor:
        return f"P{actor} discards a card"
    return f"P{actor}: {name}"


PASTON_VIEW = WebLayout(
    cards=PASTON_CARDS,
    seat_lists=(
        "played",
        "auction_passed",
        "bids",
        "whist",
        "defence_pass",
        "tricks",
        "voids",
        "totals",
    ),
    seat_indexes=("trick_leader", "to_act", "dealer", "first_bidder", "high_bidder", "declarer"),
    card_lists=("hand", "prikup", "discards"),
    card_lists_per_seat=("played",),
    event=_paston_event,
    page="tricks",
    dealt_key="hands",
    finish=_paston_finish,
    prikup_key="prikup",
    follow=_paston_follow,
    recall=_paston_recall,
    unit_start=_paston_unit_start,
    sheet=_paston_sheet,
)


__all__ = ["PASTON_VIEW"]
