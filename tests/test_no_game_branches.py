"""Generic code never tests a game's name: it asks the registry.

Every module of the package outside the games' own modules is parsed, and a comparison with a
registered game's name (``game == "paston"``, ``game in ("paston", ...)``) or a table keyed by
one (``{"paston": ...}``) fails the test with the file and line. The games' own modules are
the registry, ``envs/<game>/``, ``envs/<game>_v0.py`` and the modules named after a game
(``agents/paston_heuristic.py``, ``play/tri_palki_view.py`` …), plus Paston's search agent
``agents/pimc.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from folkcards.envs.registry import GAME_NAMES

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("envs", "search", "agents", "train", "evaluate", "play", "web", "folkcards")
OWN = {"envs/registry.py", "agents/pimc.py"}


def _own(path: Path) -> bool:
    relative = path.relative_to(ROOT).as_posix()
    parts = relative.split("/")
    if relative in OWN:
        return True
    return any(part.startswith(game) for part in parts[1:] for game in GAME_NAMES)


def _names(node: ast.AST) -> list[str]:
    """The game names among the string constants of ``node`` (a tuple, list or set included)."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [
        item.value
        for item in items
        if isinstance(item, ast.Constant) and isinstance(item.value, str)
        if item.value in GAME_NAMES
    ]


def _branches(source: str, label: str) -> list[str]:
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            names = [n for side in (node.left, *node.comparators) for n in _names(side)]
        elif isinstance(node, ast.Dict):
            names = [n for key in node.keys if key is not None for n in _names(key)]
        else:
            continue
        if names:
            found.append(f"{label}:{node.lineno} tests {names[0]!r}")
    return found


def test_generic_modules_never_test_a_game_name():
    files = [p for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))]
    assert len(files) > 50
    found = [
        line
        for path in files
        if not _own(path)
        for line in _branches(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, "a generic module branches on a game's name:\n" + "\n".join(found)


def test_the_check_sees_a_branch():
    source = 'def f(game):\n    return 1 if game in ("x", "paston") else {"tri_palki": 2}\n'
    assert _branches(source, "probe.py") == [
        "probe.py:2 tests 'paston'",
        "probe.py:2 tests 'tri_palki'",
    ]
    assert not _branches('GAME = "paston"\nf(game="tri_palki")\n', "probe.py")
    assert _own(ROOT / "play" / "tri_palki_view.py") and not _own(ROOT / "play" / "watch.py")
