"""Tri Palki ``pimc``: built from its spec; the engine it loads from a sampled world continues
exactly like the real round; its rollout policy follows the heuristic's rules; legal and
deterministic by seed at every table size."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import advance, play_episode
from folkcards.agents.tri_palki_search import (
    TriPalkiSearchAgent,
    copy_round,
    engine_from_world,
    fast_policy,
    pass_likelihood,
)
from folkcards.envs import tri_palki_v0
from folkcards.envs.tri_palki import observation as obs_mod
from folkcards.envs.tri_palki.rules import (
    ANNOUNCE,
    ANNOUNCE_DECISION,
    OVER,
    PASS,
    TriPalkiRound,
    settle,
)
from folkcards.search.tri_palki_belief import sample_worlds

SMALL = "pimc:samples=4"


def test_make_agent_reads_the_spec():
    agent = make_agent("pimc:samples=7,horizon=30,rollout=heuristic,seed=2", "tri_palki")
    assert isinstance(agent, TriPalkiSearchAgent)
    assert (agent.params.samples, agent.params.horizon, agent.params.rollout) == (
        7,
        30,
        "heuristic",
    )


def test_make_agent_reads_the_budgets():
    agent = make_agent("pimc:infer_budget=700,reconstruct_budget=900", "tri_palki")
    assert (agent.params.infer_budget, agent.params.reconstruct_budget) == (700, 900)


def test_history_caps_are_keys_with_the_old_defaults():
    """``interval_histories`` (8) and ``histories`` (32): the most ways the others' decisions
    may have gone that the search keeps, per interval and per round."""
    default = make_agent("expert", "tri_palki").params
    assert (default.interval_histories, default.histories) == (8, 32)
    agent = make_agent("pimc:histories=64,interval_histories=16", "tri_palki")
    assert (agent.params.interval_histories, agent.params.histories) == (16, 64)


@pytest.mark.parametrize(
    "arg",
    [
        "samples=x",
        "depth=3",
        "samples",
        "horizon=0",
        "rollout=dice",
        "infer_budget=0",
        "reconstruct_budget=y",
        "histories=0",
        "interval_histories=many",
    ],
)
def test_bad_spec_is_one_line_value_error(arg):
    with pytest.raises(ValueError) as info:
        make_agent(f"pimc:{arg}", "tri_palki")
    assert "\n" not in str(info.value) and "Tri Palki pimc" in str(info.value)


def test_agent_class_plays_tri_palki_only():
    with pytest.raises(ValueError, match="tri_palki"):
        TriPalkiSearchAgent("paston")


def _positions(num_players: int, episodes: int, seed: int):
    """(env, observation) at player_0's decisions in heuristic-vs-random play."""
    rng = np.random.default_rng(seed)
    env = tri_palki_v0.raw_env(num_players=num_players)
    heuristic = make_agent("heuristic", "tri_palki")
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            obs = env.observe(name)
            if name == "player_0":
                yield env, obs
            legal = np.flatnonzero(obs["action_mask"])
            action = heuristic.act(obs) if rng.random() < 0.5 else int(rng.choice(legal))
            env.step(action)


def _roll(rnd: TriPalkiRound, rng: np.random.Generator) -> list:
    """Random legal play to the end; the trace of what the round showed."""
    trace = []
    while rnd.phase != OVER:
        bits = rnd.legal_bits()
        legal = [a for a in range(13) if bits >> a & 1]
        action = int(rng.choice(legal))
        trace.append((rnd.to_act, rnd.phase, bits, action, rnd.centre))
        rnd.apply(action)
    trace.append((rnd.outcome, tuple(rnd.hands)))
    return trace


@pytest.mark.parametrize("num_players", [2, 5])
def test_engine_from_world_continues_like_the_real_round(num_players):
    """A world holding the true hidden cards, loaded by engine_from_world, plays on exactly as
    the env's own round (same legal actions, washes, outcome and final hands)."""
    checked = 0
    for env, obs in _positions(num_players, 3, seed=num_players):
        true = env.unwrapped.state_round()
        world = sample_worlds(obs, 1, np.random.default_rng(0), observer=0)[0]
        world = dataclasses.replace(
            world, hands=tuple(true.hands), reserve=tuple(true.reserve_cards())
        )
        view = obs_mod.decode(np.asarray(obs["observation"]))
        mine = engine_from_world(world, view)
        for k in range(2):
            a, b = copy_round(mine), copy_round(true)
            assert _roll(a, np.random.default_rng(k)) == _roll(b, np.random.default_rng(k))
        checked += 1
    assert checked > 5


