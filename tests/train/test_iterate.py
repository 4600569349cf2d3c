"""``folkcards iterate``: a tiny generation end to end, resumption, determinism, bad configs."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from folkcards.cli import main
from folkcards.errors import ConfigError

pytest.importorskip("torch")

from folkcards.train.tri_palki_iterate.config import IterateConfig, load_iterate_config  # noqa: E402
from folkcards.train.tri_palki_iterate.loop import run_iteration  # noqa: E402

TINY = Path(__file__).parents[2] / "configs" / "tri_palki" / "iterate_tiny.yaml"


def _tiny(run_dir: Path, generations: int = 1) -> IterateConfig:
    config = load_iterate_config(TINY, run_dir=str(run_dir), generations=generations)
    return config.model_copy(
        update={
            "collect": config.collect.model_copy(update={"rounds": 4, "chunk": 2}),
            "gate": config.gate.model_copy(update={"rounds": 1}),
        }
    )


def _mtimes(folder: Path) -> dict[str, int]:
    return {
        str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()
    }


def test_a_generation_writes_its_files_and_resumes_without_redoing_steps(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    summary = run_iteration(_tiny(run_dir), run_dir, log=lambda s: None, show_progress=False)
    gen = run_dir / "gen_001"
    for name in ("data/chunk_0000.npz", "data/chunk_0001.npz", "net/policy.npz", "net/value.npz",
                 "net/fit.json", "gate/gate.json"):  # fmt: skip
        assert (gen / name).is_file(), name
    assert (run_dir / "summary.json").is_file() and (run_dir / "curves.png").is_file()
    gate = summary["generations"][0]["gate"]
    assert gate["teacher"] == 0 and set(gate["vs_teacher"]) >= {"mean_diff", "ci_low", "ci_high"}
    assert "folkcards tournament" in gate["command"]

    # a finished generation is not touched again; the next one starts
    before = _mtimes(gen)
    run_iteration(_tiny(run_dir, generations=2), run_dir, log=lambda s: None, show_progress=False)
    assert _mtimes(gen) == before
    assert (run_dir / "gen_002" / "gate" / "gate.json").is_file()

    # an interrupted generation: the collected chunks are kept, the missing steps are done
    gen2 = run_dir / "gen_002"
    (gen2 / "gate" / "gate.json").unlink()
    (gen2 / "net" / "fit.json").unlink()
    (gen2 / "data" / "chunk_0001.npz").unlink()
    kept = (gen2 / "data" / "chunk_0000.npz").stat().st_mtime_ns
    lines: list[str] = []
    run_iteration(_tiny(run_dir, generations=2), run_dir, log=lines.append, show_progress=False)
    assert (gen2 / "data" / "chunk_0000.npz").stat().st_mtime_ns == kept
    assert (gen2 / "data" / "chunk_0001.npz").is_file() and (gen2 / "gate" / "gate.json").is_file()
    assert not any("generation 1" in line for line in lines)


def test_same_seed_same_generation_whatever_the_collecting_processes(tmp_path: Path) -> None:
    arrays = []
    for name, workers in (("a", 1), ("b", 2)):
        run_dir = tmp_path / name
        config = _tiny(run_dir)
        config = config.model_copy(
            update={"collect": config.collect.model_copy(update={"workers": workers})}
        )
        run_iteration(config, run_dir, log=lambda s: None, show_progress=False)
        # continuing with another number of processes is the same run
        again = config.model_copy(
            update={"collect": config.collect.model_copy(update={"workers": 3 - workers})}
        )
        run_iteration(again, run_dir, log=lambda s: None, show_progress=False)
        with np.load(run_dir / "gen_001" / "data" / "chunk_0001.npz") as data:
            chunk = {k: data[k] for k in data.files}
        with np.load(run_dir / "gen_001" / "net" / "policy.npz") as data:
            policy = {k: data[k] for k in data.files}
        arrays.append((chunk, policy))
    (chunk_a, policy_a), (chunk_b, policy_b) = arrays
    assert chunk_a["policy_y"].size and all(np.array_equal(chunk_a[k], chunk_b[k]) for k in chunk_a)
    assert all(np.array_equal(policy_a[k], policy_b[k]) for k in policy_a)


def test_another_config_in_the_same_run_dir_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_iteration(_tiny(run_dir), run_dir, log=lambda s: None, show_progress=False)
    other = _tiny(run_dir)
    other = other.model_copy(update={"seed": other.seed + 1})
    with pytest.raises(ValueError, match="another config"):
        run_iteration(other, run_dir, log=lambda s: None, show_progress=False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("game: tri_palki\nseed: 1\nbogus: 2\n", "unknown key 'bogus'"),
        ("game: tri_palki\ncollect: {table_sizes: [3, 12]}\n", "table sizes"),
        ("game: tri_palki_tiny\n", "tri_palki"),  # the variant has no loop
        ("game: tri_palki\nsearch: {samples: 0}\n", "search.samples"),
    ],
)
def test_a_bad_config_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_iterate_config(path)
    code = main(["iterate", "--config", str(path), "--run-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("folkcards iterate:")
    assert not (tmp_path / "run").exists() or not os.listdir(tmp_path / "run")


def test_soft_targets_follow_the_search_values_over_the_actions_it_rolled_out() -> None:
    from folkcards.train.tri_palki_iterate.fit import soft_targets

    values = np.full((2, 11), np.nan, dtype=np.float32)
    values[0, [0, 3]] = [-0.2, -0.1]  # minus sticks: action 3 is better
    targets = soft_targets(values, np.array([3, 7]), temperature=0.1)
    assert targets[0, 3] > targets[0, 0] > 0 and targets[0].sum() == pytest.approx(1.0)
    assert targets[0, 3] / targets[0, 0] == pytest.approx(np.exp(1.0), rel=1e-5)
    assert targets[1, 7] == 1.0  # nothing rolled out: the choice


def test_the_gate_needs_fewer_sticks_than_the_teacher_and_a_tie_does_not_pass() -> None:
    from folkcards.train.tri_palki_iterate.config import GateSettings
    from folkcards.train.tri_palki_iterate.gate import passes

    plain = GateSettings.model_validate({})
    strict = GateSettings.model_validate({"require_interval": True, "margin": 0.01})
    tie = {"mean_diff": -3.7e-19, "ci_low": -0.03, "ci_high": 0.03}  # a rounding error below 0
    better = {"mean_diff": -0.02, "ci_low": -0.05, "ci_high": 0.01}
    clearly = {"mean_diff": -0.04, "ci_low": -0.06, "ci_high": -0.02}
    assert not passes(tie, plain) and passes(better, plain) and passes(clearly, plain)
    assert not passes(better, strict) and passes(clearly, strict)
    assert not passes({"mean_diff": -0.04, "ci_low": None, "ci_high": None}, strict)


def test_a_child_run_continues_its_parents_generations_with_another_fit(tmp_path: Path) -> None:
    """``parent``: the parent's generations up to ``parent.generation`` are the child's first
    ones (read in place, never rewritten); the child's first own generation collects exactly as
    the parent's did (same seed, search and collection), so it takes the parent's chunks of that
    generation, and fits them its own way."""
    from folkcards.train.tri_palki_iterate.config import ParentSettings

    parent_dir = tmp_path / "parent"
    run_iteration(_tiny(parent_dir, generations=2), parent_dir, log=lambda s: None,
                  show_progress=False)  # fmt: skip
    before = _mtimes(parent_dir / "gen_001")
    base = _tiny(tmp_path / "child", generations=2)
    child = base.model_copy(
        update={
            "fit": base.fit.model_copy(update={"temperature": 0.05}),
            "parent": ParentSettings(run_dir=str(parent_dir), generation=1),
        }
    )
    child_dir = tmp_path / "child"
    lines: list[str] = []
    summary = run_iteration(child, child_dir, log=lines.append, show_progress=False)
    assert (child_dir / "gen_001").resolve() == (parent_dir / "gen_001").resolve()
    assert _mtimes(parent_dir / "gen_001") == before
    assert not any(line.startswith("generation 1") for line in lines)
    for name in ("chunk_0000.npz", "chunk_0001.npz"):
        ours, theirs = (d / "gen_002" / "data" / name for d in (child_dir, parent_dir))
        assert ours.read_bytes() == theirs.read_bytes()
    with (
        np.load(child_dir / "gen_002" / "net" / "policy.npz") as ours,
        np.load(parent_dir / "gen_002" / "net" / "policy.npz") as theirs,
    ):
        assert not all(np.array_equal(ours[k], theirs[k]) for k in ours.files)  # soft targets
    assert [row["generation"] for row in summary["generations"]] == [1, 2]
    assert summary["parent_config"]["fit"]["temperature"] == 0.0

    # another collection: the child collects its own generation
    other = child.model_copy(update={"collect": child.collect.model_copy(update={"value_rows": 2})})
    lines.clear()
    run_iteration(other, tmp_path / "other", log=lines.append, show_progress=False)
    assert not any("parent run's" in line for line in lines)
    with np.load(tmp_path / "other" / "gen_002" / "data" / "chunk_0000.npz") as data:
        assert data["value_y"].size


def test_a_parent_generation_without_a_gate_result_is_refused(tmp_path: Path) -> None:
    from folkcards.train.tri_palki_iterate.config import ParentSettings

    parent_dir = tmp_path / "parent"
    run_iteration(_tiny(parent_dir), parent_dir, log=lambda s: None, show_progress=False)
    base = _tiny(tmp_path / "child", generations=3)
    child = base.model_copy(
        update={"parent": ParentSettings(run_dir=str(parent_dir), generation=2)}
    )
    with pytest.raises(ValueError, match="no gate result"):
        run_iteration(child, tmp_path / "child", log=lambda s: None, show_progress=False)


def test_the_loop_can_search_with_the_experts_budget_and_names_it_in_the_gate_spec() -> None:
    from folkcards.agents.tri_palki_net_search import parse_net_spec
    from folkcards.agents.tri_palki_search import EXPERT_PARAMS
    from folkcards.train.tri_palki_iterate.collect import _search_agent
    from folkcards.train.tri_palki_iterate.gate import search_spec

    budget = {"samples": 192, "infer": 4, "endgame_samples": 768, "infer_epsilon": 0.3}
    config = IterateConfig.model_validate({"search": {**budget, "top_k": 5, "cutoff": 10}})
    spec = search_spec(config, "shipped")
    params, net_params, _ = parse_net_spec(spec.split(":", 1)[1])
    assert params == EXPERT_PARAMS  # the gate plays the budget the config names
    teacher = _search_agent(config, "shipped", "player_0", seed=1, record=False)
    assert (teacher.params, teacher.net_params) == (params, net_params)  # and so does collect
    default = search_spec(IterateConfig.model_validate({}), "net")  # earlier runs' specs stand
    assert default == "iterated:samples=24,infer=8,horizon=60,net=net,top_k=0,cutoff=0"
    with pytest.raises(ValueError, match="infer_epsilon"):
        IterateConfig.model_validate({"search": {"infer_epsilon": 1.5}})


def test_a_gate_at_a_larger_table_seats_the_teacher_across_and_heuristics_between(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "run"
    config = _tiny(run_dir)
    gate_settings = {"num_players": 4, "report_rounds": 1, "report_against": ["heuristic"]}
    config = config.model_copy(update={"gate": config.gate.model_copy(update=gate_settings)})
    summary = run_iteration(config, run_dir, log=lambda s: None, show_progress=False)
    gate = summary["generations"][0]["gate"]
    assert gate["num_players"] == 4
    specs = gate["command"].split("--agents ", 1)[1].split(" --seating")[0].split("' '")
    assert len(specs) == 4 and "net=" in specs[0] and "net=" not in specs[2]  # teacher: rules
    assert [s.strip("'") for s in specs[1::2]] == ["heuristic", "heuristic"]
    assert gate["vs_teacher"]["rounds"] == 1 and gate["vs_heuristic"] is not None
    assert set(gate["report"]) == {"heuristic"} and gate["report"]["heuristic"] is not None


def _tiny_compact(run_dir: Path, seed: int = 5) -> IterateConfig:
    text = (
        f"game: tri_palki\nseed: {seed}\nrun_dir: {run_dir}\n"
        "search: {samples: 4, infer: 2, endgame_samples: 4, top_k: 3, cutoff: 10}\n"
        "compact: {source: shipped, hidden: [8], episodes: {3: 1}}\n"
        "fit: {epochs: 2, batch_size: 256, holdout: 0.2}\n"
    )
    path = run_dir.parent / f"compact_{run_dir.name}.yaml"
    path.write_text(text)
    return load_iterate_config(path)


def test_compact_fits_a_smaller_policy_to_the_sources_moves_and_keeps_its_value(
    tmp_path: Path,
) -> None:
    from folkcards.agents.tri_palki_net_search import load_net
    from folkcards.train.tri_palki_iterate.compact import compact

    run_dir = tmp_path / "a"
    metrics = compact(_tiny_compact(run_dir), run_dir, log=lambda s: None)
    small, shipped = load_net(str(run_dir / "net")), load_net("shipped")
    assert [w.shape for w in small.policy.weights] == [(86, 8), (8, 11)]
    assert small.value is not None and shipped.value is not None
    for mine, theirs in zip(small.value.weights, shipped.value.weights, strict=True):
        assert np.array_equal(mine, theirs)
    assert 0.0 <= metrics["held_out_first_choice_agreement"] <= 1.0 and metrics["tables"] > 20

    # a finished run is read back, not made again; another config in its folder is refused
    before = _mtimes(run_dir / "net"), (run_dir / "tables.npy").stat().st_mtime_ns
    assert compact(_tiny_compact(run_dir), run_dir, log=lambda s: None) == metrics
    assert (_mtimes(run_dir / "net"), (run_dir / "tables.npy").stat().st_mtime_ns) == before
    with pytest.raises(ValueError, match="another config"):
        compact(_tiny_compact(run_dir, seed=6), run_dir, log=lambda s: None)

    # the same config in another folder gives the same network
    other = tmp_path / "b"
    compact(_tiny_compact(other), other, log=lambda s: None)
    again = load_net(str(other / "net"))
    for mine, theirs in zip(small.policy.weights, again.policy.weights, strict=True):
        assert np.array_equal(mine, theirs)


def test_a_bad_compact_section_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("game: tri_palki\ncompact: {episodes: {12: 1}}\n")
    code = main(["iterate", "--config", str(path), "--run-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "episodes" in err
    assert not (tmp_path / "run").exists()


def test_the_packaged_compact_network_is_the_shipped_one_made_smaller() -> None:
    """``net=compact``: a policy of two hidden layers of 48 and the shipped value network, the
    command that makes it named beside it."""
    import json

    from folkcards.agents.base import make_agent
    from folkcards.agents.tri_palki_net_search import COMPACT_NET_FOLDER, load_net

    compact, shipped = load_net("compact"), load_net("shipped")
    assert [w.shape for w in compact.policy.weights] == [(86, 48), (48, 48), (48, 11)]
    assert compact.value is not None and shipped.value is not None
    assert all(
        np.array_equal(a, b)
        for a, b in zip(compact.value.weights, shipped.value.weights, strict=True)
    )
    source = json.loads((COMPACT_NET_FOLDER / "source.json").read_text())
    assert source["made_by"] == "folkcards iterate --config configs/tri_palki/iterate_compact.yaml"
    agent = make_agent("iterated:net=compact,top_k=5,cutoff=10", "tri_palki", "player_0", seed=1)
    assert agent.net is compact
