"""Paston rulebook tests, written from ``docs/rules/paston.md`` and the public contract (``docs/envs/``).

Every rule of paston.md has at least one test here that fails if the rule is broken; each
test's docstring names the section it checks.  Only the public contract of api.md is used:
``paston_v0.raw_env``, ``reset(seed, options)``, the AEC loop, masks, infos and rewards.
Deals are written as text (seat 0, 1, 2, prikup).  ``spec_helpers`` holds a reference of
the rules written from the same spec, used to drive random deals and cross-check the env.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .spec_helpers import (
    BID_BEST,
    BID_CLUBS,
    BID_DIAMONDS,
    BID_HEARTS,
    BID_SPADES,
    C_BEST,
    C_CLUBS,
    C_DIAMONDS,
    C_HEARTS,
    C_SPADES,
    J_SPADES,
    LEVEL_NAMES,
    NUM_ACTIONS,
    PASS,
    SEVEN_SPADES,
    SURRENDER,
    TRUMP,
    WHIST,
    P,
    RefAuction,
    Table,
    all_pass_declarer,
    assert_same_snapshot,
    auction_to,
    cards,
    cid,
    contract_name,
    contract_options,
    cstr,
    deal,
    deal_cards,
    hands_after_discard,
    is_six_spade,
    left,
    make_raw_env,
    random_deal,
    right,
    seat_of,
    snapshot,
    table_declarer,
    table_defender,
)

AGENTS = ["player_0", "player_1", "player_2"]
ALL_SUITS_AND_SURRENDER = {C_SPADES, C_CLUBS, C_DIAMONDS, C_HEARTS, SURRENDER}

# --------------------------------------------------------------------------- deals

# J♠ with seat 2, 7♠ with seat 1, prikup KH AH.
BASE = deal(
    "8S 9S 10S 7C 8C 9C 10C 7D 8D 9D",
    "7S QS 7H 8H 9H 10H JH JC QC KC",
    "JS KS AS AC 10D JD QD KD AD QH",
    "KH AH",
)
# J♠ in the prikup, 7♠ with seat 1.
JACK_IN_PRIKUP = deal(
    "8S 9S 10S 7C 8C 9C 10C 7D 8D 9D",
    "7S QS 7H 8H 9H 10H JH JC QC KC",
    "KH KS AS AC 10D JD QD KD AD QH",
    "JS AH",
)
# J♠ and 7♠ both in the prikup.
BOTH_IN_PRIKUP = deal(
    "8S 9S 10S 7C 8C 9C 10C 7D 8D 9D",
    "AH QS 7H 8H 9H 10H JH JC QC KC",
    "KH KS AS AC 10D JD QD KD AD QH",
    "JS 7S",
)
# Seat 0 holds 7♠-Q♠ without K♠/A♠ (§2.4).
SIX_SPADES = deal(
    "7S 8S 9S 10S JS QS 7C 8C 9C 10C",
    "KS 7H 8H 9H 10H JH JC QC KC 7D",
    "AS AC 8D 9D 10D JD QD KD AD QH",
    "KH AH",
)
# Still a six-spade hand: K♠ and A♠ are in the prikup / elsewhere, not with the holder.
SIX_SPADES_K_IN_PRIKUP = deal(
    "7S 8S 9S 10S JS QS 7C 8C 9C 10C",
    "KH 7H 8H 9H 10H JH JC QC KC 7D",
    "AS AC 8D 9D 10D JD QD KD AD QH",
    "KS AH",
)
# The six low spades *with* K♠: not a six-spade redeal.
SIX_SPADES_WITH_KING = deal(
    "7S 8S 9S 10S JS QS KS 8C 9C 10C",
    "7C 7H 8H 9H 10H JH JC QC KC 7D",
    "AS AC 8D 9D 10D JD QD KD AD QH",
    "KH AH",
)
SIX_SPADES_WITH_ACE = deal(
    "7S 8S 9S 10S JS QS AS 8C 9C 10C",
    "7C 7H 8H 9H 10H JH JC QC KC 7D",
    "KS AC 8D 9D 10D JD QD KD AD QH",
    "KH AH",
)
# Hand-built for the play rules (§6); see test_play_rules_handcrafted.
PLAY_DEAL = deal(
    "9S AS 9H 10H JH QH KH AH AC AD",
    "7S 8S 10S QS 7C 8C 9C 7D 8D 9D",
    "7H 8H 10C JC QC KC 10D JD QD KD",
    "JS KS",
)


def rotate(d: dict, k: int) -> dict:
    """The same deal with seat i's hand moved to seat i+k."""
    hands = [None, None, None]
    for i in range(3):
        hands[(i + k) % 3] = list(d["hands"][i])
    return {"hands": hands, "prikup": list(d["prikup"])}


def holder(d: dict, card: int) -> int | None:
    hands, _ = deal_cards(d)
    for s in range(3):
        if card in hands[s]:
            return s
    return None


def new_deal(dealer: int = 2, d: dict = BASE, seed: int = 0, **env_kwargs) -> Table:
    return Table(episode="deal", **env_kwargs).reset(seed=seed, dealer=dealer, deal=d)


def run_to_contract(t: Table, auction, declarer: int, discards) -> None:
    t.script(auction)
    assert t.turn == P(declarer), f"declarer should be {P(declarer)}, env selects {t.turn}"
    for c in discards:
        t.act(c, declarer)


def lowest_discards(t: Table) -> list[int]:
    """Discard the two lowest card ids the declarer's mask offers."""
    out = []
    for _ in range(2):
        c = min(t.legal())
        assert c < 32
        out.append(c)
        t.act(c)
    return out


def surrender_deal(t: Table, declarer: int | None = None) -> int:
    """Finish the current deal: ``declarer`` (default: the first bidder) wins at spades,
    discards its two lowest cards and surrenders.  Returns the declarer's seat."""
    first = seat_of(t.turn)
    declarer = first if declarer is None else declarer
    t.script(auction_to(first, declarer, 0))
    assert t.turn == P(declarer)
    lowest_discards(t)
    t.act(SURRENDER, declarer)
    return declarer


def assert_end_infos(t: Table, *, outcome, roles, contract, bid, scores, tricks=None):
    for s in range(3):
        info = t.infos[P(s)]
        assert info["outcome"] == outcome, (P(s), info)
        assert info["role"] == roles[s], (P(s), info["role"], roles[s])
        assert info["contract"] == contract, (P(s), info["contract"])
        assert info["bid"] == bid, (P(s), info["bid"])
        assert info["deal_score"] == scores[s], (P(s), info["deal_score"], scores[s])
        if tricks is not None and s in tricks:
            assert info["tricks"] == tricks[s], (P(s), info["tricks"], tricks[s])


def assert_rewards(t: Table, scores, scale: float = 1.0):
    """api.md: each agent's rewards over the episode sum to its table score x reward_scale."""
    for s in range(3):
        want = scores[s] * scale
        assert t.reward_sum[P(s)] == pytest.approx(want), ("sum of env.rewards", P(s))
        assert t.episode_rewards()[P(s)] == pytest.approx(want), ("sum seen via last()", P(s))


# ================================================================ API surface (api.md)


def test_agents_and_spaces():
    """api.md "Package and names"/"Observations": player_0..2 clockwise, Discrete(45),
    Dict observation space with an int8 action mask of 45."""
    env = make_raw_env()
    env.reset(seed=0)
    assert list(env.possible_agents) == AGENTS
    for a in AGENTS:
        assert env.action_space(a).n == NUM_ACTIONS
        mask = env.observe(a)["action_mask"]
        assert mask.shape == (NUM_ACTIONS,) and mask.dtype == np.int8
        assert env.observation_space(a)["action_mask"].shape == (NUM_ACTIONS,)


