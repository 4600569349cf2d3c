"""The single-seat training env on a batched engine: a stable-baselines3 ``VecEnv`` of ``N`` games.

:class:`BatchedSingleSeatVecEnv` plays ``N`` games in one batched engine
(``paston_v0.vector_env`` / ``tri_palki_v0.vector_env``). In each game one seat is the learner
(the one MaskablePPO trains); the other seats are played inside the env by batched opponents
(:mod:`folkcards.agents.batched_agents`): while any game has another seat to act, the games are
grouped by the agent in that seat, each agent decides for its rows at once, and the engine
steps those games only (``step(actions, where=rows)``). For MaskablePPO it behaves as ``N``
:class:`~folkcards.train.single_seat.SingleSeatEnv`'s in a ``DummyVecEnv``:

- **Observation**: the learner's AEC observation vector (extended by ``features=NAME``);
  :meth:`action_masks` gives the ``(N, num_actions)`` bool masks of the learner's decisions.
- **Reward**: everything the engine credits to the learner's seat from its action up to its
  next decision or the end of its episode (also when an opponent's action ends it; what is
  credited before its first decision joins its first step), so an episode's rewards sum to the
  seat's table result (× ``reward_scale``, with Paston's ``shaping`` when configured).
- **Episodes**: one deal (Paston) or one round (Tri Palki), the engines' only episode kinds.
  ``done`` when the game ends, with SB3's auto-reset: ``infos[i]`` then holds the learner's
  final AEC info plus ``seat``, ``terminal_observation`` and ``TimeLimit.truncated``, and the
  returned observation is the new episode's first decision. A game that ends before the learner
  acts is skipped (dealt again), as in ``SingleSeatEnv``. The engine observes only the seat to
  act, so ``terminal_observation`` is the learner's observation at its last decision (used by
  SB3 only to bootstrap a truncated episode; with ``truncation_reward`` set there is none).
- **Seat and opponents**: at the start of every game the learner's seat (uniform, or ``seat=``)
  and the other seats' opponents (the pool's weights, ``per_seat`` as in
  :class:`~folkcards.train.opponents.OpponentPool`; ``"self"`` draws a snapshot added with
  :meth:`add_snapshot`, uniformly among the newest ``max_snapshots``) come from the env's seeded
  numpy ``Generator``.
- **Randomness**: every seat of every game draws its random choices (random opponents, sampled
  snapshots) from its own xoshiro256** stream. ``seed(s)`` then ``reset()``: the same seed and
  the same learner actions give the same run.
- **Duplicate baseline** (``duplicate_baseline=SPEC``): as ``SingleSeatEnv``: the learner's last
  reward of an episode is reduced by what the batched agent ``SPEC`` gets in the learner's seat
  on the same deal against the same opponents with the same random streams
  (``info["baseline_return"]``); if the learner chose as the baseline at every decision it is
  its own result (rewards sum to exactly 0), else the deal is replayed in a second engine fed
  the deal with ``reset(options={"deals": ...})``.
- **Repeated positions** (``repeat_penalty=p``): the learner's action that brings it back to a
  decision it already faced in this episode (same observation apart from the turn counter) is
  rewarded ``-p``, as in ``SingleSeatEnv``.
- **Illegal actions** end the learner's episode with ``illegal_reward`` and
  ``info["illegal_action"] = True``; the game is played out by a random player in the
  learner's seat (its rewards unused) and a new one begins.

**Open-hand tables** (``tables=FILE``, the config's ``env.tables``): an engine that reads
tables (``paston_bidding_v0.vector_env``) draws and scores its deals from that file (the
duplicate baseline replays the same table deal); other engines refuse the option.

Options the batched engines do not support (Paston ``episode="game"``, ``reward="win"``; Tri
Palki ``episode="match"``, ``reward="win"``) and opponents without a batched form (``pimc``,
``rllib``) raise ``ValueError`` naming them: train those with ``run.engine: aec``.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from folkcards.agents.batched_agents import (
    SPEC_BATCHED_KINDS,
    BatchedAgent,
    BatchedRandom,
    batch_features,
    make_batched_agent,
    policy_agent,
)
from folkcards.agents.features import get_feature_set
from folkcards.agents.policy_network import NumpyPolicy
from folkcards.envs._batched import seed_states
from folkcards.envs.registry import DEFAULT_GAME, GAMES, UnsupportedError, game_spec
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .opponents import SELF, OpponentEntry, parse_entries
from .single_seat import learner_observation_space, seat_index

BATCHED_GAMES = tuple(name for name, spec in GAMES.items() if spec.has("batched_engine"))
MAX_OPPONENT_ROUNDS = 100_000


def make_engine(
    game: str, num_envs: int, env_kwargs: dict[str, Any], tables: str | None = None
) -> Any:
    """The game's batched engine (reading the open-hand table file ``tables`` if given);
    ``ValueError`` naming an option it does not support."""
    spec = game_spec(game)
    if not spec.has("batched_engine"):
        raise UnsupportedError(
            f"{spec.name} has no batched engine (batched: {', '.join(BATCHED_GAMES)}); "
            "use run.engine: aec"
        )
    factory = spec.piece("batched_engine")
    extra: dict[str, Any] = {}
    if tables is not None:
        check_tables_option(game)
        extra["tables"] = tables
    try:
        return factory(num_envs, **env_kwargs, **extra)
    except (TypeError, ValueError) as error:
        raise ValueError(f"env options {env_kwargs} on the batched engine: {error}") from None


def check_tables_option(game: str) -> None:
    """``ValueError`` (one line) unless the game's batched engine reads open-hand tables."""
    spec = game_spec(game)
    if "tables" not in inspect.signature(spec.piece("batched_engine")).parameters:
        raise ValueError(f"{spec.name}'s batched engine reads no tables (env.tables)")


