"""The Paston open-hand solver against its contract and a brute-force minimax.

Positions come from the real engine (``PastonDeal``): a random deal, a quick auction, random
discards, contract and defence, then random legal play to a random point (mid-trick included).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from folkcards.envs.cards import PASTON_CARDS, mask_to_cards
from folkcards.envs.paston.rules import (
    BID_BASE,
    CONTRACT_BASE,
    PASS,
    PLAY,
    WHIST,
    PastonDeal,
    random_deal,
)
from folkcards.search.paston_solver import (
    PastonSolver,
    Position,
    best_moves,
    legal_cards,
    move_values,
    solve,
)

from tests.paston.solver_reference import reference_move_values, reference_solve

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "paston_episodes.jsonl"


def _bits(mask: int) -> list[int]:
    return mask_to_cards(mask)


def engine_deal_in_play(rng: np.random.Generator, sole: bool) -> PastonDeal:
    """A deal driven through the engine up to the first lead (random contract and defence)."""
    hands, prikup = random_deal(rng, dealer=0, first_deal=False)
    deal = PastonDeal(hands, prikup, dealer=0, first_bidder=1)
    deal.apply(BID_BASE)  # player_1 bids spades, the others pass: player_1 declares
    deal.apply(PASS)
    deal.apply(PASS)
    for _ in range(2):
        deal.apply(int(rng.choice(_bits(deal.legal_bits()))))
    contracts = [
        a for a in _bits(deal.legal_bits()) if a >= CONTRACT_BASE and a < CONTRACT_BASE + 5
    ]
    deal.apply(int(rng.choice(contracts)))
    if sole:
        first_whists = bool(rng.integers(2))
        deal.apply(WHIST if first_whists else PASS)
        deal.apply(PASS if first_whists else WHIST)
    else:
        deal.apply(WHIST)
        deal.apply(WHIST)
    assert deal.phase == PLAY
    return deal


def random_play(deal: PastonDeal, rng: np.random.Generator, cards: int) -> None:
    for _ in range(cards):
        deal.apply(int(rng.choice(_bits(deal.legal_bits()))))


def random_ending(rng: np.random.Generator, tricks_left: int, sole: bool) -> Position:
    """A position with ``tricks_left`` tricks not completed, at a random point of its trick."""
    deal = engine_deal_in_play(rng, sole)
    players = 2 if sole else 3
    random_play(deal, rng, (10 - tricks_left) * players + int(rng.integers(players)))
    return Position.from_deal(deal)


# --- brute-force agreement --------------------------------------------------------------------


def _check_against_reference(rng: np.random.Generator, count: int, max_tricks: int) -> int:
    checked = 0
    for i in range(count):
        sole = i % 2 == 1
        position = random_ending(rng, int(rng.integers(1, max_tricks + 1)), sole)
        expected = reference_solve(position)
        assert solve(position) == expected, position
        values = move_values(position)
        assert values == reference_move_values(position), position
        assert set(values) == set(legal_cards(position))
        checked += 1
    return checked


def test_solver_equals_brute_force_on_random_endings_of_up_to_four_tricks():
    rng = np.random.default_rng(11)
    assert _check_against_reference(rng, 2000, 4) == 2000


def test_solver_equals_brute_force_on_random_endings_of_five_tricks():
    rng = np.random.default_rng(12)
    for i in range(80):
        position = random_ending(rng, 5, sole=i % 2 == 1)
        assert solve(position) == reference_solve(position), position
        assert move_values(position) == reference_move_values(position), position


@pytest.mark.slow
def test_solver_equals_brute_force_on_many_endings_slow():
    rng = np.random.default_rng(13)
    assert _check_against_reference(rng, 1500, 5) == 1500
    for i in range(20):
        position = random_ending(rng, 6, sole=i % 2 == 1)
        assert move_values(position) == reference_move_values(position), position


def test_solver_value_is_the_optimum_of_its_move_values():
    rng = np.random.default_rng(14)
    for i in range(60):
        position = random_ending(rng, int(rng.integers(1, 11)), sole=i % 3 == 0)
        values = move_values(position)
        pick = max if position.to_act == position.declarer else min
        assert solve(position) == pick(values.values())
        best = best_moves(position)
        assert best and all(values[card] == solve(position) for card in best)
        for card in legal_cards(position):
            assert values[card] == solve(position.play(card))


# --- worked examples ----------------------------------------------------------------------------


def test_worked_example_sole_defender_ruffs_the_second_spade():
    # hearts trump; the declarer leads from A K of spades, the defender holds Q of spades and a
    # trump: the defender must follow to the first spade and ruffs the second.
    position = Position(["AS KS", "QS 7H", ""], "H", declarer=0, active=[0, 1], declarer_tricks=5)
    assert solve(position) == reference_solve(position) == 6
    assert move_values(position) == reference_move_values(position) == {6: 6, 7: 6}


def test_worked_example_a_defender_ruffs_one_ace():
    # clubs trump, three players; player_0 declares and leads. player_2 is void in spades and
    # holds a trump; player_1 holds no trump.
    position = Position(
        ["AS AD", "KS 7H", "8C 7D"], "C", declarer=0, active=[0, 1, 2], declarer_tricks=3
    )
    # AS: player_1 follows with KS, player_2 must ruff with 8C and leads 7D to the declarer's AD.
    # AD first: it wins, then AS is ruffed by player_2. One trick of two either way.
    expected = {PASTON_CARDS.card_id("AS"): 4, PASTON_CARDS.card_id("AD"): 4}
    assert move_values(position) == reference_move_values(position) == expected
    assert solve(position) == reference_solve(position) == 4


def test_worked_example_passer_cards_are_out_of_play():
    # spades trump: player_2 passed; its A of hearts would beat the declarer's K of hearts, but it
    # is out of play, so the declarer's K of hearts wins against the sole defender's 7H.
    hands = ["KH", "7H", "AH"]
    position = Position(hands, "S", declarer=0, active=[0, 1], declarer_tricks=9)
    assert solve(position) == reference_solve(position) == 10
    with_passer_playing = Position(["KH", "7H", "AH"], "S", declarer=0, declarer_tricks=9)
    assert solve(with_passer_playing) == reference_solve(with_passer_playing) == 9


def test_declarer_holding_every_trump_and_two_side_aces_takes_ten():
    hands = [
        "7S 8S 9S 10S JS QS KS AS AC AD",
        "7C 8C 9C 10C JC 7D 8D 9D 10D JD",
        "QC KC QD KD 7H 8H 9H 10H JH QH",
    ]
    for defenders in ([1, 2], [1], [2]):
        assert solve(Position.first_lead(hands, "S", 0, defenders)) == 10
    # with clubs trump the defenders' clubs now win tricks
    assert solve(Position.first_lead(hands, "C", 0, [1, 2])) < 10


def test_declarer_with_no_trump_and_the_lowest_cards_takes_nothing():
    hands = [
        "7C 8C 9C 7D 8D 9D 7H 8H 9H 10H",
        "7S 8S 9S 10S JS QS KS AS AC AD",
        "10C JC QC KC 10D JD QD KD JH QH",
    ]
    assert solve(Position.first_lead(hands, "S", 0, [1, 2])) == 0


# --- symmetries -------------------------------------------------------------------------------


def _swap_suits(mask: int, a: int, b: int) -> int:
    sa = (mask >> (8 * a)) & 0xFF
    sb = (mask >> (8 * b)) & 0xFF
    mask &= ~((0xFF << (8 * a)) | (0xFF << (8 * b)))
    return mask | (sa << (8 * b)) | (sb << (8 * a))


def _swap_card(card: int, a: int, b: int) -> int:
    suit = card >> 3
    if suit in (a, b):
        return 8 * (b if suit == a else a) + (card & 7)
    return card


def test_values_do_not_change_under_relabelling_suits_or_rotating_seats():
    rng = np.random.default_rng(15)
    for i in range(30):
        position = random_ending(rng, int(rng.integers(4, 11)), sole=i % 2 == 0)
        value = solve(position)
        others = [s for s in range(4) if s != position.trump]
        a, b = (int(x) for x in rng.choice(others, 2, replace=False))
        swapped = Position(
            [_swap_suits(h, a, b) for h in position.hands],
            position.trump,
            position.declarer,
            position.active,
            position.leader,
            [_swap_card(c, a, b) for c in position.trick],
            position.declarer_tricks,
        )
        assert solve(swapped) == value
        k = int(rng.integers(1, 3))
        rotated = Position(
            [position.hands[(s - k) % 3] for s in range(3)],
            position.trump,
            (position.declarer + k) % 3,
            [(s + k) % 3 for s in position.active],
            (position.leader + k) % 3,
            position.trick,
            position.declarer_tricks,
        )
        assert solve(rotated) == value


def test_cards_played_earlier_close_the_rank_gaps():
    # the same ending with different ranks but the same relative order in each suit
    low = Position(["7S 9S 7H", "8S 10S 8H", "JS QS 9H"], "H", declarer=0, declarer_tricks=4)
    high = Position(["7S JS 8H", "9S QS 10H", "KS AS AH"], "H", declarer=0, declarer_tricks=4)
    assert solve(low) == solve(high)
    assert list(move_values(low).values()) == list(move_values(high).values())


def test_results_do_not_depend_on_earlier_calls_or_table_size():
    rng = np.random.default_rng(16)
    positions = [random_ending(rng, 10 if i < 4 else 7, sole=i % 2 == 0) for i in range(8)]
    small = PastonSolver(tt_bits=10)
    fresh = [PastonSolver(tt_bits=12).solve(p) for p in positions]
    assert [small.solve(p) for p in positions] == fresh
    assert [solve(p) for p in reversed(positions)] == fresh[::-1]


def test_a_solver_that_keeps_its_table_gives_the_brute_force_values():
    """``keep_table=True`` keeps every entry from call to call (the open-hand analysis relies
    on it): over endings of many deals, both trumps and defences, and the three kinds of call
    interleaved, every value is still the brute-force one; a small table forces replacements."""
    rng = np.random.default_rng(18)
    kept = PastonSolver(tt_bits=10, keep_table=True)
    for i in range(600):
        position = random_ending(rng, int(rng.integers(1, 5)), sole=i % 3 == 0)
        expected = reference_solve(position)
        assert kept.solve(position) == expected, position
        assert kept.move_values(position) == reference_move_values(position), position
        target = int(rng.integers(0, 11))
        assert kept.can_make(position, target) == (expected >= target), position


def test_a_kept_table_gives_the_fresh_values_along_whole_deals():
    """Every position of played-out deals (the analysis' sequence: one deal's positions in
    order, deals one after the other) solved with a kept table and with a fresh one."""
    rng = np.random.default_rng(19)
    kept = PastonSolver(keep_table=True)
    for i in range(12):
        deal = engine_deal_in_play(rng, sole=i % 2 == 1)
        while deal.phase == PLAY:
            position = Position.from_deal(deal)
            assert kept.solve(position) == solve(position), position
            deal.apply(int(rng.choice(_bits(deal.legal_bits()))))
    kept.clear_table()
    assert kept.solve(position) == solve(position)


def test_from_deal_equals_the_checked_constructor():
    """``from_deal`` trusts the engine state and skips the checks; the checked constructor on
    the same fields gives the same position, at trick boundaries and inside tricks."""
    rng = np.random.default_rng(20)
    fields = ("hands", "trump", "declarer", "active", "leader", "trick", "declarer_tricks")
    for i in range(300):
        deal = engine_deal_in_play(rng, sole=i % 2 == 1)
        random_play(deal, rng, int(rng.integers(0, 20)))
        fast = Position.from_deal(deal)
        checked = Position(
            hands=list(deal.hands),
            trump=deal.trump,
            declarer=deal.declarer,
            active=deal.active,
            leader=deal.leader if not deal.trick else None,
            trick=list(deal.trick),
            declarer_tricks=deal.tricks[deal.declarer],
        )
        assert [getattr(fast, f) for f in fields] == [getattr(checked, f) for f in fields]


# --- the real engine: play the solver's moves to the end -----------------------------------------


def _play_out_with_solver(deal: PastonDeal) -> None:
    """Play the deal to its end with optimal moves for both sides, checking the value holds."""
    start = Position.from_deal(deal)
    value = solve(start)
    while deal.phase == PLAY:
        position = Position.from_deal(deal)
        assert solve(position) == value
        card = best_moves(position)[0]
        assert deal.legal_bits() >> card & 1
        deal.apply(card)
    assert deal.tricks[deal.declarer] == value


def test_optimal_play_through_the_engine_reaches_the_solved_value():
    rng = np.random.default_rng(17)
    for i in range(12):
        deal = engine_deal_in_play(rng, sole=i % 2 == 1)
        random_play(deal, rng, int(rng.integers(0, 6)))
        _play_out_with_solver(deal)


def _referee_play_episodes() -> list[dict]:
    episodes = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
    return [e for e in episodes if any(r["outcome"] == "played" for r in e["result"].values())]


def test_referee_vectors_solved_value_is_consistent():
    """From the first lead of every played referee episode, optimal play by both sides through the
    real engine ends with exactly the solved number; along the recorded (non-optimal) play each
    card's value is the value of the position it leads to, never better for the side that played
    it than the optimum, and the last position's value is the recorded trick count."""
    from folkcards.envs import paston_v0

    episodes = _referee_play_episodes()
    assert len(episodes) >= 5
    for episode in episodes:
        env = paston_v0.raw_env(**episode["env_kwargs"])
        env.reset(seed=0, options=episode["options"])
        steps = iter(episode["steps"])
        while env.unwrapped.state_deal().phase != PLAY:
            env.step(next(steps)["action"])
        deal = env.unwrapped.state_deal()
        position = Position.from_deal(deal)
        _play_out_with_solver(copy.deepcopy(deal))
        for step in steps:
            card = step["action"]
            values = move_values(position)
            after = position.play(card)
            assert values[card] == solve(after)
            if position.to_act == position.declarer:
                assert values[card] <= solve(position)
            else:
                assert values[card] >= solve(position)
            position = after
        recorded = episode["result"]
        declarer = next(r for r in recorded.values() if r["role"] == "declarer")
        assert position.declarer_tricks == declarer["tricks"]
        assert solve(position) == declarer["tricks"]


