"""Each seat's tricks of a Paston deal from the open-hand solver, and the deal's table scores.

PettingZoo-free. Used by :mod:`folkcards.envs.paston_bidding_v0`, whose page explains the rule:

- the declarer's tricks are the open-hand (double-dummy) count: the declarer maximises their
  tricks, the defenders jointly minimise them (as in a bridge double-dummy table);
- a sole defender takes the rest;
- two defenders: each is credited with its **guarantee**, the tricks it can win on its own when
  it maximises its tricks and the declarer and the other defender both minimise them (the
  "paranoid" value of multi-player search). The three guarantees never add up to more than the
  tricks in play, because each is secured by one strategy whatever the others do; the tricks
  left over (``contested``: those the defence takes only by playing together) are shared equally,
  an odd one going to the defender with the larger guarantee, on equal guarantees to the
  declarer's left.

The solver is a layer above (:mod:`folkcards.search.paston_solver`): this module reaches it only
through the registry's ``open_hand_solver`` hook of ``paston_bidding``, at the first call. The
rules of the score table are in ``docs/rules/paston.md`` §7.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..paston.rules import (
    LEVEL_FACTOR,
    NUM_SEATS,
    NUM_TRICKS,
    declarer_score,
    defender_score,
    left_of,
)

Position = Any  # the solver's position type (``folkcards.search.paston_solver.Position``)
Solve = Callable[[Position], int]


@dataclass(frozen=True)
class OpenHandResult:
    """How the tricks of one deal are credited (see the module docstring)."""

    tricks: tuple[int, int, int]  # tricks credited to each seat (0 for a passer)
    declarer_tricks: int  # the open-hand count, declarer against both defenders
    guaranteed: tuple[int | None, int | None, int | None]  # each player's guarantee; None: sat out
    contested: int  # tricks no player secures alone, shared by two defenders (0 otherwise)


def solver_class() -> Any:
    """The open-hand solver class (the registry's ``open_hand_solver`` hook of
    ``paston_bidding``): ``cls(tt_bits=...)`` with ``.solve(position)`` and
    ``cls.first_lead(hands, trump, declarer, defenders)`` (a position)."""
    from ..registry import game_spec

    return game_spec("paston_bidding").piece("open_hand_solver")


def new_solver() -> Solve:
    """A fresh solver's ``solve`` (one per env: a solver object is not thread-safe)."""
    return solver_class()(tt_bits=16).solve


def credit_tricks(position: Position, solve: Solve | None = None) -> OpenHandResult:
    """Credit every trick of ``position`` (declarer to lead, nothing played yet) to a seat.

    ``solve`` is a function from a position to its maximising seat's total tricks (default: the
    compiled solver; the tests pass the reference minimax). Works for any number of tricks left.
    """
    if position.trick or position.declarer_tricks or position.leader != position.declarer:
        raise ValueError("credit_tricks needs a position before its first lead by the declarer")
    position_type = type(position)
    solve = solve or new_solver()
    declarer = position.declarer
    total = position.tricks_left
    declarer_tricks = solve(position)
    defenders = [
        seat for seat in (left_of(declarer), left_of(left_of(declarer))) if seat in position.active
    ]
    if len(defenders) == 1:
        return sole_defender_result(declarer, defenders[0], total, declarer_tricks)
    defence = total - declarer_tricks
    left, right = defenders
    g_left = solve(position_type(position.hands, position.trump, left, position.active, declarer))
    # The guarantees add up to at most the tricks in play, so the right's is 0 when the left
    # alone secures all of the defence's tricks: no second search then.
    g_right = (
        solve(position_type(position.hands, position.trump, right, position.active, declarer))
        if g_left < defence
        else 0
    )
    return two_defender_result(declarer, total, declarer_tricks, g_left, g_right)


def two_defender_result(
    declarer: int, total: int, declarer_tricks: int, g_left: int, g_right: int
) -> OpenHandResult:
    """The crediting of a two-defender deal from its three solver values: the declarer's count
    and the guarantees of the declarer's left and right (the open-hand tables store these)."""
    left, right = left_of(declarer), left_of(left_of(declarer))
    tricks = [0, 0, 0]
    guaranteed: list[int | None] = [None, None, None]
    tricks[declarer] = guaranteed[declarer] = declarer_tricks
    guaranteed[left], guaranteed[right] = g_left, g_right
    contested = total - declarer_tricks - g_left - g_right
    if contested < 0:
        raise AssertionError(f"guarantees {guaranteed} exceed the {total} tricks: solver bug")
    tricks[left] = g_left + contested // 2
    tricks[right] = g_right + contested // 2
    if contested % 2:
        tricks[right if g_right > g_left else left] += 1
    return OpenHandResult(tuple(tricks), declarer_tricks, tuple(guaranteed), contested)  # type: ignore[arg-type]


def sole_defender_result(
    declarer: int, defender: int, total: int, declarer_tricks: int
) -> OpenHandResult:
    """The crediting of a sole-defender deal: the defender takes the tricks the declarer does
    not."""
    tricks = [0, 0, 0]
    guaranteed: list[int | None] = [None, None, None]
    tricks[declarer] = guaranteed[declarer] = declarer_tricks
    tricks[defender] = guaranteed[defender] = total - declarer_tricks
    return OpenHandResult(tuple(tricks), declarer_tricks, tuple(guaranteed), 0)  # type: ignore[arg-type]


def first_lead_result(
    hands: Sequence[Any],
    trump: int,
    declarer: int,
    defenders: Sequence[int],
    solve: Solve | None = None,
) -> OpenHandResult:
    """:func:`credit_tricks` of a full deal: ten cards in each playing hand, the discards out."""
    return credit_tricks(solver_class().first_lead(hands, trump, declarer, defenders), solve)


def table_scores(
    tricks: Sequence[int], level: int, declarer: int, defenders: Sequence[int]
) -> list[int]:
    """Each seat's table score of a played deal with these tricks (``paston.md`` §7)."""
    if len(tricks) != NUM_SEATS or any(not 0 <= t <= NUM_TRICKS for t in tricks):
        raise ValueError(f"tricks must be 3 counts from 0 to {NUM_TRICKS}, got {list(tricks)}")
    if not 0 <= level < len(LEVEL_FACTOR):
        raise ValueError(f"level must be 0..{len(LEVEL_FACTOR) - 1}, got {level!r}")
    if not 1 <= len(set(defenders)) == len(defenders) <= 2 or declarer in defenders:
        raise ValueError(
            f"defenders must be one or two seats other than the declarer, got {list(defenders)}"
        )
    sole = len(defenders) == 1
    scores = [0] * NUM_SEATS
    scores[declarer] = declarer_score(tricks[declarer], level)
    for seat in defenders:
        scores[seat] = defender_score(tricks[seat], sole) * LEVEL_FACTOR[level]
    return scores
