"""The help of an agent-spec option, written from the agent registry when it is shown.

``parser.add_argument("--agents", nargs="+", action=AgentSpecs, help="... (%(kinds)s) ...")``:
argparse expands ``%(kinds)s`` only when ``--help`` is printed, so building a parser does not
load the agents (and a kind registered later, by a plug-in or ``register_agent``, is listed).
"""

from __future__ import annotations

import argparse
from typing import Any


class _Kinds:
    """Formats as the registered kinds and the external forms, read at that moment."""

    def __str__(self) -> str:
        from .base import agent_kinds

        return ", ".join(agent_kinds()) + "; or module:Class, file.py:Class, a plug-in"


def kinds_text() -> str:
    """The agent kinds a spec may name, as the help lists them."""
    return str(_Kinds())


class AgentSpecs(argparse._StoreAction):
    """``store`` whose help may say ``%(kinds)s``: the agent kinds of the registry."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kinds = _Kinds()


__all__ = ["AgentSpecs", "kinds_text"]
