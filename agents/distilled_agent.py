"""The distilled agent: the network distilled from a game's search player, with the decisions a
cheap exact piece of the game makes better taken from it.

Spec strings (kind ``distilled``):
``distilled[:endgame=K,endgame_samples=S,calls=0|1,calls_model=M,discard_search=0|1,unsure=P,unsure_net=0|1,version=V]``
(:func:`parse_distilled_spec`); the network is the one committed with the package
(:func:`~folkcards.agents.policy_files.distilled_model_path`; ``version=V`` the distilled player
of an earlier version, kept with the package); ``ppo:PATH`` plays any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..envs.registry import game_spec
from .base import GAMES, spec_pairs
from .policy_files import DISTILL_CONFIG, distilled_model_path, load_policy
from .policy_network import NumpyPolicy, PPOModelError
from .ppo_agent import PolicyAgent


@dataclass(frozen=True)
class DistilledParams:
    """A ``distilled`` spec's settings (``None``: the game's default)."""

    endgame: int | None = None  # card play with this many cards or fewer: the endgame search
    endgame_samples: int | None = None  # the endgame search's worlds
    calls: int | None = None  # 1: the game's learned calls decide the calls; 0: the network
    discard_search: int | None = None  # 1: the learned calls search their discards (Paston)
    calls_model: str | None = None  # the learned calls' model (Paston: an evaluator's name or
    # path); None: the one the committed player was measured with
    unsure: float | None = None  # the game's search takes the decisions where the network's
    # first choice has probability under this (0: the network takes them all)
    unsure_net: int | None = None  # 1: that search has the loop's network for its own seat
    # (Tri Palki, at 3 players: 0.14.0's expert there); 0 or None: the search without a network
    version: str | None = None  # an earlier distilled player kept with the package


def parse_distilled_spec(game: str, arg: str | None) -> DistilledParams:
    """The settings of a ``distilled`` spec argument such as ``"endgame=6,calls=0"``;
    ``ValueError`` in one line for a bad key or value, or a piece asked of a game without it."""
    values: dict[str, Any] = {}
    hint = " (distilled plays the network committed for the game; play another with ppo:PATH)"
    keys = (
        "endgame", "endgame_samples", "calls", "calls_model", "discard_search", "unsure",
        "unsure_net", "version",
    )  # fmt: skip
    for key, text in spec_pairs(arg, keys, "distilled", hint):
        if key == "calls_model":
            values[key] = text
            continue
        if key == "version":
            distilled_model_path(game, text)  # ValueError for a version the game does not have
            values[key] = text
            continue
        if key == "unsure":
            try:
                values[key] = float(text)
            except ValueError:
                raise ValueError(
                    f"distilled parameter unsure needs a number, got {text!r}"
                ) from None
            if not 0.0 <= values[key] <= 1.0:
                raise ValueError(f"distilled parameter unsure must be in [0, 1], got {text}")
            continue
        try:
            values[key] = int(text)
        except ValueError:
            raise ValueError(f"distilled parameter {key} needs an integer, got {text!r}") from None
    params = DistilledParams(**values)
    spec = game_spec(game)
    if params.unsure not in (None, 0.0) and not spec.has("unsure_search"):
        raise ValueError(
            f"distilled: {game} has no search for unsure decisions (unsure=0 or no argument)"
        )
    if params.unsure_net not in (None, 0, 1):
        raise ValueError(f"distilled parameter unsure_net is 0 or 1, got {params.unsure_net}")
    if params.unsure_net == 1 and (params.unsure == 0.0 or not spec.has("unsure_search")):
        raise ValueError(
            f"distilled: unsure_net=1 gives the search for unsure decisions a network; {game} "
            "has no such search here (unsure=0 or a game without one)"
        )
    asked = params.endgame != 0 and (
        params.endgame is not None or params.endgame_samples is not None
    )
    if asked and not spec.has("endgame_search"):
        raise ValueError(f"distilled: {game} has no endgame search (endgame=0 or no argument)")
    if params.calls not in (None, 0, 1):
        raise ValueError(f"distilled parameter calls is 0 or 1, got {params.calls}")
    if params.calls == 1 and not spec.has("learned_calls"):
        raise ValueError(f"distilled: {game} has no learned calls (calls=0 or no argument)")
    if params.discard_search not in (None, 0, 1):
        raise ValueError(
            f"distilled parameter discard_search is 0 or 1, got {params.discard_search}"
        )
    if params.discard_search == 1 and not spec.has("learned_calls"):
        raise ValueError(f"distilled: {game} has no learned calls to search discards for")
    if params.calls_model is not None and (params.calls == 0 or not spec.has("learned_calls")):
        raise ValueError(
            f"distilled: calls_model names the learned calls' model; {game} has none here "
            "(calls=0 or a game without learned calls)"
        )
    if params.discard_search == 1 and params.calls == 0:
        raise ValueError(
            "distilled: discard_search=1 searches the learned calls' discards; calls=0 turns them off"
        )
    return params


def make_endgame_search(
    game: str, seat: str, seed: int | None, cards: int | None, samples: int | None
) -> Any:
    """The game's endgame search for the distilled player (``None`` if the game has none or
    ``cards`` is 0); ``ValueError`` for bad ``cards`` / ``samples``."""
    spec = game_spec(game)
    if cards == 0 or not spec.has("endgame_search"):
        return None
    return spec.piece("endgame_search")(game, seat, seed, cards=cards, samples=samples)


def make_distilled_searches(
    game: str, seat: str, seed: int | None, params: DistilledParams
) -> tuple[Any, ...]:
    """The pieces that take some of the distilled player's decisions from its network, in the
    order they are asked: the game's learned calls, then its endgame search (each if the game
    has it and ``params`` does not turn it off). Each has ``applies(vector)``,
    ``act(observation) -> action or None``, ``reset()`` and ``reseed(seed)``."""
    spec = game_spec(game)
    searches: list[Any] = []
    if params.calls != 0 and spec.has("learned_calls"):
        searches.append(
            spec.piece("learned_calls")(
                game,
                seat,
                seed,
                discard_search=params.discard_search or 0,
                model=params.calls_model,
            )  # fmt: skip
        )
    endgame = make_endgame_search(game, seat, seed, params.endgame, params.endgame_samples)
    if endgame is not None:
        searches.append(endgame)
    return tuple(searches)


def make_unsure_search(game: str, seat: str, seed: int | None, params: DistilledParams) -> Any:
    """The game's search for the decisions where the distilled network is unsure (``None`` if
    the game has none or ``params.unsure`` is 0); built for the game's family, whose search
    plays every table size of it."""
    spec = game_spec(game)
    if params.unsure == 0.0 or not spec.has("unsure_search"):
        return None
    return spec.piece("unsure_search")(
        spec.family, seat, seed, threshold=params.unsure, version=params.version,
        with_net=params.unsure_net == 1,
    )  # fmt: skip


class DistilledAgent(PolicyAgent):
    """The network distilled from the game's search player
    (:func:`~folkcards.agents.policy_files.distilled_model_path`), its deterministic masked
    prediction, with the decisions a cheap exact piece makes better taken from it
    (:func:`make_distilled_searches`). Paston: the expert's learned calls (bids, discards,
    contract, whist from the evaluator, :class:`~folkcards.agents.paston_expert.
    PastonLearnedCalls`; ``calls=0``: the network's) and open-hand PIMC over 64 worlds for
    every card with a choice (:class:`~folkcards.agents.pimc.PastonEndgameSearch`;
    ``endgame=K`` from K cards in hand, ``endgame=0``: the network's), so that with the defaults
    the network decides only the whist after an all-pass; ``distilled:calls=0,endgame=0`` is
    the network alone. Tri Palki: the expert's search takes the decisions where the network's
    first choice has probability under 0.99 (:class:`~folkcards.agents.tri_palki_unsure_search.
    TriPalkiUnsureSearch`; ``unsure=P`` sets the threshold, ``unsure=0``: the network alone).
    Under a millisecond per decision at the median."""

    name = "distilled"

    def __init__(
        self,
        game: str,
        seat: str = "player_0",
        seed: int | None = None,
        num_players: int | None = None,
        params: DistilledParams | None = None,
    ):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
        params = params or DistilledParams()
        self.path = distilled_model_path(game, params.version)
        policy = load_policy(self.path, game, "distilled", trained_by=DISTILL_CONFIG)
        super().__init__(
            game, seat, seed, policy=policy, deterministic=True, label="distilled",
            num_players=num_players,
        )  # fmt: skip
        self.searches = make_distilled_searches(game, seat, seed, params)
        self.unsure = make_unsure_search(game, seat, seed, params)
        if self.unsure is not None and not isinstance(self.policy, NumpyPolicy):
            raise PPOModelError("distilled: the unsure search needs the network's probabilities")

    def reset(self) -> None:
        super().reset()
        for search in self.searches:
            search.reset()
        if self.unsure is not None:
            self.unsure.reset()

    def reseed(self, seed: int) -> None:
        """As a fresh player seeded ``seed``: its searches draw from ``seed`` too."""
        super().reseed(seed)
        for search in self.searches:
            search.reseed(seed)
        if self.unsure is not None:
            self.unsure.reseed(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        for search in self.searches:
            action = search.act(observation)
            if action is not None:
                return int(action)
        if self.unsure is None:
            return super().act(observation)
        probabilities = self.action_probabilities(observation)
        if self.unsure.takes(observation, probabilities):
            return int(self.unsure.act(observation))
        action = int(np.argmax(probabilities))
        self.unsure.observe(observation, action)
        return action


def make_distilled_agent(
    game: str, seat: str, seed: int | None, arg: str | None, **kwargs: Any
) -> DistilledAgent:
    """Factory for the ``distilled[:endgame=K,endgame_samples=S,calls=0|1,calls_model=M,
    discard_search=0|1,unsure=P,version=V]`` kind
    (``ppo:PATH`` plays any other network)."""
    return DistilledAgent(game, seat, seed, params=parse_distilled_spec(game, arg), **kwargs)


__all__ = [
    "DistilledAgent",
    "DistilledParams",
    "make_distilled_agent",
    "make_distilled_searches",
    "make_endgame_search",
    "make_unsure_search",
    "parse_distilled_spec",
]
