"""The agents' page: ``folkcards agents-page`` on tiny line-ups, the
stored results regenerate the page, exploit runs are read from their directories, bad input is
one line, and the committed ``docs/agents.md`` is what the committed results give."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from folkcards.envs import registry
from folkcards.evaluate.pages import agents as agents_page
from folkcards.evaluate.pages.agents import (
    NOT_MEASURED,
    load_results,
    render,
    shipped_agents,
)
from folkcards.evaluate.pages.exploit_runs import exploits_of, read_exploits, same_agent

from folkcards.cli import main

REPO = Path(__file__).resolve().parents[2]


def _exploit_run(
    folder: Path, game: str, agent: str, players: int, gain: float, steps: int = 40960
) -> None:
    """A finished ``folkcards exploit`` directory as the command writes it (the two files read)."""
    folder.mkdir(parents=True)
    measurement = {"game": game, "agent": agent, "num_players": players, "deals": 300,
                   "gain": gain, "ci95": 0.125, "unit": "sticks per round"}  # fmt: skip
    final = {"measurement": measurement, "steps": steps, "finished": "2026-11-30T10:00:00+00:00"}
    (folder / "final.json").write_text(json.dumps(final))
    command = f"folkcards exploit --game {game} --agent {agent} --steps {steps} --out {folder}"
    (folder / "exploit_state.json").write_text(json.dumps({"command": command}))


def _args(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "agents-page",
        "--out", str(tmp_path / "docs" / "agents.md"),
        "--results", str(tmp_path / "docs" / "agents" / "results.json"),
        "--exploit-dir", str(tmp_path / "docs" / "exploit"),
        "--runs", str(tmp_path / "runs"),
        *extra,
    ]  # fmt: skip


def _row(page: str, spec: str) -> list[str]:
    line = next(x for x in page.splitlines() if x.startswith(f"| `{spec}` | ") and "s |" in x)
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_a_tiny_round_robin_writes_the_page_and_the_results_regenerate_it(tmp_path):
    _exploit_run(tmp_path / "docs" / "exploit" / "tp_heuristic", "tri_palki", "heuristic", 2, 0.5)
    argv = _args(tmp_path, "--games", "tri_palki", "--agents", "random", "heuristic")
    assert main([*argv, "--deals", "3"]) == 0
    page_path = tmp_path / "docs" / "agents.md"
    page = page_path.read_text()
    data = json.loads((tmp_path / "docs" / "agents" / "results.json").read_text())
    entry = data["games"]["tri_palki"]
    assert entry["names"] == ["random", "heuristic"] and entry["deals"] == 3
    assert entry["episodes"] == 3 * 2  # one line-up of 2 players, 2 seatings per round
    # each agent's row: decision time, score, exploitability (a run for the heuristic only)
    random_row, heuristic_row = _row(page, "random"), _row(page, "heuristic")
    for row, name in ((random_row, "random"), (heuristic_row, "heuristic")):
        times = entry["decision_times"][name]
        assert times["decisions"] > 0 and row[1].endswith("s") and row[2].endswith("s")
        score = next(r for r in entry["agents"] if r["name"] == name)
        assert row[3].startswith(f"{score['mean']:+.3f}".replace("+0.000", "0.000"))
    assert heuristic_row[4] == "2 players: +0.500 ± 0.125"  # Tri Palki: per table size, sticks
    assert random_row[4] == NOT_MEASURED
    assert "folkcards exploit --game tri_palki --agent heuristic" in page
    # the paired difference, both ways round
    (pair,) = entry["head_to_head"]
    sign = 1 if (pair["a"], pair["b"]) == ("random", "heuristic") else -1
    cross = next(x for x in page.splitlines() if x.startswith("| `random` | — |"))
    assert f"{sign * pair['mean_diff']:+.3f}" in cross
    # the commands and the date of the numbers
    assert "folkcards tournament --game tri_palki --agents random heuristic --deals 3" in page
    assert entry["date"] in page and "folkcards agents-page --deals 3" in page
    assert f"Machine: {entry['machine']}" in page and "CPUs" in entry["machine"]
    # regenerating from the stored results gives the same page, and picks up a new exploit run
    assert main([*_args(tmp_path), "--from-results"]) == 0
    assert page_path.read_text() == page
    _exploit_run(tmp_path / "docs" / "exploit" / "tp_random", "tri_palki", "random", 2, 0.75)
    assert main([*_args(tmp_path), "--from-results"]) == 0
    assert _row(page_path.read_text(), "random")[4] == "2 players: +0.750 ± 0.125"


def test_a_paston_page_has_open_hand_accuracy(tmp_path):
    argv = _args(tmp_path, "--games", "paston", "--agents", "random", "heuristic", "ppo")
    assert main([*argv, "--deals", "2"]) == 0
    page = (tmp_path / "docs" / "agents.md").read_text()
    data = json.loads((tmp_path / "docs" / "agents" / "results.json").read_text())
    assert "tricks lost as declarer" in page
    open_hand = data["games"]["paston"]["open_hand"]
    assert set(open_hand) == {"random", "heuristic", "ppo"}
    for name, rows in open_hand.items():
        cells = _row(page, name)
        declarer = rows["declarer"]
        expected = "—" if declarer["tricks_lost"] is None else f"{declarer['tricks_lost']:.2f}"
        assert cells[5].startswith(expected)


def test_the_line_up_is_the_registrys(monkeypatch):
    for spec in agents_page.page_games():
        assert spec.base_game is None
        assert shipped_agents(spec.name) == list(spec.agents)
    assert "paston_bidding" not in [s.name for s in agents_page.page_games()]  # a variant
    tri = replace(registry.GAMES["tri_palki"], agents=("random", "nosuchkind", "heuristic"))
    monkeypatch.setitem(registry.GAMES, "tri_palki", tri)
    assert shipped_agents("tri_palki") == ["random", "heuristic"]


def test_an_exploit_run_belongs_to_its_agent_and_game(tmp_path):
    assert same_agent("ppo", "ppo:paston", "paston")
    assert same_agent("rllib:paston", "rllib:paston", "paston")
    assert not same_agent("ppo", "ppo:runs/x.zip", "paston")
    assert not same_agent("ppo:tri_palki", "ppo", "paston")
    _exploit_run(tmp_path / "a", "paston", "ppo:paston", 3, 1.0)
    _exploit_run(tmp_path / "b", "tri_palki", "ppo:tri_palki", 4, 2.0)
    (tmp_path / "running").mkdir()  # no final.json yet: left out
    runs = read_exploits(tmp_path)
    assert [(e.game, e.num_players) for e in exploits_of(runs, "paston", "ppo")] == [("paston", 3)]
    assert exploits_of(runs, "tri_palki", "heuristic") == []


def test_of_two_runs_at_one_table_size_the_larger_budget_is_quoted(tmp_path):
    _exploit_run(tmp_path / "long", "paston", "ppo:paston", 3, 1.0, steps=1_000_000)
    _exploit_run(tmp_path / "short", "paston", "ppo:paston", 3, 0.0, steps=200_000)
    _exploit_run(tmp_path / "four", "tri_palki", "ppo:tri_palki", 4, 2.0, steps=100)
    _exploit_run(tmp_path / "three", "tri_palki", "ppo:tri_palki", 3, 3.0, steps=100)
    runs = read_exploits(tmp_path)
    assert [e.folder.name for e in exploits_of(runs, "paston", "ppo")] == ["long"]
    assert [e.num_players for e in exploits_of(runs, "tri_palki", "ppo")] == [3, 4]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--deals", "0"], "--deals must be at least 1"),
        (["--deals", "many"], "--deals takes N or GAME=N"),
        (["--games", "chess"], "unknown game 'chess'"),
        (["--games", "tri_palki", "--agents", "alphazero"], "ships no agent 'alphazero'"),
        (["--from-results"], "no stored results"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--games", "tri_palki", "--players", "tri_palki"], "--players takes GAME=N"),
        (["--games", "tri_palki", "--players", "tri_palki=3,12"], "2 to 11 players, got 12"),
        (["--games", "tri_palki", "--players", "paston=3"], "not among the games played"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, extra, message):
    assert main([*_args(tmp_path), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "docs" / "agents.md").exists()
    assert not (tmp_path / "runs").exists()


def test_one_round_robin_per_table_size(tmp_path):
    """``--players`` plays a round robin at each size: the default table keeps the game's key,
    another is ``<game>_<n>p``; each has its own section and database, and the page rewrites
    from the stored results."""
    argv = _args(tmp_path, "--games", "tri_palki", "--agents", "random", "heuristic", "pimc")
    assert main([*argv, "--players", "tri_palki=2,3", "--deals", "1"]) == 0
    data = json.loads((tmp_path / "docs" / "agents" / "results.json").read_text())
    sizes = {key: entry["num_players"] for key, entry in data["games"].items()}
    assert sizes == {"tri_palki": 3, "tri_palki_2p": 2}  # 3 agents: the default table is 3
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["tri_palki", "tri_palki_2p"]
    page_path = tmp_path / "docs" / "agents.md"
    page = page_path.read_text()
    assert page.index("## Tri Palki, 2 players") < page.index("## Tri Palki, 3 players")
    assert "--players tri_palki=2,3" in page
    assert main([*_args(tmp_path), "--from-results"]) == 0
    assert page_path.read_text() == page


def test_a_malformed_exploit_run_is_one_line(tmp_path, capsys):
    bad = tmp_path / "docs" / "exploit" / "broken"
    bad.mkdir(parents=True)
    (bad / "final.json").write_text("{")
    assert main([*_args(tmp_path), "--games", "tri_palki", "--deals", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "not a folkcards exploit measurement" in err and len(err.splitlines()) == 1


def test_the_committed_page_is_what_the_committed_results_give():
    data = load_results(REPO / "docs" / "agents" / "results.json")
    page = REPO / "docs" / "agents.md"
    expected = render(data, read_exploits(REPO / "docs" / "exploit"), page)
    assert page.read_text() == expected, (
        "docs/agents.md is not current: run `folkcards agents-page --from-results`"
    )
    for spec in agents_page.page_games():  # every shipped agent of every game is on it
        entry = data["games"][spec.name]
        assert entry["specs"] == shipped_agents(spec.name)
