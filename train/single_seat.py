"""A single-agent Gymnasium view of either AEC game, for training one seat with MaskablePPO.

:class:`SingleSeatEnv` seats the learner at one seat of a Paston or Tri Palki ``raw_env`` and
plays every other seat with opponents drawn from an :class:`OpponentPool`:

- **Seat.** Drawn uniformly from the env's RNG at every ``reset`` (``seat=`` fixes it;
  ``reset(options={"seat": k})`` fixes it for one episode).
- **Opponents.** For every episode, each other seat (``per_seat=True``) or all of them together
  get an entry of the pool by weight: a :func:`~folkcards.agents.make_agent` spec (``"random"``,
  ``"heuristic"``, ``"ppo:PATH"``) or ``"self"`` — a frozen snapshot of the learner
  (:class:`~folkcards.agents.ppo_agent.NumpyPolicy` ``.npz`` files added with
  :meth:`SingleSeatEnv.add_snapshot`; the newest ``max_snapshots`` are kept and drawn uniformly;
  ``"self"`` is left out while there is none).
- **Spaces.** ``observation_space`` is the AEC ``observation`` Box of the learner (extended by
  the derived features of ``features=NAME``, a :mod:`folkcards.agents.features` set); the action
  space is ``Discrete(num_actions)``; :meth:`~SingleSeatEnv.action_masks` gives the learner's
  current mask (all zeros once the episode is over), as sb3-contrib's MaskablePPO expects.
- **Rewards.** Every reward that belongs to the learner reaches it: the reward of a ``step``
  is everything credited to the learner (the AEC ``_cumulative_rewards`` read by ``last()``)
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
  decision; otherwise it is the learner's own episode. This assumes the opponents' only state
  is their random generator, as for every built-in agent.
- **Repeated positions** (``repeat_penalty=p``, 0 by default). In Tri Palki a player can
  swap a card out and back again while everyone else passes: the round never ends and is
  truncated at ``max_turns``. A sampling policy soon breaks such a cycle at no cost, so it never
  learns that its greedy (argmax) version would stall forever. With ``p > 0`` the learner's
  action that brings it back to a decision it has already faced in this episode (the same
  observation apart from the turn counter) is rewarded ``-p``.
- **Illegal actions** (``check_env`` samples unmasked actions) end the episode with
  ``illegal_reward`` and ``info["illegal_action"] = True``.
- **Episodes without a decision.** A deal that ends before the learner ever acts (a Tri Palki
  round that ends at the deal or before the learner's turn) is skipped: ``reset`` deals again.
- **Determinism.** Given ``reset(seed=s)``, the seat, the deal, the opponents and their random
  choices all come from the env's RNG: same seed and same learner actions ⇒ same episode.

:class:`SingleSeatEnvFactory` is a picklable zero-argument constructor for ``SubprocVecEnv``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

GAMES = ("paston", "tri_palki")
SELF = "self"
MAX_SKIPPED_DEALS = 1000
MAX_OPPONENT_ACTIONS = 100_000


def make_aec_env(game: str, **kwargs: Any) -> Any:
    """The raw AEC env of ``game`` (``folkcards.envs.<game>_v0.raw_env(**kwargs)``)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
    module = importlib.import_module(f"folkcards.envs.{game}_v0")
    return module.raw_env(**kwargs)


@dataclass(frozen=True)
class OpponentEntry:
    """One entry of the pool: a ``make_agent`` spec (or ``"self"``) and its weight."""

    spec: str
    weight: float = 1.0


def parse_entries(entries: Sequence[Any]) -> tuple[OpponentEntry, ...]:
    """Accept ``OpponentEntry``, ``"spec"``, ``("spec", weight)`` or ``{"spec":, "weight":}``."""
    out = []
    for entry in entries:
        if isinstance(entry, OpponentEntry):
            out.append(entry)
        elif isinstance(entry, str):
            out.append(OpponentEntry(entry))
        elif isinstance(entry, dict):
            out.append(OpponentEntry(str(entry["spec"]), float(entry.get("weight", 1.0))))
        else:
            spec, weight = entry
            out.append(OpponentEntry(str(spec), float(weight)))
    if not out:
        raise ValueError("the opponent pool is empty")
    for entry in out:
        if not entry.weight >= 0 or not np.isfinite(entry.weight):
            raise ValueError(
                f"opponent weight must be a finite number >= 0, got {entry.weight!r} for {entry.spec!r}"
            )
    if sum(e.weight for e in out) <= 0:
        raise ValueError("the opponent weights sum to 0")
    return tuple(out)


