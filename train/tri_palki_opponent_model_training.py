"""Training the learned Tri Palki opponent model (:mod:`folkcards.agents.tri_palki_opponent_model`).

The data are the decisions players made in recorded tournaments: every record of a tournament
database is replayed, and at each decision of the action phase the acting player's hand,
the centre, the three public flags and the move it chose are one sample (tagged with the
player's name, so a config can keep some players only). A perceptron is fitted to the moves
(cross-entropy, Adam), a held-out share of the *rounds* (not of the decisions: the decisions
of one round are alike) measures how often its move is the player's, beside how often the
heuristic's rules (the search's first model) agree on the same decisions.

``folkcards train-opponent-model --config configs/tri_palki/opponent_model.yaml``; deterministic
given the config's seed (torch on the CPU, one thread).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..agents.tri_palki_opponent_model import (
    NUM_FEATURES,
    NUM_MOVES,
    LearnedOpponentModel,
    opponent_features,
)
from ..envs.replay import replay_record
from ..envs.tri_palki import observation as obs_mod
from ..envs.tri_palki_v0 import raw_env
from .settings import load_flat_config

__all__ = [
    "Decisions",
    "OpponentModelConfig",
    "fit_opponent_model",
    "recorded_decisions",
]


class OpponentModelConfig(BaseModel):
    """The training config (``configs/tri_palki/opponent_model.yaml``)."""

    model_config = ConfigDict(extra="forbid")

    databases: list[str] = Field(min_length=1)  # tournament databases of Tri Palki records
    players: list[str] = Field(default_factory=list)  # keep these players' decisions (all: [])
    out: str = "runs/tri_palki_opponents.npz"
    seed: int = Field(0, ge=0)
    hidden: list[int] = Field(default_factory=lambda: [128, 128], min_length=1)
    epochs: int = Field(20, ge=1)
    batch_size: int = Field(512, ge=1)
    lr: float = Field(1e-3, gt=0)
    holdout_fraction: float = Field(0.1, gt=0, lt=1)
    max_records: int | None = Field(None, ge=1)  # per database, the first N records


def load_opponent_model_config(path: str | Path, **overrides: Any) -> OpponentModelConfig:
    """The config in ``path`` with ``overrides``; ``ConfigError`` in one line if it is bad."""
    return load_flat_config(OpponentModelConfig, path, **overrides)


@dataclass(frozen=True)
class Decisions:
    """Recorded action-phase decisions as arrays of equal length."""

    hand: np.ndarray  # int64 card masks
    centre: np.ndarray
    reserve_low: np.ndarray  # bool
    announced: np.ndarray
    deciding: np.ndarray
    move: np.ndarray  # int64, 0..NUM_MOVES-1
    player: np.ndarray  # str, the player's name in the tournament
    round_id: np.ndarray  # int64, one id per recorded round

    def __len__(self) -> int:
        return len(self.move)

    def features(self) -> np.ndarray:
        return opponent_features(
            self.hand, self.centre, self.reserve_low, self.announced, self.deciding
        )

    def subset(self, keep: np.ndarray) -> Decisions:
        return Decisions(**{k: getattr(self, k)[keep] for k in self.__dataclass_fields__})


def _mask(cards: list[int]) -> int:
    return sum(1 << int(c) for c in cards)


_Row = tuple[int, int, bool, bool, bool, int, str, int]


def _decisions_of(
    record: dict[str, Any], seats: list[str], players: Sequence[str] | None, round_id: int
) -> list[_Row]:
    """The action-phase decisions of one record (``seats``: the player's name per seat), of
    ``players`` only when given, as rows of :class:`Decisions`."""
    rows: list[_Row] = []

    def keep(env: Any, agent: str, action: int) -> None:
        name = seats[int(agent.rsplit("_", 1)[1])]
        view = obs_mod.decode(np.asarray(env.observe(agent)["observation"]))
        if view.phase == "action" and action < NUM_MOVES and (not players or name in players):
            rows.append(
                (
                    _mask(view.hand), _mask(view.centre), view.reserve_low, view.announced,
                    view.pass_ends_round, int(action), name, round_id,
                )
            )  # fmt: skip

    replay_record(raw_env(**record.get("env_kwargs", {})), record, before_step=keep)
    return rows


def recorded_decisions(
    databases: Sequence[str | Path],
    players: Sequence[str] | None = None,
    max_records: int | None = None,
) -> Decisions:
    """Every action-phase decision of the records in ``databases`` (only ``players``' when
    given), replayed through the env; ``ValueError`` in one line for a missing database or
    one of another game."""
    rows: list[_Row] = []
    round_id = 0
    for db in databases:
        if not Path(db).is_file():
            raise ValueError(f"no tournament database at {db}")
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            query = "SELECT seats_json, record_json FROM units ORDER BY deal, lineup, seating"
            if max_records is not None:
                query += f" LIMIT {int(max_records)}"
            for seats_json, record_json in conn.execute(query):
                seats, record = json.loads(seats_json), json.loads(record_json)
                if record.get("game") != "tri_palki":
                    raise ValueError(f"{db} holds {record.get('game')!r} records, not Tri Palki")
                rows.extend(_decisions_of(record, seats, players, round_id))
                round_id += 1
    if not rows:
        raise ValueError("no recorded decision matches: check databases and players")
    columns = list(zip(*rows, strict=True))
    return Decisions(
        hand=np.array(columns[0], dtype=np.int64),
        centre=np.array(columns[1], dtype=np.int64),
        reserve_low=np.array(columns[2], dtype=bool),
        announced=np.array(columns[3], dtype=bool),
        deciding=np.array(columns[4], dtype=bool),
        move=np.array(columns[5], dtype=np.int64),
        player=np.array(columns[6]),
        round_id=np.array(columns[7], dtype=np.int64),
    )


def fit_opponent_model(
    data: Decisions, config: OpponentModelConfig, log: Any = print
) -> tuple[LearnedOpponentModel, dict[str, Any]]:
    """Fit the perceptron to ``data``'s moves; returns the model (its ``meta``: the metrics and
    the config) and its metrics (held-out agreement overall and per player, the heuristic
    rules' agreement on the same decisions)."""
    import torch

    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(config.seed)
    rounds = np.unique(data.round_id)
    held = rng.choice(
        rounds, size=max(1, int(len(rounds) * config.holdout_fraction)), replace=False
    )
    is_held = np.isin(data.round_id, held)
    train, valid = data.subset(~is_held), data.subset(is_held)
    x = torch.from_numpy(train.features())
    y = torch.from_numpy(train.move)
    sizes = [NUM_FEATURES, *config.hidden, NUM_MOVES]
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers)
    optimiser = torch.optim.Adam(net.parameters(), lr=config.lr)
    generator = torch.Generator().manual_seed(config.seed)
    for epoch in range(config.epochs):
        order = torch.randperm(len(y), generator=generator)
        total = 0.0
        for start in range(0, len(y), config.batch_size):
            idx = order[start : start + config.batch_size]
            loss = torch.nn.functional.cross_entropy(net(x[idx]), y[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(idx)
        log(f"epoch {epoch + 1}/{config.epochs}: training loss {total / len(y):.4f}")
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    model = LearnedOpponentModel(
        tuple(m.weight.detach().numpy().T.copy() for m in linears),
        tuple(m.bias.detach().numpy().copy() for m in linears),
    )
    metrics = agreement(model, valid)
    metrics.update(train_decisions=len(train), held_out_decisions=len(valid))
    meta = {**metrics, "config": config.model_dump()}
    return LearnedOpponentModel(model.weights, model.biases, meta), metrics


def agreement(model: LearnedOpponentModel, data: Decisions, epsilon: float = 0.1) -> dict[str, Any]:
    """How often ``model``'s move, and the heuristic rules', is the recorded one, overall and
    per player; and the mean log-likelihood per decision of the recorded moves as the search
    counts them (``(1 - epsilon) * P(move) + epsilon / 11``; the rules: P one-hot)."""
    from ..agents.tri_palki_search import CORE_MODEL  # the comparison only

    args = (data.hand, data.centre, data.reserve_low, data.announced, data.deciding)
    learned = model.moves(*args) == data.move
    rules = CORE_MODEL.moves(*args) == data.move
    p = model.move_probabilities(*args)[np.arange(len(data)), data.move]
    floor = epsilon / NUM_MOVES
    learned_log = np.log((1 - epsilon) * p + floor)
    rules_log = np.log((1 - epsilon) * rules + floor)
    per_player = {
        str(name): {
            "decisions": int((data.player == name).sum()),
            "learned": round(float(learned[data.player == name].mean()), 4),
            "heuristic_rules": round(float(rules[data.player == name].mean()), 4),
            "learned_log_likelihood": round(float(learned_log[data.player == name].mean()), 4),
            "rules_log_likelihood": round(float(rules_log[data.player == name].mean()), 4),
        }
        for name in sorted(set(data.player.tolist()))
    }
    return {
        "held_out_agreement": round(float(learned.mean()), 4),
        "heuristic_rules_agreement": round(float(rules.mean()), 4),
        "epsilon": epsilon,
        "learned_log_likelihood": round(float(learned_log.mean()), 4),
        "rules_log_likelihood": round(float(rules_log.mean()), 4),
        "per_player": per_player,
    }


# --- the command -----------------------------------------------------------------------------

DESCRIPTION = (
    "Train the learned Tri Palki opponent model (the search's model of how the others decide) "
    "on the decisions recorded in tournament databases, from a YAML config "
    "(configs/tri_palki/opponent_model.yaml). Writes the weights (.npz) and a sidecar (.json) "
    "with the held-out agreement. Deterministic given the config's seed."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the YAML config")
    p.add_argument("--out", help="override the config's out (the .npz to write)")
    p.add_argument("--seed", type=int, help="override the config's seed")


def run(args: argparse.Namespace) -> int:
    """``folkcards train-opponent-model``: bad input is one line on stderr and exit code 2."""
    try:
        config = load_opponent_model_config(args.config, out=args.out, seed=args.seed)
        out = Path(config.out)
        if out.suffix != ".npz" or not out.parent.is_dir():
            raise ValueError(f"out must be a .npz file in an existing folder, got {config.out!r}")
        data = recorded_decisions(config.databases, config.players, config.max_records)
        print(f"{len(data)} recorded decisions", flush=True)
        model, metrics = fit_opponent_model(data, config, log=lambda s: print(s, flush=True))
    except ValueError as error:
        print(f"folkcards train-opponent-model: {error}", file=sys.stderr)
        return 2
    except ImportError:
        print(
            "folkcards train-opponent-model: needs torch: pip install 'folkcards[train]'",
            file=sys.stderr,
        )
        return 2
    model.save(out)
    print(
        f"held-out agreement {metrics['held_out_agreement']:.1%} "
        f"(the heuristic rules: {metrics['heuristic_rules_agreement']:.1%}); log-likelihood "
        f"per decision {metrics['learned_log_likelihood']:.3f} "
        f"(the rules: {metrics['rules_log_likelihood']:.3f}); "
        f"wrote {out} and {out.with_suffix('.json')}"
    )
    return 0
