"""The exploitability table: both best-response probes against every shipped agent of every game.

Reads the stored ``folkcards exploit`` records (one directory each with ``final.json``): the
trained probe's under ``docs/exploit/``, the search probe's under ``docs/exploit/search/``. One
row per shipped agent (``GameSpec.agents``), and the gauntlet pool's independent baseline
(``montecarlo``, written apart from the heuristics) where the game has it, and table size
(Tri Palki at 3, 4 and 6 players),
one column group per probe: the gain with its 95% interval paired by deal, the verdict, the
budget, and a link to the record. Where a cell has several records of the same agent, the one
with the largest budget is shown (the trained probe's steps, then its deals; the search probe's
deals times worlds), and of equal budgets the latest finished. Agents measured under another spec (a planted hole, an earlier default)
are not shipped agents and stay in the probes' own tables.

``scripts/figures.py`` writes the table between ``<!--table:probes-->`` markers
(``python scripts/figures.py --write``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ...envs.registry import GAMES, game_spec
from ..formatting import md_table, num
from .exploit_runs import Exploit, read_exploits, same_agent

EXPLOIT_DIR = Path("docs/exploit")
SEARCH_DIR = EXPLOIT_DIR / "search"
PAGE = EXPLOIT_DIR / "README.md"
TABLE_SIZES = (3, 4, 6)  # the table sizes published for a game that has several
# what each agent kind is, for the table's summary line (kinds, not games)
FAMILY = {"random": "baseline", "heuristic": "rules", "ppo": "learned", "rllib": "learned",
          "distilled": "learned", "pimc": "search", "expert": "search",
          "montecarlo": "search"}  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class ProbeRecord(Exploit):
    """One stored probe measurement, with what the table shows of its budget."""

    budget: str
    size: tuple[int, int]  # what "the largest budget" compares
    itself: str | None  # why the probe played exactly as the agent (gain 0), if it did

    @property
    def low(self) -> float:
        return self.gain - self.ci95

    @property
    def high(self) -> float:
        return self.gain + self.ci95

    @property
    def found(self) -> bool:
        """Whether the gain's 95% interval lies above 0."""
        return self.deals > 1 and self.low > 0


def _budget(data: dict[str, Any], folder: Path, deals: int) -> tuple[str, tuple[int, int]]:
    if data.get("method") == "search":
        p = data["search"]
        rollouts = f"`{p['rollout']}` rollouts" if p.get("rollout") else "the agent's rollouts"
        n = int(p.get("decisions") or 0)
        searched = f"the first {n} decision{'s' if n > 1 else ''}" if n else "every decision"
        weights = (
            f"{p['worlds']} of {p['candidates']} worlds"
            if p.get("weighting", True)
            else (f"{p['worlds']} unweighted worlds")
        )
        text = (
            f"{deals:,} deals; {weights}, {searched} of each seat searched, "
            f"{rollouts}, z {p['z']:g}"
        )
        return text, (deals * int(p["worlds"]), deals)
    steps = int(data.get("steps") or 0)
    selected = data.get("selected_step")
    learner = f", learner of step {int(selected):,}" if selected is not None else ""
    return f"{steps:,} steps, {deals:,} final deals{learner}", (steps, deals)


def _itself(data: dict[str, Any], folder: Path) -> str | None:
    """Why the measured probe was the agent itself (its gain exactly 0), or None."""
    if data.get("method") == "search":
        stats = json.loads((folder / "search.json").read_text())
        if stats["deviations"] == 0:
            return f"no deviation in {stats['searched']:,} searched decisions"
        return None
    if data.get("selected_step") == 0 and float(data["measurement"]["gain"]) == 0.0:
        return "the learner kept its start, the agent"
    return None


def read_records(folder: str | os.PathLike[str], method: str) -> list[ProbeRecord]:
    """The records of ``method`` ("train" or "search") directly under ``folder``."""
    found = []
    for run in read_exploits(Path(folder)):
        if run.method != method:
            continue
        try:
            budget, size = _budget(run.record, run.folder, run.deals)
            itself = _itself(run.record, run.folder)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(
                f"{run.folder / 'final.json'}: not a folkcards exploit measurement ({exc})"
            ) from None
        shared = {f.name: getattr(run, f.name) for f in fields(Exploit)}
        found.append(ProbeRecord(**shared, budget=budget, size=size, itself=itself))
    return found


def shipped_rows() -> list[tuple[str, int, str]]:
    """``(game, players, agent spec)`` of every shipped agent, then the gauntlet pool's other
    references (the independent baseline), at every published table size."""
    from folkcards.agents import agent_kinds

    from ..benchmarks.gauntlet import pool

    kinds = set(agent_kinds())
    rows = []
    for spec in GAMES.values():
        if spec.base_game is not None:
            continue
        sizes = (
            (spec.min_players,)
            if spec.fixed_players
            else tuple(n for n in TABLE_SIZES if spec.min_players <= n <= spec.max_players)
        )
        shipped = [*spec.agents, *(r for r in pool(spec.name) if r not in spec.agents)]
        agents = [a for a in shipped if a.partition(":")[0] in kinds]
        rows += [(spec.name, n, agent) for n in sizes for agent in agents]
    return rows


