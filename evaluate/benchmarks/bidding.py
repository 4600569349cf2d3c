"""The bidding benchmark: an agent's bidding on the held-out open-hand table deals.

:func:`evaluate_bidding` seats an agent (any ``make_agent`` spec) in the batched bidding env
(``paston_bidding_v0.vector_env``) on fixed deals of an open-hand table (default: the table
shipped with the package, seed 2025, never trained on), with **duplicate seating**: each deal is
played once with the agent in each of the three seats and the **reference bidder** (the Paston
heuristic unless told otherwise) in the other two, and once with the reference in every seat.
Every decision before the play is the agent's (auction, contract or surrender, whist or pass)
except the declarer's two discards, which are the table's pair (the table is solved for it);
the deal is then scored by the table lookup, exactly as ``paston_bidding_v0`` credits it.

Per deal: the agent's **score** is its table score averaged over its three seats, the
reference's the average over the seats of the all-reference table, the **advantage** the
difference. The row reports each as a mean per deal with a 95% Student t interval over deals
(the deal is the unit of sampling, so the advantage is paired by deal).

Why a fixed reference rather than the agent in every seat: a bidder is judged by what it wins
against a known field, the same field for every submission (as a bridge bidding benchmark scores
a pair against fixed opponents or tables); a self-play table mixes the agent's bidding with how
exploitable it is by itself, and two submissions would then face different fields. The
heuristic is deterministic, fast (batched) and documented, so the reference's row is the same
for everybody.

Randomness: the agent in seating ``s`` of table deal ``k`` draws from a generator seeded with
``(seed, k, s)`` (a per-game agent has its ``rng`` re-seeded so, a batched one gets that row's
stream), so a deal's result does not depend on which other deals are evaluated or in what order.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...agents import make_agent
from ...agents.base import Agent
from ...agents.batched_agents import SPEC_BATCHED_KINDS, BatchedAgent, make_batched_agent
from ...envs._batched import seed_states
from ...envs.paston_bidding.batched import PastonBiddingVectorEnv
from ...envs.paston_bidding.tables import OpenHandTable, load_table, shipped_table_path
from ..formatting import estimate
from ..statistics.intervals import Interval, mean_ci

GAME = "paston_bidding"
SEATS = 3
REFERENCE = "heuristic"
MAX_DECISIONS = 64  # a bidding deal has at most a dozen decisions


@dataclass(frozen=True)
class BiddingResult:
    """One row of the benchmark; intervals are 95% Student t over deals."""

    agent: str
    reference: str
    table: str  # file name
    table_seed: int
    table_sha256: str
    first: int
    deals: int
    seed: int
    score: Interval  # the agent's table score per deal, averaged over its three seats
    reference_score: Interval  # the reference's, all-reference table, averaged over seats
    advantage: Interval  # score - reference_score, paired by deal
    agent_decisions: int
    seconds: float
    deal_scores: tuple[float, ...] = ()  # per deal: the agent's score (mean over its seats)
    reference_deal_scores: tuple[float, ...] = ()  # per deal: the reference's

    def row(self) -> str:
        """The benchmark row, as printed (and as the docs' table shows it)."""
        return (
            f"| {self.agent} | {self.deals} | {_ci(self.score)} | {_ci(self.advantage)} | "
            f"{self.seconds:.0f} s |"
        )

    def results_json(self) -> dict[str, Any]:
        """The result in the form ``scripts/figures.py`` reads (agents ``agent`` and
        ``reference``, head to head ``agent-reference``) plus the run's parameters."""

        def agent(name: str, interval: Interval) -> dict[str, Any]:
            return {"name": name, "mean": interval.mean, "ci_low": interval.low,
                    "ci_high": interval.high, "deals": interval.n}  # fmt: skip

        a = self.advantage
        return {
            "benchmark": "paston bidding",
            **{
                k: list(v) if isinstance(v, tuple) else v
                for k, v in asdict(self).items()
                if not isinstance(v, dict)
            },
            "agents": [agent("agent", self.score), agent("reference", self.reference_score)],
            "head_to_head": [
                {"a": "agent", "b": "reference", "mean_diff": a.mean, "ci_low": a.low,
                 "ci_high": a.high, "deals": a.n}
            ],
        }  # fmt: skip


HEADER = (
    "| agent | deals | score per deal [95% CI] | advantage over the reference [95% CI] | time |"
)


def _ci(interval: Interval) -> str:
    return estimate(interval.mean, interval.low, interval.high, 2)


def _row_seed(seed: int, index: int, seating: int) -> int:
    state = np.random.SeedSequence([seed, index, seating]).generate_state(2, np.uint64)
    return int(state[0] >> np.uint64(1))


class _Seat:
    """Who acts in one seat: a batched agent over many rows, or one per-game agent re-seeded
    for each deal (played one deal at a time)."""

    def __init__(self, spec: str, seat: int, batched: bool):
        self.spec = spec
        self.batched: BatchedAgent | None = None
        self.single: Agent | None = None
        if batched:
            self.batched = make_batched_agent(spec, GAME, SEATS)
        else:
            self.single = make_agent(spec, GAME, f"player_{seat}", seed=0)


def _has_batched_form(spec: str) -> bool:
    return spec.partition(":")[0] in SPEC_BATCHED_KINDS


def play_deals(
    table: OpenHandTable,
    indices: Sequence[int],
    seats: Sequence[_Seat],
    seed: int,
    seating: int,
    counted: int | None = None,
) -> tuple[np.ndarray, int]:
    """The table scores ``(len(indices), 3)`` of the deals ``indices`` played once each with
    ``seats[s]`` in seat ``s``, and how many decisions seat ``counted`` made."""
    if all(s.batched is not None for s in seats):
        vec = PastonBiddingVectorEnv(len(indices), tables=table)
        return _play_batched(vec, indices, seats, seed, seating, counted)
    scores = np.zeros((len(indices), SEATS), dtype=np.float64)
    decisions = 0
    one = PastonBiddingVectorEnv(1, tables=table)
    for row, index in enumerate(indices):
        for seat in seats:
            if seat.single is not None:
                seat.single.reseed(_row_seed(seed, index, seating))
                seat.single.reset()
        result, made = _play_batched(one, [index], seats, seed, seating, counted)
        scores[row] = result[0]
        decisions += made
    return scores, decisions


def _play_batched(
    vec: PastonBiddingVectorEnv,
    indices: Sequence[int],
    seats: Sequence[_Seat],
    seed: int,
    seating: int,
    counted: int | None,
) -> tuple[np.ndarray, int]:
    M = len(indices)
    obs, mask, player = vec.reset(seed=0, options={"deals": [int(k) for k in indices]})
    streams = np.concatenate(
        [seed_states(_row_seed(seed, int(k), seating), SEATS) for k in indices]
    ).reshape(M, SEATS, 4)
    live = np.ones(M, dtype=bool)
    scores = np.zeros((M, SEATS), dtype=np.float64)
    actions = np.zeros(M, dtype=np.int64)
    decisions = 0
    for _ in range(MAX_DECISIONS):
        if not live.any():
            return scores, decisions
        for s, seat in enumerate(seats):
            rows = np.flatnonzero(live & (player == s))
            if not rows.size:
                continue
            if s == counted:
                decisions += rows.size
            if seat.batched is not None:
                state = streams[rows, s]
                actions[rows] = seat.batched.act(obs[rows], mask[rows], state)
                streams[rows, s] = state
            else:
                assert seat.single is not None
                for r in rows:
                    observation = {"observation": obs[r].copy(), "action_mask": mask[r].copy()}
                    actions[r] = seat.single.act(observation)
        obs, mask, player, rewards, terminated, _, _ = vec.step(actions, where=live)
        ended = terminated & live
        scores[ended] = rewards[ended]
        live &= ~terminated
    raise RuntimeError(f"a bidding deal took more than {MAX_DECISIONS} decisions")


def evaluate_bidding(
    agent: str,
    tables: str | os.PathLike[str] | None = None,
    deals: int | None = None,
    first: int = 0,
    seed: int = 0,
    reference: str = REFERENCE,
    chunk: int = 250,
    progress: Callable[[int, int], None] | None = None,
) -> BiddingResult:
    """The benchmark row of ``agent`` on deals ``first .. first + deals - 1`` of ``tables``
    (default: the shipped held-out table, all its deals); see the module docstring.
    ``ValueError`` (one line) for a bad spec, table or range."""
    path = Path(shipped_table_path() if tables is None else tables)
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise ValueError(f"--first must be a non-negative deal index, got {first!r}")
    table = load_table(path)
    total = len(table) - first if deals is None else deals
    if isinstance(total, bool) or not isinstance(total, int) or total < 2:
        raise ValueError(f"need at least 2 deals for an interval, got {total!r}")
    if first + total > len(table):
        raise ValueError(
            f"deals {first}..{first + total - 1} are outside the table's {len(table)} deals"
        )
    for spec, what in ((agent, "agent"), (reference, "reference")):
        try:
            make_agent(spec, GAME, "player_0", seed=0)  # a bad spec is one line, here
        except ValueError as error:
            raise ValueError(f"{what}: {error}") from None
    batched = _has_batched_form(agent)
    ref_batched = _has_batched_form(reference)
    started = time.perf_counter()
    indices = list(range(first, first + total))
    own = np.zeros((total, SEATS), dtype=np.float64)
    base = np.zeros((total, SEATS), dtype=np.float64)
    decisions = 0
    step = chunk if batched and ref_batched else max(1, min(chunk, 25))
    done = 0
    if progress is not None:
        progress(0, total)  # the clock of the progress report starts here
    for lo in range(0, total, step):
        part = indices[lo : lo + step]
        for s in range(SEATS):
            seats = [
                _Seat(agent, k, batched) if k == s else _Seat(reference, k, ref_batched)
                for k in range(SEATS)
            ]
            scores, made = play_deals(table, part, seats, seed, s, counted=s)
            own[lo : lo + len(part), s] = scores[:, s]
            decisions += made
        seats = [_Seat(reference, k, ref_batched) for k in range(SEATS)]
        base[lo : lo + len(part)] = play_deals(table, part, seats, seed, SEATS)[0]
        done += len(part)
        if progress is not None:
            progress(done, total)
    score = own.mean(axis=1)
    reference_score = base.mean(axis=1)
    return BiddingResult(
        agent=agent,
        reference=reference,
        table=path.name,
        table_seed=table.seed,
        table_sha256=str(table.header.get("sha256", "")),
        first=first,
        deals=total,
        seed=seed,
        score=mean_ci(score.tolist()),
        reference_score=mean_ci(reference_score.tolist()),
        advantage=mean_ci((score - reference_score).tolist()),
        agent_decisions=decisions,
        seconds=time.perf_counter() - started,
        deal_scores=tuple(score.tolist()),
        reference_deal_scores=tuple(reference_score.tolist()),
    )


def read_results(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A result file written by :func:`write_results` (``--json``); ``ValueError`` (one line)
    if it cannot be read or is not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read the results file {path}: {error}") from None
    keys = ("agent", "table_sha256", "first", "deals", "deal_scores")
    if not isinstance(data, dict) or any(key not in data for key in keys):
        raise ValueError(f"{path} is not a results file of folkcards bidding evaluate --json")
    return data


def paired_difference(result: BiddingResult, other: dict[str, Any]) -> Interval:
    """``result``'s score minus ``other``'s (a :func:`read_results` file) on the same deals,
    paired by deal; ``ValueError`` (one line) unless both ran on the same table and deals."""
    same = (
        other["table_sha256"] == result.table_sha256
        and other["first"] == result.first
        and other["deals"] == result.deals
        and len(other["deal_scores"]) == len(result.deal_scores)
    )
    if not same:
        raise ValueError(
            f"the results of {other['agent']!r} are of other deals (deals {other['first']}.."
            f"{other['first'] + other['deals'] - 1} of table {str(other['table_sha256'])[:12]}); "
            "compare rows of the same table and deals"
        )
    return mean_ci([a - b for a, b in zip(result.deal_scores, other["deal_scores"], strict=True)])


def write_results(result: BiddingResult, path: str | os.PathLike[str]) -> Path:
    """Write ``result`` as JSON (``results_json``) to ``path``."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result.results_json()) + "\n")
    return out


__all__ = [
    "HEADER",
    "REFERENCE",
    "BiddingResult",
    "evaluate_bidding",
    "play_deals",
    "write_results",
]
