"""The measured figures quoted in the documentation, regenerated from stored results and checked.

The pages read are README.md, CHANGELOG.md and every page under docs/. A figure stands between
markers that name where it comes from::

    <!--fig:paston_config/heuristic-->+22.62 [+20.84, +24.41]<!--/fig-->

``NAME/ROW[:part]``, by the kind of source ``NAME``:

- a tournament (a stored ``results.json`` committed with the docs, or a command run afresh):
  ``ROW`` an agent's name or ``A-B`` (the difference A − B paired by deal); ``part`` one of
  ``both`` (default: ``+1.23 [+0.45, +2.01]``), ``mean`` or ``ci``; an agent's ``median`` or
  ``p95`` is its decision time as the tournament measured it.
- ``agents_GAME``, the agents' page's round robin of a game (``docs/agents/results.json``, written
  by ``folkcards agents-page``): the same rows and parts, written as the agents' page writes
  them, plus ``AGENT:median`` and ``AGENT:p95``, its decision time.
- ``exploit_RUN``, a stored best-response run (``docs/exploit/RUN/final.json``, written by
  ``folkcards exploit``; ``exploit_search_RUN``: ``docs/exploit/search/RUN/final.json``, written
  by ``folkcards exploit --method search``): ``ROW`` is ``gain``; ``both``
  (``+4.48 ± 0.82``), ``mean`` or ``ci`` (``[+3.66, +5.31]``).

- ``gauntlet_GAME-N``, the committed gauntlet rows of a game at N players (package data of
  ``folkcards.evaluate.benchmarks.gauntlet``, written by ``folkcards gauntlet``): ``ROW`` is
  ``AGENT-REFERENCE``, the agent's advantage over that reference (positive is better in every
  game); ``both``, ``mean`` or ``ci``.

- ``timings``, the quick-start commands' wall times (``docs/timings.json``): ``ROW`` a run
  (``main_cold``, ``test_warm``, ...); ``both`` (``8 min 45 s``), ``date``, ``tests`` (the
  number of tests run), ``pytest`` (pytest's share of the time).

A whole generated block (a table) stands between ``<!--table:NAME-->`` and ``<!--/table-->``;
``TABLES`` lists what writes each. The agents' page itself (``docs/agents.md``) is checked against
what its stored results give.

    python scripts/figures.py --check           # stored sources only (seconds): every marked figure
    python scripts/figures.py --check --run     # also rerun the commands (minutes)
    python scripts/figures.py --write           # rewrite the figures and tables from stored results
    python scripts/figures.py --write --run     # ... and from fresh runs of the command sources

A stale figure or table, an unknown source or row, or a malformed marker is one line each and
exit code 1.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("both", "mean", "ci", "median", "p95", "date", "tests", "pytest")
MARKER = re.compile(
    rf"<!--fig:([\w.-]+)/([^>]+?)(?::({'|'.join(PARTS)}))?-->(.*?)<!--/fig-->", re.S
)
BLOCK = re.compile(r"(<!--table:([\w.-]+)-->\n)(.*?)(<!--/table-->)", re.S)
AGENTS_RESULTS = "docs/agents/results.json"
EXPLOIT_DIR = "docs/exploit"


def pages() -> list[Path]:
    """Every page whose figures are checked: the README, the changelog and the site's pages."""
    found = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [page for page in found if page.is_file()]


@dataclass(frozen=True)
class Source:
    """Where a tournament's results come from: a committed ``results.json`` or a command."""

    stored: str | None = None  # results.json path, relative to the repository
    command: tuple[str, ...] = ()  # folkcards arguments; ``--out`` is added
    digits: int = 2
    kind: str = "tournament"  # or "agents" (a game of the agents' page), "exploit" (final.json),
    # "timings" (docs/timings.json), "gauntlet" (the committed gauntlet rows of a table)
    game: str | None = None  # the agents' page's game, or the gauntlet rows' game
    players: int | None = None  # the gauntlet rows' table size


