"""Tri Palki: the other players' decisions an observer reconstructs from its own observations,
and the likelihood of those decisions under the heuristic's core rules (the weighting of the
``pimc`` agent's worlds).

Written from the rules (``tri_palki.md`` §5, §9: swaps are public, hands and the reserve are
not; an observer sees the table only at its own decisions) and checked against the engine's
true history."""

from __future__ import annotations

import math

import numpy as np
import pytest
from folkcards.agents.tri_palki_search import CORE_MODEL, copy_round, fast_policy
from folkcards.envs import tri_palki_v0
from folkcards.envs.cards import TRI_PALKI_CARDS
from folkcards.envs.tri_palki import observation as obs_mod
from folkcards.envs.tri_palki.rules import (
    ANNOUNCE_DECISION,
    NUM_ACTIONS,
    PASS,
    SWAP_ALL,
    TriPalkiRound,
)
from folkcards.search.tri_palki_likelihood import (
    _encode,
    _group,
    _hands_before,
    steps_log_likelihood,
    worlds_log_likelihood,
)
from folkcards.search.tri_palki_reconstruction import (
    STEP_OFFER,
    STEP_PASS,
    STEP_SWAP,
    OpponentStep,
    reconstruct_opening,
    reconstruct_steps,
)

EPS = 0.1


def _mask(*cards: str) -> int:
    return sum(1 << c for c in TRI_PALKI_CARDS.parse_cards(list(cards), "test"))


def _true_steps(fresh: TriPalkiRound, actions, observer: int = 0) -> list[tuple]:
    """The other players' moves among ``actions`` (applied to ``fresh``) as (seat, kind, gave,
    took, centre faced): what a reconstruction must contain."""
    out = []
    for seat, action in actions:
        if seat != observer and fresh.phase != ANNOUNCE_DECISION:
            centre = fresh.centre
            if action == PASS:
                out.append((seat, "pass", 0, 0, centre))
            elif action == SWAP_ALL:
                out.append((seat, "swap_all", fresh.hands[seat], centre, centre))
            else:
                gave, took = fresh.swap_cards(action)
                out.append((seat, "swap", 1 << gave, 1 << took, centre))
        fresh.apply(action)
    return out


def _moves(steps) -> list[tuple]:
    return [(s.seat, s.kind, s.gave, s.took, s.centre) for s in steps if s.kind != STEP_OFFER]


def _rounds(num_players: int, rounds: int, seed: int, noise: float = 0.2):
    """Rounds where every other seat plays fast_policy (a random move with chance ``noise``)
    and player_0 plays randomly half the time; yields (env, view, action, true round so far)
    at each of player_0's decisions, and None at the end of each round."""
    rng = np.random.default_rng(seed)
    env = tri_palki_v0.raw_env(num_players=num_players)
    for r in range(rounds):
        env.reset(seed=seed * 1000 + r)
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            rnd = env.unwrapped.state_round()
            obs = env.observe(name)
            legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
            chance = 0.5 if name == "player_0" else noise
            action = fast_policy(copy_round(rnd))
            if rng.random() < chance:
                action = int(rng.choice(legal))
            if name == "player_0":
                yield env, obs_mod.decode(np.asarray(obs["observation"])), action
            env.step(action)
        yield None


