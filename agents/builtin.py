"""Registers the built-in agent kinds with :func:`folkcards.agents.base.register_agent`."""

from __future__ import annotations

from typing import Any

from ..envs.registry import game_spec
from .base import Agent, register_agent
from .random_agent import RandomAgent


def _random(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> RandomAgent:
    return RandomAgent(game, seat, seed)


register_agent("random", _random)

from .ppo_agent import make_ppo_agent  # noqa: E402  (torch loads only when a model does)

register_agent("ppo", make_ppo_agent)

from .distilled_agent import make_distilled_agent  # noqa: E402

register_agent("distilled", make_distilled_agent)


def _heuristic(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> Agent:
    return game_spec(game).piece("heuristic")(game, seat, seed)


register_agent("heuristic", _heuristic)

from .rllib_agent import make_rllib_agent  # noqa: E402  (torch loads only when a policy does)

register_agent("rllib", make_rllib_agent)


def _pimc(game: str, seat: str, seed: int | None, arg: str | None, **kw: Any) -> Agent:
    factory = game_spec(game).piece("search_agent")  # "x has no search agent (pimc)" if none
    return factory(game, seat, seed, arg, **kw)


register_agent("pimc", _pimc)


def _expert(game: str, seat: str, seed: int | None, arg: str | None, **kw: Any) -> Agent:
    factory = game_spec(game).piece("expert_agent")  # "x has no expert agent" if none
    return factory(game, seat, seed, arg, **kw)


register_agent("expert", _expert)


def _montecarlo(game: str, seat: str, seed: int | None, arg: str | None, **kw: Any) -> Agent:
    factory = game_spec(game).piece("montecarlo_agent")  # "x has no one-ply Monte Carlo ..."
    return factory(game, seat, seed, arg, **kw)


register_agent("montecarlo", _montecarlo)


def _iterated(game: str, seat: str, seed: int | None, arg: str | None, **kw: Any) -> Agent:
    factory = game_spec(game).piece("iterated_agent")  # "x has no iterated search agent" if none
    return factory(game, seat, seed, arg, **kw)


register_agent("iterated", _iterated)


from .exploit_agent import make_exploit_agent  # noqa: E402

register_agent("exploit", make_exploit_agent)
