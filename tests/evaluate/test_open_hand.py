"""Open-hand accuracy of Paston play: each card's loss against the solver,
checked with players whose mistakes are known by construction and against a brute-force minimax
on short endings; the contract check against hand-computed scores."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.envs import paston_v0
from folkcards.envs.paston.rules import PLAY, declarer_score
from folkcards.evaluate.statistics.paston_open_hand_analysis import analyse_record, reachable_levels
from folkcards.search.paston_solver import Position, move_values

from tests.paston.solver_reference import reference_move_values


def _play(seed: int, card_rule: str | None, seat: int = 0) -> dict:
    """One deal: heuristics bid; ``seat``'s cards follow ``card_rule`` (open-hand ``best`` or
    ``worst`` for its side), every other card is random."""
    env = paston_v0.raw_env()
    env.reset(seed=seed)
    bidders = {a: make_agent("heuristic", "paston", a, seed=i) for i, a in enumerate(env.agents)}
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        deal = env.state_deal()
        if deal.phase != PLAY:
            env.step(bidders[agent].act(observation))
            continue
        legal = np.flatnonzero(observation["action_mask"])
        if card_rule is not None and deal.to_act == seat and len(legal) > 1:
            values = move_values(Position.from_deal(deal))
            declarer_side = seat == deal.declarer
            want_max = declarer_side == (card_rule == "best")
            target = max(values.values()) if want_max else min(values.values())
            env.step(min(c for c, v in values.items() if v == target))
        else:
            env.step(int(rng.choice(legal)))
    return env.record()


def _records_with_play(card_rule, count=6):
    records = []
    for seed in range(200):
        record = _play(seed, card_rule)
        if any(a.contract for a in analyse_record(record)):
            records.append(record)
        if len(records) == count:
            return records
    raise AssertionError("too few deals reached the play")


def test_a_player_of_the_open_hand_best_card_loses_nothing():
    for record in _records_with_play("best"):
        (analysis,) = analyse_record(record)
        assert analysis.tricks_lost(0) == 0
        assert all(d.score_lost == 0 for d in analysis.decisions if d.seat == 0)


def test_a_player_of_the_worst_card_loses_every_difference():
    total = 0
    for record in _records_with_play("worst"):
        (analysis,) = analyse_record(record)
        for decision in analysis.decisions:
            assert decision.tricks_lost >= 0
            if decision.seat == 0:
                assert decision.card != decision.best_card or decision.tricks_lost == 0
        total += analysis.tricks_lost(0)
    assert total > 0, "worst cards over several deals must lose tricks somewhere"


def test_card_losses_equal_a_brute_force_count_on_short_endings():
    checked = 0
    for record in _records_with_play(None, count=8):
        (analysis,) = analyse_record(record)
        env = paston_v0.raw_env(**record["env_kwargs"])
        env.reset(seed=record["seed"], options=record["options"] or None)
        decisions = iter(analysis.decisions)
        for _, action in record["actions"]:
            deal = env.state_deal()
            if deal.phase == PLAY:
                position = Position.from_deal(deal)
                hand_size = bin(deal.hands[deal.to_act]).count("1")
                values = move_values(position) if hand_size > 3 else None
                if hand_size <= 3:
                    values = reference_move_values(position)
                if len(values) > 1:
                    decision = next(decisions)
                    assert decision.card == action
                    if hand_size <= 3:
                        side_best = (
                            max(values.values())
                            if deal.to_act == deal.declarer
                            else min(values.values())
                        )
                        assert decision.tricks_lost == abs(side_best - values[action])
                        checked += 1
            env.step(action)
        assert next(decisions, None) is None
    assert checked >= 20


def test_the_contract_check_scores_the_alternatives_the_auction_allowed():
    for record in _records_with_play(None, count=4):
        (analysis,) = analyse_record(record)
        check = analysis.contract
        assert check is not None
        assert check.open_hand_score == declarer_score(check.open_hand_tricks, check.level)
        assert check.alternatives["surrender"] == -10
        assert check.surrender_better == (check.open_hand_score < -10)
        names = ("spades", "clubs", "diamonds", "hearts", "best_spades")
        higher = [
            check.alternatives[names[lv]]
            for lv in range(check.level + 1, 5)
            if names[lv] in check.alternatives
        ]
        assert check.higher_better == any(s > check.open_hand_score for s in higher)


@pytest.mark.parametrize(
    ("high_bid", "levels"),
    [(-1, (0, 1, 2, 3)), (0, (0, 1, 2, 3)), (2, (2, 3)), (3, (3,)), (4, (4,))],
)
def test_reachable_contracts_follow_the_rules(high_bid, levels):
    assert reachable_levels(high_bid) == levels


def test_every_paston_tournament_report_has_open_hand_accuracy(tmp_path):
    import json

    from folkcards.cli import main

    out = tmp_path / "t"
    args = "tournament --game paston --agents heuristic random random --deals 4 --seed 3"
    assert main([*args.split(), "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    results = json.loads((out / "results.json").read_text())
    accuracy = results["open_hand"]
    assert set(accuracy) == {"heuristic", "random", "random#2"}
    for rows in accuracy.values():
        assert set(rows) == {"declarer", "defender", "contracts"}
        for role in ("declarer", "defender"):
            if rows[role]["deals"]:
                assert rows[role]["tricks_lost"] >= 0
    assert "open-hand accuracy" in results["method"]["open_hand"]
    report = (out / "report.md").read_text()
    assert "## Open-hand accuracy" in report and "diagnostic beside the duplicate score" in report
    assert (out / "open_hand.csv").read_text().startswith("agent,role,deals")
    rebuilt = tmp_path / "rebuilt"
    assert main(["report", "--db", str(out / "tournament.sqlite"), "--out", str(rebuilt)]) == 0
    assert "## Open-hand accuracy" in (rebuilt / "report.md").read_text()


def test_a_game_without_card_play_analysis_has_no_open_hand_section(tmp_path):
    import json

    from folkcards.cli import main

    out = tmp_path / "t"
    args = "tournament --game tri_palki --agents heuristic random random --rounds 3 --seed 3"
    assert main([*args.split(), "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert not results.get("open_hand")
    assert "## Open-hand accuracy" not in (out / "report.md").read_text()


def test_the_fast_replay_and_the_kept_table_change_no_analysis(monkeypatch):
    """The analysis replays a one-deal record on the engine state and keeps the solver's table
    from record to record; replayed through the env's steps with a fresh table at every call,
    every record gives the same analysis (decisions, best cards, losses and contract checks)."""
    from folkcards.evaluate.statistics import paston_open_hand_analysis as open_hand

    records = [_play(seed, None) for seed in range(120)]
    fast = [analyse_record(record) for record in records]
    assert sum(len(a.decisions) for deals in fast for a in deals) > 150
    monkeypatch.setattr(open_hand._deal_solver(), "keep_table", False)
    assert [analyse_record(record, through_env=True) for record in records] == fast


@pytest.mark.parametrize("through_env", [False, True])
@pytest.mark.parametrize(
    "change, message",
    [
        (lambda actions: actions.__setitem__(0, ["player_2", actions[0][1]]), "does not replay"),
        (lambda actions: actions.__setitem__(-1, [actions[-1][0], 10_000]), "not an action id"),
        (lambda actions: actions.__setitem__(-1, [actions[-1][0], 0]), "not legal|illegal"),
        (lambda actions: actions.append(actions[-1]), "is over"),
    ],
    ids=["wrong seat", "not an action", "illegal move", "move after the end"],
)
def test_a_record_that_does_not_replay_is_refused_in_one_line(change, message, through_env):
    record = _records_with_play(None, count=1)[0]
    if record["actions"][0][0] == "player_2":  # make the first move's seat wrong either way
        record["actions"][0][0] = "player_1"
    change(record["actions"])
    with pytest.raises(ValueError, match=message) as caught:
        analyse_record(record, through_env=through_env)
    assert "\n" not in str(caught.value)


def test_analyses_in_threads_equal_the_serial_ones():
    """Each thread analyses with its own solver (a solver's workspace is not shared)."""
    from concurrent.futures import ThreadPoolExecutor

    records = [_play(seed, None) for seed in range(40)]
    serial = [analyse_record(record) for record in records]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(analyse_record, records * 3))
    assert threaded == serial * 3
