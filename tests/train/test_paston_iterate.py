"""``folkcards iterate`` for Paston: generations refit from their teacher on fresh deals, gate,
resume, and the command reads the game from the config (the registry's loop)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from folkcards.cli import main
from folkcards.errors import ConfigError

pytest.importorskip("torch")

from folkcards.agents.paston_expert import model_path  # noqa: E402
from folkcards.train.paston_iterate import (  # noqa: E402
    GateSettings,
    PastonIterateConfig,
    outcome_config,
    passes,
    run_paston_iteration,
    teacher_of,
)
from folkcards.train.settings import load_flat_config  # noqa: E402

CONFIG = Path(__file__).parents[2] / "configs" / "paston" / "iterate.yaml"
CHEAP = "samples=2,bid_samples=1,discard_samples=1,discard_candidates=1"  # a quick expert


def _tiny(run_dir: Path, generations: int = 1) -> PastonIterateConfig:
    return PastonIterateConfig.model_validate(
        {
            "run_dir": str(run_dir),
            "generations": generations,
            "start": "open_hand",
            "expert": CHEAP,
            "seed": 5,
            "collect": {"deals": 2, "chunks": 1},
            "fit": {"epochs": 1, "min_samples": 1},
            "gate": {"deals": 2, "seed": 9, "third": "heuristic"},
        }
    )


def test_the_committed_config_loads_and_starts_from_expert() -> None:
    config = load_flat_config(PastonIterateConfig, CONFIG)
    assert config.game == "paston" and config.start == "refit"
    assert config.gate.require_interval and config.gate.deals >= 2000


def test_each_generation_refits_from_its_teacher_on_fresh_deals(tmp_path: Path) -> None:
    config = _tiny(tmp_path, generations=3)
    (tmp_path / "gen_001").mkdir()
    (tmp_path / "gen_001" / "gate.json").write_text(json.dumps({"accepted": True}))
    (tmp_path / "gen_002").mkdir()
    (tmp_path / "gen_002" / "gate.json").write_text(json.dumps({"accepted": False}))
    first, second, third = (outcome_config(config, tmp_path, g) for g in (1, 2, 3))
    assert first.base == "open_hand" and first.base_path() == model_path("open_hand")  # start
    assert Path(second.base) == (tmp_path / "gen_001" / "paston_evaluator.npz").resolve()
    assert teacher_of(tmp_path, 3) == 1  # generation 2 did not pass: 1 stays the teacher
    assert Path(third.base) == Path(second.base)
    seeds = [c.seed + k for c in (first, second, third) for k in range(c.chunks)]
    assert len(set(seeds)) == len(seeds)  # no deals played twice


def test_the_gate_needs_a_gain_over_the_teacher_with_its_interval_by_default() -> None:
    strict, plain = GateSettings(), GateSettings(require_interval=False, margin=0.5)
    assert passes({"mean_diff": 1.0, "ci_low": 0.1}, strict)
    assert not passes({"mean_diff": 1.0, "ci_low": -0.1}, strict)  # the interval holds zero
    assert not passes({"mean_diff": 0.0, "ci_low": 0.0}, strict)  # a tie does not pass
    assert passes({"mean_diff": 0.6, "ci_low": -3.0}, plain)
    assert not passes({"mean_diff": 0.5, "ci_low": 0.4}, plain)


def test_a_tiny_run_writes_its_generations_and_resumes_without_redoing_them(
    tmp_path: Path,
) -> None:
    config = _tiny(tmp_path / "run")
    summary = run_paston_iteration(config, log=lambda s: None, show_progress=False)
    gen = tmp_path / "run" / "gen_001"
    for name in ("data/chunk_000.npz", "paston_evaluator.npz", "gate.json"):
        assert (gen / name).is_file(), name
    assert (tmp_path / "run" / "curves.png").is_file()
    gate = summary["generations"][0]["gate"]
    assert gate["teacher"] == 0 and gate["third"] == "heuristic"
    assert gate["vs_teacher"]["deals"] == 2 and "folkcards tournament" in gate["command"]
    before = {p: p.stat().st_mtime_ns for p in gen.rglob("*") if p.is_file()}
    run_paston_iteration(config, log=lambda s: None, show_progress=False)
    assert {p: p.stat().st_mtime_ns for p in gen.rglob("*") if p.is_file()} == before
    other = config.model_copy(update={"seed": 6})
    with pytest.raises(ValueError, match="another config"):
        run_paston_iteration(other, log=lambda s: None, show_progress=False)


def test_the_committed_refit_2_is_generation_1_of_the_committed_config() -> None:
    from folkcards.search.paston_evaluator import load_evaluator

    config = load_flat_config(PastonIterateConfig, CONFIG)
    made_by = load_evaluator(model_path("refit_2")).meta["refitted_to_outcomes"]["config"]
    expected = outcome_config(config, Path(config.run_dir), 1).model_dump()
    assert made_by == expected and made_by["base"] == "refit"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("seed: 1\n", "name the game"),
        ("game: chess\n", "unknown game"),
        ("game: paston_bidding\n", "no expert-iteration loop"),
        ("game: paston\nbogus: 1\n", "unknown key 'bogus'"),
        ("game: paston\nstart: /no/such/evaluator.npz\n", "start"),
        ("game: paston\ngate: {third: nobody}\n", "unknown agent"),
        ("game: paston\ncollect: {deals: 0}\n", "collect.deals"),
        ("game: paston\nexpert: samples=4,model=refit\n", "set by the run"),
        ("game: paston\nexpert: samples=-1\n", "samples"),
    ],
)
def test_a_bad_config_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code = main(["iterate", "--config", str(path), "--run-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("folkcards iterate:")
    assert message in err
    assert not (tmp_path / "run").exists() or not os.listdir(tmp_path / "run")


def test_the_paston_config_refuses_another_game() -> None:
    with pytest.raises((ValueError, ConfigError), match="paston"):
        PastonIterateConfig(game="tri_palki")
