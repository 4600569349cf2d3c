"""Run inside the wheel's clean virtual environment by ``scripts/wheel_check.sh``.

Imports every registered game through ``pettingzoo.make("aec", spec.env_id)``, plays one random
episode of each, and checks that folkcards and every game module come from the installed wheel
(not from a source tree) and that the package data (trained models, web page) is installed.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import folkcards.envs  # registers the envs with PettingZoo
import numpy as np
import pettingzoo
from folkcards.envs.registry import GAMES

import folkcards

PACKAGE_DATA = {
    "folkcards.agents.models": ("*.zip", "*.json"),
    "folkcards.web.static": ("index.html", "app.js", "style.css"),
}


def _installed(path: str | None, prefix: Path) -> bool:
    return path is not None and Path(path).resolve().is_relative_to(prefix)


def random_episode(env_id: str, seed: int) -> int:
    """Play one episode of ``env_id`` with random legal actions; return the number of steps."""
    env = pettingzoo.make("aec", env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    if steps == 0:
        raise SystemExit(f"{env_id}: the episode ended without a single decision")
    return steps


def main() -> int:
    prefix = Path(sys.prefix).resolve()
    problems: list[str] = []
    if not _installed(folkcards.__file__, prefix):
        problems.append(f"folkcards imported from {folkcards.__file__}, not from {prefix}")
    for name, spec in GAMES.items():
        try:
            module = importlib.import_module(spec.module)
            if not _installed(module.__file__, prefix):
                problems.append(f"{name}: {spec.module} imported from {module.__file__}")
            steps = random_episode(spec.env_id, seed=0)
        except Exception as exc:  # every game is checked; each failure is one line
            problems.append(f"{name}: pettingzoo.make('aec', {spec.env_id!r}) failed: {exc!r}")
            continue
        print(f"{name}: {spec.env_id} from the wheel, a random episode of {steps} decisions")
    for package, patterns in PACKAGE_DATA.items():
        folder = Path(folkcards.__file__).parent.joinpath(*package.split(".")[1:])
        for pattern in patterns:
            if not any(folder.glob(pattern)):
                problems.append(f"package data missing from the wheel: {package}/{pattern}")
    for problem in problems:
        print(f"wheel check: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
