"""The Tri Palki ``iterated`` search: without a network it is ``expert``'s search exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from folkcards.agents.base import make_agent
from folkcards.agents.episode import Decision, play_episode
from folkcards.agents.tri_palki_net_search import save_value
from folkcards.agents.tri_palki_opponent_model import (
    NUM_FEATURES,
    NUM_MOVES,
    LearnedOpponentModel,
    opponent_features,
)
from folkcards.agents.tri_palki_rollouts import NUM_WORLD_FEATURES
from folkcards.envs.tri_palki_v0 import raw_env
from folkcards.search.mlp import Mlp

from .tri_palki_styles import play_rounds


class _Both:
    """Plays ``a``'s moves; asks ``b`` the same observations and keeps both action values."""

    def __init__(self, a, b):  # type: ignore[no-untyped-def]
        self.a, self.b, self.pairs = a, b, []

    def reset(self) -> None:
        self.a.reset()
        self.b.reset()

    def act(self, observation):  # type: ignore[no-untyped-def]
        action = self.a.act(observation)
        other = self.b.act(observation)
        if self.a.last_action_values is not None:
            self.pairs.append((self.a.last_action_values, self.b.last_action_values, action, other))
        return action


@pytest.mark.parametrize("n", [3, 4, 6])
def test_without_a_network_the_batched_rollouts_give_the_python_searchs_action_values(
    n: int,
) -> None:
    both = _Both(
        make_agent(
            "pimc:samples=12,infer=8,infer_epsilon=0.1,endgame_samples=0",
            "tri_palki",
            "player_0",
            seed=5,
        ),
        make_agent("iterated:samples=12", "tri_palki", "player_0", seed=5),
    )
    others = [make_agent("heuristic", "tri_palki", f"player_{i}", seed=i) for i in range(1, n)]
    env = raw_env(num_players=n)
    for episode in range(4):
        play_episode(env, [both, *others], seed=700 + 10 * n + episode)
    assert len(both.pairs) >= 4
    for expert_values, iterated_values, expert_action, iterated_action in both.pairs:
        assert expert_values.keys() == iterated_values.keys()
        assert all(abs(expert_values[a] - iterated_values[a]) < 1e-12 for a in expert_values)
        assert expert_action == iterated_action


def _tiny_net(folder: Path, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    policy = LearnedOpponentModel(
        (rng.normal(size=(NUM_FEATURES, 8)).astype(np.float32),
         rng.normal(size=(8, NUM_MOVES)).astype(np.float32)),
        (np.zeros(8, np.float32), np.zeros(NUM_MOVES, np.float32)),
    )  # fmt: skip
    policy.save(folder / "policy.npz")
    save_value(
        Mlp((rng.normal(size=(NUM_WORLD_FEATURES, 4)).astype(np.float32),
             rng.normal(size=(4, 1)).astype(np.float32)),
            (np.zeros(4, np.float32), np.zeros(1, np.float32))),
        folder / "value.npz",
    )  # fmt: skip
    return str(folder)


def _seat0_actions(agent, others) -> list[int]:  # type: ignore[no-untyped-def]
    actions: list[int] = []

    def note(decision: Decision) -> None:
        if decision.agent == "player_0":
            actions.append(decision.action)

    env = raw_env(num_players=4)
    for episode in range(3):
        play_episode(env, [agent, *others], seed=40 + episode, on_action=note)
    return actions


def test_a_network_search_plays_legal_moves_deterministically(tmp_path: Path) -> None:
    folder = _tiny_net(tmp_path)
    spec = f"iterated:samples=6,infer=2,net={folder},top_k=2,cutoff=3"
    runs = []
    for _ in range(2):
        agent = make_agent(spec, "tri_palki", "player_0", seed=9)
        others = [make_agent("heuristic", "tri_palki", f"player_{i}", seed=i) for i in range(1, 4)]
        runs.append(_seat0_actions(agent, others))
        # the priors: at most top_k actions and the heuristic's are rolled out
        assert agent.last_action_values is None or len(agent.last_action_values) <= 3
    assert runs[0] == runs[1] and runs[0]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("iterated:top_k=-1", "top_k must be at least 0"),
        ("iterated:cutoff=x", "cutoff needs an integer"),
        ("iterated:net=/no/such/folder", "no Tri Palki opponent model"),
        ("iterated:bogus=1", "bogus"),
    ],
)
def test_bad_specs_are_refused_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "tri_palki", "player_0")


class _Rules:
    """The heuristic's core rules as a network's policy (one move per table)."""

    announces = True

    @staticmethod
    def moves(*facts):  # type: ignore[no-untyped-def]
        from folkcards.agents.tri_palki_heuristic_core import core_moves

        return core_moves(*facts)


