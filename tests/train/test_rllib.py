"""The RLlib path: the multi-agent env's observations and rewards, the masking
module, a short training of each game on a local Ray that then plays its checkpoint in a
tournament, resume, the ``rllib:`` agent and the message when Ray is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.envs.registry import game_spec

ray = pytest.importorskip("ray")

from folkcards.train.rllib_env import FolkcardsMultiAgentEnv  # noqa: E402

CASES = [  # game, raw_env arguments, episodes
    ("paston", {"episode": "deal", "shaping": True, "reward_scale": 0.05}, 12),
    ("paston", {"episode": "game", "max_deals": 3}, 3),
    ("tri_palki", {"num_players": 4, "episode": "round"}, 12),
    ("tri_palki", {"num_players": 5, "episode": "match", "max_turns": 2000}, 2),
]


def _env_kwargs_ok(game: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    from folkcards.train.config import env_arguments

    allowed = env_arguments(game)
    return {k: v for k, v in kwargs.items() if k in allowed}


def _play_rllib_env(env: FolkcardsMultiAgentEnv, seed: int, agents: dict[str, Any]) -> dict:
    """One episode through the RLlib env; checks the turn-based contract on the way."""
    obs, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    acted: set[str] = set()
    while True:
        assert len(obs) == 1, f"one observation per step (the seat to act), got {sorted(obs)}"
        ((agent, ob),) = obs.items()
        assert agent == env.env.agent_selection
        assert set(ob) == {"observations", "action_mask"} and ob["action_mask"].dtype == np.float32
        assert ob["action_mask"].any()
        plain = {"observation": ob["observations"], "action_mask": ob["action_mask"]}
        obs, rewards, terminated, truncated, _ = env.step({agent: agents[agent].act(plain)})
        acted.add(agent)
        for name, reward in rewards.items():
            assert name in obs, "a reward comes with that seat's observation"
            totals[name] = totals.get(name, 0.0) + reward
        if terminated["__all__"] or truncated["__all__"]:
            assert set(obs) == acted & env.learners, "every learner seat that acted ends"
            assert all(not o["action_mask"].any() for o in obs.values())
            assert all(terminated[a] or truncated[a] for a in obs)
            return totals
        assert not any(v for k, v in terminated.items() if k != "__all__")


@pytest.mark.parametrize(("game", "kwargs", "episodes"), CASES)
def test_rewards_reach_every_seat_as_in_the_aec_env(
    game: str, kwargs: dict[str, Any], episodes: int
) -> None:
    """Summed over an episode, each seat's RLlib rewards equal its AEC return (same deal, same
    actions), including what a seat is paid while others act and at the end."""
    kwargs = _env_kwargs_ok(game, kwargs)
    env = FolkcardsMultiAgentEnv({"game": game, "env_kwargs": kwargs})
    aec = game_spec(game).raw_env(**kwargs)
    nonzero_for_idle = 0
    for episode in range(episodes):
        seed = 1000 + episode
        table = {
            a: make_agent("random", game, a, seed=i) for i, a in enumerate(aec.possible_agents)
        }
        totals = _play_rllib_env(env, seed, table)
        deal_seed = int(np.random.default_rng(seed).integers(2**63))
        table = {
            a: make_agent("random", game, a, seed=i) for i, a in enumerate(aec.possible_agents)
        }
        run = play_episode(aec, table, seed=deal_seed)
        for agent, ret in run.returns.items():
            assert totals.get(agent, 0.0) == pytest.approx(ret, abs=1e-9), (episode, agent)
        nonzero_for_idle += any(v != 0 for v in totals.values())
    assert nonzero_for_idle > 0


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_heuristic_opponents_inside_the_env(game: str) -> None:
    """With env-internal opponents RLlib sees only the learner's seat; its rewards still sum to
    its AEC return with the same agents in the other seats."""
    env = FolkcardsMultiAgentEnv(
        {"game": game, "opponents": [{"spec": "heuristic"}], "learner_seats": 1, "seed": 3}
    )
    aec = game_spec(game).raw_env()
    for episode in range(6):
        learner = make_agent("random", game, "player_0", seed=episode)
        obs, _ = env.reset(seed=episode)
        (seat,) = env.learners
        assert set(env.table) == set(aec.possible_agents) - {seat}
        learner.seat = seat
        totals = 0.0
        done = False
        while not done:
            assert set(obs) <= {seat}
            if obs:
                ob = obs[seat]
                action = learner.act(
                    {"observation": ob["observations"], "action_mask": ob["action_mask"]}
                )
                obs, rewards, terminated, truncated, _ = env.step({seat: action})
                totals += rewards.get(seat, 0.0)
                done = terminated["__all__"] or truncated["__all__"]
        assert np.isfinite(totals)


def test_bad_env_config_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="learner_seats must be from 1 to 3"):
        FolkcardsMultiAgentEnv({"game": "paston", "opponents": ["random"], "learner_seats": 4})
    with pytest.raises(ValueError, match="needs opponents"):
        FolkcardsMultiAgentEnv({"game": "paston", "learner_seats": 1})
    with pytest.raises(ValueError, match="unknown game"):
        FolkcardsMultiAgentEnv({"game": "whist"})


# --- the masking module ------------------------------------------------------------------------


def _module(game: str, bias_illegal: float = 0.0) -> Any:
    import torch
    from folkcards.train.rllib_module import MaskedPPOModule

    env = FolkcardsMultiAgentEnv({"game": game})
    module = MaskedPPOModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"hidden": [32], "activation": "tanh"},
    )
    with torch.no_grad():
        module.net.pi[-1].bias.fill_(bias_illegal)
    return module


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_masking_module_never_picks_an_illegal_action(game: str) -> None:
    """Thousands of decisions sampled by the module's exploration forward pass (and its
    inference argmax), with the unmasked logits pushed hard towards every action: only legal
    actions come out, and the train forward pass gives them all the probability."""
    import torch
    from ray.rllib.core.columns import Columns

    env = FolkcardsMultiAgentEnv({"game": game, "seed": 5})
    torch.manual_seed(0)
    module = _module(game)
    rng = np.random.default_rng(0)
    decisions = 0
    while decisions < 2000:
        obs, _ = env.reset()
        while obs and decisions < 2000:
            ((agent, ob),) = obs.items()
            with torch.no_grad():
                module.net.pi[-1].bias.copy_(
                    torch.as_tensor(rng.normal(0, 50, env.game.num_actions))
                )
            batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in ob.items()}}
            mask = ob["action_mask"] > 0
            explore = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
            dist = module.get_exploration_action_dist_cls().from_logits(explore)
            sampled = int(dist.sample()[0])
            greedy = int(module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].argmax())
            train = module.forward_train(batch)[Columns.ACTION_DIST_INPUTS]
            probs = torch.softmax(train[0], -1).detach().numpy()
            assert mask[sampled] and mask[greedy], (decisions, sampled, greedy)
            assert probs[~mask].sum() == 0.0
            decisions += 1
            obs, _, terminated, truncated, _ = env.step({agent: sampled})
            if terminated["__all__"] or truncated["__all__"]:
                break
    assert decisions == 2000


def test_module_values_ignore_the_mask_and_spaces_are_checked() -> None:
    import gymnasium as gym
    import torch
    from folkcards.train.rllib_module import MaskedPPOModule
    from ray.rllib.core.columns import Columns

    module = _module("paston")
    ob = FolkcardsMultiAgentEnv({"game": "paston"}).reset(seed=1)[0]
    (ob,) = ob.values()
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in ob.items()}}
    closed = {
        Columns.OBS: {
            **batch[Columns.OBS],
            "action_mask": torch.zeros_like(batch[Columns.OBS]["action_mask"]),
        }
    }
    assert torch.equal(module.compute_values(batch), module.compute_values(closed))
    with pytest.raises(ValueError, match="needs Dict observations"):
        MaskedPPOModule(
            observation_space=gym.spaces.Box(0, 1, (4,)), action_space=gym.spaces.Discrete(2)
        )


# --- training on a local Ray -------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


def _tiny(game: str, run_dir: Path, **run: Any) -> Any:
    from folkcards.train.rllib_config import load_rllib_config, rllib_config_from_dict

    data = load_rllib_config(Path("configs") / game / "rllib_ppo.yaml").to_dict()
    data["algorithm"].update(train_batch_size=256, minibatch_size=128, num_epochs=1, hidden=[32])
    data["resources"].update(num_env_runners=0, num_envs_per_env_runner=2)
    data["run"].update(
        total_steps=250,
        checkpoint_every=0,
        eval_every=0,
        eval_deals=4,
        eval_method="duplicate",
        tensorboard=False,
        runs_dir=str(run_dir),
    )
    data["run"].update(run)
    if data["policies"]["opponents"]:
        data["policies"]["snapshot_every"] = 200
    return rllib_config_from_dict(data)


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_short_training_then_its_checkpoint_plays_a_tournament(
    game: str, local_ray: Any, tmp_path: Path
) -> None:
    from folkcards.evaluate.config import Entrant, TournamentConfig
    from folkcards.evaluate.running.runner import run
    from folkcards.train.rllib_train import checkpoint_dirs, train_rllib
    from folkcards.train.run_files import read_csv

    method = "tournament" if game == "paston" else "duplicate"  # both evaluation methods
    config = _tiny(game, tmp_path, eval_method=method)
    run_dir = train_rllib(config, tmp_path / "run", log=lambda _t: None)
    steps = [s for s, _ in checkpoint_dirs(run_dir)]
    assert steps and steps[-1] >= 250
    (row,) = read_csv(run_dir / "eval.csv")
    assert (
        row["method"] == method and int(row["step"]) == steps[-1] and row["opponent"] == "heuristic"
    )
    for name in (
        "config.yaml",
        "policy.pt",
        "train_log.csv",
        "eval.csv",
        "state.json",
        "learning_curve.png",
    ):
        assert (run_dir / name).is_file(), name
    spec = game_spec(game)
    n = spec.default_players
    agents = [Entrant("learner", f"rllib:{run_dir}")]
    agents += [Entrant(f"heuristic_{i}", "heuristic") for i in range(1, n)]
    config = TournamentConfig(
        game=game,
        mode=spec.modes[0].name,
        count=2,
        seed=0,
        agents=agents,
        num_players=n,
        workers=1,
        out=tmp_path / "t",
    )
    stats = run(config, progress=False, log=lambda _t: None)
    assert stats["deals_complete"] == 2
    assert {row["name"] for row in stats["agents"]} == {e.name for e in agents}


@pytest.mark.slow
def test_resume_continues_from_the_checkpoint(local_ray: Any, tmp_path: Path) -> None:
    import json

    from folkcards.agents.rllib_agent import load_policy_file
    from folkcards.train.rllib_config import with_rllib_overrides
    from folkcards.train.rllib_train import train_rllib

    config = _tiny("paston", tmp_path, checkpoint_every=250)
    run_dir = train_rllib(config, tmp_path / "run", log=lambda _t: None)
    first = json.loads((run_dir / "state.json").read_text())["num_timesteps"]
    longer = with_rllib_overrides(config, total_steps=first + 250)
    train_rllib(longer, run_dir, resume=True, log=lambda _t: None)
    state = json.loads((run_dir / "state.json").read_text())
    assert first < state["num_timesteps"] < first + 2 * 300 and state["complete"]
    assert load_policy_file(run_dir / "policy.pt")["steps"] == state["num_timesteps"]
    rows = (run_dir / "train_log.csv").read_text().splitlines()[1:]
    assert [int(r.split(",")[0]) for r in rows] == sorted({int(r.split(",")[0]) for r in rows})


def test_max_minutes_ends_the_run_early_with_a_checkpoint_and_an_evaluation(
    local_ray: Any, tmp_path: Path
) -> None:
    import json

    from folkcards.train.rllib_train import checkpoint_dirs, train_rllib
    from folkcards.train.run_files import read_csv

    config = _tiny("paston", tmp_path, total_steps=1_000_000, max_minutes=1e-4)
    lines: list[str] = []
    run_dir = train_rllib(config, tmp_path / "run", log=lines.append)
    state = json.loads((run_dir / "state.json").read_text())
    rows = read_csv(run_dir / "train_log.csv")
    assert len(rows) == 1 and state["complete"]  # one iteration passes 6 ms of wall time
    assert 0 < state["num_timesteps"] < 1_000_000 and state["wall_seconds"] > 0
    assert [s for s, _ in checkpoint_dirs(run_dir)] == [state["num_timesteps"]]
    assert [int(r["step"]) for r in read_csv(run_dir / "eval.csv")] == [state["num_timesteps"]]
    assert any("max_minutes" in line for line in lines)


def test_max_minutes_must_be_positive() -> None:
    from folkcards.train.rllib_config import load_rllib_config, with_rllib_overrides

    from folkcards.errors import ConfigError

    config = load_rllib_config(Path("configs") / "paston" / "rllib_ppo.yaml")
    with pytest.raises(ConfigError, match="max_minutes"):
        with_rllib_overrides(config, max_minutes=0)


# --- the agent ---------------------------------------------------------------------------------


def _policy_file(tmp_path: Path, game: str, setup: str = "shared") -> Path:
    import torch
    from folkcards.agents.rllib_agent import save_policy_file
    from folkcards.agents.rllib_net import build_net

    env = FolkcardsMultiAgentEnv({"game": game})
    size = env.observation_spaces["player_0"]["observations"].shape[0]
    n = env.game.num_actions
    torch.manual_seed(1)
    ids = (
        ["shared"] if setup == "shared" else [f"seat_{k}" for k in range(len(env.possible_agents))]
    )
    states = {pid: build_net(size, n, [16], "relu").state_dict() for pid in ids}
    meta = {
        "game": game,
        "obs_size": size,
        "num_actions": n,
        "hidden": [16],
        "activation": "relu",
        "setup": setup,
        "steps": 0,
    }
    (tmp_path / "run").mkdir(exist_ok=True)
    return save_policy_file(tmp_path / "run" / "policy.pt", meta, states)


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
def test_rllib_agent_plays_legal_moves_from_the_plain_observation(
    game: str, tmp_path: Path
) -> None:
    _policy_file(tmp_path, game)
    env = game_spec(game).raw_env()
    for greedy in (True, False):
        table = [
            make_agent(f"rllib:{tmp_path / 'run'}", game, a, seed=i, greedy=greedy)
            for i, a in enumerate(env.possible_agents)
        ]
        for seed in range(5):
            run = play_episode(env, table, seed=seed)  # an illegal action would raise
            assert run.steps > 0


def test_per_seat_policies_play_their_own_seat(tmp_path: Path) -> None:
    from folkcards.agents.rllib_agent import load_policy

    policy = load_policy(_policy_file(tmp_path, "paston", "per_seat"))
    assert policy.policy_for("player_2") is policy.nets["seat_2"]
    assert policy.policy_for("player_0") is not policy.nets["seat_2"]


def test_rllib_agent_bad_input_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a run directory"):
        make_agent("rllib", "paston")
    with pytest.raises(ValueError, match="no RLlib run directory or policy file"):
        make_agent(f"rllib:{tmp_path / 'nothing'}", "paston")
    with pytest.raises(ValueError, match="holds no policy.pt"):
        make_agent(f"rllib:{tmp_path}", "paston")
    (tmp_path / "junk.pt").write_text("not torch")
    with pytest.raises(ValueError, match="not a folkcards RLlib policy file"):
        make_agent(f"rllib:{tmp_path / 'junk.pt'}", "paston")
    _policy_file(tmp_path, "paston")
    with pytest.raises(ValueError, match="trained for paston, not tri_palki"):
        make_agent(f"rllib:{tmp_path / 'run'}", "tri_palki")
    with pytest.raises(ValueError, match="no RLlib policy is committed for tri_palki"):
        make_agent("rllib:tri_palki", "tri_palki")


def test_the_committed_paston_policy_plays_legal_moves_as_rllib_paston() -> None:
    from folkcards.agents.rllib_agent import MODELS_DIR, policy_path

    assert policy_path("paston") == MODELS_DIR / "paston_rllib.pt"
    env = game_spec("paston").raw_env()
    table = [
        make_agent("rllib:paston", "paston", a, seed=i) for i, a in enumerate(env.possible_agents)
    ]
    for seed in range(20):
        run = play_episode(env, table, seed=seed)  # an illegal action would raise
        assert run.steps > 0


def test_ray_missing_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from folkcards.evaluate.running import ray_backend

    monkeypatch.setattr(ray_backend, "ray_available", lambda: False)
    with pytest.raises(ray_backend.RayMissingError) as info:
        ray_backend.require_ray("RLlib training")
    text = str(info.value)
    assert "\n" not in text and "pip install 'folkcards[rllib]'" in text


# --- folkcards train with backend: rllib -------------------------------------------------------


def test_train_cli_chooses_the_rllib_backend_from_the_config(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import yaml
    from folkcards.evaluate.running import ray_backend
    from folkcards.train.cli import main

    config = "configs/paston/rllib_ppo.yaml"
    assert main(["--config", config, "--print-config", "--total-steps", "1234"]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["backend"] == "rllib" and printed["run"]["total_steps"] == 1234
    assert printed["resources"]["num_env_runners"] == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("backend: rllib\nalgorithm:\n  learning_rat: 0.1\n")
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "learning_rat" in err
    monkeypatch.setattr(ray_backend, "ray_available", lambda: False)
    assert main(["--config", config, "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "pip install 'folkcards[rllib]'" in err
    assert not (tmp_path / "run").exists()
