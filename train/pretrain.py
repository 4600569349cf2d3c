"""Behaviour cloning before PPO: start the policy from an expert's decisions.

With ``pretrain.expert`` set (e.g. ``heuristic``), :func:`pretrain` runs before the first PPO
update of a new run:

1. :func:`collect_demonstrations` plays ``samples`` learner decisions in the training env (same
   seats, opponent pool and feature set as PPO will see; "self" entries are skipped since no
   snapshot exists yet), the learner's seat played by the expert. It records the observation the
   network sees, the action mask, the expert's action and the return from that decision to the
   end of the episode (γ = ``algorithm.gamma``). Collection is split over worker processes, each
   with its own seed derived from ``run.seed``: the data do not depend on the worker count.
2. :func:`behaviour_clone` fits the policy to the expert's actions (masked cross-entropy,
   ``MaskableActorCriticPolicy.evaluate_actions``) and, with ``value: true``, the value head to
   the returns, so the first PPO advantages are not driven by an untrained critic.

The agreement with the expert on the held-out samples and the losses are logged and written to
``pretrain.json`` in the run directory.

3. With ``pretrain.dagger_rounds`` (DAgger, Ross, Gordon & Bagnell 2011), each round lets the
   cloned network play the learner's seat while the expert labels every decision it meets
   (what the expert would have done there), adds those ``dagger_samples`` decisions to the
   data and refits the network to all of them: the states the network reaches by its own
   mistakes, which the expert's play never visits, get the expert's answer too. The
   network's agreement with the expert on its own decisions is logged per round.
"""

from __future__ import annotations

import json
import multiprocessing as mp
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.evaluate.running.progress import LOG_EVERY, ProgressLines
from folkcards.train.single_seat import SingleSeatEnvFactory

from .config import TrainConfig
from .settings import PretrainConfig

CHUNKS = 8  # collection is split into this many seeded chunks, whatever the worker count
DAGGER_SEED_STEP = 7919  # DAgger round k collects from seed + k * this (new deals each round)


@dataclass
class Demonstrations:
    """Expert decisions: observations, masks, actions, returns-to-go and the expert's action
    values (row-aligned)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    # the expert's value of each action where it reported them (``Agent.last_action_values``),
    # NaN elsewhere; one row per decision
    values: np.ndarray
    agreed: int = 0  # decisions where the acting player chose the expert's action
    regret: float = 0.0  # sum over valued decisions of the expert's best value minus the
    valued: int = 0  # value of the action played, and the number of those decisions

    def __len__(self) -> int:
        return len(self.actions)

    @classmethod
    def concatenate(cls, parts: list[Demonstrations]) -> Demonstrations:
        return cls(
            np.concatenate([p.observations for p in parts]),
            np.concatenate([p.masks for p in parts]),
            np.concatenate([p.actions for p in parts]),
            np.concatenate([p.returns for p in parts]),
            np.concatenate([p.values for p in parts]),
            sum(p.agreed for p in parts),
            sum(p.regret for p in parts),
            sum(p.valued for p in parts),
        )


DEMONSTRATION_ARRAYS = ("observations", "masks", "actions", "returns", "values")


def save_demonstrations(data: Demonstrations, path: Path, about: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` (compressed ``.npz``) with ``about`` (game, features, expert,
    seed...) as its description, for :func:`load_demonstrations`."""
    arrays = {name: getattr(data, name) for name in DEMONSTRATION_ARRAYS}
    np.savez_compressed(path, about=np.array(json.dumps(about)), **arrays)


def load_demonstrations(
    path: str | Path, game: str, features: str | None, width: int
) -> tuple[Demonstrations, dict[str, Any]]:
    """The decisions saved at ``path`` and their description; ``ValueError`` (one line) if the
    file is missing or unreadable, or was collected for another game, feature set or
    observation width than ``width``."""
    try:
        with np.load(path) as saved:
            about = json.loads(str(saved["about"]))
            data = Demonstrations(*(saved[name] for name in DEMONSTRATION_ARRAYS))
    except (OSError, KeyError, ValueError) as error:
        raise ValueError(f"cannot read demonstrations {str(path)!r}: {error}") from None
    if (about.get("game"), about.get("features")) != (game, features):
        raise ValueError(
            f"demonstrations {str(path)!r} were collected for game {about.get('game')!r} with "
            f"features {about.get('features')!r}, not {game!r} with {features!r}"
        )
    if data.observations.ndim != 2 or data.observations.shape[1] != width:
        raise ValueError(
            f"demonstrations {str(path)!r} have observations of shape "
            f"{data.observations.shape}, this env's are {width} wide"
        )
    return data, about


