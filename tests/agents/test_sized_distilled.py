"""Distilled networks per table size (guide/distilled.md): where a network was distilled at the
table's own size (``<game>_distilled_<N>p.zip`` beside the default ``<game>_distilled.zip``),
``distilled`` plays that table with it, per game and batched alike; at every other size it
plays the default network. Checked by committing, in a copy of the models folder, another
network as the 3-player one and comparing decisions with that network's own player."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from folkcards.agents import make_agent, ppo_agent
from folkcards.agents.batched_agents import make_batched_agent
from folkcards.agents.ppo_agent import distilled_model_path, network_file, sized_distilled_paths
from folkcards.envs import tri_palki_v0

from tests.helpers import walk_decisions

pytest.importorskip("sb3_contrib")

GAME = "tri_palki"


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models folder whose 3-player distilled network is ``ppo:tri_palki``'s."""
    real = ppo_agent.MODELS_DIR
    for name in (f"{GAME}_distilled", f"{GAME}_ppo"):
        for suffix in (".zip", ".json"):
            shutil.copy(real / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    for suffix in (".zip", ".json"):
        shutil.copy(real / f"{GAME}_ppo{suffix}", tmp_path / f"{GAME}_distilled_3p{suffix}")
    monkeypatch.setattr(ppo_agent, "MODELS_DIR", tmp_path)
    return tmp_path


def test_the_sized_file_is_chosen_only_at_its_size(models: Path) -> None:
    assert sized_distilled_paths(GAME) == {3: models / f"{GAME}_distilled_3p.zip"}
    assert distilled_model_path(GAME, 3) == models / f"{GAME}_distilled_3p.zip"
    for players in (None, 2, 4, 6):
        assert distilled_model_path(GAME, players) == models / f"{GAME}_distilled.zip"
    assert network_file("distilled", GAME, 3) == models / f"{GAME}_distilled_3p.zip"
    assert network_file("ppo", GAME, 3) == models / f"{GAME}_ppo.zip"


@pytest.mark.parametrize("told_the_size", [True, False])
def test_at_three_players_distilled_plays_the_three_player_network(
    models: Path, told_the_size: bool
) -> None:
    extra = {"num_players": 3} if told_the_size else {}
    agent = make_agent("distilled", GAME, seed=0, **extra)
    twin = make_agent("ppo", GAME, seed=0, num_players=3)
    default = make_agent(f"ppo:{models / f'{GAME}_distilled.zip'}", GAME, seed=0, num_players=3)
    differs = 0
    env = tri_palki_v0.raw_env(num_players=3)
    for _seat, observation, action in walk_decisions(env, range(12), lambda s, o: agent.act(o)):
        assert action == twin.act(observation)
        differs += action != default.act(observation)
    assert differs > 0  # the two networks do disagree: the test can tell which one played
    files = {p.resolve() for p in agent.model_files()}
    assert models.joinpath(f"{GAME}_distilled_3p.zip").resolve() in files


def test_at_other_sizes_distilled_plays_the_default_network(models: Path) -> None:
    agent = make_agent("distilled", GAME, seed=0)
    default = make_agent(f"ppo:{models / f'{GAME}_distilled.zip'}", GAME, seed=0)
    for players in (4, 5):
        env = tri_palki_v0.raw_env(num_players=players)
        for _seat, observation, action in walk_decisions(env, range(6), lambda s, o: agent.act(o)):
            assert action == default.act(observation)


def test_the_batched_form_plays_the_same_network(models: Path) -> None:
    env = tri_palki_v0.raw_env(num_players=3)
    twin = make_agent("ppo", GAME, seed=0, num_players=3)
    rows, masks, wanted = [], [], []
    for _seat, observation, action in walk_decisions(env, range(8), lambda s, o: twin.act(o)):
        rows.append(np.asarray(observation["observation"]))
        masks.append(np.asarray(observation["action_mask"]))
        wanted.append(action)
    batched = make_batched_agent("distilled", GAME, num_players=3, seed=0)
    assert batched.act(np.stack(rows), np.stack(masks)).tolist() == wanted
