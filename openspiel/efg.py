"""A small game's whole tree as OpenSpiel's native game of a Gambit extensive form (EFG).

OpenSpiel's C++ algorithms call a Python game back at every node of every iteration, and even on
its cached tree (``pyspiel.convert_to_cached_tree``) a CFR+ iteration or a NashConv costs tens
of microseconds a node. :func:`export` walks the binding's tree once and writes it as an EFG:
each chance node with its outcomes and probabilities, each decision with its player, its
information set (one number for each distinct information state string of the binding) and its
legal actions, each end with the returns. ``pyspiel.load_efg_game`` reads it into a game written
in C++, on which CFR+, best responses and NashConv run at C++ speed: the same tree, the same
information sets, the same returns (the tests check NashConv on both).

A policy over the binding's information states (:func:`folkcards.openspiel.exact.agent_policy`,
:func:`~folkcards.openspiel.exact.uniform_policy`) becomes one of the EFG game by
:meth:`ExactTree.policy`.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyspiel


@dataclass
class ExactTree:
    """A game's whole tree: the EFG game, and each player's information states by number."""

    game: Any  # the pyspiel game read from the EFG text
    histories: int  # every node of the tree: chance, decisions and ends
    # per player: the binding's information state string of each information set number - 1
    infosets: list[list[str]]
    legal: list[list[list[int]]]  # per player and information set: the binding's legal actions
    action_ids: dict[str, int] = field(default_factory=dict)  # EFG action id by action name
    text: str = ""  # the EFG the game was read from

    def save(self, path: Path, **params: Any) -> None:
        """Write the tree (gzipped JSON) with ``params``, the settings it was walked with."""
        fields = {
            "params": params,
            "histories": self.histories,
            "infosets": self.infosets,
            "legal": self.legal,
            "action_ids": self.action_ids,
            "text": self.text,
        }
        with gzip.open(path, "wt", encoding="utf-8") as file:
            json.dump(fields, file)

    @classmethod
    def load(cls, path: Path) -> tuple[ExactTree, dict[str, Any]]:
        """A tree written by :meth:`save`, and the ``params`` it was saved with."""
        with gzip.open(path, "rt", encoding="utf-8") as file:
            fields = json.load(file)
        params = fields.pop("params")
        text = fields["text"]
        return cls(game=pyspiel.load_efg_game(text), **fields), params

    @property
    def states(self) -> dict[str, list[int]]:
        """Every decision's binding information state with its legal actions."""
        return {
            key: legal
            for keys, legals in zip(self.infosets, self.legal, strict=True)
            for key, legal in zip(keys, legals, strict=True)
        }

    def policy(self, binding_policy: Any) -> Any:
        """A ``pyspiel.TabularPolicy`` over the binding's information states as one of the EFG
        game's (its information states named ``player-player-number-``, its actions
        renumbered)."""
        table = binding_policy.policy_table()
        converted = {}
        for player, keys in enumerate(self.infosets):
            for number, key in enumerate(keys, start=1):
                converted[f"{player}-{player}-{number}-"] = [
                    (self.action_ids[str(action)], probability)
                    for action, probability in table[key]
                ]
        return pyspiel.TabularPolicy(converted)

    def binding_policy(self, efg_policy: Any) -> Any:
        """The inverse of :meth:`policy`: a policy of the EFG game (such as CFR+'s average) over
        the binding's information states and actions, which ``openspiel:policy=PATH`` plays once
        saved (:func:`folkcards.openspiel.agents.save_policy`)."""
        table = efg_policy.policy_table()
        names = {efg_id: int(name) for name, efg_id in self.action_ids.items()}
        converted = {}
        for player, keys in enumerate(self.infosets):
            for number, key in enumerate(keys, start=1):
                converted[key] = [
                    (names[action], probability)
                    for action, probability in table[f"{player}-{player}-{number}-"]
                ]
        return pyspiel.TabularPolicy(converted)


def _ordered(names: list[str], ids: dict[str, int]) -> list[int]:
    """The positions of ``names`` in the order of their EFG ids: the reader numbers an action
    name the first time it meets it and keeps a node's children in the order of their ids, so
    a node lists the names it already numbered by number, then the new ones."""
    for name in names:
        if name not in ids:
            ids[name] = len(ids)
    return sorted(range(len(names)), key=lambda i: ids[names[i]])


def export(
    python_game: Any, progress: Callable[[int], None] | None = None, every: int = 100_000
) -> ExactTree:
    """Walk ``python_game`` (an OpenSpiel game with explicit chance) into an :class:`ExactTree`;
    ``progress`` is told the histories walked every ``every`` of them."""
    num_players = python_game.num_players()
    lines: list[str] = []
    infoset_numbers: list[dict[str, int]] = [{} for _ in range(num_players)]
    legal: list[list[list[int]]] = [[] for _ in range(num_players)]
    action_ids: dict[str, int] = {}
    chance_ids: dict[str, int] = {}
    outcomes: dict[tuple[float, ...], int] = {}
    count = 0

    def visit(state: Any, depth: int) -> None:
        nonlocal count
        count += 1
        if progress is not None and count % every == 0:
            progress(count)
        indent = " " * depth
        if state.is_terminal():
            returns = tuple(state.returns())
            number = outcomes.setdefault(returns, len(outcomes) + 1)
            values = " ".join(repr(float(value)) for value in returns)
            lines.append(f'{indent}t "" {number} "" {{ {values} }}')
            return
        if state.is_chance_node():
            pairs = state.chance_outcomes()
            names = [str(action) for action, _ in pairs]
            order = _ordered(names, chance_ids)
            listed = " ".join(f'"{names[i]}" {pairs[i][1]!r}' for i in order)
            lines.append(f'{indent}c "" 1 "" {{ {listed} }} 0')
            for i in order:
                visit(state.child(pairs[i][0]), depth + 1)
            return
        player = state.current_player()
        key = state.information_state_string(player)
        actions = state.legal_actions()
        numbers = infoset_numbers[player]
        number = numbers.get(key)
        if number is None:
            number = numbers[key] = len(numbers) + 1
            legal[player].append(actions)
        names = [str(action) for action in actions]
        order = _ordered(names, action_ids)
        listed = " ".join(f'"{names[i]}"' for i in order)
        lines.append(f'{indent}p "" {player + 1} {number} "" {{ {listed} }} 0')
        for i in order:
            visit(state.child(actions[i]), depth + 1)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * python_game.max_game_length() + 100))
    try:
        visit(python_game.new_initial_state(), 0)
    finally:
        sys.setrecursionlimit(limit)
    players = " ".join(f'"player_{seat}"' for seat in range(num_players))
    name = python_game.get_type().short_name
    text = "\n".join([f'EFG 2 R "{name}" {{ {players} }}', "", *lines, ""])
    return ExactTree(
        game=pyspiel.load_efg_game(text),
        histories=count,
        infosets=[list(numbers) for numbers in infoset_numbers],
        legal=legal,
        action_ids=action_ids,
        text=text,
    )


__all__ = ["ExactTree", "export"]
