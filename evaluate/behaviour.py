"""How each agent plays, counted from the stored records (old databases work too).

Every stored episode's ``record`` is replayed through the game's rules engine
(:class:`~folkcards.envs.paston.rules.PastonDeal`, :class:`~folkcards.envs.tri_palki.rules.TriPalkiRound`),
so each decision is seen in its phase: a pass in the auction is not a pass in the defence, an
announce decision (action 11 or 12) exists only when the rules offered it, a swap that left a
one-suit centre caused a wash.

**Counting.** Each seat of each deal (Paston) or round (Tri Palki) adds named counts to a
:class:`collections.Counter`; the counts of an agent are summed per tournament deal (one seed:
all its line-ups and seatings), and every statistic is a ratio of two summed counts (a rate:
events / opportunities; a mean: total / occasions). The optional bootstrap interval
(:func:`folkcards.evaluate.stats.bootstrap_ratio`) resamples tournament deals, the independent
unit, and recomputes the ratio.

**Seat effects.** The score of every seat by its position relative to the dealer of that deal or
round (Paston: the dealer, who bids last; the dealer's left, who bids first except on a game's
first deal; the dealer's right; Tri Palki: the dealer acts first, then clockwise among the
players still in), with a 95% t interval over tournament deals of the agent's per-deal mean at that position.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from folkcards.envs.registry import game_spec

from . import stats as st

# --- the statistics of each game -------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """One statistic: ``sum(num) / sum(den)`` over the agent's counts; ``kind`` is how to show it
    (``rate`` as a share in [0, 1], ``mean`` as a number)."""

    key: str
    label: str
    num: str
    den: str
    kind: str = "rate"


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


@dataclass(frozen=True)
class SplitMetric:
    """A rate also shown per opponent: counts ``{num}@{name}`` over ``{den}@{name}``."""

    key: str  # the metric split ("whist_rate")
    label: str  # per opponent, with {name} ("whist rate against declarer {name}")
    title: str  # of the plot panel
    axis: str  # the plot panel's x label


@dataclass(frozen=True)
class GameStatistics:
    """A game's behaviour statistics, named by its registry entry (``GameSpec.statistics``).

    ``metrics(seats, match)`` in report order; ``counts(record, seats, match)`` one Counter per
    seat of a stored episode; ``positions(seats)`` the names of the positions relative to the
    dealer (``pos{p}`` / ``score_pos{p}`` counts); ``plot`` the (metric key, short label) pairs
    the behaviour plot shows; the seat-effects plot shows scores × ``seat_effect_scale`` as
    ``seat_effect_label``.
    """

    metrics: Callable[[int, bool], list[Metric]]
    counts: Callable[[dict[str, Any], Sequence[str], bool], list[Counter[str]]]
    positions: Callable[[int], list[str]]
    plot: tuple[tuple[str, str], ...]
    seat_effect_label: str
    seat_effect_scale: float = 1.0
    split: SplitMetric | None = None


def statistics_of(game: str) -> GameStatistics:
    """The game's :class:`GameStatistics` (from its registry entry)."""
    return game_spec(game).piece("statistics")


def metrics_of(game: str, seats: int, match: bool) -> list[Metric]:
    """The behaviour statistics of a game, in report order."""
    return statistics_of(game).metrics(seats, match)


# --- Paston: replaying a record's deals --------------------------------------------------------


def _paston_deal_counts(deal_record: dict[str, Any], seats: Sequence[str]) -> list[Counter[str]]:
    """The counts of each seat in one Paston deal (replayed through the rules engine)."""
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
                c.update(played_declarer=1, made=tricks[seat] >= 6)
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
    total: list[Counter[str]] = [Counter() for _ in seats]
    for deal_record in record.get("deals", []):
        if deal_record.get("result") is None:
            continue
        for seat, c in enumerate(_paston_deal_counts(deal_record, seats)):
            total[seat].update(c)
    return total


# --- Tri Palki: replaying a record's rounds ----------------------------------------------------


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


# --- aggregation --------------------------------------------------------------------------------


def unit_counts(game: str, match: bool, unit: dict[str, Any]) -> list[Counter[str]]:
    """One stored unit's counts per seat (its record replayed)."""
    return statistics_of(game).counts(unit["record"], unit["seats"], match)


def counts_by_deal(
    game: str, match: bool, units: Iterable[dict[str, Any]]
) -> dict[str, dict[int, Counter[str]]]:
    """agent -> tournament deal -> the agent's counts summed over that deal's units."""
    out: dict[str, dict[int, Counter[str]]] = {}
    for unit in units:
        for agent, c in zip(unit["seats"], unit_counts(game, match, unit), strict=True):
            out.setdefault(agent, {}).setdefault(unit["deal"], Counter()).update(c)
    return out


def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


