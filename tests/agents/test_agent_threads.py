"""Agents built from many threads at once all find the built-in kinds (the web table builds
agents in parallel; a half-registered set once answered "unknown agent 'heuristic'")."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
from concurrent.futures import ThreadPoolExecutor
from folkcards.agents import make_agent

specs = ["heuristic", "random", "pimc", "heuristic"] * 8
with ThreadPoolExecutor(16) as pool:
    built = list(pool.map(lambda spec: type(make_agent(spec, "paston")).__name__, specs))
print(len(built))
"""


def test_parallel_first_builds_see_every_built_in_kind():
    for _ in range(3):  # a fresh interpreter each time: the first build is the racy one
        run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-1000:]
        assert run.stdout.strip() == "32"
