"""No module of the package over 600 lines unless it is one job too big to split.

A long module is where several jobs end up side by side. Every module over :data:`LIMIT` lines
must be on :data:`LONG_MODULES` with the reason it is one job (or, honestly, that it is still
to be split); a new long module fails here, and so does an entry that is no longer long (the
list stays short and true).
"""

from __future__ import annotations

from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
LIMIT = 600

# path -> why it is one job (or that it is still to be split)
LONG_MODULES: dict[str, str] = {
    "agents/paston_heuristic_core.py": (
        "the Paston heuristic's decision rules, compiled, sharing one hand evaluation"
    ),
    "search/paston_solver.py": (
        "the open-hand solver: one compiled alpha-beta search, its transposition table and "
        "move ordering"
    ),
    "envs/paston/batched.py": "Paston's batched engine: the rules over N games at once, compiled",
    "envs/tri_palki/batched.py": (
        "Tri Palki's batched engine: the rules over N games at once, compiled"
    ),
    "agents/pimc.py": "Paston's pimc agent: each kind of decision searched over sampled worlds",
    "agents/tri_palki_search.py": (
        "Tri Palki's pimc and expert search: sampled worlds, weighted and played out"
    ),
    "search/tri_palki_belief.py": (
        "Tri Palki's belief: the worlds one observation allows, drawn together (after an "
        "announcement or not), listed for the short deck, weighted by a policy"
    ),
    "train/batched_training_env.py": (
        "the single-seat training VecEnv on a batched engine, with its batched opponents"
    ),
}


def package_modules() -> dict[str, int]:
    """Every module of the package (the folders ``package-dir`` maps) and its line count."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    out = {}
    for folder in config["tool"]["setuptools"]["package-dir"].values():
        for path in sorted((REPO / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            out[path.relative_to(REPO).as_posix()] = len(text.splitlines())
    return out


def long_module_problems(modules: dict[str, int], allowed: dict[str, str]) -> list[str]:
    """Each module over the limit that is not allowed, and each allowed one that is not long."""
    problems = [
        f"{path} has {lines} lines (over {LIMIT}): split it into modules of one job, or add "
        f"it to LONG_MODULES with the reason it is one job"
        for path, lines in sorted(modules.items())
        if lines > LIMIT and path not in allowed
    ]
    problems += [
        f"{path} is on LONG_MODULES but has {modules.get(path, 0)} lines: remove the entry"
        for path in sorted(allowed)
        if modules.get(path, 0) <= LIMIT
    ]
    return problems


def test_every_long_module_is_allowed_with_a_reason() -> None:
    modules = package_modules()
    assert len(modules) > 100 and "search/paston_solver.py" in modules
    assert long_module_problems(modules, LONG_MODULES) == []
    assert all(reason.strip() and "\n" not in reason for reason in LONG_MODULES.values())


def test_a_new_long_module_and_a_stale_entry_are_caught() -> None:
    modules = {"search/new.py": LIMIT + 1, "search/short.py": LIMIT, "search/old.py": 10}
    assert long_module_problems(modules, {"search/old.py": "one job"}) == [
        "search/new.py has 601 lines (over 600): split it into modules of one job, or add it "
        "to LONG_MODULES with the reason it is one job",
        "search/old.py is on LONG_MODULES but has 10 lines: remove the entry",
    ]
