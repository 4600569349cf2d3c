"""Behaviour cloning before PPO (train/pretrain.py) and training with a feature set."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from folkcards.agents import make_agent  # noqa: E402
from folkcards.envs.tri_palki.observation import observation_size  # noqa: E402
from folkcards.train.config import ConfigError, config_from_dict, load_config  # noqa: E402
from folkcards.train.pretrain import behaviour_clone, collect_demonstrations  # noqa: E402
from folkcards.train.single_seat import SingleSeatEnvFactory  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
RAW = observation_size(4)


def _factory(features: str | None = "tri_palki_actions") -> SingleSeatEnvFactory:
    return SingleSeatEnvFactory(
        game="tri_palki",
        env_kwargs={"num_players": 4},
        opponents=(("heuristic", 1.0), ("random", 1.0)),
        truncation_reward=-1.0,
        features=features,
    )


def test_demonstrations_are_the_experts_legal_choices_with_their_returns() -> None:
    data = collect_demonstrations(_factory(), "heuristic", 800, seed=3)
    assert len(data) > 600
    assert data.observations.shape[1] > RAW
    expert = make_agent("heuristic", "tri_palki")
    for obs, mask, action in zip(data.observations, data.masks, data.actions, strict=True):
        assert mask[action]
        assert expert.act({"observation": obs[:RAW], "action_mask": mask.astype(np.int8)}) == action
    # one reward per round (a stick: -1; a truncated round: -1 too), so with gamma = 1 every
    # decision's return is its round's result, and both results occur
    assert set(np.unique(data.returns)) == {-1.0, 0.0}


def test_demonstrations_do_not_depend_on_the_worker_count() -> None:
    one = collect_demonstrations(_factory(None), "heuristic", 400, seed=5, workers=1)
    two = collect_demonstrations(_factory(None), "heuristic", 400, seed=5, workers=2)
    for name in ("observations", "masks", "actions", "returns"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
    other = collect_demonstrations(_factory(None), "heuristic", 400, seed=6, workers=1)
    assert not np.array_equal(one.actions[:200], other.actions[:200])


def test_collection_reports_its_progress() -> None:
    """Collecting decisions ran ~80 s silently; it logs progress lines (here one
    per chunk: every 0 s), ending at the total, and the data do not depend on it."""
    lines: list[str] = []
    data = collect_demonstrations(
        _factory(None), "heuristic", 400, seed=5, log=lines.append, log_every=0.0
    )
    assert len(lines) == 8, lines  # CHUNKS
    assert all(line.startswith("pretraining: ") and " decisions (" in line for line in lines)
    assert lines[-1].startswith("pretraining: 400/400 decisions (100%)") and len(data) >= 400
    quiet = collect_demonstrations(_factory(None), "heuristic", 400, seed=5)
    assert np.array_equal(quiet.actions, data.actions)


def test_behaviour_cloning_learns_the_experts_choices() -> None:
    from sb3_contrib import MaskablePPO

    data = collect_demonstrations(_factory(), "heuristic", 4000, seed=0)
    model = MaskablePPO("MlpPolicy", _factory()(), n_steps=64, batch_size=64, seed=0, device="cpu")
    first = behaviour_clone(model, data, epochs=1, batch_size=256, log=lambda _line: None)
    later = behaviour_clone(model, data, epochs=4, batch_size=256, log=lambda _line: None)
    assert later["policy_loss"] < first["policy_loss"]
    assert later["agreement"] > max(first["agreement"], 0.7)


def test_a_run_with_features_and_pretraining_plays_as_a_ppo_agent(tmp_path: Path) -> None:
    from folkcards.agents.episode import play_episode
    from folkcards.envs import tri_palki_v0
    from folkcards.train.ppo import train

    config = load_config(CONFIGS / "tri_palki" / "ppo_quick.yaml")
    config.env.features = "tri_palki_actions"
    config.pretrain.expert = "heuristic"
    config.pretrain.samples = 600
    config.pretrain.epochs = 1
    config.algorithm.n_steps = 64
    config.algorithm.batch_size = 64
    config.run.n_envs = 2
    config.run.vec_env = "dummy"
    config.run.total_steps = 128
    config.run.eval_deals = 2
    config.run.eval_every = 0
    config.run.checkpoint_every = 0
    config.run.progress_bar = False
    config.run.tensorboard = False
    run_dir = train(config, tmp_path / "run", log=lambda _line: None)
    meta = json.loads((run_dir / "model.json").read_text())
    assert meta["features"] == "tri_palki_actions" and meta["obs_size"] > RAW
    assert json.loads((run_dir / "pretrain.json").read_text())["samples"] >= 600
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", "tri_palki", "player_0", 0)
    env = tri_palki_v0.raw_env()
    others = {f"player_{i}": make_agent("heuristic", "tri_palki", f"player_{i}") for i in (1, 2, 3)}
    play_episode(env, {"player_0": agent, **others}, 0)  # the raw observation goes in


@pytest.mark.parametrize(
    "data, message",
    [
        ({"env": {"game": "tri_palki", "features": "nope"}}, "env.features: unknown feature set"),
        ({"env": {"game": "paston", "features": "tri_palki_actions"}}, "not paston"),
        ({"pretrain": {"expert": "nobody"}}, "pretrain.expert"),
        ({"pretrain": {"expert": "heuristic", "samples": 0}}, "pretrain.samples"),
        ({"pretrain": {"expert": "heuristic", "holdout": 1.5}}, "pretrain.holdout"),
        ({"pretrain": {"expers": "heuristic"}}, "unknown key"),
        ({"env": {"duplicate_baseline": "nobody"}}, "env.duplicate_baseline: unknown agent"),
    ],
)
def test_bad_feature_and_pretrain_settings_are_clear_errors(data: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data)


class _LowestLegal:
    """A player for the DAgger tests: always the lowest legal action (not the heuristic's)."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: object = None, det: bool = True) -> int:
        return int(np.flatnonzero(mask)[0])


class _PlaysLikeTheHeuristic:
    """A player choosing exactly what the heuristic would (raw observations: no feature set)."""

    def __init__(self) -> None:
        self.heuristic = make_agent("heuristic", "tri_palki")

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: object = None, det: bool = True) -> int:
        return int(self.heuristic.act({"observation": obs, "action_mask": mask.astype(np.int8)}))


