"""The web table: a Starlette app where a person plays against agents and replays stored games.

``create_app(store_path, tournament_db=None, seed=None)`` builds it; ``folkcards serve`` runs it
with uvicorn on 127.0.0.1. The JSON API (the page in ``static/`` is one client of it):

- ``GET /api/meta``: the games, their player ranges and the agent kinds.
- ``POST /api/games`` ``{"game", "num_players", "seat", "opponents": [specs], "episode"}``: a
  new game; the agents play until the person is to act. Returns the person's view.
- ``GET /api/games/{id}?seat=k``: the view of the person's seat (any other seat: 403).
- ``POST /api/games/{id}/move`` ``{"action": id}``: the person's move; the agents answer.
- ``GET /api/replays``: stored human games and, with a tournament database, its units.
- ``GET /api/replays/human/{id}``, ``/api/replays/tournament/{n}``: spectator frames;
  ``/api/replays/human/{id}/text``: the game's text record.

Every view is built from the seat's own observation (:mod:`folkcards.web.views`), so no other
seat's hidden card ever reaches the page. Bad requests get a 4xx JSON ``{"error": ...}`` and
change nothing; an agent that fails ends its game with an error message, never the server.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents import agent_kinds, make_agent
from folkcards.envs.registry import GAMES, game_spec
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .store import HumanGameStore
from .views import public_event, replay_frames, seat_view, unit_cards

STATIC = Path(__file__).resolve().parent / "static"
MAX_GAMES = 200  # games kept in memory; the oldest finished ones are dropped first
MAX_BOT_ACTIONS = 100_000


class RequestError(Exception):
    """A bad request: answered with ``status`` and a one-line message, nothing changed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class TableGame:
    """One game between a person and agents."""

    id: str
    game: str
    env: Any
    human: int
    agents: dict[int, Any]
    players: list[str]
    events: list[str] = field(default_factory=list)
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def over(self) -> bool:
        return not self.env.agents or self.error is not None

    def note(self, actor: int, action: int) -> None:
        event = public_event(self.game, self.env, actor, action, self.human)
        if event is not None:
            self.events.append(event.replace(f"P{self.human}", "You", 1))

    def play_agents(self) -> None:
        """Step the agents (and dead agents' ``None`` steps) until the person is to act."""
        env = self.env
        for _ in range(MAX_BOT_ACTIONS):
            if not env.agents:
                return
            name = env.agent_selection
            seat = env.possible_agents.index(name)
            if env.terminations[name] or env.truncations[name]:
                if seat == self.human and any(
                    not (env.terminations[a] or env.truncations[a]) for a in env.agents
                ):
                    self.events.append("You are out; the others play on.")
                env.step(None)
                continue
            if seat == self.human:
                return
            try:
                action = int(self.agents[seat].act(env.observe(name)))
                self.note(seat, action)
                env.step(action)
            except Exception as exc:  # an agent's failure ends this game, not the server
                self.error = f"agent {self.players[seat]} in seat P{seat} failed: {exc}"
                return
        self.error = f"the agents made {MAX_BOT_ACTIONS} moves in a row"

    def view(self) -> dict[str, Any]:
        view = seat_view(self.game, self.env, self.human)
        view.update(
            id=self.id,
            names=self.players,
            events=self.events[-60:],
            over=self.over,
            error=self.error,
        )
        if not self.env.agents or all(
            self.env.terminations.get(a) or self.env.truncations.get(a) for a in self.env.agents
        ):
            view["result"] = self.result()
        return view

    def result(self) -> dict[str, Any] | None:
        record = self.env.unwrapped.record()
        units = record.get("deals") or record.get("rounds") or []
        last = next((u["result"] for u in reversed(units) if u.get("result")), None)
        return last


