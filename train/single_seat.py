"""A single-agent Gymnasium view of either AEC game, for training one seat with MaskablePPO.

:class:`SingleSeatEnv` seats the learner at one seat of a game's ``raw_env`` (any game of
:mod:`folkcards.envs.registry`) and plays every other seat with opponents drawn from an
:class:`~folkcards.train.opponents.OpponentPool`, through the one episode loop
(:func:`folkcards.agents.episode.advance`):

- **Seat.** Drawn uniformly from the env's RNG at every ``reset`` (``seat=`` fixes it;
  ``reset(options={"seat": k})`` fixes it for one episode).
- **Opponents.** For every episode, each other seat (``per_seat=True``) or all of them together
  get an entry of the pool by weight (see :mod:`folkcards.train.opponents`): a
  :func:`~folkcards.agents.make_agent` spec or ``"self"``, a frozen snapshot of the learner
  added with :meth:`SingleSeatEnv.add_snapshot`. ``reset(options={"opponents": [...]})``
  fixes them for one episode (one spec per other seat).
- **Spaces.** ``observation_space`` is the AEC ``observation`` Box of the learner (extended by
  the derived features of ``features=NAME``, a :mod:`folkcards.agents.features` set); the action
  space is ``Discrete(num_actions)``; :meth:`~SingleSeatEnv.action_masks` gives the learner's
  current mask (all zeros once the episode is over), as sb3-contrib's MaskablePPO expects.
- **Rewards.** Every reward that belongs to the learner reaches it: the reward of a ``step``
  is everything credited to the learner (the AEC env's ``rewards``, summed by the episode loop)
  from its action up to its next turn or the end of the episode — also when an opponent's action
  ends it; anything credited before its first turn is added to its first step. So over an episode
  the learner's rewards sum to exactly what the AEC env pays that seat (in Paston: the deal's
  table score × ``reward_scale``).
- **End.** ``terminated`` when the learner is terminated (deal/round over, match over or
  eliminated), ``truncated`` when the AEC env truncates it (e.g. Tri Palki's ``max_turns``;
  PPO then bootstraps from the value of the last state). ``truncation_reward=r`` instead ends a
  truncated episode as ``terminated`` with an extra reward ``r`` (Tri Palki pays no stick on
  truncation, so without it stalling a round is a way to avoid sticks; ``-1.0`` makes a
  truncation as bad as a stick). ``info`` then holds the learner's AEC infos (``deal_score``,
  ``tricks``, ... / ``stick``, ``sticks``, ...) plus ``seat`` (and ``truncated_by_env``).
- **Duplicate baseline** (``duplicate_baseline=SPEC``, off by default). The learner's final
  reward becomes its own result minus what the agent ``SPEC`` (e.g. ``"heuristic"``) gets in
  the learner's seat on the same deal against the same opponents making the same random choices
  (``info["baseline_return"]``). The term does not depend on the learner's actions, so the
  policy gradient keeps its expectation while the luck of the deal cancels: when the learner
  plays as the baseline would, its episode's rewards sum to exactly 0. Rewards then sum to the
  learner's score *minus* the baseline's, not to the table score. The baseline's deal is played
  (in a second env, from the start) only if the learner chose differently from it at some
  decision; otherwise it is the learner's own episode. Both plays start the same: every agent at
  the table reseeded with its seat's seed of the deal (:meth:`Agent.reseed`, which reaches the
  generators of a search inside an agent) and reset.
- **Repeated positions** (``repeat_penalty=p``, 0 by default). In Tri Palki a player can
  swap a card out and back again while everyone else passes: the round never ends and is
  truncated at ``max_turns``. A sampling policy soon breaks such a cycle at no cost, so it never
  learns that its greedy (argmax) version would stall forever. With ``p > 0`` the learner's
  action that brings it back to a decision it has already faced in this episode (the same
  observation apart from the game's turn counter, :meth:`GameSpec.turn_counter_index`) is
  rewarded ``-p``.
- **Illegal actions** (``check_env`` samples unmasked actions) end the episode with
  ``illegal_reward`` and ``info["illegal_action"] = True``.
- **Episodes without a decision.** A deal that ends before the learner ever acts (a Tri Palki
  round that ends at the deal or before the learner's turn) is skipped: ``reset`` deals again.
- **Determinism.** Given ``reset(seed=s)``, the seat, the deal, the opponents and their random
  choices all come from the env's RNG: same seed and same learner actions ⇒ same episode.

:class:`SingleSeatEnvFactory` is a picklable zero-argument constructor for ``SubprocVecEnv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import gymnasium as gym
import numpy as np
from folkcards.agents import make_agent
from folkcards.agents.episode import EpisodeRun, advance
from folkcards.agents.features import get_feature_set
from folkcards.envs.registry import DEFAULT_GAME, game_spec
from gymnasium import spaces

from .opponents import OpponentPool, describe

MAX_SKIPPED_DEALS = 1000
MAX_OPPONENT_ACTIONS = 100_000


def make_aec_env(game: str, **kwargs: Any) -> Any:
    """The raw AEC env of ``game`` (its registry entry's ``raw_env(**kwargs)``)."""
    return game_spec(game).raw_env(**kwargs)


@dataclass
class _Leg:
    """What happened between two learner decisions (or up to the end of its episode)."""

    reward: float
    finished: bool
    truncated: bool = False
    info: dict[str, Any] = field(default_factory=dict)


def seat_index(seat: int | str, seats: Sequence[str]) -> int:
    """The index of ``seat``, given by name or by index; ``ValueError`` naming the choices."""
    if isinstance(seat, str) and seat in seats:
        return list(seats).index(seat)
    if (
        isinstance(seat, (int, np.integer))
        and not isinstance(seat, bool)
        and 0 <= seat < len(seats)
    ):
        return int(seat)
    raise ValueError(
        f"seat must be one of {list(seats)} or an index below {len(seats)}, got {seat!r}"
    )


def learner_observation_space(box: spaces.Box, features: Any) -> spaces.Box:
    """The learner's observation space: the env's observation box, or with a feature set its
    longer unbounded vector."""
    if features is None:
        return spaces.Box(box.low, box.high, box.shape, np.float32)
    return spaces.Box(-np.inf, np.inf, (features.size(box.shape[0]),), np.float32)


class SingleSeatEnv(gym.Env):
    """One seat of a folkcards AEC game as a Gymnasium env; see the module docstring."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        env_kwargs: dict[str, Any] | None = None,
        opponents: Sequence[Any] = ("random",),
        seat: int | str | None = None,
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        per_seat: bool = True,
        illegal_reward: float = -1.0,
        snapshots: Sequence[str] = (),
        render_mode: str | None = None,
        truncation_reward: float | None = None,
        features: str | None = None,
        duplicate_baseline: str | None = None,
        repeat_penalty: float = 0.0,
    ):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if not repeat_penalty >= 0:
            raise ValueError(f"repeat_penalty must be >= 0, got {repeat_penalty!r}")
        self.game_spec = game_spec(game)
        self.game = self.game_spec.name
        self.env_kwargs = dict(env_kwargs or {})
        self.render_mode = render_mode
        self.aec = make_aec_env(self.game, render_mode=render_mode, **self.env_kwargs)
        self.seats = list(self.aec.possible_agents)
        self.features = None if features is None else get_feature_set(features, self.game)
        self.observation_space = self._observation_space()
        self.num_actions = int(self.aec.action_space(self.seats[0]).n)
        self.action_space = spaces.Discrete(self.num_actions)
        self.fixed_seat = None if seat is None else self._seat_name(seat)
        self.pool = OpponentPool(
            self.game, opponents, max_snapshots, snapshot_deterministic, per_seat
        )
        for path in snapshots:
            self.pool.add_snapshot(path)
        self.illegal_reward = float(illegal_reward)
        self.truncation_reward = None if truncation_reward is None else float(truncation_reward)
        self.repeat_penalty = float(repeat_penalty)
        self.learner = self.seats[0]
        self.opponents: dict[str, Any] = {}
        self._obs: dict[str, np.ndarray] = {}
        self._mask = np.zeros(self.num_actions, dtype=bool)
        self._done = True
        self._final_info: dict[str, Any] = {}
        self._carry = 0.0
        self._positions: set[bytes] = set()
        self._repeated = False
        self._turn_counter = self.game_spec.turn_counter_index(len(self.seats))
        self.duplicate_baseline = duplicate_baseline
        self._baseline_agents: dict[str, Any] = {}
        if duplicate_baseline is not None:  # built now: an unknown spec fails early
            self._baseline_agents = {
                s: make_agent(duplicate_baseline, self.game, s) for s in self.seats
            }
        self._table_seeds: dict[str, int] = {}  # each seat's agent seed of this deal
        self._deal: tuple[int, dict[str, Any] | None] = (0, None)
        self._deviated = False
        self._episode_return = 0.0
        self._shadow: Any = None

    def _observation_space(self) -> spaces.Box:
        return learner_observation_space(
            self.aec.observation_space(self.seats[0])["observation"], self.features
        )

    # --- helpers ----------------------------------------------------------------------------

    def _seat_name(self, seat: int | str) -> str:
        return self.seats[seat_index(seat, self.seats)]

    def _learner_finished(self, aec: Any) -> bool:
        learner = self.learner
        return (
            learner not in aec.agents
            or aec.terminations.get(learner, True)
            or aec.truncations.get(learner, True)
        )

    def _play_until_learner(
        self, aec: Any, table: dict[str, Any], run: EpisodeRun, learner_in_table: bool = False
    ) -> _Leg:
        """Let ``table`` play ``aec`` until the learner is to act (unless ``learner_in_table``)
        or its episode is over; what the learner was credited meanwhile (``run`` starts empty
        or holds the reset's rewards)."""
        learner = self.learner

        def stop(name: str) -> bool:
            return (name == learner and not learner_in_table) or self._learner_finished(aec)

        advance(aec, table, run, stop=stop, max_steps=MAX_OPPONENT_ACTIONS)
        reward = run.returns.get(learner, 0.0)
        if not self._learner_finished(aec):
            return _Leg(reward, finished=False)
        if learner in aec.agents:  # finished, but its last (None) step is still to come
            truncated = bool(aec.truncations[learner] and not aec.terminations[learner])
            return _Leg(reward, True, truncated, dict(aec.infos.get(learner, {})))
        return _Leg(reward, True, run.truncated, dict(run.final_infos.get(learner, {})))

    def _after_opponents(self, leg: _Leg) -> None:
        if leg.finished:
            self._done = True
            self._mask = np.zeros(self.num_actions, dtype=bool)
            self._final_info = {**leg.info, "seat": self.learner}
            return
        self._obs = self.aec.observe(self.learner)
        if self.repeat_penalty:
            self._note_position(self._obs["observation"])
        self._mask = self._obs["action_mask"].astype(bool)

    def _note_position(self, vector: np.ndarray) -> None:
        position = np.array(vector, dtype=np.float32)
        if self._turn_counter is not None:
            position[self._turn_counter] = 0.0
        key = position.tobytes()
        self._repeated = key in self._positions
        self._positions.add(key)

    def _start_table(self, table: dict[str, Any]) -> None:
        """Every agent of ``table`` reseeded with its seat's seed of this deal, and reset."""
        for seat_name, agent in table.items():
            agent.reseed(self._table_seeds[seat_name])
            agent.reset()

    def _baseline_result(self) -> float:
        """What the baseline agent gets in the learner's seat on this episode's deal, played from
        the start in a second env by the same agents reseeded and reset as at the deal's start
        (their searches' memories and generators included); called once the learner's episode
        is over, whose opponents are reseeded at the next deal."""
        if self._shadow is None:
            self._shadow = make_aec_env(self.game, **self.env_kwargs)
        aec, learner = self._shadow, self.learner
        table = {**self.opponents, learner: self._baseline_agents[learner]}
        self._start_table(table)
        deal_seed, options = self._deal
        aec.reset(seed=deal_seed, options=options)
        run = EpisodeRun()
        run.note_rewards(aec.rewards)
        leg = self._play_until_learner(aec, table, run, learner_in_table=True)
        total = leg.reward
        if leg.truncated and self.truncation_reward is not None:
            total += self.truncation_reward
        return total

    def _observation(self) -> np.ndarray:
        vector = np.asarray(self.learner_observation()["observation"], dtype=np.float32)
        return vector if self.features is None else self.features(vector)

    # --- the Gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        seat_option = options.pop("seat", None)
        opponent_specs = options.pop("opponents", None)
        for _ in range(MAX_SKIPPED_DEALS):
            leg = self._deal_once(seat_option, opponent_specs, options or None)
            if not leg.finished:
                break
        else:
            raise RuntimeError(
                f"{MAX_SKIPPED_DEALS} deals in a row ended before the learner could act"
            )
        # Anything credited before the learner's first action joins its first step's reward.
        self._carry = leg.reward
        self._episode_return = 0.0
        info = {
            "seat": self.learner,
            "opponents": {s: describe(a) for s, a in self.opponents.items()},
        }
        return self._observation(), info

    def _deal_once(
        self, seat_option: Any, opponent_specs: Any, options: dict[str, Any] | None
    ) -> _Leg:
        """Choose the seat, deal, seat the opponents and play up to the learner's first turn."""
        rng = self.np_random
        if seat_option is not None:
            self.learner = self._seat_name(seat_option)
        elif self.fixed_seat is not None:
            self.learner = self.fixed_seat
        else:
            self.learner = self.seats[int(rng.integers(len(self.seats)))]
        deal_seed = int(rng.integers(2**63))
        self.aec.reset(seed=deal_seed, options=options)
        others = [s for s in self.seats if s != self.learner]
        if opponent_specs is not None:
            if isinstance(opponent_specs, str) or len(opponent_specs) != len(others):
                raise ValueError(
                    f"option 'opponents' must list {len(others)} agent specs, one per other seat"
                )
            self.opponents = {
                s: self.pool.seat(spec, s, rng)
                for s, spec in zip(others, opponent_specs, strict=True)
            }
        else:
            self.opponents = self.pool.draw(rng, others)
        if self.duplicate_baseline is not None:
            baseline = self._baseline_agents[self.learner]
            self._table_seeds = {s: self.pool.seeds[s] for s in self.opponents}
            self._table_seeds[self.learner] = int(rng.integers(2**63))
            self._start_table({self.learner: baseline})  # the opponents were, as they were drawn
            self._deal = (deal_seed, options)
            self._deviated = False
        self._done = False
        self._positions.clear()
        run = EpisodeRun()
        run.note_rewards(self.aec.rewards)
        leg = self._play_until_learner(self.aec, self.opponents, run)
        self._after_opponents(leg)
        return leg

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("step() after the end of the episode: call reset()")
        try:
            action_id = int(action)
        except (TypeError, ValueError):
            action_id = -1
        if not (0 <= action_id < self.num_actions and self._mask[action_id]):
            self._done = True
            self._mask = np.zeros(self.num_actions, dtype=bool)
            info = {**self.aec.infos.get(self.learner, {}), "seat": self.learner}
            info["illegal_action"] = True
            return self._observation(), self.illegal_reward, True, False, info
        if self.duplicate_baseline is not None and not self._deviated:
            expected = self._baseline_agents[self.learner].act(self._obs)
            self._deviated = expected != action_id
        self.aec.step(action_id)
        run = EpisodeRun()
        run.note_rewards(self.aec.rewards)
        leg = self._play_until_learner(self.aec, self.opponents, run)
        self._after_opponents(leg)
        reward = leg.reward + self._carry
        self._carry = 0.0
        penalty = self.repeat_penalty if self._repeated else 0.0
        self._repeated = False
        if not self._done:
            self._episode_return += reward
            return self._observation(), reward - penalty, False, False, {}
        return self._final_step(reward, leg.truncated)

    def _final_step(
        self, reward: float, truncated: bool
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The step that ends the learner's episode: truncation reward and duplicate baseline."""
        truncation_scored = truncated and self.truncation_reward is not None
        info = dict(self._final_info)
        if truncated and self.truncation_reward is not None:
            info["truncated_by_env"] = True
            reward += self.truncation_reward
        if self.duplicate_baseline is not None:
            own = self._episode_return + reward
            baseline = self._baseline_result() if self._deviated else own
            info["baseline_return"] = baseline
            reward -= baseline
        if truncation_scored:
            return self._observation(), reward, True, False, info
        return self._observation(), reward, not truncated, truncated, info

    def learner_observation(self) -> dict[str, np.ndarray]:
        """The learner's AEC observation dict (``observation`` and ``action_mask``) now."""
        return self.aec.observe(self.learner) if self._done else self._obs

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool; all False once the episode is over)."""
        return self._mask.copy()

    def render(self) -> str | None:  # type: ignore[override]
        if self.render_mode != "ansi":
            return None
        return f"learner: {self.learner}\n" + str(self.aec.render())

    # --- self-play snapshots -----------------------------------------------------------------------

    def add_snapshot(self, path: str) -> int:
        """Add a frozen learner snapshot (``NumpyPolicy`` ``.npz``) to the opponent pool."""
        return self.pool.add_snapshot(path)

    def snapshot_count(self) -> int:
        """How many learner snapshots the opponent pool holds."""
        return len(self.pool.snapshots)


@dataclass
class SingleSeatEnvFactory:
    """A picklable ``() -> SingleSeatEnv`` (for ``SubprocVecEnv``): the env's arguments."""

    game: str = DEFAULT_GAME
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    opponents: tuple[Any, ...] = ("random",)
    seat: int | str | None = None
    max_snapshots: int = 10
    snapshot_deterministic: bool = False
    per_seat: bool = True
    illegal_reward: float = -1.0
    snapshots: tuple[str, ...] = ()
    truncation_reward: float | None = None
    features: str | None = None
    duplicate_baseline: str | None = None
    repeat_penalty: float = 0.0

    def __call__(self) -> SingleSeatEnv:
        return SingleSeatEnv(**{f.name: getattr(self, f.name) for f in fields(self)})


__all__ = ["SingleSeatEnv", "SingleSeatEnvFactory", "make_aec_env"]
