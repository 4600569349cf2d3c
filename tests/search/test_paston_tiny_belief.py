"""Paston tiny's belief sampler (docs/rules/paston_tiny.md): every deal of the seven cards that
agrees with what one seat has seen, weighted as the env's shuffle deals them.

The reference here is the env itself: a brute-force filter deals each of the 630 deals (and each
card the declarer could have discarded) through ``reset(options=...)``, steps the history with
the env's own action masks and keeps the deals whose observation for the seat is the one it has.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.envs import paston_tiny_v0
from folkcards.envs.cards import PASTON_CARDS, mask_to_cards
from folkcards.envs.paston import observation as obs_mod
from folkcards.envs.paston.rules import deal_deck
from folkcards.envs.paston.variant import PASTON, PASTON_TINY
from folkcards.envs.registry import game_spec
from folkcards.search import paston_tiny_belief as ptb

SEATS = ("player_0", "player_1", "player_2")


def _key(world) -> tuple:
    return world.dealt_hands, world.prikup, world.discards


def _worlds(observation, context) -> dict[tuple, float]:
    worlds, probabilities = ptb.exact_worlds(observation, **context)
    return {_key(w): float(p) for w, p in zip(worlds, probabilities, strict=True)}


def _mask(names) -> int:
    return sum(1 << c for c in PASTON_CARDS.parse_cards(names, "cards", len(names)))


def _true_key(env) -> tuple:
    deal = env.record()["deals"][-1]
    hands = tuple(_mask(h) for h in deal["hands"])
    return hands, _mask(deal["prikup"]), env.state_deal().discards


def _states(seed: int, agent: str = "random", episode: str = "deal"):
    """Every (env, seat) of one deal of ``agent`` players, before each action and at the end."""
    env = paston_tiny_v0.raw_env(episode=episode)
    env.reset(seed=seed)
    players = {s: make_agent(agent, "paston_tiny", s, seed=seed) for s in SEATS}
    while True:
        for seat in SEATS:
            yield env, seat
        if any(env.terminations.values()) or len(env.record()["deals"]) > 1:
            return
        seat = env.agent_selection
        env.step(int(players[seat].act(env.observe(seat))))


def _brute_force(env, seat: str) -> set[tuple]:
    """The deals (and hidden discards) in which the env, stepped through the seat's history,
    gives the seat its observation: every one of the 630 deals tried through ``reset``."""
    o = SEATS.index(seat)
    target = env.observe(seat)
    history = [action for _, action in env.state_deal().history]
    actors = [s for s, _ in env.state_deal().history]
    dealer = env.state_deal().dealer
    declarer = env.state_deal().declarer
    hidden_at = next((i for i, a in enumerate(history) if a < 32), None)
    if declarer == o:
        hidden_at = None  # the declarer saw its own discard
    found = set()
    deals = set()
    for order in _orders():
        hands, prikup = deal_deck(order, dealer, PASTON_TINY)
        deals.add((tuple(hands), prikup))
    for hands, prikup in deals:
        choices = [None] if hidden_at is None else mask_to_cards(hands[declarer] | prikup)
        for discard in choices:
            replay = paston_tiny_v0.raw_env()
            names = [[PASTON_CARDS.name(c) for c in mask_to_cards(h)] for h in hands]
            replay.reset(
                seed=0,
                options={
                    "dealer": dealer,
                    "deal": {
                        "hands": names,
                        "prikup": [PASTON_CARDS.name(prikup.bit_length() - 1)],
                    },
                },
            )
            ok = True
            for index, (actor, action) in enumerate(zip(actors, history, strict=True)):
                if discard is not None and index == hidden_at:
                    action = discard
                if (
                    replay.agent_selection != SEATS[actor]
                    or not replay.observe(SEATS[actor])["action_mask"][action]
                ):
                    ok = False
                    break
                replay.step(action)
            if not ok:
                continue
            mine = replay.observe(seat)
            if all(np.array_equal(mine[k], target[k]) for k in target):
                found.add((hands, prikup, replay.state_deal().discards))
    return found


def _orders():
    return (order for order in permutations(PASTON_TINY.deck) if order[-1] != 0)


def _first(condition, seeds=range(400), agent="random"):
    for seed in seeds:
        for env, seat in _states(seed, agent):
            if condition(env, seat):
                return env, seat
    raise AssertionError("no such state in the seeds tried")


# --- the prior ---------------------------------------------------------------------------------


def test_the_deals_and_their_weights_are_those_of_the_shuffle():
    """Each of the 630 deals weighs what share of the deck orders deal it (the 7♠ never at the
    bottom, which goes to the dealer)."""
    counts = Counter(
        (tuple(hands), prikup)
        for hands, prikup in (deal_deck(o, 1, PASTON_TINY) for o in _orders())
    )
    deals = ptb.all_deals(PASTON_TINY, 1)
    assert len(deals) == len(set(deals)) == 630 == len(counts)
    assert set(deals) == set(counts)
    unit = max(counts.values())
    for hands, prikup in deals:
        weight = ptb.prior_weight(hands, 1, False, PASTON_TINY)
        assert counts[hands, prikup] == pytest.approx(weight * unit)
    # the full game's weight is the one its sampler uses (the 7♠ in the dealer's ten cards)
    full = [0, 0, 0]
    full[0] = 0b1111111111
    assert ptb.prior_weight(full, 0, False, PASTON) == pytest.approx(0.9)


def test_a_deck_too_large_to_list_is_refused_in_one_line():
    with pytest.raises(ValueError, match="too many to list"):
        ptb.all_deals(PASTON, 0)


# --- the worlds against the seat's view --------------------------------------------------------


@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_every_world_replays_to_the_seats_observation_and_the_truth_is_one(agent):
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(12):
        for env, seat in _states(seed, agent, episode="game" if seed % 2 else "deal"):
            observation = env.observe(seat)
            context = ptb.public_context(env, seat)
            worlds, probabilities = ptb.exact_worlds(observation, **context)
            assert probabilities.sum() == pytest.approx(1.0) and np.all(probabilities > 0)
            assert _true_key(env) in {_key(w) for w in worlds}
            for world in worlds[:: 1 + len(worlds) // 8]:
                again = world.to_env()
                mine = again.observe(seat)
                assert all(np.array_equal(mine[k], observation[k]) for k in observation)
                checked += 1
            drawn = ptb.tiny_sample_worlds(observation, 8, rng, **context)
            assert {_key(w) for w in drawn} <= {_key(w) for w in worlds}
    assert checked > 300


def _auction(env, seat):
    deal = env.state_deal()
    return deal.phase == 0 and len(deal.history) >= 2


def _after_the_discard(declaring: bool):
    def condition(env, seat):
        deal = env.state_deal()
        o = SEATS.index(seat)
        return deal.phase == 2 and (deal.declarer == o) == declaring  # the contract is next

    return condition


def _mid_play_with_a_void(env, seat):
    deal = env.state_deal()
    o = SEATS.index(seat)
    return deal.phase == 4 and any(deal.voids) and deal.declarer != o and deal.trick != []


@pytest.mark.parametrize(
    "condition",
    [_auction, _after_the_discard(True), _after_the_discard(False), _mid_play_with_a_void],
    ids=["auction", "discard-declarer", "discard-other", "play-void"],
)
def test_the_worlds_are_a_brute_force_filter_of_all_630_deals(condition):
    env, seat = _first(condition)
    assert set(_worlds(env.observe(seat), ptb.public_context(env, seat))) == _brute_force(env, seat)


def test_a_revealed_void_is_honoured():
    env, seat = _first(_mid_play_with_a_void)
    deal = env.state_deal()
    worlds, _ = ptb.exact_worlds(env.observe(seat), **ptb.public_context(env, seat))
    for world in worlds:
        for s in range(3):
            for suit in range(2):
                if deal.voids[s] >> suit & 1:
                    assert world.hands[s] >> (8 * suit) & 0xFF == 0


def test_no_world_moves_a_card_the_seat_holds_or_saw_played():
    for seed in range(20):
        for env, seat in _states(seed):
            o = SEATS.index(seat)
            view = obs_mod.decode(env.observe(seat)["observation"])
            own = sum(1 << c for c in view.hand)
            played = [sum(1 << c for c in view.played[(s - o) % 3]) for s in range(3)]
            seen = own | played[0] | played[1] | played[2]
            worlds, _ = ptb.exact_worlds(env.observe(seat), **ptb.public_context(env, seat))
            for world in worlds:
                assert world.hands[o] == own and list(world.played) == played
                for s in range(3):
                    if s != o:
                        assert world.hands[s] & seen == 0
                if world.declarer == o:
                    assert world.prikup == sum(1 << c for c in view.prikup)
                    assert world.discards == sum(1 << c for c in view.discards)
                else:  # hidden: only a prikup card the declarer has since played was seen
                    allowed = played[world.declarer] if world.declarer is not None else 0
                    assert world.prikup & seen & ~allowed == 0
                    assert world.discards & seen == 0


def test_the_answer_does_not_depend_on_which_consistent_world_is_true():
    """A leak test: deal each world of a view for real and ask again from that deal's env; the
    seat's observation, its history and so the worlds and their probabilities are the same."""
    for condition in (_auction, _after_the_discard(False), _mid_play_with_a_void):
        env, seat = _first(condition)
        observation = env.observe(seat)
        context = ptb.public_context(env, seat)
        expected = _worlds(observation, context)
        assert len(expected) > 1
        ptb._exact.cache_clear()  # each answer below is computed afresh
        worlds, _ = ptb.exact_worlds(observation, **context)
        for world in worlds:
            other = world.to_env()
            again = other.observe(seat)
            assert all(np.array_equal(again[k], observation[k]) for k in observation)
            assert ptb.public_context(other, seat) == context
            assert _worlds(again, ptb.public_context(other, seat)) == pytest.approx(expected)
            ptb._exact.cache_clear()


