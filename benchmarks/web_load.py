"""Load on the web table: many people playing at once, response times of moves and reads.

Starts ``folkcards serve`` in a subprocess on 127.0.0.1 (a fresh store in a temporary folder) and
plays simulated people against it over HTTP (httpx, asyncio), in phases:

- ``fast``: ``--fast-people`` people (default 50) against heuristic and random agents, half
  Paston, half Tri Palki at 4; each thinks ``--think`` seconds (uniform, default 1 to 3) before
  a move;
- ``pimc``: ``--pimc-people`` people (default 10) at Paston against two ``pimc`` agents.

Every request is timed on the client: ``move`` (POST move, which waits up to 1 s for the
agents' answer), ``new`` (POST games) and ``read`` (GET of a game, the page's polling while its
agents think). A separate prober process, one request at a time every 50 ms, times ``probe-meta``
(``/api/meta``), ``probe-thinking`` (a game read while its agents were thinking: answered
``waiting``) and ``probe-game`` (the other unfinished games). Server, agents' workers,
simulated browsers and prober all share this machine's cores. ``--compare-threads`` runs the pimc phase again with ``--bot-workers 0`` (the agents
in threads of the server), to show what the worker processes are for.

    python benchmarks/web_load.py                       # about three minutes
    python benchmarks/web_load.py --fast-seconds 20 --pimc-seconds 30 --compare-threads

Loopback only; every loop is bounded by its phase's duration.

Measured 2026-12-01 on the 2-core development machine while other jobs kept its load average at
10-12 (so every figure includes waiting for a core), milliseconds p50 / p90 / p99:

- 50 people vs fast agents: move 53 / 233 / 618, reads of games 0.9 / 8 / 24, meta 2.2 / 10 / 64.
- 10 people vs pimc, agents in 2 worker processes: reads of games whose agents were thinking
  1.4 / 17 / 40 and 3.7 / 21 / 40 (two runs); with the agents in server threads 24 / 68 / 146
  and 7.6 / 40 / 113. Moves against pimc take the 1 s inline wait, then the page polls.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """``folkcards serve`` in a subprocess, stopped on exit."""

    def __init__(self, store: Path, bot_workers: int, move_budget: float, niceness: int = 5):
        self.port = _free_port()
        self.url = f"http://{HOST}:{self.port}"
        command = [
            sys.executable,
            "-m",
            "folkcards.cli",
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--store",
            str(store),
            "--seed",
            "1",
            "--bot-workers",
            str(bot_workers),
            "--move-budget",
            str(move_budget),
            "--bot-niceness",
            str(niceness),
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/meta", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Timings:
    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[int, int] = defaultdict(int)

    async def request(self, kind: str, call) -> httpx.Response | None:
        start = time.perf_counter()
        try:
            response = await call
        except httpx.TransportError:  # counted; the simulated person gives up that game
            self.statuses[0] += 1
            return None
        self.samples[kind].append(time.perf_counter() - start)
        self.statuses[response.status_code] += 1
        return response


async def _person(client, timings, body, until, rng, think, games=None) -> int:
    """Play games until ``until``; the number of moves made. ``games``, if given, holds the
    games in play (id: whether its agents are thinking)."""
    moves = 0
    while time.monotonic() < until:
        response = await timings.request("new", client.post("/api/games", json=body))
        if response is None or response.status_code != 201:
            return moves
        view = response.json()
        while not view["over"] and time.monotonic() < until:
            if games is not None:
                games[view["id"]] = view["waiting"]
            if view["waiting"]:
                await asyncio.sleep(0.2)
                response = await timings.request("read", client.get(f"/api/games/{view['id']}"))
                if response is None:
                    break
                view = response.json()
                continue
            await asyncio.sleep(float(rng.uniform(*think)))
            action = int(rng.choice([m["id"] for m in view["legal"]]))
            response = await timings.request(
                "move",
                client.post(
                    f"/api/games/{view['id']}/move", json={"action": action, "move": view["move"]}
                ),
            )
            if response is None or response.status_code != 200:
                break
            view = response.json()
            moves += 1
        if games is not None:
            games.pop(view["id"], None)
    return moves


def probe(url: str, seconds: float) -> dict[str, list[float]]:
    """Read ``/api/meta`` and every unfinished game every 50 ms, one request at a time, for
    ``seconds`` (run in its own process, so its timings are not the load generator's)."""
    parsed = urlsplit(url)
    connection = http.client.HTTPConnection(parsed.hostname or HOST, parsed.port, timeout=60)
    samples: dict[str, list[float]] = defaultdict(list)

    def get(path: str) -> tuple[float, Any]:
        nonlocal connection
        start = time.perf_counter()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):  # the server closed an idle connection
            connection.close()
            connection = http.client.HTTPConnection(
                parsed.hostname or HOST, parsed.port, timeout=60
            )
            samples["probe-errors"].append(0.0)
            return 0.0, None
        elapsed = time.perf_counter() - start
        return elapsed, json.loads(data) if response.status == 200 else None

    until = time.monotonic() + seconds
    ids: list[str] = []
    refreshed = 0.0
    while time.monotonic() < until:
        time.sleep(0.05)
        if time.monotonic() - refreshed > 1.0:
            _, listed = get("/api/replays")
            if listed is not None:
                ids = [g["id"] for g in listed["human"] if not g["finished"]][-20:]
            refreshed = time.monotonic()
        elapsed, answer = get("/api/meta")
        if answer is not None:
            samples["probe-meta"].append(elapsed)
        for game_id in ids:
            elapsed, view = get(f"/api/games/{game_id}")
            if view is None:
                continue
            samples["probe-thinking" if view["waiting"] else "probe-game"].append(elapsed)
    return samples