def test_copy_round_is_independent():
    env = tri_palki_v0.raw_env(num_players=3)
    env.reset(seed=1)
    rnd = env.unwrapped.state_round()
    before = (list(rnd.hands), rnd.centre, rnd.phase, rnd.to_act)
    copy = copy_round(rnd)
    _roll(copy, np.random.default_rng(0))
    assert (list(rnd.hands), rnd.centre, rnd.phase, rnd.to_act) == before


def test_fast_policy_follows_the_heuristic_rules():
    """Announce when offered; never break a safe hand or three aces; keep a 31."""
    seen = {"announce": 0, "special": 0, "31": 0}
    for env, _ in _positions(4, 40, seed=7):
        rnd = env.unwrapped.state_round()
        if rnd.phase == OVER:
            continue
        action = fast_policy(copy_round(rnd))
        assert rnd.legal_bits() >> action & 1
        hand = obs_mod.decode(np.asarray(env.observe("player_0")["observation"]))
        if rnd.phase == ANNOUNCE_DECISION:
            assert action == ANNOUNCE
            seen["announce"] += 1
        elif hand.hand_kind in ("safe", "three_aces"):
            assert action == PASS
            seen["special"] += 1
        elif hand.hand_value == 31 and rnd.announcer < 0:
            assert action == PASS
            seen["31"] += 1
    assert seen["announce"] > 0


def test_rollout_scores_the_stick_of_seat_zero():
    """A rollout from a finished round scores settle()'s stick for the observer."""
    env = tri_palki_v0.raw_env(num_players=3)
    env.reset(seed=4)
    rnd = copy_round(env.unwrapped.state_round())
    _roll(rnd, np.random.default_rng(1))
    agent = make_agent(SMALL, "tri_palki")
    expected = int(settle(rnd.hands, rnd.alive, [0, 0, 0], rnd.dealer).stick[0])
    assert agent._rollout(rnd, [0, 0, 0]) == expected  # type: ignore[attr-defined]


