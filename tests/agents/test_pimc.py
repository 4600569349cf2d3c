"""Paston ``pimc``: built by make_agent from its spec, scores options by the score table, plays
legally and deterministically by seed, and makes the obvious calls in worked deals."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import advance, play_episode
from folkcards.agents.pimc import (
    PimcAgent,
    greedy_discard,
    parse_spec,
    table_scores,
)
from folkcards.envs import paston_v0
from folkcards.envs.cards import PASTON_CARDS
from folkcards.envs.paston import observation as paston_obs
from folkcards.envs.paston.rules import (
    BEST_SPADES,
    BID_BASE,
    CLUBS,
    CONTRACT_BASE,
    DIAMONDS,
    HEARTS,
    PASS,
    SPADES,
    SURRENDER,
    WHIST,
)
from folkcards.search.paston_history import public_prefix

SMALL = "pimc:samples=4,bid_samples=3,discard_samples=2"


def _mask(text: str) -> int:
    return sum(1 << PASTON_CARDS.parse_cards([c], "card")[0] for c in text.split())


# --- construction ---------------------------------------------------------------------------


def test_make_agent_reads_the_spec():
    agent = make_agent("pimc:samples=5,bid_samples=3,time=0.5,seed=9", "paston", "player_2")
    assert isinstance(agent, PimcAgent)
    assert (agent.params.samples, agent.params.bid_samples, agent.params.time) == (5, 3, 0.5)
    assert agent.seat == "player_2"
    assert make_agent("pimc:bid_floor=0", "paston").params.bid_floor == 0
    default = make_agent("pimc", "paston")
    assert default.params == parse_spec(None)[0]


@pytest.mark.parametrize(
    "arg", ["samples=x", "colour=3", "samples", "samples=0", "time=-1", "bid_margin=a"]
)
def test_bad_spec_is_one_line_value_error(arg):
    with pytest.raises(ValueError) as info:
        make_agent(f"pimc:{arg}", "paston")
    assert "\n" not in str(info.value) and "pimc" in str(info.value)


def test_pimc_class_plays_paston_only():
    with pytest.raises(ValueError, match="paston"):
        PimcAgent("tri_palki")


# --- the score table ------------------------------------------------------------------------


def test_table_scores_follow_the_score_table():
    # declarer: only six tricks matter; factor 1..4, best spades +10 / -40 (docs/rules/paston.md)
    assert table_scores([6, 5, 10], level=SPADES, declarer=True).tolist() == [10, -10, 10]
    assert table_scores([7, 0], level=HEARTS, declarer=True).tolist() == [40, -40]
    assert table_scores([6, 5], level=BEST_SPADES, declarer=True).tolist() == [10, -40]
    # sole defender (clubs, factor 2): 10 - T tricks, 4 is 0, 5 is +10, 3 is -7
    assert table_scores([6, 5, 7], level=CLUBS, declarer=False, sole=True).tolist() == [
        0,
        20,
        -14,
    ]
    # two defenders (diamonds, factor 3): own 1 won + half of the 3 defence tricks to come
    # -> 2.5 tricks, halfway between 0 (2 tricks) and 10 (3 tricks)
    value = table_scores(
        [5], level=DIAMONDS, declarer=False, own_tricks=1, defence_tricks=2
    ).tolist()
    assert value == [15.0]


def test_greedy_discard_takes_the_lowest_side_cards_shortest_suit_first():
    hand = _mask("7S 8S 9S 10S JS QS KS AS 7C AC 8D AH")
    assert greedy_discard(hand, SPADES) == _mask("7C 8D")
    hand = _mask("7S 8S 9S 10S JS QS 7C 7D 8D AC AD AH")
    assert greedy_discard(hand, SPADES) == _mask("7C 7D")  # clubs is the shorter suit
    hand = _mask("7S 8S 9S 10S JS QS KS AS 7H 8H AC AD")
    assert greedy_discard(hand, HEARTS) == _mask("7S 8S")


# --- worked deals ---------------------------------------------------------------------------


def _deal(hands: list[str], prikup: str, actions: list[int]):
    """A deal-mode env with a fixed deal (dealer player_2, so player_0 bids first), stepped
    through ``actions``."""
    env = paston_v0.raw_env()
    env.reset(
        seed=0,
        options={
            "dealer": 2,
            "deal": {"hands": [h.split() for h in hands], "prikup": prikup.split()},
        },
    )
    for action in actions:
        env.step(action)
    return env


STRONG = "AS KS QS JS 10S 9S 8S AC AD AH"
WEAK = "7C 8C 9C 10C 7D 8D 9D 7H 8H 9H"
REST = "7S JC QC KC 10D JD QD KD 10H JH"


def _agent_plays(env, seat: str, spec: str = "pimc:bid_samples=8,discard_samples=4") -> int:
    agent = make_agent(spec, "paston", seat, seed=1)
    assert env.agent_selection == seat
    return agent.act(env.observe(seat))


def test_declarer_names_the_contract_worth_most():
    env = _deal([STRONG, WEAK, REST], "QH KH", [BID_BASE + SPADES, PASS, PASS])
    agent = make_agent("pimc:bid_samples=8,discard_samples=4", "paston", "player_0", seed=1)
    while env.unwrapped.state_deal().phase != 2:  # the discards, by the agent
        env.step(agent.act(env.observe("player_0")))
    # 12 cards: A-8 of spades, AC AD AH KH QH. With hearts as trump (factor 4) A K Q of hearts
    # draw the defenders' five hearts (3 + 2), then spades and aces win: ten tricks, +40,
    # more than spades' +10; clubs or diamonds would let the defenders ruff.
    assert agent.act(env.observe("player_0")) == CONTRACT_BASE + HEARTS


def test_hopeless_declarer_surrenders():
    # player_0 bid up to diamonds with nothing: failing costs -30, surrendering -10
    env = _deal(
        [
            "JS 7C 8C 9C 7D 8D 9D 7H 8H 9H",
            "AS KS QS 10S 9S 8S AC AD AH KH",
            "7S JC QC KC 10D JD QD KD 10H JH",
        ],
        "10C QH",
        [BID_BASE + SPADES, BID_BASE + CLUBS, PASS, BID_BASE + DIAMONDS, PASS],
    )
    agent = make_agent("pimc:bid_samples=8,discard_samples=4", "paston", "player_0", seed=1)
    while env.unwrapped.state_deal().phase != 2:
        env.step(agent.act(env.observe("player_0")))
    assert agent.act(env.observe("player_0")) == SURRENDER


def _discarding_agent(spec: str):
    """A declarer at its discards (player_0 bought the prikup) and a pimc or expert agent whose
    searches are counted."""
    env = _deal([STRONG, WEAK, REST], "QH KH", [BID_BASE + SPADES, PASS, PASS])
    agent = make_agent(spec, "paston", "player_0", seed=1)
    searches = []
    search = agent._worlds
    agent._worlds = lambda *args: searches.append(1) or search(*args)  # type: ignore[method-assign]
    return env, agent, searches


@pytest.mark.parametrize("spec", ["pimc:bid_samples=8,discard_samples=4", "expert:samples=8"])
def test_the_planned_second_discard_holds_only_after_the_planned_first(spec: str):
    """The two discards are chosen together; the second comes from that plan only if the first
    discarded card is the planned one (another first card, e.g. played for the agent by a
    trainer or a person, is searched again)."""
    env, agent, searches = _discarding_agent(spec)
    first = agent.act(env.observe("player_0"))
    env.step(first)
    done = len(searches)
    second = agent.act(env.observe("player_0"))
    assert len(searches) == done and second != first  # the plan, no new search
    env, agent, searches = _discarding_agent(spec)
    assert agent.act(env.observe("player_0")) == first
    other = _card("AS")  # never a discard of this hand, so not the planned first card
    assert other not in (first, second)
    env.step(other)
    done = len(searches)
    observation = env.observe("player_0")
    again = agent.act(observation)
    assert len(searches) > done and observation["action_mask"][again]


def test_strong_defender_whists_and_hopeless_defender_passes():
    script = [BID_BASE + SPADES, PASS, PASS, _card("QH"), _card("KH"), CONTRACT_BASE + SPADES]
    strong = _deal([WEAK, STRONG, REST], "QH KH", script)
    assert _agent_plays(strong, "player_1") == WHIST
    hopeless = _deal([STRONG, WEAK, REST], "QH KH", script)
    assert _agent_plays(hopeless, "player_1") == PASS


def _card(name: str) -> int:
    return PASTON_CARDS.parse_cards([name], "card")[0]


def test_a_bid_with_every_trump_and_a_pass_with_nothing():
    env = _deal([STRONG, WEAK, REST], "QH KH", [])
    assert _agent_plays(env, "player_0") == BID_BASE + SPADES
    env = _deal([WEAK, STRONG, REST], "QH KH", [])
    assert _agent_plays(env, "player_0") == PASS


# --- legality and determinism ---------------------------------------------------------------


def _actions(seed: int, episodes: int, spec: str = SMALL) -> list[int]:
    env = paston_v0.raw_env()
    table = [
        make_agent(spec, "paston", "player_0", seed=seed),
        make_agent("heuristic", "paston", "player_1"),
        make_agent(spec, "paston", "player_2", seed=seed + 1),
    ]
    chosen: list[int] = []
    for episode in range(episodes):
        play_episode(
            env, table, seed=seed * 100 + episode, on_action=lambda d: chosen.append(d.action)
        )
    assert table[0].fallbacks == 0 and table[2].fallbacks == 0  # type: ignore[attr-defined]
    return chosen


def test_legal_and_deterministic_by_seed():
    first = _actions(3, 6)  # the env raises on an illegal action
    assert len(first) > 60
    assert _actions(3, 6) == first


def test_game_mode_without_history():
    """In game mode the sampler may need to know whether this is the game's first deal; the
    agent tells it from the dealers it has seen."""
    env = paston_v0.raw_env(episode="game")
    env.reset(seed=5)
    table = [make_agent(SMALL, "paston", f"player_{i}", seed=i) for i in range(3)]
    steps = 0

    def stop(_: str) -> bool:
        nonlocal steps
        steps += 1
        return steps > 120

    run = advance(env, table, stop=stop)
    assert run.steps >= 100 or not env.agents
    assert all(agent.fallbacks == 0 for agent in table)  # type: ignore[attr-defined]


@pytest.mark.slow
def test_legal_over_thousands_of_decisions():
    env = paston_v0.raw_env()
    table = [make_agent(SMALL, "paston", f"player_{i}", seed=i) for i in range(3)]
    decisions = 0
    for episode in range(120):
        run = play_episode(env, table, seed=episode)
        decisions += run.steps
    assert decisions >= 2000
    assert all(agent.fallbacks == 0 for agent in table)  # type: ignore[attr-defined]


def test_public_prefix_rebuilds_the_public_history():
    """Differential: at every decision of random play, the actions rebuilt from the observation
    are the deal's real history (discards hidden) up to the play."""
    env = paston_v0.raw_env()
    rng = np.random.default_rng(0)
    checked = {"auction": 0, "defence": 0, "play": 0}
    for episode in range(60):
        env.reset(seed=episode)
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            obs = env.observe(name)
            deal = env.unwrapped.state_deal()
            view = paston_obs.decode(obs["observation"])
            truth = _hide_discards(deal)
            prefix = public_prefix(view)
            if view.phase in ("auction", "discard", "contract", "defence"):
                assert prefix == truth
            else:
                assert prefix == truth[: len(prefix)]
            checked[view.phase] = checked.get(view.phase, 0) + 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert min(checked.values()) > 20


