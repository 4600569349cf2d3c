"""The action-masking RL module (RLlib's new API stack) and the policy set-ups built from it.

:class:`MaskedPPOModule` is a ``TorchRLModule`` with RLlib's ``ValueFunctionAPI``, so PPO trains
it as it is. Its observations are the dicts of :mod:`.rllib_env` (``{"observations": vector,
"action_mask": 0/1 floats}``). The network is
:class:`folkcards.agents.rllib_net.MaskedActorCritic` (separate policy and value MLPs): the
mask is applied to the policy's logits in the one forward pass that exploration, inference and
training all use (``_forward``), so an illegal action has logit −1e9 — probability zero when
sampled, never the argmax, and no gradient through it in the PPO loss. The same network plays
outside RLlib as the ``rllib:RUN_DIR`` agent.

Policy set-ups (``policies`` in the config, :func:`policy_setup`):

``shared`` (default)
    one policy ``shared`` plays every learner seat: self-play with one network.
``per_seat``
    one policy ``seat_<k>`` per seat ``player_<k>``, each trained on its own seat's decisions.

A league — frozen snapshots of the learner and the heuristic (or any agent spec) as opponents —
is not a set of RLlib policies here: such opponents are played *inside the env*
(:class:`folkcards.train.rllib_env.FolkcardsMultiAgentEnv`'s ``opponents``), so the learner's
policies only ever see their own seats, and a snapshot is the exported policy file
(:mod:`folkcards.agents.rllib_agent`) any env runner can load from the run directory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from folkcards.agents.rllib_net import build_net
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule

POLICY_SETUPS = ("shared", "per_seat")


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """PPO's RL module with action masking; ``model_config``: ``hidden`` (layer sizes) and
    ``activation`` (``tanh`` or ``relu``)."""

    def setup(self) -> None:
        space: Any = self.observation_space
        if not hasattr(space, "spaces") or set(space.spaces) != {"observations", "action_mask"}:
            raise ValueError(
                "MaskedPPOModule needs Dict observations with keys 'observations' and "
                f"'action_mask', got {space}"
            )
        config: Any = self.model_config or {}
        actions: Any = self.action_space
        self.net = build_net(
            int(space["observations"].shape[0]),
            int(actions.n),
            list(config.get("hidden", [256, 256])),
            str(config.get("activation", "tanh")),
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {
            Columns.ACTION_DIST_INPUTS: self.net.logits(obs["observations"], obs["action_mask"])
        }

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward(batch)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return self.net.value(batch[Columns.OBS]["observations"])


def policy_ids(setup: str, num_players: int) -> list[str]:
    """The RLlib policy (module) ids of a set-up."""
    if setup == "shared":
        return ["shared"]
    if setup == "per_seat":
        return [f"seat_{k}" for k in range(num_players)]
    raise ValueError(f"policies must be one of {', '.join(POLICY_SETUPS)}, got {setup!r}")


def mapping_fn(setup: str) -> Callable[..., str]:
    """RLlib's ``policy_mapping_fn``: agent ``player_<k>`` → its policy id."""
    if setup == "shared":
        return _shared
    return _per_seat


def _shared(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return "shared"


def _per_seat(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return f"seat_{agent_id.rpartition('_')[2]}"


def policy_setup(setup: str, num_players: int, model_config: dict[str, Any]) -> dict[str, Any]:
    """``policies``, ``policy_mapping_fn`` and the ``MultiRLModuleSpec`` of a set-up."""
    ids = policy_ids(setup, num_players)
    spec = MultiRLModuleSpec(
        rl_module_specs={
            pid: RLModuleSpec(module_class=MaskedPPOModule, model_config=dict(model_config))
            for pid in ids
        }
    )
    return {"policies": set(ids), "policy_mapping_fn": mapping_fn(setup), "module_spec": spec}


__all__ = ["POLICY_SETUPS", "MaskedPPOModule", "mapping_fn", "policy_ids", "policy_setup"]
