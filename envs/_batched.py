"""Shared pieces of the batched engines (``paston/batched.py``, ``tri_palki/batched.py``).

- A per-game random generator in compiled code: xoshiro256** (Blackman and Vigna), four
  ``uint64`` words of state per game, game ``i`` seeded with words ``4i .. 4i+3`` of
  ``numpy.random.SeedSequence(seed).generate_state``. So game ``i``'s deals depend only on the
  seed, ``i`` and the actions taken in it: not on the number of games, the threads or the other
  games.
- Checks of the ``actions`` array given to ``step`` (shape, integer type, range).
- :class:`FinalInfos`: the ``infos`` mapping returned by ``step``, built lazily (a dict per
  finished game is made only when it is read, so unread infos cost nothing).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numba import njit

from .compile_notice import install as _announce_compiles

_U64 = np.uint64


@njit(cache=True)
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << _U64(k)) | (x >> _U64(64 - k))


@njit(cache=True)
def rng_next(rng: np.ndarray, i: int) -> np.uint64:
    """The next 64 random bits of game ``i``'s xoshiro256** stream (``rng`` is ``(N, 4)`` uint64)."""
    s0 = rng[i, 0]
    s1 = rng[i, 1]
    s2 = rng[i, 2]
    s3 = rng[i, 3]
    result = _rotl(s1 * _U64(5), 7) * _U64(9)
    t = s1 << _U64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    rng[i, 0] = s0
    rng[i, 1] = s1
    rng[i, 2] = s2
    rng[i, 3] = s3
    return result


@njit(cache=True)
def rng_below(rng: np.ndarray, i: int, bound: int) -> int:
    """A uniform integer in ``[0, bound)`` (``bound`` ≤ 2**32), unbiased by rejection."""
    b = _U64(bound)
    limit = (_U64(1) << _U64(32)) // b * b
    while True:
        r = rng_next(rng, i) >> _U64(32)
        if r < limit:
            return int(r % b)


@njit(cache=True)
def rng_shuffle(rng: np.ndarray, i: int, deck: np.ndarray) -> None:
    """Fisher–Yates: ``deck`` (one row, any int type) becomes a uniform permutation of itself."""
    for j in range(deck.shape[0] - 1, 0, -1):
        k = rng_below(rng, i, j + 1)
        tmp = deck[j]
        deck[j] = deck[k]
        deck[k] = tmp


@njit(cache=True, nogil=True)
def _random_legal_range(
    lo: int, hi: int, mask: np.ndarray, rng: np.ndarray, out: np.ndarray
) -> None:
    for i in range(lo, hi):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[i, a]
        pick = rng_below(rng, i, count)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


