"""Train the Paston evaluator (:mod:`folkcards.search.paston_evaluator`) on open-hand tables.

``folkcards train-evaluator --config configs/paston/evaluator.yaml``. The data are the
open-hand tables of :mod:`folkcards.envs.paston_bidding.tables`: for each deal, each declarer
seat, each minimum level and trump, each defence, the solver's tricks after the table's discard.
From them, for every seat of every deal:

- **declare** targets: the score of declaring each contract ``c`` after winning the auction at
  ``c`` (the table's discard pair for minimum level ``c``), and the best score reachable from
  each auction level, floored at −10 (surrender);
- **contract** samples: the 10 cards the table's declarer keeps at each minimum level and the
  score of naming each contract that level allows;
- **whist** samples, for the declarers the trained declare head would let declare ``c``
  (predicted value above ``whist_filter``): the declarer's left whisting (its right answering
  as the defence model does) and the right whisting after the left's call.

The **defence model** (``heuristic``): each defender whists or passes as the Paston heuristic
would with its hand (:func:`folkcards.agents.paston_heuristic.defence_call`, the left first),
both passing is the declarer's automatic win; ``both``: both always whist. Tricks are credited
as ``paston_bidding_v0`` credits them (:mod:`folkcards.envs.paston_bidding.solved_scores`).

Training is least-squares regression (torch, Adam) with early stopping on the last
``holdout_fraction`` of the training table's deals; deterministic given ``seed`` (one torch
thread). The validation table (other deals, another seed) gives the reported error beside the
error of predicting the training mean.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..agents.paston_heuristic import defence_call
from ..envs.paston.rules import (
    LEVEL_FACTOR,
    LEVEL_TRUMP,
    NUM_TRICKS,
    declarer_score,
    defender_score,
    left_of,
    right_of,
)
from ..envs.paston_bidding.solved_scores import two_defender_result
from ..envs.paston_bidding.tables import (
    OpenHandTable,
    load_table,
    shipped_table_path,
)
from ..search.mlp import Mlp
from ..search.paston_evaluator import (
    HEADS,
    NUM_LEVELS,
    PastonEvaluator,
    contract_features,
    declare_features,
    whist_features,
)
from .settings import load_flat_config

SURRENDER = -10.0


class EvaluatorConfig(BaseModel):
    """The training config (``configs/paston/evaluator.yaml``); every key has a default."""

    model_config = ConfigDict(extra="forbid")

    train_table: str = "runs/tables/train_8000.table"
    validation_table: str = "shipped"  # a table file, or "shipped" (3,000 deals, seed 2025)
    out: str = "runs/paston_evaluator.npz"
    seed: int = Field(0, ge=0)
    train_deals: int | None = Field(None, ge=2)  # the first N deals of the training table
    validation_deals: int | None = Field(None, ge=1)
    hidden: list[int] = Field(default_factory=lambda: [128, 128], min_length=1)
    epochs: int = Field(60, ge=1)
    patience: int = Field(10, ge=1)
    batch_size: int = Field(256, ge=1)
    lr: float = Field(1e-3, gt=0)
    weight_decay: float = Field(1e-4, ge=0)
    holdout_fraction: float = Field(0.1, gt=0, lt=1)
    defence_model: Literal["heuristic", "both"] = "heuristic"
    whist_filter: float = 0.0


def load_evaluator_config(path: str | Path, **overrides: Any) -> EvaluatorConfig:
    """The config in ``path`` with ``overrides``; ``ConfigError`` in one line if it is bad."""
    return load_flat_config(EvaluatorConfig, path, **overrides)


# --- the data --------------------------------------------------------------------------------


def position_of(seat: int, dealer: int) -> int:
    """0 for the first bidder (dealer's left), 1 for the second, 2 for the dealer."""
    return (seat - dealer - 1) % 3


class _Deal:
    """Scores of one table deal under a defence model."""

    def __init__(self, table: OpenHandTable, index: int, defence_model: str):
        self.t = table
        self.i = index
        self.model = defence_model
        self.hands = [int(h) for h in table.hands[index]]
        self._calls: dict[tuple[int, int], tuple[bool, bool]] = {}

    def calls(self, declarer: int, level: int) -> tuple[bool, bool]:
        """Whether the declarer's left and right whist against ``level``."""
        key = (declarer, level)
        if key not in self._calls:
            if self.model == "both":
                self._calls[key] = (True, True)
            else:
                left = defence_call(
                    self.hands[left_of(declarer)],
                    level,
                    all_pass=False,
                    first_speaker=True,
                    other_whisted=False,
                )
                right = defence_call(
                    self.hands[right_of(declarer)],
                    level,
                    all_pass=False,
                    first_speaker=False,
                    other_whisted=left,
                )
                self._calls[key] = (left, right)
        return self._calls[key]

    def entry(self, declarer: int, min_level: int, level: int, defence: int) -> np.ndarray:
        return self.t.results[self.i, declarer, min_level, LEVEL_TRUMP[level], defence]

    def declarer_value(self, declarer: int, min_level: int, level: int) -> float:
        """The declarer's score for naming ``level`` after the table's discard at
        ``min_level``, the defenders calling as the defence model does."""
        left, right = self.calls(declarer, level)
        if not left and not right:
            return float(declarer_score(NUM_TRICKS, level))
        defence = 0 if left and right else (1 if left else 2)
        return float(declarer_score(int(self.entry(declarer, min_level, level, defence)[0]), level))

    def defender_value(self, declarer: int, level: int, seat: int, partner_whists: bool) -> float:
        """The score of ``seat`` whisting against ``level`` (the table's discard for minimum
        level ``level``) with its partner whisting or passing."""
        factor = LEVEL_FACTOR[level]
        if partner_whists:
            t, g_left, g_right = (int(v) for v in self.entry(declarer, level, level, 0))
            tricks = two_defender_result(declarer, NUM_TRICKS, t, g_left, g_right).tricks[seat]
            return float(defender_score(tricks, False) * factor)
        alone = 1 if seat == left_of(declarer) else 2
        t = int(self.entry(declarer, level, level, alone)[0])
        return float(defender_score(NUM_TRICKS - t, True) * factor)


def _reachable_levels(min_level: int) -> list[int]:
    return [4] if min_level == 4 else list(range(min_level, 4))


@dataclass
class Dataset:
    """Inputs, targets and a mask of the targets that exist (1) for one head."""

    x: np.ndarray
    y: np.ndarray
    mask: np.ndarray
    deal: np.ndarray  # the table index of each sample (for splitting by deal)


def _stack(rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]], head: str) -> Dataset:
    size, outputs = HEADS[head]
    if not rows:
        empty = np.zeros((0, len(outputs)), np.float32)
        return Dataset(np.zeros((0, size), np.float32), empty, empty, np.zeros(0, np.int64))
    x, y, m, d = zip(*rows, strict=True)
    return Dataset(
        np.stack(x).astype(np.float32),
        np.stack(y).astype(np.float32),
        np.stack(m).astype(np.float32),
        np.array(d, dtype=np.int64),
    )


