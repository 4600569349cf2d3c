"""Tournaments on Ray: the same stored results as the local backend for the same
seed, resume after an interruption, a killed worker task retried with nothing lost or stored
twice, and the one-line message when Ray is missing."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from folkcards.evaluate import tournament as tour
from folkcards.evaluate.config import load_config
from folkcards.evaluate.running import ray_backend
from folkcards.evaluate.running.runner import run
from folkcards.evaluate.running.units import play_unit, reproducible_unit, unit_keys
from folkcards.evaluate.scoring import make_runner

ray = pytest.importorskip("ray")

NOISE = ("finished_at",)  # wall-clock columns, the only ones allowed to differ


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


def _config(tmp_path: Path, name: str, **kw: Any):
    data: dict[str, Any] = {
        "game": "paston",
        "agents": ["heuristic", "random", "random"],
        "deals": 3,
        "seed": 11,
        "workers": 1,
    }
    data.update(kw)
    data["out"] = str(tmp_path / name)
    return load_config(None, data)


def _stored(db: Path) -> tuple[list, list, list]:
    conn = sqlite3.connect(db)
    try:
        units = conn.execute(
            "SELECT deal, lineup, seating, deal_seed, seats_json, result_json, record_json "
            "FROM units ORDER BY deal, lineup, seating"
        ).fetchall()
        seats = conn.execute(
            "SELECT * FROM unit_seats ORDER BY deal, lineup, seating, seat"
        ).fetchall()
        config = conn.execute("SELECT config_json, total_units FROM tournaments").fetchall()
        return units, seats, config
    finally:
        conn.close()


def _quiet(_text: str) -> None:
    pass


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"game": "tri_palki", "agents": ["heuristic", "random", "heuristic", "random"], "deals": 2},
    ],
    ids=["paston", "tri_palki"],
)
def test_ray_and_local_store_identical_results(local_ray: Any, tmp_path: Path, kw: dict) -> None:
    local = _config(tmp_path, "local", **kw)
    on_ray = _config(tmp_path, "ray", **kw)
    stats_local = run(local, progress=False, log=_quiet)
    stats_ray = run(on_ray, progress=False, log=_quiet, backend="ray")
    assert _stored(local.db_path) == _stored(on_ray.db_path)
    assert len(_stored(on_ray.db_path)[0]) == local.total_units
    assert stats_local["agents"] == stats_ray["agents"]


def test_interrupted_ray_tournament_resumes(local_ray: Any, tmp_path: Path) -> None:
    config = _config(tmp_path, "ray")
    played: list[int] = []
    run(config, progress=False, log=_quiet, backend="ray", max_units=7, on_played=played.append)
    assert len(_stored(config.db_path)[0]) == 7
    run(config, progress=False, log=_quiet, backend="ray", on_played=played.append)
    assert played == [7, config.total_units - 7]
    local = _config(tmp_path, "local")
    run(local, progress=False, log=_quiet)
    assert _stored(config.db_path) == _stored(local.db_path)


def test_killed_worker_task_is_retried_without_loss_or_double_count(
    local_ray: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker running the units of deal 1 dies (``os._exit``) the first time; Ray runs
    the task again and the database ends up exactly as the local backend's."""
    marker = tmp_path / "killed-once"
    real = ray_backend.play_units

    def dies_once(config: Any, keys: Any) -> Any:
        if any(key[0] == 1 for key in keys):
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                os._exit(1)  # the worker process dies mid-task
        return real(config, keys)

    monkeypatch.setattr(ray_backend, "play_units", dies_once)
    config = _config(tmp_path, "ray")
    run(config, progress=False, log=_quiet, backend="ray")
    assert marker.exists(), "a worker was killed"
    local = _config(tmp_path, "local")
    run(local, progress=False, log=_quiet)
    units, seats, _ = _stored(config.db_path)
    assert len(units) == config.total_units and len(seats) == 3 * config.total_units
    assert _stored(config.db_path) == _stored(local.db_path)


def test_play_units_matches_play_unit(tmp_path: Path) -> None:
    config = _config(tmp_path, "x", deals=1)
    runner = make_runner(config.game, config.mode, config.num_players)
    keys = unit_keys(config)[:3]
    played = ray_backend.play_units(config, keys)
    expected = [play_unit(config, runner, k) for k in keys]
    assert list(map(reproducible_unit, played)) == list(map(reproducible_unit, expected))
    assert ray_backend.chunks(list(range(5)), 2) == [[0, 1], [2, 3], [4]]


def test_ray_missing_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_backend, "ray_available", lambda: False)
    with pytest.raises(ray_backend.RayMissingError, match=r"pip install 'folkcards\[rllib\]'"):
        run(_config(tmp_path, "r"), progress=False, log=_quiet, backend="ray")


def test_cli_backend_ray_same_results_and_missing_ray_message(
    local_ray: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    args = [
        "--game",
        "paston",
        "--agents",
        "heuristic",
        "random",
        "random",
        "--deals",
        "2",
        "--seed",
        "3",
        "--no-progress",
        "--no-plot",
    ]
    assert tour.main([*args, "--out", str(tmp_path / "local"), "--workers", "1"]) == 0
    assert tour.main([*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    local = _stored(tmp_path / "local" / "tournament.sqlite")
    assert _stored(tmp_path / "ray" / "tournament.sqlite") == local
    monkeypatch.setattr(ray_backend, "ray_available", lambda: False)
    capsys.readouterr()
    assert tour.main([*args, "--out", str(tmp_path / "r2"), "--backend", "ray"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip install 'folkcards[rllib]'" in err
