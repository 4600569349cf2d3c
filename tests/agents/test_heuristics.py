"""The heuristic agents (and the random one): legal on any state, blind to hidden cards,
deterministic, and clearly better than random on duplicate deals."""

from __future__ import annotations

import ast
import copy
import inspect

import numpy as np
import pytest
from folkcards.agents import (
    make_agent,
    paston_heuristic,
    paston_heuristic_core,
    tri_palki_heuristic,
    tri_palki_heuristic_core,
)
from folkcards.agents.paston_heuristic import PastonHeuristicAgent
from folkcards.agents.tri_palki_heuristic import TriPalkiHeuristicAgent
from folkcards.envs import paston_v0, tri_palki_v0
from folkcards.envs.paston import observation as paston_obs
from folkcards.envs.tri_palki import observation as tri_obs

from ..helpers import walk_decisions

KINDS = ["random", "heuristic"]


def _explore(env, agent_kind: str, game: str, episodes: int, seed: int, mix: float = 0.5) -> int:
    """Walk many states: at every state the tested agent must answer legally; the action taken
    is its answer or, with probability ``mix``, a uniformly random legal action (so the states
    reached are varied). Returns the number of states checked."""
    rng = np.random.default_rng(seed)
    agents = {
        a: make_agent(agent_kind, game, a, seed=seed + i) for i, a in enumerate(env.possible_agents)
    }
    for agent in agents.values():
        agent.strict = True  # a heuristic must not need its fallback
    checked = 0

    def choose(name: str, obs: dict) -> int:
        nonlocal checked
        action = agents[name].act(obs)
        assert isinstance(action, int)
        assert obs["action_mask"][action] == 1, f"{agent_kind} chose illegal {action}"
        checked += 1
        if rng.random() < mix:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
        return action

    def reset_agents() -> None:
        for agent in agents.values():
            agent.reset()

    seeds = range(seed * 1000, seed * 1000 + episodes)
    for _ in walk_decisions(env, seeds, choose, reset_agents):
        pass
    return checked


@pytest.mark.parametrize("kind", KINDS)
def test_paston_agents_always_legal(kind):
    checked = _explore(paston_v0.raw_env(), kind, "paston", 120, seed=1)
    checked += _explore(paston_v0.raw_env(), kind, "paston", 60, seed=2, mix=0.0)
    checked += _explore(paston_v0.raw_env(episode="game", max_deals=10), kind, "paston", 2, seed=3)
    assert checked > 2500


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("players", [2, 4, 7])
def test_tri_palki_agents_always_legal(kind, players):
    env = tri_palki_v0.raw_env(num_players=players, episode="match", max_turns=60)
    checked = _explore(env, kind, "tri_palki", 12, seed=players)
    checked += _explore(
        tri_palki_v0.raw_env(num_players=players), kind, "tri_palki", 40, seed=9, mix=0.0
    )
    assert checked > 1000, checked


def test_make_agent_builds_the_heuristics():
    assert isinstance(make_agent("heuristic", "paston"), PastonHeuristicAgent)
    assert isinstance(
        make_agent("heuristic", "tri_palki", "player_3", seed=1), TriPalkiHeuristicAgent
    )
    with pytest.raises(ValueError):
        PastonHeuristicAgent("tri_palki")
    with pytest.raises(ValueError):
        TriPalkiHeuristicAgent("paston")


# --- hidden information ---------------------------------------------------------------------


def _permute_paston_hidden(deal, observer: int, rng: np.random.Generator):
    """A copy of the engine state with every card hidden from ``observer`` permuted among the
    hidden places (other hands, the untaken prikup, the discards it did not make)."""
    slots = []
    for seat in range(3):
        if seat != observer:
            slots += [(seat, c) for c in range(32) if deal.hands[seat] >> c & 1]
    if not deal.prikup_taken:
        slots += [("prikup", c) for c in range(32) if deal.prikup >> c & 1]
    if deal.declarer != observer:
        slots += [("discards", c) for c in range(32) if deal.discards >> c & 1]
    other = copy.deepcopy(deal)
    for place, _ in slots:
        if place == "prikup":
            other.prikup = 0
        elif place == "discards":
            other.discards = 0
        else:
            other.hands[place] = 0
    for (place, _), card in zip(slots, rng.permutation([c for _, c in slots]), strict=True):
        bit = 1 << int(card)
        if place == "prikup":
            other.prikup |= bit
        elif place == "discards":
            other.discards |= bit
        else:
            other.hands[place] |= bit
    return other


