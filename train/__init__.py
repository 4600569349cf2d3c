"""folkcards.train: MaskablePPO (stable-baselines3) and RLlib training, and the single-seat env.

Importing this package registers one Gymnasium id per game of :mod:`folkcards.envs.registry`:
the single-seat env (:class:`folkcards.train.single_seat.SingleSeatEnv`, one learner seat, the
other seats played by agents given as ``opponents``), e.g.
``gymnasium.make("folkcards/paston-single-seat-v0", opponents=["heuristic", "random"])``.
``gymnasium.make("folkcards.train:folkcards/tri_palki-single-seat-v0", ...)`` imports this
package itself.
"""

from __future__ import annotations

import gymnasium
from folkcards.envs.registry import GAMES, GameSpec


def single_seat_id(spec: GameSpec) -> str:
    """The Gymnasium id of a game's single-seat env: ``folkcards/<game>-single-seat-v0``."""
    return f"{spec.env_id.rsplit('-v', 1)[0]}-single-seat-v0"


for _spec in GAMES.values():
    if single_seat_id(_spec) not in gymnasium.registry:
        gymnasium.register(
            id=single_seat_id(_spec),
            entry_point="folkcards.train.single_seat:SingleSeatEnv",
            kwargs={"game": _spec.name},
            disable_env_checker=True,  # SingleSeatEnv passes gymnasium's check_env (a test)
        )

__all__ = ["single_seat_id"]
