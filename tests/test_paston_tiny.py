"""Paston tiny (docs/rules/paston_tiny.md): seven cards, two each and one in the prikup, the
ladder spades, clubs, best spades, one discard, two tricks with the needs 2 / 1 / 1; the deal's
chance events for the OpenSpiel binding; and the full game's sizes, which the same engine reads
from its own variant."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from folkcards.envs import paston_tiny_v0
from folkcards.envs.cards import PASTON_CARDS
from folkcards.envs.paston.chance import PastonChance, PastonTinyChance
from folkcards.envs.paston.rules import (
    BID_BASE,
    CONTRACT_BASE,
    PASS,
    SURRENDER,
    WHIST,
    PastonDeal,
    parse_deal,
)
from folkcards.envs.paston.variant import PASTON, PASTON_TINY
from folkcards.envs.registry import game_spec

SEVEN = "7S JS KS AS JC KC AC".split()
BIDS = {"spades": BID_BASE, "clubs": BID_BASE + 1, "best": BID_BASE + 4}
CONTRACTS = {"spades": CONTRACT_BASE, "clubs": CONTRACT_BASE + 1, "best": CONTRACT_BASE + 4}


def _deal(p0: str, p1: str, p2: str, prikup: str, first_bidder: int = 1) -> PastonDeal:
    hands, pk = parse_deal(
        {"hands": [p0.split(), p1.split(), p2.split()], "prikup": prikup.split()}, PASTON_TINY
    )
    return PastonDeal(hands, pk, 0, first_bidder, PASTON_TINY)


def _legal(deal: PastonDeal) -> set[int]:
    bits = deal.legal_bits()
    return {a for a in range(bits.bit_length()) if bits >> a & 1}


def _card(name: str) -> int:
    return PASTON_CARDS.card_id(name)


def test_the_deck_is_seven_jack_king_ace_of_spades_and_jack_king_ace_of_clubs():
    assert sorted(PASTON_TINY.card_names) == sorted(SEVEN)
    assert (PASTON_TINY.hand_size, PASTON_TINY.prikup_size, PASTON_TINY.num_tricks) == (2, 1, 2)


@pytest.mark.parametrize("seed", range(20))
def test_every_deal_gives_two_cards_each_and_one_to_the_prikup(seed):
    env = paston_tiny_v0.raw_env()
    env.reset(seed=seed)
    deal = env.state_deal()
    masks = [*deal.hands, deal.prikup]
    assert [bin(m).count("1") for m in masks] == [2, 2, 2, 1]
    assert sum(masks) == PASTON_TINY.all_cards


def test_the_ladder_is_spades_clubs_best_spades_one_step_at_a_time():
    deal = _deal("7S JS", "KS AS", "JC KC", "AC")
    assert _legal(deal) == {PASS, BIDS["spades"]}
    deal.apply(BIDS["spades"])
    assert _legal(deal) == {PASS, BIDS["clubs"]}
    deal.apply(BIDS["clubs"])
    assert _legal(deal) == {PASS, BIDS["best"]}
    deal.apply(BIDS["best"])  # the top of the ladder ends the auction at once
    assert deal.declarer == 0 and deal.phase == 1  # discard


@pytest.mark.parametrize(
    ("bids", "contracts"),
    [
        (["spades", "pass", "pass"], {"spades", "clubs"}),
        (["spades", "clubs", "pass", "pass"], {"clubs"}),
        (["pass", "pass", "pass"], {"spades", "clubs"}),
    ],
)
def test_the_contracts_a_declarer_may_name_after_one_discard(bids, contracts):
    deal = _deal("7S JS", "KS AS", "JC KC", "AC")
    for bid in bids:
        deal.apply(PASS if bid == "pass" else BIDS[bid])
    declarer = deal.declarer
    assert bin(deal.hands[declarer]).count("1") == 3  # the prikup taken
    deal.apply(next(iter(_legal(deal))))
    assert deal.phase == 2 and deal.to_act == declarer
    assert _legal(deal) == {CONTRACTS[c] for c in contracts} | {SURRENDER}


def test_all_pass_gives_the_contract_to_the_jack_of_spades_holder():
    deal = _deal("7S AC", "KS AS", "JS JC", "KC")
    for _ in range(3):
        deal.apply(PASS)
    assert deal.all_pass and deal.declarer == 2


def _play_out(deal: PastonDeal, cards: list[str]) -> None:
    for card in cards:
        assert _card(card) in _legal(deal), card
        deal.apply(_card(card))


@pytest.mark.parametrize(
    ("hands", "bids", "discard", "contract", "defence", "cards", "scores"),
    [
        # clubs (factor 2), both defend, the declarer takes both tricks: +20; -10 x 2 each
        (
            ("KS JC", "AS 7S", "JS KC"),
            ["spades", "pass", "pass"],
            "7S",
            "clubs",
            (WHIST, WHIST),
            ["AC", "KC", "JC", "AS", "JS", "KS"],
            [-20, +20, -20],
        ),
        # spades, one whist: declarer and sole defender one trick each: -10 and 0, passer 0
        (
            ("KS JC", "AS 7S", "JS KC"),
            ["spades", "pass", "pass"],
            "AC",
            "spades",
            (PASS, WHIST),
            ["7S", "KS", "JC", "AS"],
            [0, -10, 0],
        ),
        # best spades failed: -10 x 4; the defender with one trick 0, the other -10 x 4
        (
            ("AS JC", "KS 7S", "JS KC"),
            ["spades", "pass", "clubs", "best"],
            "AC",
            "best",
            (WHIST, WHIST),
            ["KS", "JS", "AS", "JC", "7S", "KC"],
            [0, -40, -40],
        ),
    ],
)
def test_the_scaled_score_table(hands, bids, discard, contract, defence, cards, scores):
    deal = _deal(*hands, "AC")  # player_1 bids first
    for bid in bids:
        deal.apply(PASS if bid == "pass" else BIDS[bid])
    assert deal.declarer == 1
    deal.apply(_card(discard))
    deal.apply(CONTRACTS[contract])
    for call in defence:
        deal.apply(call)
    _play_out(deal, cards)
    assert deal.outcome == "played"
    assert deal.scores == scores


def test_both_pass_is_an_automatic_win_and_surrender_is_ten_and_two():
    deal = _deal("7S JC", "KS AS", "JS KC", "AC")
    deal.apply(BIDS["spades"])
    deal.apply(PASS)
    deal.apply(PASS)
    deal.apply(_card("AC"))
    deal.apply(CONTRACTS["clubs"])
    deal.apply(PASS)
    deal.apply(PASS)
    assert (deal.outcome, deal.scores) == ("auto_win", [0, 20, 0])
    again = _deal("7S JC", "KS AS", "JS KC", "AC")
    for action in (BIDS["spades"], PASS, PASS, _card("AC"), SURRENDER):
        again.apply(action)
    assert (again.outcome, again.scores) == ("surrender", [2, -10, 2])


def test_a_deal_of_other_cards_is_refused_in_one_line():
    env = paston_tiny_v0.raw_env()
    with pytest.raises(ValueError, match=r"^deal: QS is not a card of paston_tiny"):
        env.reset(options={"deal": {"hands": [["QS", "JS"], ["KS", "AS"], ["7S", "JC"]],
                                    "prikup": ["KC"]}})  # fmt: skip
    with pytest.raises(ValueError, match=r"^deal: 7C is not a card of paston_tiny"):
        env.reset(options={"deal": {"hands": [["7C", "JS"], ["KS", "AS"], ["7S", "JC"]],
                                    "prikup": ["KC"]}})  # fmt: skip
    with pytest.raises(ValueError, match="must hold 2 cards"):
        env.reset(options={"deal": {"hands": [SEVEN[:3], SEVEN[3:5], SEVEN[5:7]],
                                    "prikup": []}})  # fmt: skip


def test_the_full_game_keeps_its_sizes():
    """The variant the full game plays is the one of docs/rules/paston.md."""
    assert (PASTON.num_cards, PASTON.hand_size, PASTON.prikup_size) == (32, 10, 2)
    assert (PASTON.declarer_need, PASTON.defender_need, PASTON.sole_defender_need) == (6, 2, 4)
    assert PASTON.ladder == (0, 1, 2, 3, 4) and PASTON.six_spade_redeal
    assert PastonChance.utility_range(3) == (-40.0, 320.0)


# --- the deal's chance events ------------------------------------------------------------------


class _Env:
    variant = PASTON_TINY


def _deals(chance):
    outcomes = chance.outcomes()
    if not outcomes:
        yield (), 1.0
        return
    for place, p in outcomes:
        chance.places.append(place)
        for rest, q in _deals(chance):
            yield (place, *rest), p * q
        chance.places.pop()


def test_the_chance_events_deal_630_deals_with_the_shuffles_probabilities():
    """7!/(2!^3 1!) deals; 7♠ is never the bottom card, the dealer's last: it lies in one of
    the six places above it, which go to the left, the right, the dealer, the prikup, the left
    and the right: the dealer and the prikup 1/6 each, each other seat 2/6."""
    deals = dict(_deals(PastonTinyChance(_Env, dealer=0)))
    assert len(deals) == math.factorial(7) // 2**3 == 630
    assert sum(deals.values()) == pytest.approx(1.0)
    seven = {place: 0.0 for place in range(4)}
    for places, p in deals.items():
        seven[places[0]] += p
    assert seven == pytest.approx({0: 1 / 6, 1: 2 / 6, 2: 2 / 6, 3: 1 / 6})


def test_the_chance_probabilities_are_the_envs_shuffle():
    """The env's own shuffles, counted, against the chance events' probability of 7♠'s place."""
    env = paston_tiny_v0.raw_env()
    counts = np.zeros(4)
    for seed in range(1400):
        env.reset(seed=seed, options={"dealer": 0})
        counts[PastonTinyChance.outcomes_of(env)[0]] += 1
    assert counts / counts.sum() == pytest.approx([1 / 6, 2 / 6, 2 / 6, 1 / 6], abs=0.04)