def declare_data(table: OpenHandTable, deals: Iterable[int], defence_model: str) -> Dataset:
    """Every seat of every deal: :func:`declare_features` → 10 targets (see the module)."""
    rows = []
    for i in deals:
        deal = _Deal(table, i, defence_model)
        dealer = int(table.dealer[i])
        for seat in range(3):
            y = np.zeros(2 * NUM_LEVELS, np.float32)
            for c in range(NUM_LEVELS):
                y[c] = deal.declarer_value(seat, c, c)
                best = max(deal.declarer_value(seat, c, lv) for lv in _reachable_levels(c))
                y[NUM_LEVELS + c] = max(best, SURRENDER)
            x = declare_features(deal.hands[seat], position_of(seat, dealer))
            rows.append((x, y, np.ones_like(y), i))
    return _stack(rows, "declare")


def contract_data(table: OpenHandTable, deals: Iterable[int], defence_model: str) -> Dataset:
    """Every seat and minimum level of every deal: the table's kept cards → each allowed
    contract's score."""
    rows = []
    for i in deals:
        deal = _Deal(table, i, defence_model)
        dealer = int(table.dealer[i])
        prikup = int(table.prikup[i])
        for seat in range(3):
            for m in range(NUM_LEVELS):
                kept = (deal.hands[seat] | prikup) & ~int(table.discards[i, seat, m])
                y = np.zeros(NUM_LEVELS, np.float32)
                mask = np.zeros(NUM_LEVELS, np.float32)
                for lv in _reachable_levels(m):
                    y[lv] = deal.declarer_value(seat, m, lv)
                    mask[lv] = 1.0
                rows.append((contract_features(kept, position_of(seat, dealer), m), y, mask, i))
    return _stack(rows, "contract")


