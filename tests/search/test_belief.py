"""Belief samplers: every sample consistent, exact uniformity against brute-force
enumeration, no leak of hidden cards, determinism, bad input, policy weighting.

The enumerators here share no code with the samplers: they list candidate deals, load each into
the env, replay the public actions and keep those that reproduce the observer's observation
exactly, each with its prior weight from the deal procedure (9/10 when the dealer holds 7♠).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from folkcards.envs import paston_v0, tri_palki_v0
from folkcards.envs.cards import PASTON_CARDS, TRI_PALKI_CARDS, mask_to_cards
from folkcards.envs.paston.observation import OFFSETS
from folkcards.envs.paston.rules import PLAY
from folkcards.envs.tri_palki.rules import TRIPLES
from folkcards.search import paston_belief as pb
from folkcards.search import tri_palki_belief as tb
from folkcards.search.belief import resample
from folkcards.search.tri_palki_history import public_history
from scipy.stats import chisquare

ALL_PASTON = (1 << 32) - 1
ALL_TRI = (1 << 36) - 1


def _bits(cards) -> int:
    return sum(1 << int(c) for c in cards)


def dealt_hands(env) -> tuple[int, int, int]:
    """The current deal's dealt hands, from the env's record."""
    hands = env.record()["deals"][-1]["hands"]
    return tuple(_bits(PASTON_CARDS.card_id(c) for c in hand) for hand in hands)


def _obs(env, seat: int) -> np.ndarray:
    return env.observe(f"player_{seat}")["observation"]


def _random_step(env, rng) -> None:
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(int(legal[rng.integers(len(legal))]))


def _live(env) -> bool:
    return not any(env.terminations.values()) and not any(env.truncations.values())


# --- Paston ------------------------------------------------------------------------------------


def paston_positions(seeds, episode="deal", chance=0.25):
    """Random play; yields ``(env, observer)`` at random points (the env is live while yielded)."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        env = paston_v0.raw_env(episode=episode)
        env.reset(seed=seed)
        steps = 0
        while _live(env) and steps < 45:
            for observer in range(3):
                if rng.random() < chance:
                    yield env, observer
            _random_step(env, rng)
            steps += 1


def check_paston_world(world: pb.PastonWorld, env, observer: int, obs: np.ndarray) -> None:
    deal = env.state_deal()
    dealt = world.dealt_hands
    assert all(bin(h).count("1") == 10 for h in dealt)
    assert bin(world.prikup).count("1") == 2
    assert dealt[0] | dealt[1] | dealt[2] | world.prikup == ALL_PASTON
    assert sum(bin(h).count("1") for h in dealt) + 2 == 32  # disjoint
    for seat in range(3):
        assert bin(world.hands[seat]).count("1") == bin(deal.hands[seat]).count("1")
        for suit in range(4):
            if deal.voids[seat] >> suit & 1:
                assert not world.hands[seat] >> (8 * suit) & 0xFF, "a revealed void holds cards"
        assert world.played[seat] == deal.played[seat]
    assert world.hands[observer] == deal.hands[observer]
    assert bin(world.discards).count("1") == bin(deal.discards).count("1")
    replayed = world.to_env()
    assert np.array_equal(_obs(replayed, observer), obs), (
        "the world does not replay to the observation"
    )
    assert replayed.agent_selection == env.agent_selection


@pytest.mark.parametrize("episode, seeds", [("deal", 25), ("game", 10)])
def test_paston_every_sample_is_consistent(episode, seeds):
    checked = 0
    for env, observer in paston_positions(range(seeds), episode=episode):
        obs = _obs(env, observer)
        context = pb.public_context(env, observer)
        for world in pb.sample_worlds(obs, 1, np.random.default_rng(checked), **context):
            check_paston_world(world, env, observer, obs)
            checked += 1
    assert checked > 250


@pytest.mark.slow
def test_paston_every_sample_is_consistent_many():
    checked = 0
    for episode in ("deal", "game"):
        for env, observer in paston_positions(range(1000, 1400), episode=episode, chance=0.3):
            obs = _obs(env, observer)
            context = pb.public_context(env, observer)
            for world in pb.sample_worlds(obs, 3, np.random.default_rng(checked), **context):
                check_paston_world(world, env, observer, obs)
                checked += 1
    assert checked > 20_000


