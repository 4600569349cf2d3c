"""Periodic evaluation of a learner against a fixed opponent (the heuristic by default).

Two methods, both duplicate (the same deals for everybody), reported as an :class:`EvalResult`
whose ``score`` is **higher-is-better** for both games (Paston: table points per deal;
Tri Palki: minus the sticks per round), with 95% confidence intervals over the deals:

``tournament`` (default, :func:`evaluate_tournament`)
    the project's tournament (``folkcards.evaluate.tournament``): the learner (saved as a
    ``ppo:PATH`` model) and ``n - 1`` copies of the opponent play every deal in every seat
    assignment. ``score`` is the learner's mean, ``baseline_score`` the opponents' mean at the
    same tables, ``advantage`` the tournament's head-to-head learner − opponent (paired by deal).
    The tournament's SQLite store lives in a temporary folder and is discarded.

``duplicate`` (:func:`evaluate_duplicate`, no storage, cheaper for Tri Palki)
    each deal is played ``n + 1`` times: once with the learner in each seat, the opponent kind
    in the others, and once with the opponent kind in every seat (the baseline). ``score`` is
    the learner's mean over the seats, ``advantage`` the learner's score minus the baseline's
    in the same seats on the same deal, which removes most of the luck of the cards.

Scores are unscaled and unshaped whatever the training env uses: Paston plays ``deal`` mode
(``infos["deal_score"]``), Tri Palki ``round`` mode with ``reward="sticks"`` (the training
env's ``num_players`` and ``max_turns`` kept). If the ``heuristic`` for a game is not available
yet, ``random`` is used (``EvalResult.opponent`` says which).
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
from folkcards.train.single_seat import make_aec_env

MAX_ACTIONS = 1_000_000


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
        return (
            f"{self.game} vs {self.opponent} ({self.method}): score {self.mean_score:+.3f} ± {self.ci95:.3f} "
            f"(baseline {self.baseline_score:+.3f} ± {self.baseline_ci95:.3f}; "
            f"advantage {self.advantage:+.3f} ± {self.advantage_ci95:.3f}) over {self.deals} deals"
            + (f"; {self.truncated:.0%} of the games truncated" if self.truncated else "")
        )


def score_env_kwargs(game: str, train_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The env arguments evaluation plays with: one unscaled deal/round (the player count kept)."""
    train_kwargs = train_kwargs or {}
    if game == "paston":
        return {"episode": "deal"}
    kwargs: dict[str, Any] = {"episode": "round", "reward": "sticks"}
    for key in ("num_players", "max_turns"):
        if key in train_kwargs:
            kwargs[key] = train_kwargs[key]
    return kwargs


def play_scores(
    env: Any, agents: dict[str, Any], seed: int, flags: dict[str, Any] | None = None
) -> dict[str, float]:
    """Play one episode of a raw AEC env; each seat's total reward (everything ``last()`` pays).

    ``flags["truncated"]`` is set to whether the env truncated the episode.
    """
    env.reset(seed=seed)
    for agent in agents.values():
        agent.reset()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(MAX_ACTIONS):
        if not env.agents:
            return totals
        name = env.agent_selection
        totals[name] += float(env._cumulative_rewards[name])
        if env.terminations[name] or env.truncations[name]:
            if flags is not None and env.truncations[name]:
                flags["truncated"] = True
            env.step(None)
        else:
            env.step(agents[name].act(env.observe(name)))
    raise RuntimeError(f"an episode with seed {seed} did not end after {MAX_ACTIONS} actions")


def _ci(values: np.ndarray) -> float:
    if len(values) < 2:
        return math.nan
    return float(1.96 * values.std(ddof=1) / math.sqrt(len(values)))


