"""The Paston heuristic's compiled rules make exactly the decisions of its pure-Python
reference, in both forms: batched and per game.

Games are played through the batched engine with a mix of heuristic and random actions (so that
every phase, both table sizes in the play and every contract are reached, including states the
heuristic alone would not bid into); at every decision the batched action is compared with
``PastonHeuristicAgent().act`` and with the reference (``paston_heuristic_reference.py``, the
heuristic's first, pure-Python form) on the same observation and mask.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from folkcards.agents import paston_heuristic as ph
from folkcards.agents import paston_heuristic_core as core
from folkcards.agents.paston_heuristic import PastonHeuristicAgent, PastonParams
from folkcards.agents.paston_heuristic_batched import (
    BatchedPastonHeuristic,
    py_round6,
    suit_tricks_batched,
)
from folkcards.envs import paston_v0
from folkcards.envs.paston.observation import OBSERVATION_SIZE, OFFSETS
from folkcards.envs.paston.vocabulary import (
    NUM_ACTIONS,
    NUM_LEVELS,
    PASS,
    PHASE_NAMES,
    SURRENDER,
    WHIST,
)

from . import paston_heuristic_reference as ref

# the share of random actions, by game (game i uses RANDOM_SHARE[i % 4]): pure heuristic games
# reach the states the heuristic plays into, random ones every bid, contract and defence
RANDOM_SHARE = (0.0, 0.15, 0.5, 1.0)


def _one_hot(row: np.ndarray, name: str, size: int) -> int:
    hits = np.flatnonzero(row[OFFSETS[name] : OFFSETS[name] + size])
    return int(hits[0]) if len(hits) else -1


def _categories(row: np.ndarray, mask_row: np.ndarray, action: int) -> list[str]:
    """What a decision exercises: its phase and, for real choices, finer facts."""
    phase = PHASE_NAMES[_one_hot(row, "phase", len(PHASE_NAMES))]
    if np.count_nonzero(mask_row) == 1:
        return [f"{phase} forced"]
    cats = [phase]
    if phase == "auction":
        cats.append("auction pass" if action == PASS else "bid")
    elif phase == "discard":
        hand = int(row[OFFSETS["hand"] : OFFSETS["hand"] + 32].sum())
        cats.append(f"discard from {hand}")
    elif phase == "contract":
        cats.append("surrender" if action == SURRENDER else "contract named")
    elif phase == "defence":
        cats.append("whist" if action == WHIST else "defence pass")
    elif phase == "play":
        whists = int(row[OFFSETS["whist"] : OFFSETS["whist"] + 3].sum())
        cats.append(f"play {1 + whists} players")
        cats.append(f"play level {_one_hot(row, 'contract', NUM_LEVELS)}")
        leading = _one_hot(row, "trick_leader", 3) < 0
        cats.append("play lead" if leading else "play follow")
    return cats


def play_and_compare(
    num_envs: int,
    steps: int,
    seed: int,
    params: PastonParams | None = None,
) -> Counter[str]:
    """Play ``steps`` steps of ``num_envs`` games; every decision of every step is asked of the
    reference, the per-game and the batched heuristic, and all must agree. Returns the decisions
    counted by category."""
    agent = ref.ReferencePastonHeuristicAgent(params=params)
    agent.strict = True  # a rule that raises shows as its error, not as a mismatch
    per_game = PastonHeuristicAgent(params=params)
    per_game.strict = True
    batched = BatchedPastonHeuristic(params=params)
    vec = paston_v0.vector_env(num_envs)
    obs, mask, _ = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    share = np.array([RANDOM_SHARE[i % len(RANDOM_SHARE)] for i in range(num_envs)])
    counts: Counter[str] = Counter()
    for _ in range(steps):
        actions = batched.act(obs, mask)
        assert actions.dtype == np.int64 and actions.shape == (num_envs,)
        for i in range(num_envs):
            expected = agent.act({"observation": obs[i], "action_mask": mask[i]})
            assert actions[i] == expected, (
                f"decision {sum(counts.values())}: batched {actions[i]}, reference {expected}"
            )
            single = per_game.act({"observation": obs[i], "action_mask": mask[i]})
            assert single == expected, (
                f"decision {sum(counts.values())}: per-game {single}, reference {expected}"
            )
            counts["decisions"] += 1
            counts.update(_categories(obs[i], mask[i], expected))
        random_actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)
        take_random = rng.random(num_envs) < share
        obs, mask, *_ = vec.step(np.where(take_random, random_actions, actions))
    return counts


# what every run must have visited (real choices, not forced moves), per 10,000 decisions
MINIMUM_PER_10K = {
    "auction": 1500,
    "bid": 300,
    "auction pass": 500,
    "discard from 12": 400,
    "discard from 11": 400,
    "contract": 400,
    "surrender": 40,
    "contract named": 250,
    "defence": 500,
    "whist": 100,
    "defence pass": 400,
    "play": 3000,
    "play 3 players": 600,
    "play 2 players": 1000,
    "play lead": 900,
    "play follow": 800,
    **{f"play level {level}": 250 for level in range(4)},
    "play level 4": 50,  # best spades
}


def _assert_visited(counts: Counter[str]) -> None:
    scale = counts["decisions"] / 10_000
    short = {
        cat: counts[cat] for cat, need in MINIMUM_PER_10K.items() if counts[cat] < need * scale
    }
    assert not short, f"too few decisions of some kinds: {short} (all: {dict(counts)})"


def test_same_decisions_as_the_per_game_heuristic():
    counts = play_and_compare(num_envs=128, steps=190, seed=7)
    assert counts["decisions"] >= 24_000
    _assert_visited(counts)


@pytest.mark.slow
def test_same_decisions_many_games():
    counts = Counter[str]()
    for seed in range(8):
        counts.update(play_and_compare(num_envs=256, steps=110, seed=100 + seed))
    assert counts["decisions"] >= 220_000
    _assert_visited(counts)


def test_same_decisions_with_other_params():
    params = PastonParams(
        prikup_bonus=0.6,
        declarer_shift=0.3,
        bid_margin=0.4,
        best_spades_margin=2.0,
        all_pass_bonus=0.0,
        other_whist_prob=0.6,
        whist_margin=-0.5,
    )
    counts = play_and_compare(num_envs=64, steps=80, seed=3, params=params)
    assert counts["decisions"] == 64 * 80
    assert counts["whist"] > 0 and counts["discard"] > 0


def test_suit_tricks_agree_on_every_suit():
    """Every (held, outstanding) pair of rank masks, as trumps and as a side suit under every
    trump control."""
    checked = 0
    for mine in range(256):
        rest = 0xFF & ~mine
        out = rest
        while True:  # every subset of the ranks not held
            for trump, control in [(True, 2)] + [(False, c) for c in range(5)]:
                got = suit_tricks_batched(mine, out, trump, control)
                want = ref.suit_tricks(mine, out, trump, control)
                assert got == want, (mine, out, trump, control, got, want)
                assert ph.suit_tricks(mine, out, trump, control) == want
                checked += 1
            if out == 0:
                break
            out = (out - 1) & rest
    assert checked == 6 * 3**8


def test_round6_is_pythons_round():
    rng = np.random.default_rng(11)
    values = list(rng.uniform(-60, 60, 20_000)) + list(rng.uniform(-1e-3, 1e-3, 2_000))
    # near and at the halfway points between multiples of 1e-6, and exact dyadic ties
    for k in rng.integers(-60_000_000, 60_000_000, 3_000):
        mid = (int(k) + 0.5) / 1e6
        values += [mid, math.nextafter(mid, math.inf), math.nextafter(mid, -math.inf)]
    values += [odd / 128 for odd in range(-2001, 2002, 2)]  # x * 1e6 ends in .5 exactly
    values += [0.0, -0.0, 1e-7, 5e-7, -5e-7, 2.5e-6, 1e300, math.inf, -math.inf]
    for x in values:
        got, want = py_round6(float(x)), round(float(x), 6)
        assert got == want and math.copysign(1, got) == math.copysign(1, want), (x, got, want)
    assert math.isnan(py_round6(math.nan))


def test_masks_of_any_integer_or_bool_type_and_empty_batches():
    vec = paston_v0.vector_env(32)
    obs, mask, _ = vec.reset(seed=5)
    batched = BatchedPastonHeuristic()
    want = batched.act(obs, mask)
    for dtype in (np.bool_, np.int8, np.int32, np.int64, np.uint8):
        np.testing.assert_array_equal(batched.act(obs, mask.astype(dtype)), want)
    np.testing.assert_array_equal(batched.act(obs.astype(np.float64), mask), want)
    np.testing.assert_array_equal(batched.act(obs[::-1], mask[::-1]), want[::-1])
    empty = batched.act(np.zeros((0, OBSERVATION_SIZE), np.float32), np.zeros((0, NUM_ACTIONS)))
    assert empty.shape == (0,) and empty.dtype == np.int64


@pytest.mark.parametrize(
    ("obs_shape", "mask_shape", "message"),
    [
        ((OBSERVATION_SIZE,), (NUM_ACTIONS,), "obs must have shape"),
        ((4, OBSERVATION_SIZE + 1), (4, NUM_ACTIONS), "obs must have shape"),
        ((4, OBSERVATION_SIZE), (4, NUM_ACTIONS - 1), "mask must have shape"),
        ((4, OBSERVATION_SIZE), (3, NUM_ACTIONS), "obs has 4 rows but mask has 3"),
        ((2, 3, OBSERVATION_SIZE), (2, NUM_ACTIONS), "obs must have shape"),
    ],
)
def test_bad_shapes(obs_shape, mask_shape, message):
    with pytest.raises(ValueError, match=message):
        BatchedPastonHeuristic().act(np.zeros(obs_shape, np.float32), np.ones(mask_shape, bool))


def test_a_row_without_legal_action_is_named():
    vec = paston_v0.vector_env(6)
    obs, mask, _ = vec.reset(seed=2)
    mask = mask.copy()
    mask[4] = 0
    with pytest.raises(ValueError, match="row 4 of the mask has no legal action"):
        BatchedPastonHeuristic().act(obs, mask)
    with pytest.raises(ValueError, match="no legal action"):  # the per-game agent agrees
        PastonHeuristicAgent().act({"observation": obs[4], "action_mask": mask[4]})
    with pytest.raises(ValueError, match="mask must be a bool or integer array"):
        BatchedPastonHeuristic().act(obs, mask.astype(str))


def test_trick_estimates_bit_for_bit():
    """The compiled estimates (and the per-game module's functions, which call them) equal the
    reference's exactly (the order of every float sum, as CPython's ``sum`` does it on this
    Python version), on random hands."""
    tables = core.tables(PastonParams())
    rng = np.random.default_rng(4)
    for _ in range(3000):
        cards = rng.permutation(32)
        hand = sum(1 << int(c) for c in cards[:10])
        gone = sum(1 << int(c) for c in cards[10 : 10 + int(rng.integers(0, 12))])
        trump = int(rng.integers(4))
        want = ref.declarer_tricks(hand, gone, trump)
        assert core.declarer_tricks(hand, gone, trump, *tables) == want
        assert ph.declarer_tricks(hand, gone, trump) == want
        for sole in (False, True):
            want = ref.defence_tricks(hand, trump, sole)
            assert core.defence_tricks(hand, trump, sole, *tables) == want
            assert ph.defence_tricks(hand, trump, sole) == want
        mean, sigma = float(rng.uniform(-2, 12)), float(rng.uniform(0.5, 2))
        level, factor = int(rng.integers(NUM_LEVELS)), int(rng.integers(1, 5))
        want = ref.contract_value(mean, level, sigma)
        assert core.contract_value(mean, level, sigma, *tables) == want
        assert ph.contract_value(mean, level, sigma) == want
        for sole in (False, True):
            want = ref.defence_value(mean, sigma, sole, factor)
            assert core.defence_value(mean, sigma, sole, factor, *tables) == want
            assert ph.defence_value(mean, sigma, sole, factor) == want
        flags = {k: bool(rng.integers(2)) for k in ("all_pass", "first_speaker", "other_whisted")}
        params = PastonParams(other_whist_prob=float(rng.uniform()), whist_margin=mean / 10)
        for p in (None, params):
            assert ph.defence_call(hand, level, params=p, **flags) == ref.defence_call(
                hand, level, params=p, **flags
            )


def test_rows_outside_the_deal_get_the_first_legal_action():
    """A row whose phase is "over" (or absent): the per-game agent falls back to its first legal
    action, and so does the batched one."""
    vec = paston_v0.vector_env(16)
    obs, mask, _ = vec.reset(seed=9)
    obs = obs.copy()
    phase = slice(OFFSETS["phase"], OFFSETS["phase"] + len(PHASE_NAMES))
    obs[:, phase] = 0
    obs[::2, OFFSETS["phase"] + len(PHASE_NAMES) - 1] = 1  # "over" on every other row
    agent = ref.ReferencePastonHeuristicAgent()
    want = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)]
    np.testing.assert_array_equal(BatchedPastonHeuristic().act(obs, mask), want)
    per_game = PastonHeuristicAgent()
    pairs = zip(obs, mask, strict=True)
    assert [per_game.act({"observation": o, "action_mask": m}) for o, m in pairs] == want
    assert want == [int(np.flatnonzero(m)[0]) for m in mask]