def _paston_candidates(env, observer):
    """Every (dealt hands, prikup, discards) that could underlie the position, unfiltered."""
    deal = env.state_deal()
    dealt_now = dealt_hands(env)
    o = observer
    played = deal.played
    hidden = ALL_PASTON & ~deal.hands[o] & ~(played[0] | played[1] | played[2])
    if deal.declarer == o:
        hidden &= ~deal.discards
    cards = mask_to_cards(hidden)
    if deal.declarer == o:
        x, y = (o + 1) % 3, (o + 2) % 3
        size_x = bin(deal.hands[x]).count("1")
        for chosen in itertools.combinations(cards, size_x):
            hx = _bits(chosen)
            dealt = [0, 0, 0]
            dealt[o] = dealt_now[o]
            dealt[x] = hx | played[x]
            dealt[y] = (hidden & ~hx) | played[y]
            yield tuple(dealt), deal.prikup, deal.discards
        return
    d = deal.declarer
    x = 3 - o - d
    size_x = bin(deal.hands[x]).count("1")
    for chosen in itertools.combinations(cards, size_x):
        hx = _bits(chosen)
        rest = [c for c in cards if not hx >> c & 1]
        for disc in itertools.combinations(rest, 2):
            dmask = _bits(disc)
            twelve = (hidden & ~hx) | played[d]
            for prikup in itertools.combinations(mask_to_cards(twelve), 2):
                pmask = _bits(prikup)
                dealt = [0, 0, 0]
                dealt[o] = dealt_now[o]
                dealt[x] = hx | played[x]
                dealt[d] = twelve & ~pmask
                yield tuple(dealt), pmask, dmask


def paston_enumerate(env, observer):
    """{(dealt, prikup, discards): prior weight} of every world consistent with the position."""
    deal = env.state_deal()
    obs = _obs(env, observer)
    record = env.record()
    options = {"dealer": deal.dealer}
    if env.episode == "game":
        options["totals"] = env.totals
        options["first_deal"] = record["deals"][-1]["first_deal"]
    worlds = {}
    for dealt, prikup, discards in _paston_candidates(env, observer):
        trial = paston_v0.raw_env(episode=env.episode)
        names = lambda m: [PASTON_CARDS.name(c) for c in mask_to_cards(m)]  # noqa: E731
        deal_option = {"hands": [names(h) for h in dealt], "prikup": names(prikup)}
        try:
            trial.reset(seed=0, options={**options, "deal": deal_option})
        except ValueError:
            continue  # a deal the procedure redeals
        hidden_discards = mask_to_cards(discards)
        ok = True
        card_actions = 0
        for seat, action in deal.history:
            if trial.agent_selection != f"player_{seat}":
                ok = False
                break
            if action < 32 and card_actions < 2 and seat != observer:
                action = hidden_discards[card_actions]
            if action < 32:
                card_actions += 1
            if not trial.state_deal().legal_bits() >> action & 1:
                ok = False
                break
            trial.step(action)
        if not ok or not np.array_equal(_obs(trial, observer), obs):
            continue
        weight = 0.9 if dealt[deal.dealer] & 1 else 1.0
        worlds[(dealt, prikup, discards)] = weight
    return worlds


def find_paston(predicate, episode="deal", seeds=range(5000)):
    for env, observer in paston_positions(seeds, episode=episode, chance=1.0):
        if predicate(env, observer):
            return env, observer
    raise AssertionError("no position found")


def _late(env, min_tricks):
    deal = env.state_deal()
    return deal.phase == PLAY and deal.trick_count >= min_tricks


def _declarer_void_weight(env, o):
    deal = env.state_deal()
    if not _late(env, 7) or deal.declarer != o or deal.dealer == o:
        return False
    unknown = ALL_PASTON & ~deal.hands[o] & ~deal.discards
    unknown &= ~(deal.played[0] | deal.played[1] | deal.played[2])
    void_matters = any(
        deal.voids[s] >> suit & 1 and unknown >> (8 * suit) & 0xFF
        for s in range(3)
        if s != o
        for suit in range(4)
    )
    dealer_may_hold_spades = not deal.voids[deal.dealer] & 1
    return void_matters and unknown & 1 and dealer_may_hold_spades and len(deal.active) == 3


