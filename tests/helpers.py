"""Test helpers shared by both games' suites."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np


def play_random_episode(
    env: Any,
    rng: np.random.Generator,
    on_step: Callable[[Any, str, int], None] | None = None,
    max_steps: int = 100_000,
) -> dict[str, float]:
    """Play ``env`` (already reset) to the end with uniform legal actions; return summed rewards.

    ``on_step(env, agent, action)`` is called after each live step.
    """
    totals: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=max_steps):
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) > 0, f"{agent} is to act with an empty mask"
        action = int(legal[rng.integers(len(legal))])
        env.step(action)
        if on_step is not None:
            on_step(env, agent, action)
    return totals


def random_episode_observations(env: Any, seed: int) -> list[np.ndarray]:
    """Every seat's observation vector at the start of a random episode of ``env`` (reset here
    with ``seed``) and after each of its steps (:func:`play_random_episode`)."""
    env.reset(seed=seed)

    def everyone(env: Any) -> list[np.ndarray]:
        return [np.array(env.observe(name)["observation"]) for name in env.possible_agents]

    seen = everyone(env)
    play_random_episode(
        env, np.random.default_rng(seed), on_step=lambda e, *_: seen.extend(everyone(e))
    )
    return seen


def walk_decisions(
    env: Any,
    seeds: Iterable[int],
    choose: Callable[[str, dict], int],
    on_reset: Callable[[], None] | None = None,
) -> Iterator[tuple[str, dict, int]]:
    """For each seed, reset ``env`` and play it to the end, the seat to move playing
    ``choose(seat, observation)``; yields ``(seat, observation, action)`` before each live step
    (a consumer may inspect the observation; the action is then taken)."""
    for seed in seeds:
        env.reset(seed=seed)
        if on_reset is not None:
            on_reset()
        for seat in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            action = choose(seat, observation)
            yield seat, observation, action
            env.step(action)


def cards_text(names: str) -> list[str]:
    """``"7S 8S AH"`` -> ``["7S", "8S", "AH"]``."""
    return names.split()


def run_in_fresh_process(code: str, timeout: float = 300) -> list[str]:
    """The lines ``code`` prints when run by this interpreter in a new process (nothing imported
    or compiled yet); a failure raises with the process's output."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise AssertionError(f"the fresh process failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout.splitlines()


def tri_palki_tiny_dealer_value(own: int, centre: int, action: int) -> float:
    """Tri Palki tiny at max_turns=1: the dealer's (player_0's) reward from ``action``, averaged
    over the four deals it cannot tell apart (each unseen card as the reserve), each played by
    the env to the end (an announce decision after a 31 declined)."""
    from folkcards.envs import tri_palki_tiny_v0
    from folkcards.envs.tri_palki.rules import NO_ANNOUNCE
    from folkcards.envs.tri_palki.tiny import TINY_DECK

    unseen = [c for c in TINY_DECK if not (own | centre) >> c & 1]
    total = 0.0
    for reserve in unseen:
        piles = [
            [c for c in unseen if c != reserve],
            [c for c in range(36) if own >> c & 1],
            [c for c in range(36) if centre >> c & 1],
        ]
        deck = [pile[i] for i in range(3) for pile in piles] + [reserve]
        env = tri_palki_tiny_v0.raw_env(max_turns=1)
        env.reset(seed=0, options={"dealer": 0, "deck": deck})
        env.step(int(action))
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            env.step(NO_ANNOUNCE)
        total += env.rewards["player_0"]
    return total / len(unseen)


def tri_palki_tiny_dealer_values(env: Any, observation: dict) -> dict[int, float]:
    """:func:`tri_palki_tiny_dealer_value` of every legal action of the dealer to move in
    ``env`` (Tri Palki tiny at max_turns=1, reset with dealer 0)."""
    rnd = env.state_round()
    return {
        int(a): tri_palki_tiny_dealer_value(rnd.hands[0], rnd.centre, int(a))
        for a in np.flatnonzero(observation["action_mask"])
    }


def load_script(relative: str) -> Any:
    """The module of a script of the repository that is not in the package (``benchmarks/``,
    ``scripts/``), loaded from its path relative to the repository's root."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / relative
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    assert module_spec is not None and module_spec.loader is not None, path
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module