async def _phase(url: str, kind: str, people: int, seconds: float, think, seed: int):
    timings = Timings()
    rng = np.random.default_rng(seed)
    limits = httpx.Limits(max_connections=people + 10, max_keepalive_connections=people + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        until = time.monotonic() + seconds
        if kind == "fast":
            bodies = [
                {"game": "paston", "seat": i % 3, "opponents": ["heuristic", "random"]}
                if i % 2 == 0
                else {
                    "game": "tri_palki",
                    "num_players": 4,
                    "seat": i % 4,
                    "opponents": ["heuristic", "random", "heuristic"],
                }
                for i in range(people)
            ]
            tasks = [
                _person(
                    client,
                    timings,
                    bodies[i],
                    until,
                    np.random.default_rng(rng.integers(2**32)),
                    think,
                )
                for i in range(people)
            ]

        else:
            games: dict[str, bool] = {}
            tasks = [
                _person(
                    client,
                    timings,
                    {"game": "paston", "seat": 0, "opponents": ["pimc", "pimc"]},
                    until,
                    np.random.default_rng(rng.integers(2**32)),
                    think,
                    games,
                )
                for _ in range(people)
            ]

        results = await asyncio.gather(*tasks)
    return timings, sum(r for r in results if r)


def _table(title: str, timings: Timings, moves: int, seconds: float) -> str:
    lines = [
        f"{title}: {moves} person moves in {seconds:.0f} s; statuses (0: connection lost) "
        + ", ".join(f"{code}: {n}" for code, n in sorted(timings.statuses.items()))
        + f"; prober reconnects {len(timings.samples.get('probe-errors', []))}",
        f"{'request':<14}{'n':>7}{'p50 ms':>10}{'p90 ms':>10}{'p99 ms':>10}{'max ms':>10}",
    ]
    for kind in ("move", "new", "read", "probe-meta", "probe-game", "probe-thinking"):
        values = np.array(timings.samples.get(kind, [])) * 1000
        if len(values) == 0:
            continue
        p50, p90, p99 = np.percentile(values, [50, 90, 99])
        lines.append(
            f"{kind:<14}{len(values):>7}{p50:>10.1f}{p90:>10.1f}{p99:>10.1f}{values.max():>10.1f}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fast-people", type=int, default=50)
    parser.add_argument("--pimc-people", type=int, default=10)
    parser.add_argument("--fast-seconds", type=float, default=40)
    parser.add_argument("--pimc-seconds", type=float, default=60)
    parser.add_argument(
        "--think", type=float, nargs=2, default=(1.0, 3.0), help="a person's seconds per move"
    )
    parser.add_argument("--bot-workers", type=int, default=2)
    parser.add_argument("--bot-niceness", type=int, default=5)
    parser.add_argument("--only", choices=("fast", "pimc"), help="run one phase")
    parser.add_argument("--compare-threads", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--probe", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--probe-seconds", type=float, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(args.probe, args.probe_seconds)))
        return 0
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; server with "
        f"--bot-workers {args.bot_workers} --bot-niceness {args.bot_niceness}"
    )
    runs = [("fast", args.fast_people, args.fast_seconds, args.bot_workers)]
    runs.append(("pimc", args.pimc_people, args.pimc_seconds, args.bot_workers))
    if args.compare_threads:
        runs.append(("pimc", args.pimc_people, args.pimc_seconds, 0))
    for kind, people, seconds, workers in runs:
        if people <= 0 or seconds <= 0 or (args.only and kind != args.only):
            continue
        with tempfile.TemporaryDirectory() as folder:
            server = Server(
                Path(folder) / "human.sqlite", workers, move_budget=120, niceness=args.bot_niceness
            )
            try:
                server.wait_ready()
                # start the workers (and load the solver) before timing anything
                warm = 15 if kind == "pimc" else 5
                asyncio.run(_phase(server.url, kind, 2, warm, args.think, args.seed + 99))
                prober = subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        "--probe",
                        server.url,
                        "--probe-seconds",
                        str(seconds),
                    ],
                    stdout=subprocess.PIPE,
                )
                timings, moves = asyncio.run(
                    _phase(server.url, kind, people, seconds, args.think, args.seed)
                )
                probed, _ = prober.communicate(timeout=seconds + 120)
                for key, values in json.loads(probed).items():
                    timings.samples[key] = values
            finally:
                server.stop()
        where = f"{workers} worker processes" if workers else "agents in server threads"
        print()
        print(_table(f"{people} people vs {kind} agents ({where})", timings, moves, seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
