"""Tri Palki, batched: ``N`` independent rounds stepped together in compiled code (numba).

``vector_env(num_envs, num_players=4, **options)`` returns a :class:`TriPalkiVectorEnv`. Every
game is exactly the round of ``tri_palki_v0.raw_env`` (same rules, observations, masks, rewards
and final infos; the differential tests in ``tests/tri_palki/test_batched.py`` check it), but
only the seat to act is observed, and a finished round is replaced at once by a new one.

    vec = vector_env(1024, num_players=4, max_turns=1000)
    obs, mask, player = vec.reset(seed=0)
    obs, mask, player, rewards, terminated, truncated, infos = vec.step(actions)

Supported options: ``num_players`` 2–11, ``episode="round"``, ``reward="sticks"``,
``max_turns``, ``render_mode=None``. ``episode="match"``, ``reward="win"`` and rendering raise
``ValueError`` (use the AEC env for them).

- ``reset(seed=None, options=None)`` → ``obs`` float32 ``(N, obs_dim)``, ``mask`` int8
  ``(N, 13)``, ``player`` int64 ``(N,)``: the observation, legal actions and seat of the player
  to act in each game. ``options`` may hold ``deals`` (``N`` decks in the AEC ``deck`` format,
  or ``None`` entries for a random deck), ``dealers`` (``N`` seats or ``None``) and ``sticks``
  (``N`` lists of ``num_players`` ints 0–3, or ``None``).
- ``step(actions, where=None)`` → ``obs, mask, player, rewards, terminated, truncated,
  infos``. ``where`` (``N`` bools) moves only those games (for opponents acting inside a
  batch): the others keep their state, observation, mask and player, get 0 rewards and False
  flags, and their actions are ignored.
  ``rewards`` float32 ``(N, num_players)`` is what every seat earned in this step (−1 for a
  stick); ``terminated``/``truncated`` bool ``(N,)``; ``infos`` maps the index of every game
  that finished in this step to ``{agent: final info}`` as the AEC env gives it. A finished game
  is dealt again at once (random dealer, random deck, no sticks), and ``obs``/``mask``/
  ``player`` then describe the new round's first decision.
- A round whose deal leaves a one-suit centre that the reserve cannot replace ends before anyone
  acts (the AEC env terminates it right after ``reset``). Such rounds hold no decision: the
  batched engine settles them, reports them in :attr:`TriPalkiVectorEnv.instant_rounds` (those of
  the last ``reset``/``step`` call) and deals again in the same call, so the rounds it plays
  follow the AEC env's distribution of episodes exactly, instant ones included.
- Seeding: game ``i`` draws its dealers and decks from its own xoshiro256** stream, seeded from
  words ``4i .. 4i+3`` of ``SeedSequence(seed)`` (see ``folkcards.envs._batched``). The same seed and
  actions give the same games, whatever the number of games or threads.
- Bad input (wrong shape, a non-integer, an id out of range, an action illegal in any game)
  raises ``ValueError`` naming the game index and leaves every game as it was.
- The returned arrays are the engine's buffers: the next ``step`` overwrites them (copy to keep).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from .._aec import seat_option
from .._batched import (
    FinalInfos,
    StepResult,
    VectorEnvBase,
    check_num_envs,
    random_legal_actions,
    rng_below,
    rng_shuffle,
    run_in_chunks,
    seed_states,
)
from ..cards import TRI_PALKI_CARDS
from ..compile_notice import install as _announce_compiles
from .kernels import (
    LOW_BIT,
    hand_key,
    hand_kind,
    may_announce,
    one_suit,
    stick_receivers,
    swap,
)
from .observation import MAX_PLAYERS as _OBS_MAX_PLAYERS
from .observation import (
    TURNS_HORIZON,
    VALUE_SCALE,
    observation_layout,
    observation_offsets,
    observation_size,
)
from .rules import (
    ACTION,
    ACTION_BITS,
    ANNOUNCE,
    ANNOUNCE_BITS,
    ANNOUNCE_DECISION,
    ELIMINATED_STICKS,
    KEY_VALUE_SHIFT,
    KIND_NAMES,
    MAX_PLAYERS,
    MAX_RESERVE,
    MAX_STICKS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_RANKS,
    OUTCOMES,
    OVER,
    PASS,
    RANK_BITS,
    SWAP_ALL,
    TRIPLES,
    parse_deck,
)
from .rules import POINTS as _RULES_POINTS

# The vocabulary and the rules' constants come from vocabulary.py and rules.py (imported above);
# numba reads module-level ints and arrays as compile-time constants, so the tables below are
# those facts as int64 arrays, not a second copy of them.
ANNOUNCED, ALL_PASSED, RESERVE_EMPTY = (
    OUTCOMES.index(name) for name in ("announced", "all_passed", "reserve_empty")
)
TRUNCATED = len(OUTCOMES)  # the batched engine's own outcome: max_turns reached
OUTCOME_NAMES = (*OUTCOMES, "truncated")

# --- columns of the int64 state table ``st`` (one row per game) ---
DEALER, TO_ACT, PHASE, PASSES, ANNOUNCER, FINAL_LEFT, TURNS, TOP, CENTRE, WASHED, OUTCOME = range(
    11
)
NUM_FIELDS = 11
# --- columns of the final-result table ``fin`` ---
F_OUTCOME, F_DEALER, F_TURNS, F_ANNOUNCER, F_NEXT_DEALER = range(5)
NUM_FIN = 5

# --- observation pieces, in the order of observation.observation_layout ---
PIECES = (
    "hand", "centre", "washed", "known", "reserve_count", "reserve_low", "sticks", "eliminated",
    "dealer", "to_act", "announced", "announcer", "final_turn_pending", "passes",
    "pass_ends_round", "turns", "phase", "hand_value", "hand_kind",
)  # fmt: skip
(
    O_HAND, O_CENTRE, O_WASHED, O_KNOWN, O_RESERVE_COUNT, O_RESERVE_LOW, O_STICKS, O_ELIMINATED,
    O_DEALER, O_TO_ACT, O_ANNOUNCED, O_ANNOUNCER, O_FINAL, O_PASSES, O_PASS_ENDS, O_TURNS,
    O_PHASE, O_HAND_VALUE, O_HAND_KIND,
) = range(len(PIECES))  # fmt: skip

POINTS = np.array(_RULES_POINTS, dtype=np.int64)
PASSES_SCALE = float(_OBS_MAX_PLAYERS)


# --- three-card masks (rules.py §2 / Triple) ---------------------------------------------------


# --- the round (rules.py TriPalkiRound) ---------------------------------------------------------


@njit(cache=True)
def _wash(st: np.ndarray, deck: np.ndarray, i: int) -> bool:
    while one_suit(st[i, CENTRE]):
        top = st[i, TOP]
        if NUM_CARDS - top < 3:
            return False
        st[i, WASHED] |= st[i, CENTRE]
        st[i, CENTRE] = (1 << deck[i, top]) | (1 << deck[i, top + 1]) | (1 << deck[i, top + 2])
        st[i, TOP] = top + 3
    return True


@njit(cache=True)
def _deal(st: np.ndarray, hands: np.ndarray, known: np.ndarray, deck: np.ndarray, i: int) -> bool:
    """Deal ``deck[i]`` from ``st[i, DEALER]`` (§3, §4); ``True`` if the round ends at once."""
    n = hands.shape[1]
    dealer = st[i, DEALER]
    for seat in range(n):
        hands[i, seat] = 0
        known[i, seat] = 0
    centre = 0
    position = 0
    for _ in range(3):
        for k in range(1, n + 1):
            hands[i, (dealer + k) % n] |= 1 << deck[i, position]
            position += 1
        centre |= 1 << deck[i, position]
        position += 1
    st[i, CENTRE] = centre
    st[i, WASHED] = 0
    st[i, TOP] = position
    st[i, TO_ACT] = dealer
    st[i, PHASE] = ACTION
    st[i, PASSES] = 0
    st[i, ANNOUNCER] = -1
    st[i, FINAL_LEFT] = 0
    st[i, TURNS] = 0
    st[i, OUTCOME] = -1
    if one_suit(centre) and not _wash(st, deck, i):
        _finish(st, i, RESERVE_EMPTY)
        return True
    return False


@njit(cache=True)
def _finish(st: np.ndarray, i: int, outcome: int) -> None:
    st[i, OUTCOME] = outcome
    st[i, PHASE] = OVER
    st[i, TO_ACT] = -1


@njit(cache=True)
def _end_turn(st: np.ndarray, i: int, n: int, seat: int, announced_now: bool) -> None:
    st[i, TURNS] += 1
    st[i, PHASE] = ACTION
    if st[i, ANNOUNCER] >= 0 and not announced_now:
        st[i, FINAL_LEFT] -= 1
        if st[i, FINAL_LEFT] <= 0:
            _finish(st, i, ANNOUNCED)
            return
    st[i, TO_ACT] = (seat + 1) % n


@njit(cache=True)
def _apply(
    st: np.ndarray, hands: np.ndarray, known: np.ndarray, deck: np.ndarray, i: int, action: int
) -> None:
    """Apply a legal action of the seat to act in game ``i`` (rules.py ``TriPalkiRound.apply``)."""
    n = hands.shape[1]
    seat = st[i, TO_ACT]
    if st[i, PHASE] == ANNOUNCE_DECISION:
        if action == ANNOUNCE:
            st[i, ANNOUNCER] = seat
            st[i, FINAL_LEFT] = n - 1
            _end_turn(st, i, n, seat, True)
        else:
            _end_turn(st, i, n, seat, False)
        return
    if action == PASS:
        st[i, PASSES] += 1
        if st[i, ANNOUNCER] < 0 and st[i, PASSES] >= n:
            _finish(st, i, ALL_PASSED)
            return
    else:
        st[i, PASSES] = 0
        hand = hands[i, seat]
        centre = st[i, CENTRE]
        new_hand, new_centre, gave, took = swap(hand, centre, action)
        hands[i, seat] = new_hand
        st[i, CENTRE] = new_centre
        known[i, seat] = (known[i, seat] & ~gave) | took
        if one_suit(st[i, CENTRE]):
            if not _wash(st, deck, i):
                _finish(st, i, RESERVE_EMPTY)
            return  # §4: the same player acts again after the replacement
    if st[i, ANNOUNCER] < 0 and may_announce(hands[i, seat]):
        st[i, PHASE] = ANNOUNCE_DECISION
        return
    _end_turn(st, i, n, seat, False)


@njit(cache=True)
def _settle(
    st: np.ndarray,
    hands: np.ndarray,
    sticks: np.ndarray,
    i: int,
    rewards: np.ndarray,
    fin: np.ndarray,
    fin_hands: np.ndarray,
    fin_sticks: np.ndarray,
    fin_stick: np.ndarray,
) -> None:
    """Sticks and the next dealer (rules.py ``settle``, every seat alive), into row ``i`` of the
    result tables; ``rewards[i]`` gets −1 per stick."""
    n = hands.shape[1]
    receivers, high_seat = stick_receivers(hands[i])
    for seat in range(n):
        fin_hands[i, seat] = hands[i, seat]
        receives = (receivers >> seat) & 1 == 1
        fin_stick[i, seat] = receives
        count = sticks[i, seat]
        if receives:
            rewards[i, seat] -= 1.0
            count = ELIMINATED_STICKS if count >= MAX_STICKS else count + 1
        fin_sticks[i, seat] = count
    next_dealer = st[i, DEALER]
    if high_seat >= 0:
        next_dealer = high_seat
        while fin_sticks[i, next_dealer] >= ELIMINATED_STICKS:
            next_dealer = (next_dealer + 1) % n
    _record(st, i, st[i, OUTCOME], next_dealer, fin)


@njit(cache=True)
def _record(st: np.ndarray, i: int, outcome: int, next_dealer: int, fin: np.ndarray) -> None:
    fin[i, F_OUTCOME] = outcome
    fin[i, F_DEALER] = st[i, DEALER]
    fin[i, F_TURNS] = st[i, TURNS]
    fin[i, F_ANNOUNCER] = st[i, ANNOUNCER]
    fin[i, F_NEXT_DEALER] = next_dealer


@njit(cache=True)
def _new_random_round(
    st: np.ndarray,
    hands: np.ndarray,
    known: np.ndarray,
    sticks: np.ndarray,
    deck: np.ndarray,
    rng: np.ndarray,
    i: int,
) -> bool:
    """A fresh round-mode episode for game ``i``: random dealer, shuffled deck, no sticks."""
    n = hands.shape[1]
    st[i, DEALER] = rng_below(rng, i, n)
    for c in range(NUM_CARDS):
        deck[i, c] = c
    rng_shuffle(rng, i, deck[i])
    for seat in range(n):
        sticks[i, seat] = 0
    return _deal(st, hands, known, deck, i)


# --- observations (observation.py ``encode`` for the seat to act) -----------------------------


@njit(cache=True)
def _put_cards(obs: np.ndarray, i: int, start: int, mask: int) -> None:
    for s in range(4):
        ranks = (mask >> (NUM_RANKS * s)) & RANK_BITS
        while ranks:
            obs[i, start + NUM_RANKS * s + LOW_BIT[ranks]] = 1.0
            ranks &= ranks - 1


@njit(cache=True)
def _observe(
    st: np.ndarray,
    hands: np.ndarray,
    known: np.ndarray,
    sticks: np.ndarray,
    i: int,
    off: np.ndarray,
    max_turns: int,
    obs: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
) -> None:
    """Row ``i`` of ``obs``/``mask``/``player`` for the seat to act (never ``OVER`` here)."""
    n = hands.shape[1]
    me = st[i, TO_ACT]
    phase = st[i, PHASE]
    obs[i, :] = 0.0
    _put_cards(obs, i, off[O_HAND], hands[i, me])
    _put_cards(obs, i, off[O_CENTRE], st[i, CENTRE])
    _put_cards(obs, i, off[O_WASHED], st[i, WASHED])
    for r in range(n):
        seat = (me + r) % n
        _put_cards(obs, i, off[O_KNOWN] + NUM_CARDS * r, known[i, seat])
        count = sticks[i, seat]
        if count >= ELIMINATED_STICKS:
            obs[i, off[O_ELIMINATED] + r] = 1.0
        else:
            obs[i, off[O_STICKS] + 4 * r + count] = 1.0
    reserve = NUM_CARDS - st[i, TOP]
    obs[i, off[O_RESERVE_COUNT]] = reserve / MAX_RESERVE
    if reserve < 3:
        obs[i, off[O_RESERVE_LOW]] = 1.0
    obs[i, off[O_DEALER] + (st[i, DEALER] - me) % n] = 1.0
    obs[i, off[O_TO_ACT]] = 1.0
    announcer = st[i, ANNOUNCER]
    if announcer >= 0:
        obs[i, off[O_ANNOUNCED]] = 1.0
        obs[i, off[O_ANNOUNCER] + (announcer - me) % n] = 1.0
        for k in range(st[i, FINAL_LEFT]):
            obs[i, off[O_FINAL] + k % n] = 1.0
    else:
        if st[i, PASSES] == n - 1:
            obs[i, off[O_PASS_ENDS]] = 1.0
        obs[i, off[O_PASSES]] = st[i, PASSES] / PASSES_SCALE
    obs[i, off[O_PHASE] + phase] = 1.0
    obs[i, off[O_TURNS]] = min(1.0, st[i, TURNS] / min(max_turns, TURNS_HORIZON))
    hand = hands[i, me]
    obs[i, off[O_HAND_VALUE]] = (hand_key(hand) >> KEY_VALUE_SHIFT) / VALUE_SCALE
    obs[i, off[O_HAND_KIND] + hand_kind(hand)] = 1.0
    legal = ANNOUNCE_BITS if phase == ANNOUNCE_DECISION else ACTION_BITS
    for a in range(NUM_ACTIONS):
        mask[i, a] = (legal >> a) & 1
    player[i] = me


# --- the batch kernels ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _step_range(
    lo, hi, actions, st, hands, known, sticks, deck, rng, off, max_turns,
    obs, mask, player, rewards, terminated, truncated, fin, fin_hands, fin_sticks, fin_stick,
    instant, active,
) -> None:  # fmt: skip
    """Step games ``lo .. hi-1`` where ``active`` (one loop body: calls with many arrays cost
    more than the work)."""
    n = hands.shape[1]
    for i in range(lo, hi):
        for seat in range(n):
            rewards[i, seat] = 0.0
        terminated[i] = False
        truncated[i] = False
        instant[i] = False
        if not active[i]:
            continue
        _apply(st, hands, known, deck, i, actions[i])
        if st[i, PHASE] == OVER:
            _settle(st, hands, sticks, i, rewards, fin, fin_hands, fin_sticks, fin_stick)
            terminated[i] = True
        elif st[i, TURNS] >= max_turns:  # api.md: truncated for everyone, no sticks given
            for seat in range(n):
                fin_hands[i, seat] = hands[i, seat]
                fin_sticks[i, seat] = sticks[i, seat]
                fin_stick[i, seat] = False
            _record(st, i, TRUNCATED, -1, fin)
            truncated[i] = True
        if terminated[i] or truncated[i]:
            instant[i] = _new_random_round(st, hands, known, sticks, deck, rng, i)
        if not instant[i]:
            _observe(st, hands, known, sticks, i, off, max_turns, obs, mask, player)


@njit(cache=True)
def _start_games(
    games, random, st, hands, known, sticks, deck, rng, off, max_turns,
    obs, mask, player, rewards, fin, fin_hands, fin_sticks, fin_stick, instant,
) -> None:  # fmt: skip
    """Deal a round in each game of ``games`` (a random one where ``random[k]``, else the deck and
    dealer already in the state); instant rounds are settled into the result tables."""
    for k in range(games.shape[0]):
        i = games[k]
        if random[k]:
            ended = _new_random_round(st, hands, known, sticks, deck, rng, i)
        else:
            ended = _deal(st, hands, known, deck, i)
        instant[i] = ended
        if ended:
            for seat in range(hands.shape[1]):
                rewards[i, seat] = 0.0
            _settle(st, hands, sticks, i, rewards, fin, fin_hands, fin_sticks, fin_stick)
        else:
            _observe(st, hands, known, sticks, i, off, max_turns, obs, mask, player)


class InstantRound(NamedTuple):
    """A round that ended at its deal, before anyone acted (reported, then dealt again)."""

    game: int
    rewards: np.ndarray  # float32 per seat
    infos: dict[str, dict[str, Any]]  # {agent: final info}, as the AEC env gives them
    options: dict[str, Any]  # AEC reset options that deal this round


class TriPalkiVectorEnv(VectorEnvBase):
    """``num_envs`` Tri Palki rounds in compiled code; see the module docstring."""

    num_actions = NUM_ACTIONS
    option_keys = ("deals", "dealers", "sticks")

    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        episode: str = "round",
        reward: str = "sticks",
        max_turns: int = 1000,
        render_mode: str | None = None,
    ):
        self.num_envs = check_num_envs(num_envs)
        if (
            isinstance(num_players, (bool, np.bool_))
            or not isinstance(num_players, (int, np.integer))
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS
        ):
            raise ValueError(
                f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                f"got {num_players!r}"
            )
        if episode != "round":
            raise ValueError(
                f"the batched Tri Palki engine supports episode='round' only, got {episode!r}"
            )
        if reward != "sticks":
            raise ValueError(
                f"the batched Tri Palki engine supports reward='sticks' only, got {reward!r}"
            )
        if (
            isinstance(max_turns, (bool, np.bool_))
            or not isinstance(max_turns, (int, np.integer))
            or max_turns < 1
        ):
            raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
        if render_mode is not None:
            raise ValueError("the batched Tri Palki engine does not render; use render_mode=None")
        n = self.num_players = int(num_players)
        self.max_turns = int(max_turns)
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.obs_dim = observation_size(n)
        offsets = observation_offsets(n)
        names = [name for name, _, _ in observation_layout(n)]
        if names != list(PIECES):
            raise RuntimeError("tri_palki observation layout changed: update batched.PIECES")
        self._off = np.array([offsets[name] for name in PIECES], dtype=np.int64)
        N = self.num_envs
        self._st = np.zeros((N, NUM_FIELDS), dtype=np.int64)
        self._hands = np.zeros((N, n), dtype=np.int64)
        self._known = np.zeros((N, n), dtype=np.int64)
        self._sticks = np.zeros((N, n), dtype=np.int64)
        self._deck = np.zeros((N, NUM_CARDS), dtype=np.int8)
        self._rng = seed_states(None, N)
        self._fin = np.zeros((N, NUM_FIN), dtype=np.int64)
        self._fin_hands = np.zeros((N, n), dtype=np.int64)
        self._fin_sticks = np.zeros((N, n), dtype=np.int64)
        self._fin_stick = np.zeros((N, n), dtype=np.bool_)
        self._instant = np.zeros(N, dtype=np.bool_)
        self._setup_outputs()
        self.instant_rounds: list[InstantRound] = []
        """Rounds that ended before anyone acted, in the last ``reset``/``step`` call."""

    # --- public API ---------------------------------------------------------------------------

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game; see the module docstring for ``options``."""
        plan = self._parse_options(options)
        self._rng = seed_states(seed, self.num_envs)
        N, n = self.num_envs, self.num_players
        random = np.ones(N, dtype=np.bool_)
        for i in range(N):
            deck, dealer, sticks = plan["deals"][i], plan["dealers"][i], plan["sticks"][i]
            if deck is None and dealer is None and sticks is None:
                continue
            random[i] = False
            self._st[i, DEALER] = rng_below_py(self._rng, i, n) if dealer is None else dealer
            self._deck[i] = shuffled_py(self._rng, i) if deck is None else deck
            self._sticks[i] = 0 if sticks is None else sticks
        self.instant_rounds = []
        self._start(np.arange(N, dtype=np.int64), random)
        self._has_reset = True
        return self._obs, self._mask, self._player

    def step(self, actions: Any, where: Any = None) -> StepResult:
        """Apply one action in every game (or only where ``where`` is True; the other games
        are left as they are, with no reward); see the module docstring."""
        acts, active = self._checked_actions(actions, where)
        announce = self._st[:, PHASE] == ANNOUNCE_DECISION
        illegal = np.where(announce, acts < ANNOUNCE, acts > SWAP_ALL) & active
        if illegal.any():
            i = int(np.argmax(illegal))
            raise ValueError(
                f"game {i}: illegal action {int(acts[i])} for player_{int(self._st[i, TO_ACT])}; "
                f"legal are {np.flatnonzero(self._mask[i]).tolist()}"
            )
        run_in_chunks(
            _step_range, self.num_envs, acts, self._st, self._hands, self._known, self._sticks,
            self._deck, self._rng, self._off, self.max_turns, self._obs, self._mask, self._player,
            self._rewards, self._terminated, self._truncated, self._fin, self._fin_hands,
            self._fin_sticks, self._fin_stick, self._instant, active,
        )  # fmt: skip
        finished = np.flatnonzero(self._terminated | self._truncated)
        infos = self._final_infos(finished)
        self.instant_rounds = []
        if self._instant.any():  # their new round ended at the deal: settle it, deal again
            pending = np.flatnonzero(self._instant)
            self._start(pending, np.zeros(pending.size, dtype=np.bool_), keep_rewards=True)
        return self._outputs(infos)

    def deal_options(self, game: int) -> dict[str, Any]:
        """AEC ``reset`` options (``dealer``, ``deck``, ``sticks``) that deal game ``game``'s
        current round: ``tri_palki_v0.raw_env(...).reset(options=vec.deal_options(i))``."""
        i = int(game)
        return {
            "dealer": int(self._st[i, DEALER]),
            "deck": [int(c) for c in self._deck[i]],
            "sticks": [int(s) for s in self._sticks[i]],
        }

    def _state_arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self._st, self._hands, self._known, self._sticks, self._deck, self._rng, self._fin,
            self._fin_hands, self._fin_sticks, self._fin_stick, self._instant,
        )  # fmt: skip

    # --- internals ----------------------------------------------------------------------------

    def _start(self, games: np.ndarray, random: np.ndarray, keep_rewards: bool = False) -> None:
        """Deal in ``games``; settle, report and redeal rounds that end before anyone acts."""
        rewards = np.zeros_like(self._rewards)
        while games.size:
            _start_games(
                games, random, self._st, self._hands, self._known, self._sticks, self._deck,
                self._rng, self._off, self.max_turns, self._obs, self._mask, self._player,
                rewards, self._fin, self._fin_hands, self._fin_sticks, self._fin_stick,
                self._instant,
            )  # fmt: skip
            ended = games[self._instant[games]]
            for i in ended:
                info = self._info_from(self._snapshot(np.array([i])), 0)
                self.instant_rounds.append(
                    InstantRound(int(i), rewards[i].copy(), info, self.deal_options(i))
                )
            games = ended
            random = np.ones(games.size, dtype=np.bool_)
        if not keep_rewards:
            self._rewards[:] = 0.0

    def _snapshot(self, games: np.ndarray) -> tuple[np.ndarray, ...]:
        return (
            self._fin[games].copy(),
            self._fin_hands[games].copy(),
            self._fin_sticks[games].copy(),
            self._fin_stick[games].copy(),
        )

    def _final_infos(self, finished: np.ndarray) -> FinalInfos:
        if not finished.size:
            return FinalInfos(finished, lambda k: {})
        snap = self._snapshot(finished)
        return FinalInfos(finished, lambda k: self._info_from(snap, k))

    def _info_from(self, snap: tuple[np.ndarray, ...], k: int) -> dict[str, dict[str, Any]]:
        fin, fin_hands, fin_sticks, fin_stick = snap
        names = self.possible_agents
        outcome = int(fin[k, F_OUTCOME])
        announcer = int(fin[k, F_ANNOUNCER])
        infos: dict[str, dict[str, Any]] = {}
        for seat, agent in enumerate(names):
            triple = TRIPLES[int(fin_hands[k, seat])]
            stick = bool(fin_stick[k, seat])
            sticks = int(fin_sticks[k, seat])
            info: dict[str, Any] = {
                "hand_value": triple.value,
                "hand_kind": KIND_NAMES[triple.kind],
                "stick": stick,
                "sticks": sticks,
                "eliminated": stick and sticks == ELIMINATED_STICKS,
                "outcome": OUTCOME_NAMES[outcome],
                "hand": [TRI_PALKI_CARDS.name(c) for c in triple.cards],
                "dealer": names[int(fin[k, F_DEALER])],
                "round": 0,
                "turns": int(fin[k, F_TURNS]),
                "announcer": names[announcer] if announcer >= 0 else None,
            }
            if outcome != TRUNCATED:
                info["next_dealer"] = names[int(fin[k, F_NEXT_DEALER])]
            infos[agent] = info
        return infos

    def _parse_entry(self, key: str, entry: Any) -> Any:
        n = self.num_players
        if key == "deals":
            return np.array(parse_deck(entry), dtype=np.int8)
        if key == "dealers":
            return seat_option(entry, n)
        if (
            isinstance(entry, (str, bytes, dict))
            or not hasattr(entry, "__len__")
            or len(entry) != n
        ):
            raise ValueError(f"sticks must be a list of {n} integers, got {entry!r}")
        for seat, value in enumerate(entry):
            if (
                isinstance(value, (bool, np.bool_))
                or not isinstance(value, (int, np.integer))
                or not 0 <= value <= MAX_STICKS
            ):
                raise ValueError(
                    f"sticks: player_{seat} has {value!r}; sticks are integers from 0 to {MAX_STICKS}"
                )
        return np.array(entry, dtype=np.int64)


@njit(cache=True)
def _draw_dealer(rng: np.ndarray, i: int, n: int) -> int:
    return rng_below(rng, i, n)


@njit(cache=True)
def _draw_deck(rng: np.ndarray, i: int, deck: np.ndarray) -> None:
    for c in range(NUM_CARDS):
        deck[c] = c
    rng_shuffle(rng, i, deck)


def rng_below_py(rng: np.ndarray, i: int, bound: int) -> int:
    return int(_draw_dealer(rng, i, bound))


def shuffled_py(rng: np.ndarray, i: int) -> np.ndarray:
    deck = np.empty(NUM_CARDS, dtype=np.int8)
    _draw_deck(rng, i, deck)
    return deck


def vector_env(num_envs: int, num_players: int = 4, **options: Any) -> TriPalkiVectorEnv:
    """``num_envs`` Tri Palki rounds stepped together; see :mod:`folkcards.envs.tri_palki.batched`."""
    return TriPalkiVectorEnv(num_envs, num_players=num_players, **options)


__all__ = [
    "InstantRound",
    "TriPalkiVectorEnv",
    "vector_env",
    "random_legal_actions",
    "seed_states",
]

_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