def _hide_discards(deal) -> list:
    out, cards = [], 0
    for _, action in deal.history:
        hidden = action < 32 and cards < 2 and deal.declarer >= 0
        cards += hidden
        out.append(None if hidden else action)
    return out


# --- the defence in a world -----------------------------------------------------------------


def _random_hands(rng: np.random.Generator) -> list[int]:
    deck = rng.permutation(32)
    return [sum(1 << int(c) for c in deck[10 * k : 10 * k + 10]) for k in range(3)]


def test_defence_call_is_the_heuristic_defence():
    """defence_call reproduces the heuristic agent's whist/pass at real defence decisions."""
    from folkcards.agents.paston_heuristic import defence_call

    heuristic = make_agent("heuristic", "paston")
    env = paston_v0.raw_env()
    checked = 0
    for seed in range(300):
        env.reset(seed=seed)
        while env.agents and checked < 400:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            obs = env.observe(name)
            view = paston_obs.decode(np.asarray(obs["observation"]))
            if view.phase == "defence":
                first = view.declarer == 2  # the declarer's left is the declarer's next seat
                expected = heuristic.act(obs) == WHIST
                hand = sum(1 << c for c in view.hand)
                assert expected == defence_call(
                    hand,
                    view.contract,
                    all_pass=view.all_pass,
                    first_speaker=first,
                    other_whisted=not first and view.whist[2],
                )
                checked += 1
            env.step(heuristic.act(obs))
    assert checked >= 100