def _permute_tri_palki_hidden(rnd, observer: int, rng: np.random.Generator):
    """A copy of the round with the cards hidden from ``observer`` (others' unknown hand cards
    and the undrawn reserve) permuted among those places."""
    other = copy.deepcopy(rnd)
    slots = []
    for seat in range(rnd.num_seats):
        if seat != observer:
            hidden = rnd.hands[seat] & ~rnd.known[seat]
            slots += [(seat, c) for c in range(36) if hidden >> c & 1]
            other.hands[seat] &= rnd.known[seat]
    reserve = list(rnd.reserve[rnd.top :])
    slots += [("reserve", c) for c in reserve]
    cards = [int(c) for c in rng.permutation([c for _, c in slots])]
    new_reserve = []
    for (place, _), card in zip(slots, cards, strict=True):
        if place == "reserve":
            new_reserve.append(card)
        else:
            other.hands[place] |= 1 << card
    other.reserve = tuple(rnd.reserve[: rnd.top]) + tuple(new_reserve)
    return other


@pytest.mark.parametrize("kind", KINDS)
def test_paston_hidden_cards_change_nothing(kind):
    """Two states that differ only in cards hidden from the agent give it the same observation
    and therefore the same action (same seed)."""
    rng = np.random.default_rng(5)
    env = paston_v0.raw_env()
    compared = 0

    def compare(name: str, obs: dict) -> int:
        nonlocal compared
        seat = env.agent_seat[name]
        other = _permute_paston_hidden(env.state_deal(), seat, rng)
        obs2 = {
            "observation": paston_obs.encode(other, seat),
            "action_mask": obs["action_mask"].copy(),
        }
        assert np.array_equal(obs2["observation"], obs["observation"])
        a1 = make_agent(kind, "paston", name, seed=compared).act(obs)
        a2 = make_agent(kind, "paston", name, seed=compared).act(obs2)
        assert a1 == a2
        compared += 1
        return a1

    for _ in walk_decisions(env, range(500, 540), compare):
        pass
    assert compared > 300


@pytest.mark.parametrize("kind", KINDS)
def test_tri_palki_hidden_cards_change_nothing(kind):
    rng = np.random.default_rng(6)
    env = tri_palki_v0.raw_env(num_players=4, max_turns=80)
    compared = 0

    def compare(name: str, obs: dict) -> int:
        nonlocal compared
        seat = env.agent_seat[name]
        other = _permute_tri_palki_hidden(env.state_round(), seat, rng)
        vec = tri_obs.encode(other, seat, list(env.sticks.values()), env.max_turns)
        assert np.array_equal(vec, obs["observation"])
        obs2 = {"observation": vec, "action_mask": obs["action_mask"].copy()}
        a1 = make_agent(kind, "tri_palki", name, seed=compared).act(obs)
        a2 = make_agent(kind, "tri_palki", name, seed=compared).act(obs2)
        assert a1 == a2
        compared += 1
        return a1

    for _ in walk_decisions(env, range(600, 625), compare):
        pass
    assert compared > 200