def test_action_strings_round_trip():
    """api.md "Actions": action_to_string / string_to_action translate both ways."""
    env = make_raw_env()
    env.reset(seed=0)
    u = env.unwrapped
    names = [u.action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    for a in range(NUM_ACTIONS):
        assert u.string_to_action(names[a]) == a


def test_card_ids_and_strings_are_the_same_cards():
    """§1 card ids (id = 8*suit + rank) and api.md "cards may be given as ids or strings":
    the same deal given both ways is the same deal for every observer."""
    assert [cid(s) for s in ("7S", "JS", "AS", "7C", "AH", "10H")] == [0, 4, 7, 8, 31, 27]
    t1 = new_deal(d=PLAY_DEAL)
    ids = deal(
        *(" ".join(h) for h in PLAY_DEAL["hands"]), " ".join(PLAY_DEAL["prikup"]), as_ids=True
    )
    t2 = new_deal(d=ids)
    for a in AGENTS:
        assert np.array_equal(t1.env.observe(a)["observation"], t2.env.observe(a)["observation"])
    # the ids really mean those cards: the declarer's discard mask is its hand + prikup
    for t in (t1, t2):
        run_to_contract(t, [(0, BID_SPADES), (1, PASS), (2, PASS)], 0, [])
        assert t.legal() == set(cards(PLAY_DEAL["hands"][0])) | set(cards(PLAY_DEAL["prikup"]))


# ====================================================================== §2 the deal


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_deal_mode_first_bidder_is_dealers_left(dealer):
    """§2.6 / api.md episodes: in `deal` mode the first bidder is the dealer's left, whoever
    holds J♠ (a deal-mode episode is never a first deal)."""
    t = new_deal(dealer=dealer, d=rotate(BASE, dealer))  # J♠ is with dealer+2, 7♠ with dealer+1
    assert t.turn == P(left(dealer))
    assert t.legal() == {PASS, BID_SPADES}
    t.assert_only_turn_has_mask()


def test_bottom_card_is_never_the_seven_of_spades():
    """§2.2-§2.3: the bottom (32nd) card goes to the dealer and is never 7♠ (reshuffle).
    With a uniform shuffle, 7♠ is then in dealer's hand + prikup (12 of the 32 positions,
    bottom excluded) with probability 11/31 = 0.355, against 12/32 = 0.375 without the
    rule.  The dealer declares after two passes, so its mask shows those 12 cards."""
    env = make_raw_env()
    n, hits = 30000, 0
    for seed in range(n):
        dealer = seed % 3
        env.reset(seed=seed, options={"dealer": dealer})
        env.step(PASS)
        env.step(PASS)
        env.step(BID_SPADES)
        assert env.agent_selection == P(dealer)
        hits += int(env.observe(P(dealer))["action_mask"][SEVEN_SPADES])
    rate = hits / n  # standard error about 0.0028
    assert 0.340 < rate < 0.365, f"7♠ with dealer or prikup in {rate:.4f} of deals"


def test_same_seed_same_deal():
    """api.md: same seed, same actions => same episode (the random deal and dealer)."""
    a, b = make_raw_env(), make_raw_env()
    for seed in (0, 1, 12345):
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.agent_selection == b.agent_selection
        for ag in AGENTS:
            assert np.array_equal(a.observe(ag)["observation"], b.observe(ag)["observation"])


@pytest.mark.parametrize("holder_seat", [0, 1, 2])
def test_six_spade_deal_raises_in_every_mode(holder_seat):
    """§2.4 six-spade redeal is automatic; api.md: an injected six-spade deal raises
    ValueError in every mode."""
    for d in (SIX_SPADES, SIX_SPADES_K_IN_PRIKUP):
        d = rotate(d, holder_seat)
        for kwargs, extra in (
            ({"episode": "deal"}, {}),
            ({"episode": "game"}, {"first_deal": True}),
            ({"episode": "game"}, {"first_deal": False}),
        ):
            env = make_raw_env(**kwargs)
            with pytest.raises(ValueError):
                env.reset(seed=0, options={"dealer": 0, "deal": d, **extra})


@pytest.mark.parametrize("d", [SIX_SPADES_WITH_KING, SIX_SPADES_WITH_ACE])
def test_six_low_spades_with_king_or_ace_is_a_normal_deal(d):
    """§2.4: only 7♠-Q♠ with *neither* K♠ nor A♠ forces a redeal."""
    assert not any(is_six_spade(h) for h in deal_cards(d)[0])
    t = new_deal(dealer=2, d=d)
    assert t.turn == P(0) and t.legal() == {PASS, BID_SPADES}


def test_jack_and_seven_in_prikup_valid_in_deal_mode_invalid_on_first_game_deal():
    """§2.5 / api.md Decided details: J♠+7♠ both in the prikup redeals at once on a first
    deal (injecting it with first_deal=True raises ValueError), but a deal-mode episode and
    a later game deal are not first deals, so it is valid there."""
    new_deal(dealer=0, d=BOTH_IN_PRIKUP)
    env = make_raw_env(episode="game")
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"dealer": 0, "deal": BOTH_IN_PRIKUP, "first_deal": True})
    env = make_raw_env(episode="game")
    with pytest.raises(ValueError):  # first_deal defaults to True for a game's first deal
        env.reset(seed=0, options={"dealer": 0, "deal": BOTH_IN_PRIKUP})
    t = Table(episode="game").reset(seed=0, dealer=0, deal=BOTH_IN_PRIKUP, first_deal=False)
    assert t.turn == P(1)


@pytest.mark.parametrize("dealer", [0, 1, 2])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_first_game_deal_jack_of_spades_holder_bids_first(dealer, k):
    """§2.5: on the first deal of a game the holder of J♠ is the first bidder."""
    d = rotate(BASE, k)
    jack = holder(d, J_SPADES)
    t = Table(episode="game").reset(seed=0, dealer=dealer, deal=d)  # first_deal defaults True
    assert t.turn == P(jack)
    assert t.legal() == {PASS, BID_SPADES}
    t2 = Table(episode="game").reset(seed=0, dealer=dealer, deal=d, first_deal=True)
    assert t2.turn == P(jack)


@pytest.mark.parametrize("dealer", [0, 1, 2])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_first_game_deal_seven_holder_bids_first_when_jack_in_prikup(dealer, k):
    """§2.5: if J♠ is in the prikup, the holder of 7♠ is the first bidder."""
    d = rotate(JACK_IN_PRIKUP, k)
    t = Table(episode="game").reset(seed=0, dealer=dealer, deal=d, first_deal=True)
    assert t.turn == P(holder(d, SEVEN_SPADES))


@pytest.mark.parametrize("seed", range(4))
def test_first_game_deal_without_given_dealer_still_uses_jack(seed):
    """§2.1/§2.5: deal 1's dealer is free (random from the seed), but its first bidder is
    still the J♠ holder."""
    t = Table(episode="game").reset(seed=seed, deal=BASE)
    assert t.turn == P(holder(BASE, J_SPADES))


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_later_game_deal_first_bidder_is_dealers_left(dealer):
    """§2.6: every later deal (first_deal=False) starts at the dealer's left, J♠ or not."""
    t = Table(episode="game").reset(
        seed=0, dealer=dealer, deal=rotate(BASE, dealer), first_deal=False
    )
    assert t.turn == P(left(dealer))


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_rotation_first_bidder_becomes_next_dealer(dealer):
    """§2.7: the first bidder of a deal deals the next one, and its left bids first there;
    deal 1 by J♠, then the rotation (also when the first bidder was the dealer itself)."""
    for d in (BASE, JACK_IN_PRIKUP):
        t = Table(episode="game").reset(seed=3, dealer=dealer, deal=d)
        first = holder(d, J_SPADES) if holder(d, J_SPADES) is not None else holder(d, SEVEN_SPADES)
        for _ in range(4):
            assert t.turn == P(first), "first bidder of this deal"
            surrender_deal(t)
            assert not t.done()
            first = left(first)  # that first bidder deals; its left bids


def test_redeal_keeps_the_dealer_in_game_mode():
    """§2.7/§3 all-pass: an all-pass with J♠ and 7♠ in the prikup redeals with the same
    dealer (the rotation does not move) and is not a completed deal (§8: totals unchanged)."""
    t = Table(episode="game", reward="score").reset(
        seed=5, dealer=0, deal=BOTH_IN_PRIKUP, first_deal=False, totals=[5, 6, 7]
    )
    t.script([(1, PASS), (2, PASS), (0, PASS)])
    assert not t.done()
    assert t.turn == P(1), "same dealer (player_0) again, so player_1 bids first"
    assert all(t.reward_sum[a] == 0 for a in AGENTS)
    surrender_deal(t, declarer=1)
    assert [t.infos[P(s)]["total"] for s in range(3)] == [7, -4, 9]
    assert t.turn == P(2), "player_1 was the first bidder, so it deals next"


@pytest.mark.parametrize("seed", range(8))
def test_random_first_game_deal_follows_jack_rule(seed):
    """§2.5 with the env's own shuffle: on a game's first deal the first bidder is the J♠
    holder (or 7♠'s when J♠ is in the prikup).  All pass -> the same player declares (§3),
    and its 12 cards contain J♠."""
    t = Table(episode="game").reset(seed=seed)
    first = seat_of(t.turn)
    t.script([(first, PASS), (left(first), PASS), (right(first), PASS)])
    assert t.turn == P(first)
    assert J_SPADES in t.legal() and len(t.legal()) == 12


# ==================================================================== §3 the auction


def test_auction_only_next_step_of_the_ladder():
    """§3: a turn is pass or exactly the next bid; the first bid is spades; no jumps.  The
    mask is exactly {pass, next bid}, and zero for everyone else."""
    t = new_deal(dealer=2)
    ladder = [BID_SPADES, BID_CLUBS, BID_DIAMONDS, BID_HEARTS, BID_BEST]
    seat = 0
    for i, bid in enumerate(ladder):
        assert t.turn == P(seat)
        assert t.legal() == {PASS, bid}, f"step {i}"
        t.assert_only_turn_has_mask()
        t.act(bid)
        seat = left(seat)


def test_auction_order_skips_passers():
    """§3: turns go clockwise from the first bidder, skipping players who have passed."""
    t = new_deal(dealer=2)  # first bidder player_0
    t.act(PASS, 0)
    assert t.turn == P(1) and t.legal() == {PASS, BID_SPADES}
    t.act(BID_SPADES, 1)
    assert t.turn == P(2) and t.legal() == {PASS, BID_CLUBS}
    t.act(BID_CLUBS, 2)
    assert t.turn == P(1), "player_0 passed and is skipped"
    assert t.legal() == {PASS, BID_DIAMONDS}
    t.act(BID_DIAMONDS, 1)
    assert t.turn == P(2)
    t.act(PASS, 2)
    # player_1 holds diamonds, both others passed: declarer
    assert t.turn == P(1)
    hands, pk = deal_cards(BASE)
    assert t.legal() == hands[1] | set(pk)


def test_passed_player_never_bids_again():
    """§3: a pass is out of the auction for good."""
    t = new_deal(dealer=2)
    t.script([(0, BID_SPADES), (1, PASS), (2, BID_CLUBS), (0, BID_DIAMONDS), (2, BID_HEARTS)])
    assert t.turn == P(0) and t.legal() == {PASS, BID_BEST}
    t.act(PASS, 0)
    assert t.turn == P(2)  # declarer at hearts: discard phase
    assert all(c < 32 for c in t.legal()) and len(t.legal()) == 12


def test_best_spades_ends_the_auction_at_once():
    """§3: the auction ends at once when someone bids best spades (nobody else speaks)."""
    t = new_deal(dealer=1)  # first bidder player_2
    t.script([(2, BID_SPADES), (0, BID_CLUBS), (1, BID_DIAMONDS), (2, BID_HEARTS), (0, BID_BEST)])
    hands, pk = deal_cards(BASE)
    assert t.turn == P(0)
    assert t.legal() == hands[0] | set(pk), "player_0 declares and takes the prikup"
    t.assert_only_turn_has_mask()


def test_two_passes_end_the_auction():
    """§3: when the two others have passed, the holder of the highest bid declares."""
    hands, pk = deal_cards(BASE)
    t = new_deal(dealer=2)
    t.script([(0, BID_SPADES), (1, PASS), (2, PASS)])
    assert t.turn == P(0) and t.legal() == hands[0] | set(pk)
    t = new_deal(dealer=2)
    t.script([(0, BID_SPADES), (1, BID_CLUBS), (2, PASS), (0, PASS)])
    assert t.turn == P(1) and t.legal() == hands[1] | set(pk)
    lowest_discards(t)
    assert t.legal() == {C_CLUBS, C_DIAMONDS, C_HEARTS, SURRENDER}


