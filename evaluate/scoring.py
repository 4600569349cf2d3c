"""What a tournament reads from one finished episode: one result per seat.

The facts about each game (env module, modes, units, metrics, player range) come from
:mod:`folkcards.envs.registry`; episodes are played by :func:`folkcards.agents.episode.play_episode`.
This module keeps only what is particular to scoring a tournament, one scorer per game that its
registry entry names (``GameSpec.tournament_scorer``; Paston's also scores ``paston_bidding``,
whose records and infos are Paston's):

==========  ===========  ===============================================  ================
game        mode         per-seat ``score``                               better
==========  ===========  ===============================================  ================
paston      ``deal``     the deal's table score (``infos["deal_score"]``)  higher
paston      ``game``     mean table score per completed deal of the game   higher
tri_palki   ``round``    sticks received in the round (0 or 1)             lower
tri_palki   ``match``    sticks received per round played in the match     lower
==========  ===========  ===============================================  ================

In ``game`` / ``match`` mode each seat also gets ``win`` (Paston: among the game's ``winners``,
a shared first place counts as a win; a game truncated by ``max_deals`` has no winner;
Tri Palki: the last surviving player). ``rank_key`` (higher is better) orders the seats of one
episode for the openskill ratings: the deal score; the game's final total; minus the sticks of
the round; in a match the winner first, then by rounds survived, then fewer sticks per round.

The tournament uses ``raw_env`` (never the classic wrapper): an agent's illegal action raises
``ValueError`` and stops the tournament instead of silently scoring −1.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from folkcards.agents.episode import EpisodeRun, play_episode
from folkcards.envs.registry import GAMES_HELP, GameSpec, game_spec


@dataclass
class SeatResult:
    score: float
    rank_key: float
    win: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The form stored in the database (``result_json``)."""
        return {
            "score": self.score,
            "win": self.win,
            "rank_key": self.rank_key,
            "extra": self.extra,
        }


@dataclass
class EpisodeResult:
    seats: list[SeatResult]
    record: dict[str, Any]
    # seconds of each decision, per seat in seat order (measured: differs between runs)
    decision_seconds: list[list[float]] = field(default_factory=list)


Infos = dict[str, dict[str, Any]]


def score_paston(
    mode: str, names: list[str], record: dict[str, Any], infos: Infos
) -> list[SeatResult]:
    if mode == "deal":
        out = []
        for name in names:
            info = infos[name]
            score = float(info["deal_score"])
            extra = {k: info.get(k) for k in ("role", "tricks", "contract", "outcome")}
            out.append(SeatResult(score, score, None, extra))
        return out
    completed = [
        d["result"]
        for d in record["deals"]
        if d.get("result") and d["result"][names[0]]["outcome"] != "redeal"
    ]
    n_deals = len(completed)
    out = []
    for name in names:
        info = infos[name]
        total_scores = sum(r[name]["deal_score"] for r in completed)
        per_deal = total_scores / n_deals if n_deals else 0.0
        winners = info.get("winners") or []
        total = info.get("total", 0)
        extra = {"total": total, "deals": n_deals}
        out.append(SeatResult(per_deal, float(total), name in winners, extra))
    return out


def score_tri_palki(
    mode: str, names: list[str], record: dict[str, Any], infos: Infos
) -> list[SeatResult]:
    rounds = [r["result"] for r in record.get("rounds", []) if r.get("result")]
    out = []
    if mode == "round":
        result = rounds[-1] if rounds else {}
        for name in names:
            info = result.get(name, {})
            stick = 1.0 if info.get("stick") else 0.0
            extra = {k: info.get(k) for k in ("hand_value", "hand_kind", "outcome")}
            out.append(SeatResult(stick, -stick, None, extra))
        return out
    winner = record.get("winner")
    for name in names:
        played = [r[name] for r in rounds if name in r and r[name].get("outcome") != "truncated"]
        sticks = sum(1 for r in played if r.get("stick"))
        per_round = sticks / len(played) if played else 0.0
        win = winner == name
        # winner first, then rounds survived, then fewer sticks per round
        key = (1e6 if win else 0.0) + 1e3 * len(played) - per_round
        out.append(SeatResult(per_round, key, win, {"rounds": len(played), "sticks": sticks}))
    return out


# A game's registry entry names its scorer (``GameSpec.tournament_scorer``):
# (mode, seat names, record, final infos) -> one result per seat
Scorer = Callable[[str, list[str], dict[str, Any], Infos], list[SeatResult]]


class _Scripted:
    """Plays the actions a record gives it, in order (to re-score a stored episode)."""

    def __init__(self, actions: Iterator[int]):
        self._actions = actions

    def act(self, observation: dict[str, Any]) -> int:
        action = next(self._actions, None)
        if action is None:
            raise ValueError("the record ends before the episode does")
        return action


class GameRunner:
    """Plays and scores episodes of one game in one mode; see the module docstring."""

    def __init__(self, game: str, mode: str, num_players: int):
        self.spec: GameSpec = game_spec(game)
        self.game = self.spec.name
        self.episode_mode = self.spec.mode(mode)
        self.mode = mode
        self.num_players = self.spec.check_players(num_players)
        self.scorer: Scorer = self.spec.piece("tournament_scorer")
        self._env: Any = None

    @property
    def unit(self) -> str:
        return self.episode_mode.unit

    @property
    def metric(self) -> str:
        return self.episode_mode.metric

    @property
    def higher_is_better(self) -> bool:
        return self.spec.higher_is_better

    @property
    def match_mode(self) -> bool:
        return self.episode_mode.multi

    def env(self) -> Any:
        """The raw env this runner plays on (built once, reset for every episode)."""
        if self._env is None:
            self._env = self.spec.raw_env(self.num_players, episode=self.mode)
        return self._env

    def play(
        self, agents: Sequence[Any], seed: int, options: dict[str, Any] | None = None
    ) -> EpisodeResult:
        """Play one episode from ``reset(seed=seed, options=options)``; ``agents[i]`` sits in
        seat ``player_i``."""
        env = self.env()
        return self._result(env, play_episode(env, list(agents), seed, options))

    def rescore(self, record: dict[str, Any]) -> EpisodeResult:
        """Replay a stored record through a fresh env and score it as :meth:`play` would."""
        env = self.spec.env_module().raw_env(**record["env_kwargs"])
        queues: dict[str, list[int]] = {name: [] for name in env.possible_agents}
        for agent, action in record["actions"]:
            queues[agent].append(int(action))
        table = {name: _Scripted(iter(actions)) for name, actions in queues.items()}
        run = play_episode(env, table, record["seed"], record.get("options") or None)
        return self._result(env, run)

    def _result(self, env: Any, run: EpisodeRun) -> EpisodeResult:
        record = json.loads(json.dumps(env.unwrapped.record()))
        seats = self.scorer(self.mode, list(env.possible_agents), record, run.final_infos)
        for seat in seats:
            seat.extra["truncated"] = run.truncated
        timing = [list(run.decision_seconds.get(name, [])) for name in env.possible_agents]
        return EpisodeResult(seats, record, timing)


__all__ = ["GAMES_HELP", "EpisodeResult", "GameRunner", "SeatResult", "make_runner"]


def make_runner(game: str, mode: str, num_players: int) -> GameRunner:
    """A :class:`GameRunner`; ``ValueError`` for an unknown game, mode or table size."""
    return GameRunner(game, mode, num_players)
