"""Tournaments: duplicate seating, determinism across workers, kill -9 and resume, replay, errors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from folkcards.agents import make_agent
from folkcards.evaluate import tournament as tour
from folkcards.evaluate.config import ConfigError, load_config
from folkcards.evaluate.running.runner import deterministic, run
from folkcards.evaluate.running.units import agent_seed, deal_seed, seat_entrants
from folkcards.evaluate.running.verify import verify_records
from folkcards.evaluate.storage.database import Store

REPO = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, name: str = "t", **kw):
    data = {
        "game": "paston",
        "agents": ["heuristic", "random", "random"],
        "deals": 4,
        "seed": 7,
        "workers": 1,
    }
    data.update(kw)
    data["out"] = str(tmp_path / name)
    return load_config(None, data)


def _rows(db: Path) -> tuple[list, list]:
    conn = sqlite3.connect(db)
    try:
        units = conn.execute(
            "SELECT deal, lineup, seating, deal_seed, seats_json, result_json, record_json "
            "FROM units ORDER BY deal, lineup, seating"
        ).fetchall()
        seats = conn.execute(
            "SELECT * FROM unit_seats ORDER BY deal, lineup, seating, seat"
        ).fetchall()
        return units, seats
    finally:
        conn.close()


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


# --- seating and seeds ---------------------------------------------------------------------------


def test_three_agents_play_all_six_seatings(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert config.lineups() == [(0, 1, 2)]
    assert len(config.seatings()) == 6
    assert config.total_units == 4 * 6
    names = [e.name for e in config.agents]
    assert names == ["heuristic", "random", "random#2"]
    for seat in range(3):  # every agent sits in every seat equally often
        counts = Counter(seat_entrants(config, 0, s)[seat] for s in range(6))
        assert counts == {0: 2, 1: 2, 2: 2}


def test_more_agents_than_seats_form_every_lineup(tmp_path: Path) -> None:
    config = _config(tmp_path, agents=["heuristic", "random", "random", "random"], deals=2)
    assert len(config.lineups()) == 4  # C(4, 3)
    assert config.total_units == 2 * 4 * 6
    results = run(config, progress=False)
    units = list(Store(config.db_path).units(with_records=True))
    assert len(units) == config.total_units
    # every line-up saw the same deals: one seed and one set of hands per deal index
    for deal in range(2):
        of_deal = [u for u in units if u["deal"] == deal]
        assert {u["deal_seed"] for u in of_deal} == {deal_seed(7, deal)}
        hands = {json.dumps(u["record"]["deals"][0]["hands"]) for u in of_deal}
        dealers = {u["record"]["deals"][0]["dealer"] for u in of_deal}
        assert len(hands) == 1 and len(dealers) == 1
    assert all(a["units"] == 2 * 3 * 6 for a in results["agents"])  # 3 line-ups each


def test_cyclic_rotations_beyond_four_seats(tmp_path: Path) -> None:
    config = _config(tmp_path, game="tri_palki", agents=["random"] * 5, deals=1)
    seatings = config.seatings()
    assert config.seating_rule == "cyclic rotations" and len(seatings) == 5
    for seat in range(5):
        assert sorted(s[seat] for s in seatings) == list(range(5))


@pytest.mark.parametrize(
    ("game", "agents"), [("tri_palki", ["a", "b", "c", "d"]), ("paston", ["a", "b", "c"])]
)
def test_rotations_seat_every_entrant_once_per_seat_in_clockwise_order(
    tmp_path: Path, game: str, agents: list[str]
) -> None:
    specs = ["heuristic", "random", "heuristic", "random"][: len(agents)]
    config = _config(tmp_path, game=game, agents=specs, deals=1, seating="rotations")
    n = len(agents)
    assert config.seating_rule == "cyclic rotations" and len(config.seatings()) == n
    assert config.total_units == n
    seen = [seat_entrants(config, 0, s) for s in range(n)]
    for seat in range(n):  # every entrant sits in every seat exactly once
        assert sorted(entrants[seat] for entrants in seen) == list(range(n))
    for entrants in seen:  # the clockwise order of the entrants never changes
        start = entrants.index(0)
        assert [entrants[(start + k) % n] for k in range(n)] == list(range(n))


@pytest.mark.parametrize("n", [3, 4, 6])
def test_mirrored_seats_every_entrant_twice_per_seat_once_after_each_neighbour(
    tmp_path: Path, n: int
) -> None:
    """``seating: mirrored`` (docs/guide/tournaments.md): the rotations in both clockwise
    orders, 2n seatings; every entrant sits in every seat twice and acts right after each of
    its two neighbours in the listed order equally often (n times each)."""
    config = _config(tmp_path, game="tri_palki", agents=["random"] * n, deals=1, seating="mirrored")
    seatings = config.seatings()
    assert config.seating_rule == "cyclic rotations in both directions"
    assert len(seatings) == len(set(seatings)) == 2 * n
    for seat in range(n):
        assert sorted(s[seat] for s in seatings) == sorted(list(range(n)) * 2)
    for entrant in range(n):
        before = Counter(s[(s.index(entrant) - 1) % n] for s in seatings)
        assert before == {(entrant - 1) % n: n, (entrant + 1) % n: n}


def test_mirrored_is_every_permutation_at_three_seats(tmp_path: Path) -> None:
    from itertools import permutations

    config = _config(tmp_path, game="tri_palki", agents=["random"] * 3, deals=1, seating="mirrored")
    assert sorted(config.seatings()) == sorted(permutations(range(3)))


@pytest.mark.parametrize(
    ("n", "seating", "written"),
    [(4, "rotations", "rotations"), (4, "mirrored", "mirrored"), (4, "auto", None),
     (6, "rotations", None), (6, "permutations", "permutations")],
)  # fmt: skip
def test_the_reports_config_and_command_give_the_same_seatings(
    tmp_path: Path, n: int, seating: str, written: str | None
) -> None:
    """The tournament.yaml a report writes, and its reproduce command, name the seating unless
    ``auto`` gives it, so rerunning them plays the same seatings."""
    from folkcards.evaluate.reports.document import config_yaml, reproduce_commands

    config = _config(tmp_path, game="tri_palki", agents=["random"] * n, deals=1, seating=seating)
    text = config_yaml(config)
    assert (f"seating: {written}" in text) == (written is not None)
    assert ("seating" in text) == (written is not None)
    import yaml

    again = load_config(None, {**yaml.safe_load(text), "out": str(tmp_path / "again")})
    assert again.seatings() == config.seatings()
    command = reproduce_commands(config, "runs/t")[0]
    assert (f"--seating {written}" in command) == (written is not None)


def test_permutations_can_be_asked_beyond_four_seats(tmp_path: Path) -> None:
    config = _config(
        tmp_path, game="tri_palki", agents=["random"] * 5, deals=1, seating="permutations"
    )
    assert config.seating_rule == "all permutations" and len(config.seatings()) == 120


def test_bad_seating_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match="'seating' must be one of auto, permutations, rotations, mirrored"
    ):
        _config(tmp_path, seating="shuffled")


def test_rotations_tournament_resumes_from_its_database(tmp_path: Path) -> None:
    config = _config(
        tmp_path, game="tri_palki", agents=["heuristic", "random"] * 2, deals=2, seating="rotations"
    )
    first = run(config, progress=False)
    assert first["units_stored"] == 2 * 4
    units, seats = _rows(config.db_path)
    again = run(config, progress=False)  # resume: nothing replayed, same stored rows
    assert _rows(config.db_path) == (units, seats)
    assert again["units_stored"] == first["units_stored"]
    # the stored config is read back with its seating rule: the database alone verifies
    assert tour.main(["--db", str(config.db_path), "--verify", "--no-progress"]) == 0
    # the same database under the default rule (24 permutations) is another tournament
    with pytest.raises(ConfigError):
        run(
            _config(tmp_path, game="tri_palki", agents=["heuristic", "random"] * 2, deals=2),
            progress=False,
        )


def test_seeds_are_stable_and_distinct() -> None:
    seeds = [deal_seed(1, d) for d in range(100)]
    assert len(set(seeds)) == 100 and all(0 <= s < 2**63 for s in seeds)
    assert deal_seed(1, 0) == deal_seed(1, 0) != deal_seed(2, 0)
    assert agent_seed(1, 0, 0, 0, 0) != agent_seed(1, 0, 0, 1, 0)


# --- determinism, storage, replay ---------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"deals": 6},
        {"game": "tri_palki", "agents": ["random", "random", "random"], "deals": 5},
    ],
    ids=["paston", "tri_palki"],
)
def test_results_identical_for_1_and_2_workers(tmp_path: Path, options: dict) -> None:
    one = _config(tmp_path, "one", **options)
    two = _config(tmp_path, "two", **{**options, "workers": 2})
    assert one.identity() == two.identity()  # workers are not part of the tournament
    r1 = run(one, progress=False)
    r2 = run(two, progress=False)
    assert deterministic(r1) == deterministic(r2)  # decision times are measured
    assert set(r1) - set(deterministic(r1)) == {"decision_times"}
    assert _rows(one.db_path) == _rows(two.db_path)


def test_rerun_resumes_without_replaying(tmp_path: Path) -> None:
    config = _config(tmp_path)
    played: list[int] = []
    partial = run(config, progress=False, max_units=7, on_played=played.append)
    # the 7th unit opened deal 1, which is incomplete and left out of the statistics
    assert partial["units_stored"] == 6 and partial["deals_complete"] == 1
    full = run(config, progress=False, on_played=played.append)
    again = run(config, progress=False, on_played=played.append)
    assert played == [7, config.total_units - 7, 0]
    assert full == again  # nothing new played: even the stored decision times are the same
    assert full["units_stored"] == config.total_units
    reference = run(_config(tmp_path, "ref"), progress=False)
    assert deterministic(full) == deterministic(reference)


def test_config_mismatch_is_refused(tmp_path: Path) -> None:
    run(_config(tmp_path, deals=1), progress=False)
    with pytest.raises(ConfigError, match=r"different tournament .*seed 7 \(stored\) vs 8"):
        run(_config(tmp_path, deals=1, seed=8), progress=False)
    with pytest.raises(ConfigError, match="deals 1 \\(stored\\) vs 2"):
        run(_config(tmp_path, deals=2), progress=False)


def test_stored_records_replay_exactly(tmp_path: Path) -> None:
    config = _config(tmp_path, deals=3)
    run(config, progress=False)
    checked, problems = verify_records(config)
    assert checked == config.total_units and problems == []
    # the check has teeth: a tampered record is caught
    conn = sqlite3.connect(config.db_path)
    record_json = conn.execute(
        "SELECT record_json FROM units WHERE deal = 0 AND seating = 0"
    ).fetchone()[0]
    record = json.loads(record_json)
    record["deals"][0]["result"]["player_0"]["deal_score"] += 1
    conn.execute(
        "UPDATE units SET record_json = ? WHERE deal = 0 AND seating = 0", (json.dumps(record),)
    )
    conn.commit()
    conn.close()
    checked, problems = verify_records(config)
    assert len(problems) == 1 and "replay differs" in problems[0]


def test_tri_palki_records_replay(tmp_path: Path) -> None:
    config = _config(tmp_path, game="tri_palki", agents=["random", "random"], deals=4)
    results = run(config, progress=False)
    assert results["metric"] == "sticks per round" and results["higher_is_better"] is False
    checked, problems = verify_records(config)
    assert checked == 4 * 2 and problems == []


def test_kill_9_midway_then_resume_matches_uninterrupted(tmp_path: Path) -> None:
    """Really SIGKILL a running tournament, then rerun it: nothing lost, nothing counted twice."""
    args = "--game paston --agents random random random --deals 40 --seed 3".split()
    killed_out = tmp_path / "killed"
    # The child re-registers `random` as the same agent slowed down (same seeds, same moves), so
    # that the kill lands midway; the stored results must not notice.
    script = (
        "import sys, time\n"
        "from folkcards.agents.base import register_agent, agent_kinds\n"
        "from folkcards.agents.random_agent import RandomAgent\n"
        "agent_kinds()\n"
        "class Slow(RandomAgent):\n"
        "    def act(self, obs):\n"
        "        time.sleep(0.002)\n"
        "        return super().act(obs)\n"
        "register_agent('random', lambda game, seat, seed, arg, **_: Slow(game, seat, seed))\n"
        "from folkcards.evaluate.tournament import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    cmd = [sys.executable, "-c", script, *args, "--workers", "1", "--out", str(killed_out)]
    cmd += ["--no-plot", "--no-progress"]
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    db = killed_out / "tournament.sqlite"
    total = 40 * 6
    try:
        deadline = time.monotonic() + 60
        while _stored(db) < 20:
            assert proc.poll() is None, (
                f"tournament ended early: {proc.stderr.read().decode() if proc.stderr else ''}"
            )
            assert time.monotonic() < deadline, "no units were committed in time"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    at_kill = _stored(db)
    assert 20 <= at_kill < total, at_kill

    same = {"game": "paston", "agents": ["random"] * 3, "deals": 40, "seed": 3}
    resumed = load_config(None, {**same, "workers": 2, "out": str(killed_out)})
    played: list[int] = []
    results = run(resumed, progress=False, on_played=played.append)
    assert played == [total - at_kill]
    reference = load_config(None, {**same, "workers": 1, "out": str(tmp_path / "ref")})
    assert deterministic(results) == deterministic(run(reference, progress=False))
    units, seats = _rows(db)
    assert len(units) == total and len(seats) == total * 3
    assert (units, seats) == _rows(reference.db_path)
    assert verify_records(resumed) == (total, [])


# --- game mode and outputs -----------------------------------------------------------------------


def test_paston_game_mode_win_rates(tmp_path: Path) -> None:
    config = _config(tmp_path, agents=["random", "random", "random"], games=2, deals=None)
    assert config.mode == "game" and config.unit_plural == "games"
    results = run(config, progress=False)
    wins = 0
    for agent in results["agents"]:
        assert 0.0 <= agent["win_low"] <= agent["win_rate"] <= agent["win_high"] <= 1.0
        wins += agent["wins"]
    assert wins >= 2 * 6  # every game has at least one winner (ties share), unless truncated
    assert "win_rate" in results["method"]


def test_main_writes_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    argv = "--game paston --agents heuristic random random --deals 3 --workers 1 --verify".split()
    code = tour.main([*argv, "--out", str(out), "--no-progress"])
    assert code == 0
    text = capsys.readouterr().out
    assert "heuristic" in text and "95% CI" in text and "head to head" in text
    assert "verified: all 18 stored records replay exactly" in text
    names = "tournament.sqlite results.json agents.csv head_to_head.csv episodes.csv scores.png"
    names = names.split()
    for name in names:
        assert (out / name).is_file(), name
    assert (out / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads((out / "results.json").read_text())
    assert results["config"]["game"] == "paston" and len(results["agents"]) == 3
    header = (out / "agents.csv").read_text().splitlines()[0]
    assert header.startswith("rank,name,spec,deals,units,mean,ci_low,ci_high")
    episodes = (out / "episodes.csv").read_text().splitlines()
    assert episodes[0] == "deal,lineup,seating,seat,agent,spec,score,win,agent_seed"
    assert len(episodes) == 1 + 3 * 6 * 3


def test_repo_configs_are_valid() -> None:
    paston = load_config(REPO / "configs" / "tournament" / "paston.yaml")
    assert paston.game == "paston" and paston.count >= 100
    tri = load_config(REPO / "configs" / "tournament" / "tri_palki.yaml")
    assert tri.game == "tri_palki" and tri.num_players == 4


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (REPO / "configs" / "tournament").glob("*.yaml"))
)
def test_every_repo_config_builds_its_agents(name: str) -> None:
    """A config the docs tell users to run loads, and every entrant's spec makes an agent."""
    config = load_config(REPO / "configs" / "tournament" / name)
    assert len(config.agents) >= 2 and config.count > 0
    for entrant in config.agents:
        agent = make_agent(entrant.spec, config.game, seat="player_0", seed=0)
        assert callable(agent.act)