def _all_pass_defender(env, o):
    deal = env.state_deal()
    return (
        _late(env, 9)
        and deal.all_pass
        and deal.declarer != o
        and len(deal.active) == 3
        and not dealt_hands(env)[o] >> 4 & 1
    )


def _first_deal_defender(env, o):
    deal = env.state_deal()
    return (
        _late(env, 9)
        and env.record()["deals"][-1]["first_deal"]
        and deal.declarer != o
        and deal.first_bidder != o
        and not dealt_hands(env)[o] >> 4 & 1
    )


def chi_square_against(enumerated: dict, samples: list, key) -> None:
    keys = list(enumerated)
    index = {k: i for i, k in enumerate(keys)}
    counts = np.zeros(len(keys))
    for world in samples:
        k = key(world)
        assert k in index, f"sampled a world the enumeration rules out: {k}"
        counts[index[k]] += 1
    weights = np.array([enumerated[k] for k in keys])
    expected = weights / weights.sum() * len(samples)
    assert expected.min() >= 5, "too few samples for a chi-square test"
    assert chisquare(counts, expected).pvalue > 0.001


def _paston_key(world):
    return world.dealt_hands, world.prikup, world.discards


@pytest.mark.parametrize(
    "predicate, episode",
    [
        (_declarer_void_weight, "deal"),  # voids and the dealer's-7♠ weight
        (_all_pass_defender, "deal"),  # the all-pass J♠/7♠ designation, prikup unknown
        (_first_deal_defender, "game"),  # the first-deal first-bidder designation
    ],
    ids=["declarer-void-7S", "all-pass-designation", "first-deal-designation"],
)
def test_paston_uniform_against_enumeration(predicate, episode):
    env, observer = find_paston(predicate, episode=episode)
    enumerated = paston_enumerate(env, observer)
    assert len(enumerated) >= 2
    # the constraint under test shapes this posterior (so the chi-square test can fail)
    if predicate is _declarer_void_weight:
        assert set(enumerated.values()) == {0.9, 1.0}
        unknown_spades = {w[0][s] & 0xFF for w in enumerated for s in range(3) if s != observer}
        assert len(unknown_spades) > 1
    else:
        designee_free = sum(1 for _ in _paston_candidates(env, observer))
        assert len(enumerated) < designee_free
    # enough samples that the 9/10 weight alone moves the statistic far past the threshold
    n = max(20_000, 10 * len(enumerated))
    context = pb.public_context(env, observer)
    samples = pb.sample_worlds(_obs(env, observer), n, np.random.default_rng(11), **context)
    chi_square_against(enumerated, samples, _paston_key)


def _same_suit_hidden_pair(deal, dealt, observer, rng):
    """Two unplayed cards of one suit in the two other players' hands (dealt there)."""
    others = [s for s in range(3) if s != observer]
    a_cards = mask_to_cards(deal.hands[others[0]] & dealt[others[0]])
    b_cards = mask_to_cards(deal.hands[others[1]] & dealt[others[1]])
    pairs = [(a, b) for a in a_cards for b in b_cards if a >> 3 == b >> 3]
    if not pairs:
        return None
    a, b = pairs[rng.integers(len(pairs))]
    return others[0], a, others[1], b


def test_paston_no_leak_of_hidden_cards():
    rng = np.random.default_rng(5)
    compared = 0
    for env, observer in paston_positions(range(200, 260), chance=0.2):
        deal = env.state_deal()
        pair = _same_suit_hidden_pair(deal, dealt_hands(env), observer, rng)
        if pair is None:
            continue
        sa, a, sb, b = pair
        dealt = list(dealt_hands(env))
        dealt[sa] = dealt[sa] & ~(1 << a) | (1 << b)
        dealt[sb] = dealt[sb] & ~(1 << b) | (1 << a)
        twin = paston_v0.raw_env()
        names = lambda m: [PASTON_CARDS.name(c) for c in mask_to_cards(m)]  # noqa: E731
        try:
            twin.reset(
                seed=1,
                options={
                    "dealer": deal.dealer,
                    "deal": {"hands": [names(h) for h in dealt], "prikup": names(deal.prikup)},
                },
            )
            for seat, action in deal.history:
                assert twin.agent_selection == f"player_{seat}"
                twin.step(action)
        except (ValueError, AssertionError):
            continue  # the swap changed something public (e.g. the all-pass designee)
        obs = _obs(env, observer)
        if not np.array_equal(_obs(twin, observer), obs):
            continue
        assert twin.state_deal().hands != deal.hands
        first = pb.sample_worlds(
            obs, 5, np.random.default_rng(9), **pb.public_context(env, observer)
        )
        second = pb.sample_worlds(
            _obs(twin, observer), 5, np.random.default_rng(9), **pb.public_context(twin, observer)
        )
        assert first == second
        compared += 1
        if compared == 20:
            return
    raise AssertionError(f"only {compared} twin positions found")


