"""Paston bidding, batched: ``N`` deals from an open-hand table, stepped in compiled code.

``paston_bidding_v0.vector_env(num_envs, tables=None, **options)`` returns a
:class:`PastonBiddingVectorEnv`, the batched engines' API (``reset`` / ``step`` / auto-reset /
``where=``, as :mod:`folkcards.envs.paston.batched`) over the decisions of
``paston_bidding_v0``: the auction, the contract (or surrender) and whist/pass. Every deal comes
from the table (:mod:`.tables`; default the one shipped with the package) and is scored by a
lookup, so a step costs what a step of the batched Paston engine costs.

- **The discards are the table's.** A table holds one discard pair per declarer and minimum
  contract level (its rule is in :mod:`.tables`), so the declarer does not choose: the moment a
  declarer is known the engine makes the table's two discards, and the next decision is the
  contract. Every other decision has the observation and the mask ``paston_bidding_v0`` gives at
  that point after those discards (``tests/paston/test_bidding_batched.py`` steps both side by
  side).
- **Scores** are those of ``paston_bidding_v0`` (the tricks credited from the open-hand result,
  then the score table); surrender, both pass and the all-pass redeal as in ``paston_v0``.
- ``reset(seed=None, options=None)``: game ``i`` draws each deal's table index uniformly from
  its own xoshiro256** stream (seeded as in the other batched engines), whatever the number of
  games; ``options={"deals": [index or None] * N}`` fixes the first deal of some games. The
  dealer is the table's.
- ``step(actions, where=None)`` → ``obs, mask, player, rewards, terminated, truncated, infos``;
  ``infos[i]`` is ``{agent: final info}`` as the AEC env gives it (``guaranteed`` and
  ``contested`` included) plus ``table_index``. A finished game is dealt the next table deal at
  once.
- Options of ``paston_bidding_v0.env``: ``reward_scale`` only (``episode="deal"``,
  ``reward="score"``); the others raise ``ValueError``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import njit

from .._batched import (
    FinalInfos,
    StepResult,
    VectorEnvBase,
    check_num_envs,
    check_reward_scale,
    rng_below,
    run_in_chunks,
    seed_states,
)
from ..compile_notice import install as _announce_compiles
from ..paston import batched as pb
from ..paston.batched import (
    DEALER,
    DEALT_HANDS,
    DEALT_PRIKUP,
    DECLARER,
    DEFENCE_SAID,
    DISCARD,
    F_DEALER,
    F_DECLARER,
    F_HIGH_BID,
    F_LEVEL,
    F_OUTCOME,
    F_SURRENDERED,
    HIGH_BID,
    LEGAL,
    LEVEL,
    NUM_FIELDS,
    NUM_FIN,
    NUM_SEAT_FIELDS,
    OUTCOME,
    OVER,
    PHASE,
    PLAY,
    PLAYED,
    SCORES,
    SURRENDERED,
    TO_ACT,
    TRICKS,
    TRUMP,
)
from ..paston.kernels import declarer_points, defender_points
from ..paston.observation import OBSERVATION_SIZE
from ..paston.rules import NUM_ACTIONS
from .tables import OpenHandTable, load_table, shipped_table_path

_apply = pb._apply
_observe = pb._observe
_start_deal = pb._start_deal


@njit(cache=True)
def _table_deal(seat, st, rng, i, index, t_dealer, t_hands, t_prikup) -> None:  # fmt: skip
    """Game ``i``'s next deal: a uniform table index from its stream."""
    k = rng_below(rng, i, t_dealer.shape[0])
    _load_deal(seat, st, i, k, index, t_dealer, t_hands, t_prikup)


@njit(cache=True)
def _load_deal(seat, st, i, k, index, t_dealer, t_hands, t_prikup) -> None:  # fmt: skip
    index[i] = k
    st[i, DEALER] = t_dealer[k]
    for s in range(3):
        seat[i, DEALT_HANDS, s] = t_hands[k, s]
    st[i, DEALT_PRIKUP] = t_prikup[k]