class Table:
    """All games in play, the store of finished ones and the replays."""

    def __init__(
        self,
        store_path: str | Path,
        tournament_db: str | Path | None = None,
        seed: int | None = None,
    ):
        self.store = HumanGameStore(store_path)
        self.tournament_db = Path(tournament_db) if tournament_db else None
        if self.tournament_db is not None and not self.tournament_db.is_file():
            raise ValueError(f"tournament database {self.tournament_db} does not exist")
        self.rng = np.random.default_rng(seed)
        self.games: dict[str, TableGame] = {}
        self.lock = threading.Lock()

    # --- games in play ------------------------------------------------------------------

    def new_game(self, body: dict[str, Any]) -> TableGame:
        game = _field(body, "game", str)
        try:
            spec = game_spec(game)
        except ValueError as exc:
            raise RequestError(400, str(exc)) from None
        players = body.get("num_players", spec.default_players)
        try:
            players = spec.check_players(players)
            episode = spec.mode(body.get("episode", spec.modes[0].name)).name
        except ValueError as exc:
            raise RequestError(400, str(exc)) from None
        seat = body.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise RequestError(400, f"seat must be a seat number from 0 to {players - 1}")
        opponents = body.get("opponents", ["heuristic"] * (players - 1))
        if not isinstance(opponents, list) or len(opponents) != players - 1:
            raise RequestError(400, f"opponents must be a list of {players - 1} agent specs")
        env = spec.raw_env(players, episode=episode)
        game_seed = int(self.rng.integers(2**62))
        agents, names = {}, []
        others = iter(opponents)
        for s in range(players):
            if s == seat:
                names.append("You")
                continue
            kind = next(others)
            try:
                agents[s] = make_agent(str(kind), spec.name, f"player_{s}", seed=game_seed + s)
                supports = getattr(agents[s], "supports", None)
                if supports is not None and not supports(players):
                    raise ValueError(f"agent {kind!r} cannot play a table of {players}")
            except ValueError as exc:
                raise RequestError(400, str(exc)) from None
            except Exception as exc:  # a model file that does not load, for example
                raise RequestError(400, f"agent {kind!r} could not be built: {exc}") from None
            names.append(str(kind))
        env.reset(seed=game_seed)
        for agent in agents.values():
            agent.reset()
        table_game = TableGame(secrets.token_hex(8), spec.name, env, seat, agents, names)
        table_game.play_agents()
        with self.lock:
            self._forget_old_games()
            self.games[table_game.id] = table_game
        self._save(table_game)
        return table_game

    def get(self, game_id: str) -> TableGame:
        with self.lock:
            game = self.games.get(game_id)
        if game is None:
            raise RequestError(404, f"no game {game_id!r} is in play (it ended or never existed)")
        return game

    def move(self, game_id: str, body: dict[str, Any]) -> TableGame:
        game = self.get(game_id)
        action = body.get("action")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(400, 'the body must be {"action": <action id>}')
        with game.lock:
            if game.over:
                raise RequestError(409, "this game is over")
            env = game.env
            name = env.agent_selection
            if env.possible_agents.index(name) != game.human:
                raise RequestError(409, "it is not your turn")
            mask = env.observe(name)["action_mask"]
            if not 0 <= action < len(mask) or not mask[action]:
                legal = ", ".join(env.action_to_string(int(a)) for a in mask.nonzero()[0])
                raise RequestError(400, f"illegal move {action}; legal now: {legal}")
            game.note(game.human, action)
            env.step(action)
            game.play_agents()
        self._save(game)
        return game

    def _save(self, game: TableGame) -> None:
        self.store.save(
            game.id,
            game.game,
            game.players,
            game.human,
            game.env.unwrapped.record(),
            finished=game.over,
        )

    def _forget_old_games(self) -> None:
        if len(self.games) < MAX_GAMES:
            return
        finished = [gid for gid, g in self.games.items() if g.over]
        for gid in (finished or list(self.games))[: len(self.games) - MAX_GAMES + 1]:
            del self.games[gid]

    # --- replays ------------------------------------------------------------------------

    def replays(self) -> dict[str, Any]:
        human = self.store.games()
        units = []
        if self.tournament_db is not None:
            for index, unit in enumerate(self._tournament_units()):
                units.append(
                    {
                        "index": index,
                        "deal": unit["deal"],
                        "seating": unit["seating"],
                        "agents": list(unit["seats"]),
                        "scores": [seat["score"] for seat in unit["result"]],
                    }
                )
        return {"human": human, "tournament": units}

    def _tournament_units(self) -> list[dict[str, Any]]:
        from folkcards.evaluate.storage import Store

        assert self.tournament_db is not None
        with Store(self.tournament_db) as store:
            return list(store.units(with_records=True))

    def check_finished(self, game_id: str) -> None:
        """A game still in play is never replayed: its replay would show the others' cards."""
        with self.lock:
            game = self.games.get(game_id)
        if game is not None and not game.over:
            raise RequestError(409, "this game is still in play; it can be replayed once over")

    def human_replay(self, game_id: str) -> dict[str, Any]:
        self.check_finished(game_id)
        record = self.store.record(game_id)
        if record is None:
            raise RequestError(404, f"no stored game {game_id!r}")
        replay = _replay(record)
        replay["names"] = self.store.players(game_id) or replay["names"]
        return replay

    def tournament_replay(self, index: int) -> dict[str, Any]:
        if self.tournament_db is None:
            raise RequestError(404, "the server was started without a tournament database")
        units = self._tournament_units()
        if not 0 <= index < len(units):
            raise RequestError(404, f"no unit {index}: the database holds {len(units)}")
        unit = units[index]
        replay = _replay(unit["record"])
        replay["names"] = list(unit["seats"])
        return replay


