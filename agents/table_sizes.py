"""Which table sizes an agent plays, checked before a tournament, a game or training starts.

An agent that can play only some of a game's table sizes has a ``table_sizes()`` method (the
PPO agents: a model whose input fits one size and cannot be adapted); every other agent plays
every size its game allows. Callers check the whole line-up first, so that a table an agent
cannot play is refused with one line before anything is played:

>>> check_table(["ppo:tri_palki", "heuristic"], "tri_palki", 7)
>>> agent_table_sizes("heuristic", "paston")
(3,)
"""

from __future__ import annotations

from collections.abc import Iterable

from ..envs.registry import game_spec
from .base import make_agent


def agent_table_sizes(spec: str, game: str) -> tuple[int, ...]:
    """The table sizes of ``game`` that the agent ``spec`` plays (building it once)."""
    agent = make_agent(spec, game)
    sizes = getattr(agent, "table_sizes", None)
    if callable(sizes):
        return tuple(sizes())
    return game_spec(game).table_sizes


def sizes_text(sizes: tuple[int, ...]) -> str:
    """``"4 players only"``, ``"2-11 players"``, ``"3, 5 players"`` or ``"no table size"``."""
    if not sizes:
        return "no table size"
    if len(sizes) == 1:
        return f"{sizes[0]} players only"
    if list(sizes) == list(range(sizes[0], sizes[-1] + 1)):
        return f"{sizes[0]}-{sizes[-1]} players"
    return f"{', '.join(map(str, sizes))} players"


def check_table(specs: Iterable[str], game: str, num_players: int) -> None:
    """``ValueError`` (one line naming the sizes it plays) for the first agent spec in ``specs``
    that cannot sit at a ``num_players`` table of ``game``."""
    for spec in dict.fromkeys(specs):
        sizes = agent_table_sizes(spec, game)
        if num_players not in sizes:
            raise ValueError(
                f"agent {spec!r} plays {game} at {sizes_text(sizes)}, not at {num_players}"
            )


__all__ = ["agent_table_sizes", "check_table", "sizes_text"]
