"""The wheel's package list is found, not written by hand: every folder with Python
files or package data under the folders pyproject.toml maps becomes a package. The full check
(build the wheel, install it in a clean venv, play every game) is scripts/wheel_check.sh."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from folkcards.envs.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]


def _setup_module():
    spec = importlib.util.spec_from_file_location("_folkcards_setup", ROOT / "setup.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not as __main__: setup() is not called
    return module


def _expected() -> set[str]:
    """Every mapped folder and every folder below it holding a .py file or package data."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    data = {package for package in config["package-data"]}
    names = set()
    for package, folder in config["package-dir"].items():
        base = ROOT / folder
        names.add(package)
        for path in base.rglob("*"):
            if path.is_dir() and "__pycache__" not in path.parts:
                name = ".".join([package, *path.relative_to(base).parts])
                if any(path.glob("*.py")) or name in data:
                    names.add(name)
    return names


def test_every_package_and_data_folder_is_found():
    found = set(_setup_module().discover_packages())
    assert _expected() <= found
    assert not any("__pycache__" in name for name in found)


def test_every_registered_game_module_is_in_a_found_package():
    found = set(_setup_module().discover_packages())
    for spec in GAMES.values():
        assert spec.module.rpartition(".")[0] in found, spec.module
    assert "folkcards.envs.paston_bidding" in found  # the package the hand-written list missed


def test_test_oracles_are_not_shipped():
    found = set(_setup_module().discover_packages())
    assert not (ROOT / "envs" / "paston" / "solver_reference.py").exists()
    assert not any(name.startswith("tests") for name in found)


def test_the_version_is_the_installed_metadata_and_pyproject_s():
    """`folkcards --version` prints the installed metadata's version, which is pyproject.toml's
    (reinstall after changing it); CITATION.cff cites the same version."""
    import folkcards

    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert folkcards.__version__ == importlib.metadata.version("folkcards") == wanted
    result = subprocess.run(
        [sys.executable, "-m", "folkcards", "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == f"folkcards {wanted}", result
    citation = (ROOT / "CITATION.cff").read_text()
    assert f'\nversion: "{wanted}"\n' in citation


@pytest.mark.parametrize("command", [["-m", "folkcards", "--version"], ["-c", "import folkcards"]])
def test_the_source_folder_without_an_install_is_refused_in_one_line(command):
    """Python started in the repository folder finds its top-level folkcards/ first; without an
    editable install (here: no site-packages at all, -S) that folder lacks the subpackages, and
    importing it says so, in one line for `python -m folkcards`."""
    result = subprocess.run(
        [sys.executable, "-S", *command], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert "without an editable install: run `pip install -e .`" in last, result.stderr
    if command[0] == "-m":
        assert result.stderr.strip() == last and last.startswith("error: folkcards is imported")
    else:
        assert last.startswith("ImportError: folkcards is imported from its source folder")