def random_legal_actions(mask: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: a uniformly random legal action of ``mask[i]``, drawn from ``rng[i]`` (for
    random play and benchmarks; ``rng`` as from :func:`seed_states`, ``out`` int64)."""
    run_in_chunks(_random_legal_range, mask.shape[0], mask, rng, out)


def seed_states(seed: int | None, num_envs: int) -> np.ndarray:
    """``(num_envs, 4)`` uint64 xoshiro256** states: game ``i`` gets words ``4i .. 4i+3`` of
    ``SeedSequence(seed).generate_state`` (a prefix of the same stream for any ``num_envs``).

    ``seed=None`` draws fresh entropy from the operating system.
    """
    if seed is not None and (
        isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    root = np.random.SeedSequence(None if seed is None else int(seed))
    states = root.generate_state(4 * num_envs, np.uint64).reshape(num_envs, 4)
    states[~states.any(axis=1), 0] = 1  # xoshiro's one forbidden state; astronomically unlikely
    return states


PARALLEL_FROM = 64
"""Batches of at least this many games are split across threads (the kernels release the GIL)."""
THREADS = max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 8))
_pool: ThreadPoolExecutor | None = None


def run_in_chunks(kernel: Callable[..., None], num_envs: int, *args: Any) -> None:
    """``kernel(lo, hi, *args)`` over ``[0, num_envs)``: in the calling thread for small batches,
    else in :data:`THREADS` contiguous chunks at once (one in the calling thread)."""
    global _pool
    if num_envs < PARALLEL_FROM or THREADS == 1:
        kernel(0, num_envs, *args)
        return
    if _pool is None:
        _pool = ThreadPoolExecutor(THREADS - 1, thread_name_prefix="folkcards-batched")
    bounds = [num_envs * k // THREADS for k in range(THREADS + 1)]
    futures = [_pool.submit(kernel, bounds[k], bounds[k + 1], *args) for k in range(1, THREADS)]
    kernel(bounds[0], bounds[1], *args)
    for future in futures:
        future.result()


def check_reward_scale(reward_scale: Any) -> float:
    """``reward_scale`` as a float if it is a positive finite number; else ``ValueError``."""
    if (
        isinstance(reward_scale, (bool, np.bool_))
        or not isinstance(reward_scale, (int, float, np.number))
        or not np.isfinite(reward_scale)
        or reward_scale <= 0
    ):
        raise ValueError(f"reward_scale must be a positive finite number, got {reward_scale!r}")
    return float(reward_scale)


def check_num_envs(num_envs: Any) -> int:
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    if num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs}")
    return int(num_envs)


def check_actions(
    actions: Any, num_envs: int, num_actions: int, active: np.ndarray | None = None
) -> np.ndarray:
    """``actions`` as a contiguous int64 ``(num_envs,)`` array; ``ValueError`` naming the game
    index of the first bad entry otherwise (only games where ``active`` is True are checked)."""
    array = np.asarray(actions)
    if array.shape != (num_envs,):
        raise ValueError(f"actions must have shape ({num_envs},), got {array.shape}")
    if array.dtype.kind not in "iu":
        if (
            array.dtype.kind == "f"
            and np.all(np.isfinite(array))
            and np.all(array == np.round(array))
        ):
            array = array.astype(np.int64)
        else:
            raise ValueError(f"actions must be integers, got dtype {array.dtype}")
    array = np.ascontiguousarray(array, dtype=np.int64)
    out_of_range = (array < 0) | (array >= num_actions)
    if active is not None:
        out_of_range &= active
    if out_of_range.any():
        i = int(np.argmax(out_of_range))
        raise ValueError(
            f"game {i}: action {int(array[i])} is not an action id (0..{num_actions - 1})"
        )
    return array


def option_list(options: Mapping[str, Any], key: str, num_envs: int) -> list[Any] | None:
    """``options[key]`` as a list of ``num_envs`` entries (``None`` if absent)."""
    value = options.get(key)
    if value is None:
        return None
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        raise ValueError(f"option {key!r} must be a list of {num_envs} entries, got {value!r}")
    if len(value) != num_envs:
        raise ValueError(
            f"option {key!r} must hold {num_envs} entries (one per game), got {len(value)}"
        )
    return list(value)


class FinalInfos(Mapping[int, dict[str, dict[str, Any]]]):
    """``{game index: {agent: final info}}`` for the games that finished in one ``step``.

    The per-seat dicts are the AEC env's final ``infos[agent]``; each game's dict is built on
    first access from a snapshot taken when the game finished.
    """

    def __init__(self, indices: np.ndarray, build: Callable[[int], dict[str, dict[str, Any]]]):
        self._indices = [int(i) for i in indices]
        self._position = {game: k for k, game in enumerate(self._indices)}
        self._build = build
        self._cache: dict[int, dict[str, dict[str, Any]]] = {}

    def __getitem__(self, game: int) -> dict[str, dict[str, Any]]:
        if game not in self._cache:
            if game not in self._position:
                raise KeyError(game)
            self._cache[game] = self._build(self._position[game])
        return self._cache[game]

    def __iter__(self) -> Iterator[int]:
        return iter(self._indices)

    def __len__(self) -> int:
        return len(self._indices)

    def __repr__(self) -> str:
        return f"FinalInfos(games={self._indices})"


StepResult = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, FinalInfos
]


class VectorEnvBase:
    """What both batched engines share: the output buffers, the per-game reset options, the
    check of ``step``'s actions and the memory figures. A game sets :attr:`option_keys` and
    implements ``_parse_entry`` and ``_state_arrays``."""

    num_envs: int
    num_players: int
    obs_dim: int
    num_actions: int
    option_keys: tuple[str, ...] = ()

    def _setup_outputs(self) -> None:
        N = self.num_envs
        self._obs = np.zeros((N, self.obs_dim), dtype=np.float32)
        self._mask = np.zeros((N, self.num_actions), dtype=np.int8)
        self._player = np.zeros(N, dtype=np.int64)
        self._rewards = np.zeros((N, self.num_players), dtype=np.float32)
        self._terminated = np.zeros(N, dtype=np.bool_)
        self._truncated = np.zeros(N, dtype=np.bool_)
        self._every_game = np.ones(N, dtype=np.bool_)
        self._has_reset = False

    def _outputs(self, infos: FinalInfos) -> StepResult:
        return (
            self._obs, self._mask, self._player, self._rewards, self._terminated,
            self._truncated, infos,
        )  # fmt: skip

    def _checked_actions(self, actions: Any, where: Any) -> tuple[np.ndarray, np.ndarray]:
        """The actions and the games to step (``where``: None for all, else N bools)."""
        if not self._has_reset:
            raise ValueError("step() called before reset()")
        if where is None:
            active = self._every_game
        else:
            active = np.asarray(where)
            if active.shape != (self.num_envs,) or active.dtype != np.bool_:
                raise ValueError(
                    f"where must be None or a bool array of shape ({self.num_envs},), "
                    f"got {active.dtype} {active.shape}"
                )
            active = np.ascontiguousarray(active)
        return check_actions(actions, self.num_envs, self.num_actions, active), active

    def _parse_options(self, options: Any) -> dict[str, list[Any]]:
        """``{key: [entry per game or None]}`` for every key of :attr:`option_keys`."""
        N = self.num_envs
        plan: dict[str, list[Any]] = {key: [None] * N for key in self.option_keys}
        if options is None:
            return plan
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {options!r}")
        unknown = set(options) - set(plan)
        if unknown:
            known = ", ".join(repr(key) for key in self.option_keys)
            raise ValueError(
                f"unknown reset options {sorted(map(str, unknown))}: the batched engine knows "
                f"{known} (one entry per game)"
            )
        for key in self.option_keys:
            entries = option_list(options, key, N)
            for i, entry in enumerate(entries or []):
                if entry is None:
                    continue
                try:
                    plan[key][i] = self._parse_entry(key, entry)
                except ValueError as error:
                    raise ValueError(f"game {i}: {error}") from None
        return plan

    def _parse_entry(self, key: str, entry: Any) -> Any:
        raise NotImplementedError

    def deal_options(self, game: int) -> dict[str, Any]:
        """AEC ``reset`` options that deal game ``game``'s current deal."""
        raise NotImplementedError

    def reset_entries(self, game: int) -> dict[str, Any]:
        """Game ``game``'s entries of this engine's ``reset`` options (``{key: entry}``) that
        deal its current deal again in another engine of the same kind (the AEC options'
        ``deal`` or ``deck``, ``dealer`` and, where the engine knows them, ``sticks``)."""
        options = self.deal_options(game)
        entries = {"deals": options.get("deal", options.get("deck")), "dealers": options["dealer"]}
        if "sticks" in self.option_keys:
            entries["sticks"] = options.get("sticks")
        return entries

    def _state_arrays(self) -> tuple[np.ndarray, ...]:
        raise NotImplementedError

    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of engine state per game (rules state, generator, result tables)."""
        return sum(a.nbytes for a in self._state_arrays()) // self.num_envs

    @property
    def output_bytes_per_game(self) -> int:
        """Bytes of the per-step output buffers per game (obs, mask, player, rewards, flags)."""
        outputs = self._outputs(FinalInfos(np.zeros(0, dtype=np.int64), lambda k: {}))[:-1]
        return sum(a.nbytes for a in outputs) // self.num_envs


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