def test_declaring_score_counts_an_automatic_win_when_both_would_pass():
    """defence_model=1: where the heuristic defenders both pass, declaring is the automatic win
    (+10 x factor) whatever the open-hand result; defence_model=0 solves two defenders."""
    from folkcards.agents.paston_heuristic import defence_call
    from folkcards.search.paston_solver import Position, solve

    rng = np.random.default_rng(3)
    modelled = make_agent("pimc", "paston").__class__(params=parse_spec("defence_model=1")[0])
    both = make_agent("pimc", "paston").__class__(params=parse_spec("defence_model=0")[0])
    seen = {"auto": 0, "sole": 0, "two": 0}
    for _ in range(400):
        hands = _random_hands(rng)
        level = int(rng.integers(0, 5))
        trump = 0 if level in (SPADES, BEST_SPADES) else level
        left = defence_call(
            hands[1], level, all_pass=False, first_speaker=True, other_whisted=False
        )
        right = defence_call(
            hands[2], level, all_pass=False, first_speaker=False, other_whisted=left
        )
        defenders = [s for s, w in ((1, left), (2, right)) if w]
        got = modelled._declaring_score(hands, level, False, {}, 0)
        if not defenders:
            seen["auto"] += 1
            assert got == (10.0 if level == BEST_SPADES else 10.0 * [1, 2, 3, 4, 4][level])
        else:
            seen["sole" if len(defenders) == 1 else "two"] += 1
            tricks = solve(Position.first_lead(hands, trump, 0, defenders))
            assert got == modelled_score(tricks, level)
        two = solve(Position.first_lead(hands, trump, 0, [1, 2]))
        assert both._declaring_score(hands, level, False, {}, 0) == modelled_score(two, level)
    assert min(seen.values()) >= 10, seen


