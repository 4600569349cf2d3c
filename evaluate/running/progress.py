"""Progress of long work: a rich bar on a terminal, else a log line every few seconds.

A tournament, behaviour cloning's collection and other long loops use :func:`progress`; off a
terminal (a log file, CI, ``nohup``) the bar would print nothing useful, so one line is logged
every ``every`` seconds instead (and at the end)::

    paston: 120/1,800 episodes (7%), 3.1 episodes/s, about 9.0 min left
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

LOG_EVERY = 10.0  # seconds between progress lines off a terminal


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


class ProgressLines:
    """``advance(n)`` logs ``what: done/total units (p%), rate, time left`` at most every
    ``every`` seconds (0: every call), and always when the work is done."""

    def __init__(
        self,
        what: str,
        total: int,
        unit: str,
        log: Callable[[str], None],
        every: float = LOG_EVERY,
        done: int = 0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.what, self.total, self.unit, self.log, self.every = what, total, unit, log, every
        self.start_done = self.done = done
        self.clock = clock
        self.started = self.last = clock()

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        if now - self.last < self.every and self.done < self.total:
            return
        self.last = now
        rate = (self.done - self.start_done) / max(now - self.started, 1e-9)
        left = (self.total - self.done) / rate if rate > 0 else math.inf
        share = self.done / self.total if self.total else 1.0
        tail = f", about {_duration(left)} left" if self.done < self.total else ""
        self.log(
            f"{self.what}: {self.done:,}/{self.total:,} {self.unit} ({share:.0%}), "
            f"{rate:,.1f} {self.unit}/s{tail}"
        )


@contextlib.contextmanager
def progress(
    what: str,
    total: int,
    unit: str,
    enabled: bool = True,
    log: Callable[[str], None] | None = None,
    every: float = LOG_EVERY,
    done: int = 0,
) -> Iterator[Callable[[int], None]]:
    """``with progress(...) as advance: ... advance(1)``: a bar when stderr is a terminal, log
    lines (to ``log``, default stderr) otherwise, nothing when not ``enabled``."""
    if not enabled:

        def nothing(n: int = 1) -> None:
            pass

        yield nothing
        return
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        columns: list[Any] = [
            TextColumn(f"[bold]{what}[/] {unit}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
        ]
        with Progress(*columns, console=console, transient=False) as bar:
            task = bar.add_task(unit, total=total, completed=done)

            def advance(n: int = 1) -> None:
                bar.advance(task, n)

            yield advance
        return
    lines = ProgressLines(
        what, total, unit, log or (lambda t: print(t, file=sys.stderr, flush=True)), every, done
    )
    yield lines.advance


__all__ = ["LOG_EVERY", "ProgressLines", "progress"]
