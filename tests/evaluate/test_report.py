"""Every interval recomputed independently from the stored seat scores; the report
(report.md, `folkcards report`); the bootstrap interval."""

from __future__ import annotations

import json
import math
import sqlite3
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from folkcards.evaluate.config import load_config
from folkcards.evaluate.running.runner import deterministic, run
from folkcards.evaluate.running.units import play_unit, reproducible_unit
from folkcards.evaluate.scoring import make_runner
from folkcards.evaluate.statistics import intervals as st
from scipy import stats as scipy_stats

from folkcards import cli


def _t_interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95% Student t interval, written out: mean ± t(0.975, n-1) · s / √n."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    mean = x.mean()
    half = scipy_stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n)
    return mean, mean - half, mean + half


def _seat_rows(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT deal, lineup, seating, agent, score, win FROM unit_seats "
            "ORDER BY deal, lineup, seating, seat"
        ).fetchall()
    finally:
        conn.close()


def test_every_interval_recomputed_from_the_stored_seat_scores(tmp_path: Path) -> None:
    """Four agents at three seats: per deal, each agent's scores are averaged over every
    line-up and seating it sat in; the interval is Student t over deals. Head to head: per deal
    the mean of A − B over the units where both sat, then t over deals."""
    agents = ["heuristic", "random", "random", "random"]
    config = load_config(
        None,
        {
            "game": "paston",
            "agents": agents,
            "deals": 5,
            "seed": 9,
            "workers": 1,
            "out": str(tmp_path),
        },
    )
    results = run(config, progress=False, bootstrap=0)
    rows = _seat_rows(config.db_path)
    per_deal: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    tables: dict[tuple[int, int, int], dict[str, float]] = defaultdict(dict)
    for deal, lineup, seating, agent, score, _ in rows:
        per_deal[agent][deal].append(score)
        tables[(deal, lineup, seating)][agent] = score
    for row in results["agents"]:
        means = [np.mean(per_deal[row["name"]][d]) for d in sorted(per_deal[row["name"]])]
        mean, low, high = _t_interval(means)
        assert row["deals"] == len(means) == 5
        assert (row["mean"], row["ci_low"], row["ci_high"]) == pytest.approx(
            (mean, low, high), rel=1e-12, abs=1e-12
        )
    names = [e.name for e in config.agents]
    assert len(results["head_to_head"]) == len(names) * (len(names) - 1) // 2
    for pair in results["head_to_head"]:
        diffs: dict[int, list[float]] = defaultdict(list)
        for (deal, _, _), scores in tables.items():
            if pair["a"] in scores and pair["b"] in scores:
                diffs[deal].append(scores[pair["a"]] - scores[pair["b"]])
        mean, low, high = _t_interval([np.mean(diffs[d]) for d in sorted(diffs)])
        assert (pair["mean_diff"], pair["ci_low"], pair["ci_high"]) == pytest.approx(
            (mean, low, high), rel=1e-12, abs=1e-12
        )