# --- input validation ---------------------------------------------------------------------------


FULL = [
    "7S 8S 9S 10S JS QS KS AS AC AD",
    "7C 8C 9C 10C JC 7D 8D 9D 10D JD",
    "QC KC QD KD 7H 8H 9H 10H JH QH",
]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(hands=["AS KS", "AS 7H", "8H 9H"], trump="S", declarer=0), "two hands"),
        (dict(hands=["AS KS", "QS", "8H 9H"], trump="S", declarer=0), "equal numbers"),
        (dict(hands=["AS", "QS", "8H"], trump="S", declarer=0, trick=["7S"]), "one card fewer"),
        (dict(hands=["AS", "QS", "8H"], trump="S", declarer=0, trick=["AS"]), "both in a hand"),
        (
            dict(hands=["AS", "KS", "8H 9H"], trump="S", declarer=0, trick=["7S", "10H"]),
            "inconsistent",
        ),
        (dict(hands=["AS", "KS", "8H 9H"], trump="S", declarer=0, trick=["7C", "10H"]), "trump"),
        (
            dict(hands=["AS", "KS", "8H"], trump="S", declarer=0, trick=["7S", "8S", "9S"]),
            "complete",
        ),
        (dict(hands=["AS", "KS", "8H"], trump="X", declarer=0), "trump"),
        (dict(hands=["AS", "KS", "8H"], trump="S", declarer=3), "declarer"),
        (dict(hands=["AS", "KS", "8H"], trump="S", declarer=0, active=[1, 2]), "declarer"),
        (dict(hands=["AS", "KS", "8H"], trump="S", declarer=0, active=[0]), "2 or 3"),
        (dict(hands=["AS", "KS", "8H"], trump="S", declarer=0, active=[0, 1], leader=2), "leader"),
        (
            dict(hands=["AS", "KS", "8H"], trump="S", declarer=0, declarer_tricks=10),
            "declarer_tricks",
        ),
        (dict(hands=["AS", "KS"], trump="S", declarer=0), "3 hands"),
        (dict(hands=[1 << 40, 0, 0], trump="S", declarer=0), "bitmask"),
        (dict(hands=["AS", "KS", "ZZ"], trump="S", declarer=0), "unknown card"),
    ],
)
def test_bad_positions_raise_value_error_naming_the_problem(kwargs: dict, message: str):
    with pytest.raises(ValueError, match=message):
        Position(**kwargs)


