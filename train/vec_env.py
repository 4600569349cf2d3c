"""``BatchedSubprocVecEnv``: envs spread over worker processes, several envs per worker.

SB3's ``SubprocVecEnv`` runs one env per process and pays a pipe round trip per env per step
(plus one more for ``action_masks``). Our single-seat envs step in ~50–150 µs, less than that
overhead, so on a 2-core machine ``SubprocVecEnv`` is slower than the in-process
``DummyVecEnv``. Here each of ``n_workers`` processes owns a contiguous slice of the envs and
steps them one after another: one message per worker per step, and the action masks travel
with the step results (``env_method("action_masks")`` is answered from that cache), so all
cores work in parallel at little overhead.

Semantics are those of ``DummyVecEnv``/``SubprocVecEnv``: auto-reset with
``info["terminal_observation"]`` and ``info["TimeLimit.truncated"]``, ``reset_infos``,
``seed()``/``set_options()`` applied at the next ``reset()`` (env ``i`` gets ``seed + i``), so a
run is the same for any number of workers.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnv

_METHOD = "<method>"


def _step_env(
    env: gym.Env, action: Any
) -> tuple[Any, float, bool, dict[str, Any], dict[str, Any] | None]:
    obs, reward, terminated, truncated, info = env.step(action)
    done = terminated or truncated
    info["TimeLimit.truncated"] = truncated and not terminated
    reset_info = None
    if done:
        info["terminal_observation"] = obs
        obs, reset_info = env.reset()
    return obs, float(reward), done, info, reset_info


def _masks(envs: list[gym.Env]) -> list[np.ndarray] | None:
    if all(hasattr(env, "action_masks") for env in envs):
        return [env.action_masks() for env in envs]  # type: ignore[attr-defined]
    return None


def _worker(remote: Any, parent_remote: Any, fns_wrapper: CloudpickleWrapper) -> None:
    parent_remote.close()
    envs: list[gym.Env] = [fn() for fn in fns_wrapper.var]
    try:
        while True:
            cmd, data = remote.recv()
            if cmd == "step":
                results = [_step_env(env, action) for env, action in zip(envs, data, strict=True)]
                remote.send((results, _masks(envs)))
            elif cmd == "reset":
                seeds, options = data
                out = [
                    env.reset(seed=s, options=o)
                    for env, s, o in zip(envs, seeds, options, strict=True)
                ]
                remote.send((out, _masks(envs)))
            elif cmd == "env_method":
                name, args, kwargs, local = data
                remote.send([getattr(envs[i], name)(*args, **kwargs) for i in local])
            elif cmd == "get_attr":
                name, local = data
                values = []
                for i in local:
                    value = getattr(envs[i], name)
                    values.append(_METHOD if callable(value) else value)
                remote.send(values)
            elif cmd == "set_attr":
                name, value, local = data
                for i in local:
                    setattr(envs[i], name, value)
                remote.send(None)
            elif cmd == "is_wrapped":
                from stable_baselines3.common.env_util import is_wrapped

                wrapper, local = data
                remote.send([is_wrapped(envs[i], wrapper) for i in local])
            elif cmd == "spaces":
                remote.send((envs[0].observation_space, envs[0].action_space, envs[0].render_mode))
            elif cmd == "close":
                for env in envs:
                    env.close()
                remote.close()
                return
            else:
                raise NotImplementedError(f"unknown command {cmd!r}")
    except (KeyboardInterrupt, EOFError, BrokenPipeError):
        pass


class BatchedSubprocVecEnv(VecEnv):
    """``len(env_fns)`` envs in ``n_workers`` processes; see the module docstring."""

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        n_workers: int | None = None,
        start_method: str | None = None,
    ):
        n_envs = len(env_fns)
        if n_envs < 1:
            raise ValueError("need at least one env")
        n_workers = max(1, min(n_envs, n_workers or mp.cpu_count() or 1))
        if start_method is None:
            start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx: Any = mp.get_context(start_method)
        bounds = np.linspace(0, n_envs, n_workers + 1).round().astype(int)
        self.slices = [list(range(bounds[w], bounds[w + 1])) for w in range(n_workers)]
        self.owner = [(w, k) for w, sl in enumerate(self.slices) for k in range(len(sl))]
        self.remotes, self.processes = [], []
        self.waiting = False
        self.closed = False
        for sl in self.slices:
            remote, work_remote = ctx.Pipe()
            fns = CloudpickleWrapper([env_fns[i] for i in sl])
            process = ctx.Process(target=_worker, args=(work_remote, remote, fns), daemon=True)
            process.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(process)
        self.remotes[0].send(("spaces", None))
        observation_space, action_space, render_mode = self.remotes[0].recv()
        self.render_mode = render_mode
        super().__init__(n_envs, observation_space, action_space)
        self._mask_cache: list[np.ndarray] | None = None

    @property
    def n_workers(self) -> int:
        return len(self.remotes)

    # --- stepping -----------------------------------------------------------------------------

    def step_async(self, actions: np.ndarray) -> None:
        for remote, sl in zip(self.remotes, self.slices, strict=True):
            remote.send(("step", [actions[i] for i in sl]))
        self.waiting = True
        self._mask_cache = None

    def step_wait(self) -> Any:
        results, masks = [], []
        for remote in self.remotes:
            res, m = remote.recv()
            results.extend(res)
            masks.append(m)
        self.waiting = False
        self._set_masks(masks)
        obs, rewards, dones, infos, reset_infos = zip(*results, strict=True)
        for i, reset_info in enumerate(reset_infos):
            if reset_info is not None:
                self.reset_infos[i] = reset_info
        return (
            _stack(obs),
            np.array(rewards, dtype=np.float32),
            np.array(dones, dtype=bool),
            list(infos),
        )

    def reset(self) -> Any:
        seeds = list(self._seeds)
        options = list(self._options)
        for remote, sl in zip(self.remotes, self.slices, strict=True):
            remote.send(("reset", ([seeds[i] for i in sl], [options[i] for i in sl])))
        out, masks = [], []
        for remote in self.remotes:
            res, m = remote.recv()
            out.extend(res)
            masks.append(m)
        self._set_masks(masks)
        obs, reset_infos = zip(*out, strict=True)
        self.reset_infos = list(reset_infos)
        self._reset_seeds()
        self._reset_options()
        return _stack(obs)

    def _set_masks(self, masks: list[list[np.ndarray] | None]) -> None:
        self._mask_cache = None if any(m is None for m in masks) else [x for m in masks for x in m]  # type: ignore[union-attr]

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                remote.recv()
        for remote in self.remotes:
            with contextlib.suppress(BrokenPipeError, OSError):
                remote.send(("close", None))
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
        self.closed = True

    # --- attributes and methods -----------------------------------------------------------------

    def _by_worker(self, indices: Any) -> dict[int, list[int]]:
        groups: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            w, k = self.owner[i]
            groups.setdefault(w, []).append(k)
        return groups

    def _gather(self, indices: Any, make: Callable[[list[int]], tuple[str, Any]]) -> list[Any]:
        groups = self._by_worker(indices)
        for w, local in groups.items():
            self.remotes[w].send(make(local))
        answers = {w: self.remotes[w].recv() for w in groups}
        out = []
        for i in self._get_indices(indices):
            w, k = self.owner[i]
            out.append(answers[w][groups[w].index(k)])
        return out

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if (
            method_name == "action_masks"
            and not method_args
            and not method_kwargs
            and self._mask_cache is not None
        ):
            return [self._mask_cache[i] for i in self._get_indices(indices)]
        self._mask_cache = None
        return self._gather(
            indices, lambda local: ("env_method", (method_name, method_args, method_kwargs, local))
        )

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return self._gather(indices, lambda local: ("get_attr", (attr_name, local)))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._gather(indices, lambda local: ("set_attr", (attr_name, value, local)))

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: Any = None) -> list[bool]:
        return self._gather(indices, lambda local: ("is_wrapped", (wrapper_class, local)))

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


def _stack(obs: Sequence[Any]) -> np.ndarray:
    return np.stack([np.asarray(o) for o in obs])


__all__ = ["BatchedSubprocVecEnv"]
