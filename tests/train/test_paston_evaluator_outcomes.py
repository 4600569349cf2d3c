"""``folkcards refit-evaluator``: the expert's own results as the evaluator's targets."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from folkcards.agents.episode import Decision, play_episode  # noqa: E402
from folkcards.agents.paston_expert import (  # noqa: E402
    ExpertAgent,
    model_path,
    open_hand_evaluator_path,
)
from folkcards.envs.paston.rules import CONTRACT_BASE, WHIST  # noqa: E402
from folkcards.envs.registry import game_spec  # noqa: E402
from folkcards.search.paston_evaluator import load_evaluator  # noqa: E402
from folkcards.train.paston_evaluator_outcomes import (  # noqa: E402
    OutcomeConfig,
    RecordingExpert,
    collect,
    collect_chunk,
    fit_outcomes,
)

from folkcards.cli import main  # noqa: E402


def _small(tmp_path: Path, **update: object) -> OutcomeConfig:
    settings = {"deals": 4, "chunks": 2, "seed": 5, "data_dir": str(tmp_path / "data")}
    return OutcomeConfig.model_validate({**settings, **update})


def test_recording_changes_no_decision_and_notes_what_the_seat_did() -> None:
    env = game_spec("paston").env_module().raw_env()
    named = whisted = 0
    for deal in range(6):
        plain = [ExpertAgent("paston", f"player_{s}", 100 + s) for s in range(3)]
        taped = [RecordingExpert("paston", f"player_{s}", 100 + s) for s in range(3)]
        a = play_episode(env, plain, seed=deal, on_action=None)
        decisions: list[Decision] = []
        b = play_episode(env, taped, seed=deal, on_action=decisions.append)
        log = [(d.agent, d.action) for d in decisions]
        assert a.returns == b.returns
        for s, agent in enumerate(taped):
            mine = [action for seat, action in log if seat == f"player_{s}"]
            contracts = [x - CONTRACT_BASE for x in mine if CONTRACT_BASE <= x < CONTRACT_BASE + 5]
            noted = [j for head, _, j in agent.notes if head == "contract"]
            assert noted == contracts  # the contract it named, if any
            assert [j for head, _, j in agent.notes if head == "declare"] == noted
            whists = sum(1 for head, _, _ in agent.notes if head == "whist")
            assert whists <= mine.count(WHIST)
            named, whisted = named + len(noted), whisted + whists
    assert named > 0 and whisted > 0  # the deals exercised both notes


def test_the_same_data_for_any_number_of_processes_and_a_resume_plays_only_what_is_missing(
    tmp_path: Path,
) -> None:
    one = collect(_small(tmp_path / "one"), log=lambda s: None)
    two = collect(_small(tmp_path / "two", workers=2), log=lambda s: None)
    for a, b in zip(one, two, strict=True):
        with np.load(a) as x, np.load(b) as y:
            assert set(x.files) == set(y.files)
            assert all(np.array_equal(x[k], y[k]) for k in x.files)
    first = one[0].stat().st_mtime_ns
    one[1].unlink()
    again = collect(_small(tmp_path / "one"), log=lambda s: None)
    assert again[0].stat().st_mtime_ns == first and again[1].is_file()
    with np.load(again[1]) as x, np.load(two[1]) as y:
        assert all(np.array_equal(x[k], y[k]) for k in x.files)
    # chunk k is seeded seed + k: chunk 1 of seed 5 is chunk 0 of seed 6
    shifted = collect_chunk(_small(tmp_path, seed=6), 0)
    with np.load(two[1]) as y:
        assert all(np.array_equal(shifted[k], y[k]) for k in y.files)


def test_the_scores_are_the_seats_rewards(tmp_path: Path) -> None:
    data = collect_chunk(_small(tmp_path, deals=6), 0)
    assert len(data["contract_y"]) == len(data["declare_y"]) > 0
    # a declarer's score is a declarer's score for the contract it named (§7): ±10 × factor
    assert set(np.abs(data["contract_y"]).astype(int)) <= {10, 20, 30, 40}
    assert np.array_equal(data["contract_y"], data["declare_y"])


def test_the_fit_moves_the_chosen_outputs_toward_the_scores_and_holds_the_others(
    tmp_path: Path,
) -> None:
    base = load_evaluator(open_hand_evaluator_path())
    rng = np.random.default_rng(0)
    hands = rng.random((600, 36)) < 0.3
    x = np.concatenate([hands, np.eye(3)[rng.integers(3, size=600)],
                        np.eye(5)[rng.integers(5, size=600)]], axis=1).astype(np.float32)  # fmt: skip
    before = base.heads["contract"](x)
    chosen = np.full(600, 3)
    score = before[:, 3] - 10.0  # the expert's hearts made ten points less than predicted
    arrays = {"contract_x": x, "contract_j": chosen, "contract_y": score.astype(np.float32)}
    for head in ("declare", "whist"):  # too few samples: kept as they are
        size = base.heads[head].weights[0].shape[0]
        arrays |= {f"{head}_x": np.zeros((0, size), np.float32),
                   f"{head}_j": np.zeros(0, np.int64), f"{head}_y": np.zeros(0, np.float32)}  # fmt: skip
    path = tmp_path / "chunk_000.npz"
    np.savez(path, **arrays)  # type: ignore[arg-type]
    config = _small(tmp_path, epochs=20, lr=1e-3)
    fitted, report = fit_outcomes(base, [path], config)
    after = fitted.heads["contract"](x)
    assert -12 < float((after - before)[:, 3].mean()) < -6
    others = np.delete(after - before, 3, axis=1)
    assert float(np.abs(others).mean()) < 2.5
    assert report["declare"]["kept"] == "too few samples"
    assert fitted.heads["declare"] is base.heads["declare"]
    assert (
        report["contract"]["held_out_mse_chosen_after"]
        < report["contract"]["held_out_mse_chosen_before"]
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("deals: 0\n", "deals"),
        ("nonsense: 1\n", "unknown key 'nonsense'"),
        ("out: evaluator.txt\n", "out must be a .npz"),
        ("base: no/such/file.npz\n", "no evaluator file"),
    ],
)
def test_a_bad_config_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"data_dir: {tmp_path / 'data'}\n" + text)
    code = main(["refit-evaluator", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err
    assert err.startswith("folkcards refit-evaluator:")
    assert not (tmp_path / "data").exists() or not os.listdir(tmp_path / "data")


def test_a_data_folder_of_other_settings_is_refused(tmp_path: Path) -> None:
    collect(_small(tmp_path, chunks=1), log=lambda s: None)
    with pytest.raises(ValueError, match="other settings"):
        collect(_small(tmp_path, chunks=1, seed=6), log=lambda s: None)
    more = collect(_small(tmp_path, chunks=2), log=lambda s: None)  # more chunks: the same data
    assert len(more) == 2 and all(p.is_file() for p in more)


def test_the_committed_refit_is_named_and_made_by_the_committed_config() -> None:
    from folkcards.train.settings import load_flat_config

    agent = ExpertAgent("paston", "player_0", 1, "model=refit")
    assert agent.model_path == model_path("refit") and agent.model_path.is_file()
    assert agent.model_path != open_hand_evaluator_path()
    refit = load_evaluator(agent.model_path)
    base = load_evaluator(open_hand_evaluator_path())
    assert any(
        not np.array_equal(a, b)
        for head in base.heads
        for a, b in zip(refit.heads[head].weights, base.heads[head].weights, strict=True)
    )
    config = Path(__file__).parents[2] / "configs" / "paston" / "evaluator_outcomes.yaml"
    made_by = refit.meta["refitted_to_outcomes"]["config"]
    assert made_by == load_flat_config(OutcomeConfig, config).model_dump()
    assert made_by["base"] == "open_hand"


def test_a_base_is_a_committed_evaluator_by_name_or_a_path() -> None:
    assert OutcomeConfig(base="open_hand").base_path() == open_hand_evaluator_path()
    assert OutcomeConfig().base_path() == model_path("refit_2")  # expert's own evaluator
    assert OutcomeConfig(base="x/y.npz").base_path() == Path("x/y.npz")
    with pytest.raises(ValueError, match="ambiguous"):  # open_hand until 0.11.0, refit_2 since
        OutcomeConfig(base="shipped")