def test_bad_constructor_input_raises_value_error():
    with pytest.raises(ValueError, match="holds 9 cards"):
        Position.first_lead([FULL[0], FULL[1], FULL[2].rsplit(" ", 1)[0]], "S", 0, [1, 2])
    with pytest.raises(ValueError, match="defenders"):
        Position.first_lead(FULL, "S", 0, [0, 1])
    with pytest.raises(ValueError, match="defenders"):
        Position.first_lead(FULL, "S", 0, [])
    deal = PastonDeal(*random_deal(np.random.default_rng(0), 0, False), dealer=0, first_bidder=1)
    with pytest.raises(ValueError, match="play phase"):
        Position.from_deal(deal)
    position = Position.first_lead(FULL, "S", 0, [1, 2])
    with pytest.raises(ValueError, match="not a legal card"):
        position.play("7C")
    with pytest.raises(ValueError, match="Position"):
        solve("not a position")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tt_bits"):
        PastonSolver(tt_bits=3)


def test_positions_accept_masks_card_lists_and_strings_alike():
    masks = [sum(1 << PASTON_CARDS.card_id(c) for c in hand.split()) for hand in FULL]
    ids = [[PASTON_CARDS.card_id(c) for c in hand.split()] for hand in FULL]
    a = Position.first_lead(masks, 0, 0, [1, 2])
    b = Position.first_lead(ids, "spades", 0, [2, 1])
    c = Position.first_lead(FULL, "S", 0, (1, 2))
    assert a.hands == b.hands == c.hands and a.trump == b.trump == c.trump == 0
    assert a.active == b.active == (0, 1, 2)


