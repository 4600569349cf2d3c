"""Training refuses, before it starts, an opponent that cannot sit at the configured table."""

from __future__ import annotations

import folkcards.agents.table_sizes as table_sizes
import pytest
from folkcards.train.config import config_from_dict

from folkcards.errors import ConfigError


def test_an_opponent_that_cannot_play_the_table_is_refused(monkeypatch):
    def only_four(spec, game):
        return (4,) if spec == "heuristic" else tuple(range(2, 12))

    monkeypatch.setattr(table_sizes, "agent_table_sizes", only_four)
    data = {
        "env": {"game": "tri_palki", "num_players": 5},
        "opponents": {"pool": [{"spec": "random"}, {"spec": "heuristic"}]},
        "run": {"eval_opponent": "random"},
    }
    with pytest.raises(ConfigError, match="plays tri_palki at 4 players only, not at 5"):
        config_from_dict(data)
    data["env"]["num_players"] = 4
    assert config_from_dict(data).env.kwargs["num_players"] == 4


@pytest.mark.parametrize("group", ["policies.opponents", "pretrain.expert", "run.eval_opponent"])
def test_the_rllib_config_refuses_such_an_agent_in_every_group(monkeypatch, group):
    from folkcards.train.rllib_config import rllib_config_from_dict

    def only_four(spec, game):
        return (4,) if spec == "heuristic" else tuple(range(2, 12))

    monkeypatch.setattr(table_sizes, "agent_table_sizes", only_four)
    data = {
        "backend": "rllib",
        "env": {"game": "tri_palki", "num_players": 5},
        "policies": {"opponents": [{"spec": "random"}, {"spec": "self"}], "snapshot_every": 100},
        "pretrain": {"expert": "random"},
        "run": {"eval_opponent": "random"},
    }
    assert rllib_config_from_dict(data).env.kwargs["num_players"] == 5
    if group == "policies.opponents":
        data["policies"]["opponents"].append({"spec": "heuristic"})
    else:
        section, key = group.split(".")
        data[section][key] = "heuristic"
    with pytest.raises(ConfigError, match=rf"{group}: .*tri_palki at 4 players only, not at 5"):
        rllib_config_from_dict(data)
    data["env"]["num_players"] = 4
    assert rllib_config_from_dict(data).env.kwargs["num_players"] == 4
