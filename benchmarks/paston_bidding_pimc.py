"""Trained bidding + ``pimc`` card play against ``pimc`` alone, in full Paston deals.

A model trained on ``paston_bidding_v0`` (``configs/paston/ppo_bidding.yaml``) makes every
decision before the play (auction, discards, contract or surrender, whist or pass); ``pimc``
plays the cards. Duplicate: on each deal, first ``pimc`` in all three seats (the baseline), then
the combined agent in each seat in turn with ``pimc`` in the other two, the same agent seeds;
the advantage is the combined agent's mean table score minus ``pimc``'s in the same seats.

    python benchmarks/paston_bidding_pimc.py --model runs/paston_bidding-.../model.zip \
        --deals 100 --out results.jsonl      # deal seeds 0..99 (--first moves them)
    python benchmarks/paston_bidding_pimc.py --summarize a.jsonl b.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents import make_agent
from folkcards.agents.base import Agent
from folkcards.agents.ppo_agent import PPOAgent
from folkcards.envs.paston.observation import OFFSETS
from folkcards.envs.paston.rules import PLAY
from folkcards.evaluate.statistics.intervals import mean_ci
from folkcards.train.evaluation import evaluate_duplicate

PLAY_INDEX = OFFSETS["phase"] + PLAY


class BidThenPlay(Agent):
    """``bidder`` before the play, ``player`` for the cards (both Paston agents)."""

    name = "bid_then_play"

    def __init__(self, bidder: Agent, player: Agent, seat: str, seed: int | None = None):
        super().__init__("paston", seat, seed)
        self.bidder, self.player = bidder, player

    @property
    def rng(self) -> np.random.Generator:  # duplicate evaluation re-seeds the agents' rng
        return self.player.rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        if hasattr(self, "player"):
            self.player.rng = value

    def reset(self) -> None:
        self.bidder.reset()
        self.player.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        if observation["observation"][PLAY_INDEX] == 1:
            return self.player.act(observation)
        return self.bidder.act(observation)


def summary(rows: list[dict[str, float]], pimc: str) -> str:
    """The running result of per-deal rows (``score``, ``baseline``)."""
    mine = mean_ci([r["score"] for r in rows])
    base = mean_ci([r["baseline"] for r in rows])
    gain = mean_ci([r["score"] - r["baseline"] for r in rows])
    return (
        f"{len(rows)} deals: trained bidding + {pimc} cards {mine.mean:+.2f} "
        f"[{mine.low:+.2f}, {mine.high:+.2f}] per deal; {pimc} alone in the same seats "
        f"{base.mean:+.2f} [{base.low:+.2f}, {base.high:+.2f}]; advantage {gain.mean:+.2f} "
        f"[{gain.low:+.2f}, {gain.high:+.2f}] (95%)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model.zip trained on paston_bidding")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="index of the first deal (seeds)")
    parser.add_argument("--pimc", default="pimc", help="the pimc spec for the cards and baseline")
    parser.add_argument("--out", type=Path, help="append one JSON line per deal here")
    parser.add_argument("--summarize", type=Path, nargs="+", help="only summarise JSONL files")
    args = parser.parse_args(argv)
    if args.summarize:
        rows = [json.loads(line) for path in args.summarize for line in path.open() if line.strip()]
        print(summary(rows, args.pimc))
        return
    if not args.model:
        parser.error("--model is required (or --summarize)")

    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(args.model, device="cpu")

    def learner(seat: str, seed: int) -> Any:
        bidder = PPOAgent("paston", seat, seed, model=model)
        player = make_agent(args.pimc, "paston", seat, seed=seed)
        return BidThenPlay(bidder, player, seat, seed)

    rows = []
    for index in range(args.first, args.first + args.deals):
        started = time.perf_counter()
        result = evaluate_duplicate("paston", learner, args.pimc, deals=1, seed=index)
        row = {
            "deal": index,
            "score": result.mean_score,
            "baseline": result.baseline_score,
            "seconds": time.perf_counter() - started,
        }
        rows.append(row)
        if args.out:
            with args.out.open("a") as out:
                out.write(json.dumps(row) + "\n")
        print(summary(rows, args.pimc), flush=True)


if __name__ == "__main__":
    main()
