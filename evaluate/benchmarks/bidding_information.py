"""What an auction tells the others: the belief sampler's worlds weighted by a model of the bidder.

:func:`measure_information` plays the auction of held-out open-hand table deals in
``paston_bidding_v0`` with ``bidder`` in every seat, up to the first defence call (the contract
is named; nobody has played a card). There the declarer's left, about to whist or pass, holds
its ten cards and has heard the auction and the contract. The exact sampler
(:func:`folkcards.search.paston_belief.sample_worlds`, uniform over every deal consistent with
that observation) draws ``worlds`` complete deals; each weighting then turns them into a belief
about the declarer's hidden hand:

- **uniform**: every world counts the same (what the sampler knows from the cards alone);
- **a model** (an agent spec, e.g. ``heuristic``, ``ppo``): each world weighted by the
  likelihood of the others' public calls in that world (bids, contract or surrender) under the
  model, each call's probability ``(1 - epsilon) p + epsilon / legal`` (as
  :func:`folkcards.search.paston_belief.weight_worlds`, but the declarer's hidden discards are
  not modelled: a table-trained bidder never makes them). A deterministic agent gives ``p``
  0 or 1; an agent that offers ``belief_model()`` is weighted by that model (``expert``: the
  Paston evaluator's policy, its own decisions softened by ``policy_temperature`` points, the
  learned model its card play weights worlds by with ``play_infer``).

Measured per deal, against the true deal (the declarer's hand after its discards):

- **trump length accuracy**: the most probable length of the declarer's trump suit under the
  belief is the true length (0 or 1);
- **P(true trump length)**: the belief's probability of the true length;
- **log-likelihood of the declarer's hand**: per card the observer does not hold (22), the
  belief's log-probability (bits) that the card is, or is not, in the declarer's hand, each
  card's probability the weighted share of worlds with it there, smoothed towards the uniform
  share 10/22 with the weight of one world (so a card no world places right is not ``-inf``);
  averaged over the 22 cards. ``+0`` would be certainty; uniform guessing scores -0.994.
- **effective worlds** ``1 / sum(w^2)`` of the normalised weights (how many worlds carry the
  belief).

Each figure is a mean over the deals where someone declared, with a 95% Student t interval
over deals; ``vs uniform`` is the per-deal difference in log-likelihood, paired by deal.
Deal ``k``'s sampler and bidders are seeded from ``(seed, k)``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...agents import make_agent
from ...envs import paston_bidding_v0
from ...envs._aec import bits_to_mask
from ...envs.paston import observation as obs_mod
from ...envs.paston.rules import ALL_CARDS, DEFENCE, NUM_ACTIONS, OVER, PastonDeal
from ...envs.paston_bidding.tables import load_table, shipped_table_path
from ...search import paston_belief as pb
from ...search.belief import likelihood_factor, policy_probabilities
from ..formatting import estimate
from ..statistics.intervals import Interval, mean_ci

GAME = "paston_bidding"
HAND = 10  # the declarer's cards after its discards
SUIT = 0xFF
MAX_DECISIONS = 64


@dataclass(frozen=True)
class InformationRow:
    """One weighting's figures over the deals (95% intervals over deals)."""

    weighting: str
    trump_accuracy: Interval
    trump_probability: Interval
    log_likelihood: Interval  # bits per card, declarer's hand
    versus_uniform: Interval  # log_likelihood minus uniform's, paired by deal
    effective_worlds: Interval


@dataclass(frozen=True)
class InformationResult:
    """The table of :func:`measure_information`."""

    bidder: str
    table_file: str
    first: int
    deals: int  # deals whose auction was measured (somebody declared)
    deals_tried: int
    worlds: int
    epsilon: float
    seed: int
    rows: tuple[InformationRow, ...]

    def markdown(self) -> str:
        """The result as a Markdown table with a caption line."""
        head = (
            f"{self.deals} of {self.deals_tried} deals declared (deals {self.first}.."
            f"{self.first + self.deals_tried - 1} of {self.table_file}), bidder {self.bidder} "
            f"in every seat, {self.worlds} worlds per deal, epsilon {self.epsilon}; seen by the "
            "declarer's left at its whist/pass call"
        )
        lines = [
            head,
            "| worlds weighted by | trump length accuracy | P(true trump length) | "
            "declarer's hand, bits per card | vs uniform | effective worlds |",
            "|---|---|---|---|---|---|",
        ]
        for row in self.rows:
            lines.append(
                f"| {row.weighting} | {_ci(row.trump_accuracy, 3)} | "
                f"{_ci(row.trump_probability, 3)} | {_ci(row.log_likelihood, 4)} | "
                f"{_ci(row.versus_uniform, 4, signed=True)} | {_ci(row.effective_worlds, 0)} |"
            )
        return "\n".join(lines)