def test_paston_world_gives_the_solver_position_and_engine_state():
    from folkcards.search.paston_solver import Position

    env, observer = find_paston(lambda e, o: _late(e, 4) and e.state_deal().trick != [])
    context = pb.public_context(env, observer)
    for world in pb.sample_worlds(_obs(env, observer), 20, np.random.default_rng(0), **context):
        engine = world.to_engine()
        assert tuple(engine.hands) == world.hands
        assert tuple(engine.trick) == world.trick
        assert engine.to_act == world.to_act
        mine, reference = world.solver_position(), Position.from_deal(engine)
        for name in Position.__slots__:
            assert getattr(mine, name) == getattr(reference, name), name
    env.reset(seed=0)
    auction_world = pb.sample_worlds(_obs(env, 0), 1, np.random.default_rng(0), observer=0)[0]
    with pytest.raises(ValueError, match="play phase"):
        auction_world.solver_position()


def test_paston_deterministic_by_seed():
    env, observer = find_paston(lambda e, o: _late(e, 3) and e.state_deal().declarer != o)
    obs = _obs(env, observer)
    context = pb.public_context(env, observer)
    a = pb.sample_worlds(obs, 20, np.random.default_rng(3), **context)
    b = pb.sample_worlds(obs, 20, np.random.default_rng(3), **context)
    c = pb.sample_worlds(obs, 20, np.random.default_rng(4), **context)
    assert a == b
    assert a != c


def test_paston_observation_dict_and_relative_seats():
    env, observer = find_paston(lambda e, o: _late(e, 2) and o == 2)
    context = pb.public_context(env, observer)
    as_dict = env.observe("player_2")
    a = pb.sample_worlds(as_dict, 4, np.random.default_rng(0), **context)
    b = pb.sample_worlds(as_dict["observation"], 4, np.random.default_rng(0), **context)
    assert a == b
    assert all(w.observer == 2 and w.hands[2] == env.state_deal().hands[2] for w in a)


def test_paston_bad_input():
    env = paston_v0.raw_env()
    env.reset(seed=0)
    obs = _obs(env, 0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="observation"):
        pb.sample_worlds(obs[:-1], 1, rng, observer=0)
    with pytest.raises(ValueError, match="n must be"):
        pb.sample_worlds(obs, -1, rng, observer=0)
    with pytest.raises(ValueError, match="Generator"):
        pb.sample_worlds(obs, 1, 0, observer=0)
    with pytest.raises(ValueError, match="observer"):
        pb.sample_worlds(obs, 1, rng, observer=3)
    with pytest.raises(ValueError, match="first_deal"):
        pb.sample_worlds(obs, 1, rng, observer=0, first_deal=True)  # deal mode
    broken = obs.copy()
    broken[32 * 3 + next(iter(np.flatnonzero(obs[:32])))] = 1  # a held card also "played"
    with pytest.raises(ValueError):
        pb.sample_worlds(broken, 1, rng, observer=0)
    with pytest.raises(ValueError, match="history"):
        pb.sample_worlds(obs, 1, rng, observer=0)[0].to_env()
    for seed in range(100):  # an "all-pass" flag while the observer holds J♠: no world fits
        env.reset(seed=seed, options={"dealer": 0})
        if env.state_deal().hands[2] >> 4 & 1:
            break
    for action in (33, 32, 32):  # player_1 bids and becomes declarer
        env.step(action)
    contradiction = _obs(env, 2).copy()
    contradiction[OFFSETS["all_pass"]] = 1
    with pytest.raises(ValueError, match="no world consistent"):
        pb.sample_worlds(contradiction, 5, rng, **pb.public_context(env, 2))
    game = paston_v0.raw_env(episode="game")
    for seed in range(50):  # a first deal whose first bidder is the dealer's left is ambiguous
        game.reset(seed=seed)
        deal = game.state_deal()
        if deal.first_bidder == (deal.dealer + 1) % 3:
            break
    with pytest.raises(ValueError, match="first_deal"):
        pb.sample_worlds(_obs(game, 0), 1, rng, observer=0)
    assert len(pb.sample_worlds(_obs(game, 0), 1, rng, observer=0, first_deal=True)) == 1


