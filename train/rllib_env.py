"""Both games as RLlib multi-agent envs, built from their PettingZoo AEC envs.

:class:`FolkcardsMultiAgentEnv` is turn-based: each ``reset``/``step`` returns an observation
only for the learner seat to act next, as a dict ``{"observations": float32 vector,
"action_mask": float32 0/1}`` (the form RLlib's action-masking example and
:class:`~folkcards.train.rllib_module.MaskedPPOModule` expect).

**Rewards.** The AEC env pays rewards to every seat after any seat's step (``env.rewards`` holds
what the last step paid; a trick, a contract result, a stick). They are summed per seat and
handed over when that seat next gets an observation — the reward of its previous action, whoever
acted since — and at the end of the episode every learner seat that has acted receives what is
left, with its final observation (an all-zero mask) and ``terminated`` (or ``truncated`` when the
env cut the episode). PettingZoo's own RLlib wrapper reads ``env.last()`` for the seat to act
only and so loses the rewards paid to the others; here nothing is lost (tested: a seat's RLlib
rewards sum to its AEC return). A seat eliminated before the end (Tri Palki match mode) gets its
final observation at the end of the episode too.

**Opponents inside the env.** ``opponents`` (a list of agent specs with weights, e.g.
``[{spec: heuristic, weight: 1}]``) and ``learner_seats`` (how many seats the learner plays per
episode) make the remaining seats env-internal agents, drawn by weight for every episode and
stepped by :func:`folkcards.agents.episode.advance`: RLlib never sees them. ``self`` in the list
is a frozen snapshot of the learner: one of the policy files in ``snapshot_dir`` (written by the
trainer, :mod:`.rllib_train`), played by :class:`~folkcards.agents.rllib_agent.RLlibAgent`;
while there is none, that seat is a learner seat. Without ``opponents`` every seat is the
learner's (pure self-play).

Seeds: ``env_config["seed"]`` (plus RLlib's worker and vector indices) seeds the env's own
Generator, which draws every episode's deal seed, learner seats and opponents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from folkcards.agents import make_agent
from folkcards.agents.episode import EpisodeRun, advance
from folkcards.envs.registry import DEFAULT_GAME, game_spec
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from .opponents import SELF, parse_entries

SNAPSHOT_RESCAN = 50  # episodes between looks at snapshot_dir for new snapshots


def env_config_seed(config: Any) -> int:
    """The env's seed: the config's ``seed`` mixed with RLlib's worker and vector indices."""
    base = int(config.get("seed", 0)) if hasattr(config, "get") else 0
    worker = int(getattr(config, "worker_index", 0) or 0)
    vector = int(getattr(config, "vector_index", 0) or 0)
    return int(np.random.SeedSequence([base, worker, vector]).generate_state(1)[0])