def _ci(interval: Interval, digits: int, signed: bool = False) -> str:
    return estimate(interval.mean, interval.low, interval.high, digits, sign=signed)


def _seed(seed: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def _auction(env: Any, bidders: dict[str, Any]) -> int | None:
    """Step ``env`` with ``bidders`` up to the first defence call; the seat to make it, or
    ``None`` if the deal ends without a defence (all pass, both pass, surrender)."""
    for _ in range(MAX_DECISIONS):
        deal = env.state_deal()
        if deal.phase == DEFENCE:
            return int(deal.to_act)
        if deal.phase == OVER or all(env.terminations.values()):
            return None
        agent = env.agent_selection
        env.step(bidders[agent].act(env.observe(agent)))
    raise RuntimeError("an auction took too many decisions")


def calls_log_likelihood(
    world: pb.PastonWorld, history: Sequence[Any], model: Any, epsilon: float
) -> float:
    """Log-probability (nats) of the other seats' calls (actions 32 and up: bids, contract,
    surrender, whist/pass) in ``world`` under ``model``; discards and forced calls count 1."""
    deal = PastonDeal(world.dealt_hands, world.prikup, world.dealer, world.first_bidder)
    total = 0.0
    for action in world.actions(history):
        seat = deal.to_act
        bits = deal.legal_bits()
        legal = bin(bits).count("1")
        if seat != world.observer and legal > 1 and action >= 32:
            observation = {
                "observation": obs_mod.encode(deal, seat),
                "action_mask": bits_to_mask(bits, NUM_ACTIONS),
            }
            probs = policy_probabilities(model, observation)
            factor = likelihood_factor(probs, action, legal, epsilon)
            if factor <= 0:
                return -math.inf
            total += math.log(factor)
        deal.apply(action)
    return total


def belief_model(agent: Any) -> Any:
    """What weights worlds for ``agent`` as a model of a player: its ``belief_model()`` if it
    offers one (a soft policy), else the agent itself."""
    offered = getattr(agent, "belief_model", None)
    return offered() if callable(offered) else agent


def _weights(log_weights: np.ndarray) -> np.ndarray:
    if not np.isfinite(log_weights).any():
        return np.full(len(log_weights), 1.0 / len(log_weights))
    w = np.exp(log_weights - log_weights[np.isfinite(log_weights)].max())
    return w / w.sum()


def _figures(
    weights: np.ndarray, hands: np.ndarray, true_hand: int, trump: int, unseen: list[int]
) -> tuple[float, float, float, float]:
    """(accuracy, P(true length), bits per unseen card, effective worlds) of one belief."""
    shift = np.uint64(8 * trump)
    lengths = np.array([bin(int(h >> shift) & SUIT).count("1") for h in hands])
    dist = np.bincount(lengths, weights=weights, minlength=11)
    true_length = bin(true_hand >> (8 * trump) & SUIT).count("1")
    accuracy = float(int(np.argmax(dist)) == true_length)
    effective = 1.0 / float(np.sum(weights**2))
    prior = HAND / len(unseen)
    bits = 0.0
    for card in unseen:
        share = float(np.sum(weights[(hands >> np.uint64(card)) & np.uint64(1) == 1]))
        p = (effective * share + prior) / (effective + 1.0)
        inside = true_hand >> card & 1
        bits += math.log2(p if inside else 1.0 - p)
    return accuracy, float(dist[true_length]), bits / len(unseen), effective


def measure_information(
    tables: str | os.PathLike[str] | None = None,
    deals: int | None = None,
    first: int = 0,
    worlds: int = 200,
    seed: int = 0,
    bidder: str = "heuristic",
    models: Sequence[str] = ("heuristic", "ppo"),
    epsilon: float = 0.1,
    progress: Callable[[int, int], None] | None = None,
) -> InformationResult:
    """The information table over deals ``first .. first + deals - 1`` (default 500) of
    ``tables`` (default: the shipped held-out table); see the module docstring. ``ValueError``
    (one line) for a bad spec, table, count or epsilon."""
    path = Path(shipped_table_path() if tables is None else tables)
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise ValueError(f"--first must be a non-negative deal index, got {first!r}")
    table = load_table(path)
    total = min(500, len(table) - first) if deals is None else deals
    if isinstance(total, bool) or not isinstance(total, int) or total < 2:
        raise ValueError(f"need at least 2 deals for an interval, got {total!r}")
    if first + total > len(table):
        raise ValueError(
            f"deals {first}..{first + total - 1} are outside the table's {len(table)} deals"
        )
    if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 2:
        raise ValueError(f"--worlds must be an integer of at least 2, got {worlds!r}")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 < epsilon <= 1:
        raise ValueError(f"--epsilon must be in (0, 1], got {epsilon!r}")
    if not models:
        raise ValueError("name at least one model of the bidder (--models)")
    seats = [f"player_{s}" for s in range(3)]
    for spec, what in ((bidder, "bidder"), *((m, "model") for m in models)):
        try:
            make_agent(spec, GAME, "player_0", seed=0)
        except ValueError as error:
            raise ValueError(f"{what}: {error}") from None
    names = ["uniform", *models]
    figures: list[list[tuple[float, float, float, float]]] = [[] for _ in names]
    if progress is not None:
        progress(0, total)  # the clock of the progress report starts here
    for done, index in enumerate(range(first, first + total), start=1):
        row_seed = _seed(seed, index)
        env = paston_bidding_v0.raw_env()
        env.reset(seed=0, options=table.deal_option(index))
        bidders = {s: make_agent(bidder, GAME, s, seed=row_seed) for s in seats}
        observer = _auction(env, bidders)
        if observer is not None:
            deal = env.state_deal()
            observation = env.observe(seats[observer])
            context = pb.public_context(env, observer)
            sample = pb.sample_worlds(
                observation, worlds, np.random.default_rng(row_seed), **context
            )
            hands = np.array([w.hands[deal.declarer] for w in sample], dtype=np.uint64)
            true_hand = int(deal.hands[deal.declarer])
            unseen = [c for c in range(32) if (ALL_CARDS & ~deal.hands[observer]) >> c & 1]
            for k, name in enumerate(names):
                if name == "uniform":
                    weights = np.full(len(sample), 1.0 / len(sample))
                else:
                    model = belief_model(
                        make_agent(name, GAME, seats[deal.declarer], seed=row_seed)
                    )
                    logs = np.array(
                        [
                            calls_log_likelihood(w, context["history"], model, epsilon)
                            for w in sample
                        ]
                    )
                    weights = _weights(logs)
                figures[k].append(_figures(weights, hands, true_hand, deal.trump, unseen))
        if progress is not None:
            progress(done, total)
    measured = len(figures[0])
    if measured < 2:
        raise ValueError(f"only {measured} of {total} deals were declared: take more deals")
    uniform_ll = [f[2] for f in figures[0]]
    rows = []
    for name, values in zip(names, figures, strict=True):
        columns = list(zip(*values, strict=True))
        rows.append(
            InformationRow(
                weighting=name,
                trump_accuracy=mean_ci(list(columns[0])),
                trump_probability=mean_ci(list(columns[1])),
                log_likelihood=mean_ci(list(columns[2])),
                versus_uniform=mean_ci(
                    [a - b for a, b in zip(columns[2], uniform_ll, strict=True)]
                ),
                effective_worlds=mean_ci(list(columns[3])),
            )
        )
    return InformationResult(
        bidder=bidder,
        table_file=path.name,
        first=first,
        deals=measured,
        deals_tried=total,
        worlds=worlds,
        epsilon=float(epsilon),
        seed=seed,
        rows=tuple(rows),
    )


def write_information(result: InformationResult, path: str | os.PathLike[str]) -> Path:
    """Write ``result`` as JSON to ``path``."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        k: getattr(result, k)
        for k in (
            "bidder", "table_file", "first", "deals", "deals_tried", "worlds", "epsilon", "seed"
        )
    }  # fmt: skip
    data["rows"] = [
        {
            "weighting": r.weighting,
            **{
                key: getattr(r, key).as_dict()
                for key in (
                    "trump_accuracy",
                    "trump_probability",
                    "log_likelihood",
                    "versus_uniform",
                    "effective_worlds",
                )
            },
        }  # fmt: skip
        for r in result.rows
    ]
    out.write_text(json.dumps(data, indent=2) + "\n")
    return out


__all__ = ["InformationResult", "InformationRow", "calls_log_likelihood", "measure_information"]
