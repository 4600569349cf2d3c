"""Training configs: the shipped YAML files, validation errors, the CLI's argument handling."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from folkcards.train.config import ConfigError, TrainConfig, config_from_dict, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SHIPPED = sorted(CONFIGS.glob("*/ppo_*.yaml"))
# every training config that stands alone, the distillation recipes (which spell their settings
# out) included; a step-2 recipe reads step 1's run directory (tests/train/test_start_model.py)
RECIPES = [
    p
    for p in sorted([*SHIPPED, *CONFIGS.glob("*/distill*.yaml")])
    if "start_model: runs/" not in p.read_text()
]


def test_all_four_configs_are_shipped() -> None:
    names = {f"{p.parent.name}/{p.name}" for p in SHIPPED}
    assert {
        "paston/ppo_quick.yaml",
        "paston/ppo_full.yaml",
        "tri_palki/ppo_quick.yaml",
        "tri_palki/ppo_full.yaml",
    } <= names


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_configs_load(path: Path) -> None:
    config = load_config(path)
    from folkcards.envs.registry import game_spec

    spec = game_spec(config.env.game)
    assert (spec.base_game or spec.name) == path.parent.name
    again = config_from_dict(yaml.safe_load(config.to_yaml()))
    assert again == config  # the resolved form round-trips


def test_defaults_are_valid() -> None:
    config = config_from_dict({})
    assert isinstance(config, TrainConfig) and config.env.game == "paston"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"algorithim": {}}, r"unknown group 'algorithim' \(did you mean 'algorithm'\?\)"),
        (
            {"algorithm": {"n_step": 5}},
            r"unknown key 'n_step' in group 'algorithm' \(did you mean 'n_steps'\?\)",
        ),
        ({"run": {"total_step": 5}}, "known keys"),
        (
            {"env": {"game": "paston", "num_players": 4}},
            r"unknown key 'num_players' in group 'env'",
        ),
        ({"env": {"game": "chess"}}, "env.game"),
        ({"env": {"reward_scale": -1}}, "reward_scale"),
        ({"opponents": {"pool": [{"spec": "nobody"}]}}, "unknown agent"),
        ({"opponents": {"pool": [{"spec": "self"}]}}, "snapshot_every"),
        (
            {"opponents": {"pool": [{"spec": "random", "wieght": 1}]}},
            r"unknown key 'wieght' in opponents.pool\[0\] \(did you mean 'weight'\?\)",
        ),
        ({"env": {"shapping": True}}, r"unknown key 'shapping' .*did you mean 'shaping'"),
        ({"run": {"seed": True}}, r"run.seed: .*integer"),
        ({"run": {"eval_opponent": "heuristc"}}, r"did you mean 'heuristic'"),
        ({"algorithm": {"gamma": 1.5}}, "gamma"),
        ({"algorithm": {"net_arch": [64, "x"]}}, "net_arch"),
        ({"run": {"vec_env": "threads"}}, "vec_env"),
        ({"run": {"n_envs": 0}}, "n_envs"),
    ],
)
def test_bad_configs_are_clear_errors(data: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "none.yaml")


def test_cli_help_and_errors(tmp_path: Path, capsys) -> None:
    from folkcards.train.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "--resume" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("algorithm:\n  n_step: 3\n")
    assert main(["--config", str(bad)]) == 2
    assert "n_step" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([])  # --config or --resume is required
    assert main(["--resume", str(tmp_path)]) == 2  # not a run directory


def test_malformed_yaml_is_one_clear_line(tmp_path: Path, capsys) -> None:
    """A YAML syntax error is one line naming the file and the place, as for
    ``tournament``, not the parser's multi-line message."""
    from folkcards.train.cli import main

    bad = tmp_path / "broken.yaml"
    bad.write_text("run:\n  total_steps: [1, 2\n  seed: 0\n")
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "broken.yaml" in err and "not valid YAML" in err and "line " in err


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_configs_hold_only_what_differs_from_the_defaults(path: Path) -> None:
    defaults = TrainConfig().to_dict()
    data = yaml.safe_load(path.read_text())
    base_name = data.pop("extends", None)
    if base_name is not None:  # differs from the config it extends, not from the defaults
        defaults = yaml.safe_load((path.parent / base_name).read_text())
    same = [
        f"{group}.{key}"
        for group, values in data.items()
        for key, value in values.items()
        if key != "game" and key in defaults[group] and defaults[group][key] == value
    ]
    assert not same, f"{path.name} repeats defaults: {same}"


