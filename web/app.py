"""The web table: a Starlette app where a person plays against agents and replays stored games.

This module is the HTTP layer (routes, middleware, the app factory); the games in play are
:mod:`folkcards.web.sessions`, request validation :mod:`folkcards.web.validation`, the agents'
workers :mod:`folkcards.web.bots` and the seat views :mod:`folkcards.web.views`.

``create_app(store_path, tournament_db=None, seed=None, bot_workers=2, move_budget=60)`` builds
it; ``folkcards serve`` runs it with uvicorn on 127.0.0.1. The JSON API (the page in
``static/`` is one client of it):

- ``GET /api/meta``: the games (``unavailable``: why the table could not set one up, else
  ``null``), their player ranges, the opponent a person meets by default (the registry's
  ``table_opponent``), the agent kinds and the agents' move budget.
- ``POST /api/games`` ``{"game", "num_players", "seat", "opponents": [specs], "episode"}``: a
  new game (201 with the person's view). An opponent is one of the agent kinds ``/api/meta``
  lists, alone or with a game's name or ``key=value`` parameters (:func:`check_web_agent`);
  a spec naming a file or module is refused 400 unless the server allows any agent
  (``folkcards serve --allow-any-agent``).
- ``GET /api/games/{id}?seat=k``: the view of the person's seat (any other seat: 403): the
  seat's decoded observation, ``legal``, ``events`` (this deal's or round's history), ``page``
  (which table the page draws), ``score_sheet`` and the game's remembered fields (Paston:
  ``last_trick``, ``tricks_won``).
- ``POST /api/games/{id}/move`` ``{"action": id, "move": n}``: the person's move, made from the
  view whose ``move`` is ``n``. Applied exactly once: the same move again answers the current
  view (200) and changes nothing; a move from an older view, or when it is not the person's
  turn, answers 409.
- ``GET /api/replays``: stored human games and, with a tournament database, its units.
- ``GET /api/replays/human/{id}``, ``/api/replays/tournament/{n}``: spectator frames;
  ``/api/replays/human/{id}/text``: the game's text record.

The agents think in worker processes (:mod:`folkcards.web.bots`), never on the event loop and
never under a game's lock: a view says ``"waiting": true`` while they play, and the page polls
``GET /api/games/{id}`` until it is the person's turn (a move or new-game request itself waits
up to ``inline_wait`` seconds for them, so fast agents answer in the same response). Reads send
the view published after the last move, without a lock. An agent that fails, or takes more than
``move_budget`` seconds for a move, ends its game with a message; every game is saved under its
lock after the person's move and when the agents stop, so the stored record is the game's.

Every view is built from the seat's own observation (:mod:`folkcards.web.views`), so no other
seat's hidden card ever reaches the page; what the observation no longer holds (the last trick,
who won each trick) is kept by the seat's :class:`~folkcards.web.views.SeatMemory` from what
the seat saw, and the running score sheet comes from the finished deals' public results. Bad requests get a 4xx JSON ``{"error": ...}`` of one
short line that quotes at most :data:`ECHO` characters of the input, and change nothing: bodies
over :data:`MAX_BODY` bytes 413, JSON that is malformed or nested deeper than :data:`MAX_DEPTH`
400, a game the table cannot set up 422. An unexpected error is logged with its traceback and
answered 500 with one line.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio.to_thread
from folkcards.agents import agent_kinds
from folkcards.envs.registry import GAMES
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .bots import WORKER_NICENESS
from .sessions import INLINE_WAIT, MOVE_BUDGET, Table, TableGame
from .validation import RequestError, check_web_agent, clip, json_body, one_line

log = logging.getLogger("folkcards.web")

STATIC = Path(__file__).resolve().parent / "static"
REQUEST_THREADS = 200  # threads for requests' blocking work (anyio's default is 40)


class CatchServerErrors:
    """ASGI middleware: an unexpected exception is logged with its traceback and answered 500
    with a one-line JSON message (never the traceback), instead of reaching the client."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception:
            log.exception("unexpected error in %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            response = JSONResponse(
                {"error": "internal error: the server could not answer this request"},
                status_code=500,
            )
            await response(scope, receive, send)