def whist_data(
    table: OpenHandTable,
    deals: Iterable[int],
    defence_model: str,
    declares: Callable[[int, int, int], bool],
) -> Dataset:
    """Defence samples of the (deal, declarer, contract) triples ``declares(i, seat, level)``
    accepts: the left (its right answering as the defence model does), the right after the
    left's call (the call the defence model gives the left)."""
    rows = []
    one = np.ones(1, np.float32)
    for i in deals:
        deal = _Deal(table, i, defence_model)
        for d in range(3):
            left, right = left_of(d), right_of(d)
            for c in range(NUM_LEVELS):
                if not declares(i, d, c):
                    continue
                left_call, _ = deal.calls(d, c)
                if defence_model == "both":
                    right_answers = True
                else:
                    right_answers = defence_call(
                        deal.hands[right],
                        c,
                        all_pass=False,
                        first_speaker=False,
                        other_whisted=True,
                    )
                y = np.array([deal.defender_value(d, c, left, right_answers)], np.float32)
                rows.append((whist_features(deal.hands[left], c, True, 0), y, one, i))
                y = np.array([deal.defender_value(d, c, right, left_call)], np.float32)
                call = 1 if left_call else 2
                rows.append((whist_features(deal.hands[right], c, False, call), y, one, i))
    return _stack(rows, "whist")


# --- the regression --------------------------------------------------------------------------


def masked_mse(pred: np.ndarray, data: Dataset) -> float:
    """The mean squared error over the targets that exist."""
    err = (pred - data.y) ** 2 * data.mask
    return float(err.sum() / max(data.mask.sum(), 1.0))


def constant_mse(train: Dataset, data: Dataset) -> float:
    """The error of predicting each output's training mean (the baseline to beat)."""
    mean = (train.y * train.mask).sum(axis=0) / np.maximum(train.mask.sum(axis=0), 1.0)
    return masked_mse(np.broadcast_to(mean, data.y.shape), data)


