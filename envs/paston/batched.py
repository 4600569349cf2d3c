"""Paston, batched: ``N`` independent deals stepped together in compiled code (numba).

``vector_env(num_envs, **options)`` returns a :class:`PastonVectorEnv`. Every game is exactly
the deal of ``paston_v0.raw_env(episode="deal")`` (same rules, observations, masks, rewards and
final infos; the differential tests in ``tests/paston/test_batched.py`` check it), but only the
seat to act is observed, and a finished deal is replaced at once by a new one.

    vec = vector_env(1024, shaping=True)
    obs, mask, player = vec.reset(seed=0)
    obs, mask, player, rewards, terminated, truncated, infos = vec.step(actions)

Supported options: ``episode="deal"``, ``reward="score"``, ``shaping`` (True/False),
``reward_scale``, ``render_mode=None``. ``episode="game"``, ``reward="win"``, ``max_deals``
other than its default and rendering raise ``ValueError`` (use the AEC env for them).

- ``reset(seed=None, options=None)`` → ``obs`` float32 ``(N, 367)``, ``mask`` int8 ``(N, 45)``,
  ``player`` int64 ``(N,)``: the observation, legal actions and seat of the player to act in
  each game. ``options`` may hold ``deals`` (``N`` deals in the AEC ``deal`` format
  ``{"hands": [[10 cards] x 3], "prikup": [2 cards]}``, or ``None`` entries for a random deal)
  and ``dealers`` (``N`` seats or ``None``). As in the AEC env, an injected six-spade deal raises
  ``ValueError``.
- ``step(actions, where=None)`` → ``obs, mask, player, rewards, terminated, truncated,
  infos``. ``where`` (``N`` bools) moves only those games (for opponents acting inside a
  batch): the others keep their state, observation, mask and player, get 0 rewards and False
  flags, and their actions are ignored.
  ``rewards`` float32 ``(N, 3)`` is what every seat earned in this step (the shaping part during
  play, the table score × ``reward_scale`` when the deal ends: a deal's rewards sum to its
  scores × ``reward_scale``); ``terminated`` bool ``(N,)`` (``truncated`` is always False);
  ``infos`` maps the index of every game that finished in this step to ``{agent: final info}``
  as the AEC env gives it (a redeal after all-pass with J♠ and 7♠ in the prikup ends the episode
  with outcome ``redeal``, as in the AEC env). A finished game is dealt again at once (random
  dealer, the AEC env's deal procedure: reshuffle while the bottom card is 7♠, redeal six
  spades), and ``obs``/``mask``/``player`` then describe the new deal's first decision.
- Seeding: game ``i`` draws its dealers and decks from its own xoshiro256** stream, seeded from
  words ``4i .. 4i+3`` of ``SeedSequence(seed)`` (see ``folkcards.envs._batched``). The same seed
  and actions give the same games, whatever the number of games or threads.
- Bad input (wrong shape, a non-integer, an id out of range, an action illegal in any game)
  raises ``ValueError`` naming the game index and leaves every game as it was.
- The returned arrays are the engine's buffers: the next ``step`` overwrites them (copy to keep).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .._aec import seat_option
from .._batched import (
    FinalInfos,
    StepResult,
    VectorEnvBase,
    check_num_envs,
    check_reward_scale,
    random_legal_actions,
    rng_below,
    rng_shuffle,
    run_in_chunks,
    seed_states,
)
from ..cards import mask_to_cards
from ..compile_notice import install as _announce_compiles
from .env import SHAPING_POINTS_PER_TRICK
from .kernels import LEVEL_FACTOR_ARRAY, beats, declarer_points, defender_points, legal_cards
from .observation import OBSERVATION_SIZE, OFFSETS
from .rules import (
    AUCTION,
    BEST_SPADES,
    BID_BASE,
    CONTRACT,
    CONTRACT_BASE,
    DEAL_TARGETS,
    DECLARER_NEED,
    DEFENCE,
    DEFENDER_NEED,
    DISCARD,
    JACK_OF_SPADES,
    LEVEL_NAMES,
    LEVEL_TRUMP,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_LEVELS,
    NUM_SEATS,
    NUM_TRICKS,
    OUTCOMES,
    OVER,
    PASS,
    PLAY,
    SEVEN_OF_SPADES,
    SIX_SPADES_RUN,
    SOLE_DEFENDER_NEED,
    SPADE_HONOURS,
    SURRENDER,
    SURRENDER_OPPONENT_SCORE,
    SURRENDER_SCORE,
    WHIST,
    parse_deal,
    redeal_reason,
)

# The vocabulary and the rules' constants come from vocabulary.py and rules.py (imported above);
# numba reads module-level ints and arrays as compile-time constants, so the tables below are
# those facts as int64 arrays, not a second copy of them.
PLAYED, AUTO_WIN, SURRENDERED_OUT, REDEAL = (
    OUTCOMES.index(name) for name in ("played", "auto_win", "surrender", "redeal")
)
LEVEL_TRUMP_ARRAY = np.array(LEVEL_TRUMP, dtype=np.int64)
DEAL_TARGETS_ARRAY = np.array(DEAL_TARGETS, dtype=np.int64)  # 3: the prikup (rules §2.3)
PRIKUP_TARGET = NUM_SEATS  # the deal target after the seats' offsets 0..2
ALL_SEATS = (1 << NUM_SEATS) - 1  # a bitmask of seats: all three
LOW_BIT = np.array([(r & -r).bit_length() - 1 if r else 0 for r in range(256)], dtype=np.int64)

# --- columns of the int64 state table ``st`` (one row per game) ---
(
    DEALER, FIRST_BIDDER, TO_ACT, PHASE, PASSED, HIGH_BID, HIGH_BIDDER, ALL_PASS, DECLARER,
    LEVEL, SURRENDERED, TRUMP, TRICK_LEN, LEADER, TRICK_COUNT, ACTIVE, OUTCOME, PRIKUP,
    DISCARDS, DEALT_PRIKUP, LEGAL,
) = range(21)  # fmt: skip
NUM_FIELDS = 21
# --- per-seat tables, ``seat[i, field, seat]`` ---
HANDS, PLAYED_CARDS, BIDS, DEFENCE_SAID, TRICKS, VOIDS, SCORES, TRICK_CARD, DEALT_HANDS = range(9)
NUM_SEAT_FIELDS = 9
# --- the final-result table ``fin`` ---
F_OUTCOME, F_DEALER, F_DECLARER, F_LEVEL, F_HIGH_BID, F_SURRENDERED = range(6)
NUM_FIN = 6

# --- observation offsets (observation.py OBSERVATION_LAYOUT) ---
O_HAND, O_PRIKUP, O_DISCARDS, O_PLAYED, O_TRICK = (
    OFFSETS[k] for k in ("hand", "prikup", "discards", "played", "trick")
)
O_TRICK_LEADER, O_TO_ACT, O_DEALER, O_FIRST_BIDDER, O_PHASE = (
    OFFSETS[k] for k in ("trick_leader", "to_act", "dealer", "first_bidder", "phase")
)
O_PASSED, O_HIGH_BID, O_HIGH_BIDDER, O_BIDS, O_ALL_PASS, O_DECLARER = (
    OFFSETS[k]
    for k in ("auction_passed", "high_bid", "high_bidder", "bids", "all_pass", "declarer")
)
O_CONTRACT, O_SURRENDERED, O_WHIST, O_DEFENCE_PASS, O_TRICKS, O_VOIDS = (
    OFFSETS[k] for k in ("contract", "surrendered", "whist", "defence_pass", "tricks", "voids")
)


# --- the deal (rules.py) --------------------------------------------------------------------------


@njit(cache=True)
def _deal_deck(seat: np.ndarray, st: np.ndarray, deck: np.ndarray, i: int) -> None:
    dealer = st[i, DEALER]
    for s in range(NUM_SEATS):
        seat[i, DEALT_HANDS, s] = 0
    prikup = 0
    for position in range(NUM_CARDS):
        target = DEAL_TARGETS_ARRAY[position]
        if target == PRIKUP_TARGET:
            prikup |= 1 << deck[position]
        else:
            seat[i, DEALT_HANDS, (dealer + target) % NUM_SEATS] |= 1 << deck[position]
    st[i, DEALT_PRIKUP] = prikup


@njit(cache=True)
def _has_six_spades(hand: int) -> bool:
    spades = hand & 0xFF
    return (spades & SIX_SPADES_RUN) == SIX_SPADES_RUN and (spades & SPADE_HONOURS) == 0


@njit(cache=True)
def _random_deal(seat: np.ndarray, st: np.ndarray, rng: np.ndarray, i: int) -> None:
    """rules.py ``random_deal`` for a deal-mode episode: a random dealer, then shuffle and deal
    until the bottom card is not 7♠ and nobody holds the six spades."""
    st[i, DEALER] = rng_below(rng, i, NUM_SEATS)
    deck = np.empty(NUM_CARDS, dtype=np.int64)
    while True:
        for c in range(NUM_CARDS):
            deck[c] = c
        rng_shuffle(rng, i, deck)
        while deck[NUM_CARDS - 1] == SEVEN_OF_SPADES:  # §2.2: reshuffle
            rng_shuffle(rng, i, deck)
        _deal_deck(seat, st, deck, i)
        if not (
            _has_six_spades(seat[i, DEALT_HANDS, 0])
            or _has_six_spades(seat[i, DEALT_HANDS, 1])
            or _has_six_spades(seat[i, DEALT_HANDS, 2])
        ):
            return


@njit(cache=True)
def _start_deal(seat: np.ndarray, st: np.ndarray, potential: np.ndarray, i: int) -> None:
    """The deal in ``seat[i, DEALT_HANDS]``/``st[i, DEALT_PRIKUP]`` from ``st[i, DEALER]``."""
    dealer = st[i, DEALER]
    for f in range(NUM_FIELDS):
        if f != DEALER and f != DEALT_PRIKUP:
            st[i, f] = 0
    for s in range(NUM_SEATS):
        for f in range(NUM_SEAT_FIELDS):
            if f != DEALT_HANDS:
                seat[i, f, s] = 0
        seat[i, HANDS, s] = seat[i, DEALT_HANDS, s]
        seat[i, DEFENCE_SAID, s] = -1
        seat[i, TRICK_CARD, s] = -1
        potential[i, s] = 0.0
    st[i, PRIKUP] = st[i, DEALT_PRIKUP]
    st[i, FIRST_BIDDER] = (dealer + 1) % NUM_SEATS
    st[i, TO_ACT] = (dealer + 1) % NUM_SEATS
    st[i, PHASE] = AUCTION
    st[i, HIGH_BID] = -1
    st[i, HIGH_BIDDER] = -1
    st[i, DECLARER] = -1
    st[i, LEVEL] = -1
    st[i, TRUMP] = -1
    st[i, LEADER] = -1
    st[i, OUTCOME] = -1


# --- legal actions and transitions (rules.py PastonDeal) -----------------------------------------


@njit(cache=True)
def _legal_bits(seat: np.ndarray, st: np.ndarray, i: int) -> int:
    phase = st[i, PHASE]
    if phase == AUCTION:
        return (1 << PASS) | (1 << (BID_BASE + st[i, HIGH_BID] + 1))
    if phase == PLAY:
        led = seat[i, TRICK_CARD, st[i, LEADER]] >> 3 if st[i, TRICK_LEN] else -1
        return legal_cards(seat[i, HANDS, st[i, TO_ACT]], led, st[i, TRUMP])
    if phase == DISCARD:
        return seat[i, HANDS, st[i, TO_ACT]]
    if phase == CONTRACT:
        if st[i, HIGH_BID] == BEST_SPADES:
            bits = 1 << (CONTRACT_BASE + BEST_SPADES)
        else:
            bits = 0
            for level in range(max(st[i, HIGH_BID], 0), BEST_SPADES):
                bits |= 1 << (CONTRACT_BASE + level)
        return bits | (1 << SURRENDER)
    if phase == DEFENCE:
        return (1 << PASS) | (1 << WHIST)
    return 0


@njit(cache=True)
def _over(st: np.ndarray, i: int, outcome: int) -> None:
    st[i, OUTCOME] = outcome
    st[i, PHASE] = OVER
    st[i, TO_ACT] = -1


@njit(cache=True)
def _declare(seat: np.ndarray, st: np.ndarray, i: int, who: int) -> None:
    st[i, DECLARER] = who
    seat[i, HANDS, who] |= st[i, PRIKUP]
    st[i, PHASE] = DISCARD
    st[i, TO_ACT] = who


@njit(cache=True)
def _auction(seat: np.ndarray, st: np.ndarray, i: int, who: int, action: int) -> None:
    if action == PASS:
        st[i, PASSED] |= 1 << who
    else:
        level = action - BID_BASE
        seat[i, BIDS, who] |= 1 << level
        st[i, HIGH_BID] = level
        st[i, HIGH_BIDDER] = who
        if level == BEST_SPADES:
            _declare(seat, st, i, who)
            return
    passed = st[i, PASSED]
    if passed == ALL_SEATS:  # all three passed
        st[i, ALL_PASS] = 1
        designee = -1
        for card in (JACK_OF_SPADES, SEVEN_OF_SPADES):
            for s in range(NUM_SEATS):
                if designee < 0 and (seat[i, HANDS, s] >> card) & 1:
                    designee = s
        if designee < 0:
            _over(st, i, REDEAL)
        else:
            _declare(seat, st, i, designee)
        return
    high_bidder = st[i, HIGH_BIDDER]
    if high_bidder >= 0 and ALL_SEATS & ~passed == 1 << high_bidder:  # only the high bidder is left
        _declare(seat, st, i, high_bidder)
        return
    nxt = (who + 1) % NUM_SEATS
    while (passed >> nxt) & 1:
        nxt = (nxt + 1) % NUM_SEATS
    st[i, TO_ACT] = nxt


@njit(cache=True)
def _defence(seat: np.ndarray, st: np.ndarray, i: int, who: int, action: int) -> None:
    seat[i, DEFENCE_SAID, who] = 1 if action == WHIST else 0
    declarer = st[i, DECLARER]
    if who == (declarer + 1) % NUM_SEATS:
        st[i, TO_ACT] = (declarer + 2) % NUM_SEATS
        return
    active = 1 << declarer
    for s in range(NUM_SEATS):
        if seat[i, DEFENCE_SAID, s] == 1:
            active |= 1 << s
    if active == 1 << declarer:
        for s in range(NUM_SEATS):
            seat[i, SCORES, s] = 0
        seat[i, SCORES, declarer] = declarer_points(NUM_TRICKS, st[i, LEVEL])
        _over(st, i, AUTO_WIN)
        return
    st[i, ACTIVE] = active
    st[i, PHASE] = PLAY
    st[i, LEADER] = declarer
    st[i, TO_ACT] = declarer


@njit(cache=True)
def _next_active(st: np.ndarray, i: int, who: int) -> int:
    nxt = (who + 1) % NUM_SEATS
    if not (st[i, ACTIVE] >> nxt) & 1:
        nxt = (nxt + 1) % NUM_SEATS
    return nxt


@njit(cache=True)
def _play(seat: np.ndarray, st: np.ndarray, i: int, who: int, card: int) -> None:
    bit = 1 << card
    seat[i, HANDS, who] &= ~bit
    seat[i, PLAYED_CARDS, who] |= bit
    trump = st[i, TRUMP]
    if st[i, TRICK_LEN]:
        led = seat[i, TRICK_CARD, st[i, LEADER]] >> 3
        suit = card >> 3
        if suit != led:
            seat[i, VOIDS, who] |= 1 << led
            if suit != trump:
                seat[i, VOIDS, who] |= 1 << trump
    seat[i, TRICK_CARD, who] = card
    st[i, TRICK_LEN] += 1
    active = st[i, ACTIVE]
    num_active = (active & 1) + ((active >> 1) & 1) + ((active >> 2) & 1)
    if st[i, TRICK_LEN] < num_active:
        st[i, TO_ACT] = _next_active(st, i, who)
        return
    # the trick's winner, in play order from the leader
    best_seat = st[i, LEADER]
    best = seat[i, TRICK_CARD, best_seat]
    s = best_seat
    for _ in range(num_active - 1):
        s = _next_active(st, i, s)
        if beats(seat[i, TRICK_CARD, s], best, trump):
            best_seat, best = s, seat[i, TRICK_CARD, s]
    seat[i, TRICKS, best_seat] += 1
    st[i, TRICK_COUNT] += 1
    st[i, TRICK_LEN] = 0
    for s in range(NUM_SEATS):
        seat[i, TRICK_CARD, s] = -1
    if st[i, TRICK_COUNT] == NUM_TRICKS:
        declarer = st[i, DECLARER]
        level = st[i, LEVEL]
        sole = num_active == 2
        for s in range(NUM_SEATS):
            seat[i, SCORES, s] = 0
        seat[i, SCORES, declarer] = declarer_points(seat[i, TRICKS, declarer], level)
        for s in range(NUM_SEATS):
            if s != declarer and (active >> s) & 1:
                seat[i, SCORES, s] = defender_points(seat[i, TRICKS, s], sole, level)
        _over(st, i, PLAYED)
        return
    st[i, LEADER] = best_seat
    st[i, TO_ACT] = best_seat


@njit(cache=True)
def _apply(seat: np.ndarray, st: np.ndarray, i: int, action: int) -> None:
    who = st[i, TO_ACT]
    phase = st[i, PHASE]
    if phase == PLAY:
        _play(seat, st, i, who, action)
    elif phase == AUCTION:
        _auction(seat, st, i, who, action)
    elif phase == DISCARD:
        seat[i, HANDS, who] &= ~(1 << action)
        st[i, DISCARDS] |= 1 << action
        if st[i, DISCARDS] & (st[i, DISCARDS] - 1):
            st[i, PHASE] = CONTRACT
    elif phase == CONTRACT:
        if action == SURRENDER:
            st[i, SURRENDERED] = 1
            for s in range(NUM_SEATS):
                seat[i, SCORES, s] = SURRENDER_OPPONENT_SCORE
            seat[i, SCORES, who] = SURRENDER_SCORE
            _over(st, i, SURRENDERED_OUT)
        else:
            st[i, LEVEL] = action - CONTRACT_BASE
            st[i, TRUMP] = LEVEL_TRUMP_ARRAY[action - CONTRACT_BASE]
            st[i, PHASE] = DEFENCE
            st[i, TO_ACT] = (who + 1) % NUM_SEATS
    elif phase == DEFENCE:
        _defence(seat, st, i, who, action)


@njit(cache=True)
def _shape(
    seat: np.ndarray, st: np.ndarray, potential: np.ndarray, i: int, scale: float, acc: np.ndarray
) -> None:
    """env.py ``_shape``: Φ = 2·f·(tricks − need·tricks_played/10) during play, 0 after."""
    active = st[i, ACTIVE]
    num_active = (active & 1) + ((active >> 1) & 1) + ((active >> 2) & 1)
    for s in range(NUM_SEATS):
        new = 0.0
        if st[i, PHASE] == PLAY and (active >> s) & 1:
            if s == st[i, DECLARER]:
                need = DECLARER_NEED
            elif seat[i, DEFENCE_SAID, s] == 1:
                need = SOLE_DEFENDER_NEED if num_active == 2 else DEFENDER_NEED
            else:
                need = 0
            factor = LEVEL_FACTOR_ARRAY[st[i, LEVEL]]
            new = (
                SHAPING_POINTS_PER_TRICK
                * factor
                * (seat[i, TRICKS, s] - need * st[i, TRICK_COUNT] / float(NUM_TRICKS))
            )
        acc[i, s] += (new - potential[i, s]) * scale
        potential[i, s] = new


# --- observations (observation.py ``encode`` for the seat to act, deal mode) ----------------------


@njit(cache=True)
def _put_cards(obs: np.ndarray, i: int, start: int, mask: int) -> None:
    for s in range(4):
        ranks = (mask >> (8 * s)) & 0xFF
        while ranks:
            obs[i, start + 8 * s + LOW_BIT[ranks]] = 1.0
            ranks &= ranks - 1


@njit(cache=True)
def _observe(
    seat: np.ndarray,
    st: np.ndarray,
    i: int,
    obs: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
) -> None:
    me = st[i, TO_ACT]
    obs[i, :] = 0.0
    _put_cards(obs, i, O_HAND, seat[i, HANDS, me])
    declarer = st[i, DECLARER]
    if declarer == me:
        _put_cards(obs, i, O_PRIKUP, st[i, PRIKUP])
        _put_cards(obs, i, O_DISCARDS, st[i, DISCARDS])
    for r in range(NUM_SEATS):
        s = (me + r) % NUM_SEATS
        _put_cards(obs, i, O_PLAYED + NUM_CARDS * r, seat[i, PLAYED_CARDS, s])
        card = seat[i, TRICK_CARD, s]
        if card >= 0:
            obs[i, O_TRICK + NUM_CARDS * r + card] = 1.0
        if (st[i, PASSED] >> s) & 1:
            obs[i, O_PASSED + r] = 1.0
        bids = seat[i, BIDS, s]
        for level in range(NUM_LEVELS):
            if (bids >> level) & 1:
                obs[i, O_BIDS + NUM_LEVELS * r + level] = 1.0
        said = seat[i, DEFENCE_SAID, s]
        if said == 1:
            obs[i, O_WHIST + r] = 1.0
        elif said == 0:
            obs[i, O_DEFENCE_PASS + r] = 1.0
        voids = seat[i, VOIDS, s]
        for suit in range(4):
            if (voids >> suit) & 1:
                obs[i, O_VOIDS + 4 * r + suit] = 1.0
        obs[i, O_TRICKS + r] = seat[i, TRICKS, s] / 10.0
    if st[i, TRICK_LEN]:
        obs[i, O_TRICK_LEADER + (st[i, LEADER] - me) % NUM_SEATS] = 1.0
    obs[i, O_TO_ACT] = 1.0
    obs[i, O_DEALER + (st[i, DEALER] - me) % NUM_SEATS] = 1.0
    obs[i, O_FIRST_BIDDER + (st[i, FIRST_BIDDER] - me) % NUM_SEATS] = 1.0
    obs[i, O_PHASE + st[i, PHASE]] = 1.0
    if st[i, HIGH_BID] >= 0:
        obs[i, O_HIGH_BID + st[i, HIGH_BID]] = 1.0
        obs[i, O_HIGH_BIDDER + (st[i, HIGH_BIDDER] - me) % NUM_SEATS] = 1.0
    if st[i, ALL_PASS]:
        obs[i, O_ALL_PASS] = 1.0
    if declarer >= 0:
        obs[i, O_DECLARER + (declarer - me) % NUM_SEATS] = 1.0
    if st[i, LEVEL] >= 0:
        obs[i, O_CONTRACT + st[i, LEVEL]] = 1.0
    if st[i, SURRENDERED]:
        obs[i, O_SURRENDERED] = 1.0
    bits = _legal_bits(seat, st, i)
    st[i, LEGAL] = bits  # for step's check of the next actions
    mask[i, :] = 0
    while bits:
        low = bits & -bits
        a = 0
        while (low >> a) != 1:  # the index of the lowest set bit
            a += 8 if (low >> (a + 8)) else 1
        mask[i, a] = 1
        bits ^= low
    player[i] = me


# --- the batch kernels ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _step_range(
    lo, hi, actions, seat, st, potential, rng, shaping, scale, obs, mask, player, rewards,
    terminated, fin, fin_seat, acc, active,
) -> None:  # fmt: skip
    """Step games ``lo .. hi-1`` where ``active`` (one loop body: calls with many arrays cost
    more than the work)."""
    for i in range(lo, hi):
        if not active[i]:
            for s in range(NUM_SEATS):
                rewards[i, s] = 0.0
            terminated[i] = False
            continue
        for s in range(NUM_SEATS):
            acc[i, s] = 0.0
        tricks_before = st[i, TRICK_COUNT]
        _apply(seat, st, i, actions[i])
        over = st[i, PHASE] == OVER
        if shaping and (st[i, TRICK_COUNT] != tricks_before or over):
            _shape(seat, st, potential, i, scale, acc)
        terminated[i] = over
        if over:
            for s in range(NUM_SEATS):
                acc[i, s] += seat[i, SCORES, s] * scale
                fin_seat[i, 0, s] = seat[i, SCORES, s]
                fin_seat[i, 1, s] = seat[i, TRICKS, s]
                fin_seat[i, 2, s] = seat[i, DEFENCE_SAID, s]
            fin[i, F_OUTCOME] = st[i, OUTCOME]
            fin[i, F_DEALER] = st[i, DEALER]
            fin[i, F_DECLARER] = st[i, DECLARER]
            fin[i, F_LEVEL] = st[i, LEVEL]
            fin[i, F_HIGH_BID] = st[i, HIGH_BID]
            fin[i, F_SURRENDERED] = st[i, SURRENDERED]
            _random_deal(seat, st, rng, i)
            _start_deal(seat, st, potential, i)
        for s in range(NUM_SEATS):
            rewards[i, s] = acc[i, s]
        _observe(seat, st, i, obs, mask, player)


@njit(cache=True)
def _start_games(random, seat, st, potential, rng, obs, mask, player) -> None:  # fmt: skip
    """Start every game: a random deal where ``random[i]``, else the one already in the state."""
    for i in range(random.shape[0]):
        if random[i]:
            _random_deal(seat, st, rng, i)
        _start_deal(seat, st, potential, i)
        _observe(seat, st, i, obs, mask, player)


@njit(cache=True)
def _draw_dealer(rng: np.ndarray, i: int) -> int:
    return rng_below(rng, i, NUM_SEATS)


ROLE_BY_DEFENCE = {1: "defender", 0: "passer"}


class PastonVectorEnv(VectorEnvBase):
    """``num_envs`` Paston deals in compiled code; see the module docstring."""

    option_keys = ("deals", "dealers")
    num_actions = NUM_ACTIONS
    num_players = NUM_SEATS
    obs_dim = OBSERVATION_SIZE
    possible_agents = [f"player_{s}" for s in range(NUM_SEATS)]

    def __init__(
        self,
        num_envs: int,
        episode: str = "deal",
        shaping: bool = False,
        reward_scale: float = 1.0,
        reward: str = "score",
        max_deals: int = 1000,
        render_mode: str | None = None,
    ):
        self.num_envs = check_num_envs(num_envs)
        if episode != "deal":
            raise ValueError(
                f"the batched Paston engine supports episode='deal' only, got {episode!r}"
            )
        if reward != "score":
            raise ValueError(
                f"the batched Paston engine supports reward='score' only, got {reward!r}"
            )
        if max_deals != 1000:
            raise ValueError("max_deals applies to episode='game', which the batched engine lacks")
        if not isinstance(shaping, (bool, np.bool_)):
            raise ValueError(f"shaping must be True or False, got {shaping!r}")
        check_reward_scale(reward_scale)
        if render_mode is not None:
            raise ValueError("the batched Paston engine does not render; use render_mode=None")
        self.shaping = bool(shaping)
        self.reward_scale = float(reward_scale)
        N = self.num_envs
        self._st = np.zeros((N, NUM_FIELDS), dtype=np.int64)
        self._seat = np.zeros((N, NUM_SEAT_FIELDS, NUM_SEATS), dtype=np.int64)
        self._potential = np.zeros((N, NUM_SEATS), dtype=np.float64)
        self._acc = np.zeros((N, NUM_SEATS), dtype=np.float64)  # a step's rewards before float32
        self._rng = seed_states(None, N)
        self._fin = np.zeros((N, NUM_FIN), dtype=np.int64)
        self._fin_seat = np.zeros((N, 3, NUM_SEATS), dtype=np.int64)  # score, tricks, defence
        self._setup_outputs()

    # --- public API ---------------------------------------------------------------------------

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game; see the module docstring for ``options``."""
        plan = self._parse_options(options)
        self._rng = seed_states(seed, self.num_envs)
        random = np.ones(self.num_envs, dtype=np.bool_)
        for i in range(self.num_envs):
            deal, dealer = plan["deals"][i], plan["dealers"][i]
            if deal is None and dealer is None:
                continue
            if deal is None:  # a given dealer, a random deal
                hands, prikup = _python_random_deal(self._rng, i, dealer)
            else:
                hands, prikup = deal
            random[i] = False
            self._st[i, DEALER] = int(_draw_dealer(self._rng, i)) if dealer is None else dealer
            self._seat[i, DEALT_HANDS] = hands
            self._st[i, DEALT_PRIKUP] = prikup
        _start_games(
            random, self._seat, self._st, self._potential, self._rng, self._obs, self._mask,
            self._player,
        )  # fmt: skip
        self._rewards[:] = 0.0
        self._terminated[:] = False
        self._has_reset = True
        return self._obs, self._mask, self._player

    def step(self, actions: Any, where: Any = None) -> StepResult:
        """Apply one action in every game (or only where ``where`` is True; the other games
        are left as they are, with no reward); see the module docstring."""
        acts, active = self._checked_actions(actions, where)
        illegal = ((self._st[:, LEGAL] >> (acts & 63)) & 1 == 0) & active
        if illegal.any():
            bad = int(np.argmax(illegal))
            legal = _bits_to_list(int(self._st[bad, LEGAL]))
            raise ValueError(
                f"game {bad}: illegal action {int(acts[bad])} for player_{int(self._st[bad, TO_ACT])}; "
                f"legal are {legal}"
            )
        run_in_chunks(
            _step_range, self.num_envs, acts, self._seat, self._st, self._potential, self._rng,
            self.shaping, self.reward_scale, self._obs, self._mask, self._player, self._rewards,
            self._terminated, self._fin, self._fin_seat, self._acc, active,
        )  # fmt: skip
        finished = np.flatnonzero(self._terminated)
        if finished.size:
            snap = (self._fin[finished].copy(), self._fin_seat[finished].copy())
            infos = FinalInfos(finished, lambda k: _info_from(snap, k))
        else:
            infos = FinalInfos(finished, lambda k: {})
        return self._outputs(infos)

    def deal_options(self, game: int) -> dict[str, Any]:
        """AEC ``reset`` options (``dealer``, ``deal``) that deal game ``game``'s current deal:
        ``paston_v0.raw_env().reset(options=vec.deal_options(i))``."""
        i = int(game)
        return {
            "dealer": int(self._st[i, DEALER]),
            "deal": {
                "hands": [mask_to_cards(int(h)) for h in self._seat[i, DEALT_HANDS]],
                "prikup": mask_to_cards(int(self._st[i, DEALT_PRIKUP])),
            },
        }

    def current_deals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every game's current deal as arrays: hands ``(N, 3)`` and prikup ``(N,)`` as card
        bitmasks (bit ``c`` = card id ``c``), dealers ``(N,)``."""
        return (
            self._seat[:, DEALT_HANDS].copy(),
            self._st[:, DEALT_PRIKUP].copy(),
            self._st[:, DEALER].copy(),
        )

    def _state_arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self._st, self._seat, self._potential, self._acc, self._rng, self._fin,
            self._fin_seat,
        )  # fmt: skip

    # --- internals ----------------------------------------------------------------------------

    def _parse_entry(self, key: str, entry: Any) -> Any:
        if key == "dealers":
            return seat_option(entry, NUM_SEATS)
        hands, prikup = parse_deal(entry)
        reason = redeal_reason(hands, False)
        if reason:
            raise ValueError(f"deal would be dealt again at once: {reason}")
        return hands, prikup


def _bits_to_list(bits: int) -> list[int]:
    return [a for a in range(NUM_ACTIONS) if bits >> a & 1]


def _python_random_deal(rng: np.ndarray, i: int, dealer: int) -> tuple[list[int], int]:
    """A random deal from game ``i``'s generator with a given dealer (for ``dealers`` without
    ``deals`` in ``reset``)."""
    seat = np.zeros((1, NUM_SEAT_FIELDS, NUM_SEATS), dtype=np.int64)
    st = np.zeros((1, NUM_FIELDS), dtype=np.int64)
    one = rng[i : i + 1].copy()
    _random_deal(seat, st, one, 0)  # draws its own dealer: turn the table to ``dealer``
    rng[i] = one[0]
    dealt = [int(h) for h in seat[0, DEALT_HANDS]]
    shift = (dealer - int(st[0, DEALER])) % NUM_SEATS
    return [dealt[(s - shift) % NUM_SEATS] for s in range(NUM_SEATS)], int(st[0, DEALT_PRIKUP])


def _info_from(snap: tuple[np.ndarray, np.ndarray], k: int) -> dict[str, dict[str, Any]]:
    fin, fin_seat = snap
    names = PastonVectorEnv.possible_agents
    outcome = int(fin[k, F_OUTCOME])
    declarer = int(fin[k, F_DECLARER])
    level = int(fin[k, F_LEVEL])
    high_bid = int(fin[k, F_HIGH_BID])
    infos: dict[str, dict[str, Any]] = {}
    for s, agent in enumerate(names):
        if outcome == REDEAL or declarer < 0:
            role = "none"
        elif s == declarer:
            role = "declarer"
        elif fin[k, F_SURRENDERED]:
            role = "opponent"
        else:
            role = ROLE_BY_DEFENCE.get(int(fin_seat[k, 2, s]), "none")
        infos[agent] = {
            "deal_score": int(fin_seat[k, 0, s]),
            "tricks": int(fin_seat[k, 1, s]),
            "role": role,
            "contract": None
            if outcome in (SURRENDERED_OUT, REDEAL) or level < 0
            else LEVEL_NAMES[level],
            "bid": LEVEL_NAMES[high_bid] if high_bid >= 0 else None,
            "outcome": OUTCOMES[outcome],
            "dealer": names[int(fin[k, F_DEALER])],
            "declarer": names[declarer] if declarer >= 0 else None,
        }
    return infos


def vector_env(num_envs: int, **options: Any) -> PastonVectorEnv:
    """``num_envs`` Paston deals stepped together; see :mod:`folkcards.envs.paston.batched`."""
    return PastonVectorEnv(num_envs, **options)


__all__ = ["PastonVectorEnv", "vector_env", "random_legal_actions", "seed_states"]

_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
