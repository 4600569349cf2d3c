"""Shared parts of the belief samplers: exact uniform card partitions, policy weighting, checks.

:class:`PartitionSampler` draws a uniformly random split of a set of cards into slots of given
sizes where some slots may not hold some suits (a revealed void). It counts the splits exactly
(a dynamic programme over the suits with Python integers) and draws suit by suit, so every
admissible split has exactly the same probability; no rejection is involved.

:func:`policy_probabilities`, :func:`likelihood_factor` and :func:`resample` are the game-free
half of the policy weighting documented in :mod:`folkcards.search.paston_belief` and
:mod:`folkcards.search.tri_palki_belief`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from math import factorial, log
from typing import Any, NamedTuple, TypeVar

import numpy as np

T = TypeVar("T")


class BeliefSampler(NamedTuple):
    """A game's belief sampler, as its registry entry names it (piece ``belief``):
    ``public_context(env, seat)`` is what that seat knows of the history at the table (keyword
    arguments of ``sample_worlds``); ``sample_worlds(observation, n, rng, **context)`` draws
    complete hidden states, each with ``to_env(**env_kwargs)`` (a raw env at the same decision);
    ``start(world)`` is ``(reset options, actions)``: ``reset(seed=0, options=...)`` deals the
    world's cards, the actions then lead to the decision (``to_env`` without building an env).
    ``every_world(observation, **context)``, for a game small enough to list them, is every
    world consistent with the observation, each equally likely under the posterior
    ``sample_worlds`` draws from (``None``: too many to list)."""

    public_context: Callable[..., dict[str, Any]]
    sample_worlds: Callable[..., list[Any]]
    start: Callable[[Any], tuple[dict[str, Any], list[int]]]
    every_world: Callable[..., list[Any]] | None = None


Policy = Callable[[dict[str, np.ndarray]], Any]


class PartitionSampler:
    """Uniform random splits of ``cards`` into slots of ``sizes``, honouring forbidden suits.

    :param cards: the card ids to distribute (each once).
    :param sizes: how many cards each slot receives; they must sum to ``len(cards)``.
    :param forbidden: per slot, a bitmask of suits the slot may not receive (bit s = suit s).
    :param num_ranks: cards per suit (8 for Paston, 9 for Tri Palki): ``suit = card // num_ranks``.

    ``count`` is the exact number of admissible splits; ``sample(rng)`` returns one split as a
    list of bitmasks, one per slot. Raises ``ValueError`` when no split exists.
    """

    def __init__(
        self,
        cards: Sequence[int],
        sizes: Sequence[int],
        forbidden: Sequence[int],
        num_ranks: int,
    ):
        if len(sizes) != len(forbidden):
            raise ValueError("sizes and forbidden need one entry per slot")
        if any(size < 0 for size in sizes):
            raise ValueError(f"slot sizes must not be negative, got {list(sizes)}")
        if sum(sizes) != len(cards):
            raise ValueError(
                f"{len(cards)} unknown cards cannot fill slots of sizes {list(sizes)} "
                f"(total {sum(sizes)})"
            )
        self.sizes = tuple(int(s) for s in sizes)
        self.forbidden = tuple(int(f) for f in forbidden)
        # Suits that the same slots forbid are interchangeable for counting: pool them, so the
        # programme runs over at most 4 groups and over 1 when no void is known.
        pools: dict[int, list[int]] = {}
        for card in sorted(int(c) for c in cards):
            suit = card // num_ranks
            pattern = sum(1 << i for i, f in enumerate(self.forbidden) if f >> suit & 1)
            pools.setdefault(pattern, []).append(card)
        self.groups = [(np.array(pool, dtype=np.int64), pattern) for pattern, pool in pools.items()]
        self._counts: dict[tuple[int, tuple[int, ...]], int] = {}
        self._tables: dict[tuple[int, tuple[int, ...]], tuple[list, list[int]]] = {}
        self.count = self._count(0, self.sizes)
        if self.count == 0:
            raise ValueError(
                "no way to deal the unknown cards: the slot sizes and revealed voids contradict"
            )

    def _compositions(self, group: int, caps: tuple[int, ...]) -> list[tuple[int, ...]]:
        cards, pattern = self.groups[group]
        n = len(cards)
        allowed = [0 if pattern >> i & 1 else min(caps[i], n) for i in range(len(caps))]
        out: list[tuple[int, ...]] = []

        def rec(i: int, left: int, acc: tuple[int, ...]) -> None:
            if i == len(caps) - 1:
                if left <= allowed[i]:
                    out.append(acc + (left,))
                return
            for k in range(min(left, allowed[i]) + 1):
                rec(i + 1, left - k, acc + (k,))

        rec(0, n, ())
        return out

    def _count(self, group: int, caps: tuple[int, ...]) -> int:
        if group == len(self.groups):
            return 1 if not any(caps) else 0
        key = (group, caps)
        if key in self._counts:
            return self._counts[key]
        n = len(self.groups[group][0])
        compositions = []
        cumulative = []
        total = 0
        for comp in self._compositions(group, caps):
            rest = self._count(group + 1, tuple(c - k for c, k in zip(caps, comp, strict=True)))
            if rest:
                ways = factorial(n)
                for k in comp:
                    ways //= factorial(k)
                total += ways * rest
                compositions.append(comp)
                cumulative.append(total)
        self._counts[key] = total
        self._tables[key] = (compositions, cumulative)
        return total

    def sample(self, rng: np.random.Generator) -> list[int]:
        """One uniformly random admissible split, as one card bitmask per slot."""
        return [int(x) for x in self.sample_many(rng, 1)[0]]

    def sample_many(self, rng: np.random.Generator, m: int) -> np.ndarray:
        """``m`` independent uniform splits as a ``(m, slots)`` uint64 array of card bitmasks."""
        slots = len(self.sizes)
        masks = np.zeros((m, slots), dtype=np.uint64)
        states = [self.sizes]
        state_of = np.zeros(m, dtype=np.int64)
        for group in range(len(self.groups)):
            cards = self.groups[group][0]
            comps = np.zeros((m, slots), dtype=np.int64)
            next_states: list[tuple[int, ...]] = []
            next_index: dict[tuple[int, ...], int] = {}
            next_of = np.zeros(m, dtype=np.int64)
            for sid, caps in enumerate(states):
                rows = np.flatnonzero(state_of == sid)
                if not len(rows):
                    continue
                compositions, cumulative = self._tables[(group, caps)]
                if len(compositions) == 1:
                    picks = np.zeros(len(rows), dtype=np.int64)
                elif cumulative[-1] < 2**62:
                    draws = rng.integers(cumulative[-1], size=len(rows))
                    picks = np.searchsorted(np.array(cumulative), draws, side="right")
                else:  # counts beyond int64: draw each with Python integers
                    picks = np.array(
                        [bisect_right(cumulative, int(rng.integers(cumulative[-1]))) for _ in rows]
                    )
                for pick in np.unique(picks):
                    comp = compositions[int(pick)]
                    chosen = rows[picks == pick]
                    comps[chosen] = comp
                    after = tuple(c - k for c, k in zip(caps, comp, strict=True))
                    if after not in next_index:
                        next_index[after] = len(next_states)
                        next_states.append(after)
                    next_of[chosen] = next_index[after]
            if len(cards):
                order = rng.permuted(np.broadcast_to(cards, (m, len(cards))), axis=1)
                bits = np.left_shift(np.uint64(1), order.astype(np.uint64))
                bounds = np.cumsum(comps, axis=1)
                position = np.arange(len(cards))
                slot_of = (position[None, :, None] >= bounds[:, None, :]).sum(axis=2)
                for slot in range(slots):
                    picked = np.where(slot_of == slot, bits, np.uint64(0))
                    masks[:, slot] |= np.bitwise_or.reduce(picked, axis=1)
            states = next_states
            state_of = next_of
        return masks


# --- input checks ------------------------------------------------------------------------------


def observation_vector(observation: Any, size_ok: Callable[[int], bool], game: str) -> np.ndarray:
    """The observation vector from a vector or a ``{"observation": ...}`` dict; ``ValueError``."""
    if isinstance(observation, dict):
        if "observation" not in observation:
            raise ValueError(f"a {game} observation dict needs the key 'observation'")
        observation = observation["observation"]
    try:
        vector = np.asarray(observation, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"a {game} observation must be a numeric vector") from None
    if vector.ndim != 1 or not size_ok(vector.shape[0]):
        raise ValueError(f"not a {game} observation vector: shape {vector.shape}")
    if not np.all(np.isfinite(vector)):
        raise ValueError(f"the {game} observation holds NaN or infinite values")
    return vector


def check_count(n: Any) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    return int(n)


def check_rng(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r}"
        )
    return rng


def check_seat(seat: Any, num_seats: int, what: str = "observer") -> int:
    """A seat given as an int or ``"player_k"``."""
    if isinstance(seat, str) and seat.startswith("player_") and seat[7:].isdigit():
        seat = int(seat[7:])
    if (
        isinstance(seat, (bool, np.bool_))
        or not isinstance(seat, (int, np.integer))
        or not 0 <= seat < num_seats
    ):
        raise ValueError(f"{what} must be a seat 0..{num_seats - 1} or 'player_k', got {seat!r}")
    return int(seat)


def check_attempts(accepted: int, wanted: int, attempts: int, limit: int) -> None:
    if accepted < wanted and attempts >= limit:
        raise ValueError(
            f"no world consistent with the observation was found in {attempts} draws "
            "(the observation, history or flags contradict each other)"
        )


# --- policy weighting --------------------------------------------------------------------------


def policy_probabilities(policy: Any, observation: dict[str, np.ndarray]) -> np.ndarray:
    """Action probabilities of ``policy`` at ``observation`` (masked and normalised).

    ``policy`` is any of: an object with ``action_probabilities(observation)``; a callable
    ``observation -> probabilities`` (a vector over the action ids); an agent with
    ``act(observation) -> action`` (a deterministic choice: probability 1 on that action).
    Illegal actions get 0; a policy giving 0 to every legal action is read as uniform.
    """
    mask = np.asarray(observation["action_mask"], dtype=np.float64)
    if hasattr(policy, "action_probabilities"):
        probs = np.asarray(policy.action_probabilities(observation), dtype=np.float64)
    elif callable(policy):
        probs = np.asarray(policy(observation), dtype=np.float64)
    elif hasattr(policy, "act"):
        probs = np.zeros(len(mask))
        probs[int(policy.act(observation))] = 1.0
    else:
        raise ValueError(
            "policy must be callable (observation -> probabilities), or have "
            "action_probabilities(observation) or act(observation)"
        )
    if probs.shape != mask.shape:
        raise ValueError(f"policy returned {probs.shape} probabilities for {mask.shape} actions")
    probs = np.clip(probs, 0.0, None) * mask
    total = probs.sum()
    if total <= 0:
        return mask / mask.sum()
    return probs / total


def likelihood_factor(probs: np.ndarray, action: int, legal_count: int, epsilon: float) -> float:
    """``(1 - epsilon) * p(action) + epsilon / legal_count``: the smoothed action likelihood."""
    return (1.0 - epsilon) * float(probs[action]) + epsilon / legal_count


def replay_log_likelihood(
    engine: Any,
    actions: Sequence[int],
    observer: int,
    observe: Callable[[Any, int], np.ndarray],
    num_actions: int,
    policy: Any,
    epsilon: float,
) -> float:
    """Log-probability of the other seats' choices among ``actions``, applied to ``engine`` (a
    rules object with ``to_act``, ``legal_bits()`` and ``apply``) from its current state, under
    ``policy``; ``observe(engine, seat)`` encodes a seat's observation vector. Forced moves and
    the observer's own moves count 1; an impossible move gives ``-inf``."""
    from ..envs._aec import bits_to_mask

    total = 0.0
    for action in actions:
        seat = engine.to_act
        bits = engine.legal_bits()
        legal_count = bin(bits).count("1")
        if seat != observer and legal_count > 1:
            obs = {
                "observation": observe(engine, seat),
                "action_mask": bits_to_mask(bits, num_actions),
            }
            factor = likelihood_factor(
                policy_probabilities(policy, obs), action, legal_count, epsilon
            )
            if factor <= 0:
                return -np.inf
            total += log(factor)
        engine.apply(action)
    return total


