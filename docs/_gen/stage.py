"""Lays out ``build/docs_src/folkcards`` as the installed package (links to the repository's
files): the repository maps its top-level folders onto subpackages (``envs/`` is
``folkcards.envs``), which mkdocstrings' source reader cannot follow."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / "build" / "docs_src" / "folkcards"
_spec = importlib.util.spec_from_file_location(
    "_folkcards_modules", Path(__file__).with_name("modules.py")
)
assert _spec and _spec.loader
_modules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_modules)
SUBPACKAGES = _modules.SUBPACKAGES  # written once, in modules.py


def stage_sources() -> None:
    """``build/docs_src/folkcards``: links laid out as the installed package, made anew."""
    shutil.rmtree(STAGE, ignore_errors=True)
    STAGE.mkdir(parents=True)
    for entry in (ROOT / "folkcards").iterdir():
        if entry.suffix == ".py":
            os.symlink(entry, STAGE / entry.name)
    for sub in SUBPACKAGES:
        os.symlink(ROOT / sub, STAGE / sub, target_is_directory=True)
