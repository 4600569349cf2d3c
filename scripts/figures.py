"""The result figures quoted in the documentation, regenerated from runs and checked.

A figure in a page stands between markers that name where it comes from::

    <!--fig:paston_config/heuristic-->+22.62 [+20.84, +24.41]<!--/fig-->

``NAME/ROW[:part]``: the source ``NAME`` (a tournament: stored ``results.json`` committed with the
docs, or a command run afresh), ``ROW`` an agent's name or ``A-B`` (the head-to-head difference A − B
paired by deal), ``part`` one of ``both`` (default: ``+1.23 [+0.45, +2.01]``), ``mean`` or ``ci``.

    python scripts/figures.py --check           # stored sources only (seconds): every marked figure
    python scripts/figures.py --check --run     # also rerun the commands (minutes)
    python scripts/figures.py --write --run     # rewrite every marked figure from fresh runs

A stale figure, an unknown source or row, or a malformed marker is one line each and exit code 1.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "docs").rglob("*.md")
MARKER = re.compile(r"<!--fig:([\w.-]+)/([^>]+?)(?::(both|mean|ci))?-->(.*?)<!--/fig-->", re.S)


@dataclass(frozen=True)
class Source:
    """Where a tournament's results come from: a committed ``results.json`` or a command."""

    stored: str | None = None  # results.json path, relative to the repository
    command: tuple[str, ...] = ()  # folkcards arguments; ``--out`` is added
    digits: int = 2


SOURCES: dict[str, Source] = {
    # configs/tournament/paston.yaml, 300 deals x 6 seatings (about a minute on 2 cores)
    "paston_config": Source(
        command=("tournament", "--config", "configs/tournament/paston.yaml", "--bootstrap", "0")
    ),
    "paston_rllib": Source(stored="docs/tournaments/paston_rllib/results.json"),
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
    "tri_palki_pimc": Source(stored="docs/tournaments/tri_palki_pimc/results.json", digits=3),
    "tri_palki_pimc_4p": Source(stored="docs/tournaments/tri_palki_pimc_4p/results.json", digits=3),
    **{
        f"tri_palki_expert_{n}p": Source(
            stored=f"docs/tournaments/tri_palki_expert_{n}p/results.json", digits=3
        )
        for n in (3, 4, 6)
    },
    # exact NashConv on Tri Palki tiny (python benchmarks/tri_palki_tiny_exact.py)
    "tri_palki_tiny_exact": Source(stored="docs/results/tri_palki_tiny_exact.json", digits=3),
    "tri_palki_tiny_probe": Source(stored="docs/results/tri_palki_tiny_probe.json", digits=3),
    # the bidding benchmark's rows (folkcards bidding evaluate --agent SPEC --json FILE)
    **{
        f"bidding_{name}": Source(stored=f"docs/bidding_benchmark/{name}.json")
        for name in ("heuristic", "random", "pimc", "ppo_paston", "ppo", "ppo_training_deals")
    },
}


def _signed(value: float, digits: int) -> str:
    text = f"{value:+.{digits}f}"
    return text.replace("-", "−")


def exact_figure(results: dict[str, Any], row: str, digits: int) -> str:
    """A figure of an exact result (``benchmarks/tri_palki_tiny_exact.py``, ``_probe.py``):
    ``AGENT`` its NashConv, ``AGENT.FIELD`` another field of its row (``exploitability``,
    ``fraction`` …), or a count (``histories``, ``information_states``); ``AGENT`` is the first
    word of the row's agent. Values have ``digits`` significant digits."""
    if row in ("histories", "information_states"):
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
        low, high = _signed(gain - half, digits), _signed(gain + half, digits)
        return {"mean": _signed(gain, digits), "ci": f"[{low}, {high}]"}.get(
            part, f"{_signed(gain, digits)} [{low}, {high}]"
        )
    agents = {a["name"]: (a["mean"], a["ci_low"], a["ci_high"]) for a in results["agents"]}
    pairs = {
        f"{h['a']}-{h['b']}": (h["mean_diff"], h["ci_low"], h["ci_high"])
        for h in results["head_to_head"]
    }
    if row in agents:
        mean, low, high = agents[row]
    elif row in pairs:
        mean, low, high = pairs[row]
    else:
        raise KeyError(f"no agent or pair {row!r} (agents: {', '.join(agents)})")
    ci = f"[{_signed(low, digits)}, {_signed(high, digits)}]"
    return {"mean": _signed(mean, digits), "ci": ci, "both": f"{_signed(mean, digits)} {ci}"}[part]


def _run(source: Source) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "folkcards", *source.command, "--out", out, "--no-progress"]
        subprocess.run([*cmd, "--no-plot"], check=True, cwd=ROOT, capture_output=True)
        return json.loads(Path(out, "results.json").read_text())


def load(name: str, run: bool, cache: dict[str, Any]) -> dict[str, Any] | None:
    """The results of source ``name``; ``None`` for a command source when not running."""
    if name not in cache:
        source = SOURCES[name]
        if source.stored is not None:
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
            fresh = figure(results, row, part, SOURCES[name].digits)
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
    for page in sorted(PAGES):
        text = page.read_text()
        if "<!--fig:" not in text:
            continue
        new, problems = process(text, args.run, cache)
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
