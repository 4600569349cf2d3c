"""A learned evaluator of Paston's decisions before the play (Kermit-style).

Three small multilayer perceptrons, trained on outcomes the open-hand solver scored (the
open-hand tables of :mod:`folkcards.envs.paston_bidding.tables`; the training code is
:mod:`folkcards.train.paston_evaluator_training`), each answering one question a player asks before a
card is played. Values are table scores (``docs/rules/paston.md`` §7) of the seat that asks,
averaged over what it cannot see, which is what least-squares regression over many deals gives.

- **declare** (the auction): a seat's 10 dealt cards and its position relative to the dealer
  (first bidder, second bidder, dealer) → for each contract level ``c`` (spades, clubs,
  diamonds, hearts, best spades): the mean score of declaring ``c`` after winning the auction
  at ``c`` (the prikup unseen, the table's discards, the defenders whisting or passing as the
  training data's defence model did); and for each auction level ``L``: the mean of the best
  score reachable from ``L`` once everything is known, floored at surrender's −10 (an
  optimistic bound: the declarer does not see the others' hands when naming its contract).
- **contract** (the contract after the discards): the 10 cards kept, the position and the
  minimum contract level (0–4) → the mean score of naming each contract level it allows.
- **whist** (the defence): a defender's 10 cards, the contract, whether it speaks first (the
  declarer's left) or second, and the first speaker's call if it is known → the mean score of
  whisting (passing scores 0).

Features are plain and documented (:func:`hand_features` and the three ``*_features``); the
networks are evaluated with numpy (no torch at play time), from an ``.npz`` file of weights
with a JSON sidecar describing the data, features and validation error.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.paston.rules import (
    BEST_SPADES,
    HEARTS,
    LEVEL_FACTOR,
    NUM_TRICKS,
    declarer_score,
    defender_score,
)
from .mlp import Mlp

__all__ = [
    "HAND_SIZE",
    "HEADS",
    "NUM_LEVELS",
    "PastonEvaluator",
    "contract_features",
    "EvaluatorPolicy",
    "declare_features",
    "hand_features",
    "load_evaluator",
    "pass_value",
    "whist_features",
]

NUM_LEVELS = 5  # contract levels: spades, clubs, diamonds, hearts, best spades
HAND_SIZE = 36  # 32 card bits, 4 suit lengths
POSITIONS = ("first_bidder", "second_bidder", "dealer")
CALLS = ("unknown", "whist", "pass")  # the first speaker's defence call, seen by the second
# head -> (input size, output names)
HEADS: dict[str, tuple[int, tuple[str, ...]]] = {
    "declare": (
        HAND_SIZE + 3,
        tuple(f"declare_{c}" for c in range(NUM_LEVELS))
        + tuple(f"best_from_{c}" for c in range(NUM_LEVELS)),
    ),
    "contract": (HAND_SIZE + 3 + NUM_LEVELS, tuple(f"name_{c}" for c in range(NUM_LEVELS))),
    "whist": (HAND_SIZE + NUM_LEVELS + 2 + 3, ("whist",)),
}


def _score_bounds() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The lowest and highest score each output can take (the score table, §7)."""
    low = np.array([declarer_score(0, c) for c in range(NUM_LEVELS)], np.float32)
    high = np.array([declarer_score(NUM_TRICKS, c) for c in range(NUM_LEVELS)], np.float32)
    reach = [list(range(c, 4)) if c < 4 else [4] for c in range(NUM_LEVELS)]
    best_high = np.array([max(high[r] for r in levels) for levels in reach], np.float32)
    surrender = np.full(NUM_LEVELS, -10.0, np.float32)
    factor = np.array(LEVEL_FACTOR, np.float32)
    return {
        "declare": (np.concatenate([low, surrender]), np.concatenate([high, best_high])),
        "contract": (low, high),
        # per contract: a defender's worst (no trick) and best (two defenders, all ten tricks)
        "whist": (defender_score(0, False) * factor, defender_score(NUM_TRICKS, False) * factor),
    }


