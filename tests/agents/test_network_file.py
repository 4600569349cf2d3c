"""``network_file``: the one mapping from an agent spec to the saved network it plays, shared by
the per-game agents, their batched forms, ``pretrain.start_model`` and the exploit probe's copy
start. Checked against the file each per-game agent actually loads, for every registered game."""

from __future__ import annotations

from pathlib import Path

import pytest
from folkcards.agents import make_agent
from folkcards.agents.policy_files import network_file
from folkcards.envs import GAMES

pytest.importorskip("sb3_contrib")


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("spec", ["ppo", "distilled"])
def test_the_file_is_the_one_the_agent_loads(game: str, spec: str) -> None:
    path = network_file(spec, game)
    assert path is not None
    if not path.is_file():
        pytest.skip(f"{game} has no packaged {spec} network")
    agent = make_agent(spec, game, seed=0)
    assert [p.resolve() for p in agent.model_files()] == [path.resolve()]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_spec_arguments_name_files(game: str, tmp_path: Path) -> None:
    if not {"ppo", "distilled"} <= set(GAMES[game].agents):
        pytest.skip(f"{game} offers no shipped network")
    assert network_file("distilled:endgame=0", game) == network_file("distilled", game)
    assert network_file(f"ppo:{game}", game) == network_file("ppo", game)
    assert network_file(f"ppo:{tmp_path}/model.zip", game) == tmp_path / "model.zip"


@pytest.mark.parametrize("spec", ["random", "heuristic", "pimc", "expert", "rllib:x"])
def test_specs_without_a_saved_network_name_none(spec: str) -> None:
    assert network_file(spec, "paston") is None
