"""The one loop that plays agents through an AEC env.

Every caller that lets agents play (tournaments, training evaluation, the single-seat training
env's opponents, terminal play, ``watch`` and the demo) goes through :func:`advance` or
:func:`play_episode`:

- dead agents take their ``None`` step as PettingZoo's AEC convention asks, and each agent's
  infos are read at the moment it terminates or is truncated (later they are gone);
- every agent's rewards are summed over the episode (``returns``), whoever is to act;
- each decision is timed; ``on_action`` sees it after the env has stepped;
- an illegal action is reported with the agent and seat that chose it.

>>> from folkcards.agents import make_agent
>>> from folkcards.envs import paston_v0
>>> env = paston_v0.raw_env()
>>> table = [make_agent("random", "paston", f"player_{i}", seed=i) for i in range(3)]
>>> run = play_episode(env, table, seed=7)
>>> sorted(run.final_infos) == env.possible_agents
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

MAX_STEPS = 1_000_000


class Actor(Protocol):
    def act(self, observation: dict[str, Any]) -> int: ...


@dataclass
class Decision:
    """One action taken by an agent: who, what, and how long the agent took to choose it."""

    agent: str
    action: int
    seconds: float
    observation: dict[str, Any]


@dataclass
class EpisodeRun:
    """What an episode (or the part of it played so far) left behind."""

    final_infos: dict[str, dict[str, Any]] = field(default_factory=dict)
    returns: dict[str, float] = field(default_factory=dict)
    truncated: bool = False
    steps: int = 0
    decision_seconds: dict[str, list[float]] = field(default_factory=dict)

    def note_rewards(self, rewards: Mapping[str, float]) -> None:
        for name, reward in rewards.items():
            self.returns[name] = self.returns.get(name, 0.0) + float(reward)


def _by_name(env: Any, agents: Mapping[str, Actor] | Sequence[Actor]) -> Mapping[str, Actor]:
    if isinstance(agents, Mapping):
        return agents
    names = env.possible_agents
    if len(agents) != len(names):
        raise ValueError(f"{len(agents)} agents for {len(names)} seats")
    return dict(zip(names, agents, strict=True))


def advance(
    env: Any,
    agents: Mapping[str, Actor] | Sequence[Actor],
    run: EpisodeRun | None = None,
    *,
    stop: Callable[[str], bool] | None = None,
    on_action: Callable[[Decision], None] | None = None,
    max_steps: int = MAX_STEPS,
) -> EpisodeRun:
    """Step ``env`` with ``agents`` until the episode ends or ``stop(agent)`` is true for the
    agent to act (that agent has not acted then). ``run`` accumulates across calls.

    ``agents`` maps agent names to actors (or lists them in seat order); an agent that never
    acts before ``stop`` may be missing from a mapping.
    """
    run = EpisodeRun() if run is None else run
    table = _by_name(env, agents)
    actions = 0
    while env.agents:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            run.truncated = run.truncated or bool(
                env.truncations[name] and not env.terminations[name]
            )
            run.final_infos[name] = dict(env.infos.get(name, {}))
            env.step(None)
            run.note_rewards(env.rewards)
            continue
        if stop is not None and stop(name):
            return run
        observation = env.observe(name)
        started = time.perf_counter()
        action = table[name].act(observation)
        seconds = time.perf_counter() - started
        try:
            env.step(action)
        except ValueError as exc:
            raise RuntimeError(f"agent {table[name]!r} in seat {name}: {exc}") from exc
        run.note_rewards(env.rewards)
        run.steps += 1
        run.decision_seconds.setdefault(name, []).append(seconds)
        if on_action is not None:
            on_action(Decision(name, int(action), seconds, observation))
        actions += 1
        if actions > max_steps:
            raise RuntimeError(f"the episode did not end after {max_steps} actions")
    return run


def play_episode(
    env: Any,
    agents: Mapping[str, Any] | Sequence[Any],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    *,
    on_action: Callable[[Decision], None] | None = None,
    max_steps: int = MAX_STEPS,
) -> EpisodeRun:
    """Reset ``env`` (``seed``, ``options``), reset every agent, and play the whole episode."""
    env.reset(seed=seed, options=options)
    table = _by_name(env, agents)
    for agent in table.values():
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset()
    run = EpisodeRun(returns=dict.fromkeys(env.possible_agents, 0.0))
    run.note_rewards(env.rewards)
    return advance(env, table, run, on_action=on_action, max_steps=max_steps)


__all__ = ["Decision", "EpisodeRun", "MAX_STEPS", "advance", "play_episode"]
