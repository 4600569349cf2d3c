"""Speed of the batched engines, side by side with the AEC envs, in one run.

Random legal play with observations: every step draws a uniformly random legal action for each
game from its mask (in compiled code, ``random_legal_actions``), and the engine returns every
game's next observation, mask and player. Prints steps/s (wall clock) and steps per CPU-second
(all threads) for each batch size, the bytes of state per game, and the AEC env's steps/s
playing the same way (``observe`` + a mask-sampled action + ``step``). Pgx's CPU Leduc hold'em
batch is measured too when ``pgx`` is installed (it needs jax; skipped with a message if not).

    python benchmarks/batched_speed.py --seconds 3 --sizes 1 16 256 4096

The machine's load average is printed with the table: other processes on the same cores lower
the wall-clock figures (steps per CPU-second are less affected).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np


def run_batched(game: str, num_envs: int, players: int, seconds: float, seed: int) -> dict:
    """Random legal play on ``num_envs`` games for about ``seconds``."""
    import importlib

    batched = importlib.import_module(f"folkcards.envs.{game}.batched")
    random_legal_actions, seed_states = batched.random_legal_actions, batched.seed_states
    if game == "paston":
        vec = batched.vector_env(num_envs)
    else:
        vec = batched.vector_env(num_envs, num_players=players)
    obs, mask, player = vec.reset(seed=seed)
    rng = seed_states(seed + 1, num_envs)
    actions = np.zeros(num_envs, dtype=np.int64)
    for _ in range(3):  # warm-up: compiled code loaded, threads started
        random_legal_actions(mask, rng, actions)
        obs, mask, player, *_ = vec.step(actions)
    steps = episodes = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while time.perf_counter() < deadline:
        for _ in range(max(1, 256 // num_envs)):
            random_legal_actions(mask, rng, actions)
            obs, mask, player, rewards, terminated, truncated, infos = vec.step(actions)
            episodes += len(infos)
            steps += num_envs
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    return {
        "steps_per_s": steps / wall,
        "steps_per_cpu_s": steps / cpu if cpu > 0 else float("nan"),
        "episodes_per_s": episodes / wall,
        "state_bytes": vec.state_bytes_per_game,
        "output_bytes": vec.output_bytes_per_game,
    }


def run_aec(game: str, players: int, seconds: float, seed: int) -> float:
    """Steps/s of the AEC env (raw_env) in random legal play with observations."""
    if game == "paston":
        from folkcards.envs.paston.env import raw_env

        env = raw_env()
    else:
        from folkcards.envs.tri_palki.env import raw_env as tri_palki_raw_env

        env = tri_palki_raw_env(num_players=players)
    rng = np.random.default_rng(seed)
    steps = 0
    episode_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=episode_seed)
        episode_seed += 1
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            observed = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(observed["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - start)


def run_pgx(num_envs: int, seconds: float, seed: int) -> float | None:
    """Steps/s of Pgx's Leduc hold'em batch on the CPU, or ``None`` if pgx is not installed."""
    try:
        import jax
        import pgx
    except ImportError:
        return None
    from pgx.experimental import auto_reset

    env = pgx.make("leduc_holdem")
    init = jax.jit(jax.vmap(env.init))
    # finished games dealt again inside the step, as our engines do
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

    def act(key: Any, mask: Any) -> Any:
        logits = jax.numpy.where(mask, 0.0, -jax.numpy.inf)
        return jax.random.categorical(key, logits, axis=-1)

    act_jit = jax.jit(act)
    key = jax.random.PRNGKey(seed)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, num_envs))
    for _ in range(2):  # compile outside the clock
        key, k1, k2 = jax.random.split(key, 3)
        state = step(state, act_jit(k1, state.legal_action_mask), jax.random.split(k2, num_envs))
    state.observation.block_until_ready()
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        key, k1, k2 = jax.random.split(key, 3)
        action = act_jit(k1, state.legal_action_mask)
        state = step(state, action, jax.random.split(k2, num_envs))
        state.observation.block_until_ready()
        steps += num_envs
    return steps / (time.perf_counter() - start)


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in rows
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[1, 16, 256, 4096], help="batch sizes N"
    )
    parser.add_argument(
        "--games", nargs="+", default=["paston", "tri_palki"], choices=["paston", "tri_palki"]
    )
    parser.add_argument("--players", type=int, default=4, help="Tri Palki players (2-11)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and actions")
    parser.add_argument("--no-aec", action="store_true", help="skip the AEC env measurement")
    parser.add_argument("--no-pgx", action="store_true", help="skip the Pgx measurement")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.sizes) or args.seconds <= 0:
        parser.error("--sizes must be positive and --seconds above 0")
    if not 2 <= args.players <= 11:
        parser.error("--players must be from 2 to 11")

    rows = [["engine", "N", "steps/s", "steps/CPU-s", "episodes/s", "vs AEC", "state B/game",
             "outputs B/game"]]  # fmt: skip
    for game in args.games:
        label = game if game == "paston" else f"tri_palki {args.players}p"
        aec: float | None = None
        if not args.no_aec:
            aec = run_aec(game, args.players, args.seconds, args.seed)
            rows.append([f"{label} AEC raw_env", "1", f"{aec:,.0f}", "", "", "1.0x", "", ""])
        for n in args.sizes:
            result = run_batched(game, n, args.players, args.seconds, args.seed)
            ratio = f"{result['steps_per_s'] / aec:,.0f}x" if aec else ""
            rows.append(
                [
                    f"{label} batched",
                    str(n),
                    f"{result['steps_per_s']:,.0f}",
                    f"{result['steps_per_cpu_s']:,.0f}",
                    f"{result['episodes_per_s']:,.0f}",
                    ratio,
                    str(result["state_bytes"]),
                    str(result["output_bytes"]),
                ]
            )
    pgx_note = ""
    if not args.no_pgx:
        for n in args.sizes:
            rate = run_pgx(n, args.seconds, args.seed)
            if rate is None:
                pgx_note = "Pgx: not installed (pip install pgx, which needs jax); skipped."
                break
            rows.append(["pgx leduc_holdem (CPU)", str(n), f"{rate:,.0f}", "", "", "", "", ""])
    print(_table(rows))
    if pgx_note:
        print(pgx_note)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cores: {cores}; load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