def check_batched_support(
    game: str,
    env_kwargs: dict[str, Any],
    opponent_specs: Sequence[str],
    duplicate_baseline: str | None = None,
    tables: str | None = None,
) -> None:
    """``ValueError`` (one line) unless the batched env can train this game, env options,
    opponents (``self`` included), duplicate baseline and open-hand tables (the table file
    itself is read when training starts, so a config may name one still to be made)."""
    make_engine(game, 1, dict(env_kwargs))
    if tables is not None:
        check_tables_option(game)
    for what, spec in [
        *(("opponent", s) for s in opponent_specs),
        ("baseline", duplicate_baseline),
    ]:
        if spec is None or spec == SELF:
            continue
        if spec.partition(":")[0] not in SPEC_BATCHED_KINDS:
            raise ValueError(
                f"{what} {spec!r} has no batched form (batched kinds: "
                f"{', '.join(SPEC_BATCHED_KINDS)}, self); use run.engine: aec"
            )


class BatchedOpponentPool:
    """The opponent pool in batched form: agents by id, drawn per game by weight."""

    def __init__(
        self,
        game: str,
        entries: Sequence[Any],
        num_players: int,
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        per_seat: bool = True,
    ):
        self.game = game
        self.num_players = num_players
        self.entries = parse_entries(entries)
        self.max_snapshots = int(max_snapshots)
        self.snapshot_deterministic = bool(snapshot_deterministic)
        self.per_seat = bool(per_seat)
        self.agents: list[BatchedAgent] = []
        self._by_spec: dict[str, int] = {}
        for entry in self.entries:
            if entry.spec != SELF and entry.spec not in self._by_spec:
                self._by_spec[entry.spec] = self._add(
                    make_batched_agent(entry.spec, game, num_players)
                )
        found = self._by_spec.get("random")
        self.random_id: int = self._add(BatchedRandom()) if found is None else found
        self.snapshots: list[tuple[str, int]] = []  # (path, agent id), oldest first

    def _add(self, agent: BatchedAgent) -> int:
        self.agents.append(agent)
        return len(self.agents) - 1

    def add_snapshot(self, path: str | Path) -> int:
        """Load a ``NumpyPolicy`` ``.npz``; keep the newest ``max_snapshots``; returns the count."""
        path = str(path)
        agent = policy_agent(
            NumpyPolicy.load(path),
            self.game,
            deterministic=self.snapshot_deterministic,
            label=f"snapshot {Path(path).name}",
        )
        self.snapshots.append((path, self._add(agent)))
        if self.max_snapshots > 0:
            del self.snapshots[: max(0, len(self.snapshots) - self.max_snapshots)]
        return len(self.snapshots)

    def draw(self, rng: np.random.Generator, games: int, seats: int) -> np.ndarray:
        """Agent ids ``(games, seats)``: an entry by weight per seat (or per game), a uniform
        snapshot for ``"self"``."""
        usable = [e for e in self.entries if e.weight > 0 and (e.spec != SELF or self.snapshots)]
        if not usable:
            usable = [OpponentEntry("random", 1.0)]
        weights = np.array([e.weight for e in usable], dtype=np.float64)
        picks = rng.choice(
            len(usable), size=(games, seats if self.per_seat else 1), p=weights / weights.sum()
        )
        if not self.per_seat:
            picks = np.repeat(picks, seats, axis=1)
        ids = np.zeros((games, seats), dtype=np.int64)
        for k, entry in enumerate(usable):
            chosen = picks == k
            if entry.spec == SELF:
                which = rng.integers(len(self.snapshots), size=int(chosen.sum()))
                ids[chosen] = np.array([self.snapshots[int(w)][1] for w in which], dtype=np.int64)
            else:
                ids[chosen] = self._by_spec.get(entry.spec, self.random_id)
        return ids

    def label(self, agent_id: int) -> str:
        return str(getattr(self.agents[agent_id], "label", type(self.agents[agent_id]).__name__))


