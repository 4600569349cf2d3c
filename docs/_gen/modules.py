"""The public modules of folkcards: those with no part of their dotted name starting with ``_``.

Found by walking the installed package, so a new module is listed without an edit here; the API
pages (``api_pages.py``) and the test that every public module has one read this list.
"""

from __future__ import annotations

import importlib
import pkgutil

SUBPACKAGES = ("envs", "search", "agents", "train", "evaluate", "play", "web")


def public_modules() -> list[str]:
    """Every public module of the folkcards package, sorted by dotted name."""
    names = {"folkcards"}
    top = importlib.import_module("folkcards")
    for info in pkgutil.iter_modules(top.__path__, prefix="folkcards."):
        if not info.name.rsplit(".", 1)[1].startswith("_"):
            names.add(info.name)
    for sub in SUBPACKAGES:
        package = importlib.import_module(f"folkcards.{sub}")
        names.add(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
            if not any(part.startswith("_") for part in info.name.split(".")):
                names.add(info.name)
    return sorted(names)