def test_print_config_prints_the_resolved_config_and_exits(tmp_path: Path, capsys) -> None:
    from folkcards.train.cli import main

    small = tmp_path / "small.yaml"
    small.write_text("env:\n  game: tri_palki\n  num_players: 5\nrun:\n  total_steps: 1000\n")
    argv = [
        "--config",
        str(small),
        "--seed",
        "7",
        "--print-config",
        "--run-dir",
        str(tmp_path / "r"),
    ]
    assert main(argv) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["run"]["seed"] == 7 and printed["run"]["total_steps"] == 1000
    assert printed["env"]["num_players"] == 5
    assert printed["algorithm"] == TrainConfig().to_dict()["algorithm"]  # defaults shown
    assert config_from_dict(printed) == config_from_dict(
        {**yaml.safe_load(small.read_text()), "run": {"total_steps": 1000, "seed": 7}}
    )
    assert not (tmp_path / "r").exists()  # nothing trained


def test_extends_starts_from_another_config(tmp_path: Path) -> None:
    """``extends:`` takes the other file's settings; the keys given replace its keys one by one
    (the rest of a group stays); chains work; paths are relative to the extending file."""
    from folkcards.train.config import load_config

    (tmp_path / "base.yaml").write_text(
        "env:\n  game: tri_palki\n  num_players: 5\nrun:\n  total_steps: 5000\n  n_envs: 4\n"
    )
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "mid.yaml").write_text("extends: ../base.yaml\nrun:\n  n_envs: 8\n")
    (sub / "top.yaml").write_text("extends: mid.yaml\nalgorithm:\n  n_steps: 64\n")
    config = load_config(sub / "top.yaml").to_dict()
    assert config["env"]["game"] == "tri_palki" and config["env"]["num_players"] == 5
    assert config["run"]["total_steps"] == 5000 and config["run"]["n_envs"] == 8
    assert config["algorithm"]["n_steps"] == 64


def test_extends_errors_are_one_line(tmp_path: Path) -> None:
    from folkcards.train.config import load_config

    from folkcards.errors import ConfigError

    (tmp_path / "a.yaml").write_text("extends: b.yaml\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\n")
    (tmp_path / "c.yaml").write_text("extends: [a.yaml]\n")
    (tmp_path / "d.yaml").write_text("extends: missing.yaml\n")
    for name, words in (
        ("a.yaml", "circle"),
        ("c.yaml", "file name"),
        ("d.yaml", "not found"),
    ):
        with pytest.raises(ConfigError) as info:
            load_config(tmp_path / name)
        assert words in str(info.value) and "\n" not in str(info.value)


def test_batched_configs_are_the_full_ones_on_the_batched_engine() -> None:
    """configs/<game>/ppo_full_batched.yaml: the full recipe, with the batched engine and the
    same rollout size (n_envs x n_steps)."""
    from folkcards.train.config import load_config

    root = Path(__file__).resolve().parents[2] / "configs"
    for game in ("paston", "tri_palki"):
        full = load_config(root / game / "ppo_full.yaml").to_dict()
        batched = load_config(root / game / "ppo_full_batched.yaml").to_dict()
        assert batched["run"]["engine"] == "batched" and full["run"]["engine"] == "aec"
        rollout = [c["run"]["n_envs"] * c["algorithm"]["n_steps"] for c in (full, batched)]
        assert rollout[0] == rollout[1]
        for group in ("env", "opponents", "pretrain"):
            assert batched[group] == full[group]