SOURCES: dict[str, Source] = {
    # configs/tournament/paston.yaml, 300 deals x 6 seatings (about a minute on 2 cores)
    "paston_config": Source(
        command=("tournament", "--config", "configs/tournament/paston.yaml", "--bootstrap", "0")
    ),
    "paston_rllib": Source(stored="docs/tournaments/paston_rllib/results.json"),
    "example_report": Source(stored="docs/example_report/results.json"),
    "paston_expert": Source(stored="docs/tournaments/paston_expert/results.json"),
    "paston_expert_learned": Source(stored="docs/tournaments/paston_expert_learned/results.json"),
    "paston_distilled": Source(stored="docs/tournaments/paston_distilled/results.json"),
    "paston_expert_v3_rllib_distilled": Source(
        stored="docs/tournaments/paston_expert_v3_rllib_distilled/results.json"
    ),
    "paston_expert_v3_rllib_ppo": Source(
        stored="docs/tournaments/paston_expert_v3_rllib_ppo/results.json"
    ),
    "paston_expert_v3_pimc": Source(stored="docs/tournaments/paston_expert_v3_pimc/results.json"),
    "paston_expert_rllib_distilled": Source(
        stored="docs/tournaments/paston_expert_rllib_distilled/results.json"
    ),
    "paston_distilled_endgame": Source(
        stored="docs/tournaments/paston_distilled_endgame/results.json"
    ),
    "paston_distilled_calls": Source(stored="docs/tournaments/paston_distilled_calls/results.json"),
    "paston_distilled_all_cards": Source(
        stored="docs/tournaments/paston_distilled_all_cards/results.json"
    ),
    "paston_expert_pimc": Source(stored="docs/tournaments/paston_expert_pimc/results.json"),
    "paston_expert_rllib_v2": Source(stored="docs/tournaments/paston_expert_rllib_v2/results.json"),
    "paston_expert_pimc_v2": Source(stored="docs/tournaments/paston_expert_pimc_v2/results.json"),
    # larger search budgets of the Paston expert (docs/research/expert.md, "A larger discard
    # search"): two development screens, then fresh seeds
    **{
        name: Source(stored=f"docs/tournaments/{name}/results.json")
        for name in (
            "paston_expert_budget_screen_1",
            "paston_expert_budget_screen_2",
            "paston_expert_discards_pimc",
            "paston_expert_discards_heuristic",
        )
    },
    # the Paston evaluator refitted to the expert's own results, and the loop's generation 1
    # (docs/guide/expert.md, docs/iterate.md)
    **{
        name: Source(stored=f"docs/tournaments/{name}/results.json")
        for name in (
            "paston_expert_refit_dev",
            "paston_expert_refit_confirm",
            "paston_iterate_gen1",
            "paston_iterate_gen2",
            "paston_expert_0_11_confirm",
        )
    },
    # Paston distilled with the expert's discard search (docs/guide/distilled.md)
    "paston_distilled_discard_search": Source(
        stored="docs/tournaments/paston_distilled_discard_search/results.json"
    ),
    # Paston distilled with the refitted evaluator's calls (docs/guide/distilled.md)
    **{
        name: Source(stored=f"docs/tournaments/{name}/results.json")
        for name in ("paston_distilled_calls_refit_2_dev", "paston_distilled_calls_refit_2_confirm")
    },
    "timings": Source(stored="docs/timings.json", kind="timings"),
    "tri_palki_distilled_4p": Source(
        stored="docs/tournaments/tri_palki_distilled_4p/results.json", digits=3
    ),
    **{
        f"tri_palki_distilled_ppo_{n}p": Source(
            stored=f"docs/tournaments/tri_palki_distilled_ppo_{n}p/results.json", digits=3
        )
        for n in (3, 4, 6)
    },
    **{
        f"tri_palki_distilled_unsure_{n}p": Source(
            stored=f"docs/tournaments/tri_palki_distilled_unsure_{n}p/results.json", digits=3
        )
        for n in (3, 4, 6)
    },
    **{
        f"tri_palki_distilled_0_7_{n}p": Source(
            stored=f"docs/tournaments/tri_palki_distilled_0_7_{n}p/results.json", digits=3
        )
        for n in ("3", "4", "6", "screen_3", "screen_4")
    },
    # Tri Palki's learned model of the others and the loop's network against expert
    # (docs/research/expert.md, docs/iterate.md)
    **{
        name: Source(stored=f"docs/tournaments/{name}/results.json", digits=3)
        for name in (
            "tri_palki_expert_learned_3p",
            "tri_palki_expert_learned_4p",
            "tri_palki_iterated_scale_dev_3p",
            "tri_palki_iterated_confirm_3p",
            "tri_palki_iterated_confirm_4p",
            "tri_palki_iterated_confirm_6p",
            "tri_palki_iterated_confirm_6p_second",
            "tri_palki_iterated_cutoff_ablation_3p",
            "tri_palki_iterated_6p_screen_others_learned",
            "tri_palki_iterated_6p_screen_budget384",
            "tri_palki_iterated_fullroll_6p",
            "tri_palki_iterated_histories_6p",
            "tri_palki_iterated_vs_expert_0_4_3p",
            "tri_palki_iterated_vs_expert_0_4_4p",
            "tri_palki_iterated_vs_expert_0_4_6p",
            "tri_palki_compact_vs_expert_3p",
            "tri_palki_compact_vs_expert_4p",
            "tri_palki_compact_vs_expert_6p",
            "tri_palki_rules_vs_expert_3p",
            "tri_palki_rules_vs_expert_4p",
            "tri_palki_rules_vs_expert_6p",
            "tri_palki_distilled_unsure_net_3p",
            "tri_palki_expert_vs_expert_0_4_3p",
            "tri_palki_weights_vs_expert_4p",
            "tri_palki_weights_vs_expert_6p",
            "tri_palki_weights_vs_expert_3p",
            "tri_palki_weights_confirm_6p",
            "tri_palki_distilled_net_3p",
            "tri_palki_distilled_net_4p",
            "tri_palki_distilled_net_6p",
            "tri_palki_expert_vs_expert_0_4_4p",
            "tri_palki_expert_vs_expert_0_4_6p",
        )
    },
    "tri_palki_pimc": Source(stored="docs/tournaments/tri_palki_pimc/results.json", digits=3),
    "tri_palki_pimc_4p": Source(stored="docs/tournaments/tri_palki_pimc_4p/results.json", digits=3),
    **{
        f"tri_palki_expert_{n}p": Source(
            stored=f"docs/tournaments/tri_palki_expert_{n}p/results.json", digits=3
        )
        for n in (3, 4, 6)
    },
    # the larger search budget against the 0.4.0 expert, seated symmetrically
    **{
        f"tri_palki_expert_budget_{n}p": Source(
            stored=f"docs/tournaments/tri_palki_expert_budget_{n}p/results.json", digits=3
        )
        for n in (3, 4, 6)
    },
    "tri_palki_rotation_neighbours_4p": Source(
        stored="docs/tournaments/tri_palki_rotation_neighbours_4p/results.json", digits=3
    ),
    # an expert-iteration generation against expert (docs/iterate.md)
    "tri_palki_iterate_gen4_3p": Source(
        stored="docs/tournaments/tri_palki_iterate_gen4_3p/results.json", digits=3
    ),
    # exact NashConv on Tri Palki tiny (python benchmarks/tri_palki_tiny_exact.py)
    "tri_palki_tiny_exact": Source(stored="docs/results/tri_palki_tiny_exact.json", digits=3),
    # exact NashConv on Paston tiny (python benchmarks/paston_tiny_exact.py)
    "paston_tiny_exact": Source(stored="docs/results/paston_tiny_exact.json", digits=3),
    # a PPO player of Paston tiny against heuristic and random (docs/exact_exploitability.md)
    "paston_tiny_ppo": Source(stored="docs/tournaments/paston_tiny_ppo/results.json"),
    # the bidding benchmark's rows (folkcards bidding evaluate --agent SPEC --json FILE)
    **{
        f"bidding_{name}": Source(stored=f"docs/bidding_benchmark/{name}.json")
        for name in ("heuristic", "random", "pimc", "ppo_paston", "ppo", "ppo_training_deals")
    },
}


