"""What both games' seat views share: typed-move errors, input words, episode summaries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from folkcards.envs.registry import game_spec

QUIT_WORDS = {"quit", "exit", "q", "leave", ":q"}
HELP_WORDS = {"help", "h", "?", "moves", "commands"}
SHOW_WORDS = {"table", "show", "look", "hand", "t"}
RULES_WORDS = {"rules", "rule", "r", "how"}

InputFn = Callable[[str], str]
WriteFn = Callable[[str], None]


class MoveError(ValueError):
    """A typed move that cannot be played now; the message says why."""


def normalize(text: str) -> str:
    """Lower case, single spaces, underscores as spaces: how typed words are compared."""
    return " ".join(str(text).strip().lower().replace("_", " ").split())


def plural(count: int, word: str) -> str:
    """``1 trick``, ``2 tricks``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def signed(value: int) -> str:
    """``+30``, ``0``, ``−9`` (a real minus sign, as in the rules pages)."""
    return f"{value:+d}".replace("-", "−") if value else "0"


class Announced:
    """An agent that calls ``before_apply()`` once it has chosen, before the env applies it.

    Terminal play and ``watch`` narrate each action from the state just before it.
    """

    def __init__(self, agent: Any, before_apply: Callable[[], None]):
        self.agent, self.before_apply = agent, before_apply

    def reset(self) -> None:
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset()

    def act(self, observation: dict[str, Any]) -> int:
        action = int(self.agent.act(observation))
        self.before_apply()
        return action


class SeatView:
    """One seat's point of view of a game: seats, names, and the results of finished episodes.

    Subclasses say how to show the table, read a typed move and narrate the others' moves.
    """

    default_mode = ""  # the episode mode terminal play uses unless told otherwise

    def __init__(self, env: Any, seat: int, labels: list[str], cards: Any, rules: Any):
        self.env = env
        self.raw = env.unwrapped
        self.seat = seat
        self.labels = labels
        self.n = len(env.possible_agents)
        self.cards = cards
        self.rules = rules
        self.me = env.possible_agents[seat]
        self.results_seen = 0

    def abs_seat(self, rel: int) -> int:
        return (self.seat + rel) % self.n

    def who(self, seat: int) -> str:
        return self.labels[seat]

    def label(self, name: str) -> str:
        """The label of an agent given by name (``player_1``)."""
        return self.labels[self.env.possible_agents.index(name)]

    def sym(self, card: int) -> str:
        return self.cards.symbol(card)

    def legal_names(self, obs: dict[str, np.ndarray]) -> list[str]:
        return [self.raw.action_to_string(int(a)) for a in np.flatnonzero(obs["action_mask"])]

    def view(self) -> Any:
        """The decoded observation of this seat now."""
        raise NotImplementedError

    def new_results(self) -> list[str]:
        """Summaries of the episodes finished since the last call."""
        record = self.raw.record()
        done = [e for e in game_spec(record["game"]).record_units(record) if e.get("result")]
        out = []
        for episode in done[self.results_seen :]:
            out.extend(self.summary(episode["result"]))
        self.results_seen = len(done)
        return out

    def summary(self, result: dict[str, dict[str, Any]]) -> list[str]:
        raise NotImplementedError

    # what each game's view provides to the session
    def show(self, obs: dict[str, np.ndarray]) -> str:
        raise NotImplementedError

    def help_lines(self, obs: dict[str, np.ndarray]) -> list[str]:
        raise NotImplementedError

    phase_rules: dict[str, str] = {}  # a short summary of each phase's rules
    rules_page = ""  # the full rules in the repository

    def rules_text(self, obs: dict[str, np.ndarray]) -> str:
        """A short summary of the rules of the phase this seat is in, and where the rest is."""
        view = self.decode(obs)
        lines = [self.phase_rules.get(view.phase, next(iter(self.phase_rules.values())))]
        lines += self.rules_here(view)
        lines.append(f"The full rules: {self.rules_page} in the folkcards repository.")
        return "\n".join(lines)

    def rules_here(self, view: Any) -> list[str]:
        """What the rules mean for this seat now (tricks needed, hand value ...)."""
        return []

    def decode(self, obs: dict[str, np.ndarray]) -> Any:
        """The named pieces of an observation of this seat."""
        raise NotImplementedError

    def parse(self, text: str, obs: dict[str, np.ndarray]) -> int:
        raise NotImplementedError

    def before_step(self, seat: int) -> dict[str, Any]:
        raise NotImplementedError

    def describe(self, seat: int, action: int, before: dict[str, Any]) -> str | None:
        raise NotImplementedError

    def events(self, before: dict[str, Any], seat: int, action: int) -> list[str]:
        raise NotImplementedError

    def start(self) -> list[str]:
        raise NotImplementedError

    def finish(self) -> list[str]:
        raise NotImplementedError