def test_lone_player_who_has_not_bid_still_gets_a_turn_and_may_bid():
    """§3 [decided]: the only player left who has not bid still gets a turn: it may bid
    spades (and is then declarer at spades)..."""
    t = new_deal(dealer=0)  # first bidder player_1
    t.script([(1, PASS), (2, PASS)])
    assert t.turn == P(0) and t.legal() == {PASS, BID_SPADES}
    t.act(BID_SPADES, 0)
    hands, pk = deal_cards(BASE)
    assert t.turn == P(0) and t.legal() == hands[0] | set(pk)
    lowest_discards(t)
    assert t.legal() == ALL_SUITS_AND_SURRENDER
    t.act(SURRENDER)
    assert t.infos[P(0)]["bid"] == "spades"


def test_lone_player_who_has_not_bid_may_pass_to_all_pass():
    """§3 [decided] ...or pass, which makes it an all-pass: J♠'s holder must declare."""
    t = new_deal(dealer=0, d=BASE)  # J♠ with player_2
    t.script([(1, PASS), (2, PASS), (0, PASS)])
    hands, pk = deal_cards(BASE)
    assert t.turn == P(2) and t.legal() == hands[2] | set(pk)


@pytest.mark.parametrize("k", [0, 1, 2])
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_all_pass_jack_holder_declares(k, dealer):
    """§3 all-pass: the holder of J♠ must declare (in every deal); then §4.2: any of the
    four suits (or surrender); infos' bid is None."""
    d = rotate(BASE, k)
    jack = holder(d, J_SPADES)
    t = new_deal(dealer=dealer, d=d)
    f = left(dealer)
    t.script([(f, PASS), (left(f), PASS), (right(f), PASS)])
    hands, pk = deal_cards(d)
    assert t.turn == P(jack) and t.legal() == hands[jack] | set(pk)
    lowest_discards(t)
    assert t.legal() == ALL_SUITS_AND_SURRENDER
    t.act(SURRENDER)
    assert t.done()
    for s in range(3):
        assert t.infos[P(s)]["bid"] is None


@pytest.mark.parametrize("k", [0, 1, 2])
def test_all_pass_seven_holder_declares_when_jack_in_prikup(k):
    """§3 all-pass: if J♠ is in the prikup, the holder of 7♠ declares (and gets J♠)."""
    d = rotate(JACK_IN_PRIKUP, k)
    seven = holder(d, SEVEN_SPADES)
    t = new_deal(dealer=1, d=d)
    t.script([(2, PASS), (0, PASS), (1, PASS)])
    hands, pk = deal_cards(d)
    assert t.turn == P(seven)
    assert t.legal() == hands[seven] | set(pk) and J_SPADES in t.legal()


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_all_pass_with_jack_and_seven_in_prikup_is_a_redeal_in_deal_mode(dealer):
    """§3 all-pass [decided]: both in the prikup -> redeal; in `deal` mode the episode ends
    with outcome `redeal`, every reward 0, role `none`, contract and bid None."""
    t = new_deal(dealer=dealer, d=BOTH_IN_PRIKUP, reward_scale=0.5)
    f = left(dealer)
    t.script([(f, PASS), (left(f), PASS), (right(f), PASS)])
    assert t.done()
    assert_end_infos(
        t, outcome="redeal", roles=["none"] * 3, contract=None, bid=None, scores=[0, 0, 0]
    )
    assert_rewards(t, [0, 0, 0])


def test_jack_and_seven_in_prikup_is_played_normally_if_someone_bids():
    """§3/api.md Decided details: such a deal redeals only if all pass."""
    t = new_deal(dealer=2, d=BOTH_IN_PRIKUP)
    t.script([(0, PASS), (1, BID_SPADES), (2, PASS)])
    assert t.turn == P(1) and J_SPADES in t.legal() and SEVEN_SPADES in t.legal()


@settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(seed=st.integers(0, 2**31 - 1), p_pass=st.sampled_from([0.15, 0.4, 0.7]))
def test_random_auctions_match_the_ladder(seed, p_pass):
    """§3 over random auctions: who acts, the exact mask, and who declares (or all-pass)."""
    rng = random.Random(seed)
    d = random_deal(rng)
    dealer = rng.randrange(3)
    t = Table(episode="deal").reset(seed=seed, dealer=dealer, deal=d)
    ref = RefAuction(left(dealer))
    while not ref.done:
        assert t.turn == P(ref.turn)
        assert t.legal() == ref.legal()
        t.assert_only_turn_has_mask()
        a = PASS if rng.random() < p_pass else max(ref.legal())
        t.act(a)
        ref.act(a)
    hands, pk = deal_cards(d)
    declarer = all_pass_declarer(hands) if ref.all_pass else ref.declarer
    if declarer is None:
        assert t.done() and t.infos[P(0)]["outcome"] == "redeal"
        return
    assert not t.done()
    assert t.turn == P(declarer) and t.legal() == hands[declarer] | set(pk)


# ============================================================ §4 prikup, discard, contract


def test_declarer_takes_prikup_and_discards_two_one_at_a_time():
    """§4.1: the declarer takes the prikup (12 cards), discards 2 one at a time (any cards,
    prikup included); discards take no further part."""
    t = new_deal(dealer=2, d=PLAY_DEAL)
    t.script([(0, BID_SPADES), (1, PASS), (2, PASS)])
    twelve = set(cards("9S AS 9H 10H JH QH KH AH AC AD JS KS"))
    assert t.turn == P(0) and t.legal() == twelve
    t.assert_only_turn_has_mask()
    t.act(cid("JS"), 0)  # a prikup card
    assert t.turn == P(0) and t.legal() == twelve - {cid("JS")}
    t.act(cid("AD"), 0)  # a hand card
    assert t.turn == P(0) and t.legal() == ALL_SUITS_AND_SURRENDER
    t.act(C_SPADES, 0)
    t.act(WHIST, 1)
    t.act(WHIST, 2)
    assert t.turn == P(0)
    assert t.legal() == twelve - {cid("JS"), cid("AD")}, "lead from the 10 kept cards"


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_contract_options_after_won_auction(level):
    """§4.2: after a won auction at level L: spades..hearts at level >= L, or surrender;
    best spades is not offered when it was not bid."""
    for dealer in range(3):
        first = left(dealer)
        for declarer in range(3):
            try:
                auction = auction_to(first, declarer, level)
            except AssertionError:
                continue
            t = new_deal(dealer=dealer)
            t.script(auction)
            assert t.turn == P(declarer)
            lowest_discards(t)
            want = {C_SPADES + lvl for lvl in range(level, 4)} | {SURRENDER}
            assert t.legal() == want
            t.assert_only_turn_has_mask()


def test_contract_after_best_spades_is_only_best_spades_or_surrender():
    """§4.2: best spades only if it was bid, and then it is the only contract (the declarer
    may still surrender instead of naming it)."""
    t = new_deal(dealer=0)
    t.script(auction_to(1, 2, 4))
    lowest_discards(t)
    assert t.legal() == {C_BEST, SURRENDER}


def test_contract_after_all_pass_is_any_suit():
    """§4.2: after all-pass any of spades, clubs, diamonds, hearts (no best spades)."""
    t = new_deal(dealer=0)
    t.script([(1, PASS), (2, PASS), (0, PASS)])
    lowest_discards(t)
    assert t.legal() == ALL_SUITS_AND_SURRENDER


# ================================================================== §5 defence


def _to_defence(dealer=2, d=PLAY_DEAL, contract=C_HEARTS, **kw):
    t = new_deal(dealer=dealer, d=d, **kw)
    first = left(dealer)
    t.script([(first, BID_SPADES), (left(first), PASS), (right(first), PASS)])
    lowest_discards(t)
    t.act(contract, first)
    return t, first


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_defence_order_left_then_right(dealer):
    """§5: after the contract, the declarer's left says whist or pass, then its right."""
    t, declarer = _to_defence(dealer=dealer)
    assert t.turn == P(left(declarer)) and t.legal() == {PASS, WHIST}
    t.assert_only_turn_has_mask()
    t.act(WHIST)
    assert t.turn == P(right(declarer)) and t.legal() == {PASS, WHIST}
    t.assert_only_turn_has_mask()
    t.act(PASS)
    assert t.turn == P(declarer), "§6: the declarer leads the first trick"


AUTO_WIN = [
    (C_SPADES, BID_SPADES, 10),
    (C_CLUBS, BID_CLUBS, 20),
    (C_DIAMONDS, BID_DIAMONDS, 30),
    (C_HEARTS, BID_HEARTS, 40),
    (C_BEST, BID_BEST, 10),
]


@pytest.mark.parametrize(("contract", "bid", "award"), AUTO_WIN)
def test_both_pass_is_an_automatic_win(contract, bid, award):
    """§5/§7: both defenders pass -> the declarer wins without play: +10 x f (best spades
    +10), defenders 0; roles declarer/passer/passer (api.md Decided details).
    Worked examples: hearts named, both pass: +40, 0, 0; best spades, both pass: +10, 0, 0."""
    level = bid - BID_SPADES
    t = new_deal(dealer=0)
    t.script(auction_to(1, 2, level))
    lowest_discards(t)
    t.act(contract, 2)
    t.act(PASS, 0)
    assert not t.done()
    t.act(PASS, 1)
    assert t.done()
    scores = [0, 0, award]
    assert_end_infos(
        t,
        outcome="auto_win",
        roles=["passer", "passer", "declarer"],
        contract=contract_name(contract),
        bid=LEVEL_NAMES[level],
        scores=scores,
    )
    assert_rewards(t, scores)


def test_auto_win_with_contract_above_the_bid():
    """§5/§7: the automatic award uses the named contract's factor (bid spades, named
    diamonds -> +30)."""
    t, declarer = _to_defence(dealer=1, contract=C_DIAMONDS)
    t.act(PASS)
    t.act(PASS)
    scores = {declarer: 30, left(declarer): 0, right(declarer): 0}
    assert_end_infos(
        t,
        outcome="auto_win",
        roles={declarer: "declarer", left(declarer): "passer", right(declarer): "passer"},
        contract="diamonds",
        bid="spades",
        scores=scores,
    )


# ========================================================================= §6 play


