"""The folkcards PettingZoo environments: ``paston_v0`` and ``tri_palki_v0``.

Importing this package registers both with PettingZoo's registry, so
``pettingzoo.make("aec", "folkcards/paston-v0")`` and ``"folkcards/tri_palki-v0"`` work.
"""

from __future__ import annotations

import importlib
from typing import Any

from pettingzoo.env_registry.registration import aec_registry, register

_ENVIRONMENTS = {
    "folkcards/paston-v0": "folkcards.envs.paston_v0:env",
    "folkcards/tri_palki-v0": "folkcards.envs.tri_palki_v0:env",
}

for _env_id, _entry_point in _ENVIRONMENTS.items():
    if _env_id not in aec_registry:
        register("aec", _env_id, entry_point=_entry_point)


def __getattr__(name: str) -> Any:
    # Lazy submodules: `from folkcards.envs import paston_v0` imports only what it needs.
    if name in ("paston_v0", "tri_palki_v0"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["paston_v0", "tri_palki_v0"]
