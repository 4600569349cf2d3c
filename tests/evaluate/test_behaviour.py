"""Behaviour statistics against hand-counted episodes and an independent counter."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from folkcards.envs import paston_v0, tri_palki_v0
from folkcards.envs.cards import TRI_PALKI_CARDS
from folkcards.envs.tri_palki import rules as tp_rules
from folkcards.evaluate.config import load_config
from folkcards.evaluate.reports import document
from folkcards.evaluate.running.runner import deterministic, run
from folkcards.evaluate.statistics import behaviour as bh
from folkcards.evaluate.storage.database import Store

from folkcards import __version__

# --- Paston: two scripted deals counted by hand ----------------------------------------------------

PASS, BID_SPADES, CONTRACT_HEARTS, WHIST = 32, 33, 41, 44


def _scripted_paston_deal(seed: int, everyone_passes: bool) -> dict:
    """Play one Paston deal: the first bidder bids spades and the others pass (or all pass); the
    declarer discards its two lowest cards and names hearts when it can; the defender on the
    declarer's left whists, the other passes; every card played is the lowest legal one."""
    env = paston_v0.raw_env()
    env.reset(seed=seed)
    bidder = None
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = [a for a, ok in enumerate(obs["action_mask"]) if ok]
        deal = env.unwrapped.state_deal()
        seat = int(name[-1])
        if deal.phase == 0:  # auction
            bid = not everyone_passes and bidder is None and BID_SPADES in legal
            if bid:
                bidder = seat
            action = BID_SPADES if bid else PASS
        elif deal.phase == 2:  # contract
            action = CONTRACT_HEARTS if CONTRACT_HEARTS in legal else legal[0]
        elif deal.phase == 3:  # defence: left of the declarer whists
            action = WHIST if seat == (deal.declarer + 1) % 3 else PASS
        else:
            action = legal[0]
        env.step(action)
    return env.unwrapped.record()


def _unit(record: dict, seats: list[str], deal: int) -> dict:
    return {"deal": deal, "seats": seats, "record": record}


def test_paston_behaviour_counted_by_hand() -> None:
    """Deal 0: the first bidder bids spades, the others pass, it declares hearts; deal 1: all
    pass and the designated spade's holder declares. In both deals the defender on the
    declarer's left whists and the one on its right passes, so both contracts are played."""
    names = ["A", "B", "C"]
    records = [
        _scripted_paston_deal(seed=11, everyone_passes=False),
        _scripted_paston_deal(seed=12, everyone_passes=True),
    ]
    units = [_unit(record, names, i) for i, record in enumerate(records)]
    stats = bh.behaviour("paston", 3, False, names, units)
    dealt = [r["deals"][0] for r in records]
    results = [d["result"] for d in dealt]
    declarers = [
        next(s for s in range(3) if result[f"player_{s}"]["role"] == "declarer")
        for result in results
    ]
    assert declarers[0] == dealt[0]["first_bidder"]
    assert results[0][f"player_{declarers[0]}"]["contract"] == "hearts"
    assert [r[f"player_{d}"]["outcome"] for r, d in zip(results, declarers, strict=True)] == [
        "played"
    ] * 2

    def score(deal: int, seat: int) -> int:
        return results[deal][f"player_{seat}"]["deal_score"]

    for seat, name in enumerate(names):
        row = stats[name]
        declares = [d for d in range(2) if declarers[d] == seat]
        lefts = [d for d in range(2) if (declarers[d] + 1) % 3 == seat]
        rights = [d for d in range(2) if (declarers[d] + 2) % 3 == seat]
        assert row["declarer_share"]["value"] == len(declares) / 2
        assert row["all_pass_rate"]["value"] == 1 / 2  # deal 1, whoever you are
        # bids: only deal 0's first bidder ever bid, one spades in two deals
        bid = seat == declarers[0]
        assert row["bid_reached_spades"]["value"] == (1 / 2 if bid else 0.0)
        assert row["bid_reached_none"]["value"] == (1 / 2 if bid else 1.0)
        assert row["whist_rate"]["n"] == 2 - len(declares)
        assert row["whist_rate"]["value"] == (
            len(lefts) / (2 - len(declares)) if lefts or rights else None
        )
        assert row["contract_made"]["n"] == len(declares)
        if declares:
            tricks = [results[d][f"player_{seat}"]["tricks"] for d in declares]
            assert row["tricks_declarer"]["value"] == sum(tricks) / len(tricks)
            assert row["contract_made"]["value"] == sum(t >= 6 for t in tricks) / len(tricks)
            assert row["score_declarer"]["value"] == sum(score(d, seat) for d in declares) / len(
                declares
            )
        if lefts:
            assert row["score_defender"]["value"] == sum(score(d, seat) for d in lefts) / len(lefts)
        if rights:
            assert row["score_passer"]["value"] == 0.0
        for other in range(3):
            if other == seat:
                continue
            against = row[f"whist_rate_vs_{names[other]}"]
            faced = [d for d in range(2) if declarers[d] == other]
            assert against["n"] == len(faced)
    # seat effects: each agent's deal score by its position relative to the dealer
    effects = bh.seat_effects("paston", 3, False, names, units)
    for seat, name in enumerate(names):
        by_position: dict[int, list[int]] = {}
        for d in range(2):
            by_position.setdefault((seat - dealt[d]["dealer"]) % 3, []).append(score(d, seat))
        for position, row in enumerate(effects[name]):
            scores = by_position.get(position, [])
            assert row["n"] == len(scores)
            assert row["mean"] == (sum(scores) / len(scores) if scores else None)