def modelled_score(tricks: int, level: int) -> float:
    """The declarer's score from the score table (docs/rules/paston.md §7)."""
    factor = [1, 2, 3, 4, 4][level]
    if tricks >= 6:
        return 10.0 if level == BEST_SPADES else 10.0 * factor
    return -10.0 * factor


def test_new_parameters_are_checked():
    assert (
        make_agent("pimc:defence_model=0,infer_epsilon=0.5", "paston").params.infer_epsilon == 0.5
    )
    for arg in ("infer_epsilon=2", "infer_epsilon=-0.1", "partner_model=x"):
        with pytest.raises(ValueError) as info:
            make_agent(f"pimc:{arg}", "paston")
        assert "\n" not in str(info.value) and "pimc" in str(info.value)


def test_defence_share_follows_the_hands():
    """Split in proportion to the two hands' trick estimates: a hand with nothing gets a small
    share beside a strong partner; defence_split=0 gives half."""
    split = make_agent("pimc", "paston")
    half = make_agent("pimc:defence_split=0", "paston")
    weak, strong = _mask(WEAK), _mask(STRONG)
    assert split._defence_share(weak, strong, 0) < 0.1
    assert split._defence_share(strong, weak, 0) > 0.9
    assert split._defence_share(weak, strong, 0) + split._defence_share(strong, weak, 0) == (
        pytest.approx(1.0)
    )
    assert half._defence_share(weak, strong, 0) == 0.5


