"""Replay every episode recorded by the independent referee (shared/spec/vectors) step by step."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

GAMES = {"paston": "paston_episodes.jsonl", "tri_palki": "tri_palki_episodes.jsonl"}
BAD_INPUT = {"paston": "paston_bad_input.json", "tri_palki": "tri_palki_bad_input.json"}
# Later batches: one JSON file per game, {"episodes": [...], "bad_input": [...]}.
BUNDLES = {"paston": "paston_deals.json", "tri_palki": "tri_palki_rounds.json"}

# The referee's files in shared/ beside the repository when it is there; else the copy in
# tests/vectors/ (kept identical to shared/ by test_vendored_copy_matches_shared).
SHARED = Path(__file__).resolve().parents[2] / "shared" / "spec" / "vectors"
VENDORED = Path(__file__).resolve().parent / "vectors"
VECTORS = SHARED if SHARED.is_dir() else VENDORED


def _episodes(game: str) -> list[dict]:
    path = VECTORS / GAMES[game]
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _bundle(game: str) -> dict[str, list[dict]]:
    path = VECTORS / BUNDLES[game]
    if not path.exists():
        return {"episodes": [], "bad_input": []}
    return json.loads(path.read_text())


def _cases() -> list:
    return [
        pytest.param(game, episode, id=f"{game}:{source}:{episode['name']}")
        for game in GAMES
        for source, episodes in (
            (GAMES[game], _episodes(game)),
            (BUNDLES[game], _bundle(game)["episodes"]),
        )
        for episode in episodes
    ]


def test_vectors_are_present():
    """The referee's vectors must be found, or the replay tests would silently test nothing."""
    for game in GAMES:
        assert len(_episodes(game)) >= 20, f"no vectors found for {game} under {VECTORS}"
        bundle = _bundle(game)
        assert len(bundle["episodes"]) >= 20, f"no {BUNDLES[game]} under {VECTORS}"
        assert bundle["bad_input"], f"no bad input in {BUNDLES[game]}"


@pytest.mark.parametrize(("game", "episode"), _cases())
def test_referee_episode_replays_exactly(game: str, episode: dict):
    module = importlib.import_module(f"folkcards.envs.{game}_v0")
    env = module.raw_env(**episode["env_kwargs"])
    env.reset(seed=0, options=episode["options"])
    steps = iter(episode["steps"])
    totals = dict.fromkeys(env.possible_agents, 0.0)
    final_infos = {}
    for agent in env.agent_iter(max_iter=100_000):
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            final_infos[agent] = info
            env.step(None)
            continue
        step = next(steps)
        assert agent == step["agent"], f"step {step}: {agent} acts instead"
        legal = [int(a) for a in observation["action_mask"].nonzero()[0]]
        assert legal == step["legal"], f"legal ids differ at {step}"
        env.step(step["action"])
    assert next(steps, None) is None, "the env ended before the recorded episode did"
    for agent, expected in episode["result"].items():
        expected = dict(expected)
        assert totals[agent] == pytest.approx(expected.pop("total_reward")), agent
        for key, value in expected.items():
            assert final_infos[agent][key] == value, (agent, key)
    if "next_dealer" in episode:
        assert env.unwrapped.next_dealer == episode["next_dealer"]


@pytest.mark.parametrize("game", list(BAD_INPUT))
def test_referee_bad_input_raises_value_error(game: str):
    module = importlib.import_module(f"folkcards.envs.{game}_v0")
    cases = json.loads((VECTORS / BAD_INPUT[game]).read_text()) + _bundle(game)["bad_input"]
    assert cases
    for case in cases:
        assert case["expect"] == "ValueError", case["name"]
        with pytest.raises(ValueError):
            env = module.raw_env(**case.get("env_kwargs", {}))
            env.reset(seed=0, options=case.get("options"))


@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared/ beside the repository")
def test_vendored_copy_matches_shared():
    for name in [*GAMES.values(), *BAD_INPUT.values(), *BUNDLES.values()]:
        assert (VENDORED / name).read_bytes() == (SHARED / name).read_bytes(), (
            f"tests/vectors/{name} differs from {SHARED / name}; refresh the copy"
        )
