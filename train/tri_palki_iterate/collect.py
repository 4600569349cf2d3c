"""Step 1, collect: the teacher's searched decisions on fresh seeded deals, stored in chunks."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ...agents.base import make_agent
from ...agents.episode import play_episode
from ...agents.tri_palki_net_search import NetSearchParams, TriPalkiNetSearchAgent
from ...agents.tri_palki_opponent_model import NUM_FEATURES, NUM_MOVES
from ...agents.tri_palki_rollouts import NUM_WORLD_FEATURES, TriPalkiNet
from ...agents.tri_palki_search import EXPERT_PARAMS_0_4
from ...envs.tri_palki_v0 import raw_env
from ...evaluate.running.progress import progress
from ..chunks import play_chunks
from .config import IterateConfig
from .layout import COLLECT_STEP, gen_dir, net_folder, passed_generations, read_json, step_seed


def _search_agent(
    config: IterateConfig,
    folder: str | None,
    seat: str,
    seed: int,
    record: bool,
    net: TriPalkiNet | None = None,
) -> TriPalkiNetSearchAgent:
    """The generation's search (``config.search``) with the network in ``folder`` (``net``: that
    network already loaded, as given)."""
    s = config.search
    params = replace(
        EXPERT_PARAMS_0_4, samples=s.samples, infer=s.infer, horizon=s.horizon,
        endgame_samples=s.endgame_samples, infer_epsilon=s.infer_epsilon,
    )  # fmt: skip
    net_params = NetSearchParams(net=folder, top_k=s.top_k, cutoff=s.cutoff, others=s.others)
    return TriPalkiNetSearchAgent(
        "tri_palki", seat, seed, params, net_params, net=net, record=record
    )


def collect_chunk(
    config: IterateConfig, run_dir: Path, g: int, k: int, teacher: int, passed: list[int]
) -> dict[str, np.ndarray]:
    """Play chunk ``k`` of generation ``g``'s collection; the arrays of its samples."""
    c = config.collect
    rng = np.random.default_rng(step_seed(config, g, COLLECT_STEP, k))
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
    jobs = [(config, run_dir, g, k, teacher, passed) for k in missing]
    with progress(
        f"generation {g} collect", chunks, "chunks", log=log, every=0 if not show_progress else 10,
        done=chunks - len(missing),
    ) as advance:  # fmt: skip
        play_chunks(_collect_and_store, jobs, c.workers, advance)
    return folder


def _collect_and_store(job: tuple[IterateConfig, Path, int, int, int, list[int]]) -> None:
    """Play one chunk and store it (written whole, then renamed: a stored chunk is complete)."""
    config, run_dir, g, k, teacher, passed = job
    data = collect_chunk(config, run_dir, g, k, teacher, passed)
    folder = gen_dir(run_dir, g) / "data"
    tmp = folder / f"chunk_{k:04d}.tmp.npz"
    np.savez_compressed(tmp, **data)  # type: ignore[arg-type]
    os.replace(tmp, folder / f"chunk_{k:04d}.npz")


def _same_collection_in_parent(config: IterateConfig, g: int) -> Path | None:
    """The parent run's data folder of generation ``g`` when it is this run's first own
    generation and the parent collects exactly as this run does (the same seed, search and
    collection settings, the same generations before): its chunks are this run's."""
    parent = config.parent
    if parent is None or g != parent.generation + 1:
        return None
    stored = read_json(Path(parent.run_dir) / "config.json")
    if stored is None:
        return None
    theirs = IterateConfig.model_validate(stored)
    same = (theirs.seed, theirs.search, _data_settings(theirs)) == (
        config.seed,
        config.search,
        _data_settings(config),
    )
    return gen_dir(Path(parent.run_dir), g) / "data" if same else None


def _data_settings(config: IterateConfig) -> Any:
    """The collection settings that decide the data (all but the number of processes)."""
    return config.collect.model_copy(update={"workers": 1})


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