def test_building_a_pimc_agent_loads_its_compiled_kernels():
    """The first decision must not pay for loading compiled code (a tournament would report the
    load as the agent's slowest decision): building the agent loads the heuristic's defence model
    and the solver's kernels that its searches call. In a fresh process, before the agent exists,
    they are not loaded."""
    from tests.helpers import run_in_fresh_process

    code = (
        "from folkcards.agents import paston_heuristic_core as core\n"
        "from folkcards.search import paston_solver as solver\n"
        "kernels = (core.defence_call, solver._solve_root, solver._move_values,"
        " solver._can_make_root)\n"
        "print(*[len(k.signatures) for k in kernels])\n"
        "from folkcards.agents import make_agent\n"
        "make_agent('expert', 'paston', 'player_0', seed=0)\n"
        "print(*[len(k.signatures) for k in kernels])\n"
    )
    before, after = (list(map(int, line.split())) for line in run_in_fresh_process(code))
    assert before == [0, 0, 0, 0] and min(after) >= 1


def test_pimc_moves_are_the_same_with_the_solver_table_kept_or_cleared():
    """pimc keeps its solver's table between calls (for speed); every move of whole deals is the
    one a solver with a fresh table at every call makes."""
    moves = {}
    for keep in (True, False):
        env = paston_v0.raw_env()
        made = []
        for seed in (3, 4):
            env.reset(seed=seed)
            agents = {
                a: make_agent("pimc:samples=16", "paston", a, seed=i)
                for i, a in enumerate(env.agents)
            }
            for agent in agents.values():
                agent.solver.keep_table = keep
            while not all(env.terminations.values()):
                name = env.agent_selection
                made.append(int(agents[name].act(env.observe(name))))
                env.step(made[-1])
        moves[keep] = made
    assert len(moves[True]) > 40 and moves[True] == moves[False]


# --- the strategy-fusion correction ---------------------------------------------------------


def test_fusion_keys_are_checked():
    agent = make_agent("pimc:fusion=2,fusion_samples=8", "paston")
    assert (agent.params.fusion, agent.params.fusion_samples) == (2, 8)
    for arg in ("fusion=3", "fusion=-1", "fusion_samples=0", "fusion=x"):
        with pytest.raises(ValueError) as info:
            make_agent(f"pimc:{arg}", "paston")
        assert "\n" not in str(info.value) and "pimc" in str(info.value)


class _FusionSpy(PimcAgent):
    """pimc recording where it computes the strategy-fusion correction."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.corrected: list[tuple[bool, int]] = []  # (declaring, tricks left)

    def _fusion_cost(self, view, positions, legal):
        self.corrected.append((view.declarer == 0, positions[0].tricks_left))
        assert len(positions) <= self.params.fusion_samples
        return super()._fusion_cost(view, positions, legal)


def _fused_game(arg: str, deals: int) -> tuple[list[int], list[_FusionSpy]]:
    env = paston_v0.raw_env()
    chosen: list[int] = []
    spies: list[_FusionSpy] = []
    for deal in range(deals):
        table = [_FusionSpy("paston", f"player_{i}", i, parse_spec(arg)[0]) for i in range(3)]
        spies += table
        play_episode(env, table, seed=100 + deal, on_action=lambda d: chosen.append(d.action))
        assert all(agent.fallbacks == 0 for agent in table)
    return chosen, spies


def test_fusion_is_computed_where_asked_and_play_stays_legal_and_reproducible():
    """``fusion=1`` corrects the declarer's cards only, ``2`` every seat's, and never the
    last two tricks (no later choice is left); the games stay legal (the env raises on an
    illegal card) and reproducible by seed."""
    small = "samples=8,bid_samples=3,discard_samples=2,fusion_samples=6"
    declarer_only, spies = _fused_game(small + ",fusion=1", 4)
    calls = [c for spy in spies for c in spy.corrected]
    assert calls and all(declaring and left > 2 for declaring, left in calls)
    every_seat, spies = _fused_game(small + ",fusion=2", 4)
    calls = [c for spy in spies for c in spy.corrected]
    assert any(not declaring for declaring, _ in calls) and all(left > 2 for _, left in calls)
    assert _fused_game(small + ",fusion=2", 4)[0] == every_seat
    _, spies = _fused_game(small + ",fusion=0", 2)
    assert not any(spy.corrected for spy in spies)
