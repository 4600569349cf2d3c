"""Tournament output: rich tables in the terminal, CSV and JSON files, the PNG plot."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from folkcards.envs.registry import game_spec

from .config import TournamentConfig
from .storage import Store


def _fmt(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "—"
    x = round(x, digits) + 0.0  # no "-0.00"
    return f"{x:+.{digits}f}" if x else f"{0:.{digits}f}"


def _fmt_plain(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{round(x, digits) + 0.0:.{digits}f}"


def _agents_table(results: dict[str, Any]) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    cfg = results["config"]
    unit, units = results["unit"], results["unit_plural"]
    match_mode = any("win_rate" in a for a in results["agents"])
    digits = 2 if results["higher_is_better"] else 3
    seatings = results["units_stored"] // max(1, results["deals_complete"])
    title = (
        f"{cfg['game']} — {results['deals_complete']} {units} x {seatings} "
        f"seatings, seed {cfg['seed']}: mean {results['metric']} "
        f"({'higher' if results['higher_is_better'] else 'lower'} is better), 95% CI paired by {unit}"
    )
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    fmt = _fmt if results["higher_is_better"] else _fmt_plain  # sticks are never negative
    # the spec column only when a name does not already say it (random, random#2, ...)
    show_spec = any(a["name"].split("#")[0] != a["spec"] for a in results["agents"])
    columns = ["#", "agent"] + (["spec"] if show_spec else []) + [units, "mean", "95% CI"]
    if match_mode:
        columns += ["wins", "win rate", "Wilson 95%"]
    columns += ["openskill μ ± σ", "ordinal"]
    for column in columns:
        left = column in ("agent", "spec")
        table.add_column(column, justify="left" if left else "right", no_wrap=column != "#")
    for a in results["agents"]:
        row = [str(a["rank"]), escape(a["name"])] + ([escape(a["spec"])] if show_spec else [])
        row += [
            str(a["deals"]),
            fmt(a["mean"], digits),
            f"[{fmt(a['ci_low'], digits)}, {fmt(a['ci_high'], digits)}]",
        ]
        if match_mode:
            row += [
                f"{a.get('wins', 0)}/{a['units']}",
                _fmt_plain(a.get("win_rate"), 3),
                f"[{_fmt_plain(a.get('win_low'), 3)}, {_fmt_plain(a.get('win_high'), 3)}]",
            ]
        row += [f"{a['mu']:.2f} ± {a['sigma']:.2f}", f"{a['ordinal']:.2f}"]
        table.add_row(*row)
    return table


def _verdict(pair: dict[str, Any], higher_is_better: bool) -> str:
    """Which of A and B the interval of A − B favours, if any."""
    low, high = pair["ci_low"], pair["ci_high"]
    if low is None or high is None:
        return ""
    a_better = (low > 0) if higher_is_better else (high < 0)
    b_better = (high < 0) if higher_is_better else (low > 0)
    if a_better:
        return f"{pair['a']} better"
    return f"{pair['b']} better" if b_better else "no clear difference"


def _head_to_head_table(results: dict[str, Any]) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    digits = 2 if results["higher_is_better"] else 3
    h2h = Table(
        title=f"head to head: mean paired difference A − B of {results['metric']} at shared tables",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    h2h.add_column("A", no_wrap=True)
    h2h.add_column("B", no_wrap=True)
    h2h.add_column(results["unit_plural"], justify="right")
    h2h.add_column("A − B", justify="right")
    h2h.add_column("95% CI", justify="right", no_wrap=True)
    h2h.add_column("", justify="left")
    for pair in results["head_to_head"]:
        h2h.add_row(
            escape(pair["a"]),
            escape(pair["b"]),
            str(pair["deals"]),
            _fmt(pair["mean_diff"], digits),
            f"[{_fmt(pair['ci_low'], digits)}, {_fmt(pair['ci_high'], digits)}]",
            escape(_verdict(pair, results["higher_is_better"])),
        )
    return h2h


def format_stat(row: dict[str, Any], interval: bool = True) -> str:
    """A behaviour statistic as text: ``42.0% [38.1, 46.0]`` (a rate) or ``5.31 [5.02, 5.60]``."""
    value = row.get("value")
    if value is None:
        return "—"
    rate = row.get("kind") == "rate"
    scale, digits = (100.0, 1) if rate else (1.0, 2)
    text = f"{round(value * scale, digits) + 0.0:.{digits}f}" + ("%" if rate else "")
    low, high = row.get("ci_low"), row.get("ci_high")
    if interval and low is not None and high is not None:
        text += f" [{round(low * scale, digits) + 0.0:.{digits}f}, {round(high * scale, digits) + 0.0:.{digits}f}]"
    return text


def behaviour_rows(results: dict[str, Any]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """``(metric key, label, one row per agent)`` in report order, skipping statistics no agent
    had the occasion for (``n`` = 0 everywhere)."""
    behaviour = results.get("behaviour") or {}
    names = [a["name"] for a in results["agents"]]
    if not behaviour or not names:
        return []
    first = behaviour[names[0]]
    out = []
    for key, row in first.items():
        rows = [behaviour[name][key] for name in names]
        if any(r["n"] for r in rows):
            out.append((key, row["label"], rows))
    return out


def _behaviour_table(results: dict[str, Any]) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    names = [a["name"] for a in results["agents"]]
    intervals = any(
        r.get("ci_low") is not None for _, _, rows in behaviour_rows(results) for r in rows
    )
    table = Table(
        title="behaviour (counted from the stored records"
        + (f"; 95% bootstrap interval over {results['unit_plural']})" if intervals else ")"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("statistic", no_wrap=True)
    for name in names:
        table.add_column(escape(name), justify="right", no_wrap=True)
    for _, label, rows in behaviour_rows(results):
        table.add_row(escape(label), *[format_stat(r) for r in rows])
    return table


def format_seconds(x: float | None) -> str:
    """Seconds as ``12.3 µs`` / ``4.56 ms`` / ``1.23 s``; ``not recorded`` for ``None``."""
    if x is None:
        return "not recorded"
    if x < 1e-3:
        return f"{x * 1e6:.1f} µs"
    if x < 1.0:
        return f"{x * 1e3:.2f} ms"
    return f"{x:.2f} s"


def _timing_table(results: dict[str, Any]) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title="decision time per agent (seconds of act(), measured as the tournament ran)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for column in ("agent", "decisions", "median", "95th percentile", "mean", "episodes timed"):
        table.add_column(column, justify="left" if column == "agent" else "right", no_wrap=True)
    for name, t in (results.get("decision_times") or {}).items():
        table.add_row(
            escape(name),
            str(t["decisions"]),
            format_seconds(t["median"]),
            format_seconds(t["p95"]),
            format_seconds(t["mean"]),
            f"{t['units_recorded']}/{t['units']}",
        )
    return table


def _seat_table(results: dict[str, Any]) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    effects = results.get("seat_effects") or {}
    names = [a["name"] for a in results["agents"] if a["name"] in effects]
    game = results["config"]["game"]
    what = game_spec(game).modes[0].metric  # "table score per deal", "sticks per round"
    table = Table(
        title=f"seat effects: mean {what} by position relative to the dealer, 95% t interval",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("position", no_wrap=True)
    for name in names:
        table.add_column(escape(name), justify="right", no_wrap=True)
    digits = 2 if results["higher_is_better"] else 3
    positions = [r["position"] for r in effects[names[0]]] if names else []
    for p, position in enumerate(positions):
        cells = []
        for name in names:
            r = effects[name][p]
            cells.append(
                "—"
                if r["mean"] is None
                else f"{_fmt_plain(r['mean'], digits)} [{_fmt_plain(r['ci_low'], digits)}, "
                f"{_fmt_plain(r['ci_high'], digits)}]"
            )
        table.add_row(escape(position), *cells)
    return table


def tables(results: dict[str, Any]) -> list[Any]:
    """The report as rich renderables: agents, head to head, behaviour, seat effects, decision
    times (the last three when the results hold them), method notes."""
    from rich.text import Text

    lines = [f"{k}: {v}" for k, v in results["method"].items()]
    if results.get("truncated_units"):
        lines.append(
            f"note: {results['truncated_units']} of {results['units_stored']} episodes were "
            "truncated (max_turns / max_deals) and score as the env left them (no sticks, no winner)"
        )
    notes = Text("\n".join(lines), style="dim")
    out = [_agents_table(results), _head_to_head_table(results)]
    if results.get("behaviour"):
        out.append(_behaviour_table(results))
    if results.get("seat_effects"):
        out.append(_seat_table(results))
    if results.get("decision_times"):
        out.append(_timing_table(results))
    return [*out, notes]


def print_report(results: dict[str, Any], console: Any = None) -> None:
    from rich.console import Console

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=150)
    for item in tables(results):
        console.print(item)
        console.print()


def export(results: dict[str, Any], config: TournamentConfig, plot: bool = True) -> list[Path]:
    """Write ``results.json``, ``agents.csv``, ``head_to_head.csv``, ``episodes.csv`` (one row per
    seat of every stored episode), the behaviour CSVs (:func:`export_behaviour`) and the plots
    ``scores.png``, ``behaviour.png``, ``seat_effects.png`` to ``out``."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    path = out / "results.json"
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths.append(path)

    path = out / "agents.csv"
    cols = [
        "rank",
        "name",
        "spec",
        "deals",
        "units",
        "mean",
        "ci_low",
        "ci_high",
        "half_width",
        "sd",
    ]
    if any("win_rate" in a for a in results["agents"]):
        cols += ["wins", "win_rate", "win_low", "win_high"]
    cols += ["mu", "sigma", "ordinal"]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        writer.writeheader()
        for a in results["agents"]:
            writer.writerow(a)
    paths.append(path)

    path = out / "head_to_head.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["a", "b", "deals", "mean_diff", "ci_low", "ci_high"])
        writer.writeheader()
        for pair in results["head_to_head"]:
            writer.writerow(pair)
    paths.append(path)

    path = out / "episodes.csv"
    with Store(config.db_path) as store, path.open("w", newline="", encoding="utf-8") as f:
        rows_out = csv.writer(f)
        rows_out.writerow(
            ["deal", "lineup", "seating", "seat", "agent", "spec", "score", "win", "agent_seed"]
        )
        rows = store.conn.execute(
            "SELECT deal, lineup, seating, seat, agent, spec, score, win, agent_seed FROM unit_seats "
            "WHERE tournament_id = ? ORDER BY deal, lineup, seating, seat",
            (store.tournament_id,),
        )
        rows_out.writerows(rows)
    paths.append(path)

    paths += export_behaviour(results, out)
    if plot:
        from .plot import plot_behaviour, plot_scores, plot_seat_effects

        paths.append(plot_scores(results, out / "scores.png"))
        if results.get("behaviour"):
            paths.append(plot_behaviour(results, out / "behaviour.png"))
        if results.get("seat_effects"):
            paths.append(plot_seat_effects(results, out / "seat_effects.png"))
    return paths