def test_play_rules_handcrafted():
    """§6 on a hand-built deal: the declarer leads; follow suit (every card of the suit,
    higher or lower: no compulsory overtaking); else trump (any trump); else anything; the
    highest trump wins, else the highest of the led suit (an off-suit card never wins); the
    winner leads; discards are gone.  Bid spades, named hearts (§4.2, trump = named suit)."""
    t = new_deal(dealer=2, d=PLAY_DEAL)
    t.script([(0, BID_SPADES), (1, PASS), (2, PASS)])
    t.act(cid("JS"), 0)
    t.act(cid("AD"), 0)
    t.act(C_HEARTS, 0)
    t.act(WHIST, 1)
    t.act(WHIST, 2)

    def step(seat, legal, card):
        assert t.turn == P(seat), f"{P(seat)} should play {card}, env selects {t.turn}"
        got = t.legal()
        assert got == set(cards(legal)), (
            f"{P(seat)} before {card}: mask {sorted(map(cstr, got & set(range(32))))}, rules {legal}"
        )
        t.assert_only_turn_has_mask()
        t.act(cid(card))

    # T1: low trump beats the led ace; P1 may play under (no compulsory overtaking).
    step(0, "9S KS AS 9H 10H JH QH KH AH AC", "9S")
    step(1, "7S 8S 10S QS", "7S")
    step(2, "7H 8H", "7H")
    # T2: P2 won, leads.  P0 must follow with its only club.
    step(2, "8H 10C JC QC KC 10D JD QD KD", "10C")
    step(0, "AC", "AC")
    step(1, "7C 8C 9C", "9C")
    # T3: P0 (AC) leads.
    step(0, "KS AS 9H 10H JH QH KH AH", "KS")
    step(1, "8S 10S QS", "QS")
    step(2, "8H", "8H")
    # T4: P2 leads a diamond; P0 is void (AD discarded) and must trump.
    step(2, "JC QC KC 10D JD QD KD", "10D")
    step(0, "9H 10H JH QH KH AH", "9H")
    step(1, "7D 8D 9D", "9D")
    # T5: P2 void in spades and trumps: free discard; its K♦ does not win.
    step(0, "AS 10H JH QH KH AH", "AS")
    step(1, "8S 10S", "8S")
    step(2, "JC QC KC JD QD KD", "KD")
    # T6: trump led; both void in trumps: anything.
    step(0, "10H JH QH KH AH", "10H")
    step(1, "10S 7C 8C 7D 8D", "7C")
    step(2, "JC QC KC JD QD", "QC")
    # T7-T10: P0 leads its remaining trumps.
    hands = {
        0: set(cards("JH QH KH AH")),
        1: set(cards("10S 8C 7D 8D")),
        2: set(cards("JC KC JD QD")),
    }
    ref = t.play_tricks(hands, TRUMP["hearts"], 0, strict=True, tricks_done=6)
    assert ref.tricks == {0: 4, 1: 0, 2: 0}
    assert t.done()
    scores = [40, -40, 0]
    assert_end_infos(
        t,
        outcome="played",
        roles=["declarer", "defender", "defender"],
        contract="hearts",
        bid="spades",
        scores=scores,
        tricks={0: 8, 1: 0, 2: 2},
    )
    assert_rewards(t, scores)


def test_sole_defence_skips_the_passer_and_plays_ten_tricks():
    """§5/§6 [decided]: with one whist, play alternates between declarer and sole defender;
    the passer is never selected (mask all zeros), stays in env.agents, and 10 tricks
    (20 cards) are played; the deal ends on the 20th card, not before."""
    d = SCORE_CASES[3].values[0]  # the diamonds sole-defence worked example
    t = new_deal(dealer=1, d=d)
    t.script(auction_to(2, 0, 2))
    for c in cards(d["prikup"]):
        t.act(c, 0)
    t.act(C_DIAMONDS, 0)
    t.act(PASS, 1)
    t.act(WHIST, 2)
    n0 = t.n_steps
    hands = hands_after_discard(d, 0, cards(d["prikup"]))
    seen_turns = []
    ref = _play_lowest(t, {0: hands[0], 2: hands[2]}, "diamonds", 0, passer=1, turns=seen_turns)
    assert t.n_steps - n0 == 20
    assert P(1) not in seen_turns
    assert sum(ref.tricks.values()) == 10
    assert t.infos[P(1)]["role"] == "passer"


def _play_lowest(t, hands, contract, declarer, passer=None, turns=None):
    """Play the 10 tricks by lowest legal card, recording who acted and checking that the
    passer keeps its seat in env.agents."""
    from .spec_helpers import RefPlay

    ref = RefPlay(hands, TRUMP[contract], declarer)
    while not ref.done:
        seat = ref.to_act()
        assert t.turn == P(seat)
        if turns is not None:
            turns.append(t.turn)
        if passer is not None:
            assert P(passer) in t.env.agents
            assert not t.mask(passer).any()
        assert not t.done()
        card = min(ref.legal())
        t.act(card)
        ref.play(card)
    assert t.done()
    return ref


def test_three_active_players_play_ten_tricks():
    """§6: exactly 10 tricks (30 cards) with three active players; not over before."""
    t, declarer = _to_defence(dealer=2)
    t.act(WHIST)
    t.act(WHIST)
    n0 = t.n_steps
    # _to_defence discarded the two lowest ids of the 12: 9S (id 2) and JS (id 4)
    hands = hands_after_discard(PLAY_DEAL, declarer, [cid("9S"), cid("JS")])
    ref = _play_lowest(t, {s: hands[s] for s in range(3)}, "hearts", declarer)
    assert t.n_steps - n0 == 30
    assert sum(ref.tricks.values()) == 10


# ============================================================= §7 the score of one deal

# (name, dealer, declarer, bid level, contract, left's choice, right's choice, deal,
#  expected tricks, expected deal scores) -- the deals were chosen so that playing the
#  lowest legal card throughout gives the wanted split; declarers discard the prikup.
SCORE_CASES = [
    pytest.param(
        deal(
            "7S JS 7C 9C 7D 8D KD AD JH AH",
            "8S 9S 10S 8C KC 10D JD 7H 9H QH",
            "QS KS AS 10C JC QC QD 8H 10H KH",
            "AC 9D",
        ),
        0,
        2,
        4,
        C_BEST,
        WHIST,
        WHIST,
        {2: 6, 0: 3, 1: 1},
        {2: 10, 0: 40, 1: -36},
        id="example-best-spades-6-3-1",
    ),
    pytest.param(
        deal(
            "7S 9S 10S JS KS AS 10D JH QH KH",
            "8S 8C 10C 8D 9D JD KD AD 7H 9H",
            "7C 9C JC QC KC 7D QD 8H 10H AH",
            "QS AC",
        ),
        2,
        0,
        0,
        C_SPADES,
        WHIST,
        WHIST,
        {0: 6, 1: 3, 2: 1},
        {0: 10, 1: 10, 2: -9},
        id="example-spades-6-3-1",
    ),
    pytest.param(
        deal(
            "8S 10S KS 10C JC 10D QD AD 10H QH",
            "7S JS QS 7C AC 8D 9D JD 9H KH",
            "9S AS 8C 9C QC KC 7D KD 7H 8H",
            "JH AH",
        ),
        1,
        2,
        3,
        C_HEARTS,
        WHIST,
        WHIST,
        {2: 5, 0: 3, 1: 2},
        {2: -40, 0: 40, 1: 0},
        id="example-hearts-5-3-2",
    ),
    pytest.param(
        deal(
            "9S KS AS 8D 9D 10D QD 7H JH AH",
            "7S 10S JS 8C 9C 10C JC QC KD QH",
            "8S QS 7C KC AC JD AD 8H 9H KH",
            "7D 10H",
        ),
        1,
        0,
        2,
        C_DIAMONDS,
        PASS,
        WHIST,
        {0: 7, 2: 3},
        {0: 30, 2: -21, 1: 0},
        id="example-diamonds-sole-3",
    ),
    pytest.param(
        deal(
            "KS AS 7C 8C 10C KC JD 10H JH QH",
            "7S 8S 9S QS 7D 8D 9D 10D QD 8H",
            "JS 9C JC QC KD AD 7H 9H KH AH",
            "10S AC",
        ),
        2,
        1,
        1,
        C_CLUBS,
        WHIST,
        PASS,
        {1: 4, 2: 6},
        {1: -20, 2: 40, 0: 0},
        id="example-clubs-sole-6",
    ),
    pytest.param(
        deal(
            "8S 9S KS 9D 10D QD 8H 9H JH QH",
            "AS 9C 10C JC QC KC AC KD AD AH",
            "7S 10S JS QS 7C 8C JD 7H 10H KH",
            "7D 8D",
        ),
        0,
        1,
        0,
        C_CLUBS,
        WHIST,
        WHIST,
        {1: 10, 2: 0, 0: 0},
        {1: 20, 2: -20, 0: -20},
        id="clubs-defenders-0-0",
    ),
    pytest.param(
        deal(
            "9S KS 8C 10C KC AC KD 7H 9H 10H",
            "7S QS 9C JC 7D 8D 9D JD AD KH",
            "8S JS AS 7C 10D QD 8H JH QH AH",
            "10S QC",
        ),
        1,
        0,
        4,
        C_BEST,
        WHIST,
        WHIST,
        {0: 5, 1: 4, 2: 1},
        {0: -40, 1: 80, 2: -36},
        id="best-spades-declarer-fails-5-4-1",
    ),
    pytest.param(
        deal(
            "7S 8S 9S 8C 9C AC QD 9H 10H AH",
            "JS QS JC QC KC 7D 8D 10D KD AD",
            "10S KS AS 7C 10C 9D 7H JH QH KH",
            "JD 8H",
        ),
        2,
        1,
        2,
        C_DIAMONDS,
        WHIST,
        WHIST,
        {1: 7, 2: 2, 0: 1},
        {1: 30, 2: 0, 0: -27},
        id="diamonds-7-2-1",
    ),
    pytest.param(
        deal(
            "10S QS KS AS 10C 7D JD KD 8H QH",
            "7S JS 9C JC AC 9D QD 9H KH AH",
            "7C 8C QC KC 8D 10D AD 7H 10H JH",
            "8S 9S",
        ),
        0,
        2,
        0,
        C_SPADES,
        WHIST,
        WHIST,
        {2: 2, 0: 5, 1: 3},
        {2: -10, 0: 30, 1: 10},
        id="spades-declarer-fails-2-5-3",
    ),
    pytest.param(
        deal(
            "AC KD 7H 8H 9H 10H JH QH KH AH",
            "8S 9S 10S AS 7C 9C 8D 10D JD QD",
            "7S JS QS 10C JC QC KC 7D 9D AD",
            "KS 8C",
        ),
        2,
        0,
        0,
        C_HEARTS,
        WHIST,
        PASS,
        {0: 10, 1: 0},
        {0: 40, 1: -40, 2: 0},
        id="sole-0-hearts",
    ),
    pytest.param(
        deal(
            "9S 9C 10C JC 8D 9D 10D 7H QH KH",
            "7S 8S 10S JS QS KS AS AC AD AH",
            "7C 8C QC 7D JD QD KD 8H 10H JH",
            "KC 9H",
        ),
        0,
        1,
        0,
        C_SPADES,
        PASS,
        WHIST,
        {1: 9, 0: 1},
        {1: 10, 0: -9, 2: 0},
        id="sole-1-spades",
    ),
    pytest.param(
        deal(
            "8S JS KS AS 9C 7D 8H 9H JH QH",
            "7S 10S JC 9D 10D JD AD 7H 10H AH",
            "9S 7C 8C 10C QC AC 8D QD KD KH",
            "QS KC",
        ),
        1,
        2,
        0,
        C_CLUBS,
        PASS,
        WHIST,
        {2: 8, 1: 2},
        {2: 20, 1: -16, 0: 0},
        id="sole-2-clubs",
    ),
    pytest.param(
        deal(
            "9S 10C JC QC KC AC 9D JD 10H QH",
            "QS KS 8C 9C 7D 8D 10D KD 7H 8H",
            "7S 8S 10S JS AS 7C QD AD JH KH",
            "9H AH",
        ),
        0,
        0,
        2,
        C_DIAMONDS,
        PASS,
        WHIST,
        {0: 6, 2: 4},
        {0: 30, 2: 0, 1: 0},
        id="sole-4-diamonds",
    ),
    pytest.param(
        deal(
            "KS 9C 10C 7D JD QD 10H JH KH AH",
            "8S 9S 8C JC KC 8D 10D 7H 8H QH",
            "7S JS QS 7C QC AC 9D KD AD 9H",
            "10S AS",
        ),
        2,
        1,
        3,
        C_HEARTS,
        WHIST,
        PASS,
        {1: 5, 2: 5},
        {1: -40, 2: 40, 0: 0},
        id="sole-5-hearts",
    ),
    pytest.param(
        deal(
            "9S 10S QS 7C 10C 9D JD AD JH KH",
            "JS AS 9C QC 7D 10D QD 7H QH AH",
            "7S KS 8C JC AC 8D KD 8H 9H 10H",
            "8S KC",
        ),
        1,
        2,
        2,
        C_DIAMONDS,
        WHIST,
        PASS,
        {2: 5, 0: 5},
        {2: -30, 0: 30, 1: 0},
        id="sole-5-diamonds",
    ),
    pytest.param(
        deal(
            "7S KS KC 9D JD QD 9H JH QH AH",
            "8S 9S 7C 9C 10C JC QC AD 8H 10H",
            "JS QS 8C AC 7D 8D 10D KD 7H KH",
            "10S AS",
        ),
        2,
        0,
        4,
        C_BEST,
        WHIST,
        PASS,
        {0: 4, 1: 6},
        {0: -40, 1: 80, 2: 0},
        id="sole-6-best-spades",
    ),
    pytest.param(
        deal(
            "7S JS 8C 10C AC JD KD AD QH KH",
            "9S 10S QS AS JC QC KC 8D 9H JH",
            "8S KS 7D 9D 10D QD 7H 8H 10H AH",
            "7C 9C",
        ),
        0,
        1,
        4,
        C_BEST,
        PASS,
        WHIST,
        {1: 6, 0: 4},
        {1: 10, 0: 0, 2: 0},
        id="sole-4-best-spades-declarer-6",
    ),
]