def test_finished_position_has_no_moves():
    position = Position(["", "", ""], "H", declarer=0, declarer_tricks=7)
    assert solve(position) == 7
    assert move_values(position) == {}


def test_separate_solvers_in_threads_give_the_serial_results():
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(18)
    positions = [random_ending(rng, 8, sole=i % 2 == 0) for i in range(12)]
    serial = [solve(p) for p in positions]
    solvers = [PastonSolver(tt_bits=14), PastonSolver(tt_bits=14)]

    def work(k: int) -> list[int]:
        return [solvers[k].solve(p) for p in positions[k::2]]

    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(work, [0, 1])
    assert first == serial[0::2] and second == serial[1::2]


def test_the_module_functions_are_safe_in_threads():
    """``solve`` and ``move_values`` use one solver per thread (a shared workspace would mix
    the searches of concurrent threads)."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(21)
    positions = [random_ending(rng, 8, sole=i % 2 == 0) for i in range(16)]
    serial = [(solve(p), move_values(p)) for p in positions]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda p: (solve(p), move_values(p)), positions * 4))
    assert threaded == serial * 4


def test_load_kernels_loads_every_search_kernel_before_the_first_search():
    """``load_kernels`` leaves the solver's three search kernels compiled (loaded) in a fresh
    process where nothing has searched yet, and the first search then gives the right answer."""
    from tests.helpers import run_in_fresh_process

    code = (
        "from folkcards.search import paston_solver as solver\n"
        "kernels = (solver._solve_root, solver._move_values, solver._can_make_root)\n"
        "print(*[len(k.signatures) for k in kernels])\n"
        "from folkcards.search.paston_solver import load_kernels\n"
        "load_kernels()\n"
        "print(*[len(k.signatures) for k in kernels])\n"
        "print(solver.solve(solver.Position(['AS', 'KS', 'QS'], 'S', declarer=0)))\n"
    )
    before, after, tricks = run_in_fresh_process(code)
    assert before.split() == ["0", "0", "0"] and min(map(int, after.split())) >= 1
    assert tricks == "1"  # the declarer's ace of trumps takes the last trick
