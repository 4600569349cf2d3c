"""Exact equilibrium computation on a small game: CFR+ and NashConv in OpenSpiel's C++ code.

A Python game runs a few hundred histories a second, so the tree is walked once:
``pyspiel.convert_to_cached_tree`` caches every state the first CFR iteration reaches, and CFR+
(``pyspiel.CFRPlusSolver``), NashConv (``pyspiel.nash_conv``) and the walks here then run on the
cached tree. A folkcards agent is turned into a tabular policy over the tree's information
states (:func:`agent_policy`): each information state string holds the seat's observations and
actions (:mod:`.infostate`), so the agent is shown its earlier decisions and asked for the
current one, as :func:`folkcards.openspiel.as_policy` does on a live state.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from ..agents.base import make_agent
from .agents import plays_by_probabilities
from .game import load_game


def cached_game(game: str, **params: Any) -> tuple[Any, Any]:
    """The OpenSpiel game of a registered game and its cached tree (``params`` as in
    :func:`folkcards.openspiel.load_game`)."""
    python_game = load_game(game, **params)
    return python_game, pyspiel.convert_to_cached_tree(python_game)


def information_states(game: Any) -> tuple[dict[str, list[int]], int]:
    """Every decision's information state with its legal actions, and the number of histories
    (every node of the tree: chance, decisions and ends)."""
    states: dict[str, list[int]] = {}
    histories = 0
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        histories += 1
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(action) for action, _ in state.chance_outcomes())
            continue
        legal = state.legal_actions()
        states.setdefault(state.information_state_string(), legal)
        stack.extend(state.child(action) for action in legal)
    return states, histories


def _observation(text: str, size: int, num_actions: int) -> dict[str, np.ndarray]:
    """An observation back from :func:`~.infostate.observation_string`."""
    pieces, _, legal = text.partition("|")
    vector = np.zeros(size, np.float32)
    for piece in pieces.split():
        index, _, value = piece.partition(":")
        vector[int(index)] = float(value)
    mask = np.zeros(num_actions, np.int8)
    for action in legal.split():
        mask[int(action)] = 1
    return {"observation": vector, "action_mask": mask}


def agent_policy(
    spec: str,
    python_game: Any,
    states: dict[str, list[int]],
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Any:
    """Agent ``spec`` as a ``pyspiel.TabularPolicy`` over ``states``: at each, the agent (built
    with ``seed``) acts on the seat's earlier observations, then gives its probabilities on the
    current one (``action_probabilities`` where it plays by them, else its one choice).

    The states are visited in the order of their histories, and the agent after each earlier
    decision is kept while later states share it (a copy per branch), so every decision of the
    tree is played once instead of once per later state: the same agent states, the same
    table. ``progress(n)`` is called every 20,000 states."""
    size = python_game.observation_size
    num_actions = python_game.num_distinct_actions()
    table: dict[str, list[tuple[int, float]]] = {}
    path: list[tuple[str, Any]] = []  # (decision, the agent after it) along the current history
    seat_now: str | None = None
    root: Any = None  # the seat's agent before any decision
    for key in sorted(states, key=lambda k: k.split("\n")):
        seat, *decisions, current = key.split("\n")
        if seat != seat_now:
            seat_now, path = seat, []
            root = make_agent(spec, python_game.spec.name, seat, seed=seed)
            root.reset()
        shared = 0
        while shared < min(len(path), len(decisions)) and path[shared][0] == decisions[shared]:
            shared += 1
        del path[shared:]
        for decision in decisions[shared:]:
            agent = copy.deepcopy(path[-1][1] if path else root)
            text, _, _ = decision.rpartition(">")
            agent.act(_observation(text, size, num_actions))
            path.append((decision, agent))
        agent = copy.deepcopy(path[-1][1] if path else root)
        observation = _observation(current, size, num_actions)
        if plays_by_probabilities(agent):
            probs = np.asarray(agent.action_probabilities(observation), dtype=np.float64)
        else:
            probs = np.zeros(num_actions)
            probs[agent.act(observation)] = 1.0
        table[key] = [(a, float(probs[a])) for a in states[key]]
        if progress is not None and len(table) % 20_000 == 0:
            progress(len(table))
    return pyspiel.TabularPolicy(table)


def agent_rows(items: list[str]) -> dict[str, str]:
    """An exact script's ``--agent NAME=SPEC`` items as {name: spec} (``ValueError`` if one is
    not)."""
    agents = dict(item.partition("=")[::2] for item in items)
    if any(not name or not spec or " " in name for name, spec in agents.items()):
        raise ValueError("--agent takes NAME=SPEC, a one-word name and an agent spec")
    return agents


def stored_result(path: Path, agents: dict[str, str]) -> dict[str, Any]:
    """The stored result an exact script's ``--add-to`` adds the ``agents`` rows to
    (``ValueError`` without agents or without the file)."""
    if not agents:
        raise ValueError("--add-to needs at least one --agent")
    if not path.is_file():
        raise ValueError(f"--add-to: {path} does not exist")
    result: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return result


def uniform_policy(states: dict[str, list[int]]) -> Any:
    """Every legal action equally likely at every information state (the ``random`` agent)."""
    return pyspiel.TabularPolicy(
        {key: [(a, 1.0 / len(legal)) for a in legal] for key, legal in states.items()}
    )


def nash_conv(cached: Any, policy: Any) -> float:
    """NashConv of ``policy`` (both seats playing it): the sum over seats of what a best
    response gains against the other seat's policy."""
    return float(pyspiel.nash_conv(cached, policy))


def best_response_gains(cached: Any, policy: Any) -> list[float]:
    """What a best response in each seat gains over ``policy`` in that seat, the other seats
    playing ``policy`` (their sum is the NashConv)."""
    root = cached.new_initial_state()
    on_policy = pyspiel.expected_returns(root, policy, -1, True)
    return [
        float(pyspiel.TabularBestResponse(cached, seat, policy).value_from_state(root))
        - on_policy[seat]
        for seat in range(cached.num_players())
    ]


def solve_cfr_plus(
    cached: Any,
    iterations: int,
    checkpoints: list[int],
    progress: Callable[[int, float], None] | None = None,
) -> tuple[Any, list[tuple[int, float, float]]]:
    """CFR+ for ``iterations``; its average policy (a ``TabularPolicy``) and, at each checkpoint iteration, the
    average policy's NashConv and the seconds spent so far."""
    solver = pyspiel.CFRPlusSolver(cached)
    curve = []
    start = time.perf_counter()
    for iteration in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if iteration in checkpoints or iteration == iterations:
            value = nash_conv(cached, solver.average_policy())
            curve.append((iteration, value, time.perf_counter() - start))
            if progress is not None:
                progress(iteration, value)
    return solver.tabular_average_policy(), curve


def plot_cfr_curve(
    curve: list[tuple[int, float, float]], path: Path, unit: str, title: str
) -> None:
    """:func:`solve_cfr_plus`'s curve as a log-log picture of NashConv (in ``unit``) against
    iterations, written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog([i for i, _, _ in curve], [max(v, 1e-12) for _, v, _ in curve], marker="o")
    ax.set_xlabel("CFR+ iterations")
    ax.set_ylabel(f"NashConv of the average policy ({unit})")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


__all__ = [
    "agent_policy",
    "best_response_gains",
    "cached_game",
    "information_states",
    "nash_conv",
    "plot_cfr_curve",
    "solve_cfr_plus",
    "uniform_policy",
]