def play_score_case(
    d, dealer, declarer, level, contract, lchoice, rchoice, *, strict=False, t=None, **env_kwargs
):
    in_game = t is not None
    if t is None:
        t = new_deal(dealer=dealer, d=d, **env_kwargs)
    t.script(auction_to(left(dealer), declarer, level))
    assert t.turn == P(declarer)
    for c in cards(d["prikup"]):
        t.act(c, declarer)
    t.act(contract, declarer)
    t.act(lchoice, left(declarer))
    t.act(rchoice, right(declarer))
    whisters = [
        s for s, ch in ((left(declarer), lchoice), (right(declarer), rchoice)) if ch == WHIST
    ]
    passer = None if len(whisters) != 1 else 3 - declarer - whisters[0]
    hands = hands_after_discard(d, declarer, cards(d["prikup"]))
    ref = t.play_tricks(
        {s: hands[s] for s in [declarer, *whisters]},
        TRUMP[contract_name(contract)],
        declarer,
        strict=strict,
        passer=passer,
    )
    if not in_game:
        assert t.done(), "the deal must end after the 10th trick"
    return t, ref, whisters, passer


@pytest.mark.parametrize(
    ("d", "dealer", "declarer", "level", "contract", "lchoice", "rchoice", "tricks", "scores"),
    SCORE_CASES,
)
def test_score_table_and_worked_examples(
    d, dealer, declarer, level, contract, lchoice, rchoice, tricks, scores
):
    """§7: every row of the score table and every worked example, from complete deals (the
    trick split is the one the rules give when everybody plays its lowest legal card)."""
    t, ref, whisters, passer = play_score_case(
        d, dealer, declarer, level, contract, lchoice, rchoice
    )
    assert ref.tricks == tricks, "test deal does not give the wanted split (test bug)"
    roles = {declarer: "declarer"}
    for s in (left(declarer), right(declarer)):
        roles[s] = "defender" if s in whisters else "passer"
    assert_end_infos(
        t,
        outcome="played",
        roles=roles,
        contract=contract_name(contract),
        bid=LEVEL_NAMES[level],
        scores=scores,
        tricks=tricks,
    )
    assert_rewards(t, scores)
    # the literal numbers above are the table's (guards the test's own arithmetic)
    sole = len(whisters) == 1
    name = contract_name(contract)
    assert scores[declarer] == table_declarer(name, tricks[declarer])
    for s in whisters:
        assert scores[s] == table_defender(name, tricks[s], sole)


SURRENDER_AUCTIONS = [
    pytest.param(0, id="bid-spades"),
    pytest.param(1, id="bid-clubs"),
    pytest.param(3, id="bid-hearts"),
    pytest.param(4, id="bid-best-spades"),
    pytest.param(None, id="all-pass"),
]


@pytest.mark.parametrize(
    "level", [p.values[0] for p in SURRENDER_AUCTIONS], ids=[p.id for p in SURRENDER_AUCTIONS]
)
def test_surrender_scores(level):
    """§7: surrender (any contract level): declarer -10, each opponent +2, no factor;
    api.md: roles declarer/opponent/opponent, contract None, bid = the highest bid."""
    t = new_deal(dealer=0, d=BASE)  # J♠ with player_2
    if level is None:
        t.script([(1, PASS), (2, PASS), (0, PASS)])
        declarer = 2
    else:
        declarer = 2
        t.script(auction_to(1, declarer, level))
    lowest_discards(t)
    t.act(SURRENDER, declarer)
    assert t.done()
    scores = {declarer: -10, left(declarer): 2, right(declarer): 2}
    assert_end_infos(
        t,
        outcome="surrender",
        roles={declarer: "declarer", left(declarer): "opponent", right(declarer): "opponent"},
        contract=None,
        bid=None if level is None else LEVEL_NAMES[level],
        scores=scores,
    )
    assert_rewards(t, scores)


@settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(seed=st.integers(0, 2**31 - 1))
def test_random_deals_follow_every_rule(seed):
    """§3-§7 invariants over random deals and random legal choices: the auction masks, the
    declarer, the 12-card discard mask, the contract options, the defence order, every play
    mask (follow / trump / anything), who leads each trick, 10 tricks, the infos and the
    table score, and rewards summing to the score x reward_scale (with and without shaping)."""
    check_random_deal(seed)


def test_random_deals_reach_every_path():
    """The random-deal check above over fixed seeds, asserting that it really exercised
    every path: all-pass and won auctions, every contract, surrender, automatic win, and
    play with three and with two active players (§3-§7)."""
    seen = set()
    for seed in range(300):
        seen |= check_random_deal(seed)
    want = {"all_pass", "won_auction", "surrender", "auto_win", "played_3", "played_2"}
    want |= {f"contract_{n}" for n in LEVEL_NAMES}
    assert want <= seen, f"paths never reached: {sorted(want - seen)}"