def _stored_sources() -> dict[str, Source]:
    """The agents' page's games and the stored best-response runs, one source each."""
    found: dict[str, Source] = {}
    results = ROOT / AGENTS_RESULTS
    if results.is_file():
        for game in json.loads(results.read_text())["games"]:
            found[f"agents_{game}"] = Source(stored=AGENTS_RESULTS, kind="agents", game=game)
    # the shipped agents' runs, and the planted-hole runs kept apart from them (planted/)
    finals = [
        *(ROOT / EXPLOIT_DIR).glob("*/final.json"),
        *(ROOT / EXPLOIT_DIR).glob("planted/*/final.json"),
    ]
    for final in sorted(finals):
        relative = final.relative_to(ROOT).as_posix()
        found[f"exploit_{final.parent.name}"] = Source(stored=relative, kind="exploit")
    # the search probe's records (search/), named apart: a run of each probe may share a name
    for final in sorted((ROOT / EXPLOIT_DIR).glob("search/*/final.json")):
        relative = final.relative_to(ROOT).as_posix()
        found[f"exploit_search_{final.parent.name}"] = Source(stored=relative, kind="exploit")
    from folkcards.evaluate.benchmarks.gauntlet import shipped_rows

    for row in shipped_rows():
        table = f"gauntlet_{row['game']}-{row['num_players']}"
        found[table] = Source(kind="gauntlet", game=row["game"], players=row["num_players"])
    return found


SOURCES.update(_stored_sources())


def _signed(value: float, digits: int) -> str:
    text = f"{value:+.{digits}f}"
    return text.replace("-", "−")


def exact_figure(results: dict[str, Any], row: str, digits: int) -> str:
    """A figure of an exact result (``benchmarks/tri_palki_tiny_exact.py``, ``_probe.py``):
    ``AGENT`` its NashConv, ``AGENT.FIELD`` another field of its row (``exploitability``,
    ``fraction`` …), or a count (``histories``, ``information_states``); ``AGENT`` is the first
    word of the row's agent. Values have ``digits`` significant digits."""
    if row in ("histories", "information_states", "walk_seconds", "solve_seconds"):
        return f"{results[row]:,}"
    agent, _, what = row.partition(".")
    values = {r["agent"].split(" ")[0]: r for r in results["rows"]}
    if agent not in values or what not in ("", *values[agent]):
        raise KeyError(f"no exact row {row!r} (agents: {', '.join(values)})")
    return f"{values[agent][what or 'nash_conv']:.{digits}g}"


def figure(results: dict[str, Any], row: str, part: str, digits: int) -> str:
    """The figure ``row`` of a tournament's results, formatted as the pages write it."""
    if "rows" in results:
        return exact_figure(results, row, digits)
    if "measurement" in results:  # a folkcards exploit final.json: its gain, 95% interval
        if row != "gain":
            raise KeyError(f"an exploit result has the row 'gain', not {row!r}")
        gain, half = results["measurement"]["gain"], results["measurement"]["ci95"]
        ends = f"[{_signed(gain - half, digits)}, {_signed(gain + half, digits)}]"
        return {"mean": _signed(gain, digits), "ci": ends}.get(
            part, f"{_signed(gain, digits)} {ends}"
        )
    if part in ("median", "p95"):  # an agent's decision time, as the report measured it
        from folkcards.evaluate.formatting import format_seconds

        times = results.get("decision_times", {})
        if row not in times:
            raise KeyError(f"no decision times of {row!r} (agents: {', '.join(times)})")
        return format_seconds(times[row][part])
    agents = {a["name"]: (a["mean"], a["ci_low"], a["ci_high"]) for a in results["agents"]}
    pair = pair_difference(results, row)
    if row in agents:
        mean, low, high = agents[row]
    elif pair is not None:
        mean, low, high, _ = pair
    else:
        raise KeyError(f"no agent or pair {row!r} (agents: {', '.join(agents)})")
    ci = f"[{_signed(low, digits)}, {_signed(high, digits)}]"
    return {"mean": _signed(mean, digits), "ci": ci, "both": f"{_signed(mean, digits)} {ci}"}[part]


def pair_difference(
    results: dict[str, Any], row: str
) -> tuple[float, float, float, int | None] | None:
    """A tournament's ``A-B`` (its head-to-head row, or minus the ``B-A`` one, as the report's
    matrix shows both ways): the mean difference, its interval and the deals (``None`` if not
    stored); ``None`` if the results have no such pair."""
    rows = results["head_to_head"]
    for h in rows:
        if row == f"{h['a']}-{h['b']}":
            return h["mean_diff"], h["ci_low"], h["ci_high"], h.get("deals")
    for h in rows:  # only when no row reads that way round
        if row == f"{h['b']}-{h['a']}":
            return -h["mean_diff"], -h["ci_high"], -h["ci_low"], h.get("deals")
    return None


def agents_figure(entry: dict[str, Any], row: str, part: str) -> str:
    """A figure of a game's round robin on the agents' page, as that page writes it."""
    from folkcards.evaluate.formatting import format_seconds, interval, score_digits, signed

    digits = score_digits(entry)
    names = {spec: name for spec, name in zip(entry["specs"], entry["names"], strict=True)}
    agents = {a["name"]: (a["mean"], a["ci_low"], a["ci_high"]) for a in entry["agents"]}
    pairs = {
        (h["a"], h["b"]): (h["mean_diff"], h["ci_low"], h["ci_high"]) for h in entry["head_to_head"]
    }
    if part in ("median", "p95"):
        name = names.get(row, row)
        if name not in entry["decision_times"]:
            raise KeyError(f"no agent {row!r} (agents: {', '.join(entry['specs'])})")
        return format_seconds(entry["decision_times"][name][part])
    a, sep, b = row.partition("-")
    a, b = names.get(a, a), names.get(b, b)
    if row in agents or names.get(row) in agents:
        mean, low, high = agents[names.get(row, row)]
    elif sep and (a, b) in pairs:
        mean, low, high = pairs[(a, b)]
    elif sep and (b, a) in pairs:  # the page's matrix shows both ways: row minus column
        mean, low, high = (-x for x in pairs[(b, a)])
        low, high = high, low
    else:
        raise KeyError(f"no agent or pair {row!r} (agents: {', '.join(entry['specs'])})")
    ci = interval(low, high, digits, True)
    text = signed(mean, digits)
    return {"mean": text, "ci": ci, "both": f"{text} {ci}"}[part]


def exploit_figure(final: dict[str, Any], row: str, part: str) -> str:
    """The gain of a stored best-response run, as the agents' page writes it (three digits for
    a game whose scores shrink, sticks: the game's registry entry says so)."""
    from folkcards.envs.registry import canonical_game, game_spec
    from folkcards.evaluate.formatting import interval, num, signed

    if row != "gain" or part not in ("both", "mean", "ci"):
        raise KeyError(f"no row {row!r}:{part} (an exploit run has gain, gain:mean, gain:ci)")
    measurement = final["measurement"]
    game = measurement.get("game")
    digits = 2 if game is None or game_spec(canonical_game(game)).higher_is_better else 3
    gain, half = measurement["gain"], measurement["ci95"]
    ci = interval(gain - half, gain + half, digits, True)
    return {
        "mean": signed(gain, digits),
        "ci": ci,
        "both": f"{signed(gain, digits)} ± {num(half, digits)}",
    }[part]