def _first_decision(num_players: int, seed: int, worlds: int):  # type: ignore[no-untyped-def]
    """The view, ``worlds`` sampled worlds and the legal actions at a round's first decision."""
    from folkcards.envs.tri_palki import observation as obs_mod
    from folkcards.search.tri_palki_belief import sample_worlds

    env = raw_env(num_players=num_players)
    env.reset(seed=seed)
    observation = env.observe(env.agent_selection)
    vector = np.asarray(observation["observation"])
    sampled = sample_worlds(vector, worlds, np.random.default_rng(0), observer=0)
    legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
    return obs_mod.decode(vector), sampled, legal


def test_the_other_seats_model_moves_them_in_the_rollouts(tmp_path: Path) -> None:
    """``others=rules``: the network moves seat 0 only; with a network that always plays
    what the core rules play, ``others=rules`` changes nothing, and ``others`` is refused
    unless net, learned or rules."""
    from folkcards.agents.tri_palki_rollouts import TriPalkiNet, load_worlds, rollout_sticks
    from folkcards.agents.tri_palki_search import CORE_MODEL

    class _PassAlways(_Rules):
        @staticmethod
        def moves(*facts):  # type: ignore[no-untyped-def]
            return np.zeros(len(facts[0]), dtype=np.int64)  # PASS

    view, worlds, legal = _first_decision(4, 61, 16)

    def sticks(net, others):  # type: ignore[no-untyped-def]
        batch = load_worlds(worlds, view, len(legal))
        first = np.tile(np.array(legal, dtype=np.int64), len(worlds))
        return rollout_sticks(batch, first, 60, net, 0, others)[0]

    rules_net = TriPalkiNet(_Rules())  # type: ignore[arg-type]
    passing_net = TriPalkiNet(_PassAlways())  # type: ignore[arg-type]
    assert np.array_equal(sticks(None, None), sticks(rules_net, None))
    assert np.array_equal(sticks(rules_net, CORE_MODEL), sticks(None, None))
    # a network that passes everywhere, but only in seat 0: not the same as in every seat
    assert not np.array_equal(sticks(passing_net, CORE_MODEL), sticks(passing_net, None))
    with pytest.raises(ValueError, match="others must be one of"):
        make_agent(f"iterated:net={_tiny_net(tmp_path)},others=bogus", "tri_palki", "player_0")
    agent = make_agent(f"iterated:net={tmp_path},others=learned", "tri_palki", "player_0")
    assert agent.others is not None and agent.opponent_model.model is agent.others


def test_weights_chooses_the_model_that_weights_the_worlds_apart_from_the_others(tmp_path):
    """``weights=M``: the worlds are weighted by ``M`` while ``others`` still moves the other
    seats in the rollouts; ``weights`` equal to ``others`` (or left out) is the same player."""
    from folkcards.agents.tri_palki_search import CORE_MODEL, shipped_opponent_model

    net = _tiny_net(tmp_path)
    hybrid = make_agent(f"iterated:net={net},others=rules,weights=net", "tri_palki", "player_0")
    assert hybrid.others is CORE_MODEL
    assert hybrid.opponent_model.model is hybrid.net.policy
    learned = make_agent(f"iterated:net={net},weights=learned", "tri_palki", "player_0")
    assert learned.others is None  # the network moves every seat
    assert learned.opponent_model.model is shipped_opponent_model()
    with pytest.raises(ValueError, match="weights must be one of"):
        make_agent(f"iterated:net={net},weights=bogus", "tri_palki", "player_0")
    spec = "iterated:samples=8,infer=4,net=shipped,top_k=5,cutoff=10,others=rules"
    same = [make_agent(s, "tri_palki", "player_0", seed=3) for s in (spec, spec + ",weights=rules")]

    class _Agreeing:
        """Plays the one action both agents choose (asserting they agree)."""

        def reset(self) -> None:
            for agent in same:
                agent.reset()

        def act(self, observation):  # type: ignore[no-untyped-def]
            actions = {agent.act(observation) for agent in same}
            assert len(actions) == 1
            return actions.pop()

    opponents = [make_agent("heuristic", "tri_palki", f"player_{i}", seed=i) for i in (1, 2)]
    decisions = list(play_rounds(_Agreeing(), opponents, [7, 8], 3, max_turns=60))  # type: ignore[arg-type]
    assert len(decisions) > 4


def test_the_core_rollouts_memo_changes_no_move():
    """The compiled core rollouts remember each distinct table's move: a memo too small for a
    6-player table's rollouts (it stops storing when half full) plays every row exactly as a
    memo with room for all, and both as the network rollouts asking the rules every step."""
    from folkcards.agents.tri_palki_rollouts import (
        TriPalkiNet,
        _core_rollouts,
        apply_rows,
        load_worlds,
        rollout_sticks,
    )

    view, worlds, legal = _first_decision(6, 62, 64)
    first = np.tile(np.array(legal, dtype=np.int64), len(worlds))
    played = []
    for bits in (3, 20):
        batch = load_worlds(worlds, view, len(legal))
        apply_rows(batch.st, batch.hands, batch.known, batch.deck, np.arange(len(first)), first)
        count = _core_rollouts(batch.st, batch.hands, batch.known, batch.deck, 200, bits)
        played.append((count, batch.st.copy(), batch.hands.copy()))
    assert played[0][0] == played[1][0] > 10 * len(first)
    assert np.array_equal(played[0][1], played[1][1])
    assert np.array_equal(played[0][2], played[1][2])
    by_rules = rollout_sticks(
        load_worlds(worlds, view, len(legal)), first, 200, TriPalkiNet(_Rules())
    )  # type: ignore[arg-type]
    by_memo = rollout_sticks(load_worlds(worlds, view, len(legal)), first, 200)
    assert np.array_equal(by_rules[0], by_memo[0]) and by_rules[1] == by_memo[1]


