"""paston_bidding_v0: Paston's decisions before the play, the tricks from the open-hand solver.

Written from the env's page: the auction, discards, contract and defence are
those of paston_v0 (same observations and masks), the deal ends once the defence is decided, and
the score is the table of docs/rules/paston.md §7 applied to the open-hand tricks: the declarer's
double-dummy count; a sole defender the rest; two defenders each its own guarantee plus half the
contested tricks (an odd one to the larger guarantee, on a tie to the declarer's left).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pettingzoo
import pytest
from folkcards.envs import paston_bidding_v0, paston_v0
from folkcards.envs.paston.rules import DEFENCE, PASS, PLAY, SURRENDER, WHIST
from folkcards.envs.paston_bidding import env as bidding_env_module
from folkcards.envs.paston_bidding.solved_scores import credit_tricks, table_scores
from folkcards.envs.registry import game_spec
from folkcards.search.paston_solver import Position, solve
from pettingzoo.test import api_test, render_test, seed_test

from tests.helpers import play_random_episode
from tests.paston.solver_reference import reference_solve

# docs/rules/paston.md §7, written out trick by trick (before the factor)
TWO_DEFENDERS = (-10, -9, 0, 10, 20, 30, 40, 50, 60, 70, 80)
SOLE_DEFENDER = (-10, -9, -8, -7, 0, 10, 20, 30, 40, 50, 60)
FACTOR = {0: 1, 1: 2, 2: 3, 3: 4, 4: 4}  # spades, clubs, diamonds, hearts, best spades
BEST_SPADES = 4


def expected_scores(tricks, level, declarer, defenders):
    """The §7 table, from the rules page (not from the engine)."""
    factor = FACTOR[level]
    scores = [0, 0, 0]
    if tricks[declarer] >= 6:
        scores[declarer] = 10 if level == BEST_SPADES else 10 * factor
    else:
        scores[declarer] = -10 * factor
    table = SOLE_DEFENDER if len(defenders) == 1 else TWO_DEFENDERS
    for seat in defenders:
        scores[seat] = table[tricks[seat]] * factor
    return scores


def expected_tricks(hands, trump, declarer, active, solve_fn):
    """The crediting rule of the page, computed here from three plain solves."""
    position = Position(hands, trump, declarer, active)
    total = position.tricks_left
    declarer_tricks = solve_fn(position)
    defenders = [(declarer + 1) % 3, (declarer + 2) % 3]
    defenders = [seat for seat in defenders if seat in active]
    tricks = [0, 0, 0]
    tricks[declarer] = declarer_tricks
    if len(defenders) == 1:
        tricks[defenders[0]] = total - declarer_tricks
        return tricks, 0
    left, right = defenders
    g = {
        seat: solve_fn(Position(hands, trump, seat, active, leader=declarer)) for seat in defenders
    }
    contested = total - declarer_tricks - g[left] - g[right]
    tricks[left] = g[left] + contested // 2
    tricks[right] = g[right] + contested // 2
    if contested % 2:
        tricks[right if g[right] > g[left] else left] += 1
    return tricks, contested


@pytest.fixture(autouse=True)
def _quiet_unknown_option_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


# --- PettingZoo conformance ----------------------------------------------------------------------


@pytest.mark.parametrize("episode", ["deal", "game"])
@pytest.mark.parametrize("factory", [paston_bidding_v0.env, paston_bidding_v0.raw_env])
def test_pettingzoo_api_test(factory, episode):
    api_test(factory(episode=episode), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("episode", ["deal", "game"])
def test_pettingzoo_seed_test(episode):
    seed_test(lambda: paston_bidding_v0.env(episode=episode), num_cycles=200)


def test_pettingzoo_render_test(capsys):
    render_test(lambda render_mode=None: paston_bidding_v0.env(render_mode=render_mode))


def test_registry_make_and_spec():
    env = pettingzoo.make("aec", "folkcards/paston-bidding-v0")
    env.reset(seed=3)
    assert env.unwrapped.metadata["name"] == "paston_bidding_v0"
    spec = game_spec("paston-bidding")
    assert spec.name == "paston_bidding" and spec.base_game == "paston"
    assert spec.num_actions == game_spec("paston").num_actions
    assert spec.raw_env().observation_space("player_0") == paston_v0.raw_env().observation_space(
        "player_0"
    )


# --- the crediting rule ----------------------------------------------------------------------


def test_worked_example_contested_tricks_are_shared():
    # Spades trump, the declarer (0) leads. The A♠ is the declarer's one trick; the clubs and
    # diamonds lose. Neither defender can force a trick alone: the declarer and the other defender
    # never lead its suit (0 guaranteed each), so both defence tricks are contested: 1 and 1.
    position = Position(["AS 7C 7D", "AC KC QC", "AD KD QD"], "S", declarer=0)
    for solve_fn in (None, reference_solve):
        result = credit_tricks(position, solve_fn)
        assert result.declarer_tricks == 1
        assert result.guaranteed == (1, 0, 0)
        assert result.contested == 2
        assert result.tricks == (1, 1, 1)


def test_worked_example_a_guaranteed_trick_goes_to_its_owner():
    # The declarer cashes A♠ and A♦; the 7♣ must be led at last and the left's clubs win it.
    # The right's low diamonds never win: tricks 2, 1, 0.
    position = Position(["AS AD 7C", "AC KC QC", "8D 9D 10D"], "S", declarer=0)
    for solve_fn in (None, reference_solve):
        result = credit_tricks(position, solve_fn)
        assert result.tricks == (2, 1, 0)
        assert result.guaranteed == (2, 1, 0)
        assert result.contested == 0


def test_worked_example_full_deal_and_scores():
    hands = [
        "7S 8S 9S 10S JS QS KS AS AC AD",
        "7C 8C 9C 10C JC 7D 8D 9D 10D JD",
        "QC KC QD KD 7H 8H 9H 10H JH QH",
    ]
    two = paston_bidding_v0.first_lead_result(hands, 0, 0, [1, 2])
    assert two.tricks == (10, 0, 0) and two.contested == 0
    assert table_scores(two.tricks, 0, 0, [1, 2]) == [10, -10, -10]
    assert table_scores(two.tricks, BEST_SPADES, 0, [1, 2]) == [10, -40, -40]
    sole = paston_bidding_v0.first_lead_result(hands, 0, 0, [2])
    assert sole.tricks == (10, 0, 0) and sole.guaranteed == (10, None, 0)
    assert table_scores(sole.tricks, 2, 0, [2]) == [30, 0, -30]


def test_score_table_worked_examples_of_the_rules_page():
    # paston.md §8, examples 1-4 (declarer seat 0, defenders 1 and 2)
    assert table_scores([6, 3, 1], BEST_SPADES, 0, [1, 2]) == [10, 40, -36]
    assert table_scores([6, 3, 1], 0, 0, [1, 2]) == [10, 10, -9]
    assert table_scores([5, 3, 2], 3, 0, [1, 2]) == [-40, 40, 0]
    assert table_scores([7, 3, 0], 2, 0, [1]) == [30, -21, 0]


def random_ending(rng, tricks, sole):
    deck = rng.permutation(32)
    hands = [int(sum(1 << int(c) for c in deck[i * tricks : (i + 1) * tricks])) for i in range(3)]
    declarer = int(rng.integers(3))
    active = [0, 1, 2]
    if sole:
        active.remove(int((declarer + 1 + rng.integers(2)) % 3))
    return hands, int(rng.integers(4)), declarer, active


@pytest.mark.parametrize("sole", [False, True])
def test_crediting_agrees_with_the_reference_minimax_on_endings(sole):
    """Compiled solver (defenders as the maximising seat too) against the plain minimax."""
    rng = np.random.default_rng(11 + sole)
    contested_seen = set()
    for _ in range(150):
        hands, trump, declarer, active = random_ending(rng, int(rng.integers(2, 5)), sole)
        position = Position(hands, trump, declarer, active)
        result = credit_tricks(position)
        tricks, contested = expected_tricks(hands, trump, declarer, active, reference_solve)
        assert list(result.tricks) == tricks, position
        assert result.contested == contested
        assert result.declarer_tricks == reference_solve(position)
        assert sum(result.tricks) == position.tricks_left
        for seat in active:
            assert result.tricks[seat] >= result.guaranteed[seat] >= 0
        contested_seen.add(contested)
    if not sole:
        assert len(contested_seen) >= 3  # the sharing is exercised, odd counts included
        assert any(c % 2 for c in contested_seen)


def test_credit_tricks_refuses_a_started_position():
    position = Position(["AS 7C", "AC KC", "AD KD"], "S", declarer=0).play("7C")
    with pytest.raises(ValueError, match="before its first lead"):
        credit_tricks(position)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (([6, 3], 0, 0, [1, 2]), "3 counts"),
        (([6, 3, 11], 0, 0, [1, 2]), "3 counts"),
        (([6, 3, 1], 5, 0, [1, 2]), "level"),
        (([6, 3, 1], 0, 0, [0, 2]), "other than the declarer"),
        (([6, 3, 1], 0, 0, []), "one or two"),
    ],
)
def test_table_scores_bad_input(args, needle):
    with pytest.raises(ValueError, match=needle):
        table_scores(*args)


# --- the env against the rule and against paston_v0 -------------------------------------------


def test_played_deals_score_the_table_on_the_solvers_tricks():
    """Random episodes: every deal that reaches the play is scored from independent solves."""
    env = paston_bidding_v0.raw_env()
    rng = np.random.default_rng(5)
    played = 0
    for seed in range(80):
        env.reset(seed=seed)
        rewards = play_random_episode(env, rng)
        deal = env.state_deal()
        if deal.outcome != "played":
            continue
        played += 1
        assert deal.trick_count == 0 and not any(deal.played)  # no card was played
        defenders = [s for s in (0, 1, 2) if s != deal.declarer and deal.defence[s] == 1]
        active = sorted([deal.declarer, *defenders])
        tricks, _ = expected_tricks(deal.hands, deal.trump, deal.declarer, active, solve)
        scores = expected_scores(tricks, deal.level, deal.declarer, defenders)
        assert [rewards[f"player_{s}"] for s in range(3)] == scores
        assert deal.tricks == tricks
    assert played >= 25


def test_auto_win_and_surrender_are_scored_without_the_solver(monkeypatch):
    def no_solver():
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(bidding_env_module, "new_solver", no_solver)
    env = paston_bidding_v0.raw_env()
    rng = np.random.default_rng(2)
    seen = set()
    for seed in range(300):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            deal = env.state_deal()
            # never whist: every deal ends by both passing, surrendering or a redeal
            choices = [a for a in legal if not (deal.phase == DEFENCE and a == WHIST)]
            env.step(int(choices[rng.integers(len(choices))]))
        deal = env.state_deal()
        seen.add(deal.outcome)
        declarer = deal.declarer
        if deal.outcome == "auto_win":
            expected = [0, 0, 0]
            expected[declarer] = 10 if deal.level == BEST_SPADES else 10 * FACTOR[deal.level]
            assert deal.scores == expected
        elif deal.outcome == "surrender":
            assert deal.history[-1] == (declarer, SURRENDER)
            assert deal.scores == [-10 if s == declarer else 2 for s in range(3)]
    assert {"auto_win", "surrender"} <= seen


def _stub_solver():
    return lambda position: 0  # declarer 0, guarantees 0: all ten tricks contested


def test_same_masks_and_observations_as_paston_v0_until_the_defence_is_decided(monkeypatch):
    """Thousands of random deals stepped in both envs with the same actions.

    The scoring is not under test here, so the solver is a stub (fast); every observation and
    mask of all three seats must be equal at every decision, and the bidding env must end
    exactly when paston_v0 reaches the first lead (or ends the deal itself).
    """
    monkeypatch.setattr(bidding_env_module, "new_solver", _stub_solver)
    bidding = paston_bidding_v0.raw_env()
    pass_rng = np.random.default_rng(7)
    full = paston_v0.raw_env()
    rng = np.random.default_rng(2024)
    endings = {"played": 0, "auto_win": 0, "surrender": 0, "redeal": 0}
    decisions = 0
    for seed in range(2000):
        options = None
        if seed % 40 == 0:  # J♠ and 7♠ in the prikup: an all-pass is a redeal
            rest = [int(c) for c in rng.permutation([c for c in range(32) if c not in (0, 4)])]
            hands = [rest[i * 10 : (i + 1) * 10] for i in range(3)]
            options = {"deal": {"hands": hands, "prikup": [0, 4]}}
        bidding.reset(seed=seed, options=options)
        full.reset(seed=seed, options=options)
        while not bidding.terminations[bidding.agent_selection]:
            assert bidding.agent_selection == full.agent_selection
            for agent in bidding.possible_agents:
                ours, theirs = bidding.observe(agent), full.observe(agent)
                assert np.array_equal(ours["observation"], theirs["observation"])
                assert np.array_equal(ours["action_mask"], theirs["action_mask"])
            legal = np.flatnonzero(bidding.observe(bidding.agent_selection)["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            if options and PASS in legal and pass_rng.random() < 0.8:
                action = PASS  # all-pass often enough to see redeals
            assert full.state_deal().phase < PLAY
            bidding.step(action)
            full.step(action)
            decisions += 1
        outcome = bidding.state_deal().outcome
        endings[outcome] += 1
        if outcome == "played":
            deal = full.state_deal()
            assert deal.phase == PLAY and deal.trick_count == 0 and not deal.trick
            assert deal.history == bidding.state_deal().history
        else:
            assert all(full.terminations.values())
            for agent in full.possible_agents:
                assert bidding.rewards[agent] == full.rewards[agent]
                extra = {"guaranteed": None, "contested": None}
                assert bidding.infos[agent] == {**full.infos[agent], **extra}
    assert min(endings.values()) > 0, endings
    assert decisions > 8_000


# --- records ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"episode": "deal"}, {"episode": "game", "max_deals": 4}])
def test_record_is_json_and_replays_exactly(kwargs):
    env = paston_bidding_v0.raw_env(**kwargs)
    rng = np.random.default_rng(3)
    for seed in range(6):
        env.reset(seed=seed)
        play_random_episode(env, rng)
        record = json.loads(json.dumps(env.record()))
        assert record["game"] == "paston_bidding" and record["env"] == "paston_bidding_v0"
        assert "shaping" not in record["env_kwargs"]
        again = paston_bidding_v0.replay(record)
        assert again.record() == record
        assert game_spec(record["game"]).replay(record).record() == record
        assert record["deals"][-1]["result"] is not None


def test_infos_name_the_credited_tricks():
    env = paston_bidding_v0.raw_env()
    rng = np.random.default_rng(8)
    for seed in range(40):
        env.reset(seed=seed)
        play_random_episode(env, rng)
        result = env.open_hand_result()
        deal = env.state_deal()
        if deal.outcome != "played":
            assert result is None
            continue
        infos = env.record()["deals"][-1]["result"]
        for seat in range(3):
            info = infos[f"player_{seat}"]
            assert info["tricks"] == result.tricks[seat]
            assert info["guaranteed"] == result.guaranteed[seat]
            assert info["contested"] == result.contested
            assert info["outcome"] == "played"
        return
    raise AssertionError("no deal reached the play")


def test_no_shaping_argument():
    with pytest.raises(TypeError):
        paston_bidding_v0.raw_env(shaping=True)  # type: ignore[call-arg]


def test_registry_heuristic_plays_the_bidding_env():
    from folkcards.agents import make_agent
    from folkcards.agents.episode import play_episode

    env = game_spec("paston_bidding").raw_env()
    agents = {s: make_agent("heuristic", "paston_bidding", s, seed=1) for s in env.possible_agents}
    outcomes = set()
    for seed in range(30):
        run = play_episode(env, agents, seed=seed)
        assert not run.truncated and run.steps <= 12  # bids, two discards, contract, defence
        outcomes.add(env.state_deal().outcome)
    assert "played" in outcomes


def test_a_paston_v0_record_is_not_replayed_as_a_bidding_record():
    full = paston_v0.raw_env()
    full.reset(seed=4)
    play_random_episode(full, np.random.default_rng(4))
    with pytest.raises(ValueError, match="cannot be replayed"):
        paston_bidding_v0.replay(full.record())
