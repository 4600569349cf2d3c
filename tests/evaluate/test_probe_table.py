"""The exploitability table: every shipped agent at every published table size, each probe's
largest-budget record, "found" only for an interval above 0, and the committed table current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from folkcards.envs.registry import game_spec
from folkcards.evaluate.pages.probe_table import (
    best_record,
    probe_table,
    read_records,
    shipped_rows,
)


def _record(folder: Path, name: str, agent: str, gain: float, ci95: float, deals: int,
            game: str = "tri_palki", players: int = 3, search: dict | None = None,
            steps: int = 1000, selected: int | None = None) -> Path:  # fmt: skip
    out = folder / name
    out.mkdir(parents=True)
    final = {
        "measurement": {"game": game, "agent": agent, "num_players": players, "deals": deals,
                        "gain": gain, "ci95": ci95, "unit": "sticks per round"},
        "steps": 0 if search else steps,
        "selected_step": 0 if search else selected,
    }  # fmt: skip
    if search:
        final["method"] = "search"
        final["search"] = search
    (out / "final.json").write_text(json.dumps(final))
    if search:
        (out / "search.json").write_text(json.dumps({"searched": 9, "deviations": int(gain != 0)}))
    (out / "exploit_state.json").write_text(json.dumps({"command": f"folkcards exploit {name}"}))
    return out


SEARCH = {"worlds": 8, "candidates": 24, "decisions": 3, "rollout": None, "z": 2.0}


def test_every_shipped_agent_has_a_row_at_every_published_size():
    rows = shipped_rows()
    for game, sizes in (("paston", (3,)), ("tri_palki", (3, 4, 6))):
        for agent in game_spec(game).agents:
            for n in sizes:
                assert (game, n, agent) in rows
    assert not [r for r in rows if r[0] == "tri_palki" and r[1] not in (3, 4, 6)]
    # the independent baseline of the gauntlet's pool has its rows too
    assert ("paston", 3, "montecarlo") in rows and ("tri_palki", 6, "montecarlo") in rows


def test_found_only_when_the_interval_lies_above_zero(tmp_path):
    _record(tmp_path, "a", "heuristic", 0.05, 0.01, 100)
    _record(tmp_path, "b", "random", 0.05, 0.06, 100)
    _record(tmp_path, "c", "ppo:tri_palki", -0.05, 0.01, 100)
    found = {r.agent: r.found for r in read_records(tmp_path, "train")}
    assert found == {"heuristic": True, "random": False, "ppo:tri_palki": False}


def test_the_largest_budget_is_shown_and_specs_of_other_agents_are_not(tmp_path):
    _record(tmp_path, "small", "expert", 0.5, 0.1, 6, search=SEARCH)
    _record(tmp_path, "large", "expert", -0.5, 0.1, 12, search=SEARCH)
    _record(tmp_path, "planted", "tests/x.py:Holey", 0.9, 0.1, 50, search=SEARCH)
    _record(tmp_path, "trained", "expert", 0.0, 0.0, 300)
    search = read_records(tmp_path, "search")
    assert {r.folder.name for r in search} == {"small", "large", "planted"}
    assert best_record(search, "tri_palki", 3, "expert").folder.name == "large"
    assert best_record(search, "tri_palki", 4, "expert") is None
    assert best_record(read_records(tmp_path, "train"), "tri_palki", 3, "expert").method == "train"


def test_the_table_states_each_budget_and_what_was_not_measured(tmp_path):
    _record(tmp_path / "s", "tp3_ppo", "ppo:tri_palki", 0.02, 0.01, 40, search=SEARCH)
    _record(tmp_path, "tp3_expert", "expert", 0.0, 0.0, 300, steps=12288, selected=0)
    text = probe_table(tmp_path, tmp_path / "s", tmp_path / "README.md")
    ppo = next(line for line in text.splitlines() if "| Tri Palki | 3 | `ppo`" in line)
    assert "[+0.020 [+0.010, +0.030]](s/tp3_ppo/exploit.md) **found**" in ppo
    assert "40 deals; 8 of 24 worlds, the first 3 decisions of each seat searched" in ppo
    assert ppo.count("not measured") == 1  # the trained probe's cell
    expert = next(line for line in text.splitlines() if "| Tri Palki | 3 | `expert`" in line)
    assert "0 (the learner kept its start, the agent)" in expert
    assert "12,288 steps, 300 final deals" in expert
    assert "**learned agents**, a gain whose interval lies above 0: `ppo` (Tri Palki" in text
    assert "**search agents**, a gain whose interval lies above 0: none at these budgets" in text
    assert "played as the agent throughout: `expert` (Tri Palki, 3 players, trained" in text
    assert "`folkcards exploit tp3_ppo`" in text


def test_a_search_probe_without_deviation_says_so(tmp_path):
    _record(tmp_path, "tp4_expert", "expert", 0.0, 0.0, 10, players=4, search=SEARCH)
    text = probe_table(tmp_path / "t", tmp_path, tmp_path / "README.md")
    assert "[0 (no deviation in 9 searched decisions)](tp4_expert/exploit.md) none found" in text


def test_a_malformed_record_is_one_line(tmp_path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "final.json").write_text("{}")
    with pytest.raises(ValueError, match="not a folkcards exploit measurement"):
        read_records(tmp_path, "train")
