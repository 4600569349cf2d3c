"""How numbers of a tournament's results are written, in the terminal and in ``report.md``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def signed(x: float | None, digits: int = 2) -> str:
    """``+1.25`` / ``-0.50`` / ``0.00`` (no ``-0.00``); ``—`` for ``None``."""
    if x is None:
        return "—"
    x = round(x, digits) + 0.0
    return f"{x:+.{digits}f}" if x else f"{0:.{digits}f}"


def plain(x: float | None, digits: int = 2) -> str:
    """``1.25`` (no sign); ``—`` for ``None``."""
    return "—" if x is None else f"{round(x, digits) + 0.0:.{digits}f}"


def num(x: float | None, digits: int = 2, sign: bool = False) -> str:
    """``plain`` or, with ``sign``, ``signed`` (but ``0.00`` unsigned)."""
    if x is None:
        return "—"
    x = round(x, digits) + 0.0
    return f"{x:+.{digits}f}" if sign and x else f"{x:.{digits}f}"


def interval(low: float | None, high: float | None, digits: int, sign: bool) -> str:
    """``[low, high]`` with :func:`num`."""
    return f"[{num(low, digits, sign)}, {num(high, digits, sign)}]"


def estimate(
    mean: float | None, low: float | None, high: float | None, digits: int = 2, sign: bool = True
) -> str:
    """``+1.25 [+0.50, +2.00]`` with :func:`num`; the mean alone without an interval, ``—``
    without a mean."""
    if mean is None:
        return "—"
    if low is None or high is None:
        return num(mean, digits, sign)
    return f"{num(mean, digits, sign)} {interval(low, high, digits, sign)}"


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: int = 1) -> list[str]:
    """A Markdown table; columns from ``right`` on are right-aligned."""

    def cell(text: str) -> str:
        return str(text).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "|".join("---:" if i >= right else "---" for i in range(len(header))) + "|")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def format_stat(row: dict[str, Any], interval: bool = True) -> str:
    """A behaviour statistic as text: ``42.0% [38.1, 46.0]`` (a rate) or ``5.31 [5.02, 5.60]``."""
    value = row.get("value")
    if value is None:
        return "—"
    rate = row.get("kind") == "rate"
    scale, digits = (100.0, 1) if rate else (1.0, 2)
    text = f"{round(value * scale, digits) + 0.0:.{digits}f}" + ("%" if rate else "")
    low, high = row.get("ci_low"), row.get("ci_high")
    if interval and low is not None and high is not None:
        text += f" [{round(low * scale, digits) + 0.0:.{digits}f}, {round(high * scale, digits) + 0.0:.{digits}f}]"
    return text


def format_seconds(x: float | None) -> str:
    """Seconds as ``12.3 µs`` / ``4.56 ms`` / ``1.23 s``; ``not recorded`` for ``None``."""
    if x is None:
        return "not recorded"
    if x < 1e-3:
        return f"{x * 1e6:.1f} µs"
    if x < 1.0:
        return f"{x * 1e3:.2f} ms"
    return f"{x:.2f} s"


def score_digits(results: dict[str, Any]) -> int:
    """Digits of a score: 2 for scores that grow (table points), 3 for those that shrink (sticks)."""
    return 2 if results["higher_is_better"] else 3


__all__ = [
    "format_seconds",
    "format_stat",
    "interval",
    "md_table",
    "num",
    "plain",
    "score_digits",
    "signed",
]
