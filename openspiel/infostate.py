"""Information states as strings, built only from a seat's own observations and actions.

A seat's information state is its seat, then each of its past decisions as the observation it
decided on and the action it took, then its current observation. Every piece is the package's
own observation (the vector and the action mask), so nothing another seat holds can enter it,
and a seat never forgets what it saw or did (perfect recall). An agent that keeps its own
decisions builds the same string as the OpenSpiel game (:class:`InfoStateTracker`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def observation_string(observation: dict[str, Any]) -> str:
    """One observation as text: the vector's nonzero entries ``index:value``, then the legal
    actions after ``|``."""
    vector = np.asarray(observation["observation"], dtype=np.float32)
    nonzero = np.flatnonzero(vector)
    pieces = " ".join(f"{i}:{float(vector[i]):.6g}" for i in nonzero)
    legal = " ".join(str(int(a)) for a in np.flatnonzero(observation["action_mask"]))
    return f"{pieces}|{legal}"


def information_state_string(seat: str, decisions: Sequence[str], current: str) -> str:
    """``seat``, its past decisions (``observation>action``) and its current observation."""
    return "\n".join([seat, *decisions, current])


class InfoStateTracker:
    """The information state of one seat, kept from the observations it acts on."""

    def __init__(self, seat: str):
        self.seat = seat
        self.decisions: list[str] = []

    def reset(self) -> None:
        self.decisions = []

    def key(self, observation: dict[str, Any]) -> str:
        """The information state at a decision on ``observation``."""
        return information_state_string(self.seat, self.decisions, observation_string(observation))

    def record(self, observation: dict[str, Any], action: int) -> None:
        """Remember that this seat took ``action`` on ``observation``."""
        self.decisions.append(f"{observation_string(observation)}>{int(action)}")
