"""folkcards: Paston and Tri Palki as reinforcement-learning environments.

The subpackages, from the bottom layer up: ``folkcards.envs`` (the PettingZoo environments, the
batched engines, the game registry and text records), ``folkcards.search`` (belief sampling and
the Paston open-hand solver), ``folkcards.agents`` (random, heuristic, PPO, search and RLlib
players, and the one episode loop), ``folkcards.train`` (SB3 and RLlib training),
``folkcards.evaluate`` (tournaments and reports), ``folkcards.play`` (terminal play and
``watch``) and ``folkcards.web`` (the web table).
"""

import os
import sys
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path

# The repository's top-level folkcards/ folder holds only part of the package (the subpackages are
# the folders beside it, mapped by pyproject.toml). Imported from the repository folder without an
# editable install (e.g. `pip install .` then `python -m folkcards` there), it would shadow the
# installed package and fail later on a missing subpackage: say so in one line instead.
if find_spec("folkcards.envs") is None and (Path(__file__).parents[1] / "envs").is_dir():
    _message = (
        f"folkcards is imported from its source folder {Path(__file__).parents[1]} without an "
        "editable install: run `pip install -e .` there, or run folkcards from another folder"
    )
    if sys.argv[:1] == ["-m"]:  # `python -m folkcards`: a command line, so one line, no traceback
        raise SystemExit(f"error: {_message}")
    raise ImportError(_message)

# numba's disk cache of the compiled kernels goes to the user's cache directory, not the source
# tree: NUMBA_CACHE_DIR when set, else $XDG_CACHE_HOME/folkcards/numba (~/.cache/folkcards/numba)
os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "folkcards" / "numba"),
)

try:
    __version__ = version("folkcards")  # the installed metadata, from pyproject.toml's version
except PackageNotFoundError:  # on the path by other means than an installation
    __version__ = "0+unknown"