def minutes(seconds: float) -> str:
    """``8 min 45 s`` / ``45 s``."""
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def timings_figure(stored: dict[str, Any], row: str, part: str) -> str:
    """A quick-start command's wall time, date or test count."""
    if row not in stored["runs"]:
        raise KeyError(f"no run {row!r} (runs: {', '.join(stored['runs'])})")
    run = stored["runs"][row]
    shown = {
        "both": lambda: minutes(run["seconds"]),
        "date": lambda: run["date"],
        "tests": lambda: f"{run['tests']:,}",
        "pytest": lambda: minutes(run["pytest_seconds"]),
    }
    if part not in shown or (part in ("tests", "pytest") and "tests" not in run):
        raise KeyError(f"run {row!r} has no {part!r}")
    return shown[part]()


def gauntlet_figure(rows: list[dict[str, Any]], row: str, part: str) -> str:
    """``AGENT-REFERENCE`` of a table's gauntlet rows: the advantage, as the leaderboard shows
    it (three digits for a game whose scores shrink, sticks)."""
    from folkcards.envs.registry import game_spec
    from folkcards.evaluate.formatting import interval, signed

    agent, _, reference = row.rpartition("-")
    by_agent = {r["agent"]: r for r in rows}
    if agent not in by_agent or part not in ("both", "mean", "ci"):
        raise KeyError(f"no gauntlet row {row!r}:{part} (agents: {', '.join(by_agent)})")
    found = {p["reference"]: p["advantage"] for p in by_agent[agent]["references"]}
    if reference not in found:
        raise KeyError(f"{agent}'s gauntlet row has no reference {reference!r}")
    digits = 2 if game_spec(by_agent[agent]["game"]).higher_is_better else 3
    advantage = found[reference]
    text = signed(advantage["mean"], digits)
    if advantage.get("low") is None:
        return text if part != "ci" else "—"
    ci = interval(advantage["low"], advantage["high"], digits, True)
    return {"mean": text, "ci": ci, "both": f"{text} {ci}"}[part]


def source_figure(name: str, results: dict[str, Any], row: str, part: str) -> str:
    """The figure ``row:part`` of source ``name``; ``KeyError`` naming what is there."""
    source = SOURCES[name]
    if source.kind == "gauntlet":
        return gauntlet_figure(results["gauntlet_rows"], row, part)
    if source.kind == "agents":
        return agents_figure(results["games"][source.game], row, part)
    if source.kind == "exploit":
        return exploit_figure(results, row, part)
    if source.kind == "timings":
        return timings_figure(results, row, part)
    if part not in ("both", "mean", "ci", "median", "p95"):
        raise KeyError(f"a tournament has no part {part!r} (both, mean, ci, median, p95)")
    return figure(results, row, part, source.digits)


# --- generated tables ----------------------------------------------------------------------------


def players_table(cache: dict[str, Any]) -> str:
    """The shipped players, one row per agent and three columns per game at its default table:
    median decision time (the agents' page's round robin), advantage over the heuristic (the
    committed gauntlet rows, the leaderboard's figures) and best-response gain."""
    from folkcards.envs.registry import game_spec

    stored = json.loads((ROOT / AGENTS_RESULTS).read_text())["games"]
    games = {key: entry for key, entry in stored.items() if key == entry["game"]}  # default tables
    header, notes, agents = ["agent"], [], []
    for game, entry in games.items():
        table = "" if game_spec(game).fixed_players else f", {entry['num_players']} players"
        header += [f"{entry['title']}{table}: median decision time", "over the heuristic",
                   "best-response gain"]  # fmt: skip
        rows = _gauntlet_rows(game, entry["num_players"], cache)
        deals = sorted({r["deals"] for r in rows if r["agent"] in entry["specs"]})
        dates = sorted({r["date"] for r in rows if r["agent"] in entry["specs"]})
        played = " to ".join(f"{d:,}" for d in sorted({deals[0], deals[-1]})) if deals else "no"
        notes.append(
            f"{entry['title']}{table}: over the heuristic from the gauntlet "
            f"({played} {entry['unit_plural']} per agent, {', '.join(dates[-1:]) or '—'}), "
            f"decision time from the round robin ({entry['deals']:,} {entry['unit_plural']}, "
            f"{entry['date']})"
        )
        agents += [spec for spec in entry["specs"] if spec not in agents]
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for agent in agents:
        cells = [f"`{agent}`"]
        for game, entry in games.items():
            if agent not in entry["specs"]:
                cells += ["—"] * 3
                continue
            name = f"agents_{game}"
            runs = [
                (int(final["measurement"]["num_players"]), run)
                for run, final in _exploits_of(game, agent, cache)
            ]
            several = not game_spec(game).fixed_players  # say the table of each run
            gains = "; ".join(
                (f"{n}p: " if several else "")
                + source_figure(run, load(run, False, cache) or {}, "gain", "both")
                for n, run in runs
            )
            rated = f"gauntlet_{game}-{entry['num_players']}"
            rows = _gauntlet_rows(game, entry["num_players"], cache)
            over = "—"
            if agent != "heuristic" and any(r["agent"] == agent for r in rows):
                over = source_figure(rated, {"gauntlet_rows": rows}, f"{agent}-heuristic", "both")
            cells += [
                source_figure(name, {"games": stored}, agent, "median"),
                over,
                gains or "not measured",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "; ".join(notes) + "."]
    return "\n".join(lines) + "\n"


def _gauntlet_rows(game: str, players: int, cache: dict[str, Any]) -> list[dict[str, Any]]:
    name = f"gauntlet_{game}-{players}"
    if name not in SOURCES:
        return []
    return list((load(name, False, cache) or {}).get("gauntlet_rows", []))


def _exploits_of(game: str, agent: str, cache: dict[str, Any]) -> list[tuple[str, Any]]:
    """The stored best-response runs of ``agent`` in ``game`` (the agents' page's choice), by
    table size."""
    from folkcards.evaluate.pages.exploit_runs import exploits_of, read_exploits

    found = exploits_of(read_exploits(ROOT / EXPLOIT_DIR), game, agent)
    runs = [f"exploit_{e.folder.name}" for e in found]
    return [(run, load(run, False, cache)) for run in runs]


