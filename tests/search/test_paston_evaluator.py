"""The Paston evaluator's features and weights file (``folkcards.search.paston_evaluator``).

The features are checked against the card ids of ``paston.md`` §1 (``id = 8 * suit + rank``,
suits S C D H, ranks 7 … A), written out by hand here, not read off the code.
"""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.search.mlp import Mlp
from folkcards.search.paston_evaluator import (
    HAND_SIZE,
    HEADS,
    PastonEvaluator,
    contract_features,
    declare_features,
    hand_features,
    load_evaluator,
    whist_features,
)

# A♠ = 7, 7♣ = 8, K♣ = 14, 10♥ = 27, A♥ = 31 (paston.md §1)
HAND_IDS = [7, 8, 14, 27, 31]


def test_a_hand_encodes_its_cards_and_suit_lengths():
    x = hand_features(HAND_IDS)
    assert x.shape == (36,) and x.dtype == np.float32
    assert sorted(np.flatnonzero(x[:32]).tolist()) == HAND_IDS
    # spades 1 card, clubs 2, diamonds 0, hearts 2; lengths divided by 8
    assert x[32:].tolist() == [1 / 8, 2 / 8, 0.0, 2 / 8]
    mask = sum(1 << c for c in HAND_IDS)
    assert np.array_equal(hand_features(mask), x)  # a mask and card ids are the same hand


def test_the_heads_inputs_are_the_hand_and_one_hot_context():
    x = declare_features(HAND_IDS, 2)
    assert x.shape == (HAND_SIZE + 3,)
    assert x[HAND_SIZE:].tolist() == [0, 0, 1]  # the third to bid (the dealer)
    x = contract_features(HAND_IDS, 0, 3)
    assert x[HAND_SIZE : HAND_SIZE + 3].tolist() == [1, 0, 0]
    assert x[HAND_SIZE + 3 :].tolist() == [0, 0, 0, 1, 0]  # minimum level hearts
    x = whist_features(HAND_IDS, 4, False, 2)
    assert x[HAND_SIZE : HAND_SIZE + 5].tolist() == [0, 0, 0, 0, 1]  # best spades
    assert x[HAND_SIZE + 5 : HAND_SIZE + 7].tolist() == [0, 1]  # the second speaker
    assert x[HAND_SIZE + 7 :].tolist() == [0, 0, 1]  # after the first speaker's pass
    for name, features in (("declare", declare_features(HAND_IDS, 0)), ("whist", x)):
        assert features.shape == (HEADS[name][0],)


@pytest.mark.parametrize(
    "call",
    [
        lambda: declare_features(HAND_IDS, 3),
        lambda: declare_features(HAND_IDS, True),
        lambda: contract_features(HAND_IDS, 0, 5),
        lambda: whist_features(HAND_IDS, 0, True, 1),  # the first speaker heard nobody
        lambda: hand_features([32]),
        lambda: hand_features(-1),
    ],
)
def test_bad_input_is_one_line_value_error(call):
    with pytest.raises(ValueError) as info:
        call()
    assert "\n" not in str(info.value)


def _random_evaluator(seed: int) -> PastonEvaluator:
    rng = np.random.default_rng(seed)
    heads = {}
    for name, (size, outputs) in HEADS.items():
        shapes = [(size, 8), (8, len(outputs))]
        heads[name] = Mlp(
            tuple(rng.normal(size=s).astype(np.float32) for s in shapes),
            tuple(rng.normal(size=s[1]).astype(np.float32) for s in shapes),
        )
    return PastonEvaluator(heads, {"note": "test"})


def test_save_and_load_give_the_same_values(tmp_path):
    evaluator = _random_evaluator(0)
    evaluator.save(tmp_path / "e.npz")
    again = load_evaluator(tmp_path / "e.npz")
    assert again.meta == {"note": "test"}
    assert np.allclose(again.declare(HAND_IDS, 1), evaluator.declare(HAND_IDS, 1))
    assert again.whist(HAND_IDS, 2, True, 0) == pytest.approx(evaluator.whist(HAND_IDS, 2, True, 0))
    many = again.contract_many([0b1111111111, sum(1 << c for c in HAND_IDS)], 0, 1)
    assert np.allclose(many[1], evaluator.contract(HAND_IDS, 0, 1), atol=1e-5)


def test_a_damaged_file_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not an npz")
    for path in (bad, tmp_path / "missing.npz"):
        with pytest.raises(ValueError) as info:
            load_evaluator(path)
        assert "\n" not in str(info.value)


def test_values_stay_within_what_the_score_table_allows():
    # paston.md §7: declaring scores -10 f or +10 f (best spades -40 or +10); a defender of two
    # scores from -10 f (no trick) to +80 f (all ten); f = 1, 2, 3, 4, 4
    evaluator = _random_evaluator(1)
    for mlp in evaluator.heads.values():  # large weights: raw outputs far outside the scores
        object.__setattr__(mlp, "biases", tuple(b * 1000 for b in mlp.biases))
    rng = np.random.default_rng(0)
    declare_low = [-10, -20, -30, -40, -40] + [-10] * 5
    declare_high = [10, 20, 30, 40, 10, 40, 40, 40, 40, 10]
    for _ in range(20):
        hand = [int(c) for c in rng.choice(32, 10, replace=False)]
        values = evaluator.declare(hand, 0)
        assert (values >= declare_low).all() and (values <= declare_high).all()
        contract = evaluator.contract(hand, 1, 0)
        assert (contract >= declare_low[:5]).all() and (contract <= declare_high[:5]).all()
        for level, f in enumerate((1, 2, 3, 4, 4)):
            assert -10 * f <= evaluator.whist(hand, level, True, 0) <= 80 * f
