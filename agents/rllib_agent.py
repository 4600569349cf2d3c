"""Policies trained with RLlib (``folkcards train`` with ``backend: rllib``) as agents.

The agent spec ``rllib:RUN_DIR`` loads the newest exported policy of a run directory
(``RUN_DIR/policy.pt``, written at every checkpoint and at the end of a run;
:mod:`folkcards.train.rllib_train`); ``rllib:FILE.pt`` loads that file (a checkpoint's or a
self-play snapshot's export); ``rllib:paston`` plays the policy committed with the package
(``agents/models/paston_rllib.pt``, trained by ``configs/paston/rllib_ppo_full.yaml``). No Ray is needed to play: the file holds the RL module's torch
weights and the network's shape, and :class:`~folkcards.agents.rllib_net.MaskedActorCritic` — the very network the RL
module trains (:mod:`folkcards.train.rllib_module`) — is rebuilt from them with torch alone.

The agent plays from the plain env observation (``{"observation", "action_mask"}``): the
masked logits' argmax by default (``greedy``), or a sample from the masked distribution.
A run trained with one policy per seat (``policies: per_seat``) plays the policy of the seat
the agent sits in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..envs.registry import game_spec
from .base import GAMES, Agent
from .policy_files import MODELS_DIR

POLICY_FILE = "policy.pt"
FORMAT = "folkcards-rllib-policy-1"


def _torch() -> Any:
    import torch

    return torch


def policy_path(target: str | Path) -> Path:
    """The policy file of ``target``: a game name (the policy committed with the package,
    ``agents/models/<game>_rllib.pt``), a ``.pt`` file itself, or a run directory's
    ``policy.pt``."""
    if isinstance(target, str) and target in GAMES:
        path = MODELS_DIR / f"{target}_rllib.pt"
        if not path.is_file():
            raise ValueError(
                f"no RLlib policy is committed for {target}; give a run directory of "
                f"`folkcards train --config configs/{target}/rllib_ppo.yaml` (rllib:RUN_DIR)"
            )
        return path
    path = Path(target).expanduser()
    if path.is_dir():
        path = path / POLICY_FILE
        if not path.is_file():
            raise ValueError(
                f"{path.parent} holds no {POLICY_FILE}: not an RLlib run directory of "
                "folkcards train (or no checkpoint yet)"
            )
    elif not path.is_file():
        raise ValueError(f"no RLlib run directory or policy file at {str(target)!r}")
    return path


def load_policy_file(path: str | Path) -> dict[str, Any]:
    """The exported policy at ``path`` (see :func:`save_policy_file`)."""
    torch = _torch()
    try:
        data = torch.load(Path(path), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is one clear error
        raise ValueError(f"{path}: not a folkcards RLlib policy file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a folkcards RLlib policy file (format {FORMAT})")
    return data


def save_policy_file(path: str | Path, meta: dict[str, Any], states: dict[str, Any]) -> Path:
    """Write a policy file: ``meta`` (game, obs_size, num_actions, hidden, activation, mapping,
    steps) and the torch state dict of every policy's :class:`MaskedActorCritic` by id."""
    torch = _torch()
    path = Path(path)
    tmp = path.with_suffix(".tmp")
    torch.save({"format": FORMAT, **meta, "policies": states}, tmp)
    tmp.replace(path)  # readers never see half a file
    return path


class RLlibPolicy:
    """The networks of a policy file; ``logits(vector, mask, seat)`` for one decision."""

    def __init__(self, data: dict[str, Any]):
        from .rllib_net import build_net

        torch = _torch()
        self.meta = {k: v for k, v in data.items() if k != "policies"}
        self.path: Path | None = None  # the file it was loaded from, if any
        self.nets: dict[str, Any] = {}
        for policy_id, state in data["policies"].items():
            net = build_net(
                int(data["obs_size"]), int(data["num_actions"]), data["hidden"], data["activation"]
            )  # torch only: agents.rllib_net
            net.load_state_dict(state)
            net.eval()
            self.nets[policy_id] = net
        self.torch = torch

    def policy_for(self, seat: str) -> Any:
        """The network playing ``seat``: its own (per-seat runs) or the shared one."""
        seat_policy = f"seat_{seat.rpartition('_')[2]}"
        if seat_policy in self.nets:
            return self.nets[seat_policy]
        return self.nets.get("shared") or next(iter(self.nets.values()))

    def logits(self, vector: np.ndarray, mask: np.ndarray, seat: str) -> np.ndarray:
        torch = self.torch
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(vector, dtype=np.float32)).unsqueeze(0)
            m = torch.as_tensor(np.asarray(mask, dtype=np.float32)).unsqueeze(0)
            return self.policy_for(seat).logits(obs, m)[0].numpy()


_CACHE: dict[tuple[str, float], RLlibPolicy] = {}


def load_policy(target: str | Path) -> RLlibPolicy:
    """The policy of a run directory or policy file (cached by path and modification time)."""
    path = policy_path(target).resolve()
    key = (str(path), path.stat().st_mtime)
    if key not in _CACHE:
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = RLlibPolicy(load_policy_file(path))
        _CACHE[key].path = path
    return _CACHE[key]


class RLlibAgent(Agent):
    """A policy trained with RLlib, playing from the plain env observation."""

    name = "rllib"

    def __init__(
        self,
        game: str,
        seat: str = "player_0",
        seed: int | None = None,
        policy: RLlibPolicy | None = None,
        greedy: bool = True,
    ):
        super().__init__(game, seat, seed)
        if policy is None:
            raise ValueError("RLlibAgent needs a policy (rllib:RUN_DIR)")
        trained = policy.meta.get("game")
        if trained not in (game, game_spec(game).family):  # a variant plays its base game's
            raise ValueError(f"this RLlib policy was trained for {trained}, not {game}")
        self.policy = policy
        self.greedy = greedy

    def model_files(self) -> tuple[Path, ...]:
        return () if self.policy.path is None else (self.policy.path,)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"])
        if not mask.any():
            raise ValueError("the action mask has no legal action: this agent is not to act")
        logits = self.policy.logits(observation["observation"], mask, self.seat)
        if self.greedy:
            return int(np.argmax(logits))
        legal = np.flatnonzero(mask)
        z = logits[legal] - logits[legal].max()
        p = np.exp(z) / np.exp(z).sum()
        return int(legal[self.rng.choice(len(legal), p=p)])


def make_rllib_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **kwargs: Any
) -> RLlibAgent:
    """Factory of ``rllib:RUN_DIR`` (or ``rllib:FILE.pt``) for :func:`make_agent`."""
    if not arg:
        raise ValueError("the rllib agent needs a run directory: rllib:RUN_DIR")
    return RLlibAgent(game, seat, seed, policy=load_policy(arg), **kwargs)


__all__ = [
    "POLICY_FILE",
    "RLlibAgent",
    "RLlibPolicy",
    "load_policy",
    "load_policy_file",
    "make_rllib_agent",
    "policy_path",
    "save_policy_file",
]
