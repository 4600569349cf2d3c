"""The Paston evaluator refitted to the expert's own results: one step of expert iteration.

``folkcards refit-evaluator --config configs/paston/evaluator_outcomes.yaml``

The evaluator (:mod:`folkcards.search.paston_evaluator`) is trained on open-hand tables: each
value is what the solver scores with every hand visible. The ``expert`` plays without seeing
the hands, and its card play is ``pimc``'s. This step lets it learn from its own play:

1. **Collect.** The expert (with the evaluator being refitted) plays itself in every seat on
   seeded deals. At each call the evaluator makes (the declarer's contract, a defender's
   whist, and, for the seat that becomes declarer, its dealt hand as the auction saw it) the
   head's input and the output it chose are kept with the score that seat then made in the
   deal (its reward, ``docs/rules/paston.md`` §7). Chunk ``k`` plays ``deals`` deals with the
   generator seeded ``seed + k``; chunks are stored whole, so a run resumes at its first missing
   chunk and any number of processes stores the same data.
2. **Fit.** Each head starts from the evaluator's weights and is fitted by least squares: the
   chosen output toward the realized score, every other output toward the evaluator's own
   prediction (weighted by ``anchor``), so what the expert never chose stays where the open-hand
   tables put it. The epoch with the lowest held-out error on the chosen outputs is kept.

The result is an evaluator file (``.npz`` and its ``.json`` sidecar, which records the data, the
settings and the held-out errors before and after); ``expert:model=PATH`` plays with it. The
committed ``expert:model=refit`` is ``configs/paston/evaluator_outcomes.yaml`` run from the
``open_hand`` evaluator; ``folkcards iterate --config configs/paston/iterate.yaml`` repeats the
step in generations, each gated against its teacher (:mod:`folkcards.train.paston_iterate`).
Deterministic given the config.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..agents.episode import play_episode
from ..agents.paston_expert import (
    DEFAULT_MODEL,
    NAMED_MODELS,
    ExpertAgent,
    model_path,
    parse_spec,
)
from ..envs.paston import observation as obs_mod
from ..envs.paston.rules import CONTRACT_BASE, SURRENDER, WHIST
from ..envs.registry import game_spec
from ..evaluate.running.progress import progress
from ..search.mlp import Mlp
from ..search.paston_evaluator import (
    HEADS,
    PastonEvaluator,
    contract_features,
    declare_features,
    load_evaluator,
    whist_features,
)
from .chunks import play_chunks
from .settings import load_flat_config

__all__ = ["OutcomeConfig", "RecordingExpert", "collect_chunk", "fit_outcomes", "refit"]

SEED_RANGE = 2**31


def check_expert_keys(value: str) -> str:
    """``value`` if it is a list of the expert's spec keys other than ``model`` and ``seed``
    (which the loop sets); ``ValueError`` in one line otherwise."""
    if not value:
        return value
    keys = {part.partition("=")[0].strip() for part in value.split(",")}
    if keys & {"model", "seed"}:
        raise ValueError(f"expert: model and seed are set by the run, got {value!r}")
    parse_spec(value)  # a bad key or value: ValueError in one line
    return value


class OutcomeConfig(BaseModel):
    """``configs/paston/evaluator_outcomes.yaml``."""

    model_config = ConfigDict(extra="forbid")

    base: str = DEFAULT_MODEL  # the evaluator the expert collects with and the fit starts from:
    # a committed one by name (NAMED_MODELS) or a path
    expert: str = ""  # the expert's other spec keys while it collects (e.g. samples=16)
    deals: int = Field(5000, ge=1)  # deals per chunk
    chunks: int = Field(2, ge=1)
    seed: int = Field(0, ge=0)  # chunk k: the generator seeded seed + k
    workers: int = Field(1, ge=1)  # processes playing the chunks: the same data for any number
    data_dir: str = "runs/evaluator_outcomes"
    anchor: float = Field(1.0, ge=0)  # weight of the unchosen outputs' own predictions
    epochs: int = Field(30, ge=1)
    lr: float = Field(3e-4, gt=0)
    batch_size: int = Field(256, ge=1)
    holdout_fraction: float = Field(0.1, gt=0, lt=1)
    min_samples: int = Field(200, ge=1)  # a head with fewer samples is kept as it is
    fit_seed: int = Field(0, ge=0)
    out: str = "runs/evaluator_outcomes/paston_evaluator.npz"

    @field_validator("base")
    @classmethod
    def _named_or_path(cls, value: str) -> str:
        if value == "shipped":  # the open-hand evaluator until 0.11.0, refit_2 since
            raise ValueError(
                f"'shipped' is ambiguous: name one of {', '.join(NAMED_MODELS)} or a path"
            )
        return value

    @field_validator("expert")
    @classmethod
    def _expert_keys(cls, value: str) -> str:
        return check_expert_keys(value)

    def base_path(self) -> Path:
        """The file ``base`` names (``expert:model=``'s names or a path)."""
        return model_path(self.base)


class RecordingExpert(ExpertAgent):
    """The expert, noting each call its evaluator makes: ``(head, input, chosen output)``."""

    def reset(self) -> None:
        super().reset()
        self.notes: list[tuple[str, np.ndarray, int]] = []
        self.dealt: np.ndarray | None = None

    def _bid(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        # the auction's first call: the dealt hand, as the declare head reads it
        if self.dealt is None:
            self.dealt = declare_features(sum(1 << c for c in view.hand), self._position(view))
        return super()._bid(vector, view, legal)

    def _contract(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        action = super()._contract(vector, view, legal)
        if action != SURRENDER:
            level = action - CONTRACT_BASE
            kept = sum(1 << c for c in view.hand)
            features = contract_features(kept, self._position(view), self._min_level(view))
            self.notes.append(("contract", features, level))
            if self.dealt is not None:
                self.notes.append(("declare", self.dealt, level))
        return action

    def _whist(self, vector: np.ndarray, view: obs_mod.PastonView, legal: list[int]) -> int:
        action = super()._whist(vector, view, legal)
        by_head = not (view.all_pass or self.expert.whist_search)
        if action == WHIST and by_head:
            self.notes.append(("whist", whist_features(*self.whist_inputs(view)), 0))
        return action


def collect_chunk(config: OutcomeConfig, k: int) -> dict[str, np.ndarray]:
    """Chunk ``k``'s samples: ``HEAD_x``, ``HEAD_j`` (the chosen output), ``HEAD_y`` (the score)."""
    env = game_spec("paston").env_module().raw_env()
    rng = np.random.default_rng(config.seed + k)
    model = f"model={config.base_path()}" + (f",{config.expert}" if config.expert else "")
    rows: dict[str, tuple[list[np.ndarray], list[int], list[float]]] = {
        head: ([], [], []) for head in HEADS
    }
    for _ in range(config.deals):
        seats = [
            RecordingExpert("paston", f"player_{s}", int(rng.integers(SEED_RANGE)), model)
            for s in range(3)
        ]
        run = play_episode(env, seats, seed=int(rng.integers(SEED_RANGE)))
        for s, agent in enumerate(seats):
            score = float(run.returns[f"player_{s}"])
            for head, features, chosen in agent.notes:
                rows[head][0].append(features)
                rows[head][1].append(chosen)
                rows[head][2].append(score)
    arrays: dict[str, np.ndarray] = {}
    for head, (xs, js, ys) in rows.items():
        size = HEADS[head][0]
        arrays[f"{head}_x"] = np.array(xs, np.float32).reshape(-1, size)
        arrays[f"{head}_j"] = np.array(js, np.int64)
        arrays[f"{head}_y"] = np.array(ys, np.float32)
    return arrays


def _collect_and_store(job: tuple[OutcomeConfig, int]) -> None:
    config, k = job
    data = collect_chunk(config, k)
    folder = Path(config.data_dir)
    tmp = folder / f"chunk_{k:03d}.tmp.npz"
    np.savez_compressed(tmp, **data)  # type: ignore[arg-type]
    os.replace(tmp, folder / f"chunk_{k:03d}.npz")


def data_settings(config: OutcomeConfig) -> dict[str, Any]:
    """What decides a chunk's data: the evaluator (its file's SHA-256), the deals per chunk
    and the seed (raising ``chunks`` adds chunks and changes none)."""
    base = config.base_path().read_bytes()
    settings = {"base_sha256": hashlib.sha256(base).hexdigest(), "deals": config.deals,
                "seed": config.seed}  # fmt: skip
    if config.expert:  # (data stored without the key were collected with the defaults)
        settings["expert"] = config.expert
    return settings


def collect(config: OutcomeConfig, log: Any = print) -> list[Path]:
    """Every chunk's file, playing the missing ones (in ``workers`` processes). A data folder
    collected with other settings (:func:`data_settings`) is refused in one line."""
    folder = Path(config.data_dir)
    settings = data_settings(config)
    stamp = folder / "data.json"
    if stamp.is_file() and json.loads(stamp.read_text()) != settings:
        raise ValueError(
            f"{folder} holds data collected with other settings ({stamp}); use another data_dir"
        )
    folder.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps(settings, indent=1))
    paths = [folder / f"chunk_{k:03d}.npz" for k in range(config.chunks)]
    missing = [k for k, path in enumerate(paths) if not path.is_file()]
    jobs = [(config, k) for k in missing]
    with progress(
        "collect", config.chunks, "chunks", log=log, done=config.chunks - len(missing)
    ) as advance:
        play_chunks(_collect_and_store, jobs, config.workers, advance)
    return paths


def _fit_head(
    mlp: Mlp, x: np.ndarray, chosen: np.ndarray, score: np.ndarray, config: OutcomeConfig,
    rng: np.random.Generator,
) -> tuple[Mlp, dict[str, Any]]:  # fmt: skip
    """One head fitted from ``mlp``: the chosen outputs toward ``score``, the others toward
    ``mlp``'s own predictions; the epoch with the lowest held-out error on the chosen kept."""
    import torch

    rows = np.arange(len(x))
    before = mlp(x).astype(np.float32)
    target = before.copy()
    target[rows, chosen] = score
    weight = np.full_like(before, config.anchor)
    weight[rows, chosen] = 1.0
    layers: list[torch.nn.Module] = []
    for w, b in zip(mlp.weights, mlp.biases, strict=True):
        linear = torch.nn.Linear(*w.shape)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(w.T.copy()))
            linear.bias.copy_(torch.from_numpy(b))
        layers += [linear, torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers[:-1])
    order = rng.permutation(len(x))
    held = order[: int(len(x) * config.holdout_fraction)]
    train = order[int(len(x) * config.holdout_fraction) :]
    tx, tt, tw = (torch.from_numpy(a) for a in (x, target, weight))
    held_rows, held_chosen = torch.arange(len(held)), torch.from_numpy(chosen[held])
    held_index = torch.from_numpy(held)

    def held_error() -> float:
        with torch.no_grad():
            predicted = net(tx[held_index])[held_rows, held_chosen]
            return float(((predicted - tt[held_index][held_rows, held_chosen]) ** 2).mean())

    optim = torch.optim.Adam(net.parameters(), lr=config.lr)
    start = held_error()
    best = (start, [p.detach().clone() for p in net.parameters()], 0)
    for epoch in range(1, config.epochs + 1):
        shuffled = torch.from_numpy(rng.permutation(train))
        for first in range(0, len(shuffled), config.batch_size):
            idx = shuffled[first : first + config.batch_size]
            loss = ((net(tx[idx]) - tt[idx]) ** 2 * tw[idx]).sum() / tw[idx].sum()
            optim.zero_grad()
            loss.backward()
            optim.step()
        error = held_error()
        if error < best[0]:
            best = (error, [p.detach().clone() for p in net.parameters()], epoch)
    params = [p.numpy().astype(np.float32) for p in best[1]]
    fitted = Mlp(tuple(w.T.copy() for w in params[0::2]), tuple(params[1::2]))
    after = fitted(x)
    report = {
        "samples": len(x),
        "held_out_mse_chosen_before": round(start, 2),
        "held_out_mse_chosen_after": round(best[0], 2),
        "best_epoch": best[2],
        "mean_score_minus_prediction_before": round(
            float((score - before[rows, chosen]).mean()), 2
        ),
        "mean_change_of_chosen": round(float((after - before)[rows, chosen].mean()), 2),
    }
    return fitted, report


def fit_outcomes(
    base: PastonEvaluator, paths: list[Path], config: OutcomeConfig
) -> tuple[PastonEvaluator, dict[str, Any]]:
    """``base`` refitted to the samples in ``paths`` (see the module docstring)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(config.fit_seed)
    rng = np.random.default_rng(config.fit_seed)
    chunks = [dict(np.load(path)) for path in paths]
    heads: dict[str, Mlp] = {}
    report: dict[str, Any] = {}
    for head, mlp in base.heads.items():
        x, chosen, score = (
            np.concatenate([c[f"{head}_{key}"] for c in chunks]) for key in ("x", "j", "y")
        )
        if len(x) < config.min_samples:
            heads[head], report[head] = mlp, {"samples": len(x), "kept": "too few samples"}
            continue
        heads[head], report[head] = _fit_head(
            mlp, x.astype(np.float32), chosen.astype(np.int64), score.astype(np.float32),
            config, rng,
        )  # fmt: skip
    meta = dict(base.meta)
    meta["refitted_to_outcomes"] = {
        "config": config.model_dump(),
        "base": config.base,
        "heads": report,
    }
    return PastonEvaluator(heads, meta), report


def refit(config: OutcomeConfig, log: Any = print) -> PastonEvaluator:
    """Collect (resuming), fit and write ``config.out``."""
    out = Path(config.out)
    if out.suffix != ".npz":
        raise ValueError(f"out must be a .npz file, got {config.out!r}")
    base = load_evaluator(config.base_path())
    paths = collect(config, log)
    evaluator, report = fit_outcomes(base, paths, config)
    for head, row in report.items():
        log(f"{head}: {row}")
    out.parent.mkdir(parents=True, exist_ok=True)
    evaluator.save(out)
    log(f"wrote {out} and {out.with_suffix('.json')}")
    return evaluator


# --- the command -----------------------------------------------------------------------------

DESCRIPTION = (
    "Refit the Paston evaluator to the expert's own results (one step of expert iteration): "
    "the expert plays itself on seeded deals, and each head is fitted toward the scores its "
    "choices then made, from the evaluator's weights. From a YAML config "
    "(configs/paston/evaluator_outcomes.yaml); resumable; deterministic given the config."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the YAML config")
    p.add_argument("--out", help="override the config's out (the .npz to write)")
    p.add_argument("--data-dir", help="override the config's data_dir (the collected chunks)")
    p.add_argument("--workers", type=int, help="override workers (the data do not change)")


def run(args: argparse.Namespace) -> int:
    """``folkcards refit-evaluator``: bad input is one line on stderr and exit code 2."""
    try:
        config = load_flat_config(
            OutcomeConfig, args.config, out=args.out, data_dir=args.data_dir, workers=args.workers
        )
        if not config.base_path().is_file():
            raise ValueError(f"base: no evaluator file at {config.base!r}")
        refit(config, log=lambda line: print(line, flush=True))
    except ValueError as error:
        print(f"folkcards refit-evaluator: {error}", file=sys.stderr)
        return 2
    except ImportError:
        print(
            "folkcards refit-evaluator: needs torch: pip install 'folkcards[train]'",
            file=sys.stderr,
        )
        return 2
    return 0