def check_random_deal(seed: int) -> set[str]:
    """One random deal driven by random legal choices, every step checked against the
    reference rules; returns the names of the paths it went through."""
    path = set()
    rng = random.Random(seed)
    d = random_deal(rng)
    dealer = rng.randrange(3)
    scale = rng.choice([1.0, 0.5])
    shaping = rng.random() < 0.5
    t = Table(episode="deal", reward_scale=scale, shaping=shaping).reset(
        seed=seed, dealer=dealer, deal=d
    )
    auc = RefAuction(left(dealer))
    p_pass = rng.choice([0.3, 0.6, 0.9])
    while not auc.done:
        assert t.turn == P(auc.turn) and t.legal() == auc.legal()
        a = PASS if rng.random() < p_pass else max(auc.legal())
        t.act(a)
        auc.act(a)
    hands, pk = deal_cards(d)
    declarer = all_pass_declarer(hands) if auc.all_pass else auc.declarer
    bid = None if auc.all_pass else LEVEL_NAMES[auc.high]
    path.add("all_pass" if auc.all_pass else "won_auction")
    if declarer is None:
        assert t.done()
        assert_end_infos(
            t, outcome="redeal", roles=["none"] * 3, contract=None, bid=None, scores=[0, 0, 0]
        )
        assert_rewards(t, [0, 0, 0], scale)
        return path | {"redeal"}
    twelve = hands[declarer] | set(pk)
    assert t.turn == P(declarer) and t.legal() == twelve
    discards = rng.sample(sorted(twelve), 2)
    t.act(discards[0])
    assert t.turn == P(declarer) and t.legal() == twelve - {discards[0]}
    t.act(discards[1])
    opts = contract_options(None if auc.all_pass else auc.high)
    assert t.legal() == opts
    t.assert_only_turn_has_mask()
    contract = rng.choice(sorted(opts))
    t.act(contract)
    lf, rt = left(declarer), right(declarer)
    if contract == SURRENDER:
        scores = {declarer: -10, lf: 2, rt: 2}
        assert_end_infos(
            t,
            outcome="surrender",
            roles={declarer: "declarer", lf: "opponent", rt: "opponent"},
            contract=None,
            bid=bid,
            scores=scores,
        )
        assert_rewards(t, scores, scale)
        return path | {"surrender"}
    name = contract_name(contract)
    path.add(f"contract_{name}")
    choices = {}
    for s in (lf, rt):
        assert t.turn == P(s) and t.legal() == {PASS, WHIST}
        choices[s] = rng.choice([PASS, WHIST, WHIST])
        t.act(choices[s])
    whisters = [s for s in (lf, rt) if choices[s] == WHIST]
    roles = {
        declarer: "declarer",
        lf: "defender" if lf in whisters else "passer",
        rt: "defender" if rt in whisters else "passer",
    }
    if not whisters:
        assert t.done()
        scores = {declarer: table_declarer(name, 6), lf: 0, rt: 0}
        assert_end_infos(t, outcome="auto_win", roles=roles, contract=name, bid=bid, scores=scores)
        assert_rewards(t, scores, scale)
        return path | {"auto_win"}
    hh = hands_after_discard(d, declarer, discards)
    passer = None if len(whisters) == 2 else ({lf, rt} - set(whisters)).pop()
    ref = t.play_tricks(
        {s: hh[s] for s in [declarer, *whisters]},
        TRUMP[name],
        declarer,
        strict=True,
        rng=rng,
        passer=passer,
    )
    assert t.done()
    scores = {declarer: table_declarer(name, ref.tricks[declarer])}
    for s in whisters:
        scores[s] = table_defender(name, ref.tricks[s], len(whisters) == 1)
    if passer is not None:
        scores[passer] = 0
    assert_end_infos(
        t, outcome="played", roles=roles, contract=name, bid=bid, scores=scores, tricks=ref.tricks
    )
    assert_rewards(t, scores, scale)
    for a in AGENTS:  # api.md: observe works at any time; nobody is to act any more
        assert not t.mask(a).any()
    return path | {f"played_{len(whisters) + 1}"}


# ============================================================ rewards (api.md episodes)


@pytest.mark.parametrize("scale", [1.0, 0.5])
@pytest.mark.parametrize("shaping", [False, True])
@pytest.mark.parametrize("case", [0, 3, 4, 6])
def test_rewards_sum_to_score_times_scale(scale, shaping, case):
    """api.md: in `deal` mode each agent's rewards sum to its table score x reward_scale,
    with or without shaping; deal_score in infos stays unscaled."""
    d, dealer, declarer, level, contract, lch, rch, tricks, scores = SCORE_CASES[case].values
    t, *_ = play_score_case(
        d, dealer, declarer, level, contract, lch, rch, reward_scale=scale, shaping=shaping
    )
    assert_rewards(t, scores, scale)
    for s in range(3):
        assert t.infos[P(s)]["deal_score"] == scores[s]


@pytest.mark.parametrize("shaping", [False, True])
def test_rewards_of_auto_win_and_surrender_with_scale(shaping):
    """api.md: the sum rule holds for deals without play too (reward_scale=0.5)."""
    t, declarer = _to_defence(dealer=2, contract=C_HEARTS, reward_scale=0.5, shaping=shaping)
    t.act(PASS)
    t.act(PASS)
    assert_rewards(t, {declarer: 40, left(declarer): 0, right(declarer): 0}, 0.5)
    t = new_deal(dealer=2, reward_scale=0.5, shaping=shaping)
    surrender_deal(t)
    assert_rewards(t, {0: -10, 1: 2, 2: 2}, 0.5)


def test_shaping_pays_part_of_the_reward_during_play():
    """api.md: with shaping=True part of the reward arrives during play, as tricks are
    taken (and the sum is unchanged)."""
    any_early = False
    for case in (0, 1, 2, 5):
        d, dealer, declarer, level, contract, lch, rch, tricks, scores = SCORE_CASES[case].values
        t, *_ = play_score_case(d, dealer, declarer, level, contract, lch, rch, shaping=True)
        assert_rewards(t, scores)
        any_early |= t.nonzero_before_end
    assert any_early, "no reward arrived before the end of any deal with shaping=True"


# ======================================================================= §8 the game


def game(totals, *, dealer=2, reward="score", first_deal=False, d=BASE, seed=0, **kw) -> Table:
    return Table(episode="game", reward=reward, **kw).reset(
        seed=seed, dealer=dealer, deal=d, totals=list(totals), first_deal=first_deal
    )


def totals_of(t: Table) -> list[int]:
    return [t.infos[P(s)]["total"] for s in range(3)]


def test_game_totals_accumulate_and_infos_persist():
    """§8: after each completed deal each player's deal score is added to its total; with
    reward="score" each deal rewards the change of the total; api.md: the infos stay until
    the next deal completes."""
    t = game([5, -7, 30])  # dealer 2 -> player_0 first
    surrender_deal(t, declarer=0)
    assert not t.done()
    assert totals_of(t) == [-5, -5, 32]
    assert [t.infos[P(s)]["deal_score"] for s in range(3)] == [-10, 2, 2]
    assert t.infos[P(0)]["outcome"] == "surrender"
    assert [t.reward_sum[P(s)] for s in range(3)] == [-10, 2, 2]
    # next deal: player_0 deals, player_1 bids first
    assert t.turn == P(1)
    t.act(BID_SPADES, 1)
    assert totals_of(t) == [-5, -5, 32], "infos persist during the next deal"
    t.act(PASS, 2)
    t.act(PASS, 0)
    lowest_discards(t)
    t.act(SURRENDER, 1)
    assert totals_of(t) == [-3, -15, 34]
    assert [t.reward_sum[P(s)] for s in range(3)] == [-8, -8, 4]
    assert t.episode_rewards() == {P(0): -8, P(1): -8, P(2): 4}


def test_game_exactly_minus_121_resets_to_zero():
    """§8: a total of exactly -121 becomes 0 (reward="score" pays the change, reset
    included) -- also when reached from below (-123 + 2)."""
    t = game([-111, -123, 0])
    surrender_deal(t, declarer=0)
    assert totals_of(t) == [0, 0, 2]
    assert [t.reward_sum[P(s)] for s in range(3)] == [111, 123, 2]
    assert not t.done()


def test_game_below_minus_121_does_not_reset():
    """§8: going below -121 does not reset."""
    t = game([-115, -130, 0])
    surrender_deal(t, declarer=0)
    assert totals_of(t) == [-125, -128, 2]
    assert [t.reward_sum[P(s)] for s in range(3)] == [-10, 2, 2]


def test_game_continues_below_121():
    """§8: the game ends only when a total is >= 121 (120 is not enough)."""
    t = game([0, 118, 0], reward="win")
    surrender_deal(t, declarer=0)
    assert totals_of(t) == [-10, 120, 2]
    assert not t.done() and not any(t.env.truncations.values())
    assert t.turn == P(1)
    assert all(t.reward_sum[a] == 0 for a in AGENTS), "reward='win' pays only at the end"


def test_game_ends_at_121_shared_victory():
    """§8: the game ends when any total is >= 121; players tied on the highest total share
    the victory; reward="win": +1 to each winner, -1 to the others."""
    t = game([0, 119, 119], reward="win")
    surrender_deal(t, declarer=0)
    assert t.done()
    assert totals_of(t) == [-10, 121, 121]
    assert t.episode_rewards() == {P(0): -1, P(1): 1, P(2): 1}
    assert [t.reward_sum[P(s)] for s in range(3)] == [-1, 1, 1]


def test_game_highest_total_wins():
    """§8: the winner is the player with the highest total (not merely >= 121)."""
    t = game([0, 119, 120], reward="win")
    surrender_deal(t, declarer=0)
    assert t.done()
    assert totals_of(t) == [-10, 121, 122]
    assert t.episode_rewards() == {P(0): -1, P(1): -1, P(2): 1}


def test_game_declarer_reaches_121_by_automatic_win():
    """§8: an automatic win is a completed deal; exactly 121 ends the game."""
    t = game([111, 0, 0], reward="win")  # player_0 first
    t.script([(0, BID_SPADES), (1, PASS), (2, PASS)])
    lowest_discards(t)
    t.script([(0, C_SPADES), (1, PASS), (2, PASS)])
    assert t.done()
    assert totals_of(t) == [121, 0, 0]
    assert t.episode_rewards() == {P(0): 1, P(1): -1, P(2): -1}


def test_game_reset_applied_before_the_121_check():
    """§8 [decided]: the -121 reset is applied before the end-of-game check: the final
    totals show 0, and reward="score" pays the change including the reset."""
    t = game([-111, 119, 0])
    surrender_deal(t, declarer=0)
    assert t.done()
    assert totals_of(t) == [0, 121, 2]
    assert [t.reward_sum[P(s)] for s in range(3)] == [111, 2, 2]


def test_game_score_reward_scale():
    """api.md: reward_scale applies per deal in game mode; totals stay in table points."""
    t = game([0, 0, 0], reward_scale=0.5)
    surrender_deal(t, declarer=0)
    assert totals_of(t) == [-10, 2, 2]
    assert [t.reward_sum[P(s)] for s in range(3)] == [-5, 1, 1]


def test_game_played_deal_adds_table_scores_with_shaping_and_scale():
    """§8 + api.md: a played deal adds each table score to the total; in game mode
    reward_scale and shaping apply per deal as in deal mode (rewards sum to the change of
    the total x reward_scale)."""
    d, dealer, declarer, level, contract, lch, rch, tricks, scores = SCORE_CASES[0].values
    t = game([1, 2, 3], dealer=dealer, d=d, reward_scale=0.5, shaping=True)
    play_score_case(d, dealer, declarer, level, contract, lch, rch, t=t)
    assert not t.done()
    assert totals_of(t) == [1 + scores[0], 2 + scores[1], 3 + scores[2]]
    for s in range(3):
        assert t.infos[P(s)]["deal_score"] == scores[s]
        assert t.reward_sum[P(s)] == pytest.approx(0.5 * scores[s])
        assert t.episode_rewards()[P(s)] == pytest.approx(0.5 * scores[s])
    assert t.turn == P(left(left(dealer))), "rotation: the first bidder deals next"


