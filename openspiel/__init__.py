"""Paston, Tri Palki and every other registered game in OpenSpiel, and agents both ways.

Importing this package registers each game of the registry with ``pyspiel.register_game`` as
``folkcards_<name>`` (``folkcards_paston``, ``folkcards_tri_palki`` …): one deal or round, with
its deal and every reserve draw as chance nodes. :func:`load_game` loads one with its
parameters; :func:`as_policy` makes any folkcards agent an OpenSpiel policy; the agent spec
``openspiel:...`` (:mod:`.agents`) plays an OpenSpiel policy in folkcards tournaments. Needs the
``openspiel`` extra (``pip install folkcards[openspiel]``).
"""

from __future__ import annotations

from .agents import AgentPolicy, as_policy
from .game import load_game, register, register_all, short_name

register_all()

__all__ = ["AgentPolicy", "as_policy", "load_game", "register", "register_all", "short_name"]