# --- Tri Palki: one hand-made round ---------------------------------------------------------------


def _cards(*names: str) -> list[int]:
    return TRI_PALKI_CARDS.parse_cards(list(names), "test")


def _swap(rnd: tp_rules.TriPalkiRound, give: str, take: str) -> int:
    wanted = (_cards(give)[0], _cards(take)[0])
    return next(a for a in range(1, 10) if rnd.swap_cards(a) == wanted)


def test_tri_palki_round_counted_by_hand() -> None:
    """Two players, player_0 deals and acts first.

    player_0 holds A♥ K♥ 7♣ and takes Q♥ for 7♣: a normal 31, so it is offered the announcement
    and declines. player_1 gives 10♠ for 7♣: the centre 10♠ 8♠ 9♠ is one suit and is washed, so
    player_1 acts again (same turn) and passes; player_0 passes and the round ends, all passed.
    """
    first = ["10S", "AH", "QH", "JC", "KH", "8S", "6D", "7C", "9S", "6H", "7D", "8C"]
    rest = [c for c in TRI_PALKI_CARDS.names if c not in first]
    deck = first + rest
    rnd = tp_rules.TriPalkiRound(_cards(*deck), 0, [True, True])
    env = tri_palki_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    a0 = _swap(rnd, "7C", "QH")
    rnd.apply(a0)
    rnd.apply(12)
    a1 = _swap(rnd, "10S", "7C")
    for action in (a0, 12, a1, 0, 0):
        env.step(action)
    record = env.unwrapped.record()
    assert record["rounds"][0]["result"]["player_0"]["outcome"] == "all_passed"
    assert record["rounds"][0]["result"]["player_1"]["stick"] is True
    names = ["dealer", "other"]
    stats = bh.behaviour("tri_palki", 2, False, names, [_unit(record, names, 0)])
    hand = {
        "dealer": {
            "pass_share": 1 / 2,
            "swap_share": 1 / 2,
            "swap_all_share": 0.0,
            "announce_rate": 0.0,
            "turns_per_round": 2,
            "washes_per_round": 0,
            "stick_rate": 0.0,
            "stick_rate_pos0": 0.0,
            "stick_rate_pos1": None,
        },
        "other": {
            "pass_share": 1 / 2,
            "swap_share": 1 / 2,
            "swap_all_share": 0.0,
            "announce_rate": None,
            "turns_per_round": 1,
            "washes_per_round": 1,
            "stick_rate": 1.0,
            "stick_rate_pos0": None,
            "stick_rate_pos1": 1.0,
        },
    }
    for name, expected in hand.items():
        for key, value in expected.items():
            assert stats[name][key]["value"] == value, (name, key)
    assert stats["dealer"]["announce_rate"]["n"] == 1


