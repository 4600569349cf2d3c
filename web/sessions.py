"""The web table's game sessions: each game's state, its lock, and the agents' moves.

A :class:`Table` holds the games in play (:class:`TableGame`), the store of finished ones and
the replays; the agents think in the workers of :mod:`folkcards.web.bots`, never under a game's
lock. :mod:`folkcards.web.app` is the HTTP layer over it.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.envs.registry import game_spec

from .bots import WORKER_NICENESS, BotError, ProcessBots, ThreadBots
from .store import HumanGameStore
from .validation import (
    MAX_TEXT,
    MOVE_FIELDS,
    NEW_GAME_FIELDS,
    RequestError,
    check_web_agent,
    clip,
    is_int,
    one_line,
    only_fields,
    text_field,
)
from .views import SeatMemory, public_event, replay_frames, score_sheet, seat_view, unit_cards

log = logging.getLogger("folkcards.web")


MAX_GAMES = 200  # games kept in memory; the oldest finished ones are dropped first
MAX_BOT_ACTIONS = 100_000
MOVE_BUDGET = 60.0  # seconds an agent may take for one move (queueing included)
SETUP_BUDGET = 120.0  # seconds to build one agent (loading a model, compiling the solver)
INLINE_WAIT = 1.0  # seconds a request waits for the agents before answering "waiting"
SAVE_EVERY = 1.0  # seconds between saves while the agents play a long run of moves
PUBLISH_EVERY = 0.1  # seconds between views published while the agents play


class _ServerFault(Exception):
    """The agents' workers failed (the cause is the error): not the game's fault."""


class _CannotPlay(Exception):
    """A game the table could set up but not show."""


@dataclass
class TableGame:
    """One game between a person and agents.

    ``lock`` guards the env, ``history`` and ``published``; it is held only to apply a move and
    save, never while an agent thinks. ``published`` is the person's latest view as JSON bytes:
    reads send it without taking the lock. ``history`` holds every (seat, action) applied, so
    ``len(history)`` is the move number a move request must name.
    """

    id: str
    game: str
    env: Any
    human: int
    players: list[str]
    events: list[str] = field(default_factory=list)
    error: str | None = None
    history: list[tuple[int, int]] = field(default_factory=list)
    published: bytes = b""
    running: Future | None = None  # the agents' run in progress
    lock: threading.Lock = field(default_factory=threading.Lock)
    memory: SeatMemory | None = None  # what the person's seat has seen (finished tricks …)

    def __post_init__(self) -> None:
        if self.memory is None:
            self.memory = SeatMemory(self.game, self.human)

    def _you(self, event: str) -> str:
        return event.replace(f"P{self.human}", "You", 1)

    @property
    def over(self) -> bool:
        return not self.env.agents or self.error is not None

    def note(self, actor: int, action: int) -> None:
        event = public_event(self.game, self.env, actor, action, self.human)
        if event is not None:
            self.events.append(self._you(event))

    def apply(self, seat: int, action: int) -> None:
        """Play ``seat``'s legal ``action`` (``ValueError`` if it is not legal now)."""
        env = self.env
        name = env.agent_selection
        mask = env.observe(name)["action_mask"]
        if env.possible_agents.index(name) != seat or not 0 <= action < len(mask):
            raise ValueError(f"move {action} by P{seat} is not legal now")
        if not mask[action]:
            raise ValueError(f"move {env.action_to_string(action)} by P{seat} is not legal now")
        assert self.memory is not None
        units = self.memory.units
        seen = self.memory.before_move(env, seat, action)
        if self.memory.units != units:  # a new deal or round: its own history
            self.events = [f"{game_spec(self.game).round_word} {self.memory.units}"]
        self.note(seat, action)
        env.step(action)
        self.history.append((seat, action))
        self.events.extend(self._you(event) for event in seen)

    def next_agent(self) -> int | None:
        """Step dead seats' ``None`` turns; the seat of the agent to act, or ``None`` when the
        person is to act or the game is over."""
        env = self.env
        for _ in range(MAX_BOT_ACTIONS):
            if self.over:
                return None
            name = env.agent_selection
            seat = env.possible_agents.index(name)
            if env.terminations[name] or env.truncations[name]:
                if seat == self.human and any(
                    not (env.terminations[a] or env.truncations[a]) for a in env.agents
                ):
                    self.events.append("You are out; the others play on.")
                env.step(None)
                continue
            return None if seat == self.human else seat
        self.error = f"{MAX_BOT_ACTIONS} turns were skipped in a row"
        return None

    def observation(self, seat: int) -> dict[str, Any]:
        """A copy of ``seat``'s observation (an agent reads it while the page reads the env)."""
        observation = self.env.observe(self.env.possible_agents[seat])
        return {key: np.array(value, copy=True) for key, value in observation.items()}

    def view(self) -> dict[str, Any]:
        view = seat_view(self.game, self.env, self.human, self.memory)
        record = self.env.unwrapped.record()
        view["score_sheet"] = score_sheet(self.game, record, len(self.env.possible_agents))
        view.update(
            id=self.id,
            names=self.players,
            events=self.events[-60:],
            over=self.over,
            error=self.error,
            move=len(self.history),
            waiting=not self.over and not view["legal"],
        )
        if not self.env.agents or all(
            self.env.terminations.get(a) or self.env.truncations.get(a) for a in self.env.agents
        ):
            view["result"] = self.result(record)
        return view

    def publish(self) -> None:
        """Make the current view the one reads send (call with ``lock`` held)."""
        try:
            view = self.view()
        except Exception as exc:  # the game cannot be shown: it ends, with a view that says so
            log.exception("game %s (%s) cannot be shown", self.id, self.game)
            self.error = self.error or one_line(
                f"the table cannot show this game ({type(exc).__name__}: {exc})"
            )
            view = {
                "id": self.id,
                "game": self.game,
                "names": self.players,
                "events": self.events[-60:],
                "over": True,
                "error": self.error,
                "move": len(self.history),
                "waiting": False,
                "legal": [],
            }
        self.published = json.dumps(view).encode()

    def result(self, record: dict[str, Any]) -> dict[str, Any] | None:
        units = game_spec(self.game).record_units(record)
        last = next((u["result"] for u in reversed(units) if u.get("result")), None)
        return last


