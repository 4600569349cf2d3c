"""The wheel's package list is found, not written by hand: every folder with Python
files or package data under the folders pyproject.toml maps becomes a package. The full check
(build the wheel, install it in a clean venv, play every game) is scripts/wheel_check.sh."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import io
import subprocess
import sys
import tarfile
import zipfile
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


def _dist_check():
    spec = importlib.util.spec_from_file_location("_dist_check", ROOT / "scripts" / "dist_check.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wheel(path: Path, names: list[str]) -> str:
    with zipfile.ZipFile(path, "w") as wheel:
        for name in [*names, "folkcards-0.5.0.dist-info/RECORD"]:
            wheel.writestr(name, "x")
    return str(path)


def _sdist(path: Path, names: list[str]) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name in names:
            data = b"x"
            info = tarfile.TarInfo(f"folkcards-0.5.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def test_the_dist_check_finds_an_incomplete_sdist(tmp_path):
    """scripts/wheel_check.sh's comparison: a file of the tree's wheel missing from the sdist's
    wheel, or a project file missing from the sdist, is reported; equal contents pass."""
    check = _dist_check()
    project = ["pyproject.toml", "setup.py", "README.md", "LICENSE", "agents/models/a.zip"]
    sdist = _sdist(tmp_path / "s.tar.gz", project)
    tree = _wheel(tmp_path / "tree.whl", ["folkcards/__init__.py", "folkcards/agents/models/a.zip"])
    same = _wheel(tmp_path / "same.whl", ["folkcards/__init__.py", "folkcards/agents/models/a.zip"])
    short = _wheel(tmp_path / "short.whl", ["folkcards/__init__.py"])
    assert check.compare(sdist, same, tree) is None
    assert "lacks 1 files" in check.compare(sdist, short, tree)
    bare = _sdist(tmp_path / "bare.tar.gz", ["pyproject.toml", "setup.py"])
    assert "['LICENSE', 'README.md']" in check.compare(bare, same, tree)


def test_the_dist_check_reads_the_readme_s_first_python_example(tmp_path):
    check = _dist_check()
    page = tmp_path / "README.md"
    page.write_text(
        "# x\n\n```bash\npip install folkcards\n```\n\n```python\nprint(1)\n```\n\n"
        "```python\nprint(2)\n```\n"
    )
    assert check.first_python_example(page) == "print(1)\n"
    assert check.first_python_example(ROOT / "README.md").strip()  # the real README has one
    page.write_text("no example\n")
    with pytest.raises(SystemExit):
        check.first_python_example(page)