def games_table(cache: dict[str, Any], episodes: int = 100) -> str:
    """Every environment of the registry (one row per env module; a variant that plays another
    game's env is that game's row): env id, players, actions, observation size and episode length
    (decisions per episode with the game's heuristic in every seat, ``episodes`` seeded
    episodes at the default table)."""
    import importlib

    import numpy as np
    from folkcards.agents import make_agent
    from folkcards.envs.registry import GAMES, resolve

    lines = [
        f"| env id | players | actions | observation size | decisions per episode: "
        f"mean (range), the heuristic in every seat, {episodes} episodes |",
        "|---|---:|---:|---:|---:|",
    ]
    modules = set()
    for spec in GAMES.values():
        if spec.module in modules:  # a variant registered on another game's env
            continue
        modules.add(spec.module)
        env = importlib.import_module(spec.module).env(
            **({} if spec.fixed_players else {"num_players": spec.default_players})
        )
        seats = {
            seat: make_agent("heuristic", spec.name, seat=seat, seed=i)
            for i, seat in enumerate(env.possible_agents)
        }
        lengths = []
        for seed in range(episodes):
            env.reset(seed=seed)
            for agent in seats.values():
                agent.reset()
            steps = 0
            for seat in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                action = None if termination or truncation else seats[seat].act(observation)
                steps += action is not None
                env.step(action)
            lengths.append(steps)
        size = int(env.observation_space(env.possible_agents[0])["observation"].shape[0])
        if spec.fixed_players:
            players, observed = f"{spec.min_players}", f"{size}"
        else:
            sizes = [resolve(spec.observation_size)(n) for n in spec.table_sizes]
            players = f"{spec.min_players}–{spec.max_players}"
            observed = f"{size} at {spec.default_players} ({min(sizes)}–{max(sizes)})"
        table = "" if spec.fixed_players else f" at {spec.default_players} players"
        lines.append(
            f"| `{spec.env_id}` | {players} | {spec.num_actions} | {observed} | "
            f"{np.mean(lengths):.1f}{table} ({min(lengths)}–{max(lengths)}) |"
        )
    return "\n".join(lines) + "\n"


def tiny_probe_table(cache: dict[str, Any], game: str = "tri_palki_tiny") -> str:
    """Each probe's gain against each agent of a tiny variant, beside the agent's exact
    exploitability (``benchmarks/tri_palki_tiny_probe.py``, its ``--out`` for the variant's
    ``docs/results/GAME_probe.json``): gain and fraction found with their 95% intervals, the
    probe's budget."""
    stored = json.loads((ROOT / f"docs/results/{game}_probe.json").read_text())
    lines = [
        "| agent | probe | exact exploitability | probe's gain [95% interval] "
        "| fraction found [95% interval] | budget |",
        "|---|---|---|---|---|---|",
    ]
    for row in stored["rows"]:
        gain = f"{row['gain']:.3g} [{row['gain_low']:.3g}, {row['gain_high']:.3g}]"
        fraction = "— (no exact gain to find)"
        exact = "not yet computed" if row["exact"] is None else f"{row['exact']:.3g}"
        if row["exact"] is None:
            fraction = "— (exact value not yet computed)"
        elif row["fraction"] is not None:
            fraction = (
                f"{row['fraction']:.2f} [{row['fraction_low']:.2f}, {row['fraction_high']:.2f}]"
            )
        lines.append(
            f"| `{row['spec']}` | {row['probe'].replace('_', ' ')} | {exact} | {gain} "
            f"| {fraction} | {row['budget']}; {row['deals']:,} deals |"
        )
    return "\n".join(lines) + "\n"


def probes_table(cache: dict[str, Any]) -> str:
    """Both best-response probes against every shipped agent (:mod:`folkcards.evaluate.pages.probe_table`)."""
    from folkcards.evaluate.pages.probe_table import probe_table

    return probe_table(
        ROOT / EXPLOIT_DIR, ROOT / EXPLOIT_DIR / "search", ROOT / EXPLOIT_DIR / "README.md"
    )


ITERATE_DIR = "docs/results/iterate"
EXPERT_SPEED = "docs/results/tri_palki_expert_speed.json"
EXPERT_LEARNED_SPEED = "docs/results/tri_palki_expert_learned_speed.json"
ITERATED_SPEED = "docs/results/tri_palki_iterated_speed.json"
PASTON_EXPERT_SPEED = "docs/results/paston_expert_speed.json"
RECONSTRUCTION_SPEED = "docs/results/tri_palki_reconstruction_speed.json"
EXPERT_SPEED_0_13 = "docs/results/tri_palki_expert_speed_0_13.json"
ITERATED_SPEED_0_13 = "docs/results/tri_palki_iterated_speed_0_13.json"
COMPACT_SPEED = "docs/results/tri_palki_compact_speed.json"
SHIPPED_SPEED_3P = "docs/results/tri_palki_shipped_speed_3p.json"
RULES_SPEED = "docs/results/tri_palki_rules_speed.json"
WEIGHTS_SPEED = "docs/results/tri_palki_weights_speed.json"
EXPERT_SPEED_0_14 = "docs/results/tri_palki_expert_speed_0_14.json"


def _interval_cell(pair: dict[str, Any] | None) -> str:
    if not pair:
        return "–"
    if pair["ci_low"] is None:
        return f"{_signed(pair['mean_diff'], 3)} ({pair['rounds']:,})"
    return (
        f"{_signed(pair['mean_diff'], 3)} [{_signed(pair['ci_low'], 3)}, "
        f"{_signed(pair['ci_high'], 3)}] ({pair['rounds']:,})"
    )