def fit(
    train: Dataset, holdout: Dataset, config: EvaluatorConfig, seed: int
) -> tuple[Mlp, dict[str, Any]]:
    """A ReLU MLP fitted to ``train`` by masked least squares, the epoch with the lowest
    ``holdout`` error kept (early stopping after ``patience`` epochs without progress)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    sizes = [train.x.shape[1], *config.hidden, train.y.shape[1]]
    layers: list[torch.nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers[:-1])
    optim = torch.optim.Adam(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    x, y, m = (torch.from_numpy(a) for a in (train.x, train.y, train.mask))
    hx = torch.from_numpy(holdout.x)
    rng = np.random.default_rng(seed)

    def holdout_error() -> float:
        with torch.no_grad():
            return masked_mse(net(hx).numpy(), holdout)

    best = (holdout_error(), 0, [p.detach().clone() for p in net.parameters()])
    history = [best[0]]
    for epoch in range(1, config.epochs + 1):
        order = torch.from_numpy(rng.permutation(len(x)))
        for start in range(0, len(x), config.batch_size):
            idx = order[start : start + config.batch_size]
            err = ((net(x[idx]) - y[idx]) ** 2 * m[idx]).sum() / m[idx].sum().clamp(min=1.0)
            optim.zero_grad()
            err.backward()
            optim.step()
        error = holdout_error()
        history.append(error)
        if error < best[0]:
            best = (error, epoch, [p.detach().clone() for p in net.parameters()])
        elif epoch - best[1] >= config.patience:
            break
    params = [p.numpy().astype(np.float32) for p in best[2]]
    mlp = Mlp(tuple(w.T.copy() for w in params[0::2]), tuple(params[1::2]))
    return mlp, {"best_epoch": best[1], "holdout_mse": best[0], "holdout_curve": history}


def _split(data: Dataset, deals: np.ndarray) -> Dataset:
    keep = np.isin(data.deal, deals)
    return Dataset(data.x[keep], data.y[keep], data.mask[keep], data.deal[keep])


def _table(path: str) -> tuple[OpenHandTable, str]:
    if path == "shipped":
        return load_table(shipped_table_path()), "shipped (envs/paston_bidding/data)"
    return load_table(path), path


def train_evaluator(
    config: EvaluatorConfig, log: Callable[[str], None] = lambda _: None
) -> tuple[PastonEvaluator, dict[str, Any]]:
    """Build the data, fit the three heads, measure them on the validation table."""
    table, table_path = _table(config.train_table)
    valid, valid_path = _table(config.validation_table)
    if table.header["generator"]["seed"] == valid.header["generator"]["seed"]:
        raise ValueError("the training and validation tables have the same seed (the same deals)")
    n = min(config.train_deals or len(table), len(table))
    nv = min(config.validation_deals or len(valid), len(valid))
    deals = np.arange(n)
    cut = n - max(1, int(round(n * config.holdout_fraction)))
    fit_deals, hold_deals = deals[:cut], deals[cut:]
    heads: dict[str, Mlp] = {}
    report: dict[str, Any] = {}
    data: dict[str, Dataset] = {}
    val: dict[str, Dataset] = {}
    for k, name in enumerate(("declare", "contract", "whist")):
        start = time.perf_counter()
        if name == "whist":
            filt = config.whist_filter
            p_train = predicted_declare(heads["declare"], table)
            p_valid = predicted_declare(heads["declare"], valid)
            data[name] = whist_data(table, deals, config.defence_model, _declares(p_train, filt))
            val[name] = whist_data(valid, range(nv), config.defence_model, _declares(p_valid, filt))
        else:
            builder = declare_data if name == "declare" else contract_data
            data[name] = builder(table, deals, config.defence_model)
            val[name] = builder(valid, range(nv), config.defence_model)
        train_part = _split(data[name], fit_deals)
        hold_part = _split(data[name], hold_deals)
        if len(train_part.x) == 0 or len(hold_part.x) == 0:
            raise ValueError(f"too few {name} samples to train on; use more deals")
        mlp, info = fit(train_part, hold_part, config, config.seed + k)
        heads[name] = mlp
        pred = mlp(val[name].x)
        report[name] = {
            "train_samples": len(train_part.x),
            "holdout_samples": len(hold_part.x),
            "validation_samples": len(val[name].x),
            "best_epoch": info["best_epoch"],
            "holdout_mse": round(info["holdout_mse"], 3),
            "validation_mse": round(masked_mse(pred, val[name]), 3),
            "validation_mse_of_the_training_mean": round(constant_mse(train_part, val[name]), 3),
            "validation_mse_by_output": [
                round(masked_mse(pred[:, j : j + 1], _column(val[name], j)), 3)
                for j in range(pred.shape[1])
            ],
            "seconds": round(time.perf_counter() - start, 1),
        }
        log(
            f"{name}: {len(train_part.x)} samples, validation MSE "
            f"{report[name]['validation_mse']} (training mean: "
            f"{report[name]['validation_mse_of_the_training_mean']}), epoch {info['best_epoch']}"
        )
    meta = {
        "format": 1,
        "what": "folkcards Paston evaluator (folkcards.search.paston_evaluator)",
        "outputs": {name: list(outputs) for name, (_, outputs) in HEADS.items()},
        "features": {
            "declare": "hand_features(10 dealt cards) + position one-hot "
            "(first bidder, second bidder, dealer)",
            "contract": "hand_features(10 kept cards) + position + minimum level one-hot",
            "whist": "hand_features(10 cards) + contract one-hot + speaker (first, second) + "
            "first speaker's call (unknown, whist, pass)",
            "hand_features": "32 card bits (id 8*suit+rank) + 4 suit lengths / 8",
        },
        "data": {
            "train_table": table_path,
            "train_table_seed": table.seed,
            "train_deals": n,
            "holdout_deals": len(hold_deals),
            "validation_table": valid_path,
            "validation_table_seed": valid.seed,
            "validation_deals": nv,
            "discards": table.header["generator"]["discards"],
            "defence_model": config.defence_model,
            "whist_filter": config.whist_filter,
            "score": "table score (docs/rules/paston.md §7), tricks credited as paston_bidding_v0",
        },
        "config": config.model_dump(),
        "validation": report,
    }
    return PastonEvaluator(heads, meta), meta


def predicted_declare(head: Mlp, table: OpenHandTable) -> np.ndarray:
    """The declare head's ``declare_c`` values of every seat of every deal, (N, 3, 5)."""
    x = np.stack(
        [
            declare_features(int(table.hands[i, s]), position_of(s, int(table.dealer[i])))
            for i in range(len(table))
            for s in range(3)
        ]
    )
    return head(x)[:, :NUM_LEVELS].reshape(len(table), 3, NUM_LEVELS)