def test_win_rate_and_seat_effect_intervals_recomputed(tmp_path: Path) -> None:
    """Game mode: the Wilson interval of the wins averaged per game seed (n = games); seat
    effects of deal mode: the deal score at each position relative to the dealer."""
    config = load_config(
        None,
        {
            "game": "paston",
            "agents": ["random"] * 3,
            "games": 2,
            "seed": 4,
            "workers": 1,
            "out": str(tmp_path / "games"),
        },
    )
    results = run(config, progress=False, bootstrap=0)
    wins: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for deal, _, _, agent, _, win in _seat_rows(config.db_path):
        wins[agent][deal].append(win)
    z = scipy_stats.norm.ppf(0.975)
    for row in results["agents"]:
        k = sum(np.mean(v) for v in wins[row["name"]].values())
        n = len(wins[row["name"]])
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low = 0.0 if k == 0 else centre - half
        high = 1.0 if k == n else centre + half
        assert (row["win_rate"], row["win_low"], row["win_high"]) == pytest.approx(
            (p, low, high), rel=1e-12, abs=1e-12
        )

    config = load_config(
        None,
        {
            "game": "paston",
            "agents": ["heuristic", "random", "random"],
            "deals": 4,
            "seed": 4,
            "workers": 1,
            "out": str(tmp_path / "deals"),
        },
    )
    results = run(config, progress=False, bootstrap=0)
    conn = sqlite3.connect(config.db_path)
    units = conn.execute("SELECT deal, seats_json, record_json FROM units").fetchall()
    conn.close()
    by: dict[tuple[str, int], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for deal, seats_json, record_json in units:
        dealt = json.loads(record_json)["deals"][0]
        for seat, agent in enumerate(json.loads(seats_json)):
            position = (seat - dealt["dealer"]) % 3
            by[(agent, position)][deal].append(dealt["result"][f"player_{seat}"]["deal_score"])
    for agent, rows in results["seat_effects"].items():
        for position, row in enumerate(rows):
            means = [np.mean(v) for _, v in sorted(by[(agent, position)].items())]
            mean, low, high = _t_interval(means)
            assert row["deals"] == len(means)
            assert (row["mean"], row["ci_low"], row["ci_high"]) == pytest.approx(
                (mean, low, high), rel=1e-12, abs=1e-12
            )


# --- the report --------------------------------------------------------------------------------


def test_tournament_writes_report_and_report_rebuilds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = "tournament --game paston --agents heuristic random random --deals 2 --workers 1"
    assert cli.main([*argv.split(), "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "behaviour" in text and "whist rate as a possible defender" in text
    assert "decision time per agent" in text and "seat effects" in text
    for name in (
        "report.md",
        "behaviour.png",
        "seat_effects.png",
        "behaviour.csv",
        "seat_effects.csv",
        "decision_times.csv",
        "tournament.yaml",
    ):
        assert (out / name).is_file(), name
    report = (out / "report.md").read_text()
    for title in (
        "Method",
        "Agents",
        "Machine",
        "Scores",
        "Head to head",
        "Ratings",
        "Behaviour",
        "Seat and position effects",
        "Decision times",
        "Reproduce",
    ):
        assert f"\n## {title}\n" in report, title
    assert "![behaviour](behaviour.png)" in report
    assert (
        "folkcards tournament --game paston --agents heuristic random random --deals 2 --seed 0"
        in report
    )
    assert "not recorded" not in report  # the times of this run are stored
    assert "| heuristic | `heuristic` | built in, folkcards " in report  # recorded by the run
    assert "read when this report was written" not in report
    first = json.loads((out / "results.json").read_text())
    assert set(first["behaviour"]) == {"heuristic", "random", "random#2"}

    again = tmp_path / "again"
    db = str(out / "tournament.sqlite")
    assert cli.main(["report", "--db", db, "--out", str(again), "--no-plot", "--quiet"]) == 0
    rebuilt = json.loads((again / "results.json").read_text())
    assert deterministic(rebuilt) == deterministic(first)
    assert rebuilt["decision_times"] == first["decision_times"]  # read back, not re-measured
    assert (again / "report.md").read_text().count("\n## ") == report.count("\n## ")


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "give the tournament database"),
        (["--db", "missing.sqlite"], "no tournament database"),
        (["--db", "notes.txt"], "not a tournament database"),
        (["--db", "t/tournament.sqlite", "--out", "notes.txt"], "is a file, not a folder"),
        (["--db", "t/tournament.sqlite", "--bootstrap", "-1"], "--bootstrap must be 0 or more"),
        (["--db", "t/tournament.sqlite", "--bootstrap", "x"], "invalid int value"),
    ],
)
def test_report_bad_input_is_one_line(
    argv: list[str], message: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    from folkcards.evaluate.reports import document

    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("not a database\n")
    if "t/tournament.sqlite" in argv:
        config = load_config(
            None, {"game": "paston", "agents": ["random"] * 3, "deals": 1, "workers": 1, "out": "t"}
        )
        run(config, progress=False, bootstrap=0)
    assert document.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_report_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["report", "--help"])
    assert exc.value.code == 0
    assert "--db FILE" in capsys.readouterr().out


# --- the bootstrap -------------------------------------------------------------------------------


