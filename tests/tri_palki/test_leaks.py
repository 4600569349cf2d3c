"""No Tri Palki observation holds anything its agent cannot know (``tri_palki.md`` §9, api.md).

- Reordering the reserve beyond what was drawn changes nobody's observations.
- Exchanging an opponent's never-shown card with an undrawn reserve card changes no other
  agent's observations (actions replayed by the cards they move, since swap ids index the hand).
- Whether a player is offered the announcement, and declines it, is invisible to the others.
- ``decode`` reads back exactly the state's public facts, and ``encode_view`` inverts it.
"""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.envs import tri_palki_v0
from folkcards.envs.tri_palki.observation import decode, encode_view, observation_layout
from folkcards.envs.tri_palki.rules import ANNOUNCE_DECISION, KIND_NAMES, OVER, TRIPLES

NO_ANNOUNCE = 12


def _observations(env, skip: str | None = None, masks: bool = True) -> list[bytes]:
    """Every agent's observation (and mask) but ``skip``'s, as bytes."""
    return [
        env.observe(a)["observation"].tobytes()
        + (env.observe(a)["action_mask"].tobytes() if masks else b"")
        for a in env.possible_agents
        if a != skip
    ]


def _live(env) -> bool:
    return bool(env.agents) and not (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    )


def _play(env, rng, actions=None, max_steps=400):
    """Step ``env`` (random legal actions, or the given ones); the observations after each step."""
    trace, taken = [_observations(env)], []
    replay = iter(actions) if actions is not None else None
    while env.agents and len(taken) < max_steps:
        if replay is not None:
            action = next(replay, "end")
            if action == "end":
                break
        elif not _live(env):
            action = None
        else:
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            action = int(rng.choice(legal))
        env.step(action)
        taken.append(action)
        trace.append(_observations(env))
    return trace, taken


def _drawn_in_first_round(env, num_players: int) -> int:
    """Reserve cards drawn in the episode's first round, recounted by replaying it alone."""
    first = env.record()["rounds"][0]
    single = tri_palki_v0.raw_env(num_players=num_players, max_turns=10_000)
    single.reset(seed=0, options={"dealer": first["dealer"], "deck": first["deck"]})
    for _, action in first["actions"]:
        single.step(action)
    return single.state_round().top


@pytest.mark.parametrize("episode", ["round", "match"])
@pytest.mark.parametrize("num_players", [2, 4, 6, 8])
def test_reordering_the_undrawn_reserve_changes_no_observation(num_players, episode):
    rng = np.random.default_rng(num_players)
    compared = 0
    for seed in range(30):
        deck = [int(c) for c in rng.permutation(36)]
        options = {"dealer": seed % num_players, "deck": deck}
        env = tri_palki_v0.raw_env(num_players=num_players, episode=episode, max_turns=150)
        env.reset(seed=seed, options=options)
        trace, actions = _play(env, rng)
        start = 3 * num_players + 3 + _drawn_in_first_round(env, num_players)
        if 36 - start < 2:
            continue
        other = (
            deck[:start] + deck[start + 1 :] + deck[start : start + 1]
        )  # every undrawn card moves
        env2 = tri_palki_v0.raw_env(num_players=num_players, episode=episode, max_turns=150)
        env2.reset(seed=seed, options={**options, "deck": other})
        trace2, _ = _play(env2, rng, actions)
        assert trace2 == trace, f"seed {seed}: an observation depends on the undrawn reserve"
        compared += len(trace)
    assert compared > 150


