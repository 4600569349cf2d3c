"""Lays out ``build/docs_src/folkcards`` as the installed package (links to the repository's
files): the repository maps its top-level folders onto subpackages (``envs/`` is
``folkcards.envs``), which mkdocstrings' source reader cannot follow."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / "build" / "docs_src" / "folkcards"
SUBPACKAGES = ("envs", "search", "agents", "train", "evaluate", "play", "web")


def stage_sources() -> None:
    """``build/docs_src/folkcards``: links laid out as the installed package, made anew."""
    shutil.rmtree(STAGE, ignore_errors=True)
    STAGE.mkdir(parents=True)
    for entry in (ROOT / "folkcards").iterdir():
        if entry.suffix == ".py":
            os.symlink(entry, STAGE / entry.name)
    for sub in SUBPACKAGES:
        os.symlink(ROOT / sub, STAGE / sub, target_is_directory=True)
