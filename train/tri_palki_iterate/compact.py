"""A smaller network for the same search: the policy distilled, the value network kept.

The loop's policy is asked for a move at every table of every rollout, so its size sets most of
the search's time. ``compact`` records the tables the search meets with the source network (its
search in one seat, the heuristic in the others, on fresh deals), fits a smaller policy to the
source's move probabilities on them (cross-entropy to the soft targets: the KL divergence up to
a constant) and writes it beside the source's value network. Resumable: the recorded tables and
the network are stored in the run folder and not made again.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import log_softmax, softmax

from ...agents.base import make_agent
from ...agents.episode import play_episode
from ...agents.tri_palki_net_search import load_net, save_value
from ...agents.tri_palki_opponent_model import NUM_FEATURES, NUM_MOVES, LearnedOpponentModel
from ...envs.registry import game_spec
from ...search.mlp import Mlp
from .collect import _search_agent
from .config import IterateConfig
from .fit import _split, _train_mlp
from .layout import read_json, step_seed, write_json
from .loop import claim_run_dir

__all__ = ["compact"]

COMPACT_STEP = 7  # a seed path of its own, apart from the generations' steps


@dataclasses.dataclass(frozen=True)
class _RecordingPolicy(LearnedOpponentModel):
    """The source policy, keeping every table it is asked about."""

    tables: list[np.ndarray] = dataclasses.field(default_factory=list, compare=False)

    def scores(self, features: np.ndarray) -> np.ndarray:
        self.tables.append(np.asarray(features, dtype=np.float32).copy())
        return super().scores(features)


def record_tables(config: IterateConfig, log: Any) -> np.ndarray:
    """The distinct policy inputs the source network's search meets (``compact.episodes``)."""
    settings = config.compact
    assert settings is not None
    source = load_net(settings.source)
    recorder = _RecordingPolicy(source.policy.weights, source.policy.biases)
    net = dataclasses.replace(source, policy=recorder)
    spec = game_spec(config.game)
    for n, episodes in sorted(settings.episodes.items()):
        env = spec.raw_env(n)
        for e in range(episodes):
            seed = step_seed(config, COMPACT_STEP, n, e)
            searcher = _search_agent(config, settings.source, "player_0", seed, False, net)
            table = [searcher] + [
                make_agent("heuristic", config.game, f"player_{i}", seed=seed + i)
                for i in range(1, n)
            ]
            play_episode(env, table, seed=seed)
        log(
            f"compact: {n} players, {episodes} games: {sum(len(t) for t in recorder.tables)} tables"
        )
    return np.unique(np.concatenate(recorder.tables), axis=0)


def compact(config: IterateConfig, run_dir: Path, log: Any) -> dict[str, Any]:
    """Write ``run_dir/net`` (policy distilled to ``compact.hidden``, the source's value) and
    its metrics (``net/fit.json``); a finished run is read back, not made again."""
    settings = config.compact
    assert settings is not None
    claim_run_dir(config, run_dir)
    folder = run_dir / "net"
    done = folder / "fit.json"
    finished = read_json(done)
    if finished is not None:
        log(f"compact: {folder} is done")
        return dict(finished)
    tables_file = run_dir / "tables.npy"
    if tables_file.is_file():
        x = np.load(tables_file)
    else:
        x = record_tables(config, log)
        np.save(tables_file, x)
    source = load_net(settings.source)
    logits = source.policy.scores(x)
    targets = softmax(logits, axis=1).astype(np.float32)
    rng = np.random.default_rng(step_seed(config, COMPACT_STEP))
    held = _split(np.arange(len(x)), config.fit.holdout, rng)
    policy, losses = _train_mlp(
        x[~held], targets[~held], [NUM_FEATURES, *settings.hidden, NUM_MOVES], "soft",
        config.fit, step_seed(config, COMPACT_STEP, 1), log, "compact policy",
    )  # fmt: skip
    small = policy(x[held])
    agreement = float((np.argmax(small, axis=1) == np.argmax(logits[held], axis=1)).mean())
    log_q = log_softmax(small, axis=1)
    p = targets[held]
    kl = float((p * (np.log(np.clip(p, 1e-12, None)) - log_q)).sum(axis=1).mean())
    metrics = {
        "source": settings.source,
        "hidden": list(settings.hidden),
        "tables": int(len(x)),
        "train_tables": int((~held).sum()),
        "train_loss": losses,
        "held_out_first_choice_agreement": round(agreement, 4),
        "held_out_kl": round(kl, 5),
    }
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"compacted_from": settings.source}
    LearnedOpponentModel(policy.weights, policy.biases, meta).save(folder / "policy.npz")
    if source.value is not None:
        save_value(Mlp(source.value.weights, source.value.biases), folder / "value.npz")
    load_net.cache_clear()
    write_json(done, metrics)
    log(f"compact: {folder}: first choice as the source's on {agreement:.1%} of held-out tables")
    return metrics
