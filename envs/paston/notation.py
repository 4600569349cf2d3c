"""Paston's text form of records (one deal a line) and its paper score sheet.

A deal's line: ``number. dealer Pd bidder Pb [first] | hands / ... | prikup | auction |
exchange | defence | tricks split by "/" | outcome scores ... [totals ...]`` (the grammar is in
``docs/records.md``).
"""

from __future__ import annotations

from typing import Any

from ..text_format import Move, TextFormat, cards_word, seat_word


def _paston_sections(moves: list[Move]) -> list[str]:
    """Auction | exchange (discards, contract) | defence | play (tricks split by '/')."""
    auction: list[Move] = []
    i = 0
    while i < len(moves) and (moves[i].name == "pass" or moves[i].name.startswith("bid-")):
        auction.append(moves[i])
        i += 1
    exchange = moves[i : i + 3]
    i += len(exchange)
    defence: list[Move] = []
    while i < len(moves) and moves[i].name in ("pass", "whist") and len(defence) < 2:
        defence.append(moves[i])
        i += 1
    play = moves[i:]
    active = 2 if sum(m.name == "whist" for m in defence) == 1 else 3  # a sole defender
    tricks = [play[k : k + active] for k in range(0, len(play), active)]

    def words(group: list[Move]) -> str:
        return " ".join(f"{seat_word(m.agent)}:{m.name}" for m in group) or "-"

    return [
        words(auction),
        words(exchange),
        words(defence),
        " / ".join(words(t) for t in tricks) or "-",
    ]


def _paston_line(number: int, deal: dict[str, Any], moves: list[Move], agents: list[str]) -> str:
    result = deal.get("result") or {}
    head = f"{number}. dealer {seat_word(agents[deal['dealer']])} bidder {seat_word(agents[deal['first_bidder']])}"
    if deal.get("first_deal"):
        head += " first"
    parts = [
        head,
        " / ".join(cards_word(hand) for hand in deal["hands"]),
        cards_word(deal["prikup"]),
        *_paston_sections(moves),
    ]
    if result:
        first = result[agents[0]]
        outcome = f"{first['outcome']} scores " + " ".join(
            f"{result[a]['deal_score']:+d}" for a in agents
        )
        if "totals" in first:
            outcome += " totals " + " ".join(str(t) for t in first["totals"])
        parts.append(outcome)
    else:
        parts.append("unfinished")
    return " | ".join(parts)


PASTON_TEXT = TextFormat("deals", _paston_line)
"""The registry's ``text_format`` piece of Paston."""


def paston_score_sheet(record: dict[str, Any], players: list[str] | None = None) -> str:
    """The totals of a Paston record deal by deal, the way players keep them on paper.

    One row per completed deal (redeals are listed, scoring nothing): who dealt and declared,
    the contract and outcome, each seat's deal score and its running total (the exact −121 → 0
    reset shows as a total of 0).
    """
    if not isinstance(record, dict) or "deals" not in record:
        raise ValueError("a score sheet needs a record of Paston deals")
    names = players or [f"P{i}" for i in range(3)]
    agents = [f"player_{i}" for i in range(3)]
    width = max(7, *(len(n) for n in names))  # a seat's deal-score column
    who = max(8, *(len(n) for n in names))  # the dealer and declarer columns
    header = (
        f"{'deal':>4}  {'dealer':<{who}}  {'declarer':<{who}}  {'contract':<11}  {'outcome':<9}"
    )
    header += "".join(f"  {name:>{width}} {'total':>5}" for name in names)
    rows = [header, "-" * len(header)]
    totals = list((record.get("options") or {}).get("totals") or [0, 0, 0])
    for number, deal in enumerate(record["deals"], start=1):
        result = deal.get("result")
        if not result:
            rows.append(f"{number:>4}  (unfinished)")
            continue
        first = result[agents[0]]
        declarer = first.get("declarer")
        row = (
            f"{number:>4}  {names[deal['dealer']]:<{who}}  "
            f"{(names[int(declarer[7:])] if declarer else '-'):<{who}}  "
            f"{(first.get('contract') or '-'):<11}  {first['outcome']:<9}"
        )
        for seat, agent in enumerate(agents):
            if "total" in result[agent]:
                totals[seat] = result[agent]["total"]
            else:
                totals[seat] += result[agent]["deal_score"]
            row += f"  {result[agent]['deal_score']:>+{width}d} {totals[seat]:>5d}"
        rows.append(row)
    return "\n".join(rows) + "\n"


__all__ = ["PASTON_TEXT", "paston_score_sheet"]
