"""How a tournament plays one episode of each game and reads its result.

A :class:`GameRunner` knows, for one game and one mode, how to build the raw env, play an
episode between agents from a seed, and turn the end of the episode into one number per seat:

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

import importlib
import json
from dataclasses import dataclass, field
from typing import Any

GAMES = ("paston", "tri_palki")
GAME_ALIASES = {
    "paston": "paston",
    "tri_palki": "tri_palki",
    "tri-palki": "tri_palki",
    "tripalki": "tri_palki",
}
MODES = {"paston": ("deal", "game"), "tri_palki": ("round", "match")}
MAX_STEPS = 1_000_000


def canonical_game(name: str) -> str:
    """``"tri-palki"`` → ``"tri_palki"``; ``ValueError`` for an unknown game."""
    key = str(name).strip().lower()
    if key not in GAME_ALIASES:
        raise ValueError(f"unknown game {name!r}; choose paston or tri_palki")
    return GAME_ALIASES[key]


def env_module(game: str) -> Any:
    """The public env module (``folkcards.envs.paston_v0`` / ``tri_palki_v0``)."""
    try:
        return importlib.import_module(f"folkcards.envs.{game}_v0")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("folkcards.envs"):
            raise ValueError(
                f"the {game} environment (folkcards.envs.{game}_v0) is not available yet"
            ) from exc
        raise


@dataclass
class SeatResult:
    score: float
    rank_key: float
    win: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class EpisodeResult:
    seats: list[SeatResult]
    record: dict[str, Any]


class GameRunner:
    """Plays episodes of one game in one mode; see the module docstring."""

    game: str
    mode: str
    num_players: int
    metric: str  # what ``score`` is, for reports
    unit: str  # "deal", "round", "game" or "match"
    higher_is_better: bool

    def __init__(self, game: str, mode: str, num_players: int):
        self.game = game
        self.mode = mode
        self.num_players = num_players
        self.module = env_module(game)
        self._env: Any = None

    @property
    def env_name(self) -> str:
        return f"{self.game}_v0"

    @property
    def match_mode(self) -> bool:
        return self.mode in ("game", "match")

    def make_env(self) -> Any:
        raise NotImplementedError

    def env(self) -> Any:
        if self._env is None:
            self._env = self.make_env()
        return self._env

    def play(self, agents: list[Any], seed: int) -> EpisodeResult:
        """Play one episode from ``reset(seed=seed)``; ``agents[i]`` sits in seat ``player_i``."""
        env = self.env()
        env.reset(seed=seed)
        for agent in agents:
            agent.reset()
        seat_of = {name: i for i, name in enumerate(env.possible_agents)}
        last_infos: dict[str, dict[str, Any]] = {}
        steps = 0
        truncated = False
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                truncated = truncated or bool(env.truncations[name])
                last_infos[name] = dict(env.infos.get(name, {}))
                env.step(None)
                continue
            seat = seat_of[name]
            action = agents[seat].act(env.observe(name))
            try:
                env.step(action)
            except ValueError as exc:
                raise RuntimeError(f"agent {agents[seat]!r} in seat {name}: {exc}") from exc
            steps += 1
            if steps > MAX_STEPS:
                raise RuntimeError(
                    f"episode with seed {seed} did not end after {MAX_STEPS} actions"
                )
        record = json.loads(json.dumps(env.unwrapped.record()))
        results = self.results(env, record, last_infos)
        for result in results:
            result.extra["truncated"] = truncated
        return EpisodeResult(results, record)

    def results(
        self, env: Any, record: dict[str, Any], infos: dict[str, dict[str, Any]]
    ) -> list[SeatResult]:
        raise NotImplementedError

    def replay(self, record: dict[str, Any]) -> Any:
        """Rebuild an env from a stored record (the module's ``replay``)."""
        return self.module.replay(record)


class PastonRunner(GameRunner):
    def __init__(self, mode: str, num_players: int = 3):
        super().__init__("paston", mode, 3)
        self.unit = mode
        self.metric = "table score per deal"
        self.higher_is_better = True

    def make_env(self) -> Any:
        return self.module.raw_env(episode=self.mode)

    def results(
        self, env: Any, record: dict[str, Any], infos: dict[str, dict[str, Any]]
    ) -> list[SeatResult]:
        names = env.possible_agents
        if self.mode == "deal":
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
            out.append(
                SeatResult(
                    per_deal,
                    float(total),
                    name in winners,
                    {"total": total, "deals": n_deals},
                )
            )
        return out


class TriPalkiRunner(GameRunner):
    def __init__(self, mode: str, num_players: int = 4):
        super().__init__("tri_palki", mode, num_players)
        self.unit = mode
        self.metric = "sticks per round"
        self.higher_is_better = False

    def make_env(self) -> Any:
        return self.module.raw_env(num_players=self.num_players, episode=self.mode)

    def results(
        self, env: Any, record: dict[str, Any], infos: dict[str, dict[str, Any]]
    ) -> list[SeatResult]:
        names = env.possible_agents
        rounds = [r["result"] for r in record.get("rounds", []) if r.get("result")]
        out = []
        if self.mode == "round":
            result = rounds[-1] if rounds else {}
            for name in names:
                info = result.get(name, {})
                stick = 1.0 if info.get("stick") else 0.0
                extra = {k: info.get(k) for k in ("hand_value", "hand_kind", "outcome")}
                out.append(SeatResult(stick, -stick, None, extra))
            return out
        winner = record.get("winner")
        for name in names:
            played = [
                r[name] for r in rounds if name in r and r[name].get("outcome") != "truncated"
            ]
            sticks = sum(1 for r in played if r.get("stick"))
            per_round = sticks / len(played) if played else 0.0
            win = winner == name
            # winner first, then rounds survived, then fewer sticks per round
            key = (1e6 if win else 0.0) + 1e3 * len(played) - per_round
            out.append(SeatResult(per_round, key, win, {"rounds": len(played), "sticks": sticks}))
        return out


def make_runner(game: str, mode: str, num_players: int) -> GameRunner:
    game = canonical_game(game)
    if mode not in MODES[game]:
        raise ValueError(f"{game} has modes {', '.join(MODES[game])}, not {mode!r}")
    if game == "paston":
        return PastonRunner(mode)
    return TriPalkiRunner(mode, num_players)
