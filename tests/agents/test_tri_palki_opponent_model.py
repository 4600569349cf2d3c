"""The learned Tri Palki opponent model: features, probabilities, the likelihood it gives the
search, its file, its training from recorded tournaments and the search's ``opponents`` key."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.tri_palki_heuristic_core import core_moves
from folkcards.agents.tri_palki_opponent_model import (
    NUM_FEATURES,
    NUM_MOVES,
    LearnedOpponentModel,
    load_opponent_model,
    opponent_features,
)
from folkcards.agents.tri_palki_search import CORE_MODEL, shipped_opponent_model
from folkcards.search.tri_palki_likelihood import worlds_log_likelihood

from folkcards.cli import main

RULES = slice(2 * 36 + 3, NUM_FEATURES)  # the rules' move one-hot inside the features


def _tables(n: int, seed: int = 0):
    """``n`` random (hand, centre, flags) decisions: disjoint three-card hands and centres."""
    rng = np.random.default_rng(seed)
    hands, centres = [], []
    for _ in range(n):
        cards = rng.choice(36, size=6, replace=False)
        hands.append(sum(1 << int(c) for c in cards[:3]))
        centres.append(sum(1 << int(c) for c in cards[3:]))
    flags = [rng.random(n) < 0.3 for _ in range(3)]
    return np.array(hands, dtype=np.int64), np.array(centres, dtype=np.int64), *flags


def _weighting_case(seed: int):
    """The worlds' hands and the reconstructed histories ``pimc`` weights them by, at its first
    decision with some history in a 3-player round against random players (who often leave
    the rules, so the rules' likelihood is not the same for every world)."""
    from folkcards.envs import tri_palki_v0
    from folkcards.search.tri_palki_belief import sample_worlds

    env = tri_palki_v0.raw_env(num_players=3, episode="round")
    env.reset(seed=seed)
    search = make_agent("pimc:samples=4,infer=2,horizon=10,seed=0", "tri_palki", "player_0")
    others = [make_agent("random", "tri_palki", f"player_{i}", seed=seed + i) for i in (1, 2)]
    for agent in env.agent_iter(max_iter=300):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        player = search if agent == "player_0" else others[int(agent[-1]) - 1]
        action = player.act(obs)
        if agent == "player_0" and any(search._histories):
            worlds = sample_worlds(obs["observation"], 40, np.random.default_rng(seed), observer=0)
            return [w.hands for w in worlds], list(search._histories)
        env.step(action)
    raise AssertionError("no decision with a history")


def _copying_model(scale: float) -> LearnedOpponentModel:
    """One linear layer that scores each move by ``scale`` x [the rules' move]: a model whose
    moves are the heuristic rules' by construction."""
    w = np.zeros((NUM_FEATURES, NUM_MOVES), dtype=np.float32)
    w[RULES] = scale * np.eye(NUM_MOVES, dtype=np.float32)
    return LearnedOpponentModel((w,), (np.zeros(NUM_MOVES, dtype=np.float32),))


def test_the_features_are_the_card_bits_the_flags_and_the_rules_move():
    hand, centre, low, announced, deciding = _tables(50)
    x = opponent_features(hand, centre, low, announced, deciding)
    assert x.shape == (50, NUM_FEATURES) and x.dtype == np.float32
    for i in range(50):
        assert sum(1 << b for b in np.flatnonzero(x[i, :36])) == hand[i]
        assert sum(1 << b for b in np.flatnonzero(x[i, 36:72])) == centre[i]
        assert list(x[i, 72:75]) == [low[i], announced[i], deciding[i]]
    rules = core_moves(hand, centre, low, announced, deciding)
    assert (x[:, RULES].argmax(axis=1) == rules).all() and (x[:, RULES].sum(axis=1) == 1).all()
    with pytest.raises(ValueError, match="differ in length"):
        opponent_features(hand, centre[:3], low, announced, deciding)


def test_a_model_copying_the_rules_moves_as_the_rules_and_weights_worlds_alike():
    tables = _tables(200, seed=1)
    copy = _copying_model(scale=60.0)
    assert (copy.moves(*tables) == CORE_MODEL.moves(*tables)).all()
    probs = copy.move_probabilities(*tables)
    assert probs.shape == (200, NUM_MOVES) and np.allclose(probs.sum(axis=1), 1)
    # the likelihood: near one-hot probabilities give the rules' weights
    hands, histories = _weighting_case(seed=3)
    rules = worlds_log_likelihood(hands, histories, 0.1, CORE_MODEL)
    learned = worlds_log_likelihood(hands, histories, 0.1, copy)
    assert np.allclose(learned.logs, rules.logs, atol=1e-6)
    assert learned.work == rules.work


def test_a_model_without_an_opinion_leaves_the_worlds_uniform():
    w = np.zeros((NUM_FEATURES, NUM_MOVES), dtype=np.float32)
    flat = LearnedOpponentModel((w,), (np.zeros(NUM_MOVES, dtype=np.float32),))
    assert np.allclose(flat.move_probabilities(*_tables(5)), 1 / NUM_MOVES)
    hands, histories = _weighting_case(seed=4)
    logs = worlds_log_likelihood(hands, histories, 0.1, flat).logs
    finite = logs[np.isfinite(logs)]
    assert len(finite) > 1 and np.allclose(finite, finite[0])


def test_a_model_of_the_wrong_shape_is_refused_and_files_round_trip(tmp_path):
    with pytest.raises(ValueError, match="features to"):
        LearnedOpponentModel((np.zeros((5, NUM_MOVES), np.float32),), (np.zeros(NUM_MOVES),))
    model = _copying_model(scale=3.0)
    path = tmp_path / "model.npz"
    LearnedOpponentModel(model.weights, model.biases, {"note": "test"}).save(path)
    again = load_opponent_model(path)
    assert again.meta["note"] == "test"
    tables = _tables(30, seed=5)
    assert np.array_equal(again.move_probabilities(*tables), model.move_probabilities(*tables))
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    for bad in (tmp_path / "missing.npz", tmp_path / "bad.npz"):
        with pytest.raises(ValueError) as info:
            load_opponent_model(bad)
        assert "\n" not in str(info.value)


def test_the_shipped_model_loads_and_gives_probabilities():
    model = shipped_opponent_model()
    probs = model.move_probabilities(*_tables(20, seed=6))
    assert probs.shape == (20, NUM_MOVES) and np.allclose(probs.sum(axis=1), 1)
    assert model.meta["held_out_decisions"] > 0


def _tournament(tmp_path, agents: list[str]) -> str:
    out = tmp_path / "t"
    args = ["tournament", "--game", "tri_palki", "--num-players", "3", "--agents", *agents]
    args += ["--rounds", "3", "--seed", "5", "--workers", "1", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    return str(out / "tournament.sqlite")


def test_recorded_decisions_replay_every_action_phase_decision(tmp_path):
    from folkcards.train.tri_palki_opponent_model_training import recorded_decisions

    db = _tournament(tmp_path, ["heuristic", "random", "random"])
    data = recorded_decisions([db])
    assert set(data.player.tolist()) == {"heuristic", "random", "random#2"}
    assert ((data.move >= 0) & (data.move < NUM_MOVES)).all()
    # every hand and centre is three cards, disjoint
    for h, c in zip(data.hand.tolist(), data.centre.tolist(), strict=True):
        assert h.bit_count() == 3 and c.bit_count() == 3 and not h & c
    heuristic = recorded_decisions([db], players=["heuristic"])
    assert 0 < len(heuristic) < len(data)
    rules = CORE_MODEL.moves(
        heuristic.hand, heuristic.centre, heuristic.reserve_low, heuristic.announced,
        heuristic.deciding,
    )  # fmt: skip
    assert (rules == heuristic.move).mean() > 0.9  # the heuristic plays (nearly) its core rules
    with pytest.raises(ValueError, match="no recorded decision"):
        recorded_decisions([db], players=["nobody"])
    with pytest.raises(ValueError, match="no tournament database"):
        recorded_decisions([str(tmp_path / "missing.sqlite")])


def test_the_training_command_writes_a_model_that_beats_chance(tmp_path, capsys):
    db = _tournament(tmp_path, ["heuristic", "heuristic", "random"])
    config = tmp_path / "c.yaml"
    out = tmp_path / "m.npz"
    config.write_text(f"databases: [{db}]\nout: {out}\nepochs: 30\nhidden: [16]\nseed: 1\n")
    assert main(["train-opponent-model", "--config", str(config)]) == 0
    model = load_opponent_model(out)
    assert model.meta["held_out_agreement"] > 1.5 / NUM_MOVES
    config.write_text(f"databases: [{db}]\nout: {out}\nepochs: 0\n")
    assert main(["train-opponent-model", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "epochs" in err[0]


def test_the_search_weights_its_worlds_by_the_learned_model_on_request():
    agent = make_agent("pimc:opponents=learned,samples=4,horizon=10,seed=1", "tri_palki")
    assert agent.opponent_model.model is shipped_opponent_model()
    assert make_agent("pimc", "tri_palki").opponent_model is CORE_MODEL
    with pytest.raises(ValueError) as info:
        make_agent("pimc:opponents=bayes", "tri_palki")
    assert "\n" not in str(info.value) and "rules" in str(info.value)
    # it plays whole rounds (the env raises on an illegal move), the same way for the same seed
    from folkcards.agents.episode import play_episode
    from folkcards.envs import tri_palki_v0

    def moves() -> list[int]:
        env = tri_palki_v0.raw_env(num_players=3, episode="round")
        made: list[int] = []
        for seed in range(3):
            search = make_agent(
                "pimc:opponents=learned,samples=4,horizon=10,seed=2", "tri_palki", "player_0"
            )
            table = [search] + [
                make_agent("random", "tri_palki", f"player_{i}", seed=i) for i in (1, 2)
            ]
            play_episode(env, table, seed=seed, on_action=lambda d: made.append(int(d.action)))
        return made

    assert moves() == moves()
