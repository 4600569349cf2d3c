"""Check the import contracts of pyproject.toml (``[tool.importlinter]``) on folkcards as installed.

The source folders (``envs``, ``agents``, …) become ``folkcards.envs``, ``folkcards.agents`` … only
through ``package-dir``, which import-linter cannot see in a checkout, so this stages a copy of the
Python files in the installed layout and runs ``lint-imports`` on it. Imports written as strings
(the registry's ``"module:attr"`` hooks, loaded with importlib) are late-bound and not checked.

    .venv/bin/python scripts/lint_imports.py
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent


def stage(target: Path) -> None:
    """Copy every ``.py`` file of the mapped folders to ``target`` in the installed layout."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        source = REPO / folder
        for path in source.rglob("*.py"):
            destination = target.joinpath(*package.split("."), path.relative_to(source))
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)


def main() -> int:
    from importlinter.cli import lint_imports

    with tempfile.TemporaryDirectory(prefix="folkcards-imports-") as tmp:
        stage(Path(tmp))
        # lint-imports puts the working directory first on sys.path: the staged copy, not the
        # checkout's own folkcards/ folder (and ahead of the editable install's finder)
        os.chdir(tmp)
        return lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True)


if __name__ == "__main__":
    raise SystemExit(main())