class FolkcardsMultiAgentEnv(MultiAgentEnv):
    """One game as an RLlib ``MultiAgentEnv``; see the module docstring.

    ``config``: ``game`` (name or alias), ``env_kwargs`` (the game's ``raw_env`` arguments),
    ``seed``, ``opponents`` (optional list of ``{spec, weight}``), ``learner_seats`` (default:
    all seats when there are no opponents, else 1), ``snapshot_dir`` (for ``self``).
    """

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = config or {}
        self.game = game_spec(config.get("game", DEFAULT_GAME))
        self.env = self.game.raw_env(**dict(config.get("env_kwargs") or {}))
        self.seats: list[str] = list(self.env.possible_agents)
        self.possible_agents = list(self.seats)
        self.agents = list(self.seats)
        inner = self.env.observation_space(self.possible_agents[0])["observation"]
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(0.0, 1.0, inner.shape, dtype=np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (self.game.num_actions,), dtype=np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.seats, space)
        self.action_spaces = dict.fromkeys(self.seats, gym.spaces.Discrete(self.game.num_actions))
        self.rng = np.random.default_rng(env_config_seed(config))
        raw_opponents = config.get("opponents") or []
        self.opponents = parse_entries(raw_opponents) if raw_opponents else ()
        n = len(self.seats)
        seats = config.get("learner_seats")
        self.learner_seats = int(seats if seats is not None else (1 if self.opponents else n))
        if not 1 <= self.learner_seats <= n:
            raise ValueError(f"learner_seats must be from 1 to {n}, got {self.learner_seats}")
        if self.learner_seats < n and not self.opponents:
            raise ValueError("learner_seats below the table size needs opponents")
        self.snapshot_dir = config.get("snapshot_dir")
        self._snapshots: list[str] = []
        self._episodes = 0
        self._cache: dict[tuple[str, str], Any] = {}
        self.learners: set[str] = set(self.seats)
        self.table: dict[str, Any] = {}
        self.pending: dict[str, float] = {}
        self.acted: set[str] = set()
        self.run = EpisodeRun()

    # --- the episode ---------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[Any, Any], dict[Any, Any]]:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._draw_table()
        self.env.reset(seed=int(self.rng.integers(2**63)), options=options)
        self.agents = list(self.seats)
        self.pending = dict.fromkeys(self.seats, 0.0)
        self.acted = set()
        self.run = EpisodeRun()
        self._collect(self.env.rewards)
        return self._advance()[0], {}

    def step(  # type: ignore[override]
        self, action_dict: dict[Any, Any]
    ) -> tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any], dict[Any, Any], dict[Any, Any]]:
        agent = self.env.agent_selection
        if agent not in action_dict:
            raise ValueError(f"no action for {agent}, the seat to act (got {sorted(action_dict)})")
        self.env.step(int(action_dict[agent]))
        self.acted.add(agent)
        self._collect(self.env.rewards)
        obs, rewards, terminated, truncated = self._advance()
        return obs, rewards, terminated, truncated, {}

    def _collect(self, rewards: dict[str, float]) -> None:
        for name, reward in rewards.items():
            self.pending[name] = self.pending.get(name, 0.0) + float(reward)

    def _advance(self) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool]]:
        """Step env-internal seats and dead agents until a learner seat is to act or the end."""
        while self.env.agents:
            name = self.env.agent_selection
            if self.env.terminations[name] or self.env.truncations[name]:
                self.run.truncated |= bool(
                    self.env.truncations[name] and not self.env.terminations[name]
                )
                self.env.step(None)
                self._collect(self.env.rewards)
            elif name in self.learners:
                reward = self.pending[name]
                self.pending[name] = 0.0
                no = {"__all__": False}
                return {name: self._observe(name)}, {name: reward}, dict(no), dict(no)
            else:
                self.run = advance(self.env, self.table, self.run, stop=self.learners.__contains__)
                self._collect(self.run.returns)
                self.run.returns = {}
        # the end: every learner seat that acted gets its last observation and what is left
        self.agents = []
        cut = self.run.truncated
        finals = [a for a in self.seats if a in self.acted and a in self.learners]
        obs = {a: self._observe(a, final=True) for a in finals}
        rewards = {a: self.pending[a] for a in finals}
        terminated = {**dict.fromkeys(finals, not cut), "__all__": not cut}
        truncated = {**dict.fromkeys(finals, cut), "__all__": cut}
        return obs, rewards, terminated, truncated

    def _observe(self, name: str, final: bool = False) -> dict[str, np.ndarray]:
        observation = self.env.observe(name)
        mask = np.asarray(observation["action_mask"], dtype=np.float32)
        return {
            "observations": np.asarray(observation["observation"], dtype=np.float32),
            "action_mask": np.zeros_like(mask) if final else mask,
        }

    # --- who plays -----------------------------------------------------------------------------

    def _draw_table(self) -> None:
        """Choose this episode's learner seats and the env-internal agents of the others."""
        seats = self.seats
        if not self.opponents:
            self.learners = set(seats)
            self.table = {}
            return
        self._episodes += 1
        if self.snapshot_dir and (self._episodes % SNAPSHOT_RESCAN == 1 or not self._snapshots):
            self._snapshots = sorted(str(p) for p in Path(self.snapshot_dir).glob("*.pt"))
        order = self.rng.permutation(len(seats))
        self.learners = {seats[i] for i in order[: self.learner_seats]}
        weights = np.array([e.weight for e in self.opponents], dtype=np.float64)
        self.table = {}
        for seat in seats:
            if seat in self.learners:
                continue
            spec = self.opponents[int(self.rng.choice(len(weights), p=weights / weights.sum()))]
            if spec.spec == SELF and not self._snapshots:
                self.learners.add(seat)  # no snapshot yet: the learner plays this seat itself
                continue
            self.table[seat] = self._agent(spec.spec, seat)

    def _agent(self, spec: str, seat: str) -> Any:
        if spec == SELF:
            spec = f"rllib:{self._snapshots[int(self.rng.integers(len(self._snapshots)))]}"
        key = (spec, seat)
        if key not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = make_agent(spec, self.game.name, seat)
        agent = self._cache[key]
        agent.reseed(int(self.rng.integers(2**63)))
        agent.reset()
        return agent


__all__ = ["FolkcardsMultiAgentEnv", "env_config_seed"]