class Handlers:
    """The web table's request handlers over one :class:`Table` (``create_app`` routes them)."""

    def __init__(self, table: Table, inline_wait: float) -> None:
        self.table = table
        self.inline_wait = inline_wait

    async def settled(self, game: TableGame) -> Response:
        """The game's view once its agents are done, or after ``inline_wait`` seconds."""
        running = game.running
        if running is not None and self.inline_wait > 0:
            await asyncio.wait({asyncio.wrap_future(running)}, timeout=self.inline_wait)
        return Response(game.published, media_type="application/json")

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def meta(self, request: Request) -> Response:
        games = [
            {
                "name": spec.name,
                "title": spec.title,
                "min_players": spec.min_players,
                "max_players": spec.max_players,
                "default_players": spec.default_players,
                "modes": list(spec.mode_names),
                "opponent": spec.table_opponent,
                "unavailable": self.table.unavailable.get(spec.name),
            }
            for spec in GAMES.values()
        ]
        body = {
            "games": games,
            "agents": agent_kinds(),
            "move_budget": self.table.move_budget,
            "any_agent": self.table.allow_any_agent,
        }
        return JSONResponse(body)

    async def new_game(self, request: Request) -> Response:
        body = await json_body(request)
        game = await run_in_threadpool(self.table.new_game, body)
        response = await self.settled(game)
        response.status_code = 201
        return response

    async def show_game(self, request: Request) -> Response:
        game = self.table.get(request.path_params["game_id"])
        seat = request.query_params.get("seat")
        if seat is not None and seat != str(game.human):
            raise RequestError(403, f"you sit in seat {game.human}; other seats' views are private")
        return Response(game.published, media_type="application/json")

    async def move(self, request: Request) -> Response:
        body = await json_body(request)
        game = await run_in_threadpool(self.table.move, request.path_params["game_id"], body)
        return await self.settled(game)

    async def replays(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.table.replays))

    async def human_replay(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        return JSONResponse(await run_in_threadpool(self.table.human_replay, game_id))

    async def human_text(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        self.table.check_finished(game_id)
        try:
            text = await run_in_threadpool(self.table.store.text, game_id)
        except ValueError as exc:
            raise RequestError(422, f"this game has no text form: {exc}") from None
        if text is None:
            raise RequestError(404, f"no stored game {clip(game_id)}")
        return PlainTextResponse(text)

    async def tournament_replay(self, request: Request) -> Response:
        index = request.path_params["index"]
        return JSONResponse(await run_in_threadpool(self.table.tournament_replay, index))

    async def request_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestError)
        return JSONResponse({"error": one_line(str(exc))}, status_code=exc.status)

    async def leaderboard(self, request: Request) -> Response:
        """The stored gauntlet rows as a page (read-only)."""
        from folkcards.evaluate.benchmarks.gauntlet import shipped_rows
        from folkcards.evaluate.pages.leaderboard import render_html

        return HTMLResponse(render_html(shipped_rows()))

    async def leaderboard_rows(self, request: Request) -> Response:
        """The stored gauntlet rows with their ratings (read-only)."""
        from folkcards.evaluate.benchmarks.gauntlet import shipped_rows
        from folkcards.evaluate.pages.leaderboard import rated_rows

        return JSONResponse({"rows": rated_rows(shipped_rows())})

    def routes(self) -> list[Any]:
        return [
            Route("/", self.index),
            Route("/api/meta", self.meta),
            Route("/api/games", self.new_game, methods=["POST"]),
            Route("/api/games/{game_id}", self.show_game),
            Route("/api/games/{game_id}/move", self.move, methods=["POST"]),
            Route("/api/replays", self.replays),
            Route("/api/replays/human/{game_id}", self.human_replay),
            Route("/api/replays/human/{game_id}/text", self.human_text),
            Route("/api/replays/tournament/{index:int}", self.tournament_replay),
            Route("/leaderboard", self.leaderboard),
            Route("/api/leaderboard", self.leaderboard_rows),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]


def create_app(
    store_path: str | Path,
    tournament_db: str | Path | None = None,
    seed: int | None = None,
    *,
    bot_workers: int = 2,
    move_budget: float = MOVE_BUDGET,
    agents_module: str | None = None,
    inline_wait: float = INLINE_WAIT,
    bot_niceness: int = WORKER_NICENESS,
    allow_any_agent: bool = False,
) -> Starlette:
    """The web table's Starlette app (see the module docstring and :class:`Table`)."""
    table = Table(
        store_path,
        tournament_db,
        seed,
        bot_workers,
        move_budget,
        agents_module,
        bot_niceness,
        allow_any_agent,
    )
    handlers = Handlers(table, inline_wait)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        # a new game's request waits in a thread while its agents are built in the workers:
        # enough threads that those waits never hold up the moves of games in play
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(limiter.total_tokens, REQUEST_THREADS)
        yield
        table.close()

    app = Starlette(
        routes=handlers.routes(),
        exception_handlers={RequestError: handlers.request_error},
        middleware=[Middleware(CatchServerErrors)],
        lifespan=lifespan,
    )
    app.state.table = table
    return app


__all__ = ["Handlers", "RequestError", "Table", "check_web_agent", "create_app"]