def test_game_max_deals_counts_completed_deals_and_truncates_without_win_reward():
    """api.md: max_deals counts completed deals, not redeals; on truncation no win reward."""
    t = game([0, 0, 0], reward="win", max_deals=1, d=BOTH_IN_PRIKUP, dealer=0)
    t.script([(1, PASS), (2, PASS), (0, PASS)])  # redeal: not a completed deal
    assert not any(t.env.truncations.values()) and not t.done()
    surrender_deal(t)
    assert all(t.env.truncations.values())
    assert all(t.reward_sum[a] == 0 for a in AGENTS)
    assert all(v == 0 for v in t.episode_rewards().values())


# ====================================================================== §9 who sees what


def _obs(env, agent):
    return np.array(env.observe(agent)["observation"], copy=True)


def _permute_hidden(d: dict, observer: int, rng: random.Random, among=None) -> dict:
    """Shuffle the cards of the seats in ``among`` (default: everyone but the observer)
    and the prikup among themselves, keeping the counts."""
    among = [s for s in range(3) if s != observer] if among is None else among
    pool = [c for s in among for c in d["hands"][s]] + list(d["prikup"])
    rng.shuffle(pool)
    out = copy.deepcopy(d)
    i = 0
    for s in among:
        out["hands"][s] = pool[i : i + 10]
        i += 10
    out["prikup"] = pool[i : i + 2]
    return out


@pytest.mark.parametrize("observer", [0, 1, 2])
def test_hidden_cards_do_not_reach_an_observer(observer):
    """§9: others' hands and the prikup are hidden: deals differing only there give the
    observer identical observations, through the auction."""
    rng = random.Random(observer)
    for _ in range(5):
        a = random_deal(rng)
        b = _permute_hidden(a, observer, rng)
        if any(is_six_spade(h) for h in deal_cards(b)[0]):
            continue
        ta, tb = new_deal(dealer=observer, d=a), new_deal(dealer=observer, d=b)
        assert np.array_equal(_obs(ta.env, P(observer)), _obs(tb.env, P(observer)))
        # first bidder = observer+1 bids spades; observer+2, observer pass
        for seat, act in [(observer + 1, BID_SPADES), (observer + 2, PASS), (observer, PASS)]:
            ta.act(act, seat % 3)
            tb.act(act, seat % 3)
            assert np.array_equal(_obs(ta.env, P(observer)), _obs(tb.env, P(observer)))


@pytest.mark.parametrize("observer", [0, 1, 2])
def test_prikup_and_discards_stay_hidden_from_the_opponents(observer):
    """§9: the prikup (and then the discards) is known to the declarer only: deals that
    differ only between the other opponent's hand and the prikup look the same to the
    observer through discards, contract, defence and the first lead; the declarer sees
    the prikup from the moment of taking it."""
    rng = random.Random(10 + observer)
    declarer, other = (observer + 1) % 3, (observer + 2) % 3
    checked = 0
    while checked < 4:
        a = random_deal(rng)
        b = _permute_hidden(a, observer, rng, among=[other])
        if any(is_six_spade(h) for h in deal_cards(b)[0]) or sorted(a["prikup"]) == sorted(
            b["prikup"]
        ):
            continue
        checked += 1
        ta, tb = new_deal(dealer=observer, d=a), new_deal(dealer=observer, d=b)
        own = sorted(cards(a["hands"][declarer]))
        # the declarer's left is `other`, its right the observer
        steps = [
            (declarer, BID_SPADES),
            (other, PASS),
            (observer, PASS),
            (declarer, own[0]),
            (declarer, own[1]),
            (declarer, C_HEARTS),
            (other, WHIST),
            (observer, WHIST),
            (declarer, own[2]),
        ]
        for i, (seat, act) in enumerate(steps):
            ta.act(act, seat)
            tb.act(act, seat)
            assert np.array_equal(_obs(ta.env, P(observer)), _obs(tb.env, P(observer))), i
            if i == 2:  # the declarer has just taken the prikup
                assert not np.array_equal(_obs(ta.env, P(declarer)), _obs(tb.env, P(declarer)))


def test_own_hand_is_seen_by_its_holder():
    """§9: own hand -- its holder: a different own hand gives a different observation."""
    a = BASE
    b = copy.deepcopy(BASE)
    b["hands"][0][0], b["hands"][1][0] = BASE["hands"][1][0], BASE["hands"][0][0]
    ta, tb = new_deal(dealer=2, d=a), new_deal(dealer=2, d=b)
    for s in (0, 1):
        assert not np.array_equal(_obs(ta.env, P(s)), _obs(tb.env, P(s)))
    assert np.array_equal(_obs(ta.env, P(2)), _obs(tb.env, P(2)))


def test_discards_are_seen_by_the_declarer_only():
    """§9: discards -- the declarer only: different discards from the same 12 cards leave
    the opponents' observations identical (through contract and defence)."""
    ta, tb = new_deal(dealer=2, d=PLAY_DEAL), new_deal(dealer=2, d=PLAY_DEAL)
    for t, disc in ((ta, ("9S", "AD")), (tb, ("JS", "KS"))):
        t.script([(0, BID_SPADES), (1, PASS), (2, PASS)])
        t.act(cid(disc[0]), 0)
        t.act(cid(disc[1]), 0)
    for s in (1, 2):
        assert np.array_equal(_obs(ta.env, P(s)), _obs(tb.env, P(s)))
    assert not np.array_equal(_obs(ta.env, P(0)), _obs(tb.env, P(0)))
    for seat, act in [(0, C_HEARTS), (1, WHIST), (2, PASS)]:
        ta.act(act, seat)
        tb.act(act, seat)
        for s in (1, 2):
            assert np.array_equal(_obs(ta.env, P(s)), _obs(tb.env, P(s)))


def test_passers_unused_hand_stays_hidden():
    """§5/§9 [decided]: the passer's unused hand is seen by nobody else: swapping cards
    between the passer's hand and the (discarded) prikup leaves the sole defender's
    observations identical through the whole play."""
    d0 = SCORE_CASES[3].values[0]  # declarer 0, passer 1, sole defender 2, dealer 1
    rng = random.Random(7)
    for _ in range(3):
        d1 = _permute_hidden(d0, 2, rng, among=[1])
        if any(is_six_spade(h) for h in deal_cards(d1)[0]):
            continue
        tabs = []
        for d in (d0, d1):
            t = new_deal(dealer=1, d=d)
            t.script(auction_to(2, 0, 2))
            for c in cards(d["prikup"]):
                t.act(c, 0)
            t.script([(0, C_DIAMONDS), (1, PASS), (2, WHIST)])
            tabs.append(t)
        hands = hands_after_discard(d0, 0, cards(d0["prikup"]))
        from .spec_helpers import RefPlay

        ref = RefPlay({0: hands[0], 2: hands[2]}, TRUMP["diamonds"], 0)
        while not ref.done:
            assert np.array_equal(_obs(tabs[0].env, P(2)), _obs(tabs[1].env, P(2)))
            card = min(ref.legal())
            for t in tabs:
                t.act(card, ref.to_act())
            ref.play(card)


def test_public_actions_are_seen_by_everyone():
    """§9: bids, passes, the contract, whist/pass, cards played -- everyone (the passer
    included): every agent's observation changes after each such action."""
    d = SCORE_CASES[3].values[0]
    t = new_deal(dealer=1, d=d)
    auction = auction_to(2, 0, 2)
    steps = list(auction)
    for c in cards(d["prikup"]):
        steps.append((0, c))
    steps += [(0, C_DIAMONDS), (1, PASS), (2, WHIST)]
    public = set(range(len(auction))) | {len(steps) - 3, len(steps) - 2, len(steps) - 1}
    for i, (seat, act) in enumerate(steps):
        before = {a: _obs(t.env, a) for a in AGENTS}
        t.act(act, seat)
        if i in public:
            for a in AGENTS:
                assert not np.array_equal(before[a], _obs(t.env, a)), (i, a, act)
    hands = hands_after_discard(d, 0, cards(d["prikup"]))
    from .spec_helpers import RefPlay

    ref = RefPlay({0: hands[0], 2: hands[2]}, TRUMP["diamonds"], 0)
    while not ref.done and ref.n_tricks < 9:
        before = {a: _obs(t.env, a) for a in AGENTS}
        card = min(ref.legal())
        t.act(card, ref.to_act())
        ref.play(card)
        for a in AGENTS:
            assert not np.array_equal(before[a], _obs(t.env, a)), (ref.n_tricks, a, cstr(card))


def test_named_contract_is_seen_by_everyone():
    """§9: the contract -- everyone: naming hearts or clubs gives the opponents different
    observations."""
    ta, _ = _to_defence(dealer=2, contract=C_HEARTS)
    tb, _ = _to_defence(dealer=2, contract=C_CLUBS)
    for a in AGENTS:
        assert not np.array_equal(_obs(ta.env, a), _obs(tb.env, a))


def test_dealer_first_bidder_and_totals_are_seen_by_everyone():
    """§9: totals, dealer, first bidder -- everyone."""
    ta, tb = new_deal(dealer=0), new_deal(dealer=1)
    for a in AGENTS:
        assert not np.array_equal(_obs(ta.env, a), _obs(tb.env, a)), ("dealer", a)
    ga = game([0, 0, 0], dealer=0)
    gb = game([0, 40, 0], dealer=0)
    for a in AGENTS:
        assert not np.array_equal(_obs(ga.env, a), _obs(gb.env, a)), ("totals", a)
    # same dealer and cards: first bidder by J♠ (player_2) vs dealer's left (player_1)
    fa = game([0, 0, 0], dealer=0, first_deal=True)
    fb = game([0, 0, 0], dealer=0, first_deal=False)
    assert fa.turn == P(2) and fb.turn == P(1)
    for a in AGENTS:
        assert not np.array_equal(_obs(fa.env, a), _obs(fb.env, a)), ("first bidder", a)


