"""Paston's behaviour counters (its registry piece ``statistics``): each seat's counts of a stored
deal, replayed through :class:`~folkcards.envs.paston.rules.PastonDeal`, and the metrics made of
them (:mod:`.behaviour` sums and shows them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .behaviour import GameStatistics, Metric, SplitMetric

PASTON_LEVELS = ("spades", "clubs", "diamonds", "hearts", "best_spades")
# bidding order in a deal: the dealer's left, then the dealer's right, then the dealer (the first
# deal of a game is the exception: whoever holds the designated spade bids first)
PASTON_POSITIONS = ("dealer (bids last)", "dealer's left (bids first)", "dealer's right")


def _paston_metrics() -> list[Metric]:
    m = [Metric("declarer_share", "share of deals as declarer", "declarer", "deals")]
    m += [
        Metric(
            f"bid_reached_{lv}", f"highest own bid: {lv.replace('_', ' ')}", f"bid_{lv}", "deals"
        )
        for lv in ("none", *PASTON_LEVELS)
    ]
    m += [
        Metric(
            f"contract_{c}", f"as declarer, named: {c.replace('_', ' ')}", f"named_{c}", "declarer"
        )
        for c in PASTON_LEVELS
    ]
    m += [
        Metric("contract_made", "played contracts made (6+ tricks)", "made", "played_declarer"),
        Metric("surrender_rate", "surrender rate as declarer", "named_surrender", "declarer"),
        Metric("auto_win_rate", "auto-wins as declarer (both pass)", "auto_win", "declarer"),
        Metric("whist_rate", "whist rate as a possible defender", "whist", "whist_offer"),
        Metric(
            "tricks_declarer",
            "tricks as declarer (played)",
            "tricks_declarer",
            "played_declarer",
            "mean",
        ),
        Metric(
            "tricks_defender",
            "tricks as defender (played)",
            "tricks_defender",
            "played_defender",
            "mean",
        ),
        Metric("score_declarer", "mean score as declarer", "score_declarer", "declarer", "mean"),
        Metric("score_defender", "mean score as defender", "score_defender", "defender", "mean"),
        Metric("score_passer", "mean score as passer", "score_passer", "passer", "mean"),
        Metric("all_pass_rate", "all-pass deals", "all_pass", "deals"),
    ]
    return m


def _paston_deal_counts(
    deal_record: dict[str, Any], seats: Sequence[str], variant: Any = None
) -> list[Counter[str]]:
    """The counts of each seat in one Paston deal (replayed through the rules engine with the
    record's variant: its deck, discards and trick needs; the full game's by default)."""
    from folkcards.envs.cards import PASTON_CARDS
    from folkcards.envs.paston import rules
    from folkcards.envs.paston.vocabulary import (
        CONTRACT,
        CONTRACT_BASE,
        DEFENCE,
        PLAY,
        SURRENDER,
        WHIST,
    )

    def mask(names: list[str]) -> int:
        return sum(1 << c for c in PASTON_CARDS.parse_cards(names, "a recorded hand"))

    deal = rules.PastonDeal(
        [mask(h) for h in deal_record["hands"]],
        mask(deal_record["prikup"]),
        int(deal_record["dealer"]),
        int(deal_record["first_bidder"]),
        *([variant] if variant is not None else []),
    )
    counts: list[Counter[str]] = [Counter() for _ in range(3)]
    index = {f"player_{s}": s for s in range(3)}
    for agent, action in deal_record["actions"]:
        seat, phase = index[agent], deal.phase
        if phase == DEFENCE:
            against = seats[deal.declarer]
            counts[seat].update(
                {
                    "whist_offer": 1,
                    f"whist_offer@{against}": 1,
                    "whist": action == WHIST,
                    f"whist@{against}": action == WHIST,
                }
            )
        elif phase == CONTRACT:
            named = "surrender" if action == SURRENDER else PASTON_LEVELS[action - CONTRACT_BASE]
            counts[seat][f"named_{named}"] += 1
        deal.apply(int(action))
    outcome, scores, tricks = deal.outcome, deal.scores, deal.tricks
    result = deal_record.get("result")
    if outcome is None and deal.phase == PLAY and result:
        # a variant that scores the play without playing it (paston_bidding): the record's
        # result holds the outcome, the credited tricks and the scores
        rows = [result[f"player_{s}"] for s in range(3)]
        outcome = rows[0]["outcome"]
        scores = [row["deal_score"] for row in rows]
        tricks = [row["tricks"] for row in rows]
    if outcome is None:  # an unfinished deal (cannot be stored, but never count it)
        return [Counter() for _ in range(3)]
    for seat in range(3):
        c = counts[seat]
        role = deal.role(seat)
        score = scores[seat]
        bids = deal.bids[seat]
        c.update(deals=1, all_pass=deal.all_pass or outcome == "redeal")
        c[f"bid_{PASTON_LEVELS[bids.bit_length() - 1] if bids else 'none'}"] += 1
        if role in ("declarer", "defender", "passer"):
            c[role] += 1
            c[f"score_{role}"] += score
        if role == "declarer":
            c["auto_win"] += outcome == "auto_win"
            if outcome == "played":
                c.update(played_declarer=1, made=tricks[seat] >= deal.variant.declarer_need)
                c["tricks_declarer"] += tricks[seat]
        elif role == "defender" and outcome == "played":
            c["played_defender"] += 1
            c["tricks_defender"] += tricks[seat]
        position = (seat - deal.dealer) % 3
        c[f"pos{position}"] += 1
        c[f"score_pos{position}"] += score
    return counts


def _paston_counts(
    record: dict[str, Any], seats: Sequence[str], match: bool = False
) -> list[Counter[str]]:
    from folkcards.envs.registry import game_spec

    variant = game_spec(record.get("game", "paston")).env_module().raw_env.variant
    total: list[Counter[str]] = [Counter() for _ in seats]
    for deal_record in record.get("deals", []):
        if deal_record.get("result") is None:
            continue
        for seat, c in enumerate(_paston_deal_counts(deal_record, seats, variant)):
            total[seat].update(c)
    return total


PASTON_STATISTICS = GameStatistics(
    metrics=lambda seats, match: _paston_metrics(),
    counts=_paston_counts,
    positions=lambda seats: list(PASTON_POSITIONS),
    plot=(
        ("declarer_share", "declarer share"),
        ("contract_made", "contracts made"),
        ("surrender_rate", "surrender rate"),
        ("auto_win_rate", "auto-wins"),
        ("whist_rate", "whist rate"),
        ("all_pass_rate", "all-pass deals"),
    ),
    seat_effect_label="mean deal score",
    split=SplitMetric(
        "whist_rate",
        "whist rate against declarer {name}",
        "whist rate by who declares",
        "whist rate, % (bar: the agent deciding)",
    ),
)