# --- an independent simple counter over small tournaments ---------------------------------------


def _independent_paston(units: list[dict]) -> dict[str, Counter]:
    """Counts read straight off the action list and the results, without the rules engine: a
    contract is an action 38..43; whist decisions are 32/44 after the contract."""
    out: dict[str, Counter] = {}
    for unit in units:
        for dealt in unit["record"]["deals"]:
            result = dealt["result"]
            seen_contract = False
            highest: dict[int, int] = {}
            for agent, action in dealt["actions"]:
                seat = int(agent[-1])
                name = unit["seats"][seat]
                c = out.setdefault(name, Counter())
                if 33 <= action <= 37 and not seen_contract:
                    highest[seat] = max(highest.get(seat, -1), action - 33)
                if 38 <= action <= 43:
                    seen_contract = True
                    c["named"] += 1
                    c["surrender"] += action == 43
                elif seen_contract and action in (32, 44):
                    c["offer"] += 1
                    c["whist"] += action == 44
            for seat, name in enumerate(unit["seats"]):
                c = out.setdefault(name, Counter())
                info = result[f"player_{seat}"]
                c["deals"] += 1
                c["declarer"] += info["role"] == "declarer"
                c["bid_spades"] += highest.get(seat) == 0
                if info["role"] == "declarer" and info["outcome"] == "played":
                    c["played"] += 1
                    c["made"] += info["tricks"] >= 6
                    c["auto"] += 0
                c["auto"] += info["role"] == "declarer" and info["outcome"] == "auto_win"
    return out


def _stored_units(config) -> list[dict]:
    with Store(config.db_path) as store:
        return list(store.units(with_records=True))


def test_paston_behaviour_matches_an_independent_counter(tmp_path: Path) -> None:
    config = load_config(
        None,
        {
            "game": "paston",
            "agents": ["heuristic", "random", "random"],
            "deals": 6,
            "seed": 5,
            "workers": 1,
            "out": str(tmp_path),
        },
    )
    results = run(config, progress=False, bootstrap=200)
    counted = _independent_paston(_stored_units(config))
    for name, c in counted.items():
        row = results["behaviour"][name]
        assert row["declarer_share"]["value"] == pytest.approx(c["declarer"] / c["deals"])
        assert row["bid_reached_spades"]["value"] == pytest.approx(c["bid_spades"] / c["deals"])
        assert row["surrender_rate"]["value"] == pytest.approx(c["surrender"] / c["named"])
        assert row["auto_win_rate"]["value"] == pytest.approx(c["auto"] / c["named"])
        assert row["whist_rate"]["n"] == c["offer"]
        assert row["whist_rate"]["value"] == pytest.approx(c["whist"] / c["offer"])
        if c["played"]:
            assert row["contract_made"]["value"] == pytest.approx(c["made"] / c["played"])
        for key in ("declarer_share", "whist_rate"):
            assert row[key]["ci_low"] <= row[key]["value"] <= row[key]["ci_high"]


