"""Registers the built-in agent kinds with :func:`folkcards.agents.base.register_agent`."""

from __future__ import annotations

import importlib
from typing import Any

from ..envs.registry import game_spec
from .base import Agent, register_agent
from .random_agent import RandomAgent


def _random(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> RandomAgent:
    return RandomAgent(game, seat, seed)


register_agent("random", _random)

from .ppo_agent import make_ppo_agent  # noqa: E402  (torch loads only when a model does)

register_agent("ppo", make_ppo_agent)


def _heuristic(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> Agent:
    module_name, _, class_name = game_spec(game).heuristic.partition(":")
    agent_class = getattr(importlib.import_module(module_name), class_name)
    return agent_class(game, seat, seed)


register_agent("heuristic", _heuristic)

from .rllib_agent import make_rllib_agent  # noqa: E402  (torch loads only when a policy does)

register_agent("rllib", make_rllib_agent)


def _pimc(game: str, seat: str, seed: int | None, arg: str | None, **kw: Any) -> Agent:
    if game == "paston":
        from .pimc import make_pimc_agent

        return make_pimc_agent(game, seat, seed, arg, **kw)
    from .tri_palki_search import make_tri_palki_search_agent

    return make_tri_palki_search_agent(game, seat, seed, arg, **kw)


register_agent("pimc", _pimc)
