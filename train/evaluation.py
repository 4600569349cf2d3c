"""Periodic evaluation of a learner against a fixed opponent (the heuristic by default).

Two methods, both duplicate (the same deals for everybody), reported as an :class:`EvalResult`
whose ``score`` is **higher-is-better** for every game (Paston: table points per deal;
Tri Palki: minus the sticks per round), with 95% Student t intervals over the deals
(:func:`folkcards.evaluate.statistics.intervals.mean_ci`):

``tournament`` (default, :func:`evaluate_tournament`)
    the project's tournament (``folkcards.evaluate.running.runner``): the learner (saved as a
    ``ppo:PATH`` model) and ``n - 1`` copies of the opponent play every deal in every seat
    assignment. ``score`` is the learner's mean, ``baseline_score`` the opponents' mean at the
    same tables, ``advantage`` the tournament's head-to-head learner − opponent (paired by deal).
    The tournament's SQLite store lives in a temporary folder and is discarded.

``duplicate`` (:func:`evaluate_duplicate`, no storage, cheaper for Tri Palki)
    each deal is played ``n + 1`` times through the one episode loop
    (:func:`folkcards.agents.episode.play_episode`): once with the learner in each seat, the
    opponent kind in the others, and once with the opponent kind in every seat (the baseline).
    ``score`` is the learner's mean over the seats, ``advantage`` the learner's score minus the
    baseline's in the same seats on the same deal, which removes most of the luck of the cards.

Scores are unscaled and unshaped whatever the training env uses: one deal (round) in the game's
first episode mode with the env's default reward; of the training env's arguments only the
table size and the turn limit (:data:`KEPT_ARGUMENTS`) are kept.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.envs.registry import game_spec
from folkcards.evaluate.config import counted
from folkcards.evaluate.statistics.intervals import mean_ci

KEPT_ARGUMENTS = ("num_players", "max_turns")
METHODS = ("tournament", "duplicate")


@dataclass
class EvalResult:
    game: str
    method: str
    opponent: str
    deals: int
    games: int
    mean_score: float
    ci95: float
    baseline_score: float
    baseline_ci95: float
    advantage: float
    advantage_ci95: float
    seconds: float
    truncated: float = 0.0  # share of the games cut by the env's limit (no result paid)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line in the words and sign of a tournament of the game (its registry entry's
        metric and unit): Paston table points per deal, Tri Palki sticks per round (the stored
        ``mean_score`` stays higher-is-better)."""
        spec = game_spec(self.game)
        mode = spec.modes[0]  # evaluation plays one deal or round
        sign, value = (1.0, "+.3f") if spec.higher_is_better else (-1.0, ".3f")
        direction = "higher is better" if spec.higher_is_better else "lower is better"
        truncated = f"; {self.truncated:.0%} of the games truncated" if self.truncated else ""
        return (
            f"{self.game} vs {self.opponent} ({self.method}): "
            f"{mode.metric} {sign * self.mean_score:{value}} ± {self.ci95:.3f} "
            f"({self.opponent} {sign * self.baseline_score:{value}} ± {self.baseline_ci95:.3f}; "
            f"learner − {self.opponent} {sign * self.advantage:+.3f} ± {self.advantage_ci95:.3f}, "
            f"{direction}) over {counted(self.deals, mode.unit)}{truncated}"
        )


