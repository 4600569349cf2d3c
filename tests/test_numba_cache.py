"""Issue 25 §4: numba's cache goes to the user's cache directory, never into the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import folkcards

SOURCE = Path(__file__).resolve().parents[1]


def _cache_dir(env: dict[str, str]) -> str:
    code = "import folkcards, numba.core.config as c; print(c.CACHE_DIR)"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_cache_goes_to_the_xdg_cache_home(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    assert _cache_dir(env) == str(tmp_path / "folkcards" / "numba")


def test_numba_cache_dir_wins_when_set(tmp_path: Path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "mine")}
    assert _cache_dir(env) == str(tmp_path / "mine")


def test_this_process_caches_outside_the_source_tree():
    assert folkcards  # imported first, as any use of the package
    assert not Path(os.environ["NUMBA_CACHE_DIR"]).resolve().is_relative_to(SOURCE)
