"""Seeded chunks of collected data, played in one process or several.

A collection is split into chunks, each seeded by its own index and stored whole when done, so
a stopped run resumes at its first missing chunk and any number of processes stores the same
data. :func:`play_chunks` runs the missing ones.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def play_chunks(
    store: Callable[[Any], None], jobs: Sequence[Any], workers: int, advance: Callable[[int], None]
) -> None:
    """``store(job)`` for every job (a picklable top-level function for ``workers`` > 1), in
    ``workers`` spawned processes, calling ``advance(1)`` as each finishes."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            store(job)
            advance(1)
        return
    context = mp.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context) as pool:
        for _ in pool.map(store, jobs):
            advance(1)
