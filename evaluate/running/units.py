"""Seeds and units of a tournament: what one (deal, line-up, seating) fixes, and playing it.

``deal_seed = SeedSequence([seed, DEAL_TAG, deal])`` (63 bits); the agent in seat ``k`` gets
``SeedSequence([seed, AGENT_TAG, deal, lineup, seating, k])``. A fresh agent is built for every
unit, so a unit's result depends only on the config and its key, never on which worker ran it or
in which order: results are identical for any number of workers, locally or on Ray.
"""

from __future__ import annotations

from typing import Any, NamedTuple, NotRequired, TypedDict

import numpy as np

from ..config import TournamentConfig
from ..scoring import GameRunner

DEAL_TAG = 0xDEA1
AGENT_TAG = 0xA6E7


class UnitKey(NamedTuple):
    """One unit: a deal played by one line-up in one seat assignment."""

    deal: int
    lineup: int
    seating: int


class UnitHeader(TypedDict):
    """What a unit's key fixes (:func:`unit_header`)."""

    deal: int
    lineup: int
    seating: int
    deal_seed: int
    seats: list[str]  # entrant name per seat
    specs: list[str]  # agent spec per seat
    agent_seeds: list[int]


class PlayedUnit(UnitHeader):
    """A finished unit as the database stores it (:meth:`.storage.Store.add_unit`)."""

    result: list[dict[str, Any]]  # per seat: score, win, rank_key, extra (SeatResult.as_dict)
    record: dict[str, Any]  # the env's record of the episode
    decision_seconds: NotRequired[list[list[float]]]  # measured: differs between runs
    # the statistics' per-unit values (e.g. open-hand analysis), computed where it was played
    statistics: NotRequired[dict[str, Any]]


def _seed63(*words: int) -> int:
    state = np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)
    return int(state[0]) >> 1


def deal_seed(seed: int, deal: int) -> int:
    """The env seed of deal (or game) ``deal`` of a tournament with seed ``seed``."""
    return _seed63(seed, DEAL_TAG, deal)


def agent_seed(seed: int, deal: int, lineup: int, seating: int, seat: int) -> int:
    """The seed of the agent sitting in ``seat`` for one unit."""
    return _seed63(seed, AGENT_TAG, deal, lineup, seating, seat)


def unit_keys(config: TournamentConfig) -> list[UnitKey]:
    """Every unit key (deal, lineup, seating), in canonical order."""
    lineups = len(config.lineups())
    seatings = len(config.seatings())
    return [
        UnitKey(d, lu, s)
        for d in range(config.count)
        for lu in range(lineups)
        for s in range(seatings)
    ]


def seat_entrants(config: TournamentConfig, lineup: int, seating: int) -> list[int]:
    """Entrant index per seat for one (lineup, seating)."""
    members = config.lineups()[lineup]
    order = config.seatings()[seating]
    return [members[order[seat]] for seat in range(config.seats)]


def unit_header(config: TournamentConfig, key: tuple[int, int, int]) -> UnitHeader:
    """What a unit's key fixes: its deal seed, and the entrant, spec and seed of every seat."""
    deal, lineup, seating = key
    entrants = [config.agents[i] for i in seat_entrants(config, lineup, seating)]
    return {
        "deal": deal,
        "lineup": lineup,
        "seating": seating,
        "deal_seed": deal_seed(config.seed, deal),
        "seats": [e.name for e in entrants],
        "specs": [e.spec for e in entrants],
        "agent_seeds": [
            agent_seed(config.seed, deal, lineup, seating, seat) for seat in range(config.seats)
        ],
    }


def play_unit(
    config: TournamentConfig, runner: GameRunner, key: tuple[int, int, int]
) -> PlayedUnit:
    """Play one unit and return everything the database stores about it, with the registered
    statistics' per-unit values computed here (in the worker that played it)."""
    from folkcards.agents import make_agent

    header = unit_header(config, key)
    agents = [
        make_agent(spec, config.game, f"player_{seat}", seed)
        for seat, (spec, seed) in enumerate(
            zip(header["specs"], header["agent_seeds"], strict=True)
        )
    ]
    options = None
    if config.deal_set is not None:
        from ..storage.deal_sets import deal_options

        options = deal_options(config.deal_set, config.game, config.num_players, key[0])
    try:
        episode = runner.play(agents, header["deal_seed"], options)
    except Exception as exc:
        raise RuntimeError(
            f"deal {key[0]} (seed {header['deal_seed']}), line-up {key[1]}, seating {key[2]} "
            f"[{', '.join(header['seats'])}]: {exc}"
        ) from exc
    from ..statistics import unit_statistics

    return {
        **header,
        "result": [r.as_dict() for r in episode.seats],
        "record": episode.record,
        "decision_seconds": episode.decision_seconds,
        "statistics": unit_statistics(config, episode.record),
    }


def reproducible_unit(unit: PlayedUnit) -> dict[str, Any]:
    """A played unit without its measured ``decision_seconds``: what the same config and key
    must reproduce on any worker."""
    return {k: v for k, v in unit.items() if k != "decision_seconds"}


__all__ = [
    "AGENT_TAG",
    "DEAL_TAG",
    "PlayedUnit",
    "UnitHeader",
    "UnitKey",
    "agent_seed",
    "deal_seed",
    "play_unit",
    "reproducible_unit",
    "seat_entrants",
    "unit_header",
    "unit_keys",
]