@njit(cache=True)
def _settle(seat, st, i, k, t_discards, t_results, guar) -> None:  # fmt: skip
    """After an action: make the table's discards, or score a deal whose defence is decided."""
    if st[i, PHASE] == DISCARD:
        declarer = st[i, DECLARER]
        pair = t_discards[k, declarer, max(st[i, HIGH_BID], 0)]
        while pair:  # the lower card first
            low = pair & -pair
            card = 0
            while (low >> card) != 1:
                card += 1
            _apply(seat, st, i, card)
            pair ^= low
    if st[i, PHASE] != PLAY:
        return
    declarer = st[i, DECLARER]
    left = (declarer + 1) % 3
    right = (declarer + 2) % 3
    level = st[i, LEVEL]
    trump = st[i, TRUMP]
    whist_left = seat[i, DEFENCE_SAID, left] == 1
    whist_right = seat[i, DEFENCE_SAID, right] == 1
    defence = 0 if whist_left and whist_right else (1 if whist_left else 2)
    m = max(st[i, HIGH_BID], 0)
    d_tricks = int(t_results[k, declarer, m, trump, defence, 0])
    for s in range(3):
        seat[i, TRICKS, s] = 0
        seat[i, SCORES, s] = 0
        guar[i, s] = -1
    seat[i, TRICKS, declarer] = d_tricks
    guar[i, declarer] = d_tricks
    if defence == 0:
        g_left = int(t_results[k, declarer, m, trump, 0, 1])
        g_right = int(t_results[k, declarer, m, trump, 0, 2])
        contested = 10 - d_tricks - g_left - g_right
        t_left = g_left + contested // 2
        t_right = g_right + contested // 2
        if contested % 2:
            if g_right > g_left:
                t_right += 1
            else:
                t_left += 1
        seat[i, TRICKS, left] = t_left
        seat[i, TRICKS, right] = t_right
        guar[i, left] = g_left
        guar[i, right] = g_right
        guar[i, 3] = contested
        seat[i, SCORES, left] = defender_points(t_left, False, level)
        seat[i, SCORES, right] = defender_points(t_right, False, level)
    else:
        sole = left if defence == 1 else right
        seat[i, TRICKS, sole] = 10 - d_tricks
        guar[i, sole] = 10 - d_tricks
        guar[i, 3] = 0
        seat[i, SCORES, sole] = defender_points(10 - d_tricks, True, level)
    seat[i, SCORES, declarer] = declarer_points(d_tricks, level)
    st[i, OUTCOME] = PLAYED
    st[i, PHASE] = OVER
    st[i, TO_ACT] = -1


@njit(cache=True, nogil=True)
def _step_range(
    lo, hi, actions, seat, st, potential, rng, scale, obs, mask, player, rewards, terminated, fin,
    fin_seat, active, index, guar, fin_guar, t_dealer, t_hands, t_prikup, t_discards, t_results,
) -> None:  # fmt: skip
    """Step games ``lo .. hi-1`` where ``active``."""
    for i in range(lo, hi):
        if not active[i]:
            for s in range(3):
                rewards[i, s] = 0.0
            terminated[i] = False
            continue
        _apply(seat, st, i, actions[i])
        _settle(seat, st, i, index[i], t_discards, t_results, guar)
        over = st[i, PHASE] == OVER
        terminated[i] = over
        for s in range(3):
            rewards[i, s] = 0.0
        if over:
            played = st[i, OUTCOME] == PLAYED
            for s in range(3):
                rewards[i, s] = seat[i, SCORES, s] * scale
                fin_seat[i, 0, s] = seat[i, SCORES, s]
                fin_seat[i, 1, s] = seat[i, TRICKS, s]
                fin_seat[i, 2, s] = seat[i, DEFENCE_SAID, s]
            for s in range(4):
                fin_guar[i, s] = guar[i, s] if played else -2
            fin[i, F_OUTCOME] = st[i, OUTCOME]
            fin[i, F_DEALER] = st[i, DEALER]
            fin[i, F_DECLARER] = st[i, DECLARER]
            fin[i, F_LEVEL] = st[i, LEVEL]
            fin[i, F_HIGH_BID] = st[i, HIGH_BID]
            fin[i, F_SURRENDERED] = st[i, SURRENDERED]
            fin[i, NUM_FIN] = index[i]
            _table_deal(seat, st, rng, i, index, t_dealer, t_hands, t_prikup)
            _start_deal(seat, st, potential, i)
        _observe(seat, st, i, obs, mask, player)