def test_dagger_collection_plays_the_players_moves_and_labels_them_with_the_experts() -> None:
    """DAgger: the player's moves drive the episode; each label is the expert's choice in the
    state the player reached."""
    player = _LowestLegal()
    data = collect_demonstrations(_factory(None), "heuristic", 400, seed=7, player=player)
    expert = make_agent("heuristic", "tri_palki")
    agreed = 0
    for obs, mask, label in zip(data.observations, data.masks, data.actions, strict=True):
        assert mask[label]
        assert expert.act({"observation": obs, "action_mask": mask.astype(np.int8)}) == label
        agreed += player.act(obs, mask) == label
    assert data.agreed == agreed and 0 < agreed < len(data)
    own = collect_demonstrations(_factory(None), "heuristic", 400, seed=7)
    assert own.agreed == len(own)  # the expert playing agrees with itself
    assert not np.array_equal(own.observations[:50], data.observations[:50])


def test_a_player_that_plays_like_the_expert_collects_the_experts_own_data() -> None:
    """Differential: DAgger collection with a player choosing the expert's moves is the plain
    collection, decision for decision."""
    plain = collect_demonstrations(_factory(None), "heuristic", 300, seed=4)
    mirrored = collect_demonstrations(
        _factory(None), "heuristic", 300, seed=4, player=_PlaysLikeTheHeuristic()
    )
    for name in ("observations", "masks", "actions", "returns"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(mirrored, name))
    assert mirrored.agreed == len(mirrored)