@pytest.mark.parametrize(
    "module",
    [paston_heuristic, paston_heuristic_core, tri_palki_heuristic, tri_palki_heuristic_core],
)
def test_heuristic_modules_read_only_the_observation(module):
    """The heuristics (and their shared compiled rules) read the observation through its decoder
    (or its layout) and may use the game's vocabulary, the card helpers, the rules' pure helpers
    and tables and the compiled rules kernels, but never a rules engine state (a deal or round),
    an env, or an env's state accessors."""
    source = inspect.getsource(module)
    tree = ast.parse(source)
    allowed = {"__future__", "dataclasses", "functools", "itertools", "math", "numpy", "numba"}
    allowed |= {"base", "sys", "paston_heuristic_core", "tri_palki_heuristic_core"}
    hand_helpers = {"SUIT_POINTS", "_key", "_kind", "_one_suit"}
    engine_states = {"PastonDeal", "TriPalkiRound", "settle", "raw_env", "env"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name in allowed, alias.name
        elif isinstance(node, ast.ImportFrom):
            name = node.module or ""
            names = {a.name for a in node.names}
            if name.endswith("observation"):
                assert names <= {
                    "decode",
                    "PastonView",
                    "TriPalkiView",
                    "OFFSETS",
                    "OBSERVATION_SIZE",
                }
            elif name.endswith("envs.compile_notice"):  # says when numba compiles, nothing else
                assert names <= {"install"}, names
            elif name.endswith("tri_palki.batched"):
                assert names <= hand_helpers, names - hand_helpers
            elif not name:  # from . import module
                assert names <= allowed, names
            elif name.endswith((".vocabulary", "envs.cards", ".rules", ".kernels")):
                assert not names & engine_states, names & engine_states
            else:
                assert name in allowed, name
        elif isinstance(node, ast.Attribute):
            assert node.attr not in {
                "state_deal",
                "state_round",
                "unwrapped",
                "_deal",
                "_round",
                "env",
                "hands",
            }, node.attr


def test_act_needs_nothing_but_the_dict():
    """The agent works from plain copies of the observation, with the env gone."""
    env = paston_v0.raw_env()
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    plain = {
        "observation": np.array(obs["observation"]),
        "action_mask": np.array(obs["action_mask"]),
    }
    expected = make_agent("heuristic", "paston", seed=0).act(obs)
    del env
    assert make_agent("heuristic", "paston", seed=0).act(plain) == expected


# --- determinism ----------------------------------------------------------------------------


def _actions(game: str, kind: str, seed: int, episodes: int) -> list[int]:
    env = paston_v0.raw_env() if game == "paston" else tri_palki_v0.raw_env(max_turns=80)
    agents = {
        a: make_agent(kind, game, a, seed=seed + i) for i, a in enumerate(env.possible_agents)
    }
    seeds = range(seed, seed + episodes)
    return [
        action
        for _, _, action in walk_decisions(env, seeds, lambda name, obs: agents[name].act(obs))
    ]


@pytest.mark.parametrize("game", ["paston", "tri_palki"])
@pytest.mark.parametrize("kind", KINDS)
def test_deterministic_given_the_seed(game, kind):
    assert _actions(game, kind, 11, 8) == _actions(game, kind, 11, 8)


# --- behaviour in set positions ----------------------------------------------------------------


def _tri_view(hand, centre, **changes) -> dict[str, np.ndarray]:
    from folkcards.envs.cards import TRI_PALKI_CARDS as cards

    view = tri_obs.TriPalkiView(
        num_players=4,
        hand=sorted(cards.card_id(c) for c in hand),
        centre=sorted(cards.card_id(c) for c in centre),
        washed=[],
        known=[[], [], [], []],
        reserve_count=20,
        sticks=[0, 0, 0, 0],
        eliminated=[False] * 4,
        dealer=0,
        to_act=0,
        announced=False,
        announcer=None,
        final_turn_pending=[False] * 4,
        passes=0,
        pass_ends_round=False,
        phase="action",
        hand_value=0,
        hand_kind="normal",
    )
    for key, value in changes.items():
        setattr(view, key, value)
    mask = np.zeros(13, dtype=np.int8)
    mask[:11] = 1
    return {"observation": tri_obs.encode_view(view), "action_mask": mask}


def _swap(hand, centre, give, take) -> int:
    from folkcards.envs.cards import TRI_PALKI_CARDS as cards

    h = sorted(cards.card_id(c) for c in hand).index(cards.card_id(give))
    c = sorted(cards.card_id(c) for c in centre).index(cards.card_id(take))
    return 1 + 3 * h + c


def test_tri_palki_positions():
    agent = TriPalkiHeuristicAgent("tri_palki", seed=0)
    # a third ace is always taken
    hand, centre = ["AS", "AC", "7D"], ["AH", "9C", "10D"]
    assert agent.act(_tri_view(hand, centre)) == _swap(hand, centre, "7D", "AH")
    # a safe hand is never broken
    assert agent.act(_tri_view(["6S", "7S", "8S"], ["AS", "KS", "QS"])) == 0
    # completing 31 beats everything else
    hand, centre = ["AH", "KH", "7C"], ["QH", "9C", "10D"]
    assert agent.act(_tri_view(hand, centre)) == _swap(hand, centre, "7C", "QH")
    # a whole centre worth more than the hand is taken at once
    assert agent.act(_tri_view(["6S", "7C", "8D"], ["AD", "KD", "9S"])) == 10
    # announce whenever it is offered
    mask = np.zeros(13, dtype=np.int8)
    mask[11:] = 1
    obs = _tri_view(["AH", "KH", "QH"], ["6S", "7C", "8D"])
    assert agent.act({"observation": obs["observation"], "action_mask": mask}) == 11


def _play_paston(deal, dealer=2, seats=("heuristic",) * 3, seed=0):
    env = paston_v0.raw_env()
    env.reset(seed=seed, options={"deal": deal, "dealer": dealer})
    agents = {
        a: make_agent(k, "paston", a, seed=seed)
        for a, k in zip(env.possible_agents, seats, strict=True)
    }
    log, final = [], {}
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            final[name] = info
            env.step(None)
            continue
        action = agents[name].act(obs)
        log.append((name, env.unwrapped.action_to_string(action)))
        env.step(action)
    return final, log


def test_paston_positions():
    deal = {
        "hands": [
            "KS AS 9S 10S JS QS AC AD KD AH".split(),  # player_0: six top spades and aces
            "7C 8C JC 7D 8D QD 7H 8H QH 10C".split(),
            "9C QC KC 9D 10D JD 9H 10H JH KH".split(),
        ],
        "prikup": ["7S", "8S"],
    }
    final, log = _play_paston(deal, dealer=2)
    # the strong hand bids, the weak ones pass, spades (the cheap contract) is named and won
    assert log[0] == ("player_0", "bid spades")
    assert not any(name != "player_0" and action.startswith("bid") for name, action in log)
    assert ("player_0", "contract spades") in log
    assert final["player_0"]["deal_score"] == 10
    # the discards are two side cards: every spade is kept
    discards = log[3:5]
    assert all(name == "player_0" and not action.endswith("S") for name, action in discards)


# --- heuristic beats random ---------------------------------------------------------------------


def _duplicate(env_factory, players: int, deals: int, metric) -> tuple[float, float]:
    env = env_factory()
    heur = rand = 0.0
    for d in range(deals):
        for rot in range(players):
            kinds = ["heuristic" if i == rot else "random" for i in range(players)]
            agents = {
                f"player_{i}": make_agent(k, GAME_OF[players], f"player_{i}", seed=d * 10 + rot)
                for i, k in enumerate(kinds)
            }
            env.reset(seed=7000 + d)
            final = {}
            for name in env.agent_iter():
                obs, _, term, trunc, info = env.last()
                if term or trunc:
                    final[name] = info
                    env.step(None)
                    continue
                env.step(agents[name].act(obs))
            heur += metric(final[f"player_{rot}"])
            rand += sum(metric(final[f"player_{i}"]) for i in range(players) if i != rot) / (
                players - 1
            )
    return heur / (deals * players), rand / (deals * players)


GAME_OF = {3: "paston", 4: "tri_palki"}


def test_paston_heuristic_beats_random():
    heur, rand = _duplicate(paston_v0.raw_env, 3, 60, lambda info: info["deal_score"])
    assert heur - rand > 5.0, (heur, rand)


def test_tri_palki_heuristic_beats_random():
    heur, rand = _duplicate(
        lambda: tri_palki_v0.raw_env(num_players=4),
        4,
        60,
        lambda info: float(info.get("stick", False)),
    )
    assert rand - heur > 0.1, (heur, rand)
