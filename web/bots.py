"""Where the web table's agents think: never on the server's event loop, never under a game's lock.

Both kinds of pool build an agent once per (game id, seat) and keep it for the game, so a seeded
agent makes the same choices whichever pool it lives in; every call returns a
:class:`concurrent.futures.Future`, which the table waits on with a time budget.

- :class:`ProcessBots` (the server's default): ``workers`` spawned processes, each holding the
  agents of the games assigned to it (round robin). Search agents hold Python's GIL for long
  stretches (numba's solver does not release it), so only another process keeps the server's
  reads fast while they think; the workers also run at a lower CPU priority.
- :class:`ThreadBots`: the agents live in the server process and think in a thread pool
  (tests, and agents that are fast anyway).

``agents_module`` names a module imported first in each worker (and in the server), for example
one that registers extra agent kinds with :func:`folkcards.agents.base.register_agent`.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import logging
import multiprocessing
import os
import queue
import threading
import time
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from typing import Any

from folkcards.agents import agent_kinds, make_agent

log = logging.getLogger("folkcards.web")

Key = tuple[str, int]  # (game id, seat)
WORKER_STOPPED = "the agents' worker process stopped"
WORKER_NICENESS = 5  # the workers yield the CPU to the server's requests


class BotError(Exception):
    """An agent's failure in a pool; ``bad_spec`` when it was a bad spec (a ``ValueError``)."""

    def __init__(self, message: str, bad_spec: bool = False):
        super().__init__(message)
        self.bad_spec = bad_spec


def build_agent(spec: str, game: str, seat: int, seed: int, players: int) -> Any:
    """The agent ``spec`` for ``seat`` of a table of ``players``, reset for a new episode."""
    agent = make_agent(spec, game, f"player_{seat}", seed=seed)
    supports = getattr(agent, "supports", None)
    if supports is not None and not supports(players):
        raise ValueError(f"agent {spec!r} cannot play a table of {players}")
    agent.reset()
    return agent


def _describe(exc: BaseException) -> BotError:
    if isinstance(exc, BotError):
        return exc
    if isinstance(exc, ValueError):
        return BotError(str(exc), bad_spec=True)
    return BotError(f"{type(exc).__name__}: {exc}")


class ThreadBots:
    """Agents in this process, thinking in a pool of ``threads`` threads."""

    def __init__(self, threads: int = 8, agents_module: str | None = None):
        agent_kinds()  # load the built-in kinds now: loading them from two threads at once races
        if agents_module:
            importlib.import_module(agents_module)
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="folkcards-bot")
        self._agents: dict[Key, Any] = {}
        self._lock = threading.Lock()

    def _run(self, function: Any, *args: Any) -> Future:
        def call() -> Any:
            try:
                return function(*args)
            except Exception as exc:
                raise _describe(exc) from exc

        return self._pool.submit(call)

    def make(self, key: Key, spec: str, game: str, seed: int, players: int) -> Future:
        def build() -> None:
            agent = build_agent(spec, game, key[1], seed, players)
            with self._lock:
                self._agents[key] = agent

        return self._run(build)

    def act(self, key: Key, observation: dict[str, Any]) -> Future:
        return self._run(lambda: int(self._agents[key].act(observation)))

    def drop(self, game_id: str) -> None:
        with self._lock:
            for key in [k for k in self._agents if k[0] == game_id]:
                del self._agents[key]

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _worker_main(
    requests: Any, replies: Any, agents_module: str | None, niceness: int = WORKER_NICENESS
) -> None:
    """A worker process: builds agents and answers their moves until told ``None``."""
    with contextlib.suppress(OSError):
        os.nice(niceness)
    agent_kinds()
    if agents_module:
        importlib.import_module(agents_module)
    agents: dict[Key, Any] = {}
    while True:
        message = requests.get()
        if message is None:
            return
        op, request_id, key, payload = message
        if op == "drop":
            for k in [k for k in agents if k[0] == key]:
                del agents[k]
            continue
        try:
            if op == "make":
                spec, game, seed, players = payload
                agents[key] = build_agent(spec, game, key[1], seed, players)
                result = None
            elif key not in agents:
                raise BotError("this game's agents are gone (their worker was restarted)")
            else:
                result = int(agents[key].act(payload))
            replies.put((request_id, True, result))
        except Exception as exc:
            error = _describe(exc)
            replies.put((request_id, False, (str(error)[:300], error.bad_spec)))


def _settle(future: Future, result: Any = None, error: BaseException | None = None) -> None:
    """Complete ``future`` unless the table already gave up on it (cancelled it)."""
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass


class ProcessBots:
    """Agents in ``workers`` worker processes; each game's agents stay in one process."""

    def __init__(
        self, workers: int = 2, agents_module: str | None = None, niceness: int = WORKER_NICENESS
    ):
        if workers < 1:
            raise ValueError(f"bot workers must be at least 1, got {workers}")
        if not 0 <= niceness <= 19:
            raise ValueError(f"the workers' niceness must be 0 to 19, got {niceness}")
        self.workers = workers
        self.niceness = niceness
        self.agents_module = agents_module
        if agents_module:
            importlib.import_module(agents_module)  # fail here, not in a worker
        self._context = multiprocessing.get_context("spawn")
        self._started = False
        self._closing = False
        self._start_lock = threading.Lock()
        self._futures: dict[int, tuple[Future, int]] = {}  # request id: (future, worker)
        self._futures_lock = threading.Lock()
        self._ids = itertools.count()
        self._assigned: dict[str, int] = {}
        self._next_worker = itertools.cycle(range(workers))
        self._requests: list[Any] = []
        self._processes: list[Any] = []
        self._replies: Any = None
        self._reader: threading.Thread | None = None

    def _start(self) -> None:
        """Start the workers on first use (a server that only replays never starts them)."""
        with self._start_lock:
            if self._started:
                return
            self._replies = self._context.Queue()
            for _ in range(self.workers):
                requests, process = self._spawn()
                self._requests.append(requests)
                self._processes.append(process)
            self._reader = threading.Thread(target=self._read, daemon=True, name="bot-replies")
            self._reader.start()
            self._started = True

    def _spawn(self) -> tuple[Any, Any]:
        requests = self._context.Queue()
        process = self._context.Process(
            target=_worker_main,
            args=(requests, self._replies, self.agents_module, self.niceness),
            daemon=True,
            name="folkcards-bots",
        )
        process.start()
        return requests, process

    def _revive(self, worker: int) -> list[Future]:
        """Replace a worker process that died (its games' agents are lost; call with
        ``_futures_lock`` held); the futures it held, to be failed once the lock is released."""
        log.error(
            "agent worker %d stopped (exit code %s); starting another",
            worker,
            self._processes[worker].exitcode,
        )
        self._requests[worker].close()
        self._requests[worker], self._processes[worker] = self._spawn()
        lost = [rid for rid, (_, w) in self._futures.items() if w == worker]
        return [self._futures.pop(request_id)[0] for request_id in lost]

    def _read(self) -> None:
        """Hand the workers' answers to their futures; about once a second, replace a worker
        that died (failing the requests it held)."""
        checked = time.monotonic()
        while True:
            try:
                reply = self._replies.get(timeout=1.0)
            except queue.Empty:
                reply = ()
            except (EOFError, OSError, ValueError):
                return
            if reply is None:
                return
            if time.monotonic() - checked > 1.0:
                checked = time.monotonic()
                lost: list[Future] = []
                with self._futures_lock:
                    for worker, process in enumerate(self._processes):
                        if self._started and not self._closing and not process.is_alive():
                            lost += self._revive(worker)
                for future in lost:
                    _settle(future, error=BotError(WORKER_STOPPED))
            if not reply:
                continue
            request_id, ok, result = reply
            with self._futures_lock:
                entry = self._futures.pop(request_id, None)
            if entry is None:  # the table stopped waiting (its time budget ran out)
                continue
            if ok:
                _settle(entry[0], result=result)
            else:
                _settle(entry[0], error=BotError(result[0], bad_spec=result[1]))

    def _send(self, op: str, key: Key, payload: Any) -> Future:
        self._start()
        future: Future = Future()
        request_id = next(self._ids)
        lost: list[Future] = []
        with self._futures_lock:
            worker = self._assigned.setdefault(key[0], next(self._next_worker))
            if not self._processes[worker].is_alive():
                lost = self._revive(worker)
                if op == "act":  # this game's agents died with the worker
                    lost.append(future)
            if future not in lost:
                self._futures[request_id] = (future, worker)
        for stopped in lost:
            _settle(stopped, error=BotError(WORKER_STOPPED))
        if future in lost:
            return future
        future.add_done_callback(lambda _f: self._forget(request_id))
        self._requests[worker].put((op, request_id, key, payload))
        return future

    def _forget(self, request_id: int) -> None:
        with self._futures_lock:
            self._futures.pop(request_id, None)

    def make(self, key: Key, spec: str, game: str, seed: int, players: int) -> Future:
        return self._send("make", key, (spec, game, seed, players))

    def act(self, key: Key, observation: dict[str, Any]) -> Future:
        return self._send("act", key, observation)

    def drop(self, game_id: str) -> None:
        with self._futures_lock:
            worker = self._assigned.pop(game_id, None)
        if worker is not None:
            self._requests[worker].put(("drop", -1, game_id, None))

    def close(self) -> None:
        if not self._started:
            return
        self._closing = True  # workers that now exit are not replaced
        for requests in self._requests:
            requests.put(None)
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self._replies.put(None)
        if self._reader is not None:
            self._reader.join(timeout=5)
        for q in (*self._requests, self._replies):
            q.close()
        self._requests, self._processes = [], []
        self._started = self._closing = False


__all__ = ["BotError", "ProcessBots", "ThreadBots", "build_agent"]