def test_dagger_rounds_add_the_networks_own_decisions_and_refit() -> None:
    from folkcards.train.pretrain import _numpy_actor, clone_expert
    from folkcards.train.settings import PretrainConfig
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", _factory()(), n_steps=64, batch_size=64, seed=0, device="cpu")
    pre = PretrainConfig(
        expert="heuristic", samples=400, epochs=2, batch_size=128, dagger_rounds=2,
        dagger_samples=200,
    )  # fmt: skip
    lines: list[str] = []
    metrics = clone_expert(
        model, _factory(), pre, seed=1, gamma=1.0, workers=1, log=lines.append,
        acting_policy=_numpy_actor,
    )  # fmt: skip
    assert metrics["samples"] >= 400 + 2 * 200
    for k in (1, 2):
        assert 0.0 <= metrics[f"dagger_{k}_agreement"] <= 1.0
        assert any(line.startswith(f"DAgger round {k}: the network chose") for line in lines)
    with pytest.raises(ValueError, match="dagger_rounds needs a network"):
        clone_expert(model, _factory(), pre, seed=1, gamma=1.0, workers=1, log=lines.append)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"pretrain": {"dagger_rounds": 1}}, "dagger_rounds needs pretrain.expert"),
        ({"pretrain": {"expert": "heuristic", "dagger_rounds": -1}}, "pretrain.dagger_rounds"),
        ({"pretrain": {"expert": "heuristic", "dagger_samples": 0}}, "pretrain.dagger_samples"),
    ],
)
def test_bad_dagger_settings_are_clear_errors(data: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as error:
        config_from_dict(data)
    assert "\n" not in str(error.value)


def _valued(values: list[list[float]], actions: list[int]):
    """Demonstrations of len(values) decisions over 4 actions; NaN: not valued."""
    from folkcards.train.pretrain import Demonstrations

    array = np.asarray(values, dtype=np.float32)
    masks = np.ones(array.shape, dtype=bool)
    return Demonstrations(
        np.zeros((len(array), 3), np.float32), masks, np.asarray(actions), np.zeros(len(array)),
        array,
    )  # fmt: skip


def test_soft_targets_share_ties_and_follow_the_values():
    from folkcards.train.pretrain import soft_targets

    nan = float("nan")
    data = _valued(
        [[2.0, 2.0, 0.0, nan], [nan, nan, nan, nan], [10.0, 0.0, 0.0, 0.0]], actions=[0, 3, 0]
    )
    targets = soft_targets(data, temperature=1.0)
    np.testing.assert_allclose(targets.sum(axis=1), 1.0, rtol=1e-6)
    e2 = np.exp(2.0)
    np.testing.assert_allclose(
        targets[0], [e2 / (2 * e2 + 1), e2 / (2 * e2 + 1), 1 / (2 * e2 + 1), 0]
    )
    assert targets[1].tolist() == [0, 0, 0, 1]  # not valued: the expert's action
    e10 = np.exp(10.0)  # ten points ahead at temperature 1: nearly all of it
    assert targets[2, 0] == pytest.approx(e10 / (e10 + 3), rel=1e-6)
    colder = soft_targets(data, temperature=0.1)
    assert colder[0, 2] < targets[0, 2] and colder[0, 0] == pytest.approx(0.5, abs=1e-6)


def test_collection_keeps_the_experts_card_values_and_the_players_regret():
    """Paston's expert values its cards (its mean table score per card): the values are kept
    per decision, its own choice is a best one, and a player choosing the lowest legal action
    has a positive regret (the expert's best value minus its value of the card played)."""
    factory = SingleSeatEnvFactory(
        game="paston", env_kwargs={"episode": "deal"}, opponents=(("heuristic", 1.0),)
    )
    own = collect_demonstrations(factory, "expert:samples=8", 120, seed=2)
    valued = np.isfinite(own.values).any(axis=1)
    assert own.valued == valued.sum() > 10 and own.regret == 0.0
    rows = zip(own.values[valued], own.masks[valued], own.actions[valued], strict=True)
    for values, mask, action in rows:
        assert np.isfinite(values[mask]).all() and not np.isfinite(values[~mask]).any()
        assert values[action] == np.nanmax(values)
    other = collect_demonstrations(factory, "expert:samples=8", 120, seed=2, player=_LowestLegal())
    assert other.valued > 10 and other.regret > 0


def test_collection_keeps_the_tri_palki_searchs_move_values():
    """Tri Palki's search values every legal move of a decision with a choice (minus its mean
    sticks): the values are kept on exactly the legal moves, its own move is a best one, and
    forced moves carry none."""
    data = collect_demonstrations(_factory(), "pimc:samples=4", 150, seed=3)
    valued = np.isfinite(data.values).any(axis=1)
    assert data.valued == valued.sum() > 10 and data.regret == 0.0
    assert (data.masks[~valued].sum(axis=1) == 1).all()  # unvalued: only one legal move
    rows = zip(data.values[valued], data.masks[valued], data.actions[valued], strict=True)
    for values, mask, action in rows:
        assert np.isfinite(values[mask]).all() and not np.isfinite(values[~mask]).any()
        assert values[action] == np.nanmax(values) and np.nanmin(values) >= -1.0


def test_a_soft_target_clone_learns_the_values_and_reports_its_regret():
    from folkcards.train.pretrain import behaviour_clone
    from sb3_contrib import MaskablePPO

    factory = SingleSeatEnvFactory(
        game="paston", env_kwargs={"episode": "deal"}, opponents=(("heuristic", 1.0),)
    )
    data = collect_demonstrations(factory, "expert:samples=8", 300, seed=5)
    model = MaskablePPO("MlpPolicy", factory(), n_steps=64, batch_size=64, seed=0, device="cpu")
    quiet = {"batch_size": 64, "holdout": 0.2, "log": lambda _line: None, "temperature": 1.0}
    first = behaviour_clone(model, data, epochs=1, **quiet)
    later = behaviour_clone(model, data, epochs=6, **quiet)
    assert later["policy_loss"] < first["policy_loss"]
    assert later["regret"] >= 0.0 and later["agreement"] > 0.5


def test_the_held_out_decisions_stay_held_out_through_dagger_refits():
    """The agreement after a DAgger refit is measured on decisions no fit has seen: the first
    data's held-out rows are the same in every refit."""
    from folkcards.train.pretrain import holdout_mask

    first = holdout_mask(1000, 0.05, seed=3)
    assert first.sum() == 50
    np.testing.assert_array_equal(first, holdout_mask(1000, 0.05, seed=3))
    assert not np.array_equal(first, holdout_mask(1000, 0.05, seed=4))


def test_kept_demonstrations_refit_exactly_as_the_collected_ones(tmp_path: Path) -> None:
    """A run keeps its decisions (``keep_demonstrations``); a run reading them
    (``pretrain.demonstrations``) fits the same data, so the same network, without collecting."""
    import torch
    from folkcards.train.pretrain import clone_expert
    from folkcards.train.settings import PretrainConfig
    from sb3_contrib import MaskablePPO

    def fitted(pre: PretrainConfig, keep: Path | None = None):
        model = MaskablePPO("MlpPolicy", _factory()(), n_steps=64, batch_size=64, seed=0)
        lines: list[str] = []
        metrics = clone_expert(
            model, _factory(), pre, seed=2, gamma=1.0, workers=1, log=lines.append, keep=keep
        )
        return model, metrics, lines

    kept = tmp_path / "demonstrations.npz"
    pre = PretrainConfig(expert="heuristic", samples=300, epochs=1, batch_size=128)
    first, metrics, _ = fitted(pre, keep=kept)
    assert kept.exists()
    again = pre.model_copy(update={"demonstrations": str(kept), "samples": 1})
    second, metrics_again, lines = fitted(again)
    assert any("from " + str(kept) in line for line in lines)
    assert not any("collecting" in line for line in lines)
    assert metrics_again["samples"] == metrics["samples"] >= 300
    for a, b in zip(first.policy.parameters(), second.policy.parameters(), strict=True):
        assert torch.equal(a, b)
    # kept again, they still describe their collection (300 decisions of the heuristic, seed 2)
    copy = tmp_path / "copy.npz"
    fitted(again.model_copy(update={"expert": "random"}), keep=copy)
    from folkcards.train.pretrain import load_demonstrations

    width = _factory()().observation_space.shape[0]
    _, about = load_demonstrations(copy, "tri_palki", "tri_palki_actions", width)
    assert (about["expert"], about["samples"], about["seed"]) == ("heuristic", 300, 2)


def test_best_epoch_keeps_the_weights_that_did_best_on_held_out_decisions() -> None:
    """``best_epoch``: the policy ends with the weights of the epoch with the lowest held-out
    regret (here the teacher values its moves), reported as ``best_epoch``; measuring the
    policy again on the same held-out decisions gives that epoch's figures."""
    from folkcards.train.pretrain import _holdout_metrics, holdout_mask
    from sb3_contrib import MaskablePPO

    # a fixed teacher (the search without a network, 0.14.0's `expert:samples=8` at 4 players),
    # so that the set-up below keeps a best epoch before the last when `expert` changes
    teacher = "iterated:samples=8,infer=4,endgame_samples=768,infer_epsilon=0.3"
    data = collect_demonstrations(_factory(), teacher, 300, seed=4)
    assert np.isfinite(data.values).any()
    model = MaskablePPO("MlpPolicy", _factory()(), n_steps=64, batch_size=64, seed=0)
    lines: list[str] = []
    held = holdout_mask(len(data), 0.3, 1)
    metrics = behaviour_clone(
        model, data, epochs=8, batch_size=32, learning_rate=3e-2, seed=1, log=lines.append,
        held=held, best_epoch=True,
    )  # fmt: skip
    epochs = [line for line in lines if line.startswith("pretrain epoch")]
    regrets = [float(line.split("regret ")[1].split()[0]) for line in epochs]
    assert len(regrets) == 8, lines
    assert min(regrets) < regrets[-1], "the set-up must have a best epoch before the last"
    assert metrics["best_epoch"] == 1 + int(np.argmin(regrets))
    assert f"{metrics['regret']:.3f}" == f"{min(regrets):.3f}"
    again = _holdout_metrics(model.policy, data, np.flatnonzero(held))
    assert again["regret"] == pytest.approx(metrics["regret"])
    assert again["agreement"] == pytest.approx(metrics["agreement"])
    with pytest.raises(ValueError, match="needs held-out decisions"):
        behaviour_clone(model, data, epochs=1, holdout=0.0, best_epoch=True, log=lines.append)


def test_several_kept_collections_are_fitted_together_in_order(tmp_path: Path) -> None:
    """``pretrain.demonstrations`` as a list: the decisions of every file, in the order given
    (the same data as the collections concatenated), described part by part when kept again."""
    from folkcards.train.pretrain import clone_expert, load_demonstrations, save_demonstrations
    from folkcards.train.settings import PretrainConfig
    from sb3_contrib import MaskablePPO

    first = collect_demonstrations(_factory(), "heuristic", 120, seed=1)
    second = collect_demonstrations(_factory(), "random", 80, seed=2)
    paths = [tmp_path / "a.npz", tmp_path / "b.npz"]
    about = {"game": "tri_palki", "features": "tri_palki_actions"}
    save_demonstrations(first, paths[0], {**about, "expert": "heuristic", "seed": 1})
    save_demonstrations(second, paths[1], {**about, "expert": "random", "seed": 2})
    pre = PretrainConfig(
        expert="heuristic", demonstrations=[str(p) for p in paths], epochs=1, batch_size=64
    )
    model = MaskablePPO("MlpPolicy", _factory()(), n_steps=64, batch_size=64, seed=0)
    lines: list[str] = []
    kept = tmp_path / "both.npz"
    metrics = clone_expert(
        model, _factory(), pre, seed=3, gamma=1.0, workers=1, log=lines.append, keep=kept
    )
    assert metrics["samples"] == len(first) + len(second)
    assert [line for line in lines if " from " in line] == [
        f"pretraining: {len(first)} decisions of 'heuristic' from {paths[0]}",
        f"pretraining: {len(second)} decisions of 'random' from {paths[1]}",
    ]
    width = first.observations.shape[1]
    both, described = load_demonstrations(kept, "tri_palki", "tri_palki_actions", width)
    np.testing.assert_array_equal(both.actions, np.concatenate([first.actions, second.actions]))
    np.testing.assert_array_equal(
        both.observations, np.concatenate([first.observations, second.observations])
    )
    assert described["expert"] == ["heuristic", "random"]
    assert [part["seed"] for part in described["parts"]] == [1, 2]
    with pytest.raises(ValueError, match="empty list"):
        PretrainConfig(expert="heuristic", demonstrations=[])


def test_demonstrations_of_another_game_or_feature_set_are_refused(tmp_path: Path) -> None:
    from folkcards.train.pretrain import load_demonstrations, save_demonstrations

    data = collect_demonstrations(_factory(), "heuristic", 50, seed=1)
    path = tmp_path / "d.npz"
    save_demonstrations(data, path, {"game": "tri_palki", "features": "tri_palki_actions"})
    width = data.observations.shape[1]
    loaded, about = load_demonstrations(path, "tri_palki", "tri_palki_actions", width)
    np.testing.assert_array_equal(loaded.actions, data.actions)
    np.testing.assert_array_equal(loaded.values, data.values)
    with pytest.raises(ValueError, match="collected for game 'tri_palki' with features"):
        load_demonstrations(path, "tri_palki", None, width)
    with pytest.raises(ValueError, match="collected for game 'tri_palki'"):
        load_demonstrations(path, "paston", "tri_palki_actions", width)
    with pytest.raises(ValueError, match="are 7 wide"):
        load_demonstrations(path, "tri_palki", "tri_palki_actions", 7)
    with pytest.raises(ValueError, match="cannot read demonstrations"):
        load_demonstrations(tmp_path / "missing.npz", "tri_palki", None, width)
