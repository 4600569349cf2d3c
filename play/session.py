"""A person at the table: the session that seats them against agents and runs the episodes.

The person is an agent like the others: :class:`HumanAgent` ``act`` shows the table (built from
the seat's own observation) and asks until a legal move is typed. The episodes are played by
the one episode loop, :func:`folkcards.agents.episode.advance`; the session only narrates.

Everything reads input through ``input_fn(prompt) -> str`` and writes through ``write(text)``,
so tests (and other front ends) can script a whole session with :class:`Session`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
from folkcards.agents import make_agent
from folkcards.agents.episode import Decision, EpisodeRun, advance
from folkcards.agents.table_sizes import check_table
from folkcards.envs.registry import game_spec

from .base import (
    HELP_WORDS,
    QUIT_WORDS,
    RULES_WORDS,
    SHOW_WORDS,
    Announced,
    InputFn,
    MoveError,
    SeatView,
    WriteFn,
    normalize,
)

MODE_WORDS = {"deal": "single deals", "game": "a game to 121", "round": "single rounds",
              "match": "a match"}  # fmt: skip


class Leave(Exception):
    """The person left the table (``quit`` or the end of input)."""


class HumanAgent:
    """The person in their seat: ``act`` shows the table and asks for a legal move."""

    def __init__(self, session: Session):
        self.session = session

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.session.write("")
        self.session.write(self.session.table.show(observation))
        action = self.session.human_move(observation)
        if action is None:
            raise Leave
        return action


class Session:
    """One person against agents; :meth:`run` plays until the person leaves."""

    def __init__(
        self,
        game: str,
        opponents: Sequence[str],
        seat: int = 0,
        seed: int | None = None,
        mode: str | None = None,
        num_players: int | None = None,
        input_fn: InputFn | None = None,
        write: WriteFn | None = None,
        episodes: int | None = None,
    ):
        self.spec = game_spec(game)
        self.game = self.spec.name
        # the game's SeatView subclass, built from (env, seat, labels)
        view_class: Callable[[Any, int, list[str]], SeatView] = self.spec.piece("terminal_view")
        self.mode = mode or getattr(view_class, "default_mode", "") or self.spec.modes[0].name
        self.spec.mode(self.mode)  # ValueError naming the game's modes
        self.num_players, opponents = self._table(list(opponents), num_players)
        if not 0 <= seat < self.num_players:
            raise ValueError(f"--seat must be from 0 to {self.num_players - 1}, got {seat}")
        self.seat = seat
        self.seed = seed
        self.input_fn = input_fn or input
        self.write = write or (lambda text: print(text, flush=True))
        self.episodes = episodes
        self.env = self.spec.raw_env(self.num_players, episode=self.mode)
        self.me = self.env.possible_agents[seat]
        self.specs: dict[str, str] = {}
        self.agents = self._seat_agents(opponents)
        self.labels = [self._label(i) for i in range(self.num_players)]
        short = ["you" if i == seat else f"player_{i}" for i in range(self.num_players)]
        self.table = view_class(self.env, seat, short)
        self.before: dict[str, Any] = {}
        self.out_said = False

    def _table(self, opponents: list[str], num_players: int | None) -> tuple[int, list[str]]:
        """The table size and one opponent spec per other seat (one spec fills every seat)."""
        spec = self.spec
        if not opponents:
            raise ValueError("give at least one opponent (e.g. --opponents heuristic heuristic)")
        n = spec.table_size(num_players, len(opponents) + 1 if len(opponents) > 1 else 0)
        if len(opponents) == 1:
            opponents = opponents * (n - 1)
        if len(opponents) != n - 1:
            raise ValueError(
                f"{spec.name} with {n} players needs {n - 1} opponents (or one, for all seats), "
                f"got {len(opponents)}"
            )
        return n, opponents

    def _seat_agents(self, opponents: list[str]) -> dict[str, Any]:
        check_table(opponents, self.game, len(self.env.possible_agents))  # before any deal
        agents: dict[str, Any] = {}
        others = iter(opponents)
        for i, name in enumerate(self.env.possible_agents):
            if i == self.seat:
                agent: Any = HumanAgent(self)
            else:
                spec = next(others)
                agent_seed = None if self.seed is None else self.seed * 100 + i
                agent = make_agent(spec, self.game, name, agent_seed)
                self.specs[name] = spec
            agents[name] = Announced(agent, partial(self._before, i))
        return agents

    def _before(self, seat: int) -> None:
        self.before = self.table.before_step(seat)

    def _label(self, i: int) -> str:
        if i == self.seat:
            return "you"
        name = f"player_{i}"
        where = ""
        if i == (self.seat + 1) % self.num_players:
            where = ", left"
        elif self.num_players == 3:
            where = ", right"
        return f"{name} ({self.specs[name]}{where})"

    # input ----------------------------------------------------------------------------------------
    def ask(self, prompt: str) -> str | None:
        """One line of input; ``None`` at the end of input."""
        try:
            line = self.input_fn(prompt)
        except EOFError:
            return None
        return "" if line is None else str(line)

    def human_move(self, obs: dict[str, np.ndarray]) -> int | None:
        """Ask until a legal move is typed; ``None`` if the person leaves."""
        while True:
            line = self.ask("your move> ")
            if line is None:
                self.write("\nEnd of input: leaving the table.")
                return None
            key = normalize(line)
            if key in QUIT_WORDS:
                self.write("You leave the table.")
                return None
            reply = self._command(key, obs)
            if reply is not None:
                self.write(reply)
                continue
            try:
                action = self.table.parse(line, obs)
            except MoveError as exc:
                self.write(f"Not possible: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - input must never crash the session
                self.write(f"Not understood ({exc}); type 'help' for your moves.")
                continue
            if not obs["action_mask"][action]:
                self.write("That move is not legal now; type 'help' for your moves.")
                continue
            return int(action)

    def _command(self, key: str, obs: dict[str, np.ndarray]) -> str | None:
        """The reply to an empty line, ``help``, ``rules`` or ``table``; ``None`` for a move."""
        table: Any = self.table
        if not key:
            names = self.table.legal_names(obs)
            more = ", ..." if len(names) > 6 else ""
            return f"Type a move ({', '.join(names[:6])}{more}), or 'help'."
        if key in HELP_WORDS:
            return "\n".join(
                [
                    *table.help_lines(obs),
                    "Commands: help (this list), rules (the rules of this phase), "
                    "table (show the table again), quit (leave).",
                ]
            )
        if key in RULES_WORDS:
            return table.rules_text(obs)
        if key in SHOW_WORDS:
            return table.show(obs)
        return None

    # play -----------------------------------------------------------------------------------------
    def banner(self) -> str:
        others = [self.labels[i] for i in range(self.num_players) if i != self.seat]
        title = self.spec.title
        if not self.spec.fixed_players:
            title += f" ({self.num_players} players)"
        return (
            f"{title}, {MODE_WORDS.get(self.mode, self.mode)}. You are player_{self.seat}; "
            "against " + ", ".join(others) + ".\n"
            "Type your move by name; 'help' lists your moves, 'rules' explains this phase, "
            "'table' shows the table, 'quit' leaves."
        )

    def on_action(self, decision: Decision) -> None:
        """Narrate one action; after a deal or round that does not end the episode, wait."""
        table: Any = self.table
        seat = self.env.possible_agents.index(decision.agent)
        seen = table.results_seen
        text = table.describe(seat, decision.action, self.before)
        if text:
            self.write(text)
        for line in table.events(self.before, seat, decision.action):
            self.write(line)
        env = self.env
        playing = [a for a in env.agents if not (env.terminations[a] or env.truncations[a])]
        if env.terminations.get(self.me) and playing and not self.out_said:
            self.out_said = True
            self.write("You are out of the match; the others play on.")
        if table.results_seen > seen and playing:
            line = self.ask(f"\nPress Enter for the next {self.spec.round_word}, or type quit: ")
            if line is None or normalize(line) in QUIT_WORDS:
                self.write("You leave the table.")
                raise Leave

    def play_episode(self, seed: int | None) -> bool:
        """Play one episode; ``False`` if the person left."""
        env: Any = self.env
        env.reset(seed=seed)
        for agent in self.agents.values():
            agent.reset()
        self.out_said = False
        table: Any = self.table
        for line in table.start():
            self.write(line)
        try:
            advance(env, self.agents, EpisodeRun(), on_action=self.on_action)
        except Leave:
            return False
        for line in table.finish():
            self.write(line)
        return True

    def run(self) -> int:
        """Play until the person leaves; returns the exit code (0, or 130 after Ctrl-C)."""
        try:
            self.write(self.banner())
            number = 0
            while True:
                seed = None if self.seed is None else self.seed + number
                if not self.play_episode(seed):
                    return 0
                number += 1
                if self.episodes is not None and number >= self.episodes:
                    return 0
                unit = self.spec.mode(self.mode).unit
                line = self.ask(f"\nPress Enter for another {unit}, or type quit: ")
                if line is None or normalize(line) in QUIT_WORDS | {"n", "no"}:
                    self.write("Thanks for playing.")
                    return 0
        except KeyboardInterrupt:
            self.write("\nInterrupted: leaving the table.")
            return 130