BOUNDS = _score_bounds()


def _mask(hand: Any) -> int:
    if isinstance(hand, (int, np.integer)) and not isinstance(hand, bool):
        mask = int(hand)
    else:
        mask = 0
        for card in hand:
            mask |= 1 << int(card)
    if not 0 <= mask < 1 << 32:
        raise ValueError(f"a Paston hand is a mask of 32 card ids, got {hand!r}")
    return mask


def hand_features(hand: Any) -> np.ndarray:
    """36 floats: a 1 for each card id ``8 * suit + rank`` in ``hand`` (a mask or card ids),
    then the length of each suit (S, C, D, H) divided by 8."""
    mask = _mask(hand)
    bits = np.unpackbits(np.array([mask], dtype="<u4").view(np.uint8), bitorder="little")
    out = np.zeros(HAND_SIZE, dtype=np.float32)
    out[:32] = bits
    out[32:] = bits.reshape(4, 8).sum(axis=1) / 8.0
    return out


def _one_hot(index: int, size: int, what: str) -> np.ndarray:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise ValueError(f"{what} must be an int, got {index!r}")
    if not 0 <= index < size:
        raise ValueError(f"{what} must be 0..{size - 1}, got {index}")
    out = np.zeros(size, dtype=np.float32)
    out[int(index)] = 1.0
    return out


def declare_features(hand: Any, position: int) -> np.ndarray:
    """The declare head's input: :func:`hand_features` of the 10 dealt cards, then the seat's
    position one-hot: 0 first bidder (dealer's left), 1 second bidder, 2 the dealer."""
    return np.concatenate([hand_features(hand), _one_hot(position, 3, "position")])


def contract_features(kept: Any, position: int, min_level: int) -> np.ndarray:
    """The contract head's input: the 10 kept cards, the position (as :func:`declare_features`)
    and the minimum contract level one-hot (0 spades … 3 hearts, 4 after a best-spades bid)."""
    return np.concatenate(
        [
            hand_features(kept),
            _one_hot(position, 3, "position"),
            _one_hot(min_level, NUM_LEVELS, "min_level"),
        ]
    )


def whist_features(hand: Any, contract: int, first_speaker: bool, partner_call: int) -> np.ndarray:
    """The whist head's input: the defender's 10 cards, the contract one-hot, the speaker
    (first: the declarer's left; second: its right) one-hot, and the first speaker's call as
    seen by the second (0 unknown, 1 whist, 2 pass; always 0 for the first speaker)."""
    if first_speaker and partner_call != 0:
        raise ValueError("the first speaker has not heard its partner: partner_call must be 0")
    return np.concatenate(
        [
            hand_features(hand),
            _one_hot(contract, NUM_LEVELS, "contract"),
            _one_hot(0 if first_speaker else 1, 2, "speaker"),
            _one_hot(partner_call, 3, "partner_call"),
        ]
    )