def _stat(
    metric: Metric, num: np.ndarray, den: np.ndarray, resamples: int, seed: tuple[int, ...]
) -> dict[str, Any]:
    total_num, total_den = float(num.sum()), float(den.sum())
    row: dict[str, Any] = {
        "label": metric.label,
        "kind": metric.kind,
        "value": _ratio(total_num, total_den),
        "n": total_den,
        "ci_low": None,
        "ci_high": None,
    }
    if resamples and total_den > 0 and len(num) > 1:
        low, high = st.bootstrap_ratio(num, den, resamples=resamples, seed=seed)
        row["ci_low"], row["ci_high"] = _clean(low), _clean(high)
    return row


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _metrics_for(game: str, seats: int, match: bool, names: Sequence[str]) -> list[Metric]:
    metrics = metrics_of(game, seats, match)
    split = statistics_of(game).split
    if split is not None:  # e.g. Paston's whist rate split by who declares
        at = next(i for i, m in enumerate(metrics) if m.key == split.key)
        whole = metrics[at]
        metrics[at + 1 : at + 1] = [
            Metric(
                f"{split.key}_vs_{name}",
                split.label.format(name=name),
                f"{whole.num}@{name}",
                f"{whole.den}@{name}",
            )
            for name in names
        ]
    return metrics


def behaviour(
    game: str,
    seats: int,
    match: bool,
    names: Sequence[str],
    units: Iterable[dict[str, Any]],
    resamples: int = 0,
    seed: int = 0,
) -> dict[str, dict[str, dict[str, Any]]]:
    """agent -> metric key -> ``{label, kind, value, n, ci_low, ci_high}``.

    ``value`` is ``None`` when the agent never had the occasion (``n`` = 0); the interval is
    the percentile bootstrap over tournament deals when ``resamples`` > 0 (seeded by ``seed``),
    else ``None``. ``units`` must carry their records.
    """
    by_deal = counts_by_deal(game, match, units)
    metrics = _metrics_for(game, seats, match, names)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for a, name in enumerate(names):
        deals = by_deal.get(name, {})
        keys = sorted(deals)
        rows = {}
        for metric in metrics:
            num = np.array([deals[d][metric.num] for d in keys], dtype=float)
            den = np.array([deals[d][metric.den] for d in keys], dtype=float)
            words = (seed, a, zlib.crc32(metric.key.encode()))
            rows[metric.key] = _stat(metric, num, den, resamples, words)
        out[name] = rows
    return out


def position_names(game: str, seats: int) -> list[str]:
    """The names of the positions relative to the dealer, in order."""
    return statistics_of(game).positions(seats)


def seat_effects(
    game: str, seats: int, match: bool, names: Sequence[str], units: Iterable[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """agent -> per position relative to the dealer: ``{position, n, mean, ci_low, ci_high}``.

    The score is the deal score (Paston) or the stick (1) of a round (Tri Palki); per tournament
    deal the agent's scores at that position (over all its units, and in game / match mode all
    their deals / rounds) are averaged, then a 95% t interval over tournament deals.
    """
    sums: dict[int, Counter[str]] = {}  # tournament deal -> "position|agent" score and count
    for unit in units:
        pooled = sums.setdefault(unit["deal"], Counter())
        for agent, c in zip(unit["seats"], unit_counts(game, match, unit), strict=True):
            for p in range(len(position_names(game, seats))):
                pooled[f"n{p}|{agent}"] += c[f"pos{p}"]
                pooled[f"s{p}|{agent}"] += c[f"score_pos{p}"]
    totals: Counter[tuple[str, int]] = Counter()
    observations: list[tuple[int, dict[str, float]]] = []
    for deal, pooled in sorted(sums.items()):
        values = {}
        for name in names:
            for p in range(len(position_names(game, seats))):
                if pooled[f"n{p}|{name}"]:
                    values[f"{p}|{name}"] = pooled[f"s{p}|{name}"] / pooled[f"n{p}|{name}"]
                    totals[(name, p)] += pooled[f"n{p}|{name}"]
        observations.append((deal, values))
    intervals = st.paired_ci_by_deal(observations)
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        rows = []
        for p, label in enumerate(position_names(game, seats)):
            ci = intervals.get(f"{p}|{name}")
            rows.append(
                {
                    "position": label,
                    "n": totals.get((name, p), 0),
                    "deals": ci.n if ci else 0,
                    "mean": _clean(ci.mean) if ci else None,
                    "ci_low": _clean(ci.low) if ci else None,
                    "ci_high": _clean(ci.high) if ci else None,
                }
            )
        out[name] = rows
    return out


def method_text(game: str, resamples: int, units: str = "deals") -> dict[str, str]:
    """How the behaviour statistics and seat effects are computed (for the report)."""
    interval = (
        f"95% percentile bootstrap over {units} ({resamples} resamples, seeded by the tournament "
        "seed)"
        if resamples
        else "no interval (bootstrap off)"
    )
    return {
        "behaviour": (
            "counted from the stored records, each replayed through the rules engine; every "
            "statistic is a ratio of counts summed over the agent's episodes (events / "
            f"occasions); {interval}"
        ),
        "seat_effects": (
            "score by position relative to the dealer of each "
            f"{game_spec(game).round_word}: per deal the agent's mean at that "
            f"position, then a 95% Student t interval over {units}"
        ),
        "decision_times": (
            "wall-clock seconds of each agent's act() call, measured as the tournament ran and "
            "stored with each episode; pooled over decisions (median, 95th percentile); "
            "measured, so they differ between runs and are left out of every reproducibility check"
        ),
    }