def test_the_network_rollouts_ask_each_table_once_and_play_as_asking_every_row():
    """The network rollouts remember each distinct table's move within a call: with a memo too
    small (it stops storing when half full) and with room for all, every row plays exactly as
    when the policy is asked about every row at every step."""
    from folkcards.agents.tri_palki_net_search import SHIPPED_NET_FOLDER, load_net
    from folkcards.agents.tri_palki_rollouts import (
        _move_facts,
        _net_rollouts,
        apply_rows,
        load_worlds,
    )
    from folkcards.envs.tri_palki.batched import OVER, PHASE
    from folkcards.envs.tri_palki.rules import ANNOUNCE, ANNOUNCE_DECISION

    net = load_net(SHIPPED_NET_FOLDER)
    view, worlds, legal = _first_decision(6, 62, 64)
    first = np.tile(np.array(legal, dtype=np.int64), len(worlds))

    def loaded():  # type: ignore[no-untyped-def]
        batch = load_worlds(worlds, view, len(legal))
        apply_rows(batch.st, batch.hands, batch.known, batch.deck, np.arange(len(first)), first)
        return batch

    asked = []
    reference = loaded()
    for _ in range(40):
        rows = np.flatnonzero(reference.st[:, PHASE] != OVER)
        if not len(rows):
            break
        moves = net.policy.moves(*_move_facts(reference, rows))
        asked.append(len(rows))
        moves[reference.st[rows, PHASE] == ANNOUNCE_DECISION] = ANNOUNCE
        apply_rows(reference.st, reference.hands, reference.known, reference.deck, rows, moves)
    assert sum(asked) > 10 * len(first)
    for bits in (3, 20):
        batch = loaded()
        assert _net_rollouts(batch, 40, net, None, bits) == sum(asked)
        assert np.array_equal(batch.st, reference.st)
        assert np.array_equal(batch.hands, reference.hands)


def test_a_networks_move_for_a_table_is_the_same_alone_and_in_any_batch():
    from folkcards.agents.tri_palki_net_search import SHIPPED_NET_FOLDER, load_net
    from folkcards.agents.tri_palki_rollouts import _move_facts, load_worlds

    policy = load_net(SHIPPED_NET_FOLDER).policy
    view, worlds, legal = _first_decision(4, 17, 48)
    batch = load_worlds(worlds, view, len(legal))
    facts = _move_facts(batch, np.arange(len(batch.st)))
    scores = policy.scores(opponent_features(*facts))
    for size in (1, 3, 5, 97):
        for start in range(0, len(batch.st), 29):
            part = slice(start, start + size)
            assert np.array_equal(policy.scores(opponent_features(*(f[part] for f in facts))),
                                  scores[part])  # fmt: skip


def test_the_shipped_network_is_found_by_name_and_plays() -> None:
    from folkcards.agents.tri_palki_net_search import SHIPPED_NET_FOLDER

    source = json.loads((SHIPPED_NET_FOLDER / "source.json").read_text())
    assert source["made_by"].startswith("folkcards iterate --config configs/tri_palki/")
    agent = make_agent("iterated:samples=6,infer=2,net=shipped,top_k=3,cutoff=5", "tri_palki",
                       "player_0", seed=3)  # fmt: skip
    assert agent.net is not None and agent.net.value is not None
    others = [make_agent("heuristic", "tri_palki", f"player_{i}", seed=i) for i in range(1, 4)]
    assert _seat0_actions(agent, others)


def test_the_network_search_makes_no_matrix_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """A matrix product's last bits depend on the machine's BLAS kernel and on the rows asked
    together; the search's networks are evaluated row by row, so a decision is the same on any
    machine. With the matrix product removed, the shipped network's search (rollouts, priors,
    world weights and values) still plays."""

    def refuse(self, x):  # type: ignore[no-untyped-def]
        raise AssertionError("the search asked for a matrix product")

    monkeypatch.setattr(Mlp, "__call__", refuse)
    agent = make_agent("iterated:samples=8,infer=2,net=shipped,top_k=3,cutoff=4", "tri_palki",
                       "player_0", seed=5)  # fmt: skip
    others = [make_agent("heuristic", "tri_palki", f"player_{i}", seed=i) for i in range(1, 4)]
    assert len(_seat0_actions(agent, others)) > 3
