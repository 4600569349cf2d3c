"""One line on stderr when numba actually compiles a cached kernel (a cache miss).

The first use of the solver, a batched engine or a numba heuristic compiles its kernels for
10-25 s; later processes load them from the disk cache in a second or two. Every module that
defines cached kernels calls :func:`install`, so a process that has to compile says so once::

    folkcards: compiling numba kernels (first use of folkcards.search.paston_solver, cached
    afterwards in ~/.cache/folkcards/numba) ...

Nothing is printed when the kernels load from the cache, nor for kernels without a disk cache,
nor with ``FOLKCARDS_COMPILE_NOTICE=0`` in the environment (the test suite sets it).
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

_LOCK = threading.Lock()
_installed = False
_said = False


def _announce(data: dict[str, Any]) -> None:
    global _said
    if os.environ.get("FOLKCARDS_COMPILE_NOTICE", "1") == "0":
        return
    dispatcher = data.get("dispatcher")
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or type(cache).__name__ == "NullCache":  # not a disk-cached kernel
        return
    with _LOCK:
        if _said:
            return
        _said = True
    from numba.core import config

    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "?")
    print(
        f"folkcards: compiling numba kernels (first use of {module}, cached afterwards in "
        f"{getattr(config, 'CACHE_DIR', 'the numba cache')}) ...",
        file=sys.stderr,
        flush=True,
    )


def install() -> None:
    """Listen for numba's compile events in this process (once; cheap to call again)."""
    global _installed
    with _LOCK:
        if _installed:
            return
        _installed = True
    from numba.core import event

    class _Notice(event.Listener):
        def on_start(self, ev: Any) -> None:
            _announce(ev.data or {})

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _Notice())


__all__ = ["install"]