def best_record(
    records: list[ProbeRecord], game: str, players: int, agent: str
) -> ProbeRecord | None:
    """The record of the cell with the largest budget (then the latest finished: an agent that
    changed with a version is shown as it plays now; then the directory name)."""
    mine = [
        r
        for r in records
        if r.game == game and r.num_players == players and same_agent(r.agent, agent, game)
    ]
    return max(mine, key=lambda r: (r.size, r.finished or "", r.folder.name)) if mine else None


def _digits(game: str) -> int:
    return 2 if game_spec(game).higher_is_better else 3


def _cell(record: ProbeRecord | None, page: Path) -> tuple[str, str]:
    if record is None:
        return "not measured", "—"
    d = _digits(record.game)
    link = Path(os.path.relpath(record.folder / "exploit.md", page.parent)).as_posix()
    text = f"{num(record.gain, d, True)} [{num(record.low, d, True)}, {num(record.high, d, True)}]"
    if record.deals < 2:
        text = num(record.gain, d, True)
    if record.itself:
        text = f"0 ({record.itself})"
    verdict = "**found**" if record.found else "none found"
    return f"[{text}]({link}) {verdict}", record.budget


def probe_table(
    trained: str | os.PathLike[str] = EXPLOIT_DIR,
    search: str | os.PathLike[str] = SEARCH_DIR,
    page: str | os.PathLike[str] = PAGE,
) -> str:
    """The Markdown table, its summary of what was found, and the records' commands."""
    page = Path(page)
    records = {"train": read_records(trained, "train"), "search": read_records(search, "search")}
    rows, shown = [], []
    for game, players, agent in shipped_rows():
        spec = game_spec(game)
        family = FAMILY.get(agent.partition(":")[0])
        cells = [spec.title, str(players), f"`{agent}`" + (f" ({family})" if family else "")]
        for method in ("train", "search"):
            record = best_record(records[method], game, players, agent)
            cells += _cell(record, page)
            if record is not None:
                shown.append((agent, record))
        rows.append(cells)
    header = [
        "game", "players", "agent",
        "trained probe: gain [95%]", "trained probe: budget",
        "search probe: gain [95%]", "search probe: budget",
    ]  # fmt: skip
    lines = md_table(header, rows, right=99)
    units = sorted({f"{game_spec(r.game).title}: {r.unit}" for _, r in shown})
    lines += ["", f"Units: {'; '.join(units)} (probe minus agent, same seat, same deal)."]
    lines += ["", _summary(shown), "", "Commands of the records shown:", ""]
    for _, r in sorted(shown, key=lambda x: (x[1].method, x[1].folder.name)):
        lines.append(f"- `{r.folder.name}` ({r.method}): `{r.command or 'not stored'}`")
    return "\n".join(lines) + "\n"


_METHOD = {"train": "trained", "search": "search"}


def _where(agent: str, r: ProbeRecord) -> str:
    return (
        f"`{agent}` ({game_spec(r.game).title}, {r.num_players} players, {_METHOD[r.method]} probe"
    )


def _summary(shown: list[tuple[str, ProbeRecord]]) -> str:
    """Per family of agents: the separated gains, the upper ends of the intervals where none was
    found, and the probes that played as the agent throughout."""
    lines = ["What was found, by kind of agent:", ""]
    for family in ("learned", "search"):
        mine = [(a, r) for a, r in shown if FAMILY.get(a.partition(":")[0]) == family]
        found = [f"{_where(a, r)}: {num(r.gain, _digits(r.game), True)} "
                 f"[{num(r.low, _digits(r.game), True)}, {num(r.high, _digits(r.game), True)}])"
                 for a, r in mine if r.found]  # fmt: skip
        missed = [f"{_where(a, r)}: below {num(r.high, _digits(r.game), True)})"
                  for a, r in mine if not r.found and not r.itself]  # fmt: skip
        same = [f"{_where(a, r)}, {r.deals:,} deals)" for a, r in mine if r.itself]
        lines.append(
            f"- **{family} agents**, a gain whose interval lies above 0: "
            + ("; ".join(found) if found else "none at these budgets")
        )
        if missed:
            lines.append(
                "  - none found; the probe's own gain at most (upper end of its 95% interval): "
                + "; ".join(missed)
            )
        if same:
            lines.append(f"  - the probe played as the agent throughout: {'; '.join(same)}")
    return "\n".join(lines)


__all__ = ["ProbeRecord", "best_record", "probe_table", "read_records", "shipped_rows"]
