"""The opponent pool of the single-seat training env (:mod:`folkcards.train.single_seat`).

Each entry is a :func:`~folkcards.agents.make_agent` spec (``"random"``, ``"heuristic"``,
``"ppo:PATH"``) or ``"self"`` (a frozen snapshot of the learner: a
:class:`~folkcards.agents.policy_network.NumpyPolicy` ``.npz`` added with
:meth:`OpponentPool.add_snapshot`; the newest ``max_snapshots`` are kept and drawn uniformly;
``"self"`` is left out while there is none) with a weight. For every episode each other seat
(``per_seat=True``) or all of them together get an entry drawn by weight.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents import make_agent
from folkcards.agents.policy_network import NumpyPolicy
from folkcards.agents.ppo_agent import PolicyAgent

SELF = "self"


@dataclass(frozen=True)
class OpponentEntry:
    """One entry of the pool: a ``make_agent`` spec (or ``"self"``) and its weight."""

    spec: str
    weight: float = 1.0


def parse_entries(entries: Sequence[Any]) -> tuple[OpponentEntry, ...]:
    """Accept ``OpponentEntry``, ``"spec"``, ``("spec", weight)`` or ``{"spec":, "weight":}``."""
    out = []
    for entry in entries:
        if isinstance(entry, OpponentEntry):
            out.append(entry)
        elif isinstance(entry, str):
            out.append(OpponentEntry(entry))
        elif isinstance(entry, dict):
            out.append(OpponentEntry(str(entry["spec"]), float(entry.get("weight", 1.0))))
        else:
            spec, weight = entry
            out.append(OpponentEntry(str(spec), float(weight)))
    if not out:
        raise ValueError("the opponent pool is empty")
    for entry in out:
        if not entry.weight >= 0 or not np.isfinite(entry.weight):
            raise ValueError(
                f"opponent weight must be a finite number >= 0, got {entry.weight!r} "
                f"for {entry.spec!r}"
            )
    if sum(e.weight for e in out) <= 0:
        raise ValueError("the opponent weights sum to 0")
    return tuple(out)


class OpponentPool:
    """Builds and caches the opponents of one env; see the module docstring."""

    def __init__(
        self,
        game: str,
        entries: Sequence[Any],
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        per_seat: bool = True,
    ):
        self.game = game
        self.entries = parse_entries(entries)
        self.max_snapshots = int(max_snapshots)
        self.snapshot_deterministic = bool(snapshot_deterministic)
        self.per_seat = bool(per_seat)
        self.snapshots: list[tuple[str, NumpyPolicy]] = []
        self._agents: dict[tuple[str, str], Any] = {}
        self.seeds: dict[str, int] = {}  # each seat's seed of its last draw (for replays)

    def add_snapshot(self, path: str | Path) -> int:
        """Load a :class:`NumpyPolicy` ``.npz`` into the pool; returns the pool's snapshot count."""
        path = str(path)
        self.snapshots.append((path, NumpyPolicy.load(path)))
        if self.max_snapshots > 0:
            del self.snapshots[: max(0, len(self.snapshots) - self.max_snapshots)]
        kept = {f"{SELF}:{p}" for p, _ in self.snapshots}
        for key in [k for k in self._agents if k[0].startswith(f"{SELF}:") and k[0] not in kept]:
            del self._agents[key]  # forget the agents of dropped snapshots
        return len(self.snapshots)

    def draw(self, rng: np.random.Generator, seats: Sequence[str]) -> dict[str, Any]:
        """One agent for each of ``seats``, drawn by weight, reseeded from ``rng`` and reset."""
        usable = [e for e in self.entries if e.weight > 0 and (e.spec != SELF or self.snapshots)]
        if not usable:  # only "self" and no snapshot yet
            usable = [OpponentEntry("random", 1.0)]
        weights = np.array([e.weight for e in usable], dtype=np.float64)
        picks = rng.choice(
            len(usable), size=len(seats) if self.per_seat else 1, p=weights / weights.sum()
        )
        if not self.per_seat:
            picks = np.repeat(picks, len(seats))
        return {
            seat: self.seat(usable[int(pick)].spec, seat, rng)
            for seat, pick in zip(seats, picks, strict=True)
        }

    def seat(self, spec: str, seat: str, rng: np.random.Generator) -> Any:
        """The (cached) agent ``spec`` for ``seat``, reseeded from ``rng`` and reset."""
        agent = self._cached(spec, seat, rng)
        self.seeds[seat] = int(rng.integers(2**63))
        agent.reseed(self.seeds[seat])
        agent.reset()
        return agent

    def _cached(self, spec: str, seat: str, rng: np.random.Generator) -> Any:
        if spec == SELF:
            path, policy = self.snapshots[int(rng.integers(len(self.snapshots)))]
            key = (f"{SELF}:{path}", seat)
            if key not in self._agents:
                self._agents[key] = PolicyAgent(
                    self.game,
                    seat,
                    policy=policy,
                    deterministic=self.snapshot_deterministic,
                    label=f"snapshot {Path(path).name}",
                )
            return self._agents[key]
        key = (spec, seat)
        if key not in self._agents:
            self._agents[key] = make_agent(spec, self.game, seat)
        return self._agents[key]


def describe(agent: Any) -> str:
    """An agent's label (or name, or class name) for infos and logs."""
    return str(getattr(agent, "label", None) or getattr(agent, "name", type(agent).__name__))


__all__ = ["SELF", "OpponentEntry", "OpponentPool", "describe", "parse_entries"]