def check_epsilon(epsilon: Any) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 1:
        raise ValueError(f"epsilon must be a number in [0, 1], got {epsilon!r}")
    return float(epsilon)


def normalise_log_weights(log_weights: Sequence[float] | np.ndarray) -> np.ndarray:
    """Weights summing to 1 from log-likelihoods; ``ValueError`` if every world is impossible."""
    logs = np.asarray(log_weights, dtype=np.float64)
    if len(logs) == 0:
        return logs
    top = np.max(logs)
    if not np.isfinite(top):
        raise ValueError(
            "every world has likelihood 0 under the policy: use epsilon > 0 to smooth it"
        )
    weights = np.exp(logs - top)
    return weights / weights.sum()


def resample(
    worlds: Sequence[T], weights: Sequence[float], n: int, rng: np.random.Generator
) -> list[T]:
    """``n`` worlds drawn with replacement in proportion to ``weights`` (multinomial)."""
    n = check_count(n)
    rng = check_rng(rng)
    w = np.asarray(weights, dtype=np.float64)
    if len(worlds) == 0 or w.shape != (len(worlds),):
        raise ValueError(f"need one weight per world, got {w.shape} for {len(worlds)} worlds")
    if np.any(w < 0) or not np.all(np.isfinite(w)) or w.sum() <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero")
    picks = rng.choice(len(worlds), size=n, p=w / w.sum())
    return [worlds[int(i)] for i in picks]