@pytest.mark.parametrize(
    ("num_players", "rounds", "share"), [(2, 40, 0.85), (3, 40, 0.85), (4, 40, 0.85), (6, 12, 0.6)]
)
def test_reconstructions_contain_the_true_moves(num_players, rounds, share):
    """Between two of the observer's decisions (and from the deal to its first), the true moves
    of the other players are among the reconstructed histories, whenever one is given; and one
    is given almost always."""
    found = given = intervals = 0
    previous = None
    for item in _rounds(num_players, rounds, seed=num_players):
        if item is None:
            previous = None
            continue
        env, view, action = item
        rnd = env.unwrapped.state_round()
        fresh = TriPalkiRound(rnd.deck, rnd.dealer, rnd.alive)
        if previous is None:
            histories = reconstruct_opening(view)
            done = rnd.history
        else:
            histories = reconstruct_steps(previous[0], previous[1], view)
            for _seat, act in rnd.history[: previous[2]]:
                fresh.apply(act)
            done = rnd.history[previous[2] :]
        truth = _true_steps(fresh, done)
        intervals += 1
        if histories is not None:
            given += 1
            found += truth in [_moves(h) for h in histories]
        previous = (view, action, len(rnd.history) + 1)
    assert intervals > 50
    assert found == given
    assert given >= share * intervals  # more washes and ambiguity at larger tables


def _replay_log_likelihood(rnd: TriPalkiRound, observer: int = 0) -> float:
    """The other seats' decisions of the true history so far under fast_policy, replayed on
    the engine from the deal (forced moves excluded)."""
    fresh = TriPalkiRound(rnd.deck, rnd.dealer, rnd.alive)
    total = 0.0
    for seat, action in rnd.history:
        legal = fresh.legal_bits().bit_count()
        if seat != observer and legal > 1:
            agrees = fast_policy(copy_round(fresh)) == action
            total += math.log((1 - EPS) * agrees + EPS / legal)
        fresh.apply(action)
    return total


@pytest.mark.parametrize("num_players", [3, 4])
def test_likelihood_equals_the_engine_replay(num_players):
    """Where the observer's reconstruction of the whole round is unambiguous, the likelihood of
    the true hands is exactly that of replaying the true history on the engine (differential)."""
    checked = 0
    histories = None
    previous = None
    for item in _rounds(num_players, 60, seed=10 + num_players):
        if item is None:
            previous, histories = None, None
            continue
        env, view, action = item
        rnd = env.unwrapped.state_round()
        if previous is None:
            histories = reconstruct_opening(view)
        elif histories is not None:
            more = reconstruct_steps(previous[0], previous[1], view)
            histories = None if more is None else [h + m for h in histories for m in more]
        previous = (view, action)
        if histories is None or len(histories) != 1:
            continue
        hands = [rnd.hands[s] for s in range(num_players)]
        ours = steps_log_likelihood(hands, histories, EPS, CORE_MODEL)
        assert ours == pytest.approx(_replay_log_likelihood(rnd))
        checked += 1
    assert checked >= 40


def _pass_step(seat: int, centre: int, passes: int = 0, survivors: int = 3) -> OpponentStep:
    return OpponentStep(seat, STEP_PASS, 0, 0, centre, 20, passes, False, survivors)


def test_worked_example_of_pass_likelihoods():
    """A player who passed facing K♥ Q♦ 7♣: with a normal 31 (A♠ K♠ Q♠) the rules keep the
    hand, so the pass counts (1 - eps) + eps / 11; with 6♠ 7♦ 9♥ (worth 9) taking K♥ for the
    6♠ makes 19, far more than the 0.5 a swap must gain, so the pass counts eps / 11."""
    centre = _mask("KH", "QD", "7C")
    step = _pass_step(1, centre)
    strong = [0, _mask("AS", "KS", "QS"), 0]
    weak = [0, _mask("6S", "7D", "9H"), 0]
    options = NUM_ACTIONS - 2
    assert steps_log_likelihood(strong, [(step,)], EPS, CORE_MODEL) == pytest.approx(
        math.log(1 - EPS + EPS / options)
    )
    assert steps_log_likelihood(weak, [(step,)], EPS, CORE_MODEL) == pytest.approx(
        math.log(EPS / options)
    )