@dataclass
class _Ended:
    """A learner episode that ended in this step."""

    reward: float
    truncated: bool
    info: dict[str, Any]
    illegal: bool = False
    shadow: tuple[Any, ...] | None = None  # what the duplicate baseline's replay needs


class BatchedSingleSeatVecEnv(VecEnv):
    """``num_envs`` single-seat games on one batched engine; see the module docstring."""

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        num_envs: int = 16,
        env_kwargs: dict[str, Any] | None = None,
        opponents: Sequence[Any] = ("random",),
        seat: int | str | None = None,
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        per_seat: bool = True,
        illegal_reward: float = -1.0,
        snapshots: Sequence[str] = (),
        truncation_reward: float | None = None,
        features: str | None = None,
        duplicate_baseline: str | None = None,
        repeat_penalty: float = 0.0,
        record: bool = False,
        tables: str | None = None,
    ):
        if not repeat_penalty >= 0:
            raise ValueError(f"repeat_penalty must be >= 0, got {repeat_penalty!r}")
        self.game_spec = game_spec(game)
        self.game = self.game_spec.name
        self.env_kwargs = dict(env_kwargs or {})
        self.tables = tables
        self.vec = make_engine(self.game, num_envs, self.env_kwargs, tables)
        N, P = self.vec.num_envs, self.vec.num_players
        self.num_players = P
        self.seats = [f"player_{s}" for s in range(P)]
        self.num_actions = int(self.vec.num_actions)
        self.features = None if features is None else get_feature_set(features, self.game)
        aec = self.game_spec.raw_env(**self.env_kwargs)
        observation_space = learner_observation_space(
            aec.observation_space(aec.possible_agents[0])["observation"], self.features
        )
        self.fixed_seat = None if seat is None else seat_index(seat, self.seats)
        self.pool = BatchedOpponentPool(
            self.game, opponents, P, max_snapshots, snapshot_deterministic, per_seat
        )
        for path in snapshots:
            self.pool.add_snapshot(path)
        self.illegal_reward = float(illegal_reward)
        self.truncation_reward = None if truncation_reward is None else float(truncation_reward)
        self.repeat_penalty = float(repeat_penalty)
        self.duplicate_baseline = duplicate_baseline
        self.baseline: BatchedAgent | None = None
        if duplicate_baseline is not None:
            self.baseline = make_batched_agent(duplicate_baseline, self.game, P)
        self.record = bool(record)
        self._turn_counter = self.game_spec.turn_counter_index(P)
        self._shadow: Any = None
        self.render_mode = None
        super().__init__(N, observation_space, spaces.Discrete(self.num_actions))
        self._rows = np.arange(N)
        self._rng = np.random.default_rng()
        self._learner = np.zeros(N, dtype=np.int64)
        self._assign = np.zeros((N, P), dtype=np.int64)
        self._streams = np.zeros((N, P, 4), dtype=np.uint64)
        self._start_streams = np.zeros((N, P, 4), dtype=np.uint64)
        self._bl_streams = np.zeros((N, 4), dtype=np.uint64)
        self._bl_start = np.zeros((N, 4), dtype=np.uint64)
        self._acc = np.zeros(N, dtype=np.float64)
        self._episode_return = np.zeros(N, dtype=np.float64)
        self._acted = np.zeros(N, dtype=bool)
        self._draining = np.zeros(N, dtype=bool)
        self._deviated = np.zeros(N, dtype=bool)
        self._deal_options: list[dict[str, Any] | None] = [None] * N
        self._reset_entries: list[dict[str, Any] | None] = [None] * N
        self._positions: list[set[bytes]] = [set() for _ in range(N)]
        self._log: list[list[tuple[int, int]]] = [[] for _ in range(N)]
        self._raw = np.zeros((N, self.vec.obs_dim), dtype=np.float32)
        self._out = np.zeros((N, *observation_space.shape), dtype=np.float32)
        self._mask = np.zeros((N, self.num_actions), dtype=bool)
        self._ended: dict[int, _Ended] = {}
        self._actions = np.zeros(N, dtype=np.int64)
        self._has_reset = False
        self._view: tuple[np.ndarray, np.ndarray, np.ndarray] = (
            self._raw,
            self._mask,
            self._learner,
        )

    # --- helpers ---------------------------------------------------------------------------

    def _begin(self, games: np.ndarray) -> None:
        """A new game started in ``games``: draw the learner's seat and the opponents."""
        if not games.size:
            return
        P = self.num_players
        if self.fixed_seat is None:
            self._learner[games] = self._rng.integers(P, size=games.size)
        else:
            self._learner[games] = self.fixed_seat
        self._assign[games] = self.pool.draw(self._rng, games.size, P)
        self._assign[games, self._learner[games]] = -1
        self._acc[games] = 0.0
        self._episode_return[games] = 0.0
        self._acted[games] = False
        self._deviated[games] = False
        if self.baseline is not None:
            self._start_streams[games] = self._streams[games]
            self._bl_start[games] = self._bl_streams[games]
        for i in games:
            if self.record:
                self._deal_options[i] = self.vec.deal_options(int(i))
            if self.baseline is not None:
                self._reset_entries[i] = self.vec.reset_entries(int(i))
            if self.repeat_penalty:
                self._positions[i].clear()
            if self.record:
                self._log[i] = []

    def _act(
        self,
        agent_ids: np.ndarray,
        rows: np.ndarray,
        obs: np.ndarray,
        mask: np.ndarray,
        seats: np.ndarray,
        streams: np.ndarray,
        actions: np.ndarray,
        baseline_streams: np.ndarray | None = None,
    ) -> None:
        """``actions[rows]``: each row's agent (``-1``: the baseline) decides, grouped by agent."""
        for agent_id in np.unique(agent_ids):
            group = rows[agent_ids == agent_id]
            if agent_id < 0:
                assert self.baseline is not None and baseline_streams is not None
                agent, states = self.baseline, baseline_streams[group]
            else:
                agent, states = self.pool.agents[int(agent_id)], streams[group, seats[group]]
            actions[group] = agent.act(obs[group], mask[group], states)
            if agent_id < 0:
                assert baseline_streams is not None
                baseline_streams[group] = states
            else:
                streams[group, seats[group]] = states

    def _collect(self, out: tuple[Any, ...], moved: np.ndarray, actions: np.ndarray) -> None:
        """Book one engine step: the learner's rewards, finished games, new games."""
        _, _, player_before, rewards, terminated, truncated, infos = out
        live = ~self._draining
        self._acc += np.where(live, rewards[self._rows, self._learner], 0.0)
        finished = np.flatnonzero(terminated | truncated)
        if not finished.size:
            return
        for i in finished:
            if self._draining[i]:
                self._draining[i] = False
            elif self._acted[i]:
                seat = int(self._learner[i])
                info = {**infos[int(i)][self.seats[seat]], "seat": self.seats[seat]}
                ended = _Ended(float(self._acc[i]), bool(truncated[i] and not terminated[i]), info)
                if self.baseline is not None:
                    ended.shadow = (
                        seat,
                        self._assign[i].copy(),
                        self._reset_entries[i],
                        self._start_streams[i].copy(),
                        self._bl_start[i].copy(),
                        bool(self._deviated[i]),
                        float(self._episode_return[i]),
                    )
                if self.record:
                    info["actions"] = list(self._log[i])
                    info["deal_options"] = self._deal_options[i]
                self._ended[int(i)] = ended
        self._begin(finished)

    def _step_engine(self, actions: np.ndarray, where: np.ndarray) -> None:
        if self.record:
            for i in np.flatnonzero(where):
                self._log[i].append((int(self._view[2][i]), int(actions[i])))
        out = self.vec.step(actions, where=where)
        self._view = out[:3]
        self._collect(out, where, actions)

    def _advance(self) -> None:
        """Let the opponents (and the random player of drained games) act until every game
        waits for its learner."""
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for _ in range(MAX_OPPONENT_ROUNDS):
            player = self._view[2]
            waiting = (player != self._learner) | self._draining
            if not waiting.any():
                return
            rows = np.flatnonzero(waiting)
            seats = player[rows]
            ids = self._assign[rows, seats]
            ids[self._draining[rows] & (seats == self._learner[rows])] = self.pool.random_id
            obs, mask, _ = self._view
            self._act(ids, rows, obs, mask, player, self._streams, actions)
            self._step_engine(actions, waiting)
        raise RuntimeError(f"{MAX_OPPONENT_ROUNDS} opponent rounds without a learner decision")

    def _observe(self) -> None:
        np.copyto(self._raw, self._view[0])
        self._mask[:] = self._view[1].astype(bool)
        if self.features is None:
            np.copyto(self._out, self._raw)
        else:
            self._out[:] = batch_features(self.features, self._raw)

    def _position_key(self, i: int) -> bytes:
        position = self._raw[i].copy()
        if self._turn_counter is not None:
            position[self._turn_counter] = 0.0
        return position.tobytes()

    # --- the VecEnv API --------------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        self._rng = np.random.default_rng(seed)
        N, P = self.num_envs, self.num_players
        engine_seed = int(self._rng.integers(2**63))
        self._streams[:] = seed_states(int(self._rng.integers(2**63)), N * P).reshape(N, P, 4)
        self._bl_streams[:] = seed_states(int(self._rng.integers(2**63)), N)
        self._view = self.vec.reset(seed=engine_seed)
        self._draining[:] = False
        self._begin(self._rows)
        self._advance()
        self._ended = {}
        self._observe()
        if self.repeat_penalty:
            for i in range(N):
                self._positions[i].add(self._position_key(i))
        self.reset_infos = [
            {
                "seat": self.seats[int(self._learner[i])],
                "opponents": {
                    self.seats[s]: self.pool.label(int(self._assign[i, s]))
                    for s in range(P)
                    if s != self._learner[i]
                },
            }
            for i in range(N)
        ]
        self._reset_seeds()
        self._reset_options()
        self._has_reset = True
        return self._out.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if not self._has_reset:
            raise RuntimeError("step() before reset()")
        N = self.num_envs
        acts = self._actions
        in_range = (acts >= 0) & (acts < self.num_actions)
        legal = in_range.copy()
        legal[in_range] = self._mask[self._rows[in_range], acts[in_range]]
        terminal_obs = self._out.copy()
        self._ended = {}
        for bad in np.flatnonzero(~legal):
            seat = self.seats[int(self._learner[bad])]
            info = {"seat": seat, "illegal_action": True}
            self._ended[int(bad)] = _Ended(self.illegal_reward, False, info, illegal=True)
            self._draining[bad] = True
        if self.baseline is not None:
            check = np.flatnonzero(legal & ~self._deviated)
            if check.size:
                expected = np.zeros(N, dtype=np.int64)
                self._act(
                    np.full(check.size, -1), check, self._raw, self._mask, self._learner,
                    self._streams, expected, self._bl_streams,
                )  # fmt: skip
                self._deviated[check] = expected[check] != acts[check]
        self._acted |= legal
        self._step_engine(np.where(legal, acts, 0), legal)
        self._advance()
        ended = self._ended
        self._ended = {}
        self._observe()
        rewards = self._acc.copy()
        dones = np.zeros(N, dtype=bool)
        dones[list(ended)] = True
        going = ~dones
        self._episode_return[going] += rewards[going]
        self._acc[going] = 0.0
        infos: list[dict[str, Any]] = [{} for _ in range(N)]
        if self.repeat_penalty:
            for k in range(N):
                key = self._position_key(k)
                if going[k] and key in self._positions[k]:
                    rewards[k] -= self.repeat_penalty
                self._positions[k].add(key)
        baselines = self._baseline_results(ended) if self.baseline is not None else {}
        for game, end in ended.items():
            info = end.info
            truncated = False
            reward = end.reward
            if not end.illegal:
                truncated = end.truncated
                if truncated and self.truncation_reward is not None:
                    info["truncated_by_env"] = True
                    reward += self.truncation_reward
                    truncated = False
                if end.shadow is not None:
                    own = end.shadow[-1] + reward
                    baseline = baselines.get(game, own)
                    info["baseline_return"] = baseline
                    reward -= baseline
            info["TimeLimit.truncated"] = truncated
            info["terminal_observation"] = terminal_obs[game]
            rewards[game] = reward
            infos[game] = info
            self.reset_infos[game] = {"seat": self.seats[int(self._learner[game])]}
        return self._out.copy(), rewards.astype(np.float32), dones, infos

    def _baseline_results(self, ended: dict[int, _Ended]) -> dict[int, float]:
        """What the baseline gets in the learner's seat on the deals of ``ended`` where the
        learner deviated from it: the deals replayed in a second engine with the opponents'
        streams as they were at the deal's start."""
        rows = [i for i, e in ended.items() if e.shadow is not None and e.shadow[5]]
        if not rows:
            return {}
        if self._shadow is None:
            self._shadow = make_engine(self.game, self.num_envs, self.env_kwargs, self.tables)
        N, P = self.num_envs, self.num_players
        reset_options: dict[str, list[Any]] = {key: [None] * N for key in self._shadow.option_keys}
        learner = np.zeros(N, dtype=np.int64)
        assign = np.zeros((N, P), dtype=np.int64)
        streams = np.zeros((N, P, 4), dtype=np.uint64)
        bl_streams = np.zeros((N, 4), dtype=np.uint64)
        for i in rows:
            seat, ids, entries, start, bl_start, _, _ = ended[i].shadow  # type: ignore[misc]
            for key, entry in entries.items():
                reset_options[key][i] = entry
            learner[i], assign[i], streams[i], bl_streams[i] = seat, ids, start, bl_start
        shadow = self._shadow
        view = shadow.reset(seed=0, options=reset_options)
        active = np.zeros(N, dtype=bool)
        active[rows] = True
        total = np.zeros(N, dtype=np.float64)
        cut = np.zeros(N, dtype=bool)
        actions = np.zeros(N, dtype=np.int64)
        for _ in range(MAX_OPPONENT_ROUNDS):
            if not active.any():
                break
            index = np.flatnonzero(active)
            obs, mask, player = view
            ids = assign[index, player[index]]
            self._act(ids, index, obs, mask, player, streams, actions, bl_streams)
            out = shadow.step(actions, where=active)
            view, (rewards, terminated, truncated) = out[:3], out[3:6]
            total += np.where(active, rewards[self._rows, learner], 0.0)
            over = (terminated | truncated) & active
            cut |= over & truncated & ~terminated
            active &= ~over
        else:
            raise RuntimeError("the duplicate baseline's replay did not finish")
        if self.truncation_reward is not None:
            total += np.where(cut, self.truncation_reward, 0.0)
        return {i: float(total[i]) for i in rows}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, num_actions)`` bool."""
        return self._mask.copy()

    def add_snapshot(self, path: str) -> int:
        """Add a frozen learner snapshot (``NumpyPolicy`` ``.npz``) to the opponent pool."""
        return self.pool.add_snapshot(path)

    def snapshot_count(self) -> int:
        """How many learner snapshots the opponent pool holds."""
        return len(self.pool.snapshots)

    def close(self) -> None:
        self._shadow = None

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            return [self._mask[i].copy() for i in chosen]
        result = getattr(self, method_name)(*method_args, **method_kwargs)  # once for all games
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


__all__ = [
    "check_batched_support",
    "check_tables_option",
    "BATCHED_GAMES",
    "BatchedOpponentPool",
    "BatchedSingleSeatVecEnv",
    "make_engine",
]
