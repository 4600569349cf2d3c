"""The result figures the documentation quotes are the ones their runs give:
marked figures are checked against the committed results (default suite) and against fresh runs
of their commands (slow)."""

from __future__ import annotations

import importlib.util
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


def test_the_docs_mark_figures_of_every_source():
    text = "".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for name in figures.SOURCES:
        assert f"<!--fig:{name}/" in text, f"no page quotes the figures of {name}"


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
