"""Tri Palki's behaviour counters (its registry piece ``statistics``): each seat's counts of a
stored round, replayed through :class:`~folkcards.envs.tri_palki.rules.TriPalkiRound`, and the
metrics made of them (:mod:`.behaviour` sums and shows them)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .behaviour import GameStatistics, Metric


def _tri_palki_metrics(seats: int, match: bool) -> list[Metric]:
    m = [
        Metric("pass_share", "turn actions: pass", "pass", "actions"),
        Metric("swap_share", "turn actions: swap one", "swap", "actions"),
        Metric("swap_all_share", "turn actions: swap all", "swap_all", "actions"),
        Metric("announce_rate", "announce rate when offered", "announce", "offered"),
        Metric("turns_per_round", "turns per round", "turns", "rounds", "mean"),
        Metric("washes_per_round", "washes caused per round", "washes", "rounds", "mean"),
        Metric("stick_rate", "sticks per round", "stick", "rounds"),
    ]
    m += [
        Metric(
            f"stick_rate_pos{p}",
            f"sticks per round, {tri_palki_position(p)}",
            f"stick_pos{p}",
            f"pos{p}",
        )
        for p in range(seats)
    ]
    if match:
        m += [
            Metric("place", "mean finishing place (1 = winner)", "place", "matches", "mean"),
            Metric("rounds_survived", "rounds survived per match", "rounds", "matches", "mean"),
        ]
        m += [
            Metric(f"place_{k}", f"finished {_ordinal(k)}", f"place_{k}", "matches")
            for k in range(1, seats + 1)
        ]
    return m


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def tri_palki_position(p: int) -> str:
    """The name of position ``p`` after the dealer (0 = the dealer, who acts first)."""
    return "dealer (acts first)" if p == 0 else f"dealer +{p}"


def _tri_palki_round_counts(
    round_record: dict[str, Any], n: int, rounds_before: Counter[str] | None = None
) -> list[Counter[str]]:
    """The counts of each seat in one Tri Palki round (replayed through the rules engine)."""
    from folkcards.envs.cards import TRI_PALKI_CARDS
    from folkcards.envs.tri_palki import rules
    from folkcards.envs.tri_palki.vocabulary import ANNOUNCE, ANNOUNCE_DECISION, PASS, SWAP_ALL

    alive = [int(s) < rules.ELIMINATED_STICKS for s in round_record["sticks"]]
    deck = TRI_PALKI_CARDS.parse_cards(round_record["deck"], "a recorded deck")
    dealer = int(str(round_record["dealer"]).rpartition("_")[2])
    rnd = rules.TriPalkiRound(deck, dealer, alive)
    counts: list[Counter[str]] = [Counter() for _ in range(n)]
    for agent, action in round_record["actions"]:
        seat, action = int(agent.rpartition("_")[2]), int(action)
        c = counts[seat]
        if rnd.phase == ANNOUNCE_DECISION:
            c.update(offered=1, announce=action == ANNOUNCE)
            rnd.apply(action)
            continue
        washes = len(rnd.washes)
        rnd.apply(action)
        kind = "pass" if action == PASS else "swap_all" if action == SWAP_ALL else "swap"
        caused = len(rnd.washes) > washes or rnd.outcome == "reserve_empty" and action != PASS
        again = caused and rnd.phase != rules.OVER  # a wash: the same player acts again
        c.update({"actions": 1, kind: 1, "washes": caused, "turns": not again})
    result = round_record.get("result") or {}
    order = rules.deal_order(dealer, alive)  # from the dealer's left, dealer last
    for position, seat in enumerate([dealer, *order[:-1]]):
        info = result.get(f"player_{seat}")
        if info is None or info.get("outcome") == "truncated":
            counts[seat].clear()
            continue
        stick = bool(info.get("stick"))
        counts[seat].update(
            {
                "rounds": 1,
                "stick": stick,
                f"pos{position}": 1,
                f"stick_pos{position}": stick,
                f"score_pos{position}": stick,
            }
        )
    return counts


def _tri_palki_counts(
    record: dict[str, Any], seats: Sequence[str], match: bool
) -> list[Counter[str]]:
    n = len(seats)
    total: list[Counter[str]] = [Counter() for _ in range(n)]
    out_round = [math.inf] * n  # the round in which each seat was eliminated
    for index, round_record in enumerate(record.get("rounds", [])):
        if round_record.get("result") is None:
            continue
        for seat, c in enumerate(_tri_palki_round_counts(round_record, n)):
            total[seat].update(c)
        for seat in range(n):
            info = round_record["result"].get(f"player_{seat}") or {}
            if info.get("eliminated") and out_round[seat] == math.inf:
                out_round[seat] = index
    if match:
        for seat in range(n):
            place = 1 + sum(1 for other in range(n) if out_round[other] > out_round[seat])
            total[seat].update({"matches": 1, "place": place, f"place_{place}": 1})
    return total


TRI_PALKI_STATISTICS = GameStatistics(
    metrics=_tri_palki_metrics,
    counts=_tri_palki_counts,
    positions=lambda seats: [tri_palki_position(p) for p in range(seats)],
    plot=(
        ("pass_share", "pass"),
        ("swap_share", "swap one"),
        ("swap_all_share", "swap all"),
        ("announce_rate", "announce when offered"),
        ("stick_rate", "stick rate"),
    ),
    seat_effect_label="sticks per 100 rounds",
    seat_effect_scale=100.0,
)