def test_paston_policy_weighting_by_a_deterministic_bidder():
    """A policy that bids exactly when holding J♠: after the first bidder bids, worlds where it
    holds J♠ weigh (1 - eps + eps/2) / (eps/2) times the others."""
    env = paston_v0.raw_env()
    observer = 2
    for seed in range(20):  # a deal where the observer does not hold J♠ itself
        env.reset(seed=seed, options={"dealer": 0})
        if not env.state_deal().hands[observer] >> 4 & 1:
            break
    env.step(33)  # player_1 bids spades
    eps = 0.1

    def bid_with_jack(observation):
        hand = observation["observation"][:32]
        probs = np.zeros(45)
        probs[33 if hand[4] else 32] = 1.0
        return probs

    context = pb.public_context(env, observer)
    worlds = pb.sample_worlds(_obs(env, observer), 300, np.random.default_rng(0), **context)
    weights = pb.weight_worlds(worlds, bid_with_jack, epsilon=eps)
    assert weights.sum() == pytest.approx(1.0)
    with_jack = np.array([w.dealt_hands[1] >> 4 & 1 for w in worlds], dtype=bool)
    assert with_jack.any() and (~with_jack).any()
    ratio = weights[with_jack][0] / weights[~with_jack][0]
    assert ratio == pytest.approx((1 - eps + eps / 2) / (eps / 2))
    assert np.allclose(weights[with_jack], weights[with_jack][0])
    picked = resample(worlds, weights, 200, np.random.default_rng(1))
    assert sum(w.dealt_hands[1] >> 4 & 1 for w in picked) > 150


# --- Tri Palki ---------------------------------------------------------------------------------


def tri_palki_positions(seeds, sizes=(2, 3, 4, 6, 8, 11), chance=0.3):
    for seed in seeds:
        num = sizes[seed % len(sizes)]
        rng = np.random.default_rng(seed)
        env = tri_palki_v0.raw_env(num_players=num, max_turns=40)
        env.reset(seed=seed)
        while _live(env):
            for observer in range(num):
                if rng.random() < chance:
                    yield env, observer
            _random_step(env, rng)


def check_tri_palki_world(world: tb.TriPalkiWorld, env, observer: int, obs: np.ndarray) -> None:
    rnd = env.state_round()
    pieces = [*world.hands, world.centre, world.washed, _bits(world.reserve)]
    union = 0
    for piece in pieces:
        assert not union & piece, "hands, centre, washed and reserve must be disjoint"
        union |= piece
    assert union == ALL_TRI
    for seat in range(rnd.num_seats):
        assert bin(world.hands[seat]).count("1") == 3
        assert world.hands[seat] & rnd.known[seat] == rnd.known[seat]
    assert len(world.reserve) == rnd.reserve_count
    assert world.hands[observer] == rnd.hands[observer]
    if rnd.announcer >= 0:
        assert TRIPLES[world.hands[rnd.announcer]].normal_31
    replayed = world.to_env()
    assert np.array_equal(_obs(replayed, observer), obs), (
        "the world does not replay to the observation"
    )


def test_tri_palki_every_sample_is_consistent():
    checked = 0
    for env, observer in tri_palki_positions(range(24), chance=0.1):
        obs = _obs(env, observer)
        context = tb.public_context(env, observer)
        for world in tb.sample_worlds(obs, 1, np.random.default_rng(checked), **context):
            check_tri_palki_world(world, env, observer, obs)
            checked += 1
    assert checked > 250


