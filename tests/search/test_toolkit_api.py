"""The search toolkit's API, Paston side: the sampler's seat is required and checked, one form for a trick,
the target query and the batch calls equal to single calls."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.envs import paston_v0
from folkcards.envs.paston.rules import PLAY
from folkcards.search import paston_belief as pb
from folkcards.search.paston_solver import (
    PastonSolver,
    Position,
    can_make,
    move_values,
    move_values_many,
    solve,
    solve_many,
)

from .test_belief import find_paston
from .test_paston_solver import random_ending


def _mid_trick(env, observer) -> bool:
    deal = env.state_deal()
    return deal.phase == PLAY and deal.trick_count >= 2 and len(deal.trick) >= 1


def test_sample_worlds_requires_the_observer_seat():
    env = paston_v0.raw_env()
    env.reset(seed=0)
    obs = env.observe("player_2")["observation"]
    with pytest.raises(ValueError, match="needs observer="):
        pb.sample_worlds(obs, 1, np.random.default_rng(0))


def test_a_wrong_observer_seat_is_refused_in_one_line():
    env, observer = find_paston(lambda e, o: _mid_trick(e, o) and o == 2)
    obs = env.observe("player_2")
    context = pb.public_context(env, observer)
    for wrong in (0, 1):
        with pytest.raises(ValueError, match="observer does not match") as info:
            pb.sample_worlds(obs, 3, np.random.default_rng(0), **{**context, "observer": wrong})
        assert "\n" not in str(info.value)
    worlds = pb.sample_worlds(obs, 3, np.random.default_rng(0), **context)
    assert all(w.hands[2] == env.state_deal().hands[2] for w in worlds)


def test_world_positions_take_the_trick_as_seat_card_pairs():
    env, observer = find_paston(lambda e, o: _mid_trick(e, o) and len(e.state_deal().trick) == 2)
    deal = env.state_deal()
    context = pb.public_context(env, observer)
    obs = env.observe(f"player_{observer}")
    for world in pb.sample_worlds(obs, 10, np.random.default_rng(1), **context):
        position = world.solver_position()
        assert position.trick_pairs == world.trick == tuple(deal.trick)
        same = Position(world.hands, world.trump, world.declarer, world.active, trick=world.trick)
        assert (same.leader, same.trick) == (position.leader, position.trick)
    pairs = tuple(deal.trick)
    hands = list(deal.hands)
    with pytest.raises(ValueError, match="led by"):
        Position(hands, deal.trump, deal.declarer, deal.active, leader=pairs[1][0], trick=pairs)
    swapped = [(pairs[1][0], pairs[0][1]), (pairs[0][0], pairs[1][1])]
    with pytest.raises(ValueError):
        Position(hands, deal.trump, deal.declarer, deal.active, trick=swapped)


def test_a_passers_hand_may_be_left_out():
    full = Position(["AS 7C", "AC KC", "AD KD"], "S", declarer=0, active=[0, 1])
    for hands in (["AS 7C", "AC KC", None], {0: "AS 7C", 1: "AC KC"}):
        short = Position(hands, "S", declarer=0, active=[0, 1])
        assert short.play_hands() == full.play_hands()
        assert solve(short) == solve(full)
    with pytest.raises(ValueError, match="keys must be seats"):
        Position({0: "AS 7C", 5: "AC KC"}, "S", declarer=0, active=[0, 1])


@pytest.mark.parametrize("sole", [False, True])
def test_target_query_agrees_with_solve(sole):
    rng = np.random.default_rng(5)
    solver = PastonSolver(tt_bits=16)
    for _ in range(25):
        position = random_ending(rng, int(rng.integers(1, 9)), sole)
        value = solver.solve(position)
        for target in range(0, 11):
            assert solver.can_make(position, target) == (value >= target), (position, target)
        assert can_make(position, value) and not can_make(position, value + 1 if value < 10 else 11)


def test_target_query_bad_input():
    position = Position(["AS 7C", "AC KC", "AD KD"], "S", declarer=0)
    for bad in (-1, 11, 2.0, True, "6"):
        with pytest.raises(ValueError, match="target"):
            can_make(position, bad)


def test_batch_calls_equal_single_calls():
    rng = np.random.default_rng(8)
    positions = [
        random_ending(rng, int(rng.integers(1, 9)), bool(rng.integers(2))) for _ in range(40)
    ]
    values = solve_many(positions)
    assert values.dtype == np.int64 and values.tolist() == [solve(p) for p in positions]
    assert move_values_many(positions) == [move_values(p) for p in positions]
    solver = PastonSolver(tt_bits=12)
    assert solver.solve_many(positions).tolist() == values.tolist()
    assert solve_many([]).tolist() == []
    with pytest.raises(ValueError, match="sequence of Position"):
        solve_many(positions[0])
    with pytest.raises(ValueError, match="Position objects"):
        solve_many([positions[0], "AS"])


def test_batch_over_sampled_worlds():
    env, observer = find_paston(lambda e, o: _mid_trick(e, o))
    context = pb.public_context(env, observer)
    worlds = pb.sample_worlds(
        env.observe(f"player_{observer}"), 16, np.random.default_rng(2), **context
    )
    positions = [w.solver_position() for w in worlds]
    assert solve_many(positions).tolist() == [solve(p) for p in positions]


def test_world_arrays_are_the_sampled_worlds():
    env, observer = find_paston(lambda e, o: _mid_trick(e, o) and e.state_deal().declarer != o)
    context = pb.public_context(env, observer)
    obs = env.observe(f"player_{observer}")
    arrays = pb.sample_world_arrays(obs, 50, np.random.default_rng(6), **context)
    worlds = pb.sample_worlds(obs, 50, np.random.default_rng(6), **context)
    assert len(arrays) == 50 and arrays.hands.shape == (50, 3)
    assert [arrays.world(k) for k in range(50)] == worlds
    assert arrays.hands[:, observer].tolist() == [env.state_deal().hands[observer]] * 50
    positions = arrays.solver_positions()
    assert solve_many(positions).tolist() == [solve(w.solver_position()) for w in worlds]
