"""The registry's hooks under the import contracts.

A hook (``"module:attr"``) is an import written as a string: import-linter cannot see it. Every
hook of every game must point into the layer ``HOOK_LAYERS`` names for its piece, that layer must
be one of the layers contract of ``pyproject.toml``, and generic code must reach a hook's object
only through the registry (no module imports it by name but its own).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
import tomllib
from folkcards.envs.registry import GAMES, HOOK_LAYERS, PIECES, GameSpec

REPO = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def contract_layers() -> list[str]:
    """The top-level subpackages of the layers contract, highest first (``a : b`` and ``a | b``
    split)."""
    (contract,) = [
        c
        for c in CONFIG["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and c["containers"] == ["folkcards"]
    ]
    names = []
    for layer in contract["layers"]:
        names += [n.strip() for part in layer.split("|") for n in part.split(":")]
    return names


def hooks(spec: GameSpec) -> list[tuple[str, str]]:
    """(field, hook) of every hook a game names."""
    out = []
    for field in dataclasses.fields(spec):
        value = getattr(spec, field.name)
        values = value if isinstance(value, tuple) else (value,)
        out += [
            (field.name, v) for v in values if isinstance(v, str) and v.startswith("folkcards.")
        ]
    return out


def hook_problems(spec: GameSpec) -> list[str]:
    """Each hook of ``spec`` outside the layer its piece belongs to."""
    problems = []
    for field, hook in hooks(spec):
        module = hook.partition(":")[0]
        layer = module.split(".")[1]
        allowed = HOOK_LAYERS.get(field)
        if allowed is None:
            problems.append(f"{spec.name}.{field}: no layer in HOOK_LAYERS")
        elif layer != allowed:
            problems.append(f"{spec.name}.{field} = {hook!r} is in {layer}, not {allowed}")
    return problems


def test_every_piece_has_a_layer_of_the_contract() -> None:
    layers = contract_layers()
    assert set(PIECES) <= set(HOOK_LAYERS)
    assert set(HOOK_LAYERS.values()) <= set(layers)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_hook_points_into_its_layer(name: str) -> None:
    spec = GAMES[name]
    assert hooks(spec), "the scan finds the hooks"
    assert hook_problems(spec) == []
    spec.check_pieces()  # and resolves


def test_a_hook_in_the_wrong_layer_is_caught() -> None:
    spec = dataclasses.replace(GAMES["paston"], web_view="folkcards.envs.notation:PASTON_TEXT")
    assert hook_problems(spec) == [
        "paston.web_view = 'folkcards.envs.notation:PASTON_TEXT' is in envs, not web"
    ]
    spec = dataclasses.replace(
        GAMES["paston_bidding"], open_hand_solver="folkcards.agents.pimc:make_pimc_agent"
    )
    assert len(hook_problems(spec)) == 1


# --- generic code reaches the hooks through the registry -----------------------------------


def _modules() -> list[tuple[str, Path]]:
    out = []
    for package, folder in CONFIG["tool"]["setuptools"]["package-dir"].items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((".".join([package, *parts]), path))
    return out


def direct_imports(module: str, source: str, is_package: bool = False) -> set[tuple[str, str]]:
    """(module, name) of every ``from module import name`` in ``source``, relative ones
    resolved against ``module``."""
    found = set()
    base = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parent = base[: len(base) - node.level + 1]
                target = ".".join(parent + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found |= {(target, alias.name) for alias in node.names}
    return found


# Modules of one game whose names do not say so (a module named after a game is that game's).
ONE_GAME = {
    "folkcards.agents.pimc": "Paston's search agent",
    "folkcards.agents.features": "Tri Palki's action features",
    "folkcards.evaluate.statistics.paston_open_hand_analysis": "Paston's open-hand analysis",
}


def generic(module: str) -> bool:
    """Whether ``module`` is generic code (serves every game)."""
    games = {name for spec in GAMES.values() for name in (spec.name, spec.family)}
    return module not in ONE_GAME and not any(game in module for game in games)


def hook_imports() -> list[str]:
    """Each place where generic code imports a hook's object by name instead of asking the
    registry."""
    targets = {
        tuple(hook.split(":")): (spec.name, field)
        for spec in GAMES.values()
        for field, hook in hooks(spec)
        if field != "module"
    }
    out = []
    for module, path in _modules():
        if not generic(module):
            continue
        imports = direct_imports(
            module, path.read_text(encoding="utf-8"), path.name == "__init__.py"
        )
        for target in sorted(imports & set(targets)):
            out.append(f"{module} imports {target[0]}:{target[1]} ({targets[target][1]})")
    return out


def test_generic_code_reaches_hooks_only_through_the_registry() -> None:
    modules = {module for module, _ in _modules()}
    assert set(ONE_GAME) <= modules
    assert sum(map(generic, modules)) > 50
    assert hook_imports() == []


def test_a_direct_import_of_a_hook_is_caught() -> None:
    source = "from ...play.watch import PastonSpectator\nfrom ..scoring import score_paston\n"
    found = direct_imports("folkcards.evaluate.reports.export", source)
    assert ("folkcards.play.watch", "PastonSpectator") in found
    assert ("folkcards.evaluate.scoring", "score_paston") in found
