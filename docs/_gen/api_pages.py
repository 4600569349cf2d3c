"""Writes one API page per public module of folkcards (run by mkdocs-gen-files at build time).

The sources are read from ``build/docs_src`` (``stage.py``, laid out by the ``stage_hook.py``
hook when the build starts).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import mkdocs_gen_files

HERE = Path(__file__).resolve().parent

_spec = importlib.util.spec_from_file_location("_folkcards_modules", HERE / "modules.py")
assert _spec and _spec.loader
modules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(modules)


def main() -> None:
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
