"""Tournaments on Ray: the units played as Ray tasks, stored by the driver.

``folkcards tournament … --backend ray [--address HOST:PORT]`` (or ``run(config,
backend="ray", address=…)`` in :mod:`.runner`, through :mod:`.workers`). The driver keeps the
SQLite database (:mod:`..storage.database`) as the local backend does; the cluster only plays:

- the pending units are cut into chunks of a few units, one Ray task each
  (:func:`play_units`, the local backend's :func:`~folkcards.evaluate.running.units.play_unit` for
  every key), with a bounded number of tasks in flight;
- a finished task's units are returned to the driver and committed there one by one, as
  the local backend commits them; a unit's result depends only on the config and its key (its
  seeds come from them), so the stored results are identical to the local backend's;
- a task whose worker dies (killed, out of memory, node lost) is retried by Ray
  (``max_retries``); it returns nothing before it finishes, so a retry neither loses a unit nor
  stores one twice (the database's primary key would refuse a second copy anyway);
- an interrupted driver leaves only whole committed units: rerunning the same command resumes.

Ray is optional (``pip install 'folkcards[rllib]'``); :func:`require_ray` gives the one-line
message when it is missing. Agents used on a cluster must be loadable on every node: an agent
spec with a path (``ppo:PATH``, ``rllib:RUN_DIR``) needs that path on each node (a shared
filesystem), as any Ray job does.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..config import TournamentConfig

if TYPE_CHECKING:
    from .units import PlayedUnit

MAX_RETRIES = 3
_RUNNERS: dict[tuple[str, str, int], Any] = {}


class RayMissingError(RuntimeError):
    """Ray is asked for but not installed."""


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


def require_ray(feature: str) -> None:
    """``RayMissingError`` with one line if Ray is not installed."""
    if not ray_available():
        raise RayMissingError(
            f"{feature} needs Ray, which is not installed: pip install 'folkcards[rllib]'"
        )


def init_ray(address: str | None = None, num_cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address`` (or ``RAY_ADDRESS``), else start a local Ray;
    nothing if Ray is already initialised in this process."""
    require_ray("the Ray backend")
    import ray

    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address:
        ray.init(address=address, **kwargs)
    else:
        # a local Ray's workers do all the work: not Ray's default niceness 15, which starves
        # them on a machine shared with other jobs (RAY_worker_niceness overrides)
        os.environ.setdefault("RAY_worker_niceness", "0")
        ray.init(num_cpus=num_cpus, **kwargs)


def play_units(config: TournamentConfig, keys: Sequence[tuple[int, int, int]]) -> list[PlayedUnit]:
    """Play the units ``keys`` of a tournament (one Ray task; also callable directly)."""
    from ..scoring import make_runner
    from .units import play_unit

    cache_key = (config.game, config.mode, config.num_players)
    if cache_key not in _RUNNERS:
        _RUNNERS[cache_key] = make_runner(*cache_key)
    return [play_unit(config, _RUNNERS[cache_key], (key[0], key[1], key[2])) for key in keys]


def chunks(keys: Sequence[Any], size: int) -> list[list[Any]]:
    return [list(keys[i : i + size]) for i in range(0, len(keys), size)]


def ray_results(
    config: TournamentConfig,
    keys: Sequence[tuple[int, int, int]],
    address: str | None = None,
    chunk: int | None = None,
    task: Callable[..., list[PlayedUnit]] | None = None,
    max_retries: int = MAX_RETRIES,
) -> Iterator[PlayedUnit]:
    """Finished units of ``keys``, as their Ray tasks finish (in any order).

    ``chunk``: units per task (default: about 16 tasks per CPU, at most 8 units each);
    ``task``: the function a task runs, ``task(config, keys) -> units`` (default
    :func:`play_units`; tests inject faults).
    """
    if not keys:
        return
    init_ray(address)
    import ray

    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = chunk or max(1, min(8, len(keys) // (cpus * 16)))
    remote = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(
        task or play_units
    )
    config_ref = ray.put(config)
    todo = chunks(keys, size)
    todo.reverse()
    in_flight: list[Any] = []
    try:
        while todo or in_flight:
            while todo and len(in_flight) < 2 * cpus:
                in_flight.append(remote.remote(config_ref, todo.pop()))
            done, in_flight = ray.wait(in_flight, num_returns=1)
            yield from ray.get(done[0])
    finally:
        for ref in in_flight:  # an interrupted driver: cancel what is still queued or running
            ray.cancel(ref, force=True)


__all__ = [
    "MAX_RETRIES",
    "RayMissingError",
    "chunks",
    "init_ray",
    "play_units",
    "ray_available",
    "ray_results",
    "require_ray",
]