def _actions(num_players: int, seed: int, episodes: int, **env_kwargs) -> list[int]:
    env = tri_palki_v0.raw_env(num_players=num_players, **env_kwargs)
    table = [make_agent(SMALL, "tri_palki", "player_0", seed=seed)]
    table += [make_agent("heuristic", "tri_palki", f"player_{i}") for i in range(1, num_players)]
    table[num_players // 2] = make_agent(SMALL, "tri_palki", "player_x", seed=seed + 1)
    chosen: list[int] = []
    for episode in range(episodes):
        play_episode(
            env, table, seed=seed * 100 + episode, on_action=lambda d: chosen.append(d.action)
        )
    return chosen


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_legal_and_deterministic_by_seed(num_players):
    first = _actions(num_players, 3, 4)  # the env raises on an illegal action
    assert len(first) > 10
    assert _actions(num_players, 3, 4) == first


def test_match_mode_with_eliminations():
    env = tri_palki_v0.raw_env(num_players=3, episode="match")
    env.reset(seed=2)
    table = [make_agent(SMALL, "tri_palki", f"player_{i}", seed=i) for i in range(3)]
    run = advance(env, table)
    assert not env.agents and run.steps > 0


@pytest.mark.slow
def test_legal_over_thousands_of_decisions():
    decisions = 0
    for num_players in (2, 4, 7):
        decisions += len(_actions(num_players, 11, 120))
    assert decisions >= 2000


def _fast_policy_positions(num_players: int, rounds: int, seed: int):
    """(env, true round) at player_0's turns (action phase, no announcement, after at least one
    pass) when every seat plays :func:`fast_policy` on the true round."""
    env = tri_palki_v0.raw_env(num_players=num_players)
    for r in range(rounds):
        env.reset(seed=seed + r)
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            rnd = env.unwrapped.state_round()
            turn = name == "player_0" and rnd.phase != ANNOUNCE_DECISION
            if turn and rnd.announcer < 0 and rnd.passes > 0:
                yield env, rnd
            env.step(fast_policy(copy_round(rnd)))


def test_pass_likelihood_of_passes_the_policy_made():
    """Every pass just made by fast_policy players counts (1 - eps) + eps / 11 (11 legal moves
    on a turn): the true table scores exactly that to the power of the run of passes."""
    eps = 0.2
    seen = 0
    for _, rnd in _fast_policy_positions(4, 60, seed=5):
        expected = ((1 - eps) + eps / 11) ** rnd.passes
        assert pass_likelihood(copy_round(rnd), eps) == pytest.approx(expected)
        seen += 1
    assert seen >= 20


def test_pass_likelihood_of_a_pass_the_policy_would_not_make():
    """Give the player who just passed a hand with which the policy swaps: that pass counts
    eps / 11 only."""
    eps = 0.1
    checked = 0
    for _, rnd in _fast_policy_positions(3, 60, seed=9):
        if rnd.passes != 1:
            continue
        passer = (rnd.to_act - 1) % 3
        # the worst hand for the passer: the three lowest cards of three different suits not
        # on the table elsewhere (6, 7, 8 of three suits is a normal hand worth at most 8)
        used = rnd.centre | sum(rnd.hands[s] for s in range(3) if s != passer)
        low = [c for c in range(36) if not used >> c & 1 and c % 9 <= 3]
        by_suit: dict[int, int] = {}
        for c in low:
            by_suit.setdefault(c // 9, c)
        if len(by_suit) < 3:
            continue
        weak = copy_round(rnd)
        weak.hands = list(weak.hands)
        weak.hands[passer] = sum(1 << c for c in list(by_suit.values())[:3])
        then = copy_round(weak)
        then.to_act, then.passes = passer, 0
        if fast_policy(then) == PASS:
            continue
        assert pass_likelihood(weak, eps) == pytest.approx(eps / 11)
        checked += 1
    assert checked >= 5


def test_inferred_worlds_give_passers_stronger_hands():
    """With inference the hands of the players who just passed are better on average than in
    uniform worlds (the policy passes with good hands)."""
    from folkcards.envs.tri_palki.rules import TRIPLES

    uniform, inferred = [], []
    for env, rnd in _fast_policy_positions(4, 40, seed=21):
        passer = (rnd.to_act - 1) % 4
        obs = env.observe("player_0")
        view = obs_mod.decode(np.asarray(obs["observation"]))
        vector = np.asarray(obs["observation"])
        rel = (passer - 0) % 4
        for infer, out in ((1, uniform), (8, inferred)):
            agent = make_agent(f"pimc:samples=16,infer={infer},seed=1", "tri_palki")
            worlds, _ = agent._worlds(vector, view)  # type: ignore[attr-defined]
            out.extend(TRIPLES[w.hands[rel]].value for w, _ in worlds)
    assert len(uniform) >= 200
    assert np.mean(inferred) > np.mean(uniform) + 1.0


def test_choose_action_keeps_the_policy_move_without_clear_evidence():
    """The policy's move stays unless another beats it by more than `confidence` standard errors
    of the paired difference; confidence 0 takes the plain minimum."""
    from folkcards.agents.tri_palki_search import choose_action

    legal = [PASS, 3, 7]
    rng = np.random.default_rng(0)
    # 32 worlds: action 3 is a little better than the policy's PASS, not clearly
    outcomes = rng.random((32, 3)) < 0.4
    outcomes[:, 0] = outcomes[:, 1]
    outcomes[:4, 0], outcomes[:4, 1] = True, False  # PASS worse in 4 worlds
    outcomes[4:6, 0], outcomes[4:6, 1] = False, True  # better in 2
    outcomes[:, 2] = True
    outcomes = outcomes.astype(float)
    diff = outcomes[:, 0] - outcomes[:, 1]
    assert diff.mean() < 1.5 * diff.std(ddof=1) / np.sqrt(32)  # the premise
    assert choose_action(outcomes, legal, PASS, 1.5) == PASS
    assert choose_action(outcomes, legal, PASS, 0.0) == 3
    # clearly better: the policy's move gets a stick in every world, action 7 in none
    clear = np.zeros((32, 3))
    clear[:, 0] = 1.0
    clear[:, 1] = 1.0
    assert choose_action(clear, legal, PASS, 1.5) == 7
    # ties in the mean go to the policy's move
    assert choose_action(np.zeros((8, 3)), legal, 7, 1.5) == 7
    assert choose_action(np.zeros((8, 3)), legal, 7, 0.0) == 7


def _history_positions(num_players: int, rounds: int, seed: int):
    """(env, agent, observation) at player_0's decisions after its first in a round, player_0
    a pimc agent fed every one of its observations, the others the heuristic."""
    env = tri_palki_v0.raw_env(num_players=num_players)
    others = [make_agent("heuristic", "tri_palki", f"player_{i}") for i in range(num_players)]
    for r in range(rounds):
        agent = make_agent("pimc:samples=2,seed=5", "tri_palki")
        env.reset(seed=seed + r)
        first = True
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            obs = env.observe(name)
            if name == "player_0":
                if not first:
                    yield env, agent, obs
                first = False
                env.step(agent.act(obs))
            else:
                env.step(others[int(name[-1])].act(obs))


def test_history_weighting_brings_worlds_nearer_the_truth():
    """Worlds weighted by the other players' decisions this round hold hands whose values are
    nearer the true ones than uniform worlds (the heuristic keeps the cards that score)."""
    from folkcards.envs.tri_palki.rules import TRIPLES

    errors = {1: [], 8: []}
    for env, agent, obs in _history_positions(3, 30, seed=40):
        vector = np.asarray(obs["observation"])
        view = obs_mod.decode(vector)
        saved = agent._histories  # type: ignore[attr-defined]
        agent._remember(view)  # type: ignore[attr-defined]  (act() will do it again)
        if not any(agent._histories):  # type: ignore[attr-defined]
            agent._histories = saved  # type: ignore[attr-defined]
            continue
        true = env.unwrapped.state_round().hands
        for infer in errors:
            agent.params = dataclasses.replace(agent.params, samples=16, infer=infer)
            worlds, counts = agent._worlds(vector, view)  # type: ignore[attr-defined]
            counts = np.ones(len(worlds)) if counts is None else counts
            for (w, _), c in zip(worlds, counts, strict=True):
                for seat in (1, 2):
                    gap = abs(TRIPLES[w.hands[seat]].value - TRIPLES[true[seat]].value)
                    errors[infer].extend([gap] * int(c))
        agent._histories = saved  # type: ignore[attr-defined]
    assert len(errors[1]) >= 500
    assert np.mean(errors[8]) < np.mean(errors[1]) - 0.5


def test_decisions_do_not_depend_on_hidden_cards():
    """Replay a round's public history in a world with other hidden cards (drawn from
    player_0's information and loaded into an env): a pimc agent with the same seed, fed its
    own observations there, makes every decision the first one made."""
    from folkcards.search.tri_palki_history import public_history

    checked = 0
    for seed in range(8):
        env = tri_palki_v0.raw_env(num_players=3)
        env.reset(seed=300 + seed)
        first = make_agent("pimc:samples=3,seed=9", "tri_palki")
        others = [make_agent("heuristic", "tri_palki", f"player_{i}") for i in range(3)]
        decisions, stop = 0, 1 + seed % 3
        stopped = False
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                break
            obs = env.observe(name)
            if name == "player_0":
                if decisions == stop:
                    stopped = True
                    break
                decisions += 1
                env.step(first.act(obs))
            else:
                env.step(others[int(name[-1])].act(obs))
        if not stopped:
            continue
        history = public_history(env, 0)
        obs = env.observe("player_0")
        world = sample_worlds(obs, 1, np.random.default_rng(seed), observer=0, history=history)[0]
        true = env.unwrapped.state_round()
        if list(world.hands) == list(true.hands):
            continue
        expected = first.act(obs)
        other = tri_palki_v0.raw_env(num_players=3)
        other.reset(seed=0, options={"deck": world.deck(), "dealer": world.dealer})
        second = make_agent("pimc:samples=3,seed=9", "tri_palki")
        for action in world.actions():
            if other.agent_selection == "player_0":
                assert second.act(other.observe("player_0")) == action
            other.step(action)
        assert second.act(other.observe("player_0")) == expected
        checked += 1
    assert checked >= 3


def test_expert_is_pimc_with_the_expert_budget():
    """``expert`` reads ``pimc``'s keys; what its spec leaves out is :data:`EXPERT_PARAMS`
    (docs/guide/expert.md: 192 worlds from 768 candidates, 768 at the end of a round,
    ``infer_epsilon`` 0.3), and bad keys are refused in one line as for ``pimc``. The 0.4.0
    budget (96 worlds from 768, ``infer_epsilon`` 0.1) stays as :data:`EXPERT_PARAMS_0_4`."""
    from folkcards.agents.tri_palki_search import (
        EXPERT_PARAMS,
        EXPERT_PARAMS_0_4,
        TriPalkiSearchParams,
    )

    expert = make_agent("expert", "tri_palki")
    assert expert.name == "expert" and expert.params == EXPERT_PARAMS
    pimc = TriPalkiSearchParams()
    assert (EXPERT_PARAMS.samples, EXPERT_PARAMS.samples * EXPERT_PARAMS.infer) == (192, 768)
    assert (EXPERT_PARAMS.endgame_samples, EXPERT_PARAMS.infer_epsilon) == (768, 0.3)
    assert (
        dataclasses.replace(
            EXPERT_PARAMS, samples=32, infer=8, endgame_samples=0, infer_epsilon=0.1
        )
        == pimc
    )
    assert dataclasses.replace(pimc, samples=96) == EXPERT_PARAMS_0_4
    tuned = make_agent("expert:horizon=30,seed=5", "tri_palki")
    assert tuned.params == dataclasses.replace(EXPERT_PARAMS, horizon=30)
    with pytest.raises(ValueError, match="^Tri Palki pimc parameter samples must be at least 1"):
        make_agent("expert:samples=0", "tri_palki")


def actions_of(actions: list[int]):
    """An ``on_action`` callback appending each decision's action to ``actions``."""
    return lambda decision: actions.append(decision.action)


def test_expert_plays_as_pimc_with_its_budget_does_where_it_has_no_network():
    """The same seeds, the same rounds: ``expert`` and ``pimc`` given the expert's keys choose
    the same actions at every decision (5 players, where ``expert`` searches without its
    network, the heuristic in the other seats)."""
    reference = "pimc:samples=192,infer=4,endgame_samples=768,infer_epsilon=0.3"
    chosen: dict[str, list[int]] = {}
    for spec in ("expert", reference):
        env = tri_palki_v0.env(num_players=5)
        table = [make_agent(spec, "tri_palki", "player_0", seed=9)]
        table += [make_agent("heuristic", "tri_palki", f"player_{i}") for i in range(1, 5)]
        chosen[spec] = actions = []
        for episode in range(2):
            play_episode(env, table, seed=700 + episode, on_action=actions_of(actions))
    assert len(chosen["expert"]) > 10 and chosen["expert"] == chosen[reference]


def test_action_values_are_minus_the_sticks_of_the_move_it_plays():
    """After a decision with a choice the agent reports a value for every legal move and none
    other, each minus an average of 0/1 sticks, and with ``confidence`` 0 it plays the move
    with the highest value; after a forced move it reports none."""
    env = tri_palki_v0.raw_env(num_players=3)
    agent = make_agent(SMALL, "tri_palki", "player_0", seed=5)
    table = [agent] + [make_agent("heuristic", "tri_palki", f"player_{i}") for i in (1, 2)]
    valued = 0

    def check(decision):
        nonlocal valued
        if decision.agent != "player_0":
            return
        legal = [int(a) for a in np.flatnonzero(decision.observation["action_mask"])]
        values = agent.last_action_values
        if len(legal) == 1:
            assert values is None
            return
        valued += 1
        assert values is not None and sorted(values) == legal
        assert all(-1.0 <= v <= 0.0 for v in values.values())
        assert values[decision.action] == max(values.values())

    for episode in range(6):
        play_episode(env, table, seed=300 + episode, on_action=check)
    assert valued > 5