def _replay(record: dict[str, Any]) -> dict[str, Any]:
    game = record["game"]
    frames = replay_frames(game, record)
    players = frames[0]["views"][0]["players"]
    units = record.get("deals") or record.get("rounds") or []
    return {
        "game": game,
        "names": [f"P{s}" for s in range(players)],
        "frames": frames,
        "dealt": [u.get("hands") or u.get("deck") for u in units],
        "prikups": unit_cards(game, record),
    }


def _field(body: dict[str, Any], key: str, kind: type) -> Any:
    value = body.get(key)
    if not isinstance(value, kind):
        raise RequestError(400, f"{key!r} must be given as a {kind.__name__}")
    return value


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise RequestError(400, "the body must be JSON") from None
    if not isinstance(body, dict):
        raise RequestError(400, "the body must be a JSON object")
    return body


def create_app(
    store_path: str | Path,
    tournament_db: str | Path | None = None,
    seed: int | None = None,
) -> Starlette:
    """The web table's Starlette app (see the module docstring)."""
    table = Table(store_path, tournament_db, seed)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def meta(request: Request) -> Response:
        return JSONResponse(
            {
                "games": [
                    {
                        "name": spec.name,
                        "title": spec.title,
                        "min_players": spec.min_players,
                        "max_players": spec.max_players,
                        "default_players": spec.default_players,
                        "modes": list(spec.mode_names),
                    }
                    for spec in GAMES.values()
                ],
                "agents": agent_kinds(),
            }
        )

    async def new_game(request: Request) -> Response:
        body = await _json_body(request)
        game = await run_in_threadpool(table.new_game, body)
        return JSONResponse(game.view(), status_code=201)

    async def show_game(request: Request) -> Response:
        game = table.get(request.path_params["game_id"])
        seat = request.query_params.get("seat")
        if seat is not None and seat != str(game.human):
            raise RequestError(403, f"you sit in seat {game.human}; other seats' views are private")
        with game.lock:
            return JSONResponse(game.view())

    async def move(request: Request) -> Response:
        body = await _json_body(request)
        game = await run_in_threadpool(table.move, request.path_params["game_id"], body)
        with game.lock:
            return JSONResponse(game.view())

    async def replays(request: Request) -> Response:
        return JSONResponse(table.replays())

    async def human_replay(request: Request) -> Response:
        replay = await run_in_threadpool(table.human_replay, request.path_params["game_id"])
        return JSONResponse(replay)

    async def human_text(request: Request) -> Response:
        table.check_finished(request.path_params["game_id"])
        text = table.store.text(request.path_params["game_id"])
        if text is None:
            raise RequestError(404, f"no stored game {request.path_params['game_id']!r}")
        return PlainTextResponse(text)

    async def tournament_replay(request: Request) -> Response:
        replay = await run_in_threadpool(table.tournament_replay, request.path_params["index"])
        return JSONResponse(replay)

    async def request_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestError)
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", show_game),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/replays", replays),
        Route("/api/replays/human/{game_id}", human_replay),
        Route("/api/replays/human/{game_id}/text", human_text),
        Route("/api/replays/tournament/{index:int}", tournament_replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={RequestError: request_error})
    app.state.table = table
    return app


__all__ = ["RequestError", "Table", "create_app"]
