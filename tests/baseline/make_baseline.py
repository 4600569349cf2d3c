"""Record the committed PPO players' decisions and a fixed-seed tournament's results, so that
tests/test_baseline.py can show a refactor changed neither.

Run from the repository root: ``python tests/baseline/make_baseline.py``. It was run once on the
code before the architecture refactor (commit c3c8e15 plus the registry); rerunning it on newer
code only overwrites the fixtures with that code's behaviour.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from folkcards.agents import make_agent
from folkcards.envs import paston_v0, tri_palki_v0

HERE = Path(__file__).resolve().parent
DECISIONS = 20_000
# (game, env module, env kwargs, agent specs by seat)
TABLES = {
    "paston": (paston_v0, {}, ["ppo:paston", "ppo:paston", "heuristic"]),
    "tri_palki": (tri_palki_v0, {"num_players": 4}, ["ppo:tri_palki"] * 3 + ["heuristic"]),
}
TOURNAMENTS = {
    "paston": [
        "--game",
        "paston",
        "--agents",
        "ppo:paston",
        "heuristic",
        "random",
        "--deals",
        "40",
        "--seed",
        "11",
    ],
    "tri_palki": [
        "--game",
        "tri_palki",
        "--agents",
        "ppo:tri_palki",
        "heuristic",
        "heuristic",
        "random",
        "--rounds",
        "15",
        "--seed",
        "12",
    ],
}


def record_decisions(game: str) -> dict:
    """Play seeded episodes until the PPO seats have made ``DECISIONS`` decisions."""
    module, kwargs, specs = TABLES[game]
    env = module.raw_env(**kwargs)
    episodes = []
    ppo_decisions = 0
    seed = 0
    while ppo_decisions < DECISIONS:
        agents = {
            name: make_agent(spec, game, name, seed=seed * 10 + i)
            for i, (name, spec) in enumerate(zip(env.possible_agents, specs, strict=True))
        }
        env.reset(seed=seed)
        actions = []
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            action = agents[name].act(observation)
            actions.append(int(action))
            ppo_decisions += specs[env.possible_agents.index(name)].startswith("ppo")
            env.step(action)
        episodes.append({"seed": seed, "actions": actions})
        seed += 1
    return {
        "game": game,
        "env_kwargs": kwargs,
        "specs": specs,
        "episodes": episodes,
        "ppo_decisions": ppo_decisions,
    }


def tournament_scores(args: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "folkcards",
                "tournament",
                *args,
                "--workers",
                "1",
                "--out",
                out,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        results = json.loads((Path(out) / "results.json").read_text())
    return results


def main() -> None:
    for game in TABLES:
        data = record_decisions(game)
        with gzip.open(HERE / f"{game}_decisions.json.gz", "wt") as f:
            json.dump(data, f)
        print(game, data["ppo_decisions"], "PPO decisions in", len(data["episodes"]), "episodes")
    for game, args in TOURNAMENTS.items():
        results = tournament_scores(args)
        (HERE / f"{game}_tournament.json").write_text(
            json.dumps({"args": args, "results": results}, indent=1, sort_keys=True)
        )
        print(game, "tournament stored")


if __name__ == "__main__":
    main()
