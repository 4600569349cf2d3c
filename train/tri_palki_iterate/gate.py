"""Step 3, gate: a duplicate match of the new generation's search against its teacher's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...agents.tri_palki_search import EXPERT_PARAMS_0_4
from ..iterate_common import paired_difference
from .config import GateSettings, IterateConfig
from .layout import (
    GATE_STEP,
    REPORT_STEP,
    gen_dir,
    net_folder,
    passed_generations,
    step_seed,
    write_json,
)

TIE = 1e-9  # sticks per round: differences smaller than this are rounding, not a gain
GATE_SEATING = "mirrored"  # the rotations in both directions: neither search acts always
# right after the other (with one direction, the one listed first would)


def search_spec(config: IterateConfig, folder: str | None) -> str:
    """The ``iterated`` spec of a generation's search."""
    s = config.search
    spec = f"iterated:samples={s.samples},infer={s.infer},horizon={s.horizon}"
    if s.endgame_samples != EXPERT_PARAMS_0_4.endgame_samples:
        spec += f",endgame_samples={s.endgame_samples}"
    if s.infer_epsilon != EXPERT_PARAMS_0_4.infer_epsilon:
        spec += f",infer_epsilon={s.infer_epsilon:g}"
    if folder is not None:
        spec += f",net={folder},top_k={s.top_k},cutoff={s.cutoff}"
        if s.others != "net":
            spec += f",others={s.others}"
    return spec


def heuristic_seats(count: int, taken: set[str]) -> list[dict[str, str]]:
    """``count`` heuristic seats named as the tournament names repeats (``heuristic``,
    ``heuristic#2``, ...), skipping the names in ``taken``."""
    names = ("heuristic" if k == 1 else f"heuristic#{k}" for k in range(1, count + len(taken) + 2))
    free = [name for name in names if name not in taken]
    return [{"name": name, "spec": "heuristic"} for name in free[:count]]


def gate_table(num_players: int, new: dict[str, str], old: dict[str, str]) -> list[dict[str, str]]:
    """The gate's seats: the new generation first, its teacher half the table away and the
    heuristic in every other seat (at 3 players: new, teacher, heuristic)."""
    table = heuristic_seats(num_players - 2, {new["name"], old["name"]})
    table.insert(0, new)
    table.insert(num_players // 2, old)
    return table


def _tournament(
    config: IterateConfig, agents: list[dict[str, str]], rounds: int, seed: int, out: Path,
    show_progress: bool, log: Any,
) -> dict[str, Any]:  # fmt: skip
    from ...evaluate.config import resolve
    from ...evaluate.running.runner import run

    tconfig = resolve(
        {
            "game": "tri_palki",
            "rounds": rounds,
            "seed": seed,
            "agents": agents,
            "num_players": config.gate.num_players,
            "workers": config.gate.workers,
            "out": str(out),
            "seating": GATE_SEATING,
            "open_hand": False,
        }  # fmt: skip
    )
    return run(
        tconfig, progress=True, log=log, bootstrap=0, log_every=60 if not show_progress else 10
    )


def _pair(results: dict[str, Any], a: str, b: str) -> dict[str, Any] | None:
    """``a``'s sticks per round minus ``b``'s, with the paired 95% interval."""
    return paired_difference(results, a, b, "rounds")


def passes(versus: dict[str, Any], settings: GateSettings) -> bool:
    """Whether a new generation's sticks per round minus its teacher's (``versus``: mean and
    interval) passes the gate: below ``-margin`` (the interval's upper end too with
    ``require_interval``); a tie, up to rounding, does not pass."""
    bar = -settings.margin - TIE
    return versus["mean_diff"] < bar and (
        not settings.require_interval or (versus["ci_high"] is not None and versus["ci_high"] < bar)
    )


def gate(
    config: IterateConfig, run_dir: Path, g: int, log: Any, show_progress: bool
) -> dict[str, Any]:
    """Generation ``g``'s duplicate match against its teacher (and the report against
    ``expert``); ``gate/gate.json``."""
    folder = gen_dir(run_dir, g) / "gate"
    folder.mkdir(parents=True, exist_ok=True)
    teacher = passed_generations(run_dir, g)[-1]
    new, old = f"gen{g}", f"gen{teacher}"
    agents = gate_table(
        config.gate.num_players,
        {"name": new, "spec": search_spec(config, net_folder(run_dir, g))},
        {"name": old, "spec": search_spec(config, net_folder(run_dir, teacher))},
    )
    gate_seed = step_seed(config, g, GATE_STEP) % 2**31
    log(f"generation {g}: gate, {config.gate.rounds} rounds against generation {teacher}")
    results = _tournament(
        config, agents, config.gate.rounds, gate_seed, folder / "match", show_progress, log
    )
    versus = _pair(results, new, old)
    assert versus is not None
    accepted = passes(versus, config.gate)
    times = results.get("decision_times", {})
    summary: dict[str, Any] = {
        "generation": g,
        "teacher": teacher,
        "accepted": bool(accepted),
        "vs_teacher": versus,
        "vs_heuristic": _pair(results, new, "heuristic"),
        "teacher_vs_heuristic": _pair(results, old, "heuristic"),
        "seed": gate_seed,
        "num_players": config.gate.num_players,
        "median_decision_seconds": {k: v.get("median") for k, v in times.items()},
        "command": _command(config, agents, config.gate.rounds, gate_seed, folder / "match"),
    }
    if config.gate.report_rounds:
        report_agents = [agents[0]] + [{"name": s, "spec": s} for s in config.gate.report_against]
        report_agents += heuristic_seats(  # the other seats, when the table has more
            config.gate.num_players - len(report_agents), {a["name"] for a in report_agents}
        )
        report_seed = step_seed(config, g, REPORT_STEP) % 2**31
        report = _tournament(
            config, report_agents, config.gate.report_rounds, report_seed, folder / "report",
            show_progress, log,
        )  # fmt: skip
        summary["report"] = {s: _pair(report, new, s) for s in config.gate.report_against}
        summary["report_command"] = _command(
            config, report_agents, config.gate.report_rounds, report_seed, folder / "report"
        )
        summary["report_median_decision_seconds"] = {
            k: v.get("median") for k, v in report.get("decision_times", {}).items()
        }
    write_json(folder / "gate.json", summary)
    return summary


def _command(
    config: IterateConfig, agents: list[dict[str, str]], rounds: int, seed: int, out: Path
) -> str:
    specs = " ".join(f"'{a['spec']}'" for a in agents)
    return (
        f"folkcards tournament --game tri_palki --num-players {config.gate.num_players} "
        f"--agents {specs} --seating {GATE_SEATING} --rounds {rounds} --seed {seed} --out {out}"
    )
