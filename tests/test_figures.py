"""The result figures the documentation quotes are the ones their runs give: marked figures and
generated tables are checked against the committed results (default suite) and against fresh runs
of their commands (slow), in README.md, CHANGELOG.md and every page of the site."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("figures", ROOT / "scripts" / "figures.py")
assert _spec and _spec.loader
figures = importlib.util.module_from_spec(_spec)
sys.modules["figures"] = figures
_spec.loader.exec_module(figures)


def test_every_marked_figure_matches_its_stored_results(capsys):
    assert figures.main(["--check"]) == 0, capsys.readouterr().err


def test_the_docs_mark_figures_of_every_tournament_source():
    text = "".join(p.read_text() for p in figures.pages())
    for name, source in figures.SOURCES.items():
        if source.kind == "tournament":
            assert f"<!--fig:{name}/" in text, f"no page quotes the figures of {name}"


def test_the_readme_and_changelog_are_checked():
    checked = {p.relative_to(ROOT).as_posix() for p in figures.pages()}
    assert {"README.md", "CHANGELOG.md", "docs/agents.md"} <= checked


def test_every_stored_run_is_a_source():
    for final in (ROOT / "docs" / "exploit").glob("*/final.json"):
        assert figures.SOURCES[f"exploit_{final.parent.name}"].kind == "exploit"
    searched = list((ROOT / "docs" / "exploit" / "search").glob("*/final.json"))
    assert searched
    for final in searched:
        source = figures.SOURCES[f"exploit_search_{final.parent.name}"]
        assert source.stored == final.relative_to(ROOT).as_posix()
    for game in json.loads((ROOT / figures.AGENTS_RESULTS).read_text())["games"]:
        assert figures.SOURCES[f"agents_{game}"].game == game


def test_the_agents_page_is_what_its_results_give():
    assert figures.agents_page_problems() == []


def _entry() -> dict:
    return {
        "higher_is_better": True,
        "specs": ["heuristic", "rllib:paston"],
        "names": ["heuristic", "rllib"],
        "agents": [
            {"name": "heuristic", "mean": 1.0, "ci_low": 0.5, "ci_high": 1.5},
            {"name": "rllib", "mean": 3.0, "ci_low": 2.0, "ci_high": 4.0},
        ],
        "head_to_head": [
            {"a": "rllib", "b": "heuristic", "mean_diff": 2.0, "ci_low": 1.25, "ci_high": 2.75}
        ],
        "decision_times": {
            "heuristic": {"median": 2.5e-5, "p95": 0.5e-3},
            "rllib": {"median": 0.0146, "p95": 1.5},
        },
    }


@pytest.mark.parametrize(
    ("row", "part", "shown"),
    [
        ("rllib:paston", "both", "+3.00 [+2.00, +4.00]"),  # by spec or by name
        ("rllib", "mean", "+3.00"),
        ("rllib:paston-heuristic", "both", "+2.00 [+1.25, +2.75]"),
        ("heuristic-rllib:paston", "both", "-2.00 [-2.75, -1.25]"),  # row minus column
        ("heuristic-rllib", "ci", "[-2.75, -1.25]"),
        ("rllib:paston", "median", "14.60 ms"),
        ("heuristic", "median", "25.0 µs"),
        ("rllib", "p95", "1.50 s"),
    ],
)
def test_an_agents_page_figure(row, part, shown):
    assert figures.agents_figure(_entry(), row, part) == shown


@pytest.mark.parametrize("row", ["nobody", "nobody:median", "heuristic-nobody"])
def test_an_unknown_agents_page_row_is_a_key_error(row):
    name, _, part = row.partition(":")
    with pytest.raises(KeyError, match="no agent"):
        figures.agents_figure(_entry(), name, part or "both")


def test_an_exploit_figure():
    final = {"measurement": {"gain": -0.14, "ci95": 0.13}}
    assert figures.exploit_figure(final, "gain", "both") == "-0.14 ± 0.13"
    assert figures.exploit_figure(final, "gain", "mean") == "-0.14"
    assert figures.exploit_figure(final, "gain", "ci") == "[-0.27, -0.01]"
    with pytest.raises(KeyError):
        figures.exploit_figure(final, "gain", "median")
    sticks = {"measurement": {"game": "tri_palki", "gain": -0.0314, "ci95": 0.0213}}
    assert figures.exploit_figure(sticks, "gain", "both") == "-0.031 ± 0.021"


def test_stored_figures_agree_with_the_agents_page():
    page = (ROOT / "docs" / "agents.md").read_text()
    cache: dict = {}
    covered = json.loads((ROOT / "docs" / "agents" / "results.json").read_text())["games"]
    covered_games = {entry["game"] for entry in covered.values()}
    from folkcards.evaluate.pages.exploit_runs import exploits_of, read_exploits

    runs = read_exploits(ROOT / "docs" / "exploit")
    quoted = {x.folder.name for e in runs for x in exploits_of(runs, e.game, e.agent)}
    for name, source in figures.SOURCES.items():
        if source.kind == "exploit":
            if name.startswith("exploit_search_"):
                continue  # the search probe's records: docs/exploit/README.md's tables
            if name.removeprefix("exploit_") not in quoted and "/planted/" not in str(
                source.stored
            ):
                continue  # superseded on the page by a run of a larger budget
            final = figures.load(name, False, cache)
            if final["measurement"]["game"] not in covered_games:
                continue  # a game without a round robin on the page (a tiny variant)
            if "/planted/" in str(source.stored):
                continue  # a hole planted by the tests, not a shipped agent
            gain = figures.source_figure(name, figures.load(name, False, cache), "gain", "both")
            assert gain in page, f"{name}: {gain} not on the agents' page"
        if source.kind == "agents":
            results = figures.load(name, False, cache)
            entry = results["games"][source.game]
            fixed = entry["game"] == "paston"  # the page's heading says a table size otherwise
            title = entry["title"] + ("" if fixed else f", {entry['num_players']} players")
            section = next(s for s in page.split("\n## ") if s.startswith(title + "\n"))
            for spec in entry["specs"]:
                median = figures.source_figure(name, results, spec, "median")
                lines = section.splitlines()
                row = next(line for line in lines if line.startswith(f"| `{spec}` |"))
                assert f"| {median} |" in row


def test_a_stale_table_is_found_and_rewritten():
    cache = {"table:players": "| a fresh table |\n"}
    text = "x\n<!--table:players-->\n| an old table |\n<!--/table-->\ny"
    new, problems = figures.process_tables(text, cache)
    assert problems == ["table 'players' is not what its sources give (--write rewrites it)"]
    assert new == "x\n<!--table:players-->\n| a fresh table |\n<!--/table-->\ny"
    assert figures.process_tables(new, cache)[1] == []
    assert "unknown table" in figures.process_tables("<!--table:no-->\n<!--/table-->", {})[1][0]
    assert "not of the form" in figures.process_tables("<!--table:players-->", {})[1][0]


def test_the_players_table_quotes_the_agents_page():
    table = figures.players_table({})
    results = json.loads((ROOT / figures.AGENTS_RESULTS).read_text())
    for entry in results["games"].values():
        for spec in entry["specs"]:
            median = figures.agents_figure(entry, spec, "median")
            row = next(line for line in table.splitlines() if line.startswith(f"| `{spec}` |"))
            assert f"| {median} |" in row


def test_a_stale_figure_is_found_and_rewritten():
    text = "x <!--fig:paston_rllib/rllib:paston-heuristic-->+4.99 [+3.84, +5.29]<!--/fig--> y"
    new, problems = figures.process(text, run=False, cache={})
    assert problems == [
        "paston_rllib/rllib:paston-heuristic: the page says '+4.99 [+3.84, +5.29]', "
        "the results give '+4.57 [+3.84, +5.29]'"
    ]
    assert "+4.57 [+3.84, +5.29]" in new and figures.process(new, False, {})[1] == []


@pytest.mark.parametrize(
    ("marker", "problem"),
    [
        ("<!--fig:nowhere/a-->1<!--/fig-->", "unknown figure source 'nowhere'"),
        ("<!--fig:paston_rllib/nobody-->1<!--/fig-->", "no agent or pair 'nobody'"),
        ("<!--fig:paston_rllib/heuristic-->1", "not of the form"),
    ],
)
def test_bad_markers_are_one_line_each(marker, problem):
    _, problems = figures.process(marker, run=False, cache={})
    assert len(problems) == 1 and problem in problems[0]


@pytest.mark.slow
def test_every_marked_figure_matches_a_fresh_run(capsys):
    assert figures.main(["--check", "--run"]) == 0, capsys.readouterr().err


def test_a_timing_figure():
    stored = {
        "runs": {
            "main": {"seconds": 525.4, "date": "2026-12-01"},
            "test": {"seconds": 59, "date": "2026-12-04", "tests": 1922, "pytest_seconds": 261},
        }
    }
    assert figures.timings_figure(stored, "main", "both") == "8 min 45 s"
    assert figures.timings_figure(stored, "test", "both") == "59 s"
    assert figures.timings_figure(stored, "test", "tests") == "1,922"
    assert figures.timings_figure(stored, "test", "pytest") == "4 min 21 s"
    assert figures.timings_figure(stored, "main", "date") == "2026-12-01"
    with pytest.raises(KeyError, match="has no 'tests'"):
        figures.timings_figure(stored, "main", "tests")
    with pytest.raises(KeyError, match="no run"):
        figures.timings_figure(stored, "nowhere", "both")


def test_exact_results_give_nash_conv_exploitability_and_counts():
    results = {
        "histories": 20665,
        "information_states": 2160,
        "rows": [{"agent": "cfr+ (200 iterations)", "nash_conv": 0.5, "exploitability": 0.25}],
    }
    assert figures.figure(results, "cfr+", "both", 3) == "0.5"
    assert figures.figure(results, "cfr+.exploitability", "both", 3) == "0.25"
    assert figures.figure(results, "histories", "both", 4) == "20,665"
    with pytest.raises(KeyError, match="no exact row"):
        figures.figure(results, "heuristic", "both", 4)


def test_an_exploit_result_gives_its_gain_with_the_interval():
    results = {"measurement": {"gain": 0.125, "ci95": 0.025}}
    assert figures.figure(results, "gain", "both", 3) == "+0.125 [+0.100, +0.150]"
    assert figures.figure(results, "gain", "ci", 3) == "[+0.100, +0.150]"


def test_a_tournament_decision_time_figure_is_its_reports_median():
    results = json.loads((ROOT / "docs/tournaments/paston_rllib/results.json").read_text())
    name, times = next(iter(results["decision_times"].items()))
    from folkcards.evaluate.formatting import format_seconds

    assert figures.figure(results, name, "median", 2) == format_seconds(times["median"])
    assert figures.figure(results, name, "p95", 2) == format_seconds(times["p95"])
    with pytest.raises(KeyError, match="no decision times of 'nobody'"):
        figures.figure(results, "nobody", "median", 2)


def test_a_tournament_pair_reads_both_ways():
    """A - B is the stored difference; B - A is its negative, the interval turned round (the
    report's matrix shows both); the pages write the minus sign (U+2212)."""
    results = {
        "agents": [{"name": n, "mean": 0.0, "ci_low": 0.0, "ci_high": 0.0} for n in "ab"],
        "head_to_head": [{"a": "a", "b": "b", "mean_diff": -0.5, "ci_low": -0.75, "ci_high": 0.25}],
    }
    assert figures.figure(results, "a-b", "both", 2) == "\u22120.50 [\u22120.75, +0.25]"
    assert figures.figure(results, "b-a", "both", 2) == "+0.50 [\u22120.25, +0.75]"
    with pytest.raises(KeyError, match="no agent or pair 'a-c'"):
        figures.figure(results, "a-c", "both", 2)
