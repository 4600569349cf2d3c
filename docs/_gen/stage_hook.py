"""mkdocs hook: lay out ``build/docs_src/folkcards`` before mkdocstrings reads its search paths.

mkdocstrings resolves the source paths of ``mkdocs.yml`` when the build starts; the staged tree
(links laid out as the installed package, see ``api_pages.py``) must exist by then.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority


@event_priority(100)  # before mkdocstrings sets up its handlers
def on_config(config: Any) -> Any:
    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location("_folkcards_stage", here / "stage.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.stage_sources()
    return config
