"""Writes one API page per public module of folkcards (run by mkdocs-gen-files at build time).

mkdocstrings reads sources from a tree laid out as the installed package is: the repository maps
its top-level folders onto subpackages (``envs/`` is ``folkcards.envs``), which a source reader
cannot follow, so ``build/docs_src/folkcards`` is made anew of links to the repository's files.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import mkdocs_gen_files

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
STAGE = ROOT / "build" / "docs_src" / "folkcards"

_spec = importlib.util.spec_from_file_location("_folkcards_modules", HERE / "modules.py")
assert _spec and _spec.loader
modules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(modules)


def stage_sources() -> None:
    """``build/docs_src/folkcards``: links laid out as the installed package."""
    shutil.rmtree(STAGE, ignore_errors=True)
    STAGE.mkdir(parents=True)
    for entry in (ROOT / "folkcards").iterdir():
        if entry.suffix == ".py":
            os.symlink(entry, STAGE / entry.name)
    for sub in modules.SUBPACKAGES:
        os.symlink(ROOT / sub, STAGE / sub, target_is_directory=True)


def main() -> None:
    stage_sources()
    nav = mkdocs_gen_files.Nav()
    for name in modules.public_modules():
        parts = tuple(name.split(".")[1:]) or ("folkcards",)
        path = Path("api", *parts).with_suffix(".md")
        nav[(name,) if parts == ("folkcards",) else tuple(name.split(".")[1:])] = path.relative_to(
            "api"
        ).as_posix()
        with mkdocs_gen_files.open(path, "w") as page:
            page.write(f"::: {name}\n")
    with mkdocs_gen_files.open("api/SUMMARY.md", "w") as summary:
        summary.writelines(nav.build_literate_nav())


main()