def test_the_history_hides_only_the_one_discard_from_the_others():
    env, seat = _first(
        lambda env, seat: (
            env.state_deal().phase == 4
            and env.state_deal().played[env.state_deal().declarer]
            and SEATS.index(seat) != env.state_deal().declarer
        )
    )
    history = ptb.public_context(env, seat)["history"]
    assert [action for _, action in history].count(None) == 1
    declarer = SEATS[env.state_deal().declarer]
    assert [a for _, a in ptb.public_context(env, declarer)["history"]].count(None) == 0


def test_without_a_history_the_observation_alone_gives_the_same_worlds():
    """What a player without the record does (pimc): the history rebuilt from the
    observation (the first trick's order is the declarer's lead)."""
    for seed in range(30):
        for env, seat in _states(seed):
            observation = env.observe(seat)
            context = ptb.public_context(env, seat)
            if sum(obs_mod.decode(observation["observation"]).tricks) > 1:
                continue
            alone = {k: v for k, v in context.items() if k != "history"}
            assert _worlds(observation, alone) == pytest.approx(_worlds(observation, context))


def test_bad_input_is_refused_in_one_line():
    env, seat = _first(_auction)
    observation = env.observe(seat)
    with pytest.raises(ValueError, match="observer"):
        ptb.exact_worlds(observation)
    context = ptb.public_context(env, seat)
    wrong = dict(context, history=[[context["history"][0][0], 0]])  # a card in the auction
    with pytest.raises(ValueError, match="no deal of paston_tiny is consistent"):
        ptb.exact_worlds(observation, **wrong)


def test_the_registry_names_the_sampler():
    sampler = game_spec("paston_tiny").piece("belief")
    assert sampler is ptb.TINY_SAMPLER
    env, seat = _first(_mid_play_with_a_void)
    context = sampler.public_context(env, seat)
    worlds = sampler.sample_worlds(env.observe(seat), 5, np.random.default_rng(1), **context)
    for world in worlds:
        options, actions = sampler.start(world)
        again = paston_tiny_v0.raw_env()
        again.reset(seed=0, options=options)
        for action in actions:
            again.step(action)
        assert np.array_equal(again.observe(seat)["observation"], env.observe(seat)["observation"])
