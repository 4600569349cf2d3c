"""Watching a game as a spectator: every card shown face up (each game narrates itself).

:func:`watch_agents` lets agents play (through the one episode loop); :func:`watch_record`
plays back ``env.unwrapped.record()`` (a file, or a unit stored by a tournament) through the
same loop with agents that repeat the recorded actions. Each action is one line; :class:`Pacer`
waits for Enter between them, or sleeps ``delay`` seconds.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from functools import partial
from typing import Any

from folkcards.agents import make_agent
from folkcards.agents.episode import Decision, play_episode
from folkcards.agents.table_sizes import check_table
from folkcards.envs.registry import GameSpec, game_spec

from .base import Announced, InputFn, WriteFn, normalize, signed


class StopWatching(Exception):
    """The viewer typed quit, or a record ran out of actions."""


class Pacer:
    """Between actions: wait for Enter (``delay=None``), or sleep ``delay`` seconds."""

    def __init__(self, delay: float | None, input_fn: InputFn, write: WriteFn):
        self.delay, self.input_fn, self.write = delay, input_fn, write

    def pause(self) -> None:
        if self.delay is not None:
            if self.delay > 0:
                time.sleep(self.delay)
            return
        try:
            key = normalize(self.input_fn("[Enter] next · c: to the end · q: quit "))
        except EOFError:
            key = "c"  # no more input: play the rest without waiting
        if key in ("q", "quit", "exit"):
            raise StopWatching("you stopped watching")
        if key in ("c", "continue"):
            self.delay = 0.0


class Spectator:
    """Narrates one env for a spectator; subclasses know their game (the registry's
    ``spectator`` piece, ``play/<game>_spectator.py``)."""

    def __init__(
        self,
        env: Any,
        labels: dict[str, str],
        write: WriteFn,
        pacer: Pacer,
        episode_number: int | None = None,
    ):
        self.env, self.raw = env, env.unwrapped
        self.labels, self.write, self.pacer = labels, write, pacer
        # an episode of one deal or round: its number is the episode's (None: count inside)
        self.episode_number = episode_number
        self.opened = 0  # deals / rounds whose opening was shown
        self.finished = 0  # deals / rounds whose result was shown
        self.before: dict[str, Any] = {}

    def episodes(self) -> list[dict[str, Any]]:
        """The deals or rounds of the record so far."""
        record = self.raw.record()
        return game_spec(record["game"]).record_units(record)

    def before_action(self, agent: str) -> None:
        """Called just before ``agent``'s action is applied: open a new deal/round if any."""
        records = self.episodes()
        while self.opened < len(records):
            self.opened += 1
            for line in self.opening(records[self.opened - 1]):
                self.write(line)
        self.before = self.snapshot(agent)

    def after_action(self, decision: Decision) -> None:
        for line in self.describe(decision.agent, decision.action):
            self.write(line)
        records = self.episodes()
        for record in records[self.finished :]:
            if record.get("result"):
                self.finished += 1
                for line in self.result_lines(record["result"]):
                    self.write(line)
        self.pacer.pause()

    def opening(self, record: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def snapshot(self, agent: str) -> dict[str, Any]:
        raise NotImplementedError

    def describe(self, agent: str, action: int) -> list[str]:
        raise NotImplementedError

    def result_lines(self, result: dict[str, dict[str, Any]]) -> list[str]:
        raise NotImplementedError


class _Recorded:
    """Plays back the recorded actions, in the recorded order, whoever's turn it is."""

    def __init__(self, actions: Sequence[Sequence[Any]]):
        self.actions = deque((str(agent), int(action)) for agent, action in actions)
        self.agent = ""

    def seat(self, name: str) -> _Recorded:
        view = _Recorded([])
        view.actions, view.agent = self.actions, name
        return view

    def act(self, observation: dict[str, Any]) -> int:
        if not self.actions:
            raise StopWatching("the record ends here")
        agent, action = self.actions.popleft()
        if agent != self.agent:
            raise ValueError(f"the record does not replay: {agent} acts where {self.agent} must")
        return action


def _watch(
    spec: GameSpec,
    env: Any,
    agents: dict[str, Any],
    labels: dict[str, str],
    seeds: Sequence[tuple[int | None, dict[str, Any] | None]],
    write: WriteFn,
    pacer: Pacer,
) -> int:
    """Play ``env`` once per seed with ``agents`` and narrate; returns the exit code."""
    spectator_class: type[Spectator] = spec.piece("spectator")
    totals = dict.fromkeys(env.possible_agents, 0.0)
    unit = env.unwrapped.episode
    try:
        for number, (seed, options) in enumerate(seeds):
            write(f"=== {unit} {number + 1} (seed {seed}) ===")
            single = not spec.mode(env.unwrapped.episode).multi
            spectator = spectator_class(env, labels, write, pacer, number + 1 if single else None)
            shown = {
                name: Announced(agent, partial(spectator.before_action, name))
                for name, agent in agents.items()
            }
            run = play_episode(env, shown, seed, options, on_action=spectator.after_action)
            for name in totals:
                totals[name] += run.returns.get(name, 0.0)
            write("")
    except StopWatching as stop:
        write(f"Stopped: {stop}.")
        return 0
    if len(seeds) > 1:
        summed = ", ".join(f"{n} {signed(round(t))}" for n, t in totals.items())
        write(f"totals: {summed}" + ("" if spec.higher_is_better else " (−1 a stick)"))
    return 0


def watch_agents(
    game: str,
    specs: Sequence[str],
    num_players: int | None = None,
    mode: str | None = None,
    seed: int = 0,
    episodes: int = 1,
    write: WriteFn = print,
    pacer: Pacer | None = None,
) -> int:
    """Agents given by spec strings play ``episodes`` episodes from ``seed``; all cards shown."""
    spec = game_spec(game)
    if episodes < 1:
        raise ValueError(f"--episodes must be at least 1, got {episodes}")
    specs = list(specs)
    n = spec.table_size(num_players, len(specs))
    if len(specs) == 1:
        specs = specs * n
    if len(specs) != n:
        example = " ".join([*specs, *[specs[-1]] * (n - len(specs))][:n])
        raise ValueError(
            f"{spec.name} with {n} players needs {n} agent specs (one per seat, as in a "
            f"tournament, or one for every seat), got {len(specs)}: e.g. --agents {example}"
        )
    check_table(specs, spec.name, n)  # refuse a table an agent cannot play before it starts
    env = spec.raw_env(n, episode=mode or spec.modes[0].name)
    names = env.possible_agents
    agents = {
        name: make_agent(s, spec.name, name, seed * 100 + i)
        for i, (name, s) in enumerate(zip(names, specs, strict=True))
    }
    labels = {name: f"{name} ({s})" for name, s in zip(names, specs, strict=True)}
    seeds = [(seed + k, None) for k in range(episodes)]
    return _watch(spec, env, agents, labels, seeds, write, pacer or Pacer(0.0, input, write))


def watch_record(
    record: dict[str, Any],
    seat_names: Sequence[str] | None = None,
    write: WriteFn = print,
    pacer: Pacer | None = None,
) -> int:
    """Play back ``record`` (from ``env.unwrapped.record()``); all cards shown."""
    if not isinstance(record, dict) or "actions" not in record or "game" not in record:
        raise ValueError("not a folkcards record: expected the JSON of env.unwrapped.record()")
    spec = game_spec(record["game"])
    env = spec.env_module().raw_env(**record.get("env_kwargs", {}))
    names = env.possible_agents
    tape = _Recorded(record["actions"])
    agents: dict[str, Any] = {name: tape.seat(name) for name in names}
    labels = {
        name: f"{name} ({seat_names[i]})" if seat_names else name for i, name in enumerate(names)
    }
    seeds = [(record.get("seed"), record.get("options") or None)]
    return _watch(spec, env, agents, labels, seeds, write, pacer or Pacer(0.0, input, write))