@pytest.mark.parametrize("num_players", [2, 4, 6, 8])
def test_exchanging_a_never_shown_card_with_the_reserve_changes_no_other_observation(num_players):
    rng = np.random.default_rng(100 + num_players)
    compared = exchanged = 0
    for seed in range(60):
        deck = [int(c) for c in rng.permutation(36)]
        hidden_owner = int(rng.integers(num_players))
        owner = f"player_{hidden_owner}"
        options = {"dealer": seed % num_players, "deck": deck}
        env = tri_palki_v0.raw_env(num_players=num_players, max_turns=60)
        env.reset(seed=seed, options=options)
        dealt = env.state_round().hands[hidden_owner]
        keep = min(c for c in range(36) if dealt >> c & 1)  # the owner never gives this card away
        shown = env.state_round().centre
        trace, moves = [], []  # others' observations before every public decision, its move
        while _live(env):
            agent = env.agent_selection
            rnd = env.state_round()
            if agent == owner and rnd.phase == ANNOUNCE_DECISION:
                env.step(NO_ANNOUNCE)  # the owner never announces: its 31 may differ below
                continue
            trace.append(_observations(env, skip=owner))
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            if agent == owner and rnd.phase != ANNOUNCE_DECISION:
                position = rnd.hand_cards(hidden_owner).index(keep)
                legal = [
                    a for a in legal if a != 10 and not (1 <= a <= 9 and (a - 1) // 3 == position)
                ]
            action = int(rng.choice(legal))
            moves.append((agent, env.action_to_string(action)))
            env.step(action)
            if env.state_round().phase != OVER:
                shown |= env.state_round().centre
        rnd = env.state_round()
        candidates = [
            c
            for c in range(36)
            if dealt >> c & 1
            and rnd.hands[hidden_owner] >> c & 1
            and not shown >> c & 1
            and not rnd.washed >> c & 1
        ]
        undrawn = rnd.reserve_cards()
        if not candidates or not undrawn:
            continue
        card, reserve_card = candidates[0], undrawn[-1]
        other = list(deck)
        i, j = other.index(card), other.index(reserve_card)
        other[i], other[j] = other[j], other[i]
        env2 = tri_palki_v0.raw_env(num_players=num_players, max_turns=60)
        env2.reset(seed=seed, options={**options, "deck": other})
        exchanged += 1
        for k, (agent, text) in enumerate(moves):
            while env2.agent_selection == owner and env2.state_round().phase == ANNOUNCE_DECISION:
                env2.step(NO_ANNOUNCE)
            assert env2.agent_selection == agent
            assert _observations(env2, skip=owner) == trace[k], f"seed {seed}: decision {k} differs"
            compared += 1
            env2.step(env2.string_to_action(text))
    assert exchanged >= 20 and compared > 500


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_the_announce_offer_and_a_decline_are_invisible_to_others(num_players):
    rng = np.random.default_rng(7)
    offers = 0
    for seed in range(60):
        env = tri_palki_v0.raw_env(num_players=num_players, episode="match", max_turns=300)
        env.reset(seed=seed)
        while env.agents:
            agent = env.agent_selection
            if not _live(env):
                env.step(None)
                continue
            rnd = env.state_round()
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            if rnd.phase == ANNOUNCE_DECISION:
                offers += 1
                # Masks aside (only the agent to act has a non-zero mask), nothing tells the
                # others that a decision is being made, nor that it was a decline.
                before = _observations(env, skip=agent, masks=False)
                env.step(NO_ANNOUNCE)
                if env.state_round() is rnd and rnd.phase != OVER:
                    assert _observations(env, skip=agent, masks=False) == before
                continue
            env.step(int(rng.choice(legal)))
    assert offers > 30


def _truth(env, observer: int) -> dict:
    """The public facts of the state, relative to ``observer``, computed from the engine."""
    rnd = env.state_round()
    n = rnd.num_seats
    sticks = list(env.sticks.values())
    rel = [(observer + r) % n for r in range(n)]
    to_act, phase = rnd.to_act, rnd.phase
    if phase == ANNOUNCE_DECISION and to_act != observer:
        to_act, phase = rnd.left[to_act], 0
    pending = set(rnd.final_pending())
    if phase == 0 and rnd.phase == ANNOUNCE_DECISION:
        pending = set()
    return {
        "hand": rnd.hand_cards(observer),
        "centre": [c for c in range(36) if rnd.centre >> c & 1],
        "washed": [c for c in range(36) if rnd.washed >> c & 1],
        "known": [[c for c in range(36) if rnd.known[s] >> c & 1] for s in rel],
        "reserve_count": rnd.reserve_count,
        "sticks": [sticks[s] for s in rel],
        "eliminated": [sticks[s] == 4 for s in rel],
        "dealer": (rnd.dealer - observer) % n,
        "to_act": (to_act - observer) % n if to_act >= 0 else None,
        "announced": rnd.announcer >= 0,
        "announcer": (rnd.announcer - observer) % n if rnd.announcer >= 0 else None,
        "final_turn_pending": [s in pending for s in rel],
        "passes": rnd.passes if rnd.announcer < 0 else 0,
        "phase": ("action", "announce", "over")[phase],
    }


@pytest.mark.parametrize("num_players", [2, 4, 7, 11])
def test_decode_reads_the_public_state_and_encode_view_inverts_it(num_players):
    env = tri_palki_v0.raw_env(num_players=num_players, episode="match", max_turns=200)
    rng = np.random.default_rng(num_players)
    size = sum(size for _, size, _ in observation_layout(num_players))
    checked = episodes = 0
    while checked < 2000:
        if episodes == 0 or not env.agents:
            sticks = [int(x) for x in rng.integers(0, 4, num_players)]
            env.reset(seed=episodes, options={"sticks": sticks})
            episodes += 1
        for seat, agent in enumerate(env.possible_agents):
            vector = env.observe(agent)["observation"]
            assert vector.shape == (size,) and vector.min() >= 0.0 and vector.max() <= 1.0
            view = decode(vector, num_players)
            assert decode(vector) == view  # the number of players is inferred from the length
            assert np.array_equal(encode_view(view), vector)
            truth = _truth(env, seat)
            for key, value in truth.items():
                assert getattr(view, key) == value, (key, getattr(view, key), value)
            hand = env.state_round().hands[seat]
            if hand:
                assert view.hand_value == TRIPLES[hand].value
                assert view.hand_kind == KIND_NAMES[TRIPLES[hand].kind]
            else:
                assert view.hand_value == 0 and view.hand_kind is None
            checked += 1
        if not _live(env):
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