@njit(cache=True)
def _start_games(random, seat, st, potential, rng, obs, mask, player, index, t_dealer, t_hands,
                 t_prikup) -> None:  # fmt: skip
    """Start every game: a table deal drawn where ``random[i]``, else ``index[i]``."""
    for i in range(random.shape[0]):
        if random[i]:
            _table_deal(seat, st, rng, i, index, t_dealer, t_hands, t_prikup)
        else:
            _load_deal(seat, st, i, index[i], index, t_dealer, t_hands, t_prikup)
        _start_deal(seat, st, potential, i)
        _observe(seat, st, i, obs, mask, player)


class PastonBiddingVectorEnv(VectorEnvBase):
    """``num_envs`` Paston bidding deals from an open-hand table; see the module docstring."""

    option_keys = ("deals",)
    num_actions = NUM_ACTIONS
    num_players = 3
    obs_dim = OBSERVATION_SIZE
    possible_agents = ["player_0", "player_1", "player_2"]

    def __init__(
        self,
        num_envs: int,
        tables: str | os.PathLike[str] | OpenHandTable | None = None,
        episode: str = "deal",
        reward_scale: float = 1.0,
        reward: str = "score",
        max_deals: int = 1000,
        render_mode: str | None = None,
    ):
        self.num_envs = check_num_envs(num_envs)
        if episode != "deal" or reward != "score" or max_deals != 1000:
            raise ValueError(
                "the batched bidding env supports episode='deal' and reward='score' only"
            )
        check_reward_scale(reward_scale)
        if render_mode is not None:
            raise ValueError("the batched bidding env does not render; use render_mode=None")
        table = (
            tables
            if isinstance(tables, OpenHandTable)
            else load_table(shipped_table_path() if tables is None else tables)
        )
        self.table = table
        self.reward_scale = float(reward_scale)
        self._t = (
            np.ascontiguousarray(table.dealer, dtype=np.int64),
            np.ascontiguousarray(table.hands, dtype=np.int64),
            np.ascontiguousarray(table.prikup, dtype=np.int64),
            np.ascontiguousarray(table.discards, dtype=np.int64),
            np.ascontiguousarray(table.results, dtype=np.uint8),
        )
        N = self.num_envs
        self._st = np.zeros((N, NUM_FIELDS), dtype=np.int64)
        self._seat = np.zeros((N, NUM_SEAT_FIELDS, 3), dtype=np.int64)
        self._potential = np.zeros((N, 3), dtype=np.float64)
        self._rng = seed_states(None, N)
        self._index = np.zeros(N, dtype=np.int64)
        self._guar = np.zeros((N, 4), dtype=np.int64)
        self._fin = np.zeros((N, NUM_FIN + 1), dtype=np.int64)
        self._fin_seat = np.zeros((N, 3, 3), dtype=np.int64)
        self._fin_guar = np.zeros((N, 4), dtype=np.int64)
        self._setup_outputs()

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game; ``options={"deals": [table index or None] * N}``."""
        plan = self._parse_options(options)
        self._rng = seed_states(seed, self.num_envs)
        random = np.ones(self.num_envs, dtype=np.bool_)
        for i, k in enumerate(plan["deals"]):
            if k is not None:
                random[i] = False
                self._index[i] = k
        t_dealer, t_hands, t_prikup, _, _ = self._t
        _start_games(
            random, self._seat, self._st, self._potential, self._rng, self._obs, self._mask,
            self._player, self._index, t_dealer, t_hands, t_prikup,
        )  # fmt: skip
        self._rewards[:] = 0.0
        self._terminated[:] = False
        self._has_reset = True
        return self._obs, self._mask, self._player

    def step(self, actions: Any, where: Any = None) -> StepResult:
        """One decision in every game (or only where ``where`` is True)."""
        acts, active = self._checked_actions(actions, where)
        illegal = ((self._st[:, LEGAL] >> (acts & 63)) & 1 == 0) & active
        if illegal.any():
            bad = int(np.argmax(illegal))
            legal = [a for a in range(NUM_ACTIONS) if int(self._st[bad, LEGAL]) >> a & 1]
            raise ValueError(
                f"game {bad}: illegal action {int(acts[bad])} for "
                f"player_{int(self._st[bad, TO_ACT])}; legal are {legal}"
            )
        run_in_chunks(
            _step_range, self.num_envs, acts, self._seat, self._st, self._potential, self._rng,
            self.reward_scale, self._obs, self._mask, self._player, self._rewards,
            self._terminated, self._fin, self._fin_seat, active, self._index, self._guar,
            self._fin_guar, *self._t,
        )  # fmt: skip
        finished = np.flatnonzero(self._terminated)
        snap = (
            self._fin[finished].copy(),
            self._fin_seat[finished].copy(),
            self._fin_guar[finished].copy(),
        )
        return self._outputs(FinalInfos(finished, lambda k: _info_from(snap, k)))

    def table_indices(self) -> np.ndarray:
        """Each game's current deal as its index in the table."""
        return self._index.copy()

    def deal_options(self, game: int) -> dict[str, Any]:
        """AEC ``reset`` options (``dealer``, ``deal``) of game ``game``'s current deal."""
        return self.table.deal_option(int(self._index[int(game)]))

    def reset_entries(self, game: int) -> dict[str, Any]:
        """Game ``game``'s ``reset`` option entries that deal its current deal again: its
        table index."""
        return {"deals": int(self._index[int(game)])}

    def _state_arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self._st, self._seat, self._potential, self._rng, self._index, self._guar, self._fin,
            self._fin_seat, self._fin_guar,
        )  # fmt: skip

    def _parse_entry(self, key: str, entry: Any) -> Any:
        if isinstance(entry, (bool, np.bool_)) or not isinstance(entry, (int, np.integer)):
            raise ValueError(f"a deal must be a table index, got {entry!r}")
        if not 0 <= entry < len(self.table):
            raise ValueError(f"deal index {entry} is outside the table's {len(self.table)} deals")
        return int(entry)


def _info_from(snap: tuple[np.ndarray, np.ndarray, np.ndarray], k: int) -> dict[str, Any]:
    fin, fin_seat, fin_guar = snap
    infos = pb._info_from((fin[:, :NUM_FIN], fin_seat), k)
    played = fin_guar[k, 3] != -2
    for s, agent in enumerate(PastonBiddingVectorEnv.possible_agents):
        g = int(fin_guar[k, s])
        infos[agent]["guaranteed"] = g if played and g >= 0 else None
        infos[agent]["contested"] = int(fin_guar[k, 3]) if played else None
        infos[agent]["table_index"] = int(fin[k, NUM_FIN])
    return infos


def vector_env(num_envs: int, tables: Any = None, **options: Any) -> PastonBiddingVectorEnv:
    """``num_envs`` bidding deals scored from ``tables`` (a file, a loaded table, or the shipped
    one); see :mod:`folkcards.envs.paston_bidding.batched`."""
    return PastonBiddingVectorEnv(num_envs, tables=tables, **options)


__all__ = ["PastonBiddingVectorEnv", "vector_env"]

_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