# ======================================================== bad input (api.md fixed deals)


def _mutate(d, fn):
    d = copy.deepcopy(d)
    fn(d)
    return d


def _repeat(d):
    d["hands"][1][0] = d["hands"][0][0]


def _unknown(s):
    def fn(d):
        d["hands"][0][0] = s

    return fn


BAD_DEALS = [
    pytest.param(_mutate(BASE, _repeat), "8S", id="repeated-card"),
    pytest.param(_mutate(BASE, _unknown("1S")), "1S", id="unknown-1S"),
    pytest.param(_mutate(BASE, _unknown("11H")), "11H", id="unknown-11H"),
    pytest.param(_mutate(BASE, _unknown("XS")), "XS", id="unknown-XS"),
    pytest.param(_mutate(BASE, _unknown("AX")), "AX", id="unknown-AX"),
    pytest.param(_mutate(BASE, _unknown(32)), None, id="id-32"),
    pytest.param(_mutate(BASE, _unknown(-1)), None, id="id-minus-1"),
    pytest.param(
        _mutate(BASE, lambda d: d["prikup"].append(d["hands"][0].pop())), None, id="hand-9-prikup-3"
    ),
    pytest.param(
        _mutate(BASE, lambda d: d["hands"][0].append(d["prikup"].pop())),
        None,
        id="hand-11-prikup-1",
    ),
    pytest.param(_mutate(BASE, lambda d: d["hands"].pop()), None, id="two-hands"),
    pytest.param(_mutate(BASE, lambda d: d["hands"][0].pop()), None, id="missing-card"),
    pytest.param(_mutate(BASE, lambda d: d.pop("prikup")), None, id="no-prikup"),
    pytest.param(SIX_SPADES, None, id="six-spades"),
]


def _midgame_table(**kwargs):
    t = new_deal(dealer=2, **kwargs)
    t.script([(0, BID_SPADES), (1, BID_CLUBS)])
    return t


def _still_steps(t: Table):
    """The env keeps working after a rejected call: finish the deal normally."""
    assert t.turn == P(2) and t.legal() == {PASS, BID_DIAMONDS}
    t.script([(2, PASS), (0, PASS)])
    lowest_discards(t)
    t.act(SURRENDER, 1)
    assert t.done()
    assert t.infos[P(1)]["deal_score"] == -10


@pytest.mark.parametrize(("bad", "word"), BAD_DEALS)
def test_bad_deal_raises_value_error_and_leaves_env_unchanged(bad, word):
    """api.md: a missing/repeated card, wrong count, unknown string, or a deal forcing a
    redeal at once raises ValueError naming the problem, and leaves the env unchanged."""
    t = _midgame_table()
    before = snapshot(t.env)
    with pytest.raises(ValueError) as exc:
        t.env.reset(seed=1, options={"dealer": 0, "deal": bad})
    if word is not None:
        msg = str(exc.value).lower()
        words = [word.lower()]
        if word == "8S":  # 8S repeated, hence 7S missing: either names the problem
            words += ["7s", "repeat", "duplicate", "twice", "more than once", "missing"]
        assert any(w in msg for w in words), f"message does not name the problem: {msg!r}"
    assert_same_snapshot(before, snapshot(t.env))
    _still_steps(t)


@pytest.mark.parametrize("dealer", [3, -1, 7])
def test_bad_dealer_raises_value_error_and_leaves_env_unchanged(dealer):
    """api.md: a bad dealer seat raises ValueError and leaves the env unchanged."""
    t = _midgame_table()
    before = snapshot(t.env)
    with pytest.raises(ValueError):
        t.env.reset(seed=1, options={"dealer": dealer, "deal": BASE})
    assert_same_snapshot(before, snapshot(t.env))
    _still_steps(t)


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"totals": [121, 0, 0]}, id="total-121"),
        pytest.param({"totals": [0, 0, 500]}, id="total-500"),
        pytest.param({"totals": [0, 0]}, id="two-totals"),
        pytest.param({"totals": [0, 0, 0, 0]}, id="four-totals"),
        pytest.param({"totals": [0.5, 0, 0]}, id="non-integer-total"),
        pytest.param({"deal": BOTH_IN_PRIKUP, "first_deal": True}, id="first-deal-J-7-prikup"),
        pytest.param({"deal": SIX_SPADES, "first_deal": False}, id="six-spades"),
    ],
)
def test_bad_game_options_raise_value_error_and_leave_env_unchanged(options):
    """api.md Decided details: totals must be integers below 121 (3 of them); a first deal
    with J♠ and 7♠ in the prikup or a six-spade deal raises ValueError; env unchanged."""
    t = Table(episode="game").reset(seed=0, dealer=2, deal=BASE, totals=[0, 0, 0], first_deal=False)
    t.script([(0, BID_SPADES), (1, BID_CLUBS)])
    before = snapshot(t.env)
    opts = {"dealer": 0, "deal": BASE, "totals": [0, 0, 0], "first_deal": False, **options}
    with pytest.raises(ValueError):
        t.env.reset(seed=1, options=opts)
    assert_same_snapshot(before, snapshot(t.env))
    _still_steps_game(t)


def _still_steps_game(t: Table):
    t.script([(2, PASS), (0, PASS)])
    lowest_discards(t)
    t.act(SURRENDER, 1)
    assert totals_of(t) == [2, -10, 2]


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"episode": "x"}, id="episode-x"),
        pytest.param({"reward": "x"}, id="reward-x"),
        pytest.param({"reward_scale": float("nan")}, id="reward-scale-nan"),
        pytest.param({"reward_scale": float("inf")}, id="reward-scale-inf"),
        pytest.param({"reward_scale": "abc"}, id="reward-scale-abc"),
    ],
)
def test_bad_constructor_options_raise_value_error(kwargs):
    """api.md: invalid option values (episode, reward, reward_scale) raise ValueError (at
    construction or at the first reset)."""
    with pytest.raises(ValueError):
        env = make_raw_env(**kwargs)
        env.reset(seed=0)


# ===================================================== illegal actions (api.md raw_env)


def _phase(name):
    t = new_deal(dealer=2, d=PLAY_DEAL)
    if name == "auction":
        return t, [BID_CLUBS, BID_BEST, C_SPADES, SURRENDER, WHIST, 0, 31]
    t.script([(0, BID_SPADES), (1, BID_CLUBS)])
    if name == "auction-after-clubs":
        return t, [BID_SPADES, BID_CLUBS, BID_HEARTS, C_CLUBS, cid("7H")]
    t.script([(2, PASS), (0, PASS)])
    if name == "discard":  # player_1 declares at clubs; 12 cards
        return t, [PASS, SURRENDER, C_CLUBS, cid("AS"), cid("7H")]
    t.act(cid("7S"))
    t.act(cid("JS"))
    if name == "contract":
        return t, [C_SPADES, C_BEST, PASS, WHIST, cid("8S"), cid("7S")]
    t.act(C_HEARTS)
    if name == "defence":
        return t, [BID_SPADES, C_HEARTS, SURRENDER, cid("7H")]
    t.act(WHIST)
    t.act(WHIST)
    # player_1 leads; keeps 8S 10S QS KS 7C 8C 9C 7D 8D 9D
    t.act(cid("8S"))
    if name == "play":  # player_2 has no spades but 7H 8H: must trump
        return t, [cid("10C"), cid("KD"), cid("AS"), cid("8S"), PASS, WHIST]
    raise AssertionError(name)


@pytest.mark.parametrize(
    "phase", ["auction", "auction-after-clubs", "discard", "contract", "defence", "play"]
)
def test_illegal_action_raises_and_leaves_env_unchanged(phase):
    """api.md: raw_env.step raises ValueError on an action outside the mask and leaves the
    env unchanged; it then still steps."""
    t, illegal = _phase(phase)
    for a in illegal:
        assert a not in t.legal(), (phase, a)
        before = snapshot(t.env)
        with pytest.raises(ValueError):
            t.env.step(a)
        assert_same_snapshot(before, snapshot(t.env))
    legal = min(t.legal())
    t.act(legal)


@pytest.mark.parametrize("action", [45, -1, 1000])
def test_out_of_range_action_raises_value_error(action):
    """api.md: an action outside the mask (here outside 0..44) raises ValueError on raw_env."""
    t = new_deal(dealer=2)
    before = snapshot(t.env)
    with pytest.raises(ValueError):
        t.env.step(action)
    assert_same_snapshot(before, snapshot(t.env))
    t.act(BID_SPADES, 0)


def test_wrapped_env_classic_agent_iter_loop():
    """api.md: env() is used through the classic AEC loop (agent_iter / last / step(None)
    for finished agents); the rewards read through last() sum to the deal score and every
    agent receives its end-of-deal infos."""
    from folkcards.envs import paston_v0

    d, dealer, declarer, level, contract, lch, rch, tricks, scores = SCORE_CASES[1].values
    env = paston_v0.env()
    env.reset(seed=0, options={"dealer": dealer, "deal": d})
    script = [a for _, a in auction_to(left(dealer), declarer, level)]
    script += cards(d["prikup"]) + [contract, lch, rch]
    total = dict.fromkeys(AGENTS, 0.0)
    final = {}
    for agent in env.agent_iter(max_iter=1000):
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            final[agent] = info
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = script.pop(0) if script else int(np.flatnonzero(mask)[0])
        assert mask[action] == 1
        env.step(action)
    assert total == {P(s): pytest.approx(scores[s]) for s in range(3)}
    assert {a: final[a]["deal_score"] for a in AGENTS} == {P(s): scores[s] for s in range(3)}
    assert {a: final[a]["tricks"] for a in AGENTS} == {P(s): tricks[s] for s in range(3)}


def test_wrapped_env_terminates_on_illegal_action():
    """api.md: env() follows PettingZoo's classic convention (TerminateIllegalWrapper): an
    illegal move ends the game, the offender gets -1 and the others 0."""
    from folkcards.envs import paston_v0

    env = paston_v0.env()
    env.reset(seed=0, options={"dealer": 2, "deal": BASE})
    assert env.agent_selection == P(0)
    env.step(BID_HEARTS)
    assert all(env.terminations.values())
    assert env.rewards[P(0)] == -1
    assert env.rewards[P(1)] == 0 and env.rewards[P(2)] == 0