def export_behaviour(results: dict[str, Any], out: Path) -> list[Path]:
    """Write ``behaviour.csv`` (one row per agent and statistic), ``seat_effects.csv`` and
    ``decision_times.csv`` when the results hold them."""
    paths = []
    if results.get("behaviour"):
        path = out / "behaviour.csv"
        cols = ["agent", "statistic", "label", "kind", "value", "n", "ci_low", "ci_high"]
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(cols)
            for agent, stats in results["behaviour"].items():
                for key, row in stats.items():
                    writer.writerow([agent, key, *(row[c] for c in cols[2:])])
        paths.append(path)
    if results.get("seat_effects"):
        path = out / "seat_effects.csv"
        cols = ["position", "n", "deals", "mean", "ci_low", "ci_high"]
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["agent", *cols])
            for agent, rows in results["seat_effects"].items():
                for row in rows:
                    writer.writerow([agent, *(row[c] for c in cols)])
        paths.append(path)
    if results.get("decision_times"):
        path = out / "decision_times.csv"
        cols = ["decisions", "median", "p95", "mean", "units_recorded", "units"]
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(
                ["agent", *(f"{c}_seconds" if c in ("median", "p95", "mean") else c for c in cols)]
            )
            for agent, row in results["decision_times"].items():
                writer.writerow([agent, *(row[c] for c in cols)])
        paths.append(path)
    return paths