# --- malformed configs ---------------------------------------------------------------------------

PASTON = "game: paston\nagents: [random, random, random]\n"
BAD_CONFIGS = {
    "unknown key": (PASTON + "dels: 3\n", "unknown key 'dels'"),
    "unknown agent": (
        "game: paston\nagents: [heuristik, random, random]\ndeals: 3\n",
        "unknown agent 'heuristik'",
    ),
    "wrong game": (
        "game: poker\nagents: [random, random, random]\ndeals: 3\n",
        "unknown game 'poker'",
    ),
    "negative deals": (PASTON + "deals: -1\n", "'deals' must be at least 1"),
    "text deals": (PASTON + "deals: many\n", "'deals' must be an integer"),
    "fractional deals": (PASTON + "deals: 2.5\n", "'deals' must be an integer"),
    "no count": (PASTON + "", "give the number of deals"),
    "two counts": (PASTON + "deals: 2\ngames: 2\n", "only one of"),
    "too few agents": (
        "game: paston\nagents: [random, random]\ndeals: 3\n",
        "only 2 agents are given",
    ),
    "num_players for paston": (PASTON + "deals: 3\nnum_players: 4\n", "for tri_palki"),
    "too many players": (
        "game: tri_palki\nagents: [random, random]\nrounds: 3\nnum_players: 12\n",
        "at most 11",
    ),
    "bad workers": (PASTON + "deals: 3\nworkers: 0\n", "'workers' must be at least 1"),
    "bad seed": (PASTON + "deals: 3\nseed: -4\n", "'seed' must be at least 0"),
    "agents not a list": ("game: paston\nagents: 3\ndeals: 3\n", "'agents' must be"),
    "not a mapping": ("- paston\n- random\n", "must be a mapping"),
    "broken yaml": ("game: paston\nagents: [random, random\ndeals: 3\n", "not valid YAML"),
    "missing ppo model": (
        "game: paston\nagents: [ppo:/no/such/model.zip, random, random]\ndeals: 3\n",
        "cannot play paston",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_malformed_config_gives_one_clear_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = BAD_CONFIGS[name]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code = tour.main(["--config", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("folkcards tournament: error: ") and expected in lines[0], lines[0]
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "tournament.sqlite").exists()


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tour.main(["--config", str(tmp_path / "nope.yaml")]) == 2
    assert "not found" in capsys.readouterr().err


def test_command_line_overrides_config(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("game: paston\nagents: [heuristic, random, random]\ndeals: 300\nseed: 1\n")
    config = load_config(path, {"games": 2, "seed": 5, "out": str(tmp_path)})
    assert (config.mode, config.count, config.seed) == ("game", 2, 5)