class OpponentPool:
    """Builds and caches the opponents for one env; see the module docstring."""

    def __init__(
        self,
        game: str,
        entries: Sequence[Any],
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        per_seat: bool = True,
    ):
        self.game = game
        self.entries = parse_entries(entries)
        self.max_snapshots = int(max_snapshots)
        self.snapshot_deterministic = bool(snapshot_deterministic)
        self.per_seat = bool(per_seat)
        self.snapshots: list[tuple[str, Any]] = []
        self._agents: dict[tuple[str, str], Any] = {}

    def add_snapshot(self, path: str | Path) -> int:
        """Load a :class:`NumpyPolicy` ``.npz`` into the pool; returns the pool's snapshot count."""
        from folkcards.agents.ppo_agent import NumpyPolicy

        path = str(path)
        policy = NumpyPolicy.load(path)
        self.snapshots.append((path, policy))
        if self.max_snapshots > 0:
            del self.snapshots[: max(0, len(self.snapshots) - self.max_snapshots)]
        kept = {f"{SELF}:{p}" for p, _ in self.snapshots}
        for key in [k for k in self._agents if k[0].startswith(f"{SELF}:") and k[0] not in kept]:
            del self._agents[key]  # forget the agents of dropped snapshots
        return len(self.snapshots)

    def _weights(self) -> tuple[list[OpponentEntry], np.ndarray]:
        usable = [e for e in self.entries if e.weight > 0 and (e.spec != SELF or self.snapshots)]
        if not usable:  # only "self" and no snapshot yet
            usable = [OpponentEntry("random", 1.0)]
        weights = np.array([e.weight for e in usable], dtype=np.float64)
        return usable, weights / weights.sum()

    def draw(self, rng: np.random.Generator, seats: Sequence[str]) -> dict[str, Any]:
        """One agent for each of ``seats``, reseeded from ``rng`` and reset."""
        entries, p = self._weights()
        picks = rng.choice(len(entries), size=len(seats) if self.per_seat else 1, p=p)
        if not self.per_seat:
            picks = np.repeat(picks, len(seats))
        agents = {}
        for seat, pick in zip(seats, picks, strict=True):
            agent = self._agent(entries[int(pick)].spec, seat, rng)
            agent.rng = np.random.default_rng(int(rng.integers(2**63)))
            agent.reset()
            agents[seat] = agent
        return agents

    def _agent(self, spec: str, seat: str, rng: np.random.Generator) -> Any:
        from folkcards.agents import make_agent
        from folkcards.agents.ppo_agent import PolicyAgent

        if spec == SELF:
            index = int(rng.integers(len(self.snapshots)))
            path, policy = self.snapshots[index]
            key = (f"{SELF}:{path}", seat)
            if key not in self._agents:
                self._agents[key] = PolicyAgent(
                    self.game,
                    seat,
                    policy=policy,
                    deterministic=self.snapshot_deterministic,
                    label=f"snapshot {Path(path).name}",
                )
            return self._agents[key]
        key = (spec, seat)
        if key not in self._agents:
            self._agents[key] = make_agent(spec, self.game, seat)
        return self._agents[key]


