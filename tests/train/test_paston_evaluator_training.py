"""Training the Paston evaluator (``folkcards.train.paston_evaluator_training``): targets follow the
score table of ``paston.md`` §7 on open-hand table entries, training beats the training mean
on other deals, it is deterministic given its seed, and bad configs are one line."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents.paston_heuristic import defence_call
from folkcards.envs.paston_bidding.tables import load_table, shipped_table_path
from folkcards.train.paston_evaluator_training import (
    EvaluatorConfig,
    constant_mse,
    contract_data,
    declare_data,
    fit,
    load_evaluator_config,
    masked_mse,
    position_of,
    whist_data,
)

from folkcards.cli import main
from folkcards.errors import ConfigError

FACTOR = (1, 2, 3, 4, 4)  # spades, clubs, diamonds, hearts, best spades (§7)
TRUMP = (0, 1, 2, 3, 0)


def declarer_points(tricks: int, level: int) -> int:
    """§7: +10 × f with 6 tricks or more (best spades +10), else −10 × f."""
    if tricks >= 6:
        return 10 if level == 4 else 10 * FACTOR[level]
    return -10 * FACTOR[level]


def two_defender_points(tricks: int, level: int) -> int:
    """§7, one of two defenders: 0, 1, 2, ≥3 tricks → −10, −9, 0, +10 × (t − 2), times f."""
    return ((-10, -9, 0)[tricks] if tricks <= 2 else 10 * (tricks - 2)) * FACTOR[level]


@pytest.fixture(scope="module")
def table():
    return load_table(shipped_table_path())


def test_position_is_the_order_in_the_auction():
    # the first bidder is the dealer's left (seat dealer + 1), the dealer bids last
    assert [position_of(seat, 1) for seat in (2, 0, 1)] == [0, 1, 2]


def test_declare_targets_follow_the_score_table(table):
    deals = range(20)
    data = declare_data(table, deals, "both")
    assert data.x.shape == (60, 39) and data.y.shape == (60, 10)
    for row, (i, seat) in enumerate((i, s) for i in deals for s in range(3)):
        for c in range(5):
            tricks = int(table.results[i, seat, c, TRUMP[c], 0, 0])  # both defend
            assert data.y[row, c] == declarer_points(tricks, c)
        # the best reachable from spades: any of the four suits, never below surrender's -10
        best = max(declarer_points(int(table.results[i, seat, 0, t, 0, 0]), t) for t in range(4))
        assert data.y[row, 5] == max(best, -10)
        assert data.y[row, 9] == max(data.y[row, 4], -10)  # from best spades: only best spades


def test_both_defenders_passing_is_the_declarers_automatic_win(table):
    data = declare_data(table, range(40), "heuristic")
    wins = 0
    for row, (i, seat) in enumerate((i, s) for i in range(40) for s in range(3)):
        hands = [int(h) for h in table.hands[i]]
        for c in range(5):
            left = defence_call(
                hands[(seat + 1) % 3], c, all_pass=False, first_speaker=True, other_whisted=False
            )
            right = defence_call(
                hands[(seat + 2) % 3], c, all_pass=False, first_speaker=False, other_whisted=left
            )
            if not left and not right:
                wins += 1
                assert data.y[row, c] == (10 if c == 4 else 10 * FACTOR[c])
    assert wins > 0


def test_whist_targets_are_the_defenders_scores(table):
    data = whist_data(table, range(10), "both", lambda i, s, c: True)
    assert len(data.x) == 10 * 3 * 5 * 2
    row = 0
    for i in range(10):
        for d in range(3):
            for c in range(5):
                for seat in ((d + 1) % 3, (d + 2) % 3):
                    result = table.result(i, d, c, TRUMP[c], [(d + 1) % 3, (d + 2) % 3])
                    assert data.y[row, 0] == two_defender_points(result.tricks[seat], c)
                    row += 1


def test_contract_samples_mask_the_contracts_a_level_does_not_allow(table):
    data = contract_data(table, range(5), "both")
    assert len(data.x) == 5 * 3 * 5
    levels = data.x[:, 36 + 3 :].argmax(axis=1)
    allowed = {0: [1, 1, 1, 1, 0], 1: [0, 1, 1, 1, 0], 3: [0, 0, 0, 1, 0], 4: [0, 0, 0, 0, 1]}
    for level, mask in allowed.items():
        assert (data.mask[levels == level] == mask).all()
    kept = data.x[:, :32].sum(axis=1)
    assert (kept == 10).all()  # the 10 cards kept after the table's two discards


def _small_config(**kw):
    return EvaluatorConfig(hidden=[32], epochs=kw.pop("epochs", 15), batch_size=64, **kw)


def test_training_beats_the_training_mean_on_other_deals(table):
    # the contract head (15 samples a deal): 400 deals to fit, others to stop and to validate
    train = contract_data(table, range(0, 400), "heuristic")
    hold = contract_data(table, range(400, 500), "heuristic")
    valid = contract_data(table, range(500, 700), "heuristic")
    mlp, info = fit(train, hold, _small_config(), seed=0)
    trained = masked_mse(mlp(valid.x), valid)
    assert trained < constant_mse(train, valid)
    assert info["holdout_mse"] < info["holdout_curve"][0]  # better than the untrained network


def test_training_is_deterministic_given_its_seed(table):
    train = declare_data(table, range(0, 60), "both")
    hold = declare_data(table, range(60, 80), "both")
    a, _ = fit(train, hold, _small_config(epochs=3), seed=5)
    b, _ = fit(train, hold, _small_config(epochs=3), seed=5)
    c, _ = fit(train, hold, _small_config(epochs=3), seed=6)
    assert all(np.array_equal(x, y) for x, y in zip(a.weights, b.weights, strict=True))
    assert not np.array_equal(a.weights[0], c.weights[0])


def test_a_bad_config_is_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("epochs: 0\n")
    with pytest.raises(ConfigError, match="epochs"):
        load_evaluator_config(path)
    path.write_text("epoch: 3\n")
    with pytest.raises(ConfigError, match="unknown key 'epoch'"):
        load_evaluator_config(path)
    assert main(["train-evaluator", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("folkcards train-evaluator:") and "\n" not in err
    path.write_text(f"train_table: {tmp_path / 'missing.table'}\nout: {tmp_path / 'e.npz'}\n")
    assert main(["train-evaluator", "--config", str(path)]) == 2
    assert "cannot read the table" in capsys.readouterr().err
    assert not (tmp_path / "e.npz").exists()