def _joined_about(abouts: list[dict[str, Any]], samples: int) -> dict[str, Any]:
    """The description of several kept collections fitted together: the game and features they
    share, the expert (one name, or each part's), the decisions in all, and each part's own."""
    experts = sorted({str(about.get("expert")) for about in abouts})
    return {
        "game": abouts[0].get("game"),
        "features": abouts[0].get("features"),
        "expert": experts[0] if len(experts) == 1 else experts,
        "samples": samples,
        "parts": abouts,
    }


ChunkJob = tuple[SingleSeatEnvFactory, str, int, int, float, Any]


def _collect_chunk(args: ChunkJob) -> Demonstrations:
    """At least ``samples`` expert decisions from one env seeded ``seed``, in whole episodes.
    With a ``player`` (a policy with ``act(obs, mask, rng, deterministic)``), the player's
    action is played and the expert's is the label. An env that shows the learner the expert's
    suggestion (the exploit probe's guided learner) labels with that suggestion: a stochastic
    expert asked twice may choose differently, and the clone must learn to follow what it sees."""
    from folkcards.agents import make_agent

    factory, expert_spec, samples, seed, gamma, player = args
    env = factory()
    env.pool.entries = tuple(e for e in env.pool.entries if e.spec != "self") or env.pool.entries
    expert = make_agent(expert_spec, env.game, env.seats[0], seed=seed)
    rng = np.random.default_rng(seed)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    value_rows: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    agreed, regret, valued = 0, 0.0, 0
    obs, _ = env.reset(seed=seed)
    rewards: list[float] = []  # of the episode under way
    while len(actions) < samples or len(returns) < len(actions):  # whole episodes only
        raw = env.learner_observation()
        suggested = getattr(env, "suggestion", None)
        if suggested is not None and suggested >= 0:
            action, adviser = int(suggested), env.hint_agent
        else:
            expert.seat = env.learner
            action, adviser = int(expert.act(raw)), expert
        mask = env.action_masks()
        obs_rows.append(obs)
        mask_rows.append(mask)
        actions.append(action)
        played = action if player is None else int(player.act(obs, mask, rng, True))
        agreed += played == action
        row = np.full(mask.shape, np.nan, dtype=np.float32)
        values = getattr(adviser, "last_action_values", None)
        if values:
            for a, v in values.items():
                row[a] = v
            if played in values:
                regret += max(values.values()) - values[played]
                valued += 1
        value_rows.append(row)
        obs, reward, terminated, truncated, _ = env.step(played)
        rewards.append(float(reward))
        if terminated or truncated:
            to_go, backwards = 0.0, []
            for reward in reversed(rewards):
                to_go = reward + gamma * to_go
                backwards.append(to_go)
            returns.extend(reversed(backwards))
            rewards = []
            expert.reset()
            if len(actions) < samples:
                obs, _ = env.reset()
    return Demonstrations(
        np.asarray(obs_rows, dtype=np.float32),
        np.asarray(mask_rows, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
        np.asarray(value_rows, dtype=np.float32),
        agreed,
        float(regret),
        valued,
    )


def collect_demonstrations(
    factory: SingleSeatEnvFactory,
    expert: str,
    samples: int,
    seed: int,
    gamma: float = 1.0,
    workers: int = 1,
    log: Callable[[str], None] | None = None,
    log_every: float = LOG_EVERY,
    player: Any = None,
    label: str = "pretraining",
) -> Demonstrations:
    """At least ``samples`` expert decisions (whole episodes) in envs built by ``factory``;
    with ``log``, a progress line every ``log_every`` seconds (as chunks finish). With a
    ``player`` (a picklable policy, ``act(obs, mask, rng, deterministic)``), the player acts
    in the learner's seat and the expert only labels its decisions (DAgger)."""
    per_chunk = -(-samples // CHUNKS)
    jobs: list[ChunkJob] = [
        (factory, expert, per_chunk, seed * 1000 + i, gamma, player) for i in range(CHUNKS)
    ]
    lines = ProgressLines(label, per_chunk * CHUNKS, "decisions", log or (lambda _: None))
    lines.every = log_every
    if workers <= 1:
        parts = []
        for job in jobs:
            parts.append(_collect_chunk(job))
            lines.advance(per_chunk)
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            parts = []
            for part in pool.imap(_collect_chunk, jobs):  # in job order: the same data
                parts.append(part)
                lines.advance(per_chunk)
    return Demonstrations.concatenate(parts)


def _tensors(data: Demonstrations, idx: np.ndarray) -> tuple[Any, ...]:
    """Observations, masks, actions and returns of the decisions ``idx``, as torch tensors."""
    import torch

    return (
        torch.as_tensor(data.observations[idx]),
        torch.as_tensor(data.masks[idx]),
        torch.as_tensor(data.actions[idx]),
        torch.as_tensor(data.returns[idx]),
    )


def soft_targets(data: Demonstrations, temperature: float) -> np.ndarray:
    """Per decision, the distribution the policy is fitted to: where the expert valued the
    actions, the softmax of those values divided by ``temperature`` (equal values share the
    probability, a clearly better action takes nearly all of it); elsewhere its action."""
    targets = np.zeros(data.masks.shape, dtype=np.float32)
    targets[np.arange(len(data)), data.actions] = 1.0
    valued = np.isfinite(data.values).any(axis=1)
    if valued.any():
        values = data.values[valued].astype(np.float64) / temperature
        known = np.isfinite(values)
        top = np.where(known, values, -np.inf).max(axis=1, keepdims=True)
        weights = np.where(known, np.exp(np.where(known, values, 0.0) - top), 0.0)
        targets[valued] = weights / weights.sum(axis=1, keepdims=True)
    return targets


def _fit_epoch(
    policy: Any,
    optimizer: Any,
    data: Demonstrations,
    fit: np.ndarray,
    batch_size: int,
    value: bool,
    imitate: bool = True,
    targets: np.ndarray | None = None,
) -> dict[str, float]:
    """One pass over the decisions ``fit`` in minibatches; the mean losses (``imitate``: fit
    the policy to the actions, or with ``targets`` to those distributions; ``value``: fit the
    value head to the returns)."""
    import torch
    import torch.nn.functional as F

    policy_losses, value_losses = [], []
    for start in range(0, len(fit), batch_size):
        batch = fit[start : start + batch_size]
        obs, masks, actions, returns = _tensors(data, batch)
        if targets is None:
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
            policy_loss = -log_prob.mean()
        else:
            log_probs = policy.get_distribution(obs, action_masks=masks).distribution.logits
            wanted = torch.as_tensor(targets[batch])
            policy_loss = -(wanted * log_probs.clamp(min=-1e4)).sum(dim=1).mean()
            values = policy.predict_values(obs)
        value_loss = F.mse_loss(values.flatten(), returns)
        if imitate and value:
            loss = policy_loss + value_loss
        else:
            loss = policy_loss if imitate else value_loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        optimizer.step()
        policy_losses.append(policy_loss.item())
        value_losses.append(value_loss.item())
    return {
        "policy_loss": float(np.mean(policy_losses)),
        "value_loss": float(np.mean(value_losses)),
    }


def _epoch_line(metrics: dict[str, float]) -> str:
    line = "pretrain epoch {epoch}: policy loss {policy_loss:.4f}, value loss {value_loss:.4f}"
    line = line.format(**metrics)
    if "agreement" in metrics:
        line += f", agreement with the expert on held-out decisions {metrics['agreement']:.2%}"
    if "regret" in metrics:
        line += f", regret {metrics['regret']:.3f} per valued decision"
    return line


def holdout_mask(n: int, share: float, seed: int) -> np.ndarray:
    """``n`` decisions of which a seeded ``share`` (rounded) is held out (``True``)."""
    held = np.zeros(n, dtype=bool)
    held[np.random.default_rng(seed).permutation(n)[: int(round(n * share))]] = True
    return held


def behaviour_clone(
    model: Any,
    data: Demonstrations,
    epochs: int = 4,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    value: bool = True,
    holdout: float = 0.05,
    seed: int = 0,
    log: Callable[[str], None] = print,
    imitate: bool = True,
    temperature: float | None = None,
    held: np.ndarray | None = None,
    best_epoch: bool = False,
) -> dict[str, float]:
    """Fit ``model.policy`` to the expert's actions (and returns); returns the final metrics.
    ``imitate=False`` fits the value head only (a policy already equal to the expert's keeps its
    weights: the policy and value networks of an SB3 MLP policy share no layer). With a
    ``temperature``, the policy is fitted to :func:`soft_targets` instead of the actions.
    ``held`` marks the decisions kept out of the fit to measure it (default: a seeded
    ``holdout`` share); the metrics then include the agreement with the expert on them and,
    where the expert valued the actions, the mean ``regret`` (its best value minus its value of
    the network's choice). With ``best_epoch`` the policy ends with the weights of the epoch
    that did best on the held-out decisions (:func:`held_out_score`) and its metrics, with
    ``best_epoch`` naming it."""
    import copy

    import torch

    policy = model.policy
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))  # the minibatch order starts from it
    if held is None:
        held = holdout_mask(len(data), holdout, seed)  # the first of ``order``
    if len(held) != len(data):
        raise ValueError(f"held marks {len(held)} decisions, the data have {len(data)}")
    hold, fit = order[held[order]], order[~held[order]]
    if best_epoch and not len(hold):
        raise ValueError("best_epoch needs held-out decisions (holdout above 0)")
    targets = None if temperature is None else soft_targets(data, temperature)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    metrics: dict[str, float] = {}
    best: tuple[float, dict[str, float], dict[str, Any]] | None = None
    policy.set_training_mode(True)
    for epoch in range(epochs):
        rng.shuffle(fit)
        metrics = {
            "epoch": epoch + 1,
            **_fit_epoch(policy, optimizer, data, fit, batch_size, value, imitate, targets),
        }
        if len(hold):
            metrics.update(_holdout_metrics(policy, data, hold))
        log(_epoch_line(metrics))
        if best_epoch:
            score = held_out_score(metrics)
            if best is None or score > best[0]:
                best = (score, dict(metrics), copy.deepcopy(policy.state_dict()))
    if best is not None:
        policy.load_state_dict(best[2])
        metrics = {**best[1], "best_epoch": best[1]["epoch"]}
        log(f"pretrain: the weights of epoch {metrics['epoch']} are kept (best on held-out)")
    policy.set_training_mode(False)
    return metrics


