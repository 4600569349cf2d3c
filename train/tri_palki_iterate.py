"""Expert iteration for Tri Palki: search, learn from it, search with what was learned, repeat.

``folkcards iterate --config configs/tri_palki/iterate.yaml [--run-dir DIR]``. Generation ``g``
has three steps, each stored under ``RUN_DIR/gen_NNN/`` before the next starts:

1. **collect** (``data/chunk_KKKK.npz``): rounds on fresh seeded deals at the config's table sizes;
   the *teacher* (the last generation that passed its gate; generation 0 is the search with the
   heuristic's rules, i.e. ``expert``'s decisions) plays ``collect.search_seats`` seats as the
   :class:`~folkcards.agents.tri_palki_net_search.TriPalkiNetSearchAgent` with the teacher's
   network for its rollouts, priors and world weights; the other seats are drawn from the
   league (``teacher``: the same search, ``past``: the search of an earlier passed generation,
   ``search``: the search with the heuristic's rules, or any agent spec such as
   ``heuristic``). Every searched decision of a teacher seat is a training sample: the policy
   features and the search's choice, and world features right after each candidate action with
   that rollout's stick (the value targets).
2. **fit** (``net/policy.npz``, ``net/value.npz``, ``net/fit.json``): the policy (the learned
   opponent model's shape: move scores from the hand, the centre and three flags) is fitted
   by cross-entropy to the search's choices, the value network by log-loss to the rollouts'
   sticks, on the data of the last ``fit.window`` generations (a held-out share of rounds
   reports agreement and loss).
3. **gate** (``gate/gate.json`` and the tournament's database and report): a duplicate
   tournament (every seating, the same deals) of the new generation's search against the
   teacher's search and the heuristic at ``gate.num_players`` seats; the new generation
   becomes the teacher when it gets fewer sticks per round than the teacher (the paired
   difference's mean below ``-gate.margin``; with ``gate.require_interval`` its interval
   too). With ``gate.report_rounds`` > 0 a second tournament reports it against ``expert``.

Re-running the command continues where the run stopped: a finished step is never redone (its
file exists), collection resumes at its first missing chunk, and a gate tournament resumes
from its database. ``RUN_DIR/summary.json`` and ``RUN_DIR/curves.png`` hold every generation's
fit metrics and gate results. Randomness comes only from the config's seed (each step's and
chunk's generator is derived from it), so the same config gives the same generations.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..agents.base import make_agent
from ..agents.episode import play_episode
from ..agents.tri_palki_net_search import (
    NUM_WORLD_FEATURES,
    NetSearchParams,
    TriPalkiNetSearchAgent,
    load_net,
    save_value,
)
from ..agents.tri_palki_opponent_model import NUM_FEATURES, NUM_MOVES, LearnedOpponentModel
from ..agents.tri_palki_search import EXPERT_PARAMS, TriPalkiSearchParams, shipped_opponent_model
from ..envs.tri_palki.rules import MAX_PLAYERS, MIN_PLAYERS
from ..envs.tri_palki_v0 import raw_env
from ..evaluate.running.progress import progress
from ..search.mlp import Mlp
from .settings import load_flat_config

__all__ = ["IterateConfig", "load_iterate_config", "run_iteration", "DESCRIPTION"]

LEAGUE_KINDS = ("teacher", "past", "search")
TIE = 1e-9  # sticks per round: differences smaller than this are rounding, not a gain


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchSettings(_Strict):
    """The search every generation plays with (``iterated``'s keys)."""

    samples: int = Field(24, ge=1)
    infer: int = Field(8, ge=1)
    horizon: int = Field(60, ge=1)
    top_k: int = Field(0, ge=0)
    cutoff: int = Field(0, ge=0)
    others: Literal["net", "learned", "rules"] = "net"  # the other seats' model with a network


class LeagueEntry(_Strict):
    """A kind of player for the seats the teacher does not play, drawn by weight."""

    spec: str = Field(min_length=1)  # teacher | past | search | any agent spec
    weight: float = Field(1.0, gt=0)


class CollectSettings(_Strict):
    rounds: int = Field(400, ge=1)  # rounds per generation
    chunk: int = Field(50, ge=1)  # rounds per stored chunk (the unit of resumption)
    table_sizes: list[int] = Field(default_factory=lambda: [3, 4, 6], min_length=1)
    search_seats: int = Field(1, ge=1)  # seats the teacher plays at every table
    league: list[LeagueEntry] = Field(
        default_factory=lambda: [
            LeagueEntry(spec="heuristic", weight=1.0),
            LeagueEntry(spec="teacher", weight=1.0),
        ],
        min_length=1,
    )
    value_rows: int = Field(8, ge=0)  # rollouts kept as value targets per searched decision
    max_turns: int = Field(200, ge=10)

    @field_validator("table_sizes")
    @classmethod
    def _sizes(cls, sizes: list[int]) -> list[int]:
        bad = [n for n in sizes if not MIN_PLAYERS <= n <= MAX_PLAYERS]
        if bad:
            raise ValueError(f"table sizes must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {bad[0]}")
        return sizes


class FitSettings(_Strict):
    hidden: list[int] = Field(default_factory=lambda: [128, 128], min_length=1)
    value_hidden: list[int] = Field(default_factory=lambda: [128, 128], min_length=1)
    epochs: int = Field(10, ge=1)
    batch_size: int = Field(512, ge=1)
    lr: float = Field(1e-3, gt=0)
    window: int = Field(3, ge=1)  # fit on the data of the last `window` generations
    holdout: float = Field(0.05, gt=0, lt=1)
    # generation 1 starts from the shipped learned opponent model (when `hidden` is its shape);
    # later ones from their teacher's networks
    start_from_opponent_model: bool = True
    # 0: fit the policy to the search's choices; > 0: to a softmax of its action values (minus
    # sticks per round) at this temperature, over the actions it rolled out
    temperature: float = Field(0.0, ge=0)


class GateSettings(_Strict):
    rounds: int = Field(200, ge=1)
    num_players: int = Field(3, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    workers: int = Field(1, ge=1)
    margin: float = Field(0.0, ge=0)  # sticks per round the new generation must gain
    require_interval: bool = False  # also the interval's upper end below -margin
    report_rounds: int = Field(0, ge=0)  # rounds against expert and the heuristic (0: none)
    report_against: list[str] = Field(default_factory=lambda: ["expert", "heuristic"])


class ParentSettings(_Strict):
    """Continue another run with this config: its generations up to ``generation`` (gated)
    become this run's first ones, read in place."""

    run_dir: str = Field(min_length=1)
    generation: int = Field(ge=1)


class IterateConfig(_Strict):
    """``configs/tri_palki/iterate.yaml``."""

    game: str = "tri_palki"
    run_dir: str = "runs/iterate"
    seed: int = Field(0, ge=0)
    generations: int = Field(5, ge=1)
    search: SearchSettings = Field(default_factory=lambda: SearchSettings.model_validate({}))
    collect: CollectSettings = Field(default_factory=lambda: CollectSettings.model_validate({}))
    fit: FitSettings = Field(default_factory=lambda: FitSettings.model_validate({}))
    gate: GateSettings = Field(default_factory=lambda: GateSettings.model_validate({}))
    parent: ParentSettings | None = None  # start from another run's generations

    @field_validator("game")
    @classmethod
    def _game(cls, game: str) -> str:
        if game != "tri_palki":
            raise ValueError(f"the loop plays tri_palki (only), got {game!r}")
        return game


def load_iterate_config(path: str | Path, **overrides: Any) -> IterateConfig:
    """The config in ``path`` with ``overrides``; ``ConfigError`` in one line if it is bad."""
    return load_flat_config(IterateConfig, path, **overrides)


# --- seeds and files ----------------------------------------------------------------------------


def _seed(config: IterateConfig, *path: int) -> int:
    """A 63-bit seed for one step (and chunk) of one generation, from the config's seed."""
    words = np.random.SeedSequence([config.seed, *path]).generate_state(2, dtype=np.uint32)
    return int(words[0]) << 31 ^ int(words[1])


_COLLECT, _FIT, _GATE, _REPORT = range(4)


def gen_dir(run_dir: Path, g: int) -> Path:
    return run_dir / f"gen_{g:03d}"


def _write_json(path: Path, data: Any) -> None:
    """Write atomically (a step is done when its file exists)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def passed_generations(run_dir: Path, before: int) -> list[int]:
    """The generations before ``before`` that passed their gate, in order (0 is always in)."""
    passed = [0]
    for g in range(1, before):
        gate = _read_json(gen_dir(run_dir, g) / "gate" / "gate.json")
        if gate is not None and gate["accepted"]:
            passed.append(g)
    return passed


def net_folder(run_dir: Path, g: int) -> str | None:
    """Generation ``g``'s network folder (``None`` for generation 0: the heuristic's rules)."""
    return None if g == 0 else str((gen_dir(run_dir, g) / "net").resolve())


def search_spec(config: IterateConfig, folder: str | None) -> str:
    """The ``iterated`` spec of a generation's search."""
    s = config.search
    spec = f"iterated:samples={s.samples},infer={s.infer},horizon={s.horizon}"
    if folder is not None:
        spec += f",net={folder},top_k={s.top_k},cutoff={s.cutoff}"
        if s.others != "net":
            spec += f",others={s.others}"
    return spec


def _search_agent(
    config: IterateConfig, folder: str | None, seat: str, seed: int, record: bool
) -> TriPalkiNetSearchAgent:
    s = config.search
    params = TriPalkiSearchParams(
        **{**EXPERT_PARAMS.__dict__, "samples": s.samples, "infer": s.infer, "horizon": s.horizon}
    )
    net_params = NetSearchParams(net=folder, top_k=s.top_k, cutoff=s.cutoff, others=s.others)
    return TriPalkiNetSearchAgent("tri_palki", seat, seed, params, net_params, record=record)


# --- 1. collect -----------------------------------------------------------------------------------


def collect_chunk(
    config: IterateConfig, run_dir: Path, g: int, k: int, teacher: int, passed: list[int]
) -> dict[str, np.ndarray]:
    """Play chunk ``k`` of generation ``g``'s collection; the arrays of its samples."""
    c = config.collect
    rng = np.random.default_rng(_seed(config, g, _COLLECT, k))
    first = k * c.chunk
    count = min(c.chunk, c.rounds - first)
    weights = np.array([e.weight for e in c.league])
    teacher_folder = net_folder(run_dir, teacher)
    policy_x: list[np.ndarray] = []
    policy_y: list[int] = []
    policy_v: list[np.ndarray] = []
    value_x: list[np.ndarray] = []
    value_y: list[np.ndarray] = []
    sticks_of_teacher: list[float] = []
    for r in range(first, first + count):
        n = c.table_sizes[r % len(c.table_sizes)]
        seats = rng.permutation(n)
        table: list[Any] = [None] * n
        recorders = []
        for i, seat in enumerate(seats):
            name = f"player_{seat}"
            agent_seed = int(rng.integers(2**62))
            kind = (
                "teacher"
                if i < c.search_seats
                else c.league[rng.choice(len(c.league), p=weights / weights.sum())].spec
            )
            if kind == "teacher":
                agent = _search_agent(config, teacher_folder, name, agent_seed, record=True)
                recorders.append((seat, agent))
            elif kind == "past":
                past = passed[int(rng.integers(len(passed)))]
                agent = _search_agent(config, net_folder(run_dir, past), name, agent_seed, False)
            elif kind == "search":
                agent = _search_agent(config, None, name, agent_seed, record=False)
            else:
                agent = make_agent(kind, "tri_palki", name, seed=agent_seed)
            table[seat] = agent
        env = raw_env(num_players=n, max_turns=c.max_turns)
        episode = play_episode(env, table, seed=int(rng.integers(2**62)))
        for seat, agent in recorders:
            sticks_of_teacher.append(-float(episode.returns[f"player_{seat}"]))
            for record in agent.records:
                if record["features"] is not None:
                    policy_x.append(record["features"])
                    policy_y.append(record["action"])
                    values = np.full(NUM_MOVES, np.nan, dtype=np.float32)
                    for action, value in record["values"].items():
                        values[action] = value
                    policy_v.append(values)
                rows = len(record["value_y"])
                keep = rng.choice(rows, size=min(rows, c.value_rows), replace=False)
                value_x.append(record["value_x"][np.sort(keep)])
                value_y.append(record["value_y"][np.sort(keep)])
    return {
        "policy_x": np.array(policy_x, dtype=np.float32).reshape(-1, NUM_FEATURES),
        "policy_y": np.array(policy_y, dtype=np.int64),
        "policy_values": np.array(policy_v, dtype=np.float32).reshape(-1, NUM_MOVES),
        "value_x": (
            np.concatenate(value_x) if value_x else np.zeros((0, NUM_WORLD_FEATURES), np.float32)
        ),
        "value_y": np.concatenate(value_y) if value_y else np.zeros(0, np.float32),
        "teacher_sticks": np.array(sticks_of_teacher, dtype=np.float32),
        "rounds": np.array(count),
    }


def collect(config: IterateConfig, run_dir: Path, g: int, log: Any, show_progress: bool) -> Path:
    """Generation ``g``'s collection, chunk by chunk (finished chunks are kept)."""
    folder = gen_dir(run_dir, g) / "data"
    folder.mkdir(parents=True, exist_ok=True)
    c = config.collect
    chunks = -(-c.rounds // c.chunk)
    passed = passed_generations(run_dir, g)
    teacher = passed[-1]
    missing = [k for k in range(chunks) if not (folder / f"chunk_{k:04d}.npz").is_file()]
    parent_folder = _same_collection_in_parent(config, g)
    if parent_folder is not None:
        for k in [k for k in missing if (parent_folder / f"chunk_{k:04d}.npz").is_file()]:
            shutil.copyfile(parent_folder / f"chunk_{k:04d}.npz", folder / f"chunk_{k:04d}.tmp.npz")
            os.replace(folder / f"chunk_{k:04d}.tmp.npz", folder / f"chunk_{k:04d}.npz")
            missing.remove(k)
        log(
            f"generation {g}: {chunks - len(missing)} chunks are the parent run's (the same collection)"
        )
    if missing:
        log(f"generation {g}: collecting {c.rounds} rounds (teacher: generation {teacher})")
    with progress(
        f"generation {g} collect", chunks, "chunks", log=log, every=0 if not show_progress else 10,
        done=chunks - len(missing),
    ) as advance:  # fmt: skip
        for k in missing:
            data = collect_chunk(config, run_dir, g, k, teacher, passed)
            tmp = folder / f"chunk_{k:04d}.tmp.npz"
            np.savez_compressed(tmp, **data)  # type: ignore[arg-type]
            os.replace(tmp, folder / f"chunk_{k:04d}.npz")
            advance(1)
    return folder


def _same_collection_in_parent(config: IterateConfig, g: int) -> Path | None:
    """The parent run's data folder of generation ``g`` when it is this run's first own
    generation and the parent collects exactly as this run does (the same seed, search and
    collection settings, the same generations before): its chunks are this run's."""
    parent = config.parent
    if parent is None or g != parent.generation + 1:
        return None
    stored = _read_json(Path(parent.run_dir) / "config.json")
    if stored is None:
        return None
    theirs = IterateConfig.model_validate(stored)
    same = (theirs.seed, theirs.search, theirs.collect) == (
        config.seed,
        config.search,
        config.collect,
    )
    return gen_dir(Path(parent.run_dir), g) / "data" if same else None


def link_parent(config: IterateConfig, run_dir: Path) -> None:
    """Link the parent run's generations up to ``parent.generation`` into ``run_dir`` (each
    must have its gate result); ``ValueError`` in one line otherwise."""
    parent = config.parent
    if parent is None:
        return
    source = Path(parent.run_dir).resolve()
    if source == run_dir.resolve():
        raise ValueError("parent.run_dir is this run's own folder")
    for g in range(1, parent.generation + 1):
        theirs = gen_dir(source, g)
        if not (theirs / "gate" / "gate.json").is_file():
            raise ValueError(f"{theirs} has no gate result: parent.generation too high")
        ours = gen_dir(run_dir, g)
        if ours.is_symlink() and ours.resolve() == theirs:
            continue
        if ours.exists() or ours.is_symlink():
            raise ValueError(f"{ours} exists and is not the parent's generation {g}")
        ours.symlink_to(theirs, target_is_directory=True)
    if config.generations <= parent.generation:
        raise ValueError(
            f"generations ({config.generations}) must be above parent.generation "
            f"({parent.generation})"
        )


def load_data(run_dir: Path, generations: list[int]) -> dict[str, np.ndarray]:
    """The samples of ``generations``, concatenated (with each sample's chunk id)."""
    parts: dict[str, list[np.ndarray]] = {"policy_x": [], "policy_y": [], "value_x": [],
                                          "value_y": [], "policy_group": [], "value_group": [],
                                          "policy_values": []}  # fmt: skip
    group = 0
    for g in generations:
        for path in sorted((gen_dir(run_dir, g) / "data").glob("chunk_*.npz")):
            if ".tmp" in path.name:
                continue
            with np.load(path) as data:
                for key in ("policy_x", "policy_y", "value_x", "value_y"):
                    parts[key].append(data[key])
                parts["policy_group"].append(np.full(len(data["policy_y"]), group))
                if "policy_values" in data.files:
                    parts["policy_values"].append(data["policy_values"])
                else:  # chunks written before the values were kept: the choice alone
                    parts["policy_values"].append(
                        np.full((len(data["policy_y"]), NUM_MOVES), np.nan, np.float32)
                    )
                parts["value_group"].append(np.full(len(data["value_y"]), group))
            group += 1
    return {key: np.concatenate(value) for key, value in parts.items()}


# --- 2. fit ---------------------------------------------------------------------------------------


def _train_mlp(
    x: np.ndarray,
    y: np.ndarray,
    sizes: list[int],
    loss_name: str,
    settings: FitSettings,
    seed: int,
    log: Any,
    what: str,
    start: Mlp | None = None,
) -> tuple[Mlp, list[float]]:
    """Fit a ReLU perceptron of ``sizes`` (from ``start``'s weights when their shapes match)."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers)
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    if start is not None and [w.shape for w in start.weights] == [
        (m.in_features, m.out_features) for m in linears
    ]:
        with torch.no_grad():
            for m, w, b in zip(linears, start.weights, start.biases, strict=True):
                m.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
                m.bias.copy_(torch.from_numpy(b))
    optimiser = torch.optim.Adam(net.parameters(), lr=settings.lr)
    generator = torch.Generator().manual_seed(seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    losses = []
    for epoch in range(settings.epochs):
        order = torch.randperm(len(yt), generator=generator)
        total = 0.0
        for start in range(0, len(yt), settings.batch_size):
            idx = order[start : start + settings.batch_size]
            out = net(xt[idx])
            if loss_name in ("choice", "soft"):  # y: the move, or probabilities per move
                loss = torch.nn.functional.cross_entropy(out, yt[idx])
            else:
                loss = torch.nn.functional.binary_cross_entropy_with_logits(out[:, 0], yt[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(idx)
        losses.append(total / max(len(yt), 1))
        log(f"{what} epoch {epoch + 1}/{settings.epochs}: loss {losses[-1]:.4f}")
    mlp = Mlp(
        tuple(m.weight.detach().numpy().T.copy() for m in linears),
        tuple(m.bias.detach().numpy().copy() for m in linears),
    )
    return mlp, losses


def soft_targets(values: np.ndarray, choices: np.ndarray, temperature: float) -> np.ndarray:
    """Per decision, a softmax of the search's action values (minus sticks) / ``temperature``
    over the actions it rolled out; the choice alone where no values were kept."""
    known = ~np.isnan(values)
    z = np.where(known, np.nan_to_num(values) / temperature, -np.inf)
    top = np.max(z, axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(known, np.exp(z - top), 0.0)
    total = e.sum(axis=1, keepdims=True)
    one_hot = np.eye(values.shape[1], dtype=np.float32)[choices]
    return np.where(total > 0, e / np.where(total > 0, total, 1.0), one_hot).astype(np.float32)


def _split(groups: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Held-out mask: a share of the chunks (samples of one round are alike)."""
    ids = np.unique(groups)
    held = rng.choice(ids, size=max(1, int(round(len(ids) * fraction))), replace=False)
    return np.isin(groups, held) if len(ids) > 1 else np.zeros(len(groups), dtype=bool)


def fit(config: IterateConfig, run_dir: Path, g: int, log: Any) -> dict[str, Any]:
    """Fit generation ``g``'s policy and value networks; their metrics (``net/fit.json``)."""
    f = config.fit
    window = list(range(max(0, g - f.window + 1), g + 1))
    data = load_data(run_dir, window)
    if not len(data["policy_y"]) or not len(data["value_y"]):
        raise ValueError(f"generation {g} collected no searched decision: raise collect.rounds")
    rng = np.random.default_rng(_seed(config, g, _FIT))
    held_p = _split(data["policy_group"], f.holdout, rng)
    held_v = _split(data["value_group"], f.holdout, rng)
    teacher = passed_generations(run_dir, g)[-1]
    if teacher:
        net = load_net(str(net_folder(run_dir, teacher)))
        start_policy: Mlp | None = Mlp(net.policy.weights, net.policy.biases)
        start_value = net.value
    else:  # the learned opponent model shipped with the package, when its shape fits
        shipped = shipped_opponent_model() if f.start_from_opponent_model else None
        start_policy = Mlp(shipped.weights, shipped.biases) if shipped is not None else None
        start_value = None
    if f.temperature > 0:
        targets = soft_targets(
            data["policy_values"][~held_p], data["policy_y"][~held_p], f.temperature
        )
        policy_loss = "soft"
    else:
        targets, policy_loss = data["policy_y"][~held_p], "choice"
    policy, policy_losses = _train_mlp(
        data["policy_x"][~held_p], targets, [NUM_FEATURES, *f.hidden, NUM_MOVES],
        policy_loss, f, _seed(config, g, _FIT, 1), log, "policy", start_policy,
    )  # fmt: skip
    value, value_losses = _train_mlp(
        data["value_x"][~held_v], data["value_y"][~held_v].astype(np.float32),
        [NUM_WORLD_FEATURES, *f.value_hidden, 1], "stick", f, _seed(config, g, _FIT, 2), log,
        "value", start_value,
    )  # fmt: skip
    px, py = data["policy_x"][held_p], data["policy_y"][held_p]
    agreement = float((np.argmax(policy(px), axis=1) == py).mean()) if len(py) else float("nan")
    rules = np.argmax(px[:, -NUM_MOVES:], axis=1)  # the heuristic rules' move, one-hot in the input
    rules_agreement = float((rules == py).mean()) if len(py) else float("nan")
    vx, vy = data["value_x"][held_v], data["value_y"][held_v]
    p = np.clip(1 / (1 + np.exp(-value(vx)[:, 0])), 1e-6, 1 - 1e-6)
    value_loss = (
        float(-(vy * np.log(p) + (1 - vy) * np.log(1 - p)).mean()) if len(vy) else float("nan")
    )
    base = float(np.clip(data["value_y"][~held_v].mean(), 1e-6, 1 - 1e-6))
    base_loss = (
        float(-(vy * np.log(base) + (1 - vy) * np.log(1 - base)).mean())
        if len(vy)
        else float("nan")
    )
    metrics = {
        "generation": g,
        "data_generations": window,
        "policy_samples": int((~held_p).sum()),
        "value_samples": int((~held_v).sum()),
        "policy_train_loss": policy_losses,
        "value_train_loss": value_losses,
        "held_out_agreement": round(agreement, 4),
        "held_out_heuristic_rules_agreement": round(rules_agreement, 4),
        "held_out_value_loss": round(value_loss, 4),
        "held_out_constant_value_loss": round(base_loss, 4),
        "started_from": f"generation {teacher}"
        if teacher
        else ("opponent model" if start_policy is not None else "random"),
    }
    folder = gen_dir(run_dir, g) / "net"
    folder.mkdir(parents=True, exist_ok=True)
    LearnedOpponentModel(policy.weights, policy.biases, {"iterate_generation": g}).save(
        folder / "policy.npz"
    )
    save_value(value, folder / "value.npz")
    load_net.cache_clear()
    _write_json(folder / "fit.json", metrics)
    return metrics


# --- 3. gate --------------------------------------------------------------------------------------


def _tournament(
    config: IterateConfig, agents: list[dict[str, str]], rounds: int, seed: int, out: Path,
    show_progress: bool, log: Any,
) -> dict[str, Any]:  # fmt: skip
    from ..evaluate.config import resolve
    from ..evaluate.running.runner import run

    tconfig = resolve(
        {
            "game": "tri_palki",
            "rounds": rounds,
            "seed": seed,
            "agents": agents,
            "num_players": config.gate.num_players,
            "workers": config.gate.workers,
            "out": str(out),
            "seating": "rotations",
            "open_hand": False,
        }  # fmt: skip
    )
    return run(
        tconfig, progress=True, log=log, bootstrap=0, log_every=60 if not show_progress else 10
    )


def _pair(results: dict[str, Any], a: str, b: str) -> dict[str, Any] | None:
    """``a``'s sticks per round minus ``b``'s, with the paired 95% interval."""
    for row in results["head_to_head"]:
        if {row["a"], row["b"]} == {a, b}:
            sign = 1 if row["a"] == a else -1
            if row["ci_low"] is None:  # too few rounds for an interval
                low = high = None
            else:
                low, high = sorted((sign * row["ci_low"], sign * row["ci_high"]))
            return {
                "mean_diff": sign * row["mean_diff"],
                "ci_low": low,
                "ci_high": high,
                "rounds": row["deals"],
            }
    return None


def passes(versus: dict[str, Any], settings: GateSettings) -> bool:
    """Whether a new generation's sticks per round minus its teacher's (``versus``: mean and
    interval) passes the gate: below ``-margin`` (the interval's upper end too with
    ``require_interval``); a tie, up to rounding, does not pass."""
    bar = -settings.margin - TIE
    return versus["mean_diff"] < bar and (
        not settings.require_interval or (versus["ci_high"] is not None and versus["ci_high"] < bar)
    )


def gate(
    config: IterateConfig, run_dir: Path, g: int, log: Any, show_progress: bool
) -> dict[str, Any]:
    """Generation ``g``'s duplicate match against its teacher (and the report against
    ``expert``); ``gate/gate.json``."""
    folder = gen_dir(run_dir, g) / "gate"
    folder.mkdir(parents=True, exist_ok=True)
    teacher = passed_generations(run_dir, g)[-1]
    new, old = f"gen{g}", f"gen{teacher}"
    agents = [
        {"name": new, "spec": search_spec(config, net_folder(run_dir, g))},
        {"name": old, "spec": search_spec(config, net_folder(run_dir, teacher))},
        {"name": "heuristic", "spec": "heuristic"},
    ]
    gate_seed = _seed(config, g, _GATE) % 2**31
    log(f"generation {g}: gate, {config.gate.rounds} rounds against generation {teacher}")
    results = _tournament(
        config, agents, config.gate.rounds, gate_seed, folder / "match", show_progress, log
    )
    versus = _pair(results, new, old)
    assert versus is not None
    accepted = passes(versus, config.gate)
    times = results.get("decision_times", {})
    summary: dict[str, Any] = {
        "generation": g,
        "teacher": teacher,
        "accepted": bool(accepted),
        "vs_teacher": versus,
        "vs_heuristic": _pair(results, new, "heuristic"),
        "teacher_vs_heuristic": _pair(results, old, "heuristic"),
        "seed": gate_seed,
        "num_players": config.gate.num_players,
        "median_decision_seconds": {k: v.get("median") for k, v in times.items()},
        "command": _command(config, agents, config.gate.rounds, gate_seed, folder / "match"),
    }
    if config.gate.report_rounds:
        report_agents = [agents[0]] + [{"name": s, "spec": s} for s in config.gate.report_against]
        report_seed = _seed(config, g, _REPORT) % 2**31
        report = _tournament(
            config, report_agents, config.gate.report_rounds, report_seed, folder / "report",
            show_progress, log,
        )  # fmt: skip
        summary["report"] = {s: _pair(report, new, s) for s in config.gate.report_against}
        summary["report_command"] = _command(
            config, report_agents, config.gate.report_rounds, report_seed, folder / "report"
        )
        summary["report_median_decision_seconds"] = {
            k: v.get("median") for k, v in report.get("decision_times", {}).items()
        }
    _write_json(folder / "gate.json", summary)
    return summary


def _command(
    config: IterateConfig, agents: list[dict[str, str]], rounds: int, seed: int, out: Path
) -> str:
    specs = " ".join(f"'{a['spec']}'" for a in agents)
    return (
        f"folkcards tournament --game tri_palki --num-players {config.gate.num_players} "
        f"--agents {specs} --seating rotations --rounds {rounds} --seed {seed} --out {out}"
    )


# --- the loop -------------------------------------------------------------------------------------


def summarise(config: IterateConfig, run_dir: Path) -> dict[str, Any]:
    """Every generation's steps so far (``summary.json``) and the curves (``curves.png``)."""
    rows = []
    for g in range(1, config.generations + 1):
        folder = gen_dir(run_dir, g)
        if not folder.is_dir():
            break
        chunks = sorted((folder / "data").glob("chunk_????.npz"))
        sticks = []
        for path in chunks:
            with np.load(path) as data:
                sticks.append(data["teacher_sticks"])
        row: dict[str, Any] = {
            "generation": g,
            "chunks": len(chunks),
            "teacher_sticks_per_round": (
                round(float(np.concatenate(sticks).mean()), 4) if sticks else None
            ),
            "fit": _read_json(folder / "net" / "fit.json"),
            "gate": _read_json(folder / "gate" / "gate.json"),
        }
        rows.append(row)
    summary: dict[str, Any] = {"config": config.model_dump(), "generations": rows}
    if config.parent is not None:  # the first generations are the parent's, under its config
        summary["parent_config"] = _read_json(Path(config.parent.run_dir) / "config.json")
    _write_json(run_dir / "summary.json", summary)
    _plot(rows, run_dir / "curves.png")
    return summary


def _errors(pairs: list[dict[str, Any]]) -> list[list[float]]:
    """Error bars (below, above the mean) of paired results; 0 where there is no interval."""
    below = [p["mean_diff"] - p["ci_low"] if p["ci_low"] is not None else 0.0 for p in pairs]
    above = [p["ci_high"] - p["mean_diff"] if p["ci_high"] is not None else 0.0 for p in pairs]
    return [below, above]


def _plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    ax = axes[0]
    series = (
        ("vs_teacher", "new - teacher"),
        ("vs_heuristic", "new - heuristic"),
        ("expert", "new - expert"),
    )
    for offset, (key, label) in zip((-0.1, 0.0, 0.1), series, strict=True):
        points = [
            (r["generation"], (r["gate"].get("report") or {}).get(key) or r["gate"].get(key))
            for r in rows
            if r["gate"]
        ]
        points = [(g, p) for g, p in points if p]
        if points:
            pairs = [p for _, p in points]
            ax.errorbar(
                [g + offset for g, _ in points], [p["mean_diff"] for p in pairs],
                yerr=_errors(pairs),
                marker="o", capsize=3, label=label,
            )  # fmt: skip
    ax.axhline(0, color="grey", lw=0.8)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("generation")
    ax.set_ylabel("sticks per round (lower is better), 95% interval")
    ax.set_title("gates (duplicate, every seating)")
    ax.legend(fontsize=8)
    ax = axes[1]
    fitted = [r for r in rows if r["fit"]]
    generations = [r["generation"] for r in fitted]
    ax.plot(generations, [r["fit"]["held_out_agreement"] for r in fitted], marker="o",
            label="policy: held-out agreement with the search")  # fmt: skip
    ax.plot(generations, [r["fit"]["held_out_heuristic_rules_agreement"] for r in fitted],
            marker="x", label="heuristic rules: the same")  # fmt: skip
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("generation")
    ax.set_title("fit")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _interval(pair: dict[str, Any]) -> str:
    if pair["ci_low"] is None:
        return "[no interval]"
    return f"[{pair['ci_low']:+.4f}, {pair['ci_high']:+.4f}]"


def run_iteration(
    config: IterateConfig,
    run_dir: Path,
    log: Any = print,
    show_progress: bool = True,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """Run (or continue) the loop up to ``config.generations``; ``stop_after`` generations at
    most in this call. Returns the summary."""
    run_dir.mkdir(parents=True, exist_ok=True)
    stored = _read_json(run_dir / "config.json")
    current = json.loads(config.model_dump_json())
    if stored is not None:  # fields added since the run started count with their defaults
        stored = json.loads(IterateConfig.model_validate(stored).model_dump_json())
    if stored is not None and {k: v for k, v in stored.items() if k != "generations"} != {
        k: v for k, v in current.items() if k != "generations"
    }:
        raise ValueError(
            f"{run_dir} holds a run of another config (config.json differs): use another run dir"
        )
    _write_json(run_dir / "config.json", current)
    link_parent(config, run_dir)
    done_now = 0
    for g in range(1, config.generations + 1):
        folder = gen_dir(run_dir, g)
        if (folder / "gate" / "gate.json").is_file():
            continue
        if stop_after is not None and done_now >= stop_after:
            break
        started = time.perf_counter()
        collect(config, run_dir, g, log, show_progress)
        if not (folder / "net" / "fit.json").is_file():
            log(f"generation {g}: fitting")
            metrics = fit(config, run_dir, g, lambda s: None)
            log(
                f"generation {g}: policy agrees with the search on {metrics['held_out_agreement']:.1%} "
                f"of held-out decisions (heuristic rules {metrics['held_out_heuristic_rules_agreement']:.1%}); "
                f"value log-loss {metrics['held_out_value_loss']:.4f} "
                f"(constant {metrics['held_out_constant_value_loss']:.4f})"
            )  # fmt: skip
        result = gate(config, run_dir, g, log, show_progress)
        v = result["vs_teacher"]
        log(
            f"generation {g}: {v['mean_diff']:+.4f} sticks per round against generation "
            f"{result['teacher']} {_interval(v)} over {v['rounds']} "
            f"rounds: {'passed, the new teacher' if result['accepted'] else 'not passed'} "
            f"({time.perf_counter() - started:.0f} s)"
        )
        summarise(config, run_dir)
        done_now += 1
    return summarise(config, run_dir)


# --- the command ----------------------------------------------------------------------------------

DESCRIPTION = (
    "Expert iteration for Tri Palki: each generation collects the search's decisions on fresh "
    "deals (the search using the current network for its rollouts, priors and model of the "
    "others), fits the next network (policy and value) and gates it by a duplicate match "
    "against the previous generation. Resumable: rerun the same command to continue. Writes "
    "RUN_DIR/gen_NNN/, summary.json and curves.png."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config", required=True, help="the YAML config (configs/tri_palki/iterate.yaml)"
    )
    p.add_argument("--run-dir", help="override the config's run_dir")
    p.add_argument("--generations", type=int, help="override the config's generations")
    p.add_argument(
        "--no-progress", action="store_true", help="no bars: a log line per chunk and per step"
    )


def run(args: argparse.Namespace) -> int:
    """``folkcards iterate``: bad input is one line on stderr and exit code 2."""

    def log(text: str) -> None:
        print(text, flush=True)

    try:
        config = load_iterate_config(
            args.config, run_dir=args.run_dir, generations=args.generations
        )
        summary = run_iteration(
            config, Path(config.run_dir), log, show_progress=not args.no_progress
        )
    except ValueError as error:
        print(f"folkcards iterate: {error}", file=sys.stderr)
        return 2
    except ImportError:
        print("folkcards iterate: needs torch: pip install 'folkcards[train]'", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "\nfolkcards iterate: interrupted; finished steps are stored — rerun to continue",
            file=sys.stderr,
        )
        return 130
    done = [r for r in summary["generations"] if r["gate"]]
    print(f"{len(done)} of {config.generations} generations done in {config.run_dir}")
    return 0