def evaluate_duplicate(
    game: str,
    learner: Callable[[str, int], Any],
    opponent: str = "heuristic",
    deals: int = 100,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> EvalResult:
    """Duplicate evaluation; ``learner(seat, seed)`` builds the learner's agent for a seat.

    ``env_kwargs`` are the training env's arguments (only the player count is kept).
    """
    from folkcards.agents import make_agent

    if deals < 1:
        raise ValueError("deals must be >= 1")
    started = time.perf_counter()
    spec = opponent
    env = make_aec_env(game, **score_env_kwargs(game, env_kwargs))
    seats = list(env.possible_agents)
    rng = np.random.default_rng(seed)
    learners = {s: learner(s, 0) for s in seats}
    opponents = {s: make_agent(spec, game, s) for s in seats}
    scores = np.zeros(deals)
    baselines = np.zeros(deals)
    truncated = 0
    for deal in range(deals):
        deal_seed = int(rng.integers(2**63))
        agent_seeds = {s: int(rng.integers(2**63)) for s in seats}
        for s in seats:
            opponents[s].rng = np.random.default_rng(agent_seeds[s])
        flags: dict[str, Any] = {}
        base = play_scores(env, opponents, deal_seed, flags)
        truncated += flags.pop("truncated", False)
        baselines[deal] = np.mean(list(base.values()))
        mine = []
        for s in seats:
            for other in seats:
                opponents[other].rng = np.random.default_rng(agent_seeds[other])
            learners[s].rng = np.random.default_rng(agent_seeds[s])
            table = {o: (learners[s] if o == s else opponents[o]) for o in seats}
            mine.append(play_scores(env, table, deal_seed, flags)[s])
            truncated += flags.pop("truncated", False)
        scores[deal] = np.mean(mine)
    advantage = scores - baselines
    return EvalResult(
        game=game,
        method="duplicate",
        opponent=spec,
        deals=deals,
        games=deals * (len(seats) + 1),
        mean_score=float(scores.mean()),
        ci95=_ci(scores),
        baseline_score=float(baselines.mean()),
        baseline_ci95=_ci(baselines),
        advantage=float(advantage.mean()),
        advantage_ci95=_ci(advantage),
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
) -> EvalResult:
    """The learner saved at ``model_path`` (``ppo:PATH``) in a tournament against the opponent."""
    from folkcards.evaluate.config import Entrant, TournamentConfig
    from folkcards.evaluate.tournament import run

    if deals < 1:
        raise ValueError("deals must be >= 1")
    started = time.perf_counter()
    spec = opponent
    kwargs = score_env_kwargs(game, env_kwargs)
    num_players = 3 if game == "paston" else int(kwargs.get("num_players", 4))
    entrants = [Entrant("learner", f"ppo:{Path(model_path).resolve()}")]
    entrants += [Entrant(f"{spec}_{i}", spec) for i in range(1, num_players)]
    with tempfile.TemporaryDirectory(prefix="folkcards-eval-") as tmp:
        config = TournamentConfig(
            game=game,
            mode="deal" if game == "paston" else "round",
            count=deals,
            seed=seed,
            agents=entrants,
            num_players=num_players,
            workers=1,
            out=Path(tmp),
        )
        stats = run(config, progress=False, log=lambda _text: None)
    sign = 1.0 if stats["higher_is_better"] else -1.0
    rows = {row["name"]: row for row in stats["agents"]}
    learner = rows["learner"]
    others = [rows[e.name] for e in entrants[1:]]
    h2h = [h for h in stats["head_to_head"] if h["a"] == "learner" or h["b"] == "learner"]

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
        opponent=spec,
        deals=int(stats["deals_complete"]),
        games=int(stats["units_stored"]),
        mean_score=sign * float(learner["mean"]),
        ci95=half(learner),
        baseline_score=sign * float(np.mean([r["mean"] for r in others])),
        baseline_ci95=float(np.mean([half(r) for r in others])),
        advantage=sign * float(np.mean(diffs)) if diffs else math.nan,
        advantage_ci95=float(np.mean(widths)) if widths else math.nan,
        seconds=time.perf_counter() - started,
        truncated=float(stats.get("truncated_units", 0)) / max(1, int(stats["units_stored"])),
    )


def tournament_available() -> bool:
    try:
        from folkcards.evaluate.tournament import run  # noqa: F401
    except ImportError:
        return False
    return True


def evaluate_model(
    model: Any,
    game: str,
    opponent: str = "heuristic",
    deals: int = 100,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    method: str = "tournament",
    model_path: str | os.PathLike[str] | None = None,
    features: str | None = None,
) -> EvalResult:
    """Evaluate a MaskablePPO model (deterministic masked predictions) by ``method``.

    ``features``: the :mod:`folkcards.agents.features` set the model was trained with.

    ``tournament`` needs the model on disk: ``model_path`` (a ``.zip`` with its sidecar), else
    the model is saved to a temporary file. Without the tournament module, ``duplicate`` is used.
    """
    if method == "tournament" and tournament_available():
        if model_path is not None:
            return evaluate_tournament(model_path, game, opponent, deals, seed, env_kwargs)
        from folkcards.agents.ppo_agent import write_sidecar

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
    if method not in ("tournament", "duplicate"):
        raise ValueError(f"unknown evaluation method {method!r}: tournament or duplicate")
    from folkcards.agents.ppo_agent import PolicyAgent, policy_from_model

    policy = policy_from_model(model, {"game": game, "features": features})

    def learner(seat: str, agent_seed: int) -> PolicyAgent:
        return PolicyAgent(game, seat, agent_seed, policy=policy, label="learner")

    return evaluate_duplicate(game, learner, opponent, deals, seed, env_kwargs)


__all__ = [
    "EvalResult",
    "evaluate_duplicate",
    "evaluate_model",
    "evaluate_tournament",
    "play_scores",
    "score_env_kwargs",
    "tournament_available",
]