def held_out_score(metrics: dict[str, float]) -> float:
    """How well an epoch did on the held-out decisions, higher better: minus the regret where
    the expert valued its actions, else the agreement with it."""
    return -metrics["regret"] if "regret" in metrics else metrics["agreement"]


def _holdout_metrics(policy: Any, data: Demonstrations, hold: np.ndarray) -> dict:
    import torch

    obs, masks, actions, returns = _tensors(data, hold)
    policy.set_training_mode(False)
    with torch.no_grad():
        distribution = policy.get_distribution(obs, action_masks=masks.numpy())
        predicted = distribution.distribution.probs.argmax(dim=1)
        values = policy.predict_values(obs).flatten()
    policy.set_training_mode(True)
    metrics = {
        "agreement": float((predicted == actions).float().mean()),
        "holdout_value_mse": float(((values - returns) ** 2).mean()),
    }
    expert_values = data.values[hold]
    valued = np.isfinite(expert_values).any(axis=1)
    if valued.any():
        chosen = expert_values[valued, predicted.numpy()[valued]]
        best = np.nanmax(expert_values[valued], axis=1)
        metrics["regret"] = float(np.mean(best - np.nan_to_num(chosen, nan=best)))
    return metrics


def clone_expert(
    model: Any,
    factory: SingleSeatEnvFactory,
    pre: PretrainConfig,
    seed: int,
    gamma: float,
    workers: int,
    log: Callable[[str], None] = print,
    imitate: bool = True,
    acting_policy: Callable[[Any], Any] | None = None,
    keep: Path | None = None,
) -> dict[str, float]:
    """Collect ``pre.samples`` decisions of ``pre.expert`` in ``factory``'s env (or read
    ``pre.demonstrations``) and clone them into ``model`` (both training stacks); returns the
    last epoch's metrics plus ``samples``. With ``keep``, the decisions are written there
    first (:func:`save_demonstrations`).
    ``imitate=False`` fits the value head only (see :func:`behaviour_clone`).

    With ``pre.dagger_rounds``, ``acting_policy(model)`` gives the network as a picklable
    policy for the DAgger rounds (see the module docstring); the metrics then add, per round
    ``k``, ``dagger_k_agreement``: how often the network chose the expert's action in the
    decisions it played before that round's refit (and ``dagger_k_regret`` where the expert
    values actions). The held-out decisions stay held out through every refit."""
    if pre.expert is None:
        raise ValueError("pretrain.expert is not set: nothing to clone")
    if pre.dagger_rounds and acting_policy is None:
        raise ValueError("pretrain.dagger_rounds needs a network that can play (the SB3 stack)")
    if pre.demonstrations is not None:  # kept again, they keep the description of their collection
        width = factory().observation_space.shape[0]
        paths = pre.demonstrations if isinstance(pre.demonstrations, list) else [pre.demonstrations]
        parts, abouts = [], []
        for path in paths:
            part, part_about = load_demonstrations(path, factory.game, factory.features, width)
            log(f"pretraining: {len(part)} decisions of {part_about.get('expert')!r} from {path}")
            parts.append(part)
            abouts.append(part_about)
        data = Demonstrations.concatenate(parts)
        about = abouts[0] if len(abouts) == 1 else _joined_about(abouts, len(data))
    else:
        log(
            f"pretraining: collecting {pre.samples} decisions of {pre.expert!r} ({workers} workers)"
        )
        data = collect_demonstrations(
            factory, pre.expert, pre.samples, seed=seed, gamma=gamma, workers=workers, log=log
        )
        about = {"game": factory.game, "features": factory.features, "expert": pre.expert,
                 "samples": pre.samples, "seed": seed, "gamma": gamma}  # fmt: skip
    if keep is not None:
        save_demonstrations(data, keep, about)
        log(f"pretraining: the {len(data)} decisions are kept in {keep}")

    held = holdout_mask(len(data), pre.holdout, seed)

    def fit(data: Demonstrations) -> dict[str, float]:
        return behaviour_clone(
            model,
            data,
            epochs=pre.epochs,
            batch_size=pre.batch_size,
            learning_rate=pre.learning_rate,
            value=pre.value,
            seed=seed,
            log=log,
            imitate=imitate,
            temperature=pre.value_temperature,
            held=held,
            best_epoch=pre.best_epoch,
        )

    metrics = fit(data)
    rounds: dict[str, float] = {}
    for k in range(1, pre.dagger_rounds + 1):
        assert acting_policy is not None
        n = pre.dagger_samples or pre.samples
        log(f"DAgger round {k}: the network plays {n} decisions, {pre.expert!r} labels them")
        round_seed = seed + DAGGER_SEED_STEP * k
        more = collect_demonstrations(
            factory, pre.expert, n, seed=round_seed, gamma=gamma, workers=workers, log=log,
            player=acting_policy(model), label=f"DAgger round {k}",
        )  # fmt: skip
        rounds[f"dagger_{k}_agreement"] = more.agreed / len(more)
        line = (
            f"DAgger round {k}: the network chose the expert's action in "
            f"{more.agreed / len(more):.2%} of its {len(more)} decisions"
        )
        if more.valued:
            rounds[f"dagger_{k}_regret"] = more.regret / more.valued
            line += f"; regret {more.regret / more.valued:.3f} per valued decision"
        log(line)
        data = Demonstrations.concatenate([data, more])
        held = np.concatenate([held, holdout_mask(len(more), pre.holdout, round_seed)])
        metrics = fit(data)
    metrics.update(rounds)
    metrics["samples"] = len(data)
    return metrics


def pretrain(
    model: Any,
    config: TrainConfig,
    factory: SingleSeatEnvFactory,
    run_dir: Path,
    workers: int,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """Collect demonstrations and clone them into ``model`` (with DAgger rounds if configured);
    writes ``run_dir/pretrain.json``."""
    keep = run_dir / "demonstrations.npz" if config.pretrain.keep_demonstrations else None
    metrics = clone_expert(
        model, factory, config.pretrain, config.run.seed, config.algorithm.gamma, workers, log,
        acting_policy=_numpy_actor, keep=keep,
    )  # fmt: skip
    (run_dir / "pretrain.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def _numpy_actor(model: Any) -> Any:
    """The actor of an SB3 MaskablePPO model as a picklable numpy policy."""
    from folkcards.agents.policy_network import NumpyPolicy

    return NumpyPolicy.from_sb3(model)


__all__ = [
    "Demonstrations",
    "behaviour_clone",
    "clone_expert",
    "collect_demonstrations",
    "pretrain",
]