@pytest.mark.slow
def test_tri_palki_every_sample_is_consistent_many():
    checked = 0
    for env, observer in tri_palki_positions(range(1000, 1300), chance=0.3):
        obs = _obs(env, observer)
        context = tb.public_context(env, observer)
        for world in tb.sample_worlds(obs, 2, np.random.default_rng(checked), **context):
            check_tri_palki_world(world, env, observer, obs)
            checked += 1
    assert checked > 20_000


# Scripted positions with few unseen cards: the dealt centre and the next reserve triples are
# one-suit, so washes at the deal run the reserve down to 3 cards.
_WASHES = ["6S 7S 8S", "9S 10S JS", "QS KS AS", "6C 7C 8C", "9C 10C JC", "QC KC AC"]


def _deck(hands_in_deal_order, dealt_centre, reserve):
    hands = [h.split() for h in hands_in_deal_order]
    centre = dealt_centre.split()
    deck = []
    for r in range(3):
        deck.extend(hand[r] for hand in hands)
        deck.append(centre[r])
    deck.extend(reserve.split())
    return [TRI_PALKI_CARDS.card_id(c) for c in deck]


TWO_PLAYER_DECK = _deck(  # dealer 0: player_1 then player_0 receive cards
    ["7H 10H JH", "6H 8H 9H"],
    _WASHES[0],
    " ".join(_WASHES[1:]) + " 6D 7D 8D 9D 10D JD AH QD KD AD QH KH",
)
FOUR_PLAYER_DECK = _deck(  # dealer 1: players 2, 3, 0, 1 receive cards
    ["7D 9D JH", "8D JD KD", "9H 10H QH", "6D 8H 10D"],
    _WASHES[0],
    " ".join(_WASHES[1:]) + " QD 6H 7H AD KH AH",
)
SCRIPTS = {
    # 2 players, the observer's first decision: 3 unseen hand cards and a reserve of 3
    "two-players-start": (2, TWO_PLAYER_DECK, 0, []),
    # player_1 takes AH and announces: its two unseen cards must make a normal 31 with AH
    "two-players-announcer": (2, TWO_PLAYER_DECK, 0, ["pass", "swap 7H AH", "announce"]),
    # 4 players, two swap all, one passes (and may have held a 31 and declined)
    "four-players": (4, FOUR_PLAYER_DECK, 1, ["swap all", "swap all", "pass"]),
}


def _play_script(env, script) -> bool:
    """Step a script of action names; decline an announcement the script does not make.
    ``False`` if the script is impossible in this env."""
    for name in script:
        mask = env.observe(env.agent_selection)["action_mask"]
        if mask[12] and name != "announce":
            env.step(12)
        try:
            action = env.string_to_action(name)
        except ValueError:
            return False
        if not env.observe(env.agent_selection)["action_mask"][action]:
            return False
        env.step(action)
    mask = env.observe(env.agent_selection)["action_mask"]
    if mask[12] and env.agent_selection != "player_0":
        env.step(12)
    return True


def scripted_env(name):
    num, deck, dealer, script = SCRIPTS[name]
    env = tri_palki_v0.raw_env(num_players=num)
    env.reset(seed=0, options={"deck": deck, "dealer": dealer})
    assert _play_script(env, script)
    assert env.agent_selection == "player_0"
    return env


def tri_palki_enumerate(env, name, observer=0):
    """{(hands, reserve): 1} of the consistent worlds, by permuting the unseen cards over the
    deck positions they occupy and replaying the public script by card names."""
    num, deck, dealer, script = SCRIPTS[name]
    obs = _obs(env, observer)
    rnd = env.state_round()
    seen = rnd.hands[observer] | rnd.centre | rnd.washed
    for seat in range(num):
        if seat != observer:
            seen |= rnd.known[seat]
    positions = [i for i, card in enumerate(deck) if not seen >> card & 1]
    unseen = [deck[i] for i in positions]
    worlds = {}
    for perm in itertools.permutations(unseen):
        trial_deck = list(deck)
        for i, card in zip(positions, perm, strict=True):
            trial_deck[i] = card
        trial = tri_palki_v0.raw_env(num_players=num)
        trial.reset(seed=0, options={"deck": trial_deck, "dealer": dealer})
        if not _play_script(trial, script):
            continue
        if not np.array_equal(_obs(trial, observer), obs):
            continue
        state = trial.state_round()
        worlds[(tuple(state.hands), tuple(state.reserve_cards()))] = 1.0
    return worlds


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_tri_palki_uniform_against_enumeration(name):
    env = scripted_env(name)
    enumerated = tri_palki_enumerate(env, name)
    assert len(enumerated) >= 6
    context = tb.public_context(env, 0)
    n = 10 * len(enumerated)
    samples = tb.sample_worlds(_obs(env, 0), n, np.random.default_rng(2), **context)
    chi_square_against(enumerated, samples, lambda w: (w.hands, w.reserve))


