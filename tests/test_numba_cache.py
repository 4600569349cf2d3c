"""Numba's cache goes to the user's cache directory, never into the source tree."""

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


TOY = """
from numba import njit

@njit(cache=True)
def f(x):
    return x + 1

@njit(cache=True)
def g(x):
    return x * 2

@njit
def h(x):
    return x - 1
"""


def _run_toy(tmp_path: Path, calls: str) -> str:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from folkcards.envs import compile_notice; compile_notice.install(); import toy;" + calls
    )
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "FOLKCARDS_COMPILE_NOTICE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stderr


def test_one_line_when_kernels_compile_and_none_from_the_cache(tmp_path: Path):
    """A process that compiles cached kernels says so once on stderr; one that
    loads them from the cache, or compiles only uncached ones, says nothing."""
    (tmp_path / "toy.py").write_text(TOY)
    first = _run_toy(tmp_path, "toy.f(1); toy.g(2); toy.h(3)")
    lines = first.strip().splitlines()
    assert len(lines) == 1, first
    assert lines[0].startswith("folkcards: compiling numba kernels (first use of toy, cached")
    assert str(tmp_path / "cache") in lines[0]
    assert _run_toy(tmp_path, "toy.f(1); toy.g(2)") == ""  # loaded from the cache
    assert _run_toy(tmp_path, "toy.h(3)") == ""  # no disk cache: nothing to announce


def test_every_module_with_kernels_announces_its_compiles():
    """Each module of the package that imports numba installs the notice."""
    modules = [
        p
        for p in SOURCE.rglob("*.py")
        if ".venv" not in p.parts
        and "tests" not in p.parts
        and "from numba import" in p.read_text()
    ]
    assert len(modules) >= 10
    for path in modules:
        assert "_announce_compiles()" in path.read_text(), path
