"""folkcards: Paston and Tri Palki as reinforcement-learning environments.

The subpackages, from the bottom layer up: ``folkcards.envs`` (the PettingZoo environments, the
batched engines, the game registry and text records), ``folkcards.search`` (belief sampling and
the Paston open-hand solver), ``folkcards.agents`` (random, heuristic, PPO, search and RLlib
players, and the one episode loop), ``folkcards.train`` (SB3 and RLlib training),
``folkcards.evaluate`` (tournaments and reports), ``folkcards.play`` (terminal play and
``watch``) and ``folkcards.web`` (the web table).
"""

import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

# numba's disk cache of the compiled kernels goes to the user's cache directory, not the source
# tree: NUMBA_CACHE_DIR when set, else $XDG_CACHE_HOME/folkcards/numba (~/.cache/folkcards/numba)
os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "folkcards" / "numba"),
)

try:
    __version__ = version("folkcards")
except PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0.3.0"
