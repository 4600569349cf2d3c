"""A test agent for the web table: ``gate`` thinks until a file exists (the path in the
``FOLKCARDS_TEST_GATE`` environment variable, at most a minute), then plays its first legal move.

Importing this module registers the kind; the table imports it in its workers through
``agents_module="tests.web.slow_agents"``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from folkcards.agents.base import Agent, legal_actions, register_agent

GATE_ENV = "FOLKCARDS_TEST_GATE"


class GateAgent(Agent):
    """Waits at the gate, then plays the first legal move."""

    name = "gate"

    def act(self, observation: dict[str, Any]) -> int:
        gate = Path(os.environ[GATE_ENV])
        deadline = time.monotonic() + 60
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return legal_actions(observation)[0]


def _gate(game: str, seat: str, seed: int | None, arg: str | None, **_: Any) -> GateAgent:
    return GateAgent(game, seat, seed)


register_agent("gate", _gate)