def iterate_table(cache: dict[str, Any]) -> str:
    """Every stored ``folkcards iterate`` run's generations (``docs/results/iterate/RUN.json``,
    its ``summary.json``): the fit's held-out metrics and the gate's paired differences; a run
    continuing another lists its own generations only."""
    lines = [
        "| run | generation | teacher | policy agrees with the search (heuristic rules) "
        "| value log-loss (constant) | gate players | new − teacher, 95% (rounds) | passed "
        "| new − `expert` (rounds) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for path in sorted((ROOT / ITERATE_DIR).glob("*.json")):
        summary = json.loads(path.read_text())
        if summary["config"].get("game", "tri_palki") != "tri_palki":
            continue
        parent = summary["config"].get("parent")
        first = parent["generation"] + 1 if parent else 1
        for row in summary["generations"]:
            if row["generation"] < first or not row["fit"]:
                continue
            fit, gate = row["fit"], row["gate"]
            agreement = (
                f"{fit['held_out_agreement']:.1%} ({fit['held_out_heuristic_rules_agreement']:.1%})"
            )
            loss = f"{fit['held_out_value_loss']:.3f} ({fit['held_out_constant_value_loss']:.3f})"
            if gate is None:
                lines.append(f"| {path.stem} | {row['generation']} | – | {agreement} | {loss} "
                             "| – | (gate not played) | – | – |")  # fmt: skip
                continue
            report = (gate.get("report") or {}).get("expert")
            lines.append(
                f"| {path.stem} | {row['generation']} | {gate['teacher']} | {agreement} | {loss} "
                f"| {gate.get('num_players', 3)} | {_interval_cell(gate['vs_teacher'])} | {'yes' if gate['accepted'] else 'no'} "
                f"| {_interval_cell(report)} |"
            )
    return "\n".join(lines) + "\n"


def iterate_paston_table(cache: dict[str, Any]) -> str:
    """Every stored Paston ``folkcards iterate`` run's generations
    (``docs/results/iterate/RUN.json``): each head's held-out error on the chosen outputs
    before and after the refit, and the gate's paired differences in table points per deal."""
    lines = [
        "| run | generation | teacher | held-out error before → after: declare, contract, whist "
        "| new − teacher, 95% (deals) | passed | new − third (deals) | teacher − third |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def cell(pair: dict[str, Any] | None) -> str:
        if not pair:
            return "–"
        return (f"{_signed(pair['mean_diff'], 2)} [{_signed(pair['ci_low'], 2)}, "
                f"{_signed(pair['ci_high'], 2)}] ({pair['deals']:,})")  # fmt: skip

    for path in sorted((ROOT / ITERATE_DIR).glob("*.json")):
        summary = json.loads(path.read_text())
        if summary["config"].get("game") != "paston":
            continue
        for row in summary["generations"]:
            if not row["fit"]:
                continue
            errors = ", ".join(
                f"{row['fit'][h]['held_out_mse_chosen_before']:.0f} → "
                f"{row['fit'][h]['held_out_mse_chosen_after']:.0f}"
                if "held_out_mse_chosen_after" in row["fit"].get(h, {}) else "kept"
                for h in ("declare", "contract", "whist")
            )  # fmt: skip
            gate = row["gate"]
            if gate is None:
                lines.append(f"| {path.stem} | {row['generation']} | – | {errors} "
                             "| (gate not played) | – | – | – |")  # fmt: skip
                continue
            third = f"`{gate['third']}`"
            lines.append(
                f"| {path.stem} | {row['generation']} | {gate['teacher']} | {errors} "
                f"| {cell(gate['vs_teacher'])} | {'yes' if gate['accepted'] else 'no'} "
                f"| {third}: {cell(gate['vs_third'])} | {cell(gate['teacher_vs_third'])} |"
            )
    return "\n".join(lines) + "\n"


def _ended_cell(runs: dict[str, list[Any]], digits: int = 1) -> str:
    """The median over the repeats of the median CPU ms over the rounds that ended by the
    rules, and the decisions timed there (a dash when no round ended)."""
    import statistics

    values = [v for v in runs["cpu_median_ended"] if v is not None]
    if not values:
        return "—"
    return (
        f"{statistics.median(values):.{digits}f} ({statistics.median(runs['decisions_ended']):.0f})"
    )


def _same_cell(run: dict[str, Any], other: str) -> str:
    """Whether the run's spec took ``other``'s actions; where not, from which decision on."""
    same = run.get(f"same_decisions_as_{other}")
    if same is None:
        return " | –"
    if same:
        return " | yes"
    first = run.get("first_different_decision")
    if first is None:
        return " | no"
    return f" | no: from decision {first + 1:,} of {run['decisions_compared']:,}"


def expert_speed_table(
    cache: dict[str, Any], stored_file: str = EXPERT_SPEED, digits: int = 1
) -> str:
    """Tri Palki ``expert`` beside its Python reference and the 0.4.0 budget, CPU ms per
    decision: the median of the repeats' medians, their range, and the 95th percentile, the
    decisions timed, the expert's median as a fraction of each other's and the expert's median
    over the rounds that ended by the rules
    (``benchmarks/tri_palki_expert_speed.py``, ``docs/results/tri_palki_expert_speed.json``);
    the columns are named by the stored spec names, and a line under the table gives each spec;
    where the run checked the last spec against a commit's, whether they took the same actions.
    The times have ``digits`` decimals of a millisecond (Paston's bids take a fraction of one)."""
    import statistics

    stored = json.loads((ROOT / stored_file).read_text())
    names = list(stored["specs"])
    *others, last = names

    def cell(values: list[float]) -> str:
        d = digits
        return f"{statistics.median(values):.{d}f} ({min(values):.{d}f}–{max(values):.{d}f})"

    head = "| players | " + " | ".join(
        f"{n} CPU ms: median (range) | p95 | decisions" for n in names
    )
    head += " | " + " | ".join(f"{last} ÷ {n}" for n in others)
    head += f" | {last}, rounds that ended: CPU ms (decisions)"
    checked = [n for n in others if any(f"same_decisions_as_{n}" in r[last]
                                        for r in stored["players"].values())]  # fmt: skip
    head += "".join(f" | same actions as {n}" for n in checked)
    lines = [head + " |", "| --- " * (3 * len(names) + len(others) + 2 + len(checked)) + "|"]
    for players, runs in stored["players"].items():
        cells = " | ".join(
            f"{cell(runs[n]['cpu_median'])} | {statistics.median(runs[n]['cpu_p95']):.{digits}f}"
            f" | {statistics.median(runs[n]['decisions']):.0f}"
            for n in names
        )
        medians = {n: statistics.median(runs[n]["cpu_median"]) for n in names}
        ratios = " | ".join(f"{medians[last] / medians[n]:.2f}" for n in others)
        same = "".join(_same_cell(runs[last], n) for n in checked)
        ended = _ended_cell(runs[last], digits)
        lines.append(f"| {players} | {cells} | {ratios} | {ended}{same} |")
    specs = "; ".join(f"{n}: `{stored['specs'][n]}`" for n in names)
    lines += ["", f"Specs: {specs}."]
    return "\n".join(lines) + "\n"


# Comparisons asked again on more rounds: (the tournaments in the order played, the pair A-B).
LOOKS = {
    "tri_palki_iterated_6p_looks": (
        ("tri_palki_iterated_confirm_6p", "tri_palki_iterated_confirm_6p_second"),
        "iterated:samples=192,infer=4,endgame_samples=768,infer_epsilon=0.3,net=shipped,"
        "top_k=5,cutoff=10-expert",
    ),
}


def stored_intervals(
    cache: dict[str, Any], runs: Sequence[str], pair: str
) -> list[tuple[dict[str, Any], Any]]:
    """Each stored tournament of ``runs`` (in SOURCES) with the :class:`Interval` of its pair
    ``A-B``; ``KeyError`` for a run without the pair or its count of deals."""
    from folkcards.evaluate.statistics.intervals import interval_of

    found = []
    for run in runs:
        results = load(run, False, cache)
        difference = None if results is None else pair_difference(results, pair)
        if difference is None:
            raise KeyError(f"{run} has no stored pair {pair!r}")
        mean, low, high, deals = difference
        if deals is None:
            raise KeyError(f"{run}'s pair {pair!r} has no count of deals")
        found.append((results, interval_of(mean, low, high, deals)))
    return found


def looks_table(cache: dict[str, Any], name: str) -> str:
    """One comparison over independent runs (``LOOKS[name]``): each run's difference with its
    95% interval, then all the runs' rounds together at Pocock's boundary for that many looks
    (:func:`folkcards.evaluate.statistics.intervals.pooled_looks`)."""
    from itertools import accumulate

    from folkcards.evaluate.statistics.intervals import pocock_boundary, pooled_looks, t_quantile

    runs, pair = LOOKS[name]
    looks = [interval for _, interval in stored_intervals(cache, runs, pair)]

    def cell(mean: float, low: float, high: float) -> str:
        return f"{_signed(mean, 4)} [{_signed(low, 4)}, {_signed(high, 4)}]"

    lines = [
        "| look | rounds | difference, interval | reads the interval at z = |",
        "| --- | --- | --- | --- |",
    ]
    for k, (run, look) in enumerate(zip(runs, looks, strict=True), start=1):
        z = t_quantile(0.5 + look.confidence / 2, look.n - 1)
        lines.append(f"| {k}: [{run}](tournaments/{run}/report.md) | {look.n:,} "
                     f"| {cell(look.mean, look.low, look.high)} | {z:.2f} (this run alone) |")  # fmt: skip
    both = pooled_looks(looks)
    sizes = list(accumulate(look.n for look in looks))
    together = "both" if len(looks) == 2 else f"all {len(looks)}"
    lines.append(f"| **{together} together** | {both.n:,} "
                 f"| **{cell(both.mean, both.low, both.high)}** "
                 f"| {pocock_boundary(sizes):.2f} (Pocock, {len(looks)} looks, 5% overall) |")  # fmt: skip
    return "\n".join(lines) + "\n"


# One comparison at several table sizes, read as one effect: (the tournaments, the pair A-B).
POOLED = {
    "tri_palki_distilled_net_pooled": (
        (
            "tri_palki_distilled_net_3p",
            "tri_palki_distilled_net_4p",
            "tri_palki_distilled_net_6p",
        ),
        "distilled-distilled:version=0.7",
    ),
}


def pooled_table(cache: dict[str, Any], name: str) -> str:
    """One comparison over independent tournaments on different tables (``POOLED[name]``):
    each one's difference with its 95% interval, then the inverse-variance pooled estimate
    (:func:`folkcards.evaluate.statistics.intervals.pooled_inverse_variance`)."""
    from folkcards.evaluate.statistics.intervals import pooled_inverse_variance

    runs, pair = POOLED[name]
    found = stored_intervals(cache, runs, pair)
    lines = [
        "| tournament | players | rounds | difference, 95% interval |",
        "| --- | --- | --- | --- |",
    ]
    for run, (results, part) in zip(runs, found, strict=True):
        players = results["config"]["num_players"]
        lines.append(f"| [{run}](tournaments/{run}/report.md) | {players} | {part.n:,} "
                     f"| {_signed(part.mean, 4)} [{_signed(part.low, 4)}, {_signed(part.high, 4)}] |")  # fmt: skip
    both = pooled_inverse_variance([part for _, part in found])
    lines.append(f"| **pooled** (inverse-variance weights) | | {both.n:,} "
                 f"| **{_signed(both.mean, 4)} [{_signed(both.low, 4)}, {_signed(both.high, 4)}]** |")  # fmt: skip
    return "\n".join(lines) + "\n"


def reconstruction_speed_table(cache: dict[str, Any]) -> str:
    """Tri Palki's reconstruction, this version against a commit's
    (``benchmarks/tri_palki_reconstruction_speed.py``): CPU ms per reconstruction, the 99th
    percentile of one, the work counted, and how the answers compare."""
    result = json.loads((ROOT / RECONSTRUCTION_SPEED).read_text())
    ref = result["ref"]
    lines = [
        f"| players | reconstructions | this version: ms each, median (range) | p99 ms | work: mean (max) "
        f"| {ref}: ms each, median (range) | p99 ms | work: mean (max) | this ÷ {ref} "
        f"| same histories | found where {ref} gave up | other |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def cells(side: dict[str, Any]) -> str:
        low, high = side["ms_range"]
        return (f"{side['ms_per_call']:.2f} ({low:.2f}–{high:.2f}) | {side['ms_p99']:.1f} "
                f"| {side['work_mean']:,.0f} ({side['work_max']:,})")  # fmt: skip

    for players, row in result["players"].items():
        answers = row["answers"]
        lines.append(
            f"| {players} | {row['calls']:,} | {cells(row['this'])} | {cells(row['ref'])} "
            f"| {row['ratio']:.2f} | {answers['same']:,} | {answers['found_where_ref_gave_up']:,} "
            f"| {answers['other']:,} |"
        )
    lines += ["", f"Recorded from `{result['recorder']}` in every seat; machine load average "
              f"{result['load_average']:.1f}."]  # fmt: skip
    return "\n".join(lines) + "\n"


TABLES: dict[str, Callable[[dict[str, Any]], str]] = {
    **{name: partial(looks_table, name=name) for name in LOOKS},
    **{name: partial(pooled_table, name=name) for name in POOLED},
    "players": players_table,
    "games": games_table,
    "tri_palki_tiny_probe": tiny_probe_table,
    "paston_tiny_probe": lambda cache: tiny_probe_table(cache, "paston_tiny"),
    "probes": probes_table,
    "iterate": iterate_table,
    "iterate_paston": iterate_paston_table,
    "tri_palki_expert_speed": expert_speed_table,
    "tri_palki_expert_learned_speed": lambda cache: expert_speed_table(cache, EXPERT_LEARNED_SPEED),
    "tri_palki_iterated_speed": lambda cache: expert_speed_table(cache, ITERATED_SPEED),
    "paston_expert_speed": lambda cache: expert_speed_table(cache, PASTON_EXPERT_SPEED, 3),
    "tri_palki_reconstruction_speed": reconstruction_speed_table,
    "tri_palki_expert_speed_0_13": lambda cache: expert_speed_table(cache, EXPERT_SPEED_0_13),
    "tri_palki_iterated_speed_0_13": lambda cache: expert_speed_table(cache, ITERATED_SPEED_0_13),
    "tri_palki_compact_speed": lambda cache: expert_speed_table(cache, COMPACT_SPEED),
    "tri_palki_shipped_speed_3p": lambda cache: expert_speed_table(cache, SHIPPED_SPEED_3P),
    "tri_palki_rules_speed": lambda cache: expert_speed_table(cache, RULES_SPEED),
    "tri_palki_weights_speed": lambda cache: expert_speed_table(cache, WEIGHTS_SPEED),
    "tri_palki_expert_speed_0_14": lambda cache: expert_speed_table(cache, EXPERT_SPEED_0_14),
}


def process_tables(text: str, cache: dict[str, Any]) -> tuple[str, list[str]]:
    """The page's text with every generated table rewritten, and the stale or unknown ones."""
    problems: list[str] = []

    def replace(match: re.Match[str]) -> str:
        start, name, shown, end = match.groups()
        if name not in TABLES:
            problems.append(f"unknown table {name!r} (tables: {', '.join(TABLES)})")
            return match.group(0)
        key = f"table:{name}"
        if key not in cache:
            cache[key] = TABLES[name](cache)
        if cache[key] != shown:
            problems.append(f"table {name!r} is not what its sources give (--write rewrites it)")
        return f"{start}{cache[key]}{end}"

    new = BLOCK.sub(replace, text)
    if text.count("<!--table:") != len(BLOCK.findall(text)):
        problems.append("a table marker not of the form <!--table:NAME-->\\n…<!--/table-->")
    return new, problems


def agents_page_problems() -> list[str]:
    """Whether ``docs/agents.md`` is what its stored results give (``folkcards agents-page
    --from-results`` rewrites it)."""
    from folkcards.evaluate.pages.agents import load_results, render
    from folkcards.evaluate.pages.exploit_runs import read_exploits

    page = ROOT / "docs" / "agents.md"
    data = load_results(ROOT / AGENTS_RESULTS)
    exploits = read_exploits(ROOT / EXPLOIT_DIR)
    if render(data, exploits, Path("docs/agents.md")) != page.read_text():
        return [
            "docs/agents.md: not what its stored results give (folkcards agents-page --from-results)"
        ]
    return []


def _run(source: Source) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "folkcards", *source.command, "--out", out, "--no-progress"]
        subprocess.run([*cmd, "--no-plot"], check=True, cwd=ROOT, capture_output=True)
        return json.loads(Path(out, "results.json").read_text())


def load(name: str, run: bool, cache: dict[str, Any]) -> dict[str, Any] | None:
    """The results of source ``name``; ``None`` for a command source when not running."""
    if name not in cache:
        source = SOURCES[name]
        if source.kind == "gauntlet":
            from folkcards.evaluate.benchmarks.gauntlet import shipped_rows

            cache[name] = {
                "gauntlet_rows": [
                    r
                    for r in shipped_rows()
                    if (r["game"], r["num_players"]) == (source.game, source.players)
                ]
            }
        elif source.stored is not None:
            cache[name] = json.loads((ROOT / source.stored).read_text())
        elif run:
            cache[name] = _run(source)
        else:
            cache[name] = None
    return cache[name]


def process(text: str, run: bool, cache: dict[str, Any]) -> tuple[str, list[str]]:
    """The page's text with every marked figure regenerated, and the problems found."""
    problems: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name, row, part, shown = (
            match.group(1),
            match.group(2),
            match.group(3) or "both",
            match.group(4),
        )
        if name not in SOURCES:
            problems.append(f"unknown figure source {name!r}")
            return match.group(0)
        results = load(name, run, cache)
        if results is None:
            return match.group(0)
        try:
            fresh = source_figure(name, results, row, part)
        except KeyError as error:
            problems.append(f"{name}: {error.args[0]}")
            return match.group(0)
        if fresh != shown:
            problems.append(f"{name}/{row}: the page says {shown!r}, the results give {fresh!r}")
        return match.group(0).replace(f"-->{shown}<!--", f"-->{fresh}<!--")

    new = MARKER.sub(replace, text)
    malformed = text.count("<!--fig:") - len(MARKER.findall(text))
    if malformed:
        problems.append(
            f"{malformed} figure marker(s) not of the form <!--fig:NAME/ROW-->…<!--/fig-->"
        )
    return new, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="report stale figures (exit 1)")
    mode.add_argument("--write", action="store_true", help="rewrite the figures in the pages")
    parser.add_argument("--run", action="store_true", help="also rerun the command sources")
    args = parser.parse_args(argv)
    cache: dict[str, Any] = {}
    failed = False
    for problem in agents_page_problems():
        print(problem, file=sys.stderr)
        failed |= args.check
    for page in pages():
        text = page.read_text()
        if "<!--fig:" not in text and "<!--table:" not in text:
            continue
        new, problems = process(text, args.run, cache)
        new, more = process_tables(new, cache)
        problems += more
        where = page.relative_to(ROOT)
        for problem in problems:
            print(f"{where}: {problem}", file=sys.stderr)
        failed |= bool(problems) and args.check
        if args.write and new != text:
            page.write_text(new)
            print(f"rewrote the figures of {where}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