def test_tri_palki_announcer_constraint_matters():
    env = scripted_env("two-players-announcer")
    enumerated = tri_palki_enumerate(env, "two-players-announcer")
    # unseen: 10H JH QH KH AD; player_1 holds AH and two of 10H JH QH KH; 3! reserve orders
    assert len(enumerated) == 6 * 6
    assert all(TRIPLES[hands[1]].normal_31 for hands, _ in enumerated)


def test_tri_palki_no_leak_of_hidden_cards():
    rng = np.random.default_rng(8)
    compared = 0
    for env, observer in tri_palki_positions(range(300, 340), sizes=(3, 4, 6), chance=0.1):
        rnd = env.state_round()
        record = env.record()
        names = []
        replay = tri_palki_v0.raw_env(**record["env_kwargs"])
        replay.reset(seed=record["seed"], options=record["options"] or None)
        for _, action in record["actions"]:
            names.append(replay.action_to_string(action))
            replay.step(action)
        seen = rnd.hands[observer] | rnd.centre | rnd.washed
        for seat in range(rnd.num_seats):
            seen |= rnd.known[seat]
        # cards hidden from the observer and never shown: in other hands or the reserve
        ever_shown = seen
        for event in public_history(env):
            for item in event[1:]:
                for card in item if isinstance(item, list) else []:
                    ever_shown |= 1 << card
            if event[0] == "swap":
                ever_shown |= (1 << event[2]) | (1 << event[3])
        hidden = [c for c in rnd.deck if not ever_shown >> c & 1]
        if len(hidden) < 2:
            continue
        a, b = rng.choice(hidden, size=2, replace=False)
        deck = [int(b) if c == a else int(a) if c == b else c for c in rnd.deck]
        twin = tri_palki_v0.raw_env(**record["env_kwargs"])
        twin.reset(seed=0, options={"deck": deck, "dealer": rnd.dealer})
        ok = True
        for name in names:
            if name == "no announce" or name == "announce":
                if not twin.observe(twin.agent_selection)["action_mask"][12]:
                    ok = False
                    break
            elif twin.observe(twin.agent_selection)["action_mask"][12]:
                twin.step(12)
            try:
                twin.step(twin.string_to_action(name))
            except ValueError:
                ok = False
                break
        obs = _obs(env, observer)
        if not ok or not np.array_equal(_obs(twin, observer), obs):
            continue
        first = tb.sample_worlds(
            obs, 5, np.random.default_rng(9), **tb.public_context(env, observer)
        )
        second = tb.sample_worlds(
            _obs(twin, observer), 5, np.random.default_rng(9), **tb.public_context(twin, observer)
        )
        assert first == second
        compared += 1
        if compared == 20:
            return
    raise AssertionError(f"only {compared} twin positions found")


def test_tri_palki_deterministic_by_seed():
    env = scripted_env("four-players")
    obs = _obs(env, 0)
    a = tb.sample_worlds(obs, 20, np.random.default_rng(3), observer=0)
    b = tb.sample_worlds(obs, 20, np.random.default_rng(3), observer=0)
    c = tb.sample_worlds(obs, 20, np.random.default_rng(4), observer=0)
    assert a == b
    assert a != c


