"""Making the Paston open-hand tables (``folkcards tables``): every deal solved, written to a file.

The format, the discard rule and what each entry holds are described in
:mod:`folkcards.envs.paston_bidding.tables`, which reads the files; this module solves the deals
with :mod:`folkcards.search.paston_solver` and writes them (resumable, in chunks, on local
worker processes or Ray).
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.paston.rules import NUM_SEATS, NUM_TRICKS, left_of, right_of
from ..envs.paston_bidding.tables import (
    ARRAY_NAMES,
    DEFAULT_CHUNK,
    DISCARD_RULE,
    MAGIC,
    NUM_DEFENCES,
    NUM_LEVELS,
    NUM_TRUMPS,
    RULES,
    TABLE_FORMAT,
    UNUSED,
    candidate_pairs,
    checksum,
    reachable_trumps,
    table_deal,
)
from .paston_solver import PastonSolver, Position

__all__ = ["generate", "solve_deal", "parts_dir"]

_ZLIB_LEVEL = 6


class _Solver:
    """A solver with a memo of first-lead positions (one deal's entries share many)."""

    def __init__(self) -> None:
        self.solver = PastonSolver(tt_bits=16)
        self.memo: dict[tuple[Any, ...], int] = {}

    def position(self, hands: list[int], trump: int, maximiser: int, active: list[int], lead: int):
        return Position(hands, trump, maximiser, active, leader=lead)

    def value(self, hands: list[int], trump: int, maximiser: int, active: list[int], lead: int):
        key = (tuple(hands), trump, maximiser, tuple(sorted(active)), lead)
        if key not in self.memo:
            self.memo[key] = self.solver.solve(self.position(hands, trump, maximiser, active, lead))
        return self.memo[key]

    def at_least(
        self, hands: list[int], trump: int, declarer: int, active: list[int], target: int
    ) -> bool:
        key = (tuple(hands), trump, declarer, tuple(sorted(active)), declarer)
        if key in self.memo:
            return self.memo[key] >= target
        return self.solver.can_make(self.position(hands, trump, declarer, active, declarer), target)


def _choose_discards(
    solver: _Solver, hands: list[int], prikup: int, declarer: int
) -> tuple[list[int], dict[int, list[int]]]:
    """The discard pair of each minimum level, and the playing hands of each chosen pair."""
    twelve = hands[declarer] | prikup
    candidates = candidate_pairs(twelve)
    everyone = [0, 1, 2]

    def playing(pair: int) -> list[int]:
        out = list(hands)
        out[declarer] = twelve & ~pair
        return out

    best = [0] * NUM_TRUMPS
    first = [0] * NUM_TRUMPS  # index of the first candidate reaching best[t]
    for trump in range(NUM_TRUMPS):
        best[trump] = solver.value(playing(candidates[0]), trump, declarer, everyone, declarer)
        for index in range(1, len(candidates)):
            play = playing(candidates[index])
            if best[trump] < NUM_TRICKS and solver.at_least(
                play, trump, declarer, everyone, best[trump] + 1
            ):
                best[trump] = solver.value(play, trump, declarer, everyone, declarer)
                first[trump] = index
    chosen = []
    for level in range(NUM_LEVELS):
        trumps = reachable_trumps(level)
        top = max(best[t] for t in trumps)
        chosen.append(candidates[min(first[t] for t in trumps if best[t] == top)])
    return chosen, {pair: playing(pair) for pair in set(chosen)}


def solve_deal(hands: list[int], prikup: int) -> tuple[np.ndarray, np.ndarray]:
    """One deal's ``discards`` (3, 5) and ``results`` (3, 5, 4, 3, 3) rows (see the layout)."""
    solver = _Solver()
    discards = np.zeros((NUM_SEATS, NUM_LEVELS), dtype=np.uint32)
    results = np.full((NUM_SEATS, NUM_LEVELS, NUM_TRUMPS, NUM_DEFENCES, 3), UNUSED, dtype=np.uint8)
    for declarer in range(NUM_SEATS):
        chosen, playing = _choose_discards(solver, hands, prikup, declarer)
        entries: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        for level, pair in enumerate(chosen):
            discards[declarer, level] = pair
            for trump in reachable_trumps(level):
                if (pair, trump) not in entries:
                    entries[(pair, trump)] = _entries(solver, playing[pair], trump, declarer)
                for defence, values in enumerate(entries[(pair, trump)]):
                    results[declarer, level, trump, defence] = values
    return discards, results


def _entries(
    solver: _Solver, hands: list[int], trump: int, declarer: int
) -> list[tuple[int, int, int]]:
    """(declarer tricks, left's guarantee, right's guarantee) of each defence."""
    left, right = left_of(declarer), right_of(declarer)
    both = [0, 1, 2]
    declarer_tricks = solver.value(hands, trump, declarer, both, declarer)
    g_left = solver.value(hands, trump, left, both, declarer)
    # as open_hand.credit_tricks: the right's guarantee is 0 when the left's covers the defence
    defence = NUM_TRICKS - declarer_tricks
    g_right = solver.value(hands, trump, right, both, declarer) if g_left < defence else 0
    alone_left = solver.value(hands, trump, declarer, [declarer, left], declarer)
    alone_right = solver.value(hands, trump, declarer, [declarer, right], declarer)
    return [
        (declarer_tricks, g_left, g_right),
        (alone_left, NUM_TRICKS - alone_left, UNUSED),
        (alone_right, UNUSED, NUM_TRICKS - alone_right),
    ]


def _solve_chunk(seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
    """Deals ``start`` to ``stop - 1`` of the table with ``seed``, as the layout's arrays."""
    n = stop - start
    out: dict[str, np.ndarray] = {
        "dealer": np.zeros(n, dtype=np.uint8),
        "hands": np.zeros((n, NUM_SEATS), dtype=np.uint32),
        "prikup": np.zeros(n, dtype=np.uint32),
        "discards": np.zeros((n, NUM_SEATS, NUM_LEVELS), dtype=np.uint32),
        "results": np.zeros(
            (n, NUM_SEATS, NUM_LEVELS, NUM_TRUMPS, NUM_DEFENCES, 3), dtype=np.uint8
        ),
    }
    for row, index in enumerate(range(start, stop)):
        dealer, hands, prikup = table_deal(seed, index)
        out["dealer"][row] = dealer
        out["hands"][row] = hands
        out["prikup"][row] = prikup
        out["discards"][row], out["results"][row] = solve_deal(hands, prikup)
    return out


def _encode(header: dict[str, Any], arrays: dict[str, np.ndarray]) -> bytes:
    blocks = []
    specs = []
    offset = 0
    for name in ARRAY_NAMES:
        array = np.ascontiguousarray(arrays[name])
        little = array.astype(array.dtype.newbyteorder("<"), copy=False)
        block = zlib.compress(little.tobytes(), _ZLIB_LEVEL)
        specs.append(
            {
                "name": name,
                "dtype": little.dtype.str,
                "shape": list(array.shape),
                "offset": offset,
                "length": len(block),
            }
        )
        blocks.append(block)
        offset += len(block)
    full = {**header, "arrays": specs, "sha256": checksum(arrays)}
    text = json.dumps(full, sort_keys=True, separators=(",", ":")).encode()
    return MAGIC + len(text).to_bytes(8, "little") + text + b"".join(blocks)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _header(seed: int, deals: int) -> dict[str, Any]:
    return {
        "format": TABLE_FORMAT,
        "rules": RULES,
        "generator": {
            "deals": deals,
            "seed": seed,
            "deal": "numpy.random.default_rng([seed, i]): dealer = integers(3), then random_deal",
            "discards": DISCARD_RULE,
            # the solver's module name when TABLE_FORMAT 1 was fixed: kept, so that a file's bytes
            # depend on the deals and the seed only
            "solver": "folkcards.envs.paston.solver (exact)",
        },
        "layout": {
            "results": "[deal, declarer, min_level, trump, defence(both,left,right), "
            "(declarer tricks, left guarantee, right guarantee)]",
            "unused": UNUSED,
        },
    }


def _check_int(value: Any, what: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an int, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{what} must be {bound}, got {value}")
    return int(value)


def parts_dir(out: Path) -> Path:
    """Where an unfinished run keeps its chunks and manifest (removed once the file is
    written)."""
    return out.with_name(out.name + ".parts")


def _chunk_path(parts: Path, k: int) -> Path:
    return parts / f"chunk_{k:07d}.npz"


def _run_local(
    todo: list[tuple[int, int, int]], seed: int, workers: int
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    if workers == 1:
        for k, a, b in todo:
            yield k, _solve_chunk(seed, a, b)
        return
    # a few chunks in flight per worker, so that an interruption stops at once (queued chunks
    # are cancelled, finished ones are already saved)
    pool = ProcessPoolExecutor(max_workers=workers)
    queue = iter(todo)
    pending: dict[Future[dict[str, np.ndarray]], int] = {}
    try:
        while True:
            while len(pending) < 2 * workers:
                item = next(queue, None)
                if item is None:
                    break
                k, a, b = item
                pending[pool.submit(_solve_chunk, seed, a, b)] = k
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ValueError(
            "--backend ray needs Ray, which is not installed: pip install 'folkcards[rllib]'"
        ) from None
    return ray


def _run_ray(
    todo: list[tuple[int, int, int]], seed: int, address: str | None
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    ray = _import_ray()
    if not ray.is_initialized():
        os.environ.setdefault("RAY_worker_niceness", "0")
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(num_cpus=1, max_retries=3)(_solve_chunk)
    pending = {remote.remote(seed, a, b): k for k, a, b in todo}
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            yield pending.pop(done[0]), ray.get(done[0])
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def generate(
    out: str | os.PathLike[str],
    deals: int,
    seed: int,
    *,
    workers: int = 1,
    backend: str = "local",
    chunk: int = DEFAULT_CHUNK,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Solve ``deals`` deals into the table file ``out`` (see the module docstring).

    Resumable: finished chunks are kept in ``out + ".parts"`` with a manifest, and the same call
    after an interruption solves only the missing ones. The file's bytes depend only on
    ``deals`` and ``seed``, not on ``workers``, ``backend`` or ``chunk``. ``progress(done,
    total)`` is called after each chunk (in deals).
    """
    deals = _check_int(deals, "deals", 1)
    seed = _check_int(seed, "seed", 0, 2**63 - 1)
    workers = _check_int(workers, "workers", 1, 1024)
    chunk = _check_int(chunk, "chunk", 1, 1_000_000)
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if backend == "ray":
        _import_ray()  # a missing Ray is refused before anything is written
    out = Path(out)
    if not out.parent.is_dir():
        raise ValueError(f"the folder of {out} does not exist")
    header = _header(seed, deals)
    parts = parts_dir(out)
    manifest = parts / "manifest.json"
    if parts.exists():
        try:
            previous = json.loads(manifest.read_text())
        except (OSError, ValueError):
            previous = None
        if previous != {**header, "chunk": chunk}:
            raise ValueError(
                f"{parts} holds an unfinished run with other parameters; delete it or repeat "
                f"that run's command"
            )
    else:
        parts.mkdir()
        manifest.write_text(json.dumps({**header, "chunk": chunk}, sort_keys=True, indent=1))
    ranges = [(k, a, min(a + chunk, deals)) for k, a in enumerate(range(0, deals, chunk))]
    todo = [(k, a, b) for k, a, b in ranges if not _chunk_path(parts, k).exists()]
    done = deals - sum(b - a for _, a, b in todo)
    if progress:
        progress(done, deals)
    runner = _run_ray(todo, seed, address) if backend == "ray" else _run_local(todo, seed, workers)
    for k, arrays in runner:
        path = _chunk_path(parts, k)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
        done += ranges[k][2] - ranges[k][1]
        if progress:
            progress(done, deals)
    pieces: dict[str, list[np.ndarray]] = {name: [] for name in ARRAY_NAMES}
    for k, _, _ in ranges:
        with np.load(_chunk_path(parts, k)) as chunk_arrays:
            for name in ARRAY_NAMES:
                pieces[name].append(chunk_arrays[name])
    arrays = {name: np.concatenate(pieces[name]) for name in ARRAY_NAMES}
    _write_atomic(out, _encode(header, arrays))
    for k, _, _ in ranges:
        _chunk_path(parts, k).unlink()
    manifest.unlink()
    parts.rmdir()
    return out
