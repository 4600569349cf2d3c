"""Worker processes that start safely from any caller, or refuse in one line.

Tournaments play their units in ``spawn`` worker processes (fork is unsafe beside numba's and
torch's threads). Python's spawn start method imports the caller's ``__main__`` script again in
every worker; a script that runs a tournament at its top level, without an
``if __name__ == "__main__":`` guard, would then start a tournament in each worker, and the pool
would replace its failing workers for ever. :func:`check_main_is_importable` refuses that case
before any process starts, with one line that says what to do.
"""

from __future__ import annotations

import ast
import multiprocessing as mp
import sys
from pathlib import Path

GUARD_ADVICE = (
    'put the script\'s code under `if __name__ == "__main__":` (each worker process imports '
    "the script again), or use one worker"
)


def _has_main_guard(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True  # not ours to judge
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            names = [node.test.left, *node.test.comparators]
            texts = {n.id if isinstance(n, ast.Name) else getattr(n, "value", None) for n in names}
            if {"__name__", "__main__"} <= texts:
                return True
    return False


def check_main_is_importable() -> None:
    """``RuntimeError`` (one line) if spawned workers would re-run the caller's script.

    Raised inside a worker that is importing the main script (the tournament was started at the
    script's top level), and in the parent when the main script has no ``__main__`` guard.
    """
    if getattr(mp.process.current_process(), "_inheriting", False):
        raise RuntimeError(f"worker processes cannot start: {GUARD_ADVICE}")
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(main, "__spec__", None) is not None:
        return  # an interactive session, python -c, or python -m (a module, importable as such)
    try:
        source = Path(path).read_text()
    except OSError:
        return
    if not _has_main_guard(source):
        raise RuntimeError(f"worker processes cannot start from {Path(path).name}: {GUARD_ADVICE}")
