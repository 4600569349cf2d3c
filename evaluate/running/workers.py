"""Where a tournament's units are played: in this process, in a pool of worker processes, or as
Ray tasks (:mod:`.ray_backend`). Every backend yields the same units (:mod:`.units`)."""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from ..config import TournamentConfig
from ..scoring import make_runner
from .processes import check_main_is_importable
from .units import PlayedUnit, play_unit

BACKENDS = ("local", "ray")

_WORKER: dict[str, Any] = {}


def _watch_parent(parent: int) -> None:
    # A pool worker whose parent was killed (kill -9) would wait forever on its task queue.
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _init_worker(config: TournamentConfig, parent: int) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _WORKER["config"] = config
    _WORKER["runner"] = make_runner(config.game, config.mode, config.num_players)


def _work(key: tuple[int, int, int]) -> PlayedUnit:
    return play_unit(_WORKER["config"], _WORKER["runner"], key)


def check_backend(backend: str) -> None:
    """``ValueError`` for an unknown backend; the one-line Ray message when Ray is missing."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "ray":
        from .ray_backend import require_ray

        require_ray("--backend ray")


def local_results(
    config: TournamentConfig, keys: Sequence[tuple[int, int, int]], workers: int
) -> Iterable[PlayedUnit]:
    """Finished units of ``keys`` played here (``workers`` <= 1) or by ``workers`` spawned
    processes (in any order)."""
    if workers <= 1 or len(keys) <= 1:
        runner = make_runner(config.game, config.mode, config.num_players)
        for key in keys:
            yield play_unit(config, runner, key)
        return
    check_main_is_importable()
    ctx = mp.get_context("spawn")
    workers = min(workers, len(keys))
    chunk = max(1, min(8, len(keys) // (workers * 16)))
    pool = ctx.Pool(workers, initializer=_init_worker, initargs=(config, os.getpid()))
    try:
        yield from pool.imap_unordered(_work, keys, chunksize=chunk)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def unit_results(
    config: TournamentConfig,
    keys: Sequence[tuple[int, int, int]],
    workers: int,
    backend: str = "local",
    address: str | None = None,
) -> Iterable[PlayedUnit]:
    """Finished units, as they finish (in any order when parallel), from ``backend``."""
    if backend == "ray":  # Ray tasks on a local Ray or a cluster
        from .ray_backend import ray_results

        return ray_results(config, keys, address)
    return local_results(config, keys, workers)


__all__ = ["BACKENDS", "check_backend", "local_results", "unit_results"]
