"""Open-hand accuracy of each agent's play (games with an ``open_hand_analysis`` piece: Paston);
``results["open_hand"]``, ``open_hand.csv``, a section of ``report.md``.

Every played deal is replayed with the open-hand solver (Paston's :mod:`.paston_open_hand_analysis`):
the tricks each card lost against the best card for its side, as declarer and as defender, per
deal with a Student t interval over deals, and how often the contract played was beaten
open-handed by a higher contract the auction allowed, or by a surrender. A diagnostic beside the
duplicate score: the solver sees every card, the players did not.

Where: the worker that plays a unit analyses it (:func:`unit_summary`, the statistic's
``per_unit`` hook) and the summary is stored with the unit, so the analysis runs in parallel
with the games and the driver only adds up; a unit stored without it (an older database, or a
run with ``--no-open-hand`` later reported by ``folkcards report --db``) is analysed from its
record when the results are computed: the same numbers either way.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from folkcards.envs.registry import game_spec

from ..config import TournamentConfig
from ..formatting import interval, md_table, num
from .base import CsvTable, Results, Statistic, StatisticInput
from .intervals import mean_ci

ROLES = ("declarer", "defender")
COLUMNS = [
    "agent",
    "role",
    "deals",
    "card_decisions",
    "tricks_lost",
    "ci_low",
    "ci_high",
    "score_lost",
]
NOTE = (
    "open-hand accuracy: every played deal replayed with the open-hand solver; at each card "
    "with a choice, the tricks (and the declarer's table points) the card lost against the best "
    "card for its side with every hand visible and best play after; per agent and role, the "
    "mean per deal it played in that role, averaged over its seatings of the deal first, with a "
    "Student t interval over deals. Contracts: the share of the agent's played contracts that "
    "fail open-handed, and that a higher contract the auction allowed, or a surrender, would "
    "have beaten open-handed (same hands after the discards, same defence). A diagnostic beside "
    "the duplicate score: a player who cannot see the cards is not wrong to lose a trick the "
    "solver keeps."
)

OFF_NOTE = (
    "open-hand accuracy: turned off for this run (--no-open-hand, or open_hand: false); "
    "`folkcards report --db FILE` computes it from the stored records"
)


def _finite(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def unit_summary(config: TournamentConfig, record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The open-hand analysis of one unit's record, as stored with the unit (the worker that
    played it computes it): per deal that reached the play, the declarer seat, the contract
    check and, per seat, ``[tricks lost, points lost, card decisions]``. ``None`` when the game
    has no analysis or the run turned it off."""
    spec = game_spec(config.game)
    if not config.open_hand or not spec.has("open_hand_analysis"):
        return None
    out = []
    for analysis in spec.piece("open_hand_analysis")(record):
        check = analysis.contract
        if check is None:
            continue
        seats: list[list[int]] = [[0, 0, 0] for _ in range(config.seats)]
        for d in analysis.decisions:
            seats[d.seat][0] += d.tricks_lost
            seats[d.seat][1] += d.score_lost
            seats[d.seat][2] += 1
        out.append(
            {
                "declarer": check.declarer,
                "score": check.open_hand_score,
                "higher_better": check.higher_better,
                "surrender_better": check.surrender_better,
                "seats": seats,
            }
        )
    return out


def compute(inp: StatisticInput) -> dict[str, Any] | None:
    spec = game_spec(inp.config.game)
    if not spec.has("open_hand_analysis") or not inp.config.open_hand:
        return None
    return accuracy(inp.config, inp.units_with_records(), inp.names)


