"""The schema of ``folkcards iterate``'s YAML config (``configs/tri_palki/iterate.yaml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...agents.tri_palki_search import EXPERT_PARAMS_0_4
from ...envs.tri_palki.rules import MAX_PLAYERS, MIN_PLAYERS
from ..settings import load_flat_config

__all__ = ["IterateConfig", "load_iterate_config"]

LEAGUE_KINDS = ("teacher", "past", "search")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchSettings(_Strict):
    """The search every generation plays with (``iterated``'s keys)."""

    samples: int = Field(24, ge=1)
    infer: int = Field(8, ge=1)
    horizon: int = Field(60, ge=1)
    # the worlds where the round is about to end (0: ``samples``) and the softness of the
    # others' model; the defaults are the 0.4.0 budget's, the expert's are 768 and 0.3
    endgame_samples: int = Field(EXPERT_PARAMS_0_4.endgame_samples, ge=0)
    infer_epsilon: float = Field(EXPERT_PARAMS_0_4.infer_epsilon, ge=0, le=1)
    top_k: int = Field(0, ge=0)
    cutoff: int = Field(0, ge=0)
    others: Literal["net", "learned", "rules"] = "net"  # the other seats' model with a network


class LeagueEntry(_Strict):
    """A kind of player for the seats the teacher does not play, drawn by weight."""

    spec: str = Field(min_length=1)  # teacher | past | search | any agent spec
    weight: float = Field(1.0, gt=0)


class CollectSettings(_Strict):
    rounds: int = Field(400, ge=1)  # rounds per generation
    chunk: int = Field(50, ge=1)  # rounds per stored chunk (the unit of resumption)
    table_sizes: list[int] = Field(default_factory=lambda: [3, 4, 6], min_length=1)
    search_seats: int = Field(1, ge=1)  # seats the teacher plays at every table
    league: list[LeagueEntry] = Field(
        default_factory=lambda: [
            LeagueEntry(spec="heuristic", weight=1.0),
            LeagueEntry(spec="teacher", weight=1.0),
        ],
        min_length=1,
    )
    value_rows: int = Field(8, ge=0)  # rollouts kept as value targets per searched decision
    max_turns: int = Field(200, ge=10)
    workers: int = Field(1, ge=1)  # processes playing the chunks: the same data for any number

    @field_validator("table_sizes")
    @classmethod
    def _sizes(cls, sizes: list[int]) -> list[int]:
        bad = [n for n in sizes if not MIN_PLAYERS <= n <= MAX_PLAYERS]
        if bad:
            raise ValueError(f"table sizes must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {bad[0]}")
        return sizes


class FitSettings(_Strict):
    hidden: list[int] = Field(default_factory=lambda: [128, 128], min_length=1)
    value_hidden: list[int] = Field(default_factory=lambda: [128, 128], min_length=1)
    epochs: int = Field(10, ge=1)
    batch_size: int = Field(512, ge=1)
    lr: float = Field(1e-3, gt=0)
    window: int = Field(3, ge=1)  # fit on the data of the last `window` generations
    holdout: float = Field(0.05, gt=0, lt=1)
    # generation 1 starts from the shipped learned opponent model (when `hidden` is its shape);
    # later ones from their teacher's networks
    start_from_opponent_model: bool = True
    # 0: fit the policy to the search's choices; > 0: to a softmax of its action values (minus
    # sticks per round) at this temperature, over the actions it rolled out
    temperature: float = Field(0.0, ge=0)


class GateSettings(_Strict):
    rounds: int = Field(200, ge=1)
    num_players: int = Field(3, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    workers: int = Field(1, ge=1)
    margin: float = Field(0.0, ge=0)  # sticks per round the new generation must gain
    require_interval: bool = False  # also the interval's upper end below -margin
    report_rounds: int = Field(0, ge=0)  # rounds against expert and the heuristic (0: none)
    report_against: list[str] = Field(default_factory=lambda: ["expert", "heuristic"])


class ParentSettings(_Strict):
    """Continue another run with this config: its generations up to ``generation`` (gated)
    become this run's first ones, read in place."""

    run_dir: str = Field(min_length=1)
    generation: int = Field(ge=1)


class CompactSettings(_Strict):
    """A smaller policy for the same search (:mod:`~folkcards.train.tri_palki_iterate.compact`):
    the source network's move probabilities fitted on the tables its search meets."""

    source: str = Field("shipped", min_length=1)  # a network folder, or "shipped"
    hidden: list[int] = Field(default_factory=lambda: [48, 48], min_length=1)
    episodes: dict[int, int] = Field(default_factory=lambda: {3: 6, 4: 6, 6: 5}, min_length=1)
    # games recorded per table size, the source's search in seat 0, the heuristic elsewhere

    @field_validator("episodes")
    @classmethod
    def _episodes(cls, episodes: dict[int, int]) -> dict[int, int]:
        for n, count in episodes.items():
            if not MIN_PLAYERS <= n <= MAX_PLAYERS or count < 1:
                raise ValueError(
                    f"episodes maps table sizes {MIN_PLAYERS}..{MAX_PLAYERS} to games (at least 1)"
                    f", got {n}: {count}"
                )
        return episodes


class IterateConfig(_Strict):
    """``configs/tri_palki/iterate.yaml``."""

    game: str = "tri_palki"
    run_dir: str = "runs/iterate"
    seed: int = Field(0, ge=0)
    generations: int = Field(5, ge=1)
    search: SearchSettings = Field(default_factory=lambda: SearchSettings.model_validate({}))
    collect: CollectSettings = Field(default_factory=lambda: CollectSettings.model_validate({}))
    fit: FitSettings = Field(default_factory=lambda: FitSettings.model_validate({}))
    gate: GateSettings = Field(default_factory=lambda: GateSettings.model_validate({}))
    parent: ParentSettings | None = None  # start from another run's generations
    compact: CompactSettings | None = None  # set: the run makes a smaller network, no loop

    @field_validator("game")
    @classmethod
    def _game(cls, game: str) -> str:
        if game != "tri_palki":
            raise ValueError(f"the loop plays tri_palki (only), got {game!r}")
        return game


def load_iterate_config(path: str | Path, **overrides: Any) -> IterateConfig:
    """The config in ``path`` with ``overrides``; ``ConfigError`` in one line if it is bad."""
    return load_flat_config(IterateConfig, path, **overrides)