class PastonEvaluator:
    """The three heads (see the module docstring), evaluated with numpy."""

    def __init__(self, heads: dict[str, Mlp], meta: dict[str, Any] | None = None):
        missing = set(HEADS) - set(heads)
        if missing:
            raise ValueError(f"the evaluator lacks the heads {sorted(missing)}")
        for name, mlp in heads.items():
            size, outputs = HEADS[name]
            if mlp.weights[0].shape[0] != size or mlp.weights[-1].shape[1] != len(outputs):
                raise ValueError(f"the {name} head's shape does not match its features")
        self.heads = heads
        self.meta = meta or {}

    # Every value is clipped to the scores its output can take (:data:`BOUNDS`): a hand unlike
    # the training hands (say six top trumps and three aces) must not be worth more than a
    # contract can score.

    def declare(self, hand: Any, position: int) -> np.ndarray:
        """10 values: declaring each contract level, then the best reachable from each level."""
        return np.clip(self.heads["declare"](declare_features(hand, position)), *BOUNDS["declare"])

    def contract(self, kept: Any, position: int, min_level: int) -> np.ndarray:
        """5 values: naming each contract level (only those ``min_level`` allows are meant)."""
        x = contract_features(kept, position, min_level)
        return np.clip(self.heads["contract"](x), *BOUNDS["contract"])

    def contract_many(self, kept: list[int], position: int, min_level: int) -> np.ndarray:
        """:meth:`contract` of several kept hands at once, (len(kept), 5)."""
        x = np.stack([contract_features(k, position, min_level) for k in kept])
        return np.clip(self.heads["contract"](x), *BOUNDS["contract"])

    def whist(self, hand: Any, contract: int, first_speaker: bool, partner_call: int) -> float:
        """The mean score of whisting (passing scores 0)."""
        x = whist_features(hand, contract, first_speaker, partner_call)
        low, high = BOUNDS["whist"]
        return float(np.clip(self.heads["whist"](x)[0], low[contract], high[contract]))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the weights (``.npz``) and the sidecar ``path`` with ``.json``."""
        path = Path(path)
        arrays: dict[str, np.ndarray] = {}
        for name, mlp in self.heads.items():
            for i, (w, b) in enumerate(zip(mlp.weights, mlp.biases, strict=True)):
                arrays[f"{name}/w{i}"] = w.astype(np.float32)
                arrays[f"{name}/b{i}"] = b.astype(np.float32)
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]
        path.with_suffix(".json").write_text(json.dumps(self.meta, indent=1, sort_keys=True))


def load_evaluator(path: str | os.PathLike[str]) -> PastonEvaluator:
    """Read an evaluator's ``.npz`` (and its ``.json`` sidecar); a missing or damaged file is
    refused in one line. The package ships two, named in
    ``folkcards.agents.paston_expert.NAMED_MODELS``."""
    path = Path(path)
    try:
        with np.load(path) as data:
            arrays = {key: np.asarray(data[key], dtype=np.float32) for key in data.files}
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read the Paston evaluator {path}: {error}") from None
    heads: dict[str, Mlp] = {}
    for name in HEADS:
        layers = sorted(int(k.split("/w")[1]) for k in arrays if k.startswith(f"{name}/w"))
        if not layers:
            raise ValueError(f"{path} is not a Paston evaluator (no {name} head)")
        heads[name] = Mlp(
            tuple(arrays[f"{name}/w{i}"] for i in layers),
            tuple(arrays[f"{name}/b{i}"] for i in layers),
        )
    sidecar = path.with_suffix(".json")
    meta = json.loads(sidecar.read_text()) if sidecar.exists() else {}
    return PastonEvaluator(heads, meta)


def pass_value(
    evaluator: PastonEvaluator,
    hand: int,
    high_bid: int | None,
    high_bidder: int | None,
    weight: float,
    whist_margin: float = 0.0,
) -> float:
    """What passing is worth in the auction to the seat holding ``hand``, with the highest bid
    ``high_bid`` (a level) held by ``high_bidder`` (a seat relative to this one: 1 its left,
    2 its right): ``weight`` times the whist head's value of defending the contract such a
    declarer names most (hearts; best spades after a best-spades bid) from this seat's side, 0
    when that value is not above ``whist_margin`` (it would not whist) or when no other seat
    holds a bid."""
    if not weight or high_bid is None or high_bidder in (None, 0):
        return 0.0
    contract = BEST_SPADES if high_bid == BEST_SPADES else HEARTS
    whist = evaluator.whist(hand, contract, high_bidder == 2, 0)
    return weight * whist if whist > whist_margin else 0.0


def _sigmoid(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-np.clip(x, -50.0, 50.0))))


class EvaluatorPolicy:
    """The evaluator's implied policy as action probabilities (for
    :func:`folkcards.search.paston_belief.weight_worlds`): a model of how the other players
    bid, name contracts and whist, learned from solver-scored outcomes instead of written as
    rules.

    - auction: bid the next level with probability ``sigmoid((value - margin - pass) /
      temperature)``, the value being the best predicted contract reachable from that level
      and ``pass`` what passing is worth (:func:`pass_value` with ``pass_weight``; 0 by
      default);
    - contract: a softmax of the predicted values of the legal contracts (surrender: −10)
      divided by ``temperature``;
    - defence: whist with probability ``sigmoid((value - whist_margin) / temperature)``
      (``whist_margin`` defaults to ``margin``);
    - other decisions (discards, card play): no opinion (uniform).
    """

    def __init__(
        self,
        evaluator: PastonEvaluator,
        margin: float = 0.0,
        temperature: float = 5.0,
        pass_weight: float = 0.0,
        whist_margin: float | None = None,
    ):
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0 points, got {temperature!r}")
        if not 0 <= pass_weight <= 1:
            raise ValueError(f"pass_weight must be in [0, 1], got {pass_weight!r}")
        self.evaluator = evaluator
        self.margin = float(margin)
        self.temperature = float(temperature)
        self.pass_weight = float(pass_weight)
        self.whist_margin = self.margin if whist_margin is None else float(whist_margin)

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """Probabilities over the action ids (zeros: uniform over the legal actions)."""
        from ..envs.paston import observation as obs_mod
        from ..envs.paston.vocabulary import (
            BID_BASE,
            CONTRACT_BASE,
            NUM_ACTIONS,
            PASS,
            SURRENDER,
            WHIST,
        )

        mask = np.asarray(observation["action_mask"])
        probs = np.zeros(NUM_ACTIONS)
        view = obs_mod.decode(np.asarray(observation["observation"]))
        hand = sum(1 << c for c in view.hand)
        position = (0 - view.first_bidder) % 3
        if view.phase == "auction":
            bids = [a for a in np.flatnonzero(mask) if a != PASS]
            if bids and mask[PASS]:
                level = int(bids[0]) - BID_BASE
                values = self.declare(hand, position)
                reach = [4] if level == 4 else list(range(level, 4))
                passing = pass_value(
                    self.evaluator, hand, view.high_bid, view.high_bidder, self.pass_weight,
                    self.whist_margin,
                )  # fmt: skip
                value = max(values[c] for c in reach) - self.margin - passing
                p = _sigmoid(value / self.temperature)
                probs[bids[0]], probs[PASS] = p, 1 - p
        elif view.phase == "contract" and len(view.hand) == 10:
            legal = [int(a) for a in np.flatnonzero(mask)]
            min_level = max(view.high_bid if view.high_bid is not None else 0, 0)
            named = self.evaluator.contract(hand, position, min_level)
            scores = np.array(
                [-10.0 if a == SURRENDER else float(named[a - CONTRACT_BASE]) for a in legal]
            )
            weights = np.exp((scores - scores.max()) / self.temperature)
            probs[legal] = weights / weights.sum()
        elif view.phase == "defence" and view.declarer is not None and view.contract is not None:
            first = view.declarer == 2
            partner = 3 - view.declarer
            call = 0 if first else (1 if view.whist[partner] else 2)
            value = self.evaluator.whist(hand, view.contract, first, call)
            p = _sigmoid((value - self.whist_margin) / self.temperature)
            probs[WHIST], probs[PASS] = p, 1 - p
        return probs

    @functools.lru_cache(maxsize=4096)  # noqa: B019  (one policy per agent; hands repeat)
    def declare(self, hand: int, position: int) -> tuple[float, ...]:
        """The declare head's ``declare_c`` values, cached by hand and position."""
        return tuple(float(v) for v in self.evaluator.declare(hand, position)[:NUM_LEVELS])
