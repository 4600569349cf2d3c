"""Step 2, fit: the policy and value networks on the last generations' samples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...agents.tri_palki_net_search import load_net, save_value
from ...agents.tri_palki_opponent_model import NUM_FEATURES, NUM_MOVES, LearnedOpponentModel
from ...agents.tri_palki_rollouts import NUM_WORLD_FEATURES
from ...agents.tri_palki_search import shipped_opponent_model
from ...search.mlp import Mlp
from .collect import load_data
from .config import FitSettings, IterateConfig
from .layout import FIT_STEP, gen_dir, net_folder, passed_generations, step_seed, write_json


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
    rng = np.random.default_rng(step_seed(config, g, FIT_STEP))
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
        policy_loss, f, step_seed(config, g, FIT_STEP, 1), log, "policy", start_policy,
    )  # fmt: skip
    value, value_losses = _train_mlp(
        data["value_x"][~held_v], data["value_y"][~held_v].astype(np.float32),
        [NUM_WORLD_FEATURES, *f.value_hidden, 1], "stick", f, step_seed(config, g, FIT_STEP, 2), log,
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
    write_json(folder / "fit.json", metrics)
    return metrics
