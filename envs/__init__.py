"""The folkcards PettingZoo environments, one per game of :mod:`folkcards.envs.registry`
(``paston_v0``, ``tri_palki_v0``, ``paston_bidding_v0``).

Importing this package registers every game of the registry with PettingZoo's registry, so
``pettingzoo.make("aec", "folkcards/paston-v0")``, ``"folkcards/tri_palki-v0"`` and
``"folkcards/paston-bidding-v0"`` work.
"""

from __future__ import annotations

import importlib
from typing import Any

from pettingzoo.env_registry.registration import aec_registry, register

from .registry import GAMES

for _spec in GAMES.values():
    if _spec.env_id not in aec_registry:
        register("aec", _spec.env_id, entry_point=f"{_spec.module}:env")

_MODULES = {spec.module.rsplit(".", 1)[1] for spec in GAMES.values()}


def __getattr__(name: str) -> Any:
    # Lazy submodules: `from folkcards.envs import paston_v0` imports only what it needs.
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_MODULES)