def accuracy(
    config: TournamentConfig, units: Iterable[dict[str, Any]], names: Sequence[str]
) -> dict[str, Any]:
    """Per name in ``names``: tricks lost per deal as declarer and as defender (a Student t
    interval over deals; a deal's value is the mean over the units that play it, so units of
    several tournaments on the same deals pool by deal) and the contract checks. ``units``
    carry their records (and ``statistics`` where the worker stored the analysis)."""
    # agent -> role -> deal -> [tricks lost, points lost, decisions] per unit played in the role
    lost: dict[str, dict[str, dict[int, list[tuple[int, int, int]]]]] = defaultdict(
        lambda: {role: defaultdict(list) for role in ROLES}
    )
    contracts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for unit in units:
        summary = unit.get("statistics", {}).get("open_hand")
        if summary is None:  # stored before the workers analysed (or with the analysis off)
            summary = unit_summary(config, unit["record"]) or []
        for deal in summary:
            declarer = deal["declarer"]
            for seat, name in enumerate(unit["seats"]):
                tricks, points, decisions = deal["seats"][seat]
                if seat == declarer:
                    role = "declarer"
                    tally = contracts[name]
                    tally[0] += 1
                    tally[1] += deal["score"] < 0
                    tally[2] += deal["higher_better"]
                    tally[3] += deal["surrender_better"]
                elif decisions:
                    role = "defender"
                else:
                    continue  # the passer, out of the play
                lost[name][role][unit["deal"]].append((tricks, points, decisions))
    out: dict[str, Any] = {}
    for name in names:
        rows: dict[str, Any] = {}
        for role in ROLES:
            per_deal = lost[name][role] if name in lost else {}
            tricks = [sum(x[0] for x in v) / len(v) for v in per_deal.values()]
            points = [sum(x[1] for x in v) / len(v) for v in per_deal.values()]
            ci = mean_ci(tricks)
            rows[role] = {
                "deals": len(per_deal),
                "card_decisions": sum(x[2] for v in per_deal.values() for x in v),
                "tricks_lost": _finite(ci.mean),
                "ci_low": _finite(ci.low),
                "ci_high": _finite(ci.high),
                "score_lost": _finite(sum(points) / len(points)) if points else None,
            }
        played, fail, higher, surrender = contracts.get(name, [0, 0, 0, 0])
        rows["contracts"] = {
            "played": played,
            "fail_open_hand": fail / played if played else None,
            "higher_better": higher / played if played else None,
            "surrender_better": surrender / played if played else None,
        }
        out[name] = rows
    return out


def method(inp: StatisticInput) -> dict[str, str]:
    if not game_spec(inp.config.game).has("open_hand_analysis"):
        return {}
    return {"open_hand": NOTE if inp.config.open_hand else OFF_NOTE}


def _rows(results: Results) -> list[list[Any]]:
    data = results.get("open_hand") or {}
    return [
        [name, role, *(data[name][role][c] for c in COLUMNS[2:])] for name in data for role in ROLES
    ]


def _share(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def section(results: Results) -> list[str]:
    data = results.get("open_hand") or {}
    if not data:
        return ["Not available."]
    rows = []
    for name, by_role in data.items():
        cells = [name]
        for role in ROLES:
            r = by_role[role]
            cells.append(
                "—"
                if r["tricks_lost"] is None
                else f"{num(r['tricks_lost'], 2)} {interval(r['ci_low'], r['ci_high'], 2, False)}"
                f" ({r['deals']} deals)"
            )
        c = by_role["contracts"]
        cells += [str(c["played"]), _share(c["fail_open_hand"]), _share(c["higher_better"]),
                  _share(c["surrender_better"])]  # fmt: skip
        rows.append(cells)
    header = [
        "agent",
        "tricks lost per deal as declarer",
        "as defender",
        "contracts played",
        "fail open-handed",
        "higher contract better",
        "surrender better",
    ]
    return [
        "Tricks each agent's cards lost against open-hand (double-dummy) play, per deal played "
        "in the role, 95% t interval over deals; its contracts checked open-handed. "
        "**What this measures:** the solver sees every card, the players did not, so a defender "
        "who loses a trick the solver keeps may have played well for what it could know, and a "
        "contract that fails open-handed may still have been the right bid. It is a diagnostic "
        "beside the duplicate score, never a replacement for it.",
        "",
        *md_table(header, rows),
    ]


OPEN_HAND = Statistic(
    key="open_hand",
    compute=compute,
    method=method,
    csv=(CsvTable("open_hand.csv", lambda _: COLUMNS, _rows),),
    sections=(("Open-hand accuracy", section),),
    per_unit=unit_summary,
)