def _declares(values: np.ndarray, threshold: float) -> Callable[[int, int, int], bool]:
    return lambda i, s, c: bool(values[i, s, c] > threshold)


def _column(data: Dataset, j: int) -> Dataset:
    return Dataset(data.x, data.y[:, j : j + 1], data.mask[:, j : j + 1], data.deal)


# --- the command -----------------------------------------------------------------------------

DESCRIPTION = (
    "Train the Paston evaluator (learned bidding, contract and whist values) on open-hand "
    "tables, from a YAML config (configs/paston/evaluator.yaml). Writes the weights (.npz) and "
    "a sidecar (.json) with the data, features and validation error. Deterministic given the "
    "config's seed."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the YAML config")
    p.add_argument("--out", help="override the config's out (the .npz to write)")
    p.add_argument("--seed", type=int, help="override the config's seed")
    p.add_argument("--train-deals", type=int, help="override train_deals")


def run(args: argparse.Namespace) -> int:
    """``folkcards train-evaluator``: bad input is one line on stderr and exit code 2."""
    try:
        config = load_evaluator_config(
            args.config, out=args.out, seed=args.seed, train_deals=args.train_deals
        )
        out = Path(config.out)
        if out.suffix != ".npz" or not out.parent.is_dir():
            raise ValueError(f"out must be a .npz file in an existing folder, got {config.out!r}")
        evaluator, meta = train_evaluator(config, log=lambda line: print(line, flush=True))
    except ValueError as error:
        print(f"folkcards train-evaluator: {error}", file=sys.stderr)
        return 2
    except ImportError:
        print(
            "folkcards train-evaluator: needs torch: pip install 'folkcards[train]'",
            file=sys.stderr,
        )
        return 2
    evaluator.save(out)
    print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0
