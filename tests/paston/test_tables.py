"""Open-hand tables: entries equal direct solver calls, the discard rule's pair is
the best of all 66, same command same bytes, resume after an interruption, bad input."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from folkcards.envs.cards import mask_to_cards
from folkcards.envs.paston.rules import NUM_SEATS, left_of, right_of
from folkcards.envs.paston_bidding import tables as T
from folkcards.envs.paston_bidding.solved_scores import first_lead_result
from folkcards.search import paston_table_maker as maker
from folkcards.search.paston_solver import PastonSolver, Position

from folkcards.cli import main as cli_main

SHIPPED = Path(T.__file__).parent / "data" / T.SHIPPED_NAME


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tables") / "small.table"
    maker.generate(out, 6, seed=11, chunk=4)
    return out


def _paths() -> list[tuple[int, int, int, int]]:
    return [
        (d, m, t, e)
        for d in range(NUM_SEATS)
        for m in range(T.NUM_LEVELS)
        for t in T.reachable_trumps(m)
        for e in range(T.NUM_DEFENCES)
    ]


def test_every_entry_equals_a_direct_solver_call(small: Path):
    table = T.load_table(small)
    assert len(table) == 6
    solver = PastonSolver()
    for i in range(len(table)):
        dealer, hands, prikup = T.table_deal(11, i)
        assert int(table.dealer[i]) == dealer
        assert table.hands[i].tolist() == hands and int(table.prikup[i]) == prikup
        for d, m, t, e in _paths():
            pair = int(table.discards[i, d, m])
            twelve = hands[d] | prikup
            assert pair & twelve == pair and bin(pair).count("1") == 2
            playing = list(hands)
            playing[d] = twelve & ~pair
            defenders = T.defence_seats(d, e)
            direct = first_lead_result(playing, t, d, defenders, solver.solve)
            assert table.result(i, d, m, t, defenders) == direct
        # the trumps a level cannot reach are marked unused
        unused = np.ones((NUM_SEATS, T.NUM_LEVELS, T.NUM_TRUMPS), dtype=bool)
        for d, m, t, _ in _paths():
            unused[d, m, t] = False
        assert (table.results[i][unused] == T.UNUSED).all()


def test_the_chosen_pair_is_the_best_of_all_66_pairs():
    """The discard rule's objective (the best two-defender count over the reachable trumps),
    brute-forced over every pair of the 12 cards: the candidate set loses nothing."""
    solver = PastonSolver()
    dealer, hands, prikup = T.table_deal(11, 0)
    discards, results = maker.solve_deal(hands, prikup)
    for d in range(NUM_SEATS):
        twelve = hands[d] | prikup
        values = {}
        for a, b in itertools.combinations(mask_to_cards(twelve), 2):
            playing = list(hands)
            playing[d] = twelve & ~((1 << a) | (1 << b))
            values[(a, b)] = [solver.solve(Position(playing, t, d)) for t in range(4)]
        for m in range(T.NUM_LEVELS):
            trumps = T.reachable_trumps(m)
            best = max(max(v[t] for t in trumps) for v in values.values())
            chosen = tuple(mask_to_cards(int(discards[d, m])))
            assert max(values[chosen][t] for t in trumps) == best
            assert max(int(results[d, m, t, 0, 0]) for t in trumps) == best


def test_candidates_are_the_lowest_of_suit_pairs():
    twelve = sum(
        1 << c for c in [0, 3, 5, 8, 9, 24, 25, 26, 27, 28, 29, 31]
    )  # S 7 10 Q, C 7 8, H..
    pairs = [tuple(mask_to_cards(p)) for p in T.candidate_pairs(twelve)]
    assert pairs == sorted([(0, 3), (8, 9), (24, 25), (0, 8), (0, 24), (8, 24)])


def test_same_command_same_bytes_whatever_the_workers(small: Path, tmp_path: Path):
    other = tmp_path / "again.table"
    maker.generate(other, 6, seed=11, workers=2, chunk=1)
    assert other.read_bytes() == small.read_bytes()
    first = tmp_path / "first4.table"
    maker.generate(first, 4, seed=11, chunk=3)
    a, b = T.load_table(first), T.load_table(small)
    assert (a.results == b.results[:4]).all() and (a.hands == b.hands[:4]).all()


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_resumes_to_the_same_file(small: Path, tmp_path: Path, workers: int):
    out = tmp_path / "resumed.table"
    calls = []

    def stop_after_two(done: int, total: int) -> None:
        calls.append(done)
        if done >= 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        maker.generate(out, 6, seed=11, chunk=2, workers=workers, progress=stop_after_two)
    assert not out.exists()
    parts = maker.parts_dir(out)
    saved = len(list(parts.glob("chunk_*.npz")))
    assert saved == 2
    resumed = []
    maker.generate(out, 6, seed=11, chunk=2, progress=lambda done, total: resumed.append(done))
    assert resumed == [4, 6]  # only the missing chunk was solved
    assert out.read_bytes() == small.read_bytes()
    assert not parts.exists()


def test_a_resume_with_other_parameters_is_refused(tmp_path: Path):
    out = tmp_path / "x.table"
    maker.parts_dir(out).mkdir()
    (maker.parts_dir(out) / "manifest.json").write_text(json.dumps({"format": 1}))
    with pytest.raises(ValueError, match="unfinished run with other parameters"):
        maker.generate(out, 2, seed=1)


def test_damaged_files_are_refused(small: Path, tmp_path: Path):
    data = bytearray(small.read_bytes())
    bad = tmp_path / "bad.table"
    bad.write_bytes(bytes(data[:-10]))
    with pytest.raises(ValueError, match="damaged"):
        T.load_table(bad)
    data[-200] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged"):
        T.load_table(bad)
    bad.write_bytes(b"hello")
    with pytest.raises(ValueError, match="not a folkcards"):
        T.load_table(bad)
    with pytest.raises(ValueError, match="cannot read"):
        T.load_table(tmp_path / "missing.table")


def test_header_records_rules_and_generator(small: Path):
    header = T.load_table(small).header
    assert header["format"] == T.TABLE_FORMAT
    assert header["generator"]["seed"] == 11 and header["generator"]["deals"] == 6
    assert header["generator"]["discards"] == T.DISCARD_RULE
    assert "paston" in header["rules"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--deals", "0", "--seed", "1"], "deals must be >= 1"),
        (["--deals", "2", "--seed", "-1"], "seed must be"),
        (["--deals", "2", "--seed", "1", "--workers", "0"], "workers must be"),
    ],
)
def test_cli_bad_input_is_one_line(argv, message, tmp_path: Path, capsys):
    code = cli_main(["tables", *argv, "--out", str(tmp_path / "t.table"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t.table").exists()


def test_cli_missing_folder_is_one_line(tmp_path: Path, capsys):
    out = tmp_path / "nope" / "t.table"
    assert cli_main(["tables", "--deals", "1", "--seed", "1", "--out", str(out), "--quiet"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_writes_the_table_and_its_checksum(small: Path, tmp_path: Path, capsys):
    out = tmp_path / "cli.table"
    argv = ["tables", "--deals", "6", "--seed", "11", "--out", str(out), "--quiet"]
    assert cli_main(argv) == 0
    assert T.file_sha256(out) in capsys.readouterr().out
    assert out.read_bytes() == small.read_bytes()


def test_the_shipped_table_loads_and_spot_checks():
    table = T.load_table(SHIPPED)
    generator = table.header["generator"]
    assert (generator["deals"], generator["seed"]) == (T.SHIPPED_DEALS, T.SHIPPED_SEED)
    solver = PastonSolver()
    rng = np.random.default_rng(0)
    for i in rng.choice(len(table), 3, replace=False).tolist():
        dealer, hands, prikup = T.table_deal(T.SHIPPED_SEED, i)
        assert table.hands[i].tolist() == hands
        for d, m, t, e in [_paths()[k] for k in rng.choice(len(_paths()), 6).tolist()]:
            playing = list(hands)
            playing[d] = (hands[d] | prikup) & ~int(table.discards[i, d, m])
            defenders = T.defence_seats(d, e)
            assert table.result(i, d, m, t, defenders) == first_lead_result(
                playing, t, d, defenders, solver.solve
            )


@pytest.mark.slow
def test_the_shipped_table_is_regenerated_bit_for_bit(tmp_path: Path):
    """The documented command: folkcards tables --deals 3000 --seed 2025 --out FILE."""
    out = tmp_path / "regen.table"
    maker.generate(out, T.SHIPPED_DEALS, T.SHIPPED_SEED, workers=2)
    assert out.read_bytes() == SHIPPED.read_bytes()


def test_left_and_right_defences_are_the_declarers_neighbours():
    assert T.defence_seats(1, 0) == [left_of(1), right_of(1)]
    assert T.defence_seats(1, 1) == [2] and T.defence_seats(1, 2) == [0]


def test_ray_backend_without_ray_is_one_line(monkeypatch, tmp_path: Path, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # "import ray" raises ImportError
    argv = ["tables", "--deals", "2", "--seed", "1", "--backend", "ray", "--quiet"]
    assert cli_main([*argv, "--out", str(tmp_path / "r.table")]) == 2
    err = capsys.readouterr().err
    assert "needs Ray" in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_ray_backend_gives_the_same_file(small: Path, tmp_path: Path):
    pytest.importorskip("ray")
    out = tmp_path / "ray.table"
    maker.generate(out, 6, seed=11, backend="ray", chunk=2)
    assert out.read_bytes() == small.read_bytes()