class SingleSeatEnv(gym.Env):
    """One seat of a folkcards AEC game as a Gymnasium env; see the module docstring."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str = "paston",
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
        self.game = game
        self.env_kwargs = dict(env_kwargs or {})
        self.aec = make_aec_env(game, **self.env_kwargs)
        self.seats = list(self.aec.possible_agents)
        box = self.aec.observation_space(self.seats[0])["observation"]
        self.features = None
        if features is None:
            self.observation_space = spaces.Box(box.low, box.high, box.shape, np.float32)
        else:
            from folkcards.agents.features import get_feature_set

            self.features = get_feature_set(features, game)
            size = self.features.size(box.shape[0])
            self.observation_space = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self.num_actions = int(self.aec.action_space(self.seats[0]).n)
        self.action_space = spaces.Discrete(self.num_actions)
        self.fixed_seat = None if seat is None else self._seat_name(seat)
        self.pool = OpponentPool(game, opponents, max_snapshots, snapshot_deterministic, per_seat)
        for path in snapshots:
            self.pool.add_snapshot(path)
        self.illegal_reward = float(illegal_reward)
        self.truncation_reward = None if truncation_reward is None else float(truncation_reward)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.learner = self.seats[0]
        self.opponents: dict[str, Any] = {}
        self._mask = np.zeros(self.num_actions, dtype=bool)
        self._done = True
        self._carry = 0.0
        self.duplicate_baseline = duplicate_baseline
        self._baseline_agents: dict[str, Any] = {}
        self._baseline_states: dict[str, Any] = {}  # the generators' states at the deal's start
        self._deal: tuple[int, dict[str, Any] | None] = (0, None)
        self._deviated = False
        self._episode_return = 0.0
        self._shadow: Any = None
        if not repeat_penalty >= 0:
            raise ValueError(f"repeat_penalty must be >= 0, got {repeat_penalty!r}")
        self.repeat_penalty = float(repeat_penalty)
        self._positions: set[bytes] = set()
        self._repeated = False
        self._turn_counter: int | None = None
        if game == "tri_palki":
            from folkcards.envs.tri_palki.observation import observation_offsets

            self._turn_counter = observation_offsets(len(self.seats))["turns"]
        if duplicate_baseline is not None:
            from folkcards.agents import make_agent

            for seat_name in self.seats:  # fails early on an unknown spec
                self._baseline_agents[seat_name] = make_agent(duplicate_baseline, game, seat_name)

    # --- helpers ----------------------------------------------------------------------------

    def _seat_name(self, seat: int | str) -> str:
        if isinstance(seat, str) and seat in self.seats:
            return seat
        if (
            isinstance(seat, (int, np.integer))
            and not isinstance(seat, bool)
            and 0 <= seat < len(self.seats)
        ):
            return self.seats[int(seat)]
        raise ValueError(
            f"seat must be one of {self.seats} or an index below {len(self.seats)}, got {seat!r}"
        )

    def _learner_finished(self, aec: Any = None) -> bool:
        aec = self.aec if aec is None else aec
        learner = self.learner
        return (
            learner not in aec.agents
            or aec.terminations.get(learner, True)
            or aec.truncations.get(learner, True)
        )

    def _play_opponents(self) -> None:
        """Step the other seats until the learner is to act or its episode is over."""
        aec, learner = self.aec, self.learner
        for _ in range(MAX_OPPONENT_ACTIONS):
            if self._learner_finished():
                self._done = True
                self._mask = np.zeros(self.num_actions, dtype=bool)
                return
            agent = aec.agent_selection
            if agent == learner:
                self._obs = aec.observe(learner)
                if self.repeat_penalty:
                    self._note_position(self._obs["observation"])
                self._mask = self._obs["action_mask"].astype(bool)
                return
            if aec.terminations[agent] or aec.truncations[agent]:
                aec.step(None)
            else:
                aec.step(self.opponents[agent].act(aec.observe(agent)))
        raise RuntimeError(f"the opponents made {MAX_OPPONENT_ACTIONS} actions in a row")

    def _note_position(self, vector: np.ndarray) -> None:
        position = np.array(vector, dtype=np.float32)
        if self._turn_counter is not None:
            position[self._turn_counter] = 0.0
        key = position.tobytes()
        self._repeated = key in self._positions
        self._positions.add(key)

    def _baseline_result(self) -> float:
        """What the baseline agent gets in the learner's seat on this episode's deal, played from
        the start in a second env with every generator as it was at the start; the generators
        are left as they were found."""
        if self._shadow is None:
            self._shadow = make_aec_env(self.game, **self.env_kwargs)
        aec, learner = self._shadow, self.learner
        baseline = self._baseline_agents[learner]
        table = {**self.opponents, learner: baseline}
        current = {s: a.rng.bit_generator.state for s, a in table.items()}
        for seat_name, agent in table.items():
            agent.rng.bit_generator.state = self._baseline_states[seat_name]
        deal_seed, options = self._deal
        aec.reset(seed=deal_seed, options=options)
        total = float(aec._cumulative_rewards[learner])
        for _ in range(MAX_OPPONENT_ACTIONS):
            if self._learner_finished(aec):
                break
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                aec.step(None)
            else:
                aec.step(table[agent].act(aec.observe(agent)))
            total += float(aec.rewards.get(learner, 0.0))
        if self._truncated(aec) and self.truncation_reward is not None:
            total += self.truncation_reward
        for seat_name, agent in table.items():
            agent.rng.bit_generator.state = current[seat_name]
        return total

    def _truncated(self, aec: Any) -> bool:
        learner = self.learner
        return bool(aec.truncations.get(learner, False)) and not aec.terminations.get(
            learner, False
        )

    def _observation(self) -> np.ndarray:
        raw = self.learner_observation()
        vector = np.asarray(raw["observation"], dtype=np.float32)
        return vector if self.features is None else self.features(vector)

    def _final_info(self) -> dict[str, Any]:
        info = dict(self.aec.infos.get(self.learner, {}))
        info["seat"] = self.learner
        return info

    # --- the Gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        seat_option = options.pop("seat", None)
        opponent_specs = options.pop("opponents", None)
        rng = self.np_random
        for _ in range(MAX_SKIPPED_DEALS):
            if seat_option is not None:
                self.learner = self._seat_name(seat_option)
            elif self.fixed_seat is not None:
                self.learner = self.fixed_seat
            else:
                self.learner = self.seats[int(rng.integers(len(self.seats)))]
            deal_seed = int(rng.integers(2**63))
            self.aec.reset(seed=deal_seed, options=options or None)
            others = [s for s in self.seats if s != self.learner]
            if opponent_specs is not None:
                if isinstance(opponent_specs, str) or len(opponent_specs) != len(others):
                    raise ValueError(
                        f"option 'opponents' must list {len(others)} agent specs, one per other seat"
                    )
                self.opponents = {
                    s: self._fixed_opponent(spec, s, rng)
                    for s, spec in zip(others, opponent_specs, strict=True)
                }
            else:
                self.opponents = self.pool.draw(rng, others)
            if self.duplicate_baseline is not None:
                baseline = self._baseline_agents[self.learner]
                baseline.rng = np.random.default_rng(int(rng.integers(2**63)))
                baseline.reset()
                self._deal = (deal_seed, options or None)
                self._deviated = False
                self._baseline_states = {
                    s: a.rng.bit_generator.state
                    for s, a in {**self.opponents, self.learner: baseline}.items()
                }
            self._done = False
            self._positions.clear()
            self._play_opponents()
            if not self._done:
                break
        else:
            raise RuntimeError(
                f"{MAX_SKIPPED_DEALS} deals in a row ended before the learner could act"
            )
        # Anything credited before the learner's first action joins its first step's reward.
        self._carry = float(self.aec._cumulative_rewards[self.learner])
        self._episode_return = 0.0
        info = {
            "seat": self.learner,
            "opponents": {s: _describe(a) for s, a in self.opponents.items()},
        }
        return self._observation(), info

    def _fixed_opponent(self, spec: str, seat: str, rng: np.random.Generator) -> Any:
        agent = self.pool._agent(spec, seat, rng)
        agent.rng = np.random.default_rng(int(rng.integers(2**63)))
        agent.reset()
        return agent

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
            info = self._final_info()
            info["illegal_action"] = True
            return self._observation(), self.illegal_reward, True, False, info
        if self.duplicate_baseline is not None and not self._deviated:
            expected = self._baseline_agents[self.learner].act(self._obs)
            self._deviated = expected != action_id
        self.aec.step(action_id)
        self._play_opponents()
        reward = float(self.aec._cumulative_rewards[self.learner]) + self._carry
        self._carry = 0.0
        penalty = self.repeat_penalty if self._repeated else 0.0
        self._repeated = False
        if not self._done:
            self._episode_return += reward
            return self._observation(), reward - penalty, False, False, {}
        truncated = self._truncated(self.aec)
        truncation_scored = truncated and self.truncation_reward is not None
        info = self._final_info()
        if truncation_scored:
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

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return f"learner: {self.learner}\n" + self.aec._render_text()

    # --- self-play snapshots -----------------------------------------------------------------------

    def add_snapshot(self, path: str) -> int:
        """Add a frozen learner snapshot (``NumpyPolicy`` ``.npz``) to the opponent pool."""
        return self.pool.add_snapshot(path)

    def snapshot_count(self) -> int:
        return len(self.pool.snapshots)


def _describe(agent: Any) -> str:
    return str(getattr(agent, "label", None) or getattr(agent, "name", type(agent).__name__))


@dataclass
class SingleSeatEnvFactory:
    """A picklable ``() -> SingleSeatEnv`` (for ``SubprocVecEnv``)."""

    game: str = "paston"
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
        return SingleSeatEnv(
            self.game,
            self.env_kwargs,
            self.opponents,
            seat=self.seat,
            max_snapshots=self.max_snapshots,
            snapshot_deterministic=self.snapshot_deterministic,
            per_seat=self.per_seat,
            illegal_reward=self.illegal_reward,
            snapshots=self.snapshots,
            truncation_reward=self.truncation_reward,
            features=self.features,
            duplicate_baseline=self.duplicate_baseline,
            repeat_penalty=self.repeat_penalty,
        )


__all__ = [
    "OpponentEntry",
    "OpponentPool",
    "SingleSeatEnv",
    "SingleSeatEnvFactory",
    "make_aec_env",
]
