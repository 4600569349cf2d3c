"""The OpenSpiel binding of every registered game: OpenSpiel's own consistency test with
serialization, the deal's chance probabilities, a leak test and a differential test against
the package's env. Every game of the registry with explicit chance events is covered, at its
smallest, default and largest table size."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import folkcards.openspiel as fo  # noqa: E402
from folkcards.envs.registry import GAMES  # noqa: E402

# a short Tri Palki round limit keeps random play short; it is a game parameter like any other
QUICK = {"max_turns": 12}

CASES = [
    (name, players)
    for name, spec in GAMES.items()
    if spec.explicit_chance is not None
    for players in sorted({spec.min_players, spec.default_players, spec.max_players})
]


def _params(name: str, players: int, **extra) -> dict:
    spec = GAMES[name]
    params = {} if spec.fixed_players else {"players": players}
    names = fo.load_game(name, **params).get_parameters()
    params.update({k: v for k, v in QUICK.items() if k in names})
    params.update(extra)
    return params


def _load(name: str, players: int, **extra):
    return fo.load_game(name, **_params(name, players, **extra))


def test_every_game_with_explicit_chance_is_registered_with_openspiel():
    names = set(pyspiel.registered_names())
    for name, spec in GAMES.items():
        if spec.explicit_chance is not None:
            assert fo.short_name(name) in names


@pytest.mark.parametrize(("name", "players"), CASES)
def test_openspiel_random_simulation_with_serialization(name, players):
    game = _load(name, players)
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_serialized_state_deserializes_to_the_same_state(name, players):
    game = _load(name, players)
    state = _random_state(game, random.Random(5), moves=12)
    text = pyspiel.serialize_game_and_state(game, state)
    _, again = pyspiel.deserialize_game_and_state(text)
    assert again.history() == state.history()
    assert str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()


@pytest.mark.parametrize(("name", "players"), CASES)
def test_every_chance_node_is_a_distribution(name, players):
    game = _load(name, players)
    rng = random.Random(11)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            probs = [p for _, p in outcomes]
            assert all(p > 0 for p in probs) and sum(probs) == pytest.approx(1.0)
            assert len({o for o, _ in outcomes}) == len(outcomes)
            state.apply_action(rng.choices([o for o, _ in outcomes], probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def _random_state(game, rng: random.Random, moves: int):
    """A state after the deal and up to ``moves`` random player moves."""
    state = game.new_initial_state()
    made = 0
    while not state.is_terminal() and (state.is_chance_node() or made < moves):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            made += 1
    return state


# --- the deal's probabilities --------------------------------------------------------------


def _first_player_state(game, rng: random.Random):
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    return state


def test_paston_deal_places_seven_of_spades_as_the_shuffled_deck_does():
    """§2.2: 7♠ is never the bottom card, the dealer's last: it reaches the dealer with
    probability 9/31 and each other seat with 10/31 (before the rare six-spade redeal)."""
    game = fo.load_game("paston", dealer=1)
    outcomes = dict(game.new_initial_state().chance_outcomes())
    assert outcomes[1] == pytest.approx(9 / 31, rel=2e-3)
    assert outcomes[0] == pytest.approx(10 / 31, rel=2e-3)
    assert outcomes[3] == pytest.approx(2 / 31, rel=2e-3)


def test_paston_deal_never_deals_six_spades_without_k_or_a():
    """§2.4: with 7♠..Q♠ in one hand, K♠ and A♠ cannot both go elsewhere."""
    state = fo.load_game("paston").new_initial_state()
    for _ in range(6):
        state.apply_action(2)  # 7♠ .. Q♠ to player_2
    state.apply_action(0)  # K♠ to player_0
    assert [o for o, _ in state.chance_outcomes()] == [2]  # A♠ must join them


# --- nothing hidden leaks --------------------------------------------------------------------


def _deal_events(game, seed: int) -> list[int]:
    rng = random.Random(seed)
    state = game.new_initial_state()
    events = []
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        events.append(rng.choices(outcomes, probs)[0])
        state.apply_action(events[-1])
    return events


def _replay(game, events: list[int]):
    state = game.new_initial_state()
    for event in events:
        if event not in [o for o, _ in state.chance_outcomes()]:
            return None
        state.apply_action(event)
    return state if not state.is_chance_node() else None


def _view(state, player: int):
    return state.information_state_string(player), tuple(state.observation_tensor(player))


def _hidden_pairs(game, observer: int, seed: int, wanted: int):
    """Pairs of dealt states that differ (the full state differs) while the env gives the
    observer the same observation: two deal events exchanged, or one replaced by an outcome not
    dealt, so hidden cards of other seats change."""
    rng = random.Random(seed)
    found = []
    for attempt in range(400):
        events = _deal_events(game, seed * 1000 + attempt)
        first = _replay(game, events)
        changed = list(events)
        i, j = sorted(rng.sample(range(len(events)), 2))
        if attempt % 2:
            changed[i], changed[j] = changed[j], changed[i]
        else:
            changed[i] = rng.randrange(game.max_chance_outcomes())
        if first is None or changed == events:
            continue
        second = _replay(game, changed)
        if second is None or str(second) == str(first):
            continue
        seen = [s.env.observe(s.agents[observer]) for s in (first, second)]
        if all(np.array_equal(seen[0][k], seen[1][k]) for k in seen[0]):
            found.append((first, second))
            if len(found) == wanted:
                break
    return found


@pytest.mark.parametrize(("name", "players"), CASES)
def test_information_state_does_not_depend_on_another_seats_hidden_cards(name, players):
    if name == "tri_palki_tiny":
        pytest.skip("whole hands are chance events: see the tiny variant's own leak test")
    game = _load(name, players)
    observer = players - 1
    pairs = _hidden_pairs(game, observer, seed=3, wanted=4)
    assert pairs, "no pair of deals differing only in hidden cards was found"
    rng = random.Random(9)
    for first, second in pairs:
        assert _view(first, observer) == _view(second, observer)
        # the same moves while both allow them and the observer's env view stays the same
        for _ in range(20):
            if first.is_terminal() or first.is_chance_node() or second.is_chance_node():
                break
            if first.legal_actions() != second.legal_actions():
                break
            action = rng.choice(first.legal_actions())
            first.apply_action(action)
            second.apply_action(action)
            if first.is_chance_node() or second.is_chance_node():
                break
            views = [s.env.observe(s.agents[observer]) for s in (first, second)]
            if not all(np.array_equal(views[0][k], views[1][k]) for k in views[0]):
                break
            assert _view(first, observer) == _view(second, observer)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("observer", [0, 1])
def test_tri_palki_tiny_information_state_does_not_depend_on_the_other_hand(seed, observer):
    """The four deals that give the other seat any three of the observer's four unseen cards
    (the fourth the reserve's) give the observer the same information state, move after move
    while the same moves are legal and the observer's env view stays the same."""
    from folkcards.envs.tri_palki.tiny import TINY_DECK, TINY_HANDS

    game = _load("tri_palki_tiny", 2)
    rng = random.Random(seed)
    events = _deal_events(game, seed)  # seat 1's hand (the dealer's left), seat 0's, the centre
    own, other = (1, 0) if observer == 0 else (0, 1)
    seen = set(TINY_HANDS[events[own]]) | set(TINY_HANDS[events[2]])
    unseen = [c for c in TINY_DECK if c not in seen]
    states = []
    for reserve in unseen:
        changed = list(events)
        changed[other] = TINY_HANDS.index(tuple(c for c in unseen if c != reserve))
        state = _replay(game, changed)
        if state is not None:
            states.append(state)
    assert len(states) == 4
    moves = [rng.randrange(13) for _ in range(12)]
    compared = 0
    for move in moves:
        if any(s.is_terminal() or s.is_chance_node() for s in states):
            break  # the hands are shown at the round's end
        views = [_view(state, observer) for state in states]
        assert all(view == views[0] for view in views)
        compared += 1
        legal = states[0].legal_actions()
        if any(s.legal_actions() != legal for s in states):
            break
        action = legal[move % len(legal)]
        for state in states:
            state.apply_action(action)
        if any(s.is_terminal() for s in states):
            break
        envs = [s.env.observe(s.agents[observer]) for s in states]
        if not all(np.array_equal(envs[0][k], e[k]) for e in envs for k in envs[0]):
            break
    assert compared or states[0].is_terminal()


@pytest.mark.parametrize(("name", "players"), CASES)
def test_information_state_tells_the_observers_own_cards_apart(name, players):
    """The leak test's counterpart: different own hands give different information states."""
    game = _load(name, players)
    views = {_view(_replay(game, _deal_events(game, seed)), 0)[0] for seed in range(6)}
    assert len(views) == 6


# --- the binding plays as the env -------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binding_plays_the_same_deal_as_the_env(name, players, seed):
    """The env's own random deal fed to the binding's chance nodes, then the same random
    moves through both: same player to act, same legal actions, same action strings, same end
    and the env's summed rewards as returns."""
    spec = GAMES[name]
    params = _params(name, players, dealer=seed % players)
    game = fo.load_game(name, **params)
    options = {k: v for k, v in params.items() if k not in ("players", "dealer")}
    env = spec.raw_env(players, episode=game.mode, **options)
    env.reset(seed=seed, options={"dealer": params["dealer"]})
    events = list(spec.piece("explicit_chance").outcomes_of(env))
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent, reward in env.rewards.items():
        totals[agent] += reward
    state = game.new_initial_state()
    rng = random.Random(seed)
    while True:
        while state.is_chance_node():
            event = events.pop(0)
            assert event in [o for o, _ in state.chance_outcomes()]
            state.apply_action(event)
        env_over = any(env.terminations.values()) or any(env.truncations.values())
        assert state.is_terminal() == env_over
        if env_over:
            break
        player = state.current_player()
        assert env.possible_agents[player] == env.agent_selection
        legal = [int(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]
        assert state.legal_actions() == legal
        action = rng.choice(legal)
        assert state.action_to_string(player, action) == env.action_to_string(action)
        state.apply_action(action)
        env.step(action)
        for agent, reward in env.rewards.items():
            totals[agent] += reward
    assert state.returns() == [totals[agent] for agent in env.possible_agents]


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("tri_palki", {"players": 12}, "2 to 11 players"),
        ("paston", {"dealer": 3}, "dealer must be a seat from 0 to 2"),
        ("paston", {"players": 3}, "no parameter 'players'"),
        ("tri_palki", {"max_turns": 0}, "max_turns must be a positive integer"),
        ("no_such_game", {}, "unknown game"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(name, params, message):
    with pytest.raises(ValueError, match=message):
        fo.load_game(name, **params)
