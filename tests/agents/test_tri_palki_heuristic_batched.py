"""The batched Tri Palki heuristic and features against the per-game ones (batched
opponents): every decision of games played through the vector env at 2, 4, 7 and 11 players
(and of matches with eliminated seats through the AEC env) must get the action
``TriPalkiHeuristicAgent().act`` gives and the feature row ``features.tri_palki_actions`` gives,
exactly. Both now call the rules compiled once in ``agents/tri_palki_heuristic_core.py``, so
every decision and assessment is also checked against the Python heuristic they replaced
(``tri_palki_heuristic_reference.py``: behaviour unchanged). The games mix heuristic and uniformly random legal actions, so announcements, final
turns, washes, round-ending washes, deciding passes and special hands all occur; the kinds of
decision met are counted and a minimum of each is required, so the test cannot pass on an
empty or one-sided sample.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import astuple

import numpy as np
import pytest
from folkcards.agents.features import tri_palki_actions
from folkcards.agents.tri_palki_heuristic import TriPalkiHeuristicAgent
from folkcards.agents.tri_palki_heuristic_batched import (
    BatchedTriPalkiHeuristic,
    tri_palki_actions_batch,
)
from folkcards.envs import tri_palki_v0
from folkcards.envs.tri_palki.observation import decode, observation_offsets, observation_size
from folkcards.envs.tri_palki.vocabulary import ANNOUNCE, NUM_ACTIONS, PASS, SWAP_ALL

from .tri_palki_heuristic_reference import ReferenceTriPalkiHeuristic

_MOVE_FEATURES = 7  # features.py: per move legal, value, special, score, washes, ends round, feed
WASHES, ENDS_ROUND, FEED = 4, 5, 6


def _random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    counts = mask.sum(axis=1)
    pick = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    return np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)


def _classify(kinds: Counter, mask: np.ndarray, action: int, row: np.ndarray, dim: int) -> None:
    """Count the kinds of decision met, from the per-game feature row (``dim``: observation
    size): hand value and kind, deciding pass, low reserve, final turn, and each move's wash,
    round end and feeding cost."""
    kinds["decisions"] += 1
    if mask[ANNOUNCE]:
        kinds["announce offered"] += 1
        return
    value, special, pass_ends, reserve_low, announced = row[dim : dim + 5]
    moves = row[-(SWAP_ALL + 1) * _MOVE_FEATURES :].reshape(SWAP_ALL + 1, _MOVE_FEATURES)
    swaps = moves[1:]
    kinds["pass" if action == PASS else "swap all" if action == SWAP_ALL else "single swap"] += 1
    if announced:
        kinds["final turn"] += 1
        kinds["final turn swap"] += action != PASS
    kinds["deciding pass offered"] += bool(pass_ends)
    kinds["deciding pass taken"] += bool(pass_ends) and action == PASS
    kinds["reserve low"] += bool(reserve_low)
    kinds["special hand"] += bool(special)
    kinds["strong hand"] += not special and round(value * 31) >= 30
    kinds["wash possible"] += bool(swaps[:, WASHES].any())
    kinds["wash chosen"] += action != PASS and bool(moves[action, WASHES])
    kinds["round-ending wash possible"] += bool(swaps[:, ENDS_ROUND].any())
    kinds["round-ending wash chosen"] += action != PASS and bool(moves[action, ENDS_ROUND])
    kinds["feeding cost"] += bool((swaps[:, FEED] > 0).any())
    kinds["third ace withheld"] += bool((swaps[:, FEED] >= 1.5).any())  # a gift costs 15 / 10


def _compare(
    obs: np.ndarray, mask: np.ndarray, batched: BatchedTriPalkiHeuristic, kinds: Counter
) -> np.ndarray:
    """Check every row of a batch against the per-game agent and features; the actions."""
    agent = TriPalkiHeuristicAgent()
    reference = ReferenceTriPalkiHeuristic()
    actions = batched.act(obs, mask)
    features = tri_palki_actions_batch(obs)
    assert actions.dtype == np.int64 and actions.shape == (obs.shape[0],)
    assert features.dtype == np.float32
    for i in range(obs.shape[0]):
        expected = agent.act({"observation": obs[i], "action_mask": mask[i]})
        assert actions[i] == expected, f"row {i}: batched {actions[i]}, per game {expected}"
        observation = {"observation": obs[i], "action_mask": mask[i]}
        assert reference.act(observation) == expected, f"row {i}: reference differs"
        view = decode(obs[i])
        if len(view.hand) == 3 and len(view.centre) == 3:
            moves = list(range(1, SWAP_ALL + 1))
            keep, options = agent.assess(view, moves)
            ref_keep, ref_options = reference.assess(view, moves)
            assert keep == ref_keep and list(map(astuple, options)) == list(
                map(astuple, ref_options)
            ), f"row {i}: assessments differ from the reference"
        row = tri_palki_actions(obs[i])
        if not np.array_equal(features[i], row):
            bad = np.flatnonzero(features[i] != row)
            raise AssertionError(
                f"row {i}: features differ at {bad}: {features[i, bad]} {row[bad]}"
            )
        _classify(kinds, mask[i], expected, row, obs.shape[1])
    return actions


def play_and_compare(num_players: int, decisions: int, seed: int, num_envs: int = 64) -> Counter:
    """Play the vector env, each game with its own share of heuristic moves (the rest random),
    comparing every decision until ``decisions`` have been compared; the kinds met."""
    rng = np.random.default_rng(seed)
    vec = tri_palki_v0.vector_env(num_envs, num_players=num_players)
    batched = BatchedTriPalkiHeuristic(num_players)
    share = rng.choice([0.0, 0.5, 0.8, 0.95], size=num_envs)
    obs, mask, _ = vec.reset(seed=seed)
    kinds: Counter = Counter()
    rounds = 0
    while kinds["decisions"] < decisions:
        actions = _compare(obs, mask, batched, kinds)
        actions = np.where(rng.random(num_envs) < share, actions, _random_legal(mask, rng))
        obs, mask, _, _, terminated, truncated, _ = vec.step(actions)
        rounds += int(terminated.sum() + truncated.sum())
    kinds["rounds"] = rounds
    return kinds


# Kinds of decision each run must meet: COMMON ones at every table size (at least 1% of the
# decisions; 2.5-50% measured), the others at least 10 times (at every table size in the slow
# test, LOW_RESERVE from 5 players up, DECIDING_PASS up to 10; over the four sizes in the
# default one).
COMMON = ("pass", "single swap", "swap all", "wash possible", "feeding cost")
# ("wash chosen" is rare with 11 players: no reserve, so every wash ends the round)
RARE = (
    "announce offered", "final turn", "final turn swap", "special hand", "strong hand",
    "third ace withheld", "wash chosen",
)  # fmt: skip
# A low reserve needs many washes: frequent with many players (a small reserve), rare with few.
LOW_RESERVE = ("reserve low", "round-ending wash possible", "round-ending wash chosen")
# A deciding pass needs all the others to pass in a row: rare with many players.
DECIDING_PASS = ("deciding pass offered", "deciding pass taken")


def _check_coverage(kinds: Counter, minimum: int, kind_names: tuple[str, ...]) -> None:
    for kind in kind_names:
        assert kinds[kind] >= minimum, f"only {kinds[kind]} decisions of kind {kind!r}: {kinds}"


def test_same_decisions_and_features_as_per_game():
    """20,000 decisions at 2, 4, 7 and 11 players (the batch sizes cover the one-thread and the
    threaded paths)."""
    total: Counter = Counter()
    for num_players, num_envs in [(2, 16), (4, 24), (7, 64), (11, 96)]:
        kinds = play_and_compare(num_players, 5_000, seed=num_players, num_envs=num_envs)
        assert kinds["decisions"] >= 5_000 and kinds["rounds"] >= 50, (num_players, kinds)
        _check_coverage(kinds, 50, COMMON)
        total += kinds
    _check_coverage(total, 10, RARE + LOW_RESERVE + DECIDING_PASS)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
def test_same_decisions_and_features_as_per_game_many(num_players: int):
    """30,000 decisions at every table size."""
    kinds = play_and_compare(num_players, 30_000, seed=1000 + num_players, num_envs=64)
    _check_coverage(kinds, 300, COMMON)
    _check_coverage(kinds, 10, RARE)
    _check_coverage(kinds, 10, LOW_RESERVE if num_players >= 5 else ())
    _check_coverage(kinds, 10, DECIDING_PASS if num_players <= 10 else ())


def test_eliminated_seats_in_matches():
    """Match play (AEC env) gives observations with eliminated seats, which the heuristic skips
    when it weighs what its swap feeds the next player (the vector env plays single rounds with
    every seat in). Matches start with 3 sticks each, so the first round eliminates; the
    decisions with an eliminated seat are compared."""
    rng = np.random.default_rng(7)
    agent = TriPalkiHeuristicAgent()
    kinds: Counter = Counter()
    for n in (4, 7, 11):
        env = tri_palki_v0.env(num_players=n, episode="match")
        start = observation_offsets(n)["eliminated"]
        rows, masks = [], []
        for seed in range(3):
            env.reset(seed=seed, options={"sticks": rng.integers(2, 4, n).tolist()})
            for _ in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                eliminated = observation["observation"][start : start + n]
                if eliminated.any():
                    rows.append(observation["observation"])
                    masks.append(observation["action_mask"])
                if rng.random() < 0.8:
                    env.step(agent.act(observation))
                else:
                    env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        obs = np.array(rows)
        _compare(obs, np.array(masks), BatchedTriPalkiHeuristic(n), kinds)
        # the next seat to act is then further round the table: a feeding cost goes to it
        feeds = tri_palki_actions_batch(obs)[:, -(SWAP_ALL + 1) * _MOVE_FEATURES :][:, FEED::7]
        next_out = obs[:, start + 1] != 0
        kinds["next seat eliminated"] += int(next_out.sum())
        kinds["next seat eliminated, feeding cost"] += int((next_out & (feeds > 0).any(1)).sum())
    assert kinds["decisions"] >= 1_000 and kinds["next seat eliminated"] >= 300, kinds
    assert kinds["next seat eliminated, feeding cost"] >= 20, kinds


def _sample_observations(num_players: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    vec = tri_palki_v0.vector_env(count, num_players=num_players)
    obs, mask, _ = vec.reset(seed=seed)
    for _ in range(int(rng.integers(5, 15))):
        obs, mask, *_ = vec.step(_random_legal(mask, rng))
    return obs.copy(), mask.copy()


def test_any_legal_subset_and_forced_moves():
    """Masks the env never gives (any subset of the 13 ids) get the per-game agent's answer:
    a forced move, announcing when offered, or its fallback when its choice is not legal."""
    rng = np.random.default_rng(3)
    obs, _ = _sample_observations(4, 400, seed=3)
    masks = (rng.random((400, NUM_ACTIONS)) < rng.choice([0.1, 0.5, 0.9], (400, 1))).astype(np.int8)
    masks[masks.sum(axis=1) == 0, rng.integers(NUM_ACTIONS)] = 1
    kinds: Counter = Counter()
    agent = TriPalkiHeuristicAgent()
    actions = BatchedTriPalkiHeuristic(4).act(obs, masks.astype(bool))
    for i in range(400):
        assert actions[i] == agent.act({"observation": obs[i], "action_mask": masks[i]})
        kinds["forced"] += masks[i].sum() == 1
        kinds["pass illegal"] += masks[i].sum() > 1 and not masks[i, PASS]
    assert kinds["forced"] >= 10 and kinds["pass illegal"] >= 50, kinds


def test_odd_observations_fall_back_as_the_per_game_agent():
    """Vectors the env never gives: the per-game agent's exceptions end in its fallback (pass,
    else the lowest legal id); the batched one gives the same, and the batched features refuse
    what the per-game features cannot decode."""
    n = 4
    o = observation_offsets(n)
    obs, mask = _sample_observations(n, 60, seed=5)
    obs = obs[mask[:, ANNOUNCE] == 0][:40]
    odd = []
    for k, row in enumerate(obs):
        row = row.copy()
        kind = k % 5
        if kind == 0:  # NaN / inf where decode rounds
            row[[o["reserve_count"], o["passes"], o["hand_value"]][k % 3]] = [np.nan, np.inf][k % 2]
        elif kind == 1:  # a hand card also in the centre
            hand = np.flatnonzero(row[o["hand"] : o["hand"] + 36])
            row[o["centre"] + hand[k % 3]] = 1.0
            centre = np.flatnonzero(row[o["centre"] : o["centre"] + 36])
            row[o["centre"] + centre[centre != hand[k % 3]][0]] = 0.0
        elif kind == 2:  # a two-card hand
            row[o["hand"] + np.flatnonzero(row[o["hand"] : o["hand"] + 36])[0]] = 0.0
        elif kind == 3:  # bits that are not 0/1
            row[: o["reserve_count"]] *= 0.5
        else:  # no phase bit
            row[o["phase"] : o["phase"] + 3] = 0.0
        odd.append(row)
    odd_obs = np.array(odd, dtype=np.float32)
    masks = np.zeros((len(odd), NUM_ACTIONS), dtype=np.int8)
    masks[:, : SWAP_ALL + 1] = 1
    masks[1::2, PASS] = 0  # the fallback is then the lowest legal id
    agent = TriPalkiHeuristicAgent()
    actions = BatchedTriPalkiHeuristic(n).act(odd_obs, masks)
    for i, row in enumerate(odd_obs):
        assert actions[i] == agent.act({"observation": row, "action_mask": masks[i]}), i
        try:
            expected = tri_palki_actions(row)
        except Exception:
            with pytest.raises(ValueError, match="row 0: not a Tri Palki observation"):
                tri_palki_actions_batch(row[None])
        else:
            assert np.array_equal(tri_palki_actions_batch(row[None])[0], expected), i


def test_empty_batches():
    for n in (2, 11):
        size = observation_size(n)
        actions = BatchedTriPalkiHeuristic(n).act(
            np.zeros((0, size), np.float32), np.zeros((0, NUM_ACTIONS), np.int8)
        )
        assert actions.shape == (0,) and actions.dtype == np.int64
        features = tri_palki_actions_batch(np.zeros((0, size), np.float32))
        assert features.shape == (0, tri_palki_actions(np.zeros(size, np.float32)).shape[0])
        assert features.dtype == np.float32


@pytest.mark.parametrize(
    "make, problem",
    [
        (lambda: BatchedTriPalkiHeuristic(1), "num_players"),
        (lambda: BatchedTriPalkiHeuristic(12), "num_players"),
        (lambda: BatchedTriPalkiHeuristic(True), "num_players"),  # type: ignore[arg-type]
        (lambda: BatchedTriPalkiHeuristic(4).act(np.zeros(301), np.ones(13)), r"\(M, 301\)"),
        (lambda: BatchedTriPalkiHeuristic(4).act(np.zeros((2, 300)), np.ones((2, 13))), "301"),
        (lambda: BatchedTriPalkiHeuristic(4).act(np.zeros((2, 301)), np.ones((3, 13))), "mask"),
        (lambda: BatchedTriPalkiHeuristic(4).act(np.zeros((2, 301)), np.ones((2, 12))), "mask"),
        (
            lambda: BatchedTriPalkiHeuristic(4).act(np.full((2, 301), "x"), np.ones((2, 13))),
            "numbers",
        ),
        (lambda: tri_palki_actions_batch(np.zeros(301)), "2-d"),
        (lambda: tri_palki_actions_batch(np.zeros((2, 300))), "300 elements"),
        (lambda: tri_palki_actions_batch(np.full((2, 301), None)), "numbers"),
    ],
)
def test_bad_input_raises_one_clear_line(make, problem):
    with pytest.raises(ValueError, match=problem) as error:
        make()
    assert "\n" not in str(error.value)


def test_empty_mask_row_is_named():
    obs, mask = _sample_observations(4, 8, seed=9)
    mask[5] = 0
    with pytest.raises(ValueError, match="row 5: the action mask has no legal action"):
        BatchedTriPalkiHeuristic(4).act(obs, mask)


def test_other_dtypes_give_the_same_answers():
    """float64 observations and bool / float masks (the per-game agent takes any of them)."""
    obs, mask = _sample_observations(7, 100, seed=11)
    batched = BatchedTriPalkiHeuristic(7)
    expected = batched.act(obs, mask)
    assert np.array_equal(batched.act(obs.astype(np.float64), mask.astype(bool)), expected)
    assert np.array_equal(batched.act(obs, mask.astype(np.float32)), expected)
    assert np.array_equal(
        tri_palki_actions_batch(obs.astype(np.float64)), tri_palki_actions_batch(obs)
    )