def score_env_kwargs(game: str, train_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The env arguments evaluation plays with: one unscaled deal/round (the table size and
    turn limit of the training env kept)."""
    spec = game_spec(game)
    train_kwargs = train_kwargs or {}
    kept = {k: train_kwargs[k] for k in KEPT_ARGUMENTS if k in train_kwargs and k != "num_players"}
    return spec.env_kwargs(train_kwargs.get("num_players"), episode=spec.modes[0].name, **kept)


def _half_width(values: np.ndarray) -> float:
    return mean_ci(values.tolist()).half_width


def evaluate_duplicate(
    game: str,
    learner: Callable[[str, int], Any],
    opponent: str = "heuristic",
    deals: int = 100,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> EvalResult:
    """Duplicate evaluation; ``learner(seat, seed)`` builds the learner's agent for a seat.

    ``env_kwargs`` are the training env's arguments (see :func:`score_env_kwargs`).
    """
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    started = time.perf_counter()
    env = game_spec(game).raw_env(**score_env_kwargs(game, env_kwargs))
    seats = list(env.possible_agents)
    rng = np.random.default_rng(seed)
    learners = {s: learner(s, 0) for s in seats}
    opponents = {s: make_agent(opponent, game, s) for s in seats}
    scores = np.zeros(deals)
    baselines = np.zeros(deals)
    truncated = 0
    for deal in range(deals):
        deal_seed = int(rng.integers(2**63))
        agent_seeds = {s: int(rng.integers(2**63)) for s in seats}
        for s in seats:
            opponents[s].reseed(agent_seeds[s])
        base = play_episode(env, opponents, seed=deal_seed)
        truncated += base.truncated
        baselines[deal] = np.mean([base.returns[s] for s in seats])
        mine = []
        for s in seats:
            for other in seats:
                opponents[other].reseed(agent_seeds[other])
            learners[s].reseed(agent_seeds[s])
            table = {o: (learners[s] if o == s else opponents[o]) for o in seats}
            run = play_episode(env, table, seed=deal_seed)
            truncated += run.truncated
            mine.append(run.returns[s])
        scores[deal] = np.mean(mine)
    advantage = scores - baselines
    return EvalResult(
        game=game,
        method="duplicate",
        opponent=opponent,
        deals=deals,
        games=deals * (len(seats) + 1),
        mean_score=float(scores.mean()),
        ci95=_half_width(scores),
        baseline_score=float(baselines.mean()),
        baseline_ci95=_half_width(baselines),
        advantage=float(advantage.mean()),
        advantage_ci95=_half_width(advantage),
        seconds=time.perf_counter() - started,
        truncated=truncated / (deals * (len(seats) + 1)),
    )


def evaluate_tournament(
    model_path: str | os.PathLike[str],
    game: str,
    opponent: str = "heuristic",
    deals: int = 100,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    kind: str = "ppo",
) -> EvalResult:
    """The learner saved at ``model_path`` (the agent spec ``<kind>:PATH``: ``ppo`` for a
    MaskablePPO model, ``rllib`` for an RLlib policy file) in a tournament against the
    opponent."""
    from folkcards.evaluate.config import Entrant, TournamentConfig
    from folkcards.evaluate.running.runner import run

    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    started = time.perf_counter()
    spec = game_spec(game)
    kwargs = score_env_kwargs(game, env_kwargs)
    num_players = int(kwargs.get("num_players", spec.default_players))
    entrants = [Entrant("learner", f"{kind}:{Path(model_path).resolve()}")]
    entrants += [Entrant(f"{opponent}_{i}", opponent) for i in range(1, num_players)]
    with tempfile.TemporaryDirectory(prefix="folkcards-eval-") as tmp:
        config = TournamentConfig(
            game=spec.name,
            mode=spec.modes[0].name,
            count=deals,
            seed=seed,
            agents=entrants,
            num_players=num_players,
            workers=1,
            out=Path(tmp),
        )
        stats = run(config, progress=False, log=lambda _text: None)
    return _from_tournament(stats, game, opponent, entrants, time.perf_counter() - started)


def _from_tournament(
    stats: dict[str, Any], game: str, opponent: str, entrants: list[Any], seconds: float
) -> EvalResult:
    sign = 1.0 if stats["higher_is_better"] else -1.0
    rows = {row["name"]: row for row in stats["agents"]}
    others = [rows[e.name] for e in entrants[1:]]
    h2h = [h for h in stats["head_to_head"] if "learner" in (h["a"], h["b"])]

    def half(row: dict[str, Any]) -> float:
        return math.nan if row.get("half_width") is None else float(row["half_width"])

    diffs = [
        (h["mean_diff"] if h["a"] == "learner" else -h["mean_diff"])
        for h in h2h
        if h["mean_diff"] is not None
    ]
    widths = [
        (h["ci_high"] - h["ci_low"]) / 2
        for h in h2h
        if h["ci_low"] is not None and h["ci_high"] is not None
    ]
    return EvalResult(
        game=game,
        method="tournament",
        opponent=opponent,
        deals=int(stats["deals_complete"]),
        games=int(stats["units_stored"]),
        mean_score=sign * float(rows["learner"]["mean"]),
        ci95=half(rows["learner"]),
        baseline_score=sign * float(np.mean([r["mean"] for r in others])),
        baseline_ci95=float(np.mean([half(r) for r in others])),
        advantage=sign * float(np.mean(diffs)) if diffs else math.nan,
        advantage_ci95=float(np.mean(widths)) if widths else math.nan,
        seconds=seconds,
        truncated=float(stats.get("truncated_units", 0)) / max(1, int(stats["units_stored"])),
    )


def evaluate_model(
    model: Any,
    game: str,
    opponent: str = "heuristic",
    deals: int = 100,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    method: str = "tournament",
    features: str | None = None,
) -> EvalResult:
    """Evaluate a MaskablePPO model (deterministic masked predictions) by ``method``.

    ``features``: the :mod:`folkcards.agents.features` set the model was trained with.
    ``tournament`` saves the model to a temporary ``.zip`` (with its sidecar) for ``ppo:PATH``.
    """
    from folkcards.agents.policy_files import write_sidecar
    from folkcards.agents.policy_network import policy_from_model
    from folkcards.agents.ppo_agent import PolicyAgent

    if method not in METHODS:
        raise ValueError(f"unknown evaluation method {method!r}: tournament or duplicate")
    if method == "tournament":
        with tempfile.TemporaryDirectory(prefix="folkcards-model-") as tmp:
            path = Path(tmp) / "learner.zip"
            model.save(str(path))
            write_sidecar(
                path,
                {
                    "game": game,
                    "obs_size": int(model.observation_space.shape[0]),
                    "num_actions": int(model.action_space.n),
                    "features": features,
                },
            )
            return evaluate_tournament(path, game, opponent, deals, seed, env_kwargs)
    policy = policy_from_model(model, {"game": game, "features": features})

    def learner(seat: str, agent_seed: int) -> PolicyAgent:
        return PolicyAgent(game, seat, agent_seed, policy=policy, label="learner")

    return evaluate_duplicate(game, learner, opponent, deals, seed, env_kwargs)


__all__ = [
    "EvalResult",
    "evaluate_duplicate",
    "evaluate_model",
    "evaluate_tournament",
    "score_env_kwargs",
]