def test_given_cards_leave_the_deals_of_the_others():
    given = PastonTinyChance.given_cards({_card("AS"): 1, _card("KC"): 1})
    deals = dict(_deals(given(_Env, dealer=0)))
    assert len(deals) == math.factorial(5) // 2**2  # the other five cards: 30 deals
    assert all(places[3] == 1 and places[5] == 1 for places in deals)
    assert sum(deals.values()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="holds only 2 cards"):
        PastonTinyChance.given_cards({_card(c): 1 for c in ("AS", "KC", "7S")})


def test_the_registry_offers_only_what_plays_the_tiny_deck():
    spec = game_spec("paston-tiny")
    assert spec.name == "paston_tiny" and spec.base_game == "paston"
    assert spec.agents == ("random", "heuristic", "pimc")
    for piece in ("batched_engine", "expert_agent", "montecarlo_agent", "endgame_search"):
        assert not spec.has(piece), piece
    for piece in ("search_agent", "belief", "open_hand_solver"):  # they read the variant
        assert spec.has(piece), piece
    assert spec.piece("belief") is not game_spec("paston").piece("belief")
    assert list(product([spec.num_actions], [spec.min_players])) == [(45, 3)]


@pytest.mark.parametrize("game", ["paston", "paston_tiny"])
@pytest.mark.parametrize("episode", ["deal", "game"])
def test_a_copied_env_plays_on_alone_and_as_the_original(game, episode):
    """OpenSpiel copies the env at every node: a copy must be independent of the original and
    play on exactly as it would."""
    import copy

    env = game_spec(game).raw_env(episode=episode)
    env.reset(seed=4)
    rng = np.random.default_rng(4)

    def step(e, a):
        e.step(a)
        return (e.agent_selection, dict(e.rewards), e.record(), e.observe(e.agent_selection))

    for _ in range(3):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    before = env.record()
    twin = copy.deepcopy(env)
    assert twin.totals == env.totals and twin.state_deal() is not env.state_deal()
    for _ in range(200):
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        action = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        mine, theirs = step(twin, action), step(copy.deepcopy(env), action)
        assert mine[:3] == theirs[:3]
        assert all(np.array_equal(mine[3][k], theirs[3][k]) for k in mine[3])
        env.step(action)
        assert env.record() == twin.record()
    alone = copy.deepcopy(env)
    assert before != env.record() and alone.record() == env.record()
    assert int(alone._rng.integers(1 << 30)) == int(env._rng.integers(1 << 30))
