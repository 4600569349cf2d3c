"""Public name of the Paston open-hand solver (the code: :mod:`folkcards.envs.paston.solver`)."""

from ..envs.paston.solver import (
    PastonSolver,
    Position,
    best_moves,
    legal_cards,
    load_kernels,
    move_values,
    solve,
)

__all__ = [
    "Position",
    "PastonSolver",
    "solve",
    "move_values",
    "best_moves",
    "legal_cards",
    "load_kernels",
]
