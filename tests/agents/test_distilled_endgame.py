"""The distilled player's searches (``distilled[:endgame=K,endgame_samples=S,calls=0|1,discard_search=0|1]``).

From the docs (guide/distilled.md): in Paston the expert's learned calls make every bid,
discard, contract and whist call (except the whist after an all-pass), exactly as
``expert:discard_search=0`` would (``calls=0``: the network's); in the card play the committed
network plays until the seat holds ``endgame`` cards or fewer (10 by default: every card); from
there each card with a choice is PIMC's card play over ``endgame_samples`` worlds (64) solved
open-handed (``endgame=0``: the network's). ``calls=0,endgame=0`` is the network alone. The
batched form makes the same choices row by row, each from the row's own random stream, so a
game's choices do not depend on the rest of the batch.
"""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.batched_agents import make_batched_agent
from folkcards.agents.pimc import PimcAgent, PimcParams
from folkcards.envs import paston_v0
from folkcards.envs.paston import observation as obs_mod

from tests.helpers import walk_decisions


def _hand_size(observation) -> int:
    return len(obs_mod.decode(np.asarray(observation["observation"])).hand)


def _is_play(observation) -> bool:
    return obs_mod.decode(np.asarray(observation["observation"])).phase == "play"


def _is_call(observation) -> bool:
    """A decision the learned calls make: bid, discard, contract, whist (not after all-pass)."""
    view = obs_mod.decode(np.asarray(observation["observation"]))
    return view.phase in ("auction", "discard", "contract") or (
        view.phase == "defence" and not view.all_pass
    )


NETWORK = "distilled:calls=0,endgame=0"


def test_distilled_plays_every_card_by_pimc_over_64_worlds_by_default():
    env = paston_v0.raw_env()
    seats = env.possible_agents
    finished = {
        s: make_agent("distilled:calls=0", "paston", seat=s, seed=11 + i)
        for i, s in enumerate(seats)
    }
    network = make_agent(NETWORK, "paston")
    # the same searches, run beside: same seed, called at the same decisions
    twins = {s: PimcAgent("paston", s, 11 + i, PimcParams(samples=64)) for i, s in enumerate(seats)}
    searched = by_network = 0
    for seat, observation, action in walk_decisions(
        env, range(30), lambda name, obs: finished[name].act(obs)
    ):
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert action in legal
        if len(legal) > 1 and _is_play(observation):
            vector = np.asarray(observation["observation"])
            view = obs_mod.decode(vector)
            twins[seat]._note_dealer(view)
            assert action == twins[seat]._play(vector, view, legal)
            searched += 1
        else:
            assert action == network.act(observation)
            by_network += 1
    assert searched > 40 and by_network > 40


def test_endgame_cards_and_samples_come_from_the_spec():
    env = paston_v0.raw_env()
    agent = make_agent("distilled:endgame=3,endgame_samples=4", "paston", seed=5)
    twin = PimcAgent("paston", "player_0", 5, PimcParams(samples=4))
    network = make_agent(NETWORK, "paston")
    saw_four = saw_three = 0
    for _seat, observation, action in walk_decisions(env, range(30), lambda n, o: agent.act(o)):
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) < 2 or not _is_play(observation):
            continue
        size = _hand_size(observation)
        if size == 4:
            assert action == network.act(observation)
            saw_four += 1
        elif size <= 3:
            vector = np.asarray(observation["observation"])
            view = obs_mod.decode(vector)
            twin._note_dealer(view)
            assert action == twin._play(vector, view, legal)
            saw_three += 1
    assert saw_four > 5 and saw_three > 5


def _endgame_rows(count: int):
    """Observation rows and masks of card-play decisions with 6 or fewer cards in hand (the
    default endgame searches them)."""
    env = paston_v0.raw_env()
    network = make_agent(NETWORK, "paston")
    rows, masks = [], []
    for _seat, observation, _action in walk_decisions(env, range(40), lambda n, o: network.act(o)):
        if (
            len(rows) < count
            and observation["action_mask"].sum() > 1
            and _is_play(observation)
            and _hand_size(observation) <= 6
        ):
            rows.append(np.asarray(observation["observation"], np.float32))
            masks.append(np.asarray(observation["action_mask"], bool))
    return np.stack(rows), np.stack(masks)