def test_tri_palki_behaviour_matches_an_independent_counter(tmp_path: Path) -> None:
    config = load_config(
        None,
        {
            "game": "tri_palki",
            "agents": ["heuristic", "random", "random"],
            "matches": 1,
            "seed": 3,
            "workers": 1,
            "out": str(tmp_path),
        },
    )
    results = run(config, progress=False, bootstrap=0)
    units = _stored_units(config)
    counted: dict[str, Counter] = {}
    for unit in units:
        rounds = unit["record"]["rounds"]
        out_round = {}
        for index, rnd in enumerate(rounds):
            n_alive = sum(1 for s in rnd["sticks"] if s < 4)
            for agent, action in rnd["actions"]:
                c = counted.setdefault(unit["seats"][int(agent[-1])], Counter())
                if action in (11, 12):
                    c["offered"] += 1
                    c["announce"] += action == 11
                else:
                    c["actions"] += 1
                    c["pass"] += action == 0
                    c["swap_all"] += action == 10
            for seat, name in enumerate(unit["seats"]):
                info = (rnd["result"] or {}).get(f"player_{seat}")
                if info is None or rnd["sticks"][seat] >= 4 or info["outcome"] == "truncated":
                    continue
                counted[name]["rounds"] += 1
                counted[name]["stick"] += bool(info["stick"])
                if info["eliminated"] and seat not in out_round:
                    out_round[seat] = index
            assert n_alive >= 2
        winner = unit["record"]["winner"]
        for seat, name in enumerate(unit["seats"]):
            counted[name]["matches"] += 1
            counted[name]["won"] += winner == f"player_{seat}"
    for name, c in counted.items():
        row = results["behaviour"][name]
        assert row["pass_share"]["value"] == pytest.approx(c["pass"] / c["actions"])
        assert row["swap_all_share"]["value"] == pytest.approx(c["swap_all"] / c["actions"])
        assert row["announce_rate"]["n"] == c["offered"]
        if c["offered"]:
            assert row["announce_rate"]["value"] == pytest.approx(c["announce"] / c["offered"])
        assert row["stick_rate"]["value"] == pytest.approx(c["stick"] / c["rounds"])
        assert row["rounds_survived"]["value"] == pytest.approx(c["rounds"] / c["matches"])
        if winner_known := any(u["record"]["winner"] for u in units):
            assert winner_known
            assert row["place_1"]["value"] == pytest.approx(c["won"] / c["matches"])
    # the agents' places of one match are a ranking: the shares of each place sum to one
    for name in counted:
        places = [results["behaviour"][name][f"place_{k}"]["value"] for k in (1, 2, 3)]
        assert sum(places) == pytest.approx(1.0)


def test_old_database_without_times_reads_as_not_recorded(tmp_path: Path) -> None:
    config = load_config(
        None,
        {
            "game": "paston",
            "agents": ["random", "random", "random"],
            "deals": 2,
            "seed": 1,
            "workers": 1,
            "out": str(tmp_path),
        },
    )
    new = run(config, progress=False)
    assert all(t["units_recorded"] == t["units"] == 12 for t in new["decision_times"].values())
    conn = sqlite3.connect(config.db_path)
    conn.execute("ALTER TABLE units DROP COLUMN decision_seconds_json")  # the old schema
    conn.execute("DROP TABLE sessions")
    conn.commit()
    conn.close()
    old = run(config, progress=False)
    assert deterministic(old) == deterministic(new)
    for t in old["decision_times"].values():
        assert t["median"] is None and t["units_recorded"] == 0 and t["units"] == 12
    conn = sqlite3.connect(config.db_path)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(units)")}
    conn.close()
    assert "decision_seconds_json" in columns  # migrated in place
    document.rebuild(config.db_path, tmp_path / "report", plot=False)
    report = (tmp_path / "report" / "report.md").read_text()
    assert (
        "| random | 0 | not recorded | not recorded | not recorded | not recorded | 0/12 |"
        in report
    )
    assert "Not recorded (the database predates the sessions table)." in report
    assert f"built in, folkcards {__version__} (read when this report was written)" in report


def test_decision_times_are_stored_per_decision(tmp_path: Path) -> None:
    config = load_config(
        None,
        {
            "game": "paston",
            "agents": ["heuristic", "random", "random"],
            "deals": 1,
            "seed": 2,
            "workers": 1,
            "out": str(tmp_path),
        },
    )
    results = run(config, progress=False)
    conn = sqlite3.connect(config.db_path)
    rows = conn.execute("SELECT record_json, decision_seconds_json FROM units").fetchall()
    conn.close()
    decisions = Counter()
    for record_json, timing_json in rows:
        record, timing = json.loads(record_json), json.loads(timing_json)
        per_seat = Counter(int(agent[-1]) for agent, _ in record["actions"])
        assert [len(t) for t in timing] == [per_seat[s] for s in range(3)]
        assert all(x >= 0 for seat in timing for x in seat)
    with Store(config.db_path) as store:
        for seats, timing in store.decision_seconds():
            for seat, name in enumerate(seats):
                decisions[name] += len(timing[seat])
    for name, t in results["decision_times"].items():
        assert t["decisions"] == decisions[name] > 0
        assert 0 <= t["median"] <= t["p95"] <= t["slowest"]