def test_tri_palki_bad_input():
    env = scripted_env("four-players")
    obs = _obs(env, 0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="observation"):
        tb.sample_worlds(obs[:-2], 1, rng, observer=0)
    with pytest.raises(ValueError, match="observation"):
        tb.sample_worlds({"mask": obs}, 1, rng, observer=0)
    with pytest.raises(ValueError, match="n must be"):
        tb.sample_worlds(obs, 1.5, rng, observer=0)
    with pytest.raises(ValueError, match="observer"):
        tb.sample_worlds(obs, 1, rng, observer="player_9")
    broken = obs.copy()
    broken[36 + 0] = 1  # 6S, a washed card, also shown in the centre
    with pytest.raises(ValueError):
        tb.sample_worlds(broken, 1, rng, observer=0)
    world = tb.sample_worlds(obs, 1, rng, observer=0)[0]
    with pytest.raises(ValueError, match="history"):
        world.to_env()
    with pytest.raises(ValueError):
        world.to_env(history=[["pass", 1]])  # no dealt centre
    with pytest.raises(ValueError):
        world.to_env(history=[["centre", [0, 1, 2]], ["jump", 1]])


def test_tri_palki_observer_is_required():
    """Without ``observer=`` the hand would silently land at seat 0."""
    env = scripted_env("four-players")
    obs = _obs(env, 2)
    with pytest.raises(ValueError, match=r"^sample_worlds needs observer= \(the observer's seat"):
        tb.sample_worlds(obs, 1, np.random.default_rng(0))
    history = tb.public_context(env, 2)["history"]
    with pytest.raises(ValueError, match="needs observer="):
        tb.sample_worlds(obs, 1, np.random.default_rng(0), history=history)


def test_tri_palki_wrong_observer_is_refused_in_one_line():
    """Over random positions: with the public history, the right seat samples (worlds holding
    the observer's hand at that seat) and every other seat is refused in one line once anybody
    has moved (the dealer moves first, and the observation places the dealer)."""
    refused = 0
    for env, observer in tri_palki_positions(range(500, 530), sizes=(2, 3, 5), chance=0.2):
        context = tb.public_context(env, observer)
        obs = _obs(env, observer)
        num = env.unwrapped.num_players
        world = tb.sample_worlds(obs, 1, np.random.default_rng(0), **context)[0]
        assert world.hands[observer] == env.state_round().hands[observer]
        if not any(event[0] not in ("centre", "wash") for event in context["history"]):
            continue
        for wrong in range(num):
            if wrong == observer:
                continue
            with pytest.raises(ValueError) as error:
                tb.sample_worlds(obs, 1, np.random.default_rng(0), **{**context, "observer": wrong})
            message = str(error.value)
            assert message.startswith("observer does not match the observation") and (
                "\n" not in message
            )
            refused += 1
    assert refused > 30


def test_tri_palki_history_swaps_must_match_the_known_cards():
    """A history whose swap took another card than the observation shows that seat holding is
    refused (the seat's publicly known cards, §9)."""
    checked = 0
    for env, observer in tri_palki_positions(range(600, 640), sizes=(3, 4), chance=0.3):
        context = tb.public_context(env, observer)
        history = context["history"]
        swaps = [k for k, e in enumerate(history) if e[0] == "swap"]
        if not swaps:
            continue
        k = swaps[-1]
        event = list(history[k])
        seat, gave, took = event[1], event[2], event[3]
        if env.state_round().known[seat] >> took & 1 == 0:
            continue  # given away since
        event[2], event[3] = took, gave  # the swap the other way round
        tampered = [*history[:k], event, *history[k + 1 :]]
        with pytest.raises(ValueError, match=rf"swaps leave player_{seat} publicly holding"):
            tb.sample_worlds(
                _obs(env, observer), 1, np.random.default_rng(0),
                **{**context, "history": tampered},
            )  # fmt: skip
        checked += 1
    assert checked > 5


def test_tri_palki_policy_weighting_counts_private_declines():
    """A pass-only policy: worlds where player_3 held a 31 when it passed also include its
    private decline (both options legal, the policy gives neither: uniform, 1/2)."""
    env = scripted_env("four-players")
    context = tb.public_context(env, 0)
    worlds = tb.sample_worlds(_obs(env, 0), 400, np.random.default_rng(0), **context)

    def always_pass(observation):
        probs = np.zeros(13)
        probs[0] = 1.0
        return probs

    weights = tb.weight_worlds(worlds, always_pass, epsilon=0.2)
    held_31 = np.array([TRIPLES[w.hands[3]].normal_31 for w in worlds])
    assert held_31.any() and (~held_31).any()
    assert weights[held_31][0] / weights[~held_31][0] == pytest.approx(0.5)
