"""Head to head: for every pair of agents the mean paired difference A - B at shared tables, with
its t interval over deals; ``results["head_to_head"]``, ``head_to_head.csv``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..formatting import interval, md_table, num, score_digits, signed
from . import intervals as st
from .base import CsvTable, Results, Statistic, StatisticInput
from .scores import clean, seat_values

COLUMNS = ["a", "b", "deals", "mean_diff", "ci_low", "ci_high"]


@dataclass(frozen=True)
class PairDifference:
    """A - B for one pair of agents (``results["head_to_head"]`` row)."""

    a: str
    b: str
    difference: st.Interval

    def as_dict(self) -> dict[str, Any]:
        ci = self.difference
        return {
            "a": self.a,
            "b": self.b,
            "deals": ci.n,
            "mean_diff": clean(ci.mean),
            "ci_low": clean(ci.low),
            "ci_high": clean(ci.high),
        }


def differences(inp: StatisticInput) -> list[PairDifference]:
    observations = [(u["deal"], seat_values(u, "score")) for u in inp.units]
    return [
        PairDifference(a, b, ci) for (a, b), ci in st.head_to_head(observations, inp.names).items()
    ]


def compute(inp: StatisticInput) -> list[dict[str, Any]]:
    return [pair.as_dict() for pair in differences(inp)]


def method(inp: StatisticInput) -> dict[str, str]:
    unit, units, metric = inp.config.unit_name, inp.config.unit_plural, inp.runner.metric
    return {
        "head_to_head": (
            f"mean paired difference A - B of {metric} over the units where both sat at the "
            f"same table, averaged per {unit}, with a 95% t interval over {units}"
        )
    }


def verdict(pair: dict[str, Any], higher_is_better: bool) -> str:
    """Which of A and B the interval of A − B favours, if any."""
    low, high = pair["ci_low"], pair["ci_high"]
    if low is None or high is None:
        return ""
    a_better = (low > 0) if higher_is_better else (high < 0)
    b_better = (high < 0) if higher_is_better else (low > 0)
    if a_better:
        return f"{pair['a']} better"
    return f"{pair['b']} better" if b_better else "no clear difference"


def console(results: Results) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    digits = score_digits(results)
    h2h = Table(
        title=f"head to head: mean paired difference A − B of {results['metric']} at shared tables",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    h2h.add_column("A", no_wrap=True)
    h2h.add_column("B", no_wrap=True)
    h2h.add_column(results["unit_plural"], justify="right")
    h2h.add_column("A − B", justify="right")
    h2h.add_column("95% CI", justify="right", no_wrap=True)
    h2h.add_column("", justify="left")
    for pair in results["head_to_head"]:
        h2h.add_row(
            escape(pair["a"]),
            escape(pair["b"]),
            str(pair["deals"]),
            signed(pair["mean_diff"], digits),
            f"[{signed(pair['ci_low'], digits)}, {signed(pair['ci_high'], digits)}]",
            escape(verdict(pair, results["higher_is_better"])),
        )
    return h2h


def section(results: Results) -> list[str]:
    """The cross-table: row minus column."""
    digits = score_digits(results)
    names = [a["name"] for a in results["agents"]]
    pairs = {(p["a"], p["b"]): p for p in results["head_to_head"]}
    rows = []
    for a in names:
        row = [a]
        for b in names:
            if a == b:
                row.append("·")
                continue
            p = pairs.get((a, b))
            sign = 1.0
            if p is None:
                p, sign = pairs.get((b, a)), -1.0
            if p is None or p["mean_diff"] is None:
                row.append("—")
                continue
            lo, hi = p["ci_low"], p["ci_high"]
            if sign < 0:
                lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
            row.append(
                f"{num(sign * p['mean_diff'], digits, True)} {interval(lo, hi, digits, True)}"
            )
        rows.append(row)
    return [
        f"Row minus column: mean paired difference of {results['metric']} at shared tables, "
        f"averaged per {results['unit']}, 95% t interval over {results['unit_plural']}.",
        "",
        *md_table(["A \\ B", *names], rows, right=1),
    ]


HEAD_TO_HEAD = Statistic(
    key="head_to_head",
    compute=compute,
    method=method,
    csv=(
        CsvTable(
            "head_to_head.csv",
            lambda _: COLUMNS,
            lambda results: ([p[c] for c in COLUMNS] for p in results["head_to_head"]),
        ),
    ),
    console=console,
    sections=(("Head to head", section),),
)

__all__ = ["HEAD_TO_HEAD", "PairDifference", "differences", "verdict"]