def test_batched_distilled_rows_do_not_depend_on_the_batch():
    rows, masks = _endgame_rows(24)
    streams = np.random.default_rng(3).integers(0, 2**63, size=(len(rows), 4)).astype(np.uint64)
    batched = make_batched_agent("distilled", "paston", seed=1)
    together = batched.act(rows, masks, streams.copy())
    alone = [int(batched.act(rows[k : k + 1], masks[k : k + 1], streams[k : k + 1].copy())[0])
             for k in range(len(rows))]  # fmt: skip
    assert together.tolist() == alone
    assert all(masks[k, a] for k, a in enumerate(together))
    # the search decides these rows: its card differs from the network's on
    # some of them (else this test could not tell the two apart)
    network = make_batched_agent(NETWORK, "paston").act(rows, masks)
    assert (network != together).any()
    # without streams: seeded by the agent's seed
    again = make_batched_agent("distilled", "paston", seed=1).act(rows, masks)
    assert (
        again.tolist()
        == make_batched_agent("distilled", "paston", seed=1).act(rows, masks).tolist()
    )


@pytest.mark.parametrize(
    "spec, game, message",
    [
        ("distilled:foo.zip", "paston", "is not key=value"),
        ("distilled:endgame=six", "paston", "endgame needs an integer"),
        ("distilled:endgame=11", "paston", "endgame cards must be 0-10"),
        ("distilled:endgame_samples=0", "paston", "endgame samples must be at least 1"),
        ("distilled:endgame=4", "tri_palki", "tri_palki has no endgame search"),
        ("distilled:endgame=4", "paston_bidding", "paston_bidding has no endgame search"),
        ("distilled:calls=2", "paston", "calls is 0 or 1"),
        ("distilled:calls=yes", "paston", "calls needs an integer"),
        ("distilled:calls=1", "tri_palki", "tri_palki has no learned calls"),
        ("distilled:unsure=2", "tri_palki", "unsure must be in \\[0, 1\\]"),
        ("distilled:unsure=sure", "tri_palki", "unsure needs a number"),
        ("distilled:unsure=0.9", "paston", "paston has no search for unsure decisions"),
        ("distilled:discard_search=2", "paston", "discard_search is 0 or 1"),
        ("distilled:discard_search=1", "tri_palki", "tri_palki has no learned calls"),
        ("distilled:calls=0,discard_search=1", "paston", "calls=0 turns them off"),
        ("distilled:calls_model=refit_2", "tri_palki", "tri_palki has none here"),
        ("distilled:calls=0,calls_model=refit_2", "paston", "paston has none here"),
        ("distilled:calls_model=no_such_evaluator", "paston", "cannot read the Paston evaluator"),
    ],
)
def test_bad_distilled_specs_are_refused_in_one_line(spec, game, message):
    with pytest.raises(ValueError, match=message) as error:
        make_agent(spec, game)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match=message):
        make_batched_agent(spec, game, 3)


def test_games_without_searches_play_the_network():
    assert make_agent("distilled:endgame=0", "tri_palki").searches == ()
    assert make_agent("distilled", "tri_palki").searches == ()
    assert make_agent(NETWORK, "paston").searches == ()
    assert make_agent(NETWORK, "paston").unsure is None  # Paston has no unsure search
    assert make_agent("distilled:unsure=0", "tri_palki").unsure is None


def test_a_new_episode_resets_the_search_state():
    agent = make_agent("distilled", "paston", seed=1)
    endgame = agent.searches[-1]
    endgame.search._first_dealer = 2
    endgame.search._other_dealer_seen = True
    agent.reset()
    assert endgame.search._first_dealer is None
    assert not endgame.search._other_dealer_seen


def test_the_calls_are_the_experts_and_the_rest_is_unchanged():
    """Every call with a choice is what ``expert:discard_search=0`` calls in that seat (the
    evaluator ``refit_2``, ``expert``'s); every other decision is what the player without calls plays (both search from
    8 cards, so that the network's cards of the first two tricks are compared too)."""
    env = paston_v0.raw_env()
    seats = env.possible_agents
    player = {
        s: make_agent("distilled:endgame=8", "paston", seat=s, seed=3 + i)
        for i, s in enumerate(seats)
    }
    without_calls = {
        s: make_agent("distilled:calls=0,endgame=8", "paston", seat=s, seed=3 + i)
        for i, s in enumerate(seats)
    }
    expert = {s: make_agent("expert:discard_search=0", "paston", seat=s) for s in seats}
    network = make_agent(NETWORK, "paston")
    calls = differs = by_calls_off = 0
    phases = set()
    for seat, observation, action in walk_decisions(
        env, range(40), lambda name, obs: player[name].act(obs)
    ):
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert action in legal
        if len(legal) < 2:
            continue
        if _is_call(observation):
            assert action == expert[seat].act(observation)
            phases.add(obs_mod.decode(np.asarray(observation["observation"])).phase)
            calls += 1
            differs += action != network.act(observation)
        elif not _is_play(observation) or _hand_size(observation) > 8:
            assert action == without_calls[seat].act(observation)
            by_calls_off += 1
    assert phases == {"auction", "discard", "contract", "defence"}
    assert calls > 60 and by_calls_off > 30
    assert differs > 0  # the network calls otherwise on some (else the test tells nothing)


