"""The model files of the policy agents: where a spec's network is, its sidecar, loading it.

``ppo:PATH`` names a MaskablePPO ``.zip`` saved by ``folkcards train``; ``ppo:<game>`` or plain
``ppo`` the model committed with the package, ``folkcards/agents/models/<game>_ppo.zip``
(:func:`resolve_model_path`); ``distilled`` the committed ``<game>_distilled.zip``
(:func:`distilled_model_path`; ``distilled:version=V`` an earlier one kept with the package).
Every model saved by ``folkcards train`` has a sidecar ``<name>.json`` (game, env arguments,
observation size, number of actions, training steps, feature set); :func:`load_policy` checks
it against the agent's game, and without it checks the number of actions. Torch and
stable-baselines3 are imported only when a ``.zip`` is loaded.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..envs.registry import GAMES as GAME_SPECS
from ..envs.registry import game_spec
from .base import GAMES
from .policy_network import NumpyPolicy, PPOModelError, TorchPolicy, policy_from_model

MODELS_DIR = Path(__file__).resolve().parent / "models"


def sidecar_path(model_path: str | os.PathLike[str]) -> Path:
    """``run/model.zip`` → ``run/model.json``."""
    path = Path(model_path)
    return (
        path.with_suffix(".json") if path.suffix == ".zip" else path.with_name(path.name + ".json")
    )


def write_sidecar(model_path: str | os.PathLike[str], meta: dict[str, Any]) -> Path:
    path = sidecar_path(model_path)
    path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return path


def read_sidecar(model_path: str | os.PathLike[str]) -> dict[str, Any] | None:
    path = sidecar_path(model_path)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise PPOModelError(f"unreadable model metadata {path}: {exc}") from exc


def resolve_model_path(arg: str | None, game: str) -> Path:
    """The file a ``ppo[:ARG]`` spec names: a game name (or nothing) means the packaged model;
    nothing, for a variant without a model of its own, its base game's (same observations)."""
    if arg is None or arg in GAMES:
        path = MODELS_DIR / f"{arg or game}_ppo.zip"
        family = MODELS_DIR / f"{game_spec(game).family}_ppo.zip"
        return family if arg is None and not path.is_file() and family.is_file() else path
    return Path(arg).expanduser()


PPO_CONFIG = "ppo_full.yaml"  # the training configs of the packaged networks, per game family
DISTILL_CONFIG = "distill.yaml"


def distilled_model_path(game: str, version: str | None = None) -> Path:
    """The network distilled from ``game``'s search player, committed with the package
    (``folkcards/agents/models/<game>_distilled.zip``; a variant without one uses its base
    game's). ``version`` names an earlier distilled player kept with the package
    (``<family>_distilled_<version, dots as underscores>.zip``, :func:`distilled_versions`);
    ``ValueError`` in one line for a version the game does not have."""
    if version is not None:
        versions = distilled_versions(game)
        if version not in versions:
            kept = ", ".join(versions) if versions else "none"
            raise ValueError(
                f"distilled: {game} has no earlier distilled player {version!r} "
                f"(versions kept: {kept})"
            )
        return MODELS_DIR / f"{game_spec(game).family}_distilled_{version.replace('.', '_')}.zip"
    path = MODELS_DIR / f"{game}_distilled.zip"
    family = MODELS_DIR / f"{game_spec(game).family}_distilled.zip"
    return family if not path.is_file() and family.is_file() else path


def distilled_versions(game: str) -> tuple[str, ...]:
    """The earlier distilled players of ``game``'s family kept with the package, oldest first:
    ``("0.6",)`` for ``tri_palki_distilled_0_6.zip``."""
    prefix = f"{game_spec(game).family}_distilled_"
    tails = (path.stem.removeprefix(prefix) for path in MODELS_DIR.glob(f"{prefix}*.zip"))
    found = sorted(
        tuple(map(int, tail.split("_"))) for tail in tails if tail.replace("_", "").isdigit()
    )
    return tuple(".".join(map(str, version)) for version in found)


def network_file(spec: str, game: str) -> Path | None:
    """The saved network an agent spec plays: ``ppo[:ARG]`` its model file, ``distilled[:...]``
    the committed distilled network (``version=V``: that earlier one); ``None`` for a spec
    without one. The file may not exist."""
    kind, _, arg = spec.partition(":")
    if kind == "ppo":
        return resolve_model_path(arg or None, game)
    if kind == "distilled":
        items = (item.partition("=") for item in arg.split(","))
        version = next((text.strip() for key, _, text in items if key.strip() == "version"), None)
        return distilled_model_path(game, version)
    return None


_CACHE: dict[tuple[str, float, str], NumpyPolicy | TorchPolicy] = {}


def load_policy(
    path: str | os.PathLike[str],
    game: str,
    spec: str | None = None,
    trained_by: str = PPO_CONFIG,
) -> NumpyPolicy | TorchPolicy:
    """Load (cached by path and modification time) the policy of a MaskablePPO ``.zip`` for
    ``game``; a missing packaged model names ``configs/<family>/<trained_by>`` to train it."""
    path = Path(path)
    shown = spec or f"ppo:{path}"
    if not path.is_file():
        packaged = path.parent == MODELS_DIR
        hint = (
            f"no model is committed yet for {path.stem.removesuffix('_ppo')}; train one with "
            f"`folkcards train --config configs/{game_spec(game).family}/{trained_by}` and copy its "
            f"model.zip (and model.json) to {path.name} (and {path.with_suffix('.json').name}) there"
            if packaged
            else "give the path of a model.zip written by `folkcards train`"
        )
        raise PPOModelError(f"agent {shown!r}: no PPO model file at {path}: {hint}")
    meta = read_sidecar(path) or {}
    if meta.get("game") is not None and meta["game"] not in (game, game_spec(game).family):
        raise PPOModelError(
            f"agent {shown!r}: the model at {path} was trained for {meta['game']}, not {game}"
        )
    key = (str(path.resolve()), path.stat().st_mtime, game)
    if key in _CACHE:
        return _CACHE[key]
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise PPOModelError(
            f"agent {shown!r} needs torch, stable-baselines3 and sb3-contrib: pip install 'folkcards[train]'"
        ) from exc
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as exc:
        raise PPOModelError(
            f"agent {shown!r}: cannot load a MaskablePPO model from {path}: {exc}"
        ) from exc
    num_actions = getattr(model.action_space, "n", None)
    shape = getattr(model.observation_space, "shape", None)
    expected_actions = game_spec(game).num_actions
    if num_actions != expected_actions or shape is None or len(shape) != 1:
        trained = meta.get("game") or next(
            (g for g, other in GAME_SPECS.items() if other.num_actions == num_actions),
            "another game",
        )
        raise PPOModelError(
            f"agent {shown!r}: the model at {path} has {num_actions} actions and observations of shape "
            f"{shape} (looks like {trained}); {game} has {expected_actions} actions and a flat observation vector"
        )
    expected = meta.get("obs_size")
    if expected is not None and int(expected) != int(shape[0]):
        raise PPOModelError(
            f"agent {shown!r}: {path} and its metadata disagree on the observation size"
        )
    info = {"game": game, **meta, "obs_size": int(shape[0]), "num_actions": int(num_actions)}
    policy = policy_from_model(model, info)
    _CACHE[key] = policy
    return policy


__all__ = [
    "DISTILL_CONFIG",
    "MODELS_DIR",
    "PPO_CONFIG",
    "distilled_model_path",
    "distilled_versions",
    "load_policy",
    "network_file",
    "read_sidecar",
    "resolve_model_path",
    "sidecar_path",
    "write_sidecar",
]