def test_likelihood_sums_over_the_possible_histories():
    """Two histories that fit the same observations: the likelihood is their sum."""
    centre = _mask("KH", "QD", "7C")
    pass1 = (_pass_step(1, centre),)
    pass2 = (_pass_step(2, centre, passes=1),)
    hands = [0, _mask("6S", "7D", "9H"), _mask("AS", "KS", "QS")]
    a = steps_log_likelihood(hands, [pass1], EPS, CORE_MODEL)
    b = steps_log_likelihood(hands, [pass2], EPS, CORE_MODEL)
    both = steps_log_likelihood(hands, [pass1, pass2], EPS, CORE_MODEL)
    assert both == pytest.approx(math.log(math.exp(a) + math.exp(b)))


def test_an_offer_declined_with_a_normal_31_is_unlikely():
    """The rules always announce a normal 31: a turn that ended with one and no announcement
    counts eps / 2; a hand that is not a normal 31 was never offered (counts 1)."""
    centre = _mask("KH", "QD", "7C")
    offer = OpponentStep(1, STEP_OFFER, 0, 0, centre, 20, 0, False, 3)
    assert steps_log_likelihood([0, _mask("AS", "KS", "QS"), 0], [(offer,)], EPS, CORE_MODEL) == (
        pytest.approx(math.log(EPS / 2))
    )
    assert steps_log_likelihood([0, _mask("AS", "KS", "9S"), 0], [(offer,)], EPS, CORE_MODEL) == 0.0


def _swap_step(seat: int, gave: str, took: str, centre: int) -> OpponentStep:
    return OpponentStep(seat, STEP_SWAP, _mask(gave), _mask(took), centre, 20, 0, False, 3)


def test_a_history_a_hand_cannot_have_made_leaves_no_stale_query_slots():
    """Walking back from a hand that cannot have made a recorded swap (it does not hold the
    card taken) stops there, and every slot of the group's earlier steps says "no query" (-1)
    whatever the buffer held before: the slots are later used as indices."""
    centre = _mask("KH", "QD", "7C")
    history = (_pass_step(1, centre), _swap_step(1, "6S", "KH", centre), _pass_step(1, centre))
    holds_kh = _mask("KH", "7D", "9H")  # took K♥ for 6♠: the swap can be undone
    lacks_kh = _mask("8S", "7D", "9H")  # undoing the swap would give it four cards
    enc = _encode(_group([history]))
    hands = np.array([[0, holds_kh, 0], [0, lacks_kh, 0]], dtype=np.int64)
    width = int(enc.length.sum())
    slot = np.full((2, width), 10**9, dtype=np.int64)  # the stale contents of a reused buffer
    made, held = np.zeros((2, width), np.int64), np.zeros((2, width), np.int64)
    valid = np.ones((2, len(enc.seat)), dtype=np.bool_)
    queries = np.zeros((2 * width, 5), dtype=np.int64)
    count = _hands_before(
        hands, enc.seat, enc.start, enc.length, enc.steps, np.full(3, 2), slot, made, held,
        valid, queries,
    )  # fmt: skip
    assert valid[0].all() and not valid[1].any()
    assert ((slot[0] >= 0) & (slot[0] < count)).all()  # the last pass, the swap, the first pass
    # kept steps are numbered from the last: the last pass is a query, the swap cannot be
    # undone from this hand, and the first pass is never reached
    assert 0 <= slot[1, 0] < count and slot[1, 1] == -1 and slot[1, 2] == -1
    logs = worlds_log_likelihood(hands, [history], EPS, CORE_MODEL).logs
    assert np.isfinite(logs[0]) and logs[1] == -np.inf


def test_reconstruct_steps_refuses_views_of_different_rounds():
    env = tri_palki_v0.raw_env(num_players=3)
    views = []
    for seed in (1, 2):
        env.reset(seed=seed, options={"dealer": 0})
        views.append(obs_mod.decode(np.asarray(env.observe("player_0")["observation"])))
    assert reconstruct_steps(views[0], PASS, views[1]) is None
    assert reconstruct_opening(views[0]) == [()]  # the dealer acts first: nothing before it
