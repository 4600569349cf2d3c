"""Behaviour cloning before RLlib PPO: start the RL module from an expert's decisions.

With ``pretrain.expert`` set in an RLlib config (the same ``pretrain`` group as the SB3 path's,
:class:`folkcards.train.settings.PretrainConfig`), a new run of :func:`~.rllib_train.train_rllib`
does this before the first PPO iteration (a resumed run does not):

1. **Collect** ``samples`` expert decisions with :func:`folkcards.train.pretrain.clone_expert`
   (the SB3 path's collection and fit, unchanged) in a single-seat env built
   from the RLlib config (:func:`demonstration_factory`): the learner's seat played by the
   expert, the other seats by the config's env-internal opponents (``self`` left out: no
   snapshot exists yet); with pure self-play or per-seat policies, where every seat is the
   learner's, by the expert too. The observation vector is the one
   :class:`~folkcards.train.rllib_env.FolkcardsMultiAgentEnv` hands RLlib (``observations``)
   and the returns-to-go are in the same reward units (``reward_scale``, shaping).
2. **Fit** the network of :class:`~folkcards.train.rllib_module.MaskedPPOModule`
   (:class:`~folkcards.agents.rllib_net.MaskedActorCritic`) with the same function: masked
   cross-entropy on the policy's logits and, with ``value: true``, the value head's squared error to the returns; the agreement with
   the expert on the held-out share is logged every epoch and written to ``pretrain.json``.
3. **Load** the fitted weights into every learner policy and sync them to the env runners, so
   the first PPO batch is sampled by the cloned policy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from .pretrain import clone_expert
from .rllib_config import RLlibTrainConfig
from .single_seat import SingleSeatEnvFactory

NET_PREFIX = "net."  # MaskedPPOModule keeps its MaskedActorCritic as ``self.net``


def demonstration_factory(config: RLlibTrainConfig) -> SingleSeatEnvFactory:
    """The single-seat env the expert's decisions are collected in (see the module docstring)."""
    expert = config.pretrain.expert
    if expert is None:
        raise ValueError("pretrain.expert is not set: nothing to clone")
    opponents = tuple((o.spec, o.weight) for o in config.policies.opponents if o.spec != "self")
    if not opponents or sum(w for _, w in opponents) <= 0:
        opponents = ((expert, 1.0),)
    return SingleSeatEnvFactory(
        game=config.game, env_kwargs=dict(config.env.kwargs), opponents=opponents, per_seat=True
    )


class _SB3View:
    """A :class:`MaskedActorCritic` seen through the few SB3 policy methods that
    :func:`folkcards.train.pretrain.behaviour_clone` calls (``model.policy.…``)."""

    def __init__(self, net: Any):
        self.net = net
        self.policy = self

    def parameters(self) -> Any:
        return self.net.parameters()

    def set_training_mode(self, mode: bool) -> None:
        self.net.train(mode)

    def _distribution(self, obs: Any, masks: Any) -> Any:
        import torch

        mask = torch.as_tensor(np.asarray(masks) if not torch.is_tensor(masks) else masks)
        return torch.distributions.Categorical(logits=self.net.logits(obs, mask.float()))

    def evaluate_actions(self, obs: Any, actions: Any, action_masks: Any) -> tuple[Any, Any, Any]:
        dist = self._distribution(obs, action_masks)
        return self.net.value(obs), dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs: Any, action_masks: Any) -> Any:
        return SimpleNamespace(distribution=self._distribution(obs, action_masks))

    def predict_values(self, obs: Any) -> Any:
        return self.net.value(obs)


def clone_into_net(
    net: Any, config: RLlibTrainConfig, workers: int = 1, log: Callable[[str], None] = print
) -> dict[str, float]:
    """Collect the expert's decisions and fit ``net`` (a :class:`MaskedActorCritic`) to them;
    returns the metrics of the last epoch plus ``samples``."""
    return clone_expert(
        _SB3View(net),
        demonstration_factory(config),
        config.pretrain,
        config.run.seed,
        config.algorithm.gamma,
        workers,
        log,
    )


def pretrain_rllib(
    algo: Any, config: RLlibTrainConfig, run_dir: Path, log: Callable[[str], None] = print
) -> dict[str, float]:
    """Behaviour-clone ``pretrain.expert`` into ``algo``'s learner policies and env runners;
    writes ``run_dir/pretrain.json``."""
    import torch
    from folkcards.agents.rllib_net import build_net

    weights = algo.learner_group.get_weights()
    first = next(iter(weights.values()))
    state = {k.removeprefix(NET_PREFIX): torch.as_tensor(np.asarray(v)) for k, v in first.items()}
    obs_size = int(state["pi.0.weight"].shape[1])
    num_actions = int(state[f"pi.{2 * len(config.algorithm.hidden)}.bias"].shape[0])
    net = build_net(obs_size, num_actions, config.algorithm.hidden, config.algorithm.activation)
    net.load_state_dict(state)  # start from the learner's own initialisation
    workers = max(1, min(config.resources.num_env_runners, 2))
    metrics = clone_into_net(net, config, workers, log)
    cloned = {NET_PREFIX + k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}
    algo.learner_group.set_weights({pid: dict(cloned) for pid in weights})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True, timeout_seconds=120
    )
    (run_dir / "pretrain.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


__all__ = ["clone_into_net", "demonstration_factory", "pretrain_rllib"]