def test_calls_model_names_the_evaluator_of_the_calls():
    """``distilled:calls_model=open_hand`` (the calls before 0.12.0) calls as
    ``expert:discard_search=0,model=open_hand``; the default calls (``refit_2``) differ."""
    env = paston_v0.raw_env()
    seats = env.possible_agents
    player = {s: make_agent("distilled:calls_model=open_hand", "paston", seat=s) for s in seats}
    expert = {
        s: make_agent("expert:discard_search=0,model=open_hand", "paston", seat=s) for s in seats
    }
    default = {s: make_agent("distilled", "paston", seat=s) for s in seats}
    calls = differs = 0
    for seat, observation, action in walk_decisions(
        env, range(30), lambda name, obs: player[name].act(obs)
    ):
        if observation["action_mask"].sum() > 1 and _is_call(observation):
            assert action == expert[seat].act(observation)
            calls += 1
            differs += action != default[seat].act(observation)
    assert calls > 40 and differs > 0


def _call_rows(count: int):
    env = paston_v0.raw_env()
    network = make_agent(NETWORK, "paston")
    rows, masks = [], []
    for _seat, observation, _action in walk_decisions(env, range(40), lambda n, o: network.act(o)):
        if len(rows) < count and observation["action_mask"].sum() > 1 and _is_call(observation):
            rows.append(np.asarray(observation["observation"], np.float32))
            masks.append(np.asarray(observation["action_mask"], bool))
    return np.stack(rows), np.stack(masks)


def test_batched_calls_are_the_per_game_players():
    """Row by row, the batched form's calls are the per-game player's, reseeded as the batched
    form reseeds its search for each row (a row whose first discard was not the evaluator's
    pair falls back to the discard search, which draws from that seed)."""
    rows, masks = _call_rows(40)
    together = make_batched_agent("distilled", "paston", seed=2).act(rows, masks)
    player = make_agent("distilled", "paston", seed=2)
    row_seeds = np.random.default_rng(2)
    expected = []
    for r, m in zip(rows, masks, strict=True):
        player.reseed(int(row_seeds.integers(2**63)))
        expected.append(player.act({"observation": r, "action_mask": m}))
    assert together.tolist() == expected
    without = make_batched_agent("distilled:calls=0", "paston", seed=2).act(rows, masks)
    assert (without != together).any()


def test_the_calls_apply_exactly_to_the_call_decisions():
    """``applies`` reads two pieces of the vector (the batched form asks every row); it must
    agree with the decoded observation on every decision, forced ones included."""
    from folkcards.agents.paston_expert import PastonLearnedCalls

    calls = PastonLearnedCalls()
    env = paston_v0.raw_env()
    network = make_agent(NETWORK, "paston")
    seen = {True: 0, False: 0}
    for _seat, observation, _action in walk_decisions(env, range(20), lambda n, o: network.act(o)):
        expected = _is_call(observation)
        assert calls.applies(np.asarray(observation["observation"], np.float32)) == expected
        seen[expected] += 1
    assert seen[True] > 50 and seen[False] > 50


def _is_discard(observation) -> bool:
    return obs_mod.decode(np.asarray(observation["observation"])).phase == "discard"


def test_with_discard_search_the_discards_are_the_experts_search_and_the_rest_unchanged():
    """``distilled:discard_search=1`` (guide/distilled.md): each discard with a choice is the
    expert's discard search (``expert``'s own 32 worlds, the same seed); every other decision
    is what ``distilled`` decides."""
    env = paston_v0.raw_env()
    seats = env.possible_agents
    player = {
        s: make_agent("distilled:discard_search=1", "paston", seat=s, seed=5 + i)
        for i, s in enumerate(seats)
    }
    plain = {s: make_agent("distilled", "paston", seat=s, seed=5 + i) for i, s in enumerate(seats)}
    twin = {s: make_agent("expert", "paston", seat=s, seed=5 + i) for i, s in enumerate(seats)}
    assert all(t.params.discard_samples == 32 for t in twin.values())
    discards = others = differs = 0
    for seat, observation, action in walk_decisions(
        env, range(40), lambda name, obs: player[name].act(obs)
    ):
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) < 2:
            continue
        if _is_discard(observation):
            vector = np.asarray(observation["observation"])
            assert action == twin[seat]._discard(vector, obs_mod.decode(vector), legal)
            differs += action != plain[seat].act(observation)
            discards += 1
        elif not _is_play(observation):  # the card play's searches draw from their own seeds
            assert action == plain[seat].act(observation)
            others += 1
    assert discards > 20 and others > 60
    assert differs > 0  # the evaluator's pair is another on some deals (else this tells nothing)