class Table:
    """All games in play, the store of finished ones and the replays.

    ``bot_workers`` worker processes hold the agents (0: threads of this process); an agent has
    ``move_budget`` seconds per move, or its game ends with a message saying so.
    """

    def __init__(
        self,
        store_path: str | Path,
        tournament_db: str | Path | None = None,
        seed: int | None = None,
        bot_workers: int = 2,
        move_budget: float = MOVE_BUDGET,
        agents_module: str | None = None,
        bot_niceness: int = WORKER_NICENESS,
        allow_any_agent: bool = False,
    ):
        if isinstance(bot_workers, bool) or not isinstance(bot_workers, int) or bot_workers < 0:
            raise ValueError(f"bot workers must be 0 or more, got {bot_workers!r}")
        if not move_budget > 0:
            raise ValueError(f"the move budget must be positive, got {move_budget!r}")
        self.store = HumanGameStore(store_path)
        self.tournament_db = Path(tournament_db) if tournament_db else None
        if self.tournament_db is not None and not self.tournament_db.is_file():
            raise ValueError(f"tournament database {self.tournament_db} does not exist")
        self.rng = np.random.default_rng(seed)
        self.games: dict[str, TableGame] = {}
        self.unavailable: dict[str, str] = {}  # games that failed to set up, with the reason
        self.lock = threading.Lock()
        self.move_budget = float(move_budget)
        self.allow_any_agent = allow_any_agent
        self.bots: ThreadBots | ProcessBots = (
            ProcessBots(bot_workers, agents_module, bot_niceness)
            if bot_workers
            else ThreadBots(agents_module=agents_module)
        )
        self.runs = ThreadPoolExecutor(64, thread_name_prefix="folkcards-run")

    def close(self) -> None:
        """Stop the agents' workers."""
        self.runs.shutdown(wait=False, cancel_futures=True)
        self.bots.close()
        self.store.close()

    # --- games in play ------------------------------------------------------------------

    def new_game(self, body: dict[str, Any]) -> TableGame:
        """Set up a game from a request body and start its agents; nothing is kept on failure."""
        only_fields(body, NEW_GAME_FIELDS)
        game = text_field(body, "game")
        try:
            spec = game_spec(game)
        except ValueError as exc:
            raise RequestError(400, str(exc)) from None
        players = body.get("num_players", spec.default_players)
        if isinstance(players, bool) or not isinstance(players, int) or abs(players) > 1000:
            raise RequestError(400, "'num_players' must be a whole number of players")
        try:
            players = spec.check_players(players)
            episode = spec.mode(text_field(body, "episode", spec.modes[0].name)).name
        except ValueError as exc:
            raise RequestError(400, str(exc)) from None
        seat = body.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise RequestError(400, f"seat must be a seat number from 0 to {players - 1}")
        opponents = body.get("opponents", [spec.table_opponent] * (players - 1))
        if not isinstance(opponents, list) or len(opponents) != players - 1:
            raise RequestError(400, f"opponents must be a list of {players - 1} agent specs")
        for kind in opponents:
            if not isinstance(kind, str) or not kind or len(kind) > MAX_TEXT:
                raise RequestError(
                    400, f"each agent spec must be a string of 1 to {MAX_TEXT} characters"
                )
            if not self.allow_any_agent:
                check_web_agent(kind)
        game_id = secrets.token_hex(8)
        try:
            return self._set_up(game_id, spec, players, episode, seat, opponents)
        except RequestError:
            self.bots.drop(game_id)
            raise
        except _ServerFault as fault:
            self.bots.drop(game_id)
            assert fault.__cause__ is not None
            raise fault.__cause__ from None
        except Exception as exc:  # something this game cannot do at the table
            log.exception("could not set up a game of %s", spec.name)
            self.bots.drop(game_id)
            self.store.delete(game_id)
            reason = str(exc) if isinstance(exc, _CannotPlay) else f"{type(exc).__name__}: {exc}"
            self.unavailable[spec.name] = one_line(reason, 120)
            raise RequestError(422, f"the web table cannot play {spec.name}: {reason}") from None

    def _set_up(
        self, game_id: str, spec: Any, players: int, episode: str, seat: int, opponents: list[str]
    ) -> TableGame:
        env = spec.raw_env(players, episode=episode)
        with self.lock:  # a numpy generator is not safe to share between threads
            game_seed = int(self.rng.integers(2**62))
        names = list(opponents)
        names.insert(seat, "You")
        try:
            builds = {
                s: self.bots.make((game_id, s), names[s], spec.name, game_seed + s, players)
                for s in range(players)
                if s != seat
            }
        except Exception as exc:  # the workers, not the game: a server error
            raise _ServerFault() from exc
        for s, future in builds.items():
            try:
                future.result(timeout=max(SETUP_BUDGET, self.move_budget))
            except BotError as exc:
                if exc.bad_spec:
                    raise RequestError(400, str(exc)) from None
                raise RequestError(
                    400, f"agent {clip(names[s])} could not be built: {exc}"
                ) from None
            except FutureTimeout:
                future.cancel()
                raise RequestError(
                    422, f"agent {clip(names[s])} took too long to load; try again"
                ) from None
        env.reset(seed=game_seed)
        table_game = TableGame(game_id, spec.name, env, seat, names)
        with table_game.lock:
            table_game.publish()
            if table_game.error is not None:  # it cannot even be shown: keep nothing
                raise _CannotPlay(table_game.error)
            self._start_agents(table_game)
        with self.lock:
            self._forget_old_games()
            self.games[table_game.id] = table_game
        return table_game

    def get(self, game_id: str) -> TableGame:
        game = self.games.get(game_id)
        if game is None:
            raise RequestError(
                404, f"no game {clip(game_id)} is in play (it ended or never existed)"
            )
        return game

    def move(self, game_id: str, body: dict[str, Any]) -> TableGame:
        """Apply the person's move, exactly once: ``body["move"]`` is the number of moves the
        person saw (the view's ``move``); a repeat of an applied move changes nothing, a move
        from an older view is refused (409)."""
        game = self.get(game_id)
        only_fields(body, MOVE_FIELDS)
        action, seen = body.get("action"), body.get("move")
        if not (is_int(action) and is_int(seen)) or seen < 0:
            raise RequestError(
                400,
                'the body must be {"action": <action id>, "move": <the view\'s move, 0 or more>}',
            )
        actions = int(game.env.action_space(game.env.possible_agents[game.human]).n)
        if not 0 <= action < actions:  # no move of this game, whatever its state: a bad body
            raise RequestError(
                400, f"illegal move {clip(action, 12)}: this game's actions are 0 to {actions - 1}"
            )
        with game.lock:
            done = len(game.history)
            if seen < done:
                if game.history[seen] == (game.human, action):
                    return game  # the same move again (a double click): already applied
                raise RequestError(
                    409, f"the game has moved on: it is at move {done}, not {seen}; refresh"
                )
            if seen > done:
                raise RequestError(409, f"the game is at move {done}, not {clip(seen, 12)}")
            if game.over:
                raise RequestError(409, "this game is over")
            env = game.env
            if (
                game.running is not None
                or env.possible_agents.index(env.agent_selection) != game.human
                or (env.terminations[env.agent_selection] or env.truncations[env.agent_selection])
            ):
                raise RequestError(409, "it is not your turn")
            mask = env.observe(env.agent_selection)["action_mask"]
            if not 0 <= action < len(mask) or not mask[action]:
                legal = ", ".join(env.action_to_string(int(a)) for a in mask.nonzero()[0])
                raise RequestError(400, f"illegal move {clip(action, 12)}; legal now: {legal}")
            try:
                game.apply(game.human, action)
            except Exception as exc:  # the env itself failed: this game ends, not the server
                log.exception("game %s failed on the person's move", game.id)
                game.error = one_line(f"the table failed on this move: {exc}")
            self._start_agents(game)
        return game

    def _start_agents(self, game: TableGame) -> None:
        """Let the agents play in a worker thread if they are to act, publish the view and save
        the game (call with ``game.lock`` held)."""
        agents_to_act = game.running is None and game.next_agent() is not None
        game.publish()
        self._save(game)
        if agents_to_act:
            game.running = self.runs.submit(self._run_agents, game)
        elif game.over:
            self.bots.drop(game.id)

    def _run_agents(self, game: TableGame) -> None:
        """The agents' moves until the person is to act or the game ends; each thinks without
        the lock, within the move budget, and the game is saved at the end."""
        last_save = last_publish = time.monotonic()
        try:
            for _ in range(MAX_BOT_ACTIONS):
                with game.lock:
                    seat = game.next_agent()
                    if seat is None:
                        break
                    observation = game.observation(seat)
                future = self.bots.act((game.id, seat), observation)
                who = f"agent {game.players[seat]} in seat P{seat}"
                failure = None
                try:
                    action = future.result(timeout=self.move_budget)
                except FutureTimeout:
                    future.cancel()
                    failure = (
                        f"{who} took more than {self.move_budget:g} s for one move; "
                        "the game is stopped"
                    )
                except BotError as exc:
                    failure = f"{who} failed: {exc}"
                with game.lock:
                    if failure is None:
                        try:
                            game.apply(seat, action)
                        except ValueError as exc:
                            failure = f"{who} failed: {exc}"
                    if failure is not None:
                        game.error = one_line(failure)
                        break
                    now = time.monotonic()
                    if now - last_publish > PUBLISH_EVERY:  # a slow run shows its progress
                        game.publish()
                        last_publish = now
                    if now - last_save > SAVE_EVERY:
                        self._save(game)
                        last_save = now
            else:
                with game.lock:
                    game.error = f"the agents made {MAX_BOT_ACTIONS} moves in a row"
        except Exception as exc:  # a bug in the env or the table: this game ends, not the server
            log.exception("game %s failed while the agents played", game.id)
            with game.lock:
                game.error = one_line(f"the table failed: {exc}")
        finally:
            with game.lock:
                game.running = None
                game.publish()
                self._save(game)
                if game.over:
                    self.bots.drop(game.id)

    def _save(self, game: TableGame) -> None:
        """Store the game as it is now (call with ``game.lock`` held, so saves land in order)."""
        self.store.save(
            game.id,
            game.game,
            game.players,
            game.human,
            game.env.unwrapped.record(),
            finished=game.over,
            version=len(game.history),
        )

    def _forget_old_games(self) -> None:
        if len(self.games) < MAX_GAMES:
            return
        finished = [gid for gid, g in self.games.items() if g.over]
        for gid in (finished or list(self.games))[: len(self.games) - MAX_GAMES + 1]:
            del self.games[gid]
            self.bots.drop(gid)

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
        from folkcards.evaluate.storage.database import Store

        assert self.tournament_db is not None
        with Store(self.tournament_db) as store:
            return list(store.units(with_records=True))

    def check_finished(self, game_id: str) -> None:
        """A game still in play is never replayed: its replay would show the others' cards."""
        game = self.games.get(game_id)
        if game is not None and not game.over:
            raise RequestError(409, "this game is still in play; it can be replayed once over")

    def human_replay(self, game_id: str) -> dict[str, Any]:
        self.check_finished(game_id)
        record = self.store.record(game_id)
        if record is None:
            raise RequestError(404, f"no stored game {clip(game_id)}")
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
    return {
        "game": game,
        "names": [f"P{s}" for s in range(players)],
        "frames": frames,
        "dealt": unit_cards(game, record, "dealt"),
        "prikups": unit_cards(game, record),
    }
