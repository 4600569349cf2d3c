"""Registers the built-in agent kinds with :func:`folkcards.agents.base.register_agent`."""

from __future__ import annotations

from typing import Any

from .base import register_agent
from .random_agent import RandomAgent


def _random(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> RandomAgent:
    return RandomAgent(game, seat, seed)


register_agent("random", _random)
