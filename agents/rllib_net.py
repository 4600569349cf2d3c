"""The network of RLlib-trained policies, in plain torch (no Ray needed to build or run it).

:class:`folkcards.train.rllib_module.MaskedPPOModule` trains it inside RLlib;
:class:`folkcards.agents.rllib_agent.RLlibAgent` plays it from an exported policy file.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

MASKED_LOGIT = -1.0e9  # an illegal action's logit: never the argmax, probability exp(-1e9) = 0
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


class MaskedActorCritic(nn.Module):
    """Separate policy and value MLPs on the observation vector; the policy's logits masked."""

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be tanh or relu, got {activation!r}")
        act = ACTIVATIONS[activation]

        def mlp(out: int) -> nn.Sequential:
            layers: list[nn.Module] = []
            size = obs_size
            for width in hidden:
                layers += [nn.Linear(size, width), act()]
                size = width
            layers.append(nn.Linear(size, out))
            return nn.Sequential(*layers)

        self.pi = mlp(num_actions)
        self.vf = mlp(1)
        head = self.pi[-1]
        assert isinstance(head, nn.Linear)
        with torch.no_grad():  # a small policy head: a near-uniform first policy
            head.weight.mul_(0.01)
            head.bias.zero_()

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Policy logits, with every action where ``mask`` is 0 set to :data:`MASKED_LOGIT`."""
        raw: torch.Tensor = self.pi(obs)
        return torch.where(mask > 0, raw, torch.full_like(raw, MASKED_LOGIT))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.vf(obs)
        return out.squeeze(-1)


def build_net(obs_size: int, num_actions: int, hidden: list[int], activation: str) -> Any:
    """A new :class:`MaskedActorCritic`."""
    return MaskedActorCritic(int(obs_size), int(num_actions), [int(h) for h in hidden], activation)


__all__ = ["MASKED_LOGIT", "MaskedActorCritic", "build_net"]