def test_bootstrap_ratio_is_seeded_and_agrees_with_scipy() -> None:
    rng = np.random.default_rng(0)
    den = rng.integers(1, 5, size=300).astype(float)
    num = rng.binomial(den.astype(int), 0.3).astype(float)
    a = st.bootstrap_ratio(num, den, resamples=4000, seed=(1, 2))
    assert a == st.bootstrap_ratio(num, den, resamples=4000, seed=(1, 2))
    assert a != st.bootstrap_ratio(num, den, resamples=4000, seed=(1, 3))
    reference = scipy_stats.bootstrap(
        (num, den),
        lambda x, y, axis=-1: x.sum(axis=axis) / y.sum(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        random_state=np.random.default_rng(5),
    ).confidence_interval
    assert a[0] < num.sum() / den.sum() < a[1]
    assert a == pytest.approx((reference.low, reference.high), abs=0.01)


def test_bootstrap_ratio_edges() -> None:
    assert all(math.isnan(x) for x in st.bootstrap_ratio([1.0], [2.0]))
    assert st.bootstrap_ratio([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], resamples=50) == (0.5, 0.5)
    with pytest.raises(ValueError, match="one length"):
        st.bootstrap_ratio([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="resamples"):
        st.bootstrap_ratio([1.0, 2.0], [1.0, 1.0], resamples=0)


def test_a_unit_reproduces_but_for_its_measured_times(tmp_path: Path) -> None:
    config = load_config(
        None,
        {
            "game": "paston",
            "agents": ["heuristic", "random", "random"],
            "deals": 1,
            "workers": 1,
            "out": str(tmp_path),
        },
    )
    runner = make_runner(config.game, config.mode, config.num_players)
    first, second = (play_unit(config, runner, (0, 0, 3)) for _ in range(2))
    assert reproducible_unit(first) == reproducible_unit(second)
    assert set(first) - set(reproducible_unit(first)) == {"decision_seconds"}
    actions = [
        sum(1 for agent, _ in first["record"]["actions"] if agent == f"player_{s}")
        for s in range(3)
    ]
    assert [len(t) for t in first["decision_seconds"]] == actions


def _reproduce_block(report: str) -> list[str]:
    block = report.split("## Reproduce", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_report_into_another_folder_names_the_database_read_and_reproduces(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """`report --db t50/tournament.sqlite --out t50_rep` names t50's database
    (not t50_rep/tournament.sqlite), and every Reproduce command runs as written."""
    monkeypatch.chdir(tmp_path)
    argv = "tournament --game paston --agents heuristic random random --deals 1 --workers 1"
    assert cli.main([*argv.split(), "--out", "t50", "--no-progress", "--no-plot"]) == 0
    assert cli.main(["report", "--db", "t50/tournament.sqlite", "--out", "t50_rep", "--quiet"]) == 0
    report = (tmp_path / "t50_rep" / "report.md").read_text()
    assert "from `t50/tournament.sqlite`" in report
    assert "t50_rep/tournament.sqlite" not in report
    commands = _reproduce_block(report)
    assert any("--db t50/tournament.sqlite" in c for c in commands), commands
    capsys.readouterr()
    (tmp_path / "t50" / "tournament.sqlite").rename(tmp_path / "kept.sqlite")  # from nothing
    for command in commands:
        words = command.split()
        assert words[0] == "folkcards"
        assert cli.main([*words[1:], *(["--no-plot"] if "--verify" not in words else [])]) == 0, (
            command,
            capsys.readouterr().err,
        )
    assert "t50_rep/tournament.sqlite" not in (tmp_path / "t50_rep" / "report.md").read_text()


LONG_NAMES = [
    "ppo:paston_run_2026_12_01",
    "heuristic_with_a_long_name",
    "random_one_with_a_long_name_too",
    "random_two_with_a_long_name_too",
]


@pytest.fixture(scope="module")
def long_named_results(tmp_path_factory) -> dict:
    config = load_config(
        None,
        {
            "game": "paston",
            "agents": [
                {"name": name, "spec": spec}
                for name, spec in zip(
                    LONG_NAMES, ["random", "heuristic", "random", "random"], strict=True
                )
            ],
            "deals": 1,
            "workers": 1,
            "out": str(tmp_path_factory.mktemp("long")),
        },
    )
    return run(config, progress=False, bootstrap=0)


def test_terminal_tables_wrap_long_names_instead_of_cutting_them(long_named_results) -> None:
    """At 120 columns the tables cut names ("ppo:pas… heurist…"); they wrap them,
    and nothing is cut."""
    import io

    from folkcards.evaluate.reports import export as report
    from rich.console import Console

    out = io.StringIO()
    console = Console(width=120, force_terminal=True, color_system=None, file=out)
    report.print_report(long_named_results, console=console)
    text = out.getvalue()
    assert "…" not in text, text
    assert max(len(line) for line in text.splitlines()) <= 120
    joined = "".join(text.split())  # a wrapped name reads whole once the breaks are gone
    for name in LONG_NAMES:
        assert name in joined or name.replace("_", "") in joined, name


def test_tables_in_a_log_file_are_never_cut(long_named_results, capsys) -> None:
    """Off a terminal (a log file) the tables take their full width: every name on one line."""
    from folkcards.evaluate.reports import export as report

    report.print_report(long_named_results)
    text = capsys.readouterr().out
    assert "…" not in text
    behaviour = next(line for line in text.splitlines() if line.strip().startswith("statistic"))
    assert all(name in behaviour for name in LONG_NAMES), behaviour


def test_a_tournament_resumed_under_another_version_names_each_version() -> None:
    """The agents' table names every version the runs recorded, oldest first, and the
    installed one as now; one version throughout is named once."""
    from folkcards.evaluate.reports.document import _agents

    from folkcards import __version__

    config = load_config(
        None, {"game": "paston", "agents": ["heuristic", "random", "random"], "deals": 1}
    )
    old, new = "built in, folkcards 0.0.1", f"built in, folkcards {__version__}"
    sessions = [
        {"machine": {"agents": {"heuristic": old, "random": new}}},
        {"machine": {"agents": {"heuristic": new, "random": new}}},
        {"machine": {"agents": {"heuristic": new, "random": new}}},
    ]
    rows = "\n".join(_agents(config, __version__, sessions))
    assert f"| heuristic | `heuristic` | {old}; {new} when played; {new} now |" in rows
    assert f"| random | `random` | {new} |" in rows
    assert "0.0.1 now" not in rows
