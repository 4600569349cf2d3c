"""The two training stacks (SB3 and RLlib) share their settings: the same mistake in either
config gives the same one line (ConfigError lives in folkcards.errors)."""

from __future__ import annotations

import folkcards.agents.table_sizes as table_sizes
import folkcards.evaluate.config as tournament_config
import folkcards.train.config as sb3
import folkcards.train.rllib_config as rllib
import pytest

from folkcards.errors import ConfigError


def _sb3(data: dict) -> object:
    return sb3.config_from_dict(data)


def _rllib(data: dict) -> object:
    return rllib.rllib_config_from_dict({"backend": "rllib", **data})


BUILDERS = [pytest.param(_sb3, id="sb3"), pytest.param(_rllib, id="rllib")]


@pytest.mark.parametrize("build", BUILDERS)
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"run": {"eval_oponent": "random"}},
            "config: unknown key 'eval_oponent' in group 'run' (did you mean 'eval_opponent'?)",
        ),
        (
            {"run": {"eval_opponent": "heuristc"}},
            "config: run.eval_opponent: unknown agent 'heuristc' (did you mean 'heuristic'?)",
        ),
        ({"run": {"eval_deals": -1}}, "config: run.eval_deals: Input should be greater than"),
        ({"env": {"game": "chess"}}, "config: env.game: unknown game 'chess'"),
        (
            {"env": {"game": "tri_palki", "num_plyers": 4}},
            "config: unknown key 'num_plyers' in group 'env' for tri_palki "
            "(did you mean 'num_players'?)",
        ),
        (
            {"pretrain": {"expert": "heuristic", "holdout": 1.0}},
            "config: pretrain.holdout: Input should be less than 1",
        ),
        ({"pretrian": {}}, "config: unknown group 'pretrian' (did you mean 'pretrain'?)"),
    ],
)
def test_the_same_mistake_reads_the_same_in_both_stacks(build, data, message) -> None:
    with pytest.raises(ConfigError) as error:
        build(data)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("build", BUILDERS)
@pytest.mark.parametrize("group", ["pretrain.expert", "run.eval_opponent"])
def test_an_agent_that_cannot_sit_at_the_table_is_named_with_its_group(
    build, group, monkeypatch
) -> None:
    def only_four(spec, game):
        return (4,) if spec == "heuristic" else tuple(range(2, 12))

    monkeypatch.setattr(table_sizes, "agent_table_sizes", only_four)
    data: dict = {
        "env": {"game": "tri_palki", "num_players": 5},
        "pretrain": {"expert": "random"},
        "run": {"eval_opponent": "random"},
    }
    assert build(data).env.kwargs["num_players"] == 5
    section, key = group.split(".")
    data[section][key] = "heuristic"
    with pytest.raises(ConfigError, match=rf"{group}: .*tri_palki at 4 players only, not at 5"):
        build(data)


def test_run_overrides_are_applied_and_checked_alike() -> None:
    for config, override in (
        (sb3.config_from_dict({}), sb3.with_overrides),
        (rllib.rllib_config_from_dict({"backend": "rllib"}), rllib.with_rllib_overrides),
    ):
        changed = override(config, seed=7, eval_deals=None)
        assert changed.run.seed == 7 and changed.run.eval_deals == config.run.eval_deals
        with pytest.raises(ConfigError, match="unknown run setting 'seeed'"):
            override(config, seeed=1)
        with pytest.raises(ConfigError, match="run.seed: Input should be greater than"):
            override(config, seed=-1)


def test_one_config_error_for_every_layer() -> None:
    assert sb3.ConfigError is ConfigError is tournament_config.ConfigError
    assert issubclass(ConfigError, ValueError)
