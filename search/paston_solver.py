"""Open-hand (double-dummy) solver for the Paston card play.

All hands are visible. The declarer maximises their number of tricks, the defenders (one or two)
jointly minimise it. Rules (``docs/rules/paston.md`` §5-§6): follow suit if able, else trump if
able, else any card; the highest trump wins, else the highest card of the led suit; the winner
leads. With a sole defender only the declarer and that defender play, alternating; the passer's
cards are out of play.

Public API
----------
``Position(hands, trump, declarer, active=None, leader=None, trick=(), declarer_tricks=0)``
    A play-phase position. ``hands``: three hands (int bitmasks over card ids ``8 * suit + rank``,
    or lists of card ids / strings like ``"10H"``) holding the cards not yet played; ``trump``: a
    suit 0..3 (or ``"S" "C" "D" "H"``, or a contract name such as ``"best_spades"``);
    ``active``: the seats that play (all three, or the declarer and a sole defender);
    ``leader``: the seat that led (or is to lead) the current trick (default the declarer);
    ``trick``: the cards already played to the current trick, in order from the leader, either
    as cards (with ``leader``) or as ``(seat, card)`` pairs as in ``PastonDeal.trick`` and a
    sampled world's ``trick`` (the leader is then the first pair's seat; ``position.trick_pairs``
    gives them back); a passer's hand may be ``None`` (or ``hands`` a ``{seat: hand}`` dict of
    the seats that play);
    ``declarer_tricks``: tricks the declarer has already won. Bad input raises ``ValueError``.
``Position.from_deal(deal)``
    From any play-phase :class:`~folkcards.envs.paston.rules.PastonDeal` (for example
    ``env.unwrapped.state_deal()``).
``Position.first_lead(hands, trump, declarer, defenders)``
    A full deal before the first lead: ten cards in each playing hand (discards removed), the
    contract's trump and the seats that said whist (one or two). The declarer leads.
``position.play(card) -> Position``, ``position.to_act``, ``position.tricks_left``,
``legal_cards(position)``
    Step a position by one legal card; the seat to play; tricks not yet completed; legal cards.
``solve(position) -> int``
    The declarer's total tricks in the deal (already won plus still to win) under optimal play.
``move_values(position) -> dict[int, int]``
    For every legal card of the seat to act: the declarer's total tricks after that card, with
    optimal play afterwards (``{}`` once all ten tricks are played).
``best_moves(position) -> list[int]``
    The legal cards that reach the optimum for the seat to act.
``can_make(position, target) -> bool``
    The target query: can the declarer take at least ``target`` tricks in total? One
    zero-window search (what ``solve`` runs several of).
``solve_many(positions) -> np.ndarray``, ``move_values_many(positions) -> list[dict]``
    The batch calls: ``solve`` / ``move_values`` of each position of a sequence (for example
    ``[w.solver_position() for w in worlds]``), equal to the single calls.
``Position(..., declarer=seat, leader=declarer)`` for a defender's own objective
    The solver maximises the tricks of its ``declarer`` seat against the other active seats
    together; to value a defender's own tricks, pass that defender as ``declarer`` and the real
    declarer as ``leader`` (the "paranoid" guarantee of :mod:`folkcards.envs.paston_bidding`).
``PastonSolver(tt_bits=18)``
    The same three functions as methods, with a transposition table of ``2**tt_bits`` entries
    (24 bytes each: 6 MB by default, ample, as 2**16 gives the same node counts) kept by the
    object; ``solver.nodes`` counts the search nodes of the last call. The module functions
    share one default solver. Each top-level call starts from an empty
    table (a generation counter, no clearing), so results and timings do not depend on earlier
    calls. A solver object is not thread-safe; the kernels release the GIL, so separate solver
    objects in separate threads run in parallel.

Example::

    from folkcards.search.paston_solver import Position, solve, move_values

    position = Position.first_lead(
        ["7S 8S 9S 10S JS QS KS AS AC AD", "7C 8C 9C 10C JC 7D 8D 9D 10D JD",
         "QC KC QD KD 7H 8H 9H 10H JH QH"], trump="S", declarer=0, defenders=[1, 2])
    solve(position)                                        # 10
    Position.from_deal(env.unwrapped.state_deal())         # any play-phase engine state

Algorithm
---------
Zero-window searches ("can the declarer still win at least ``t`` tricks?", as in Haglund's DDS),
iterated over ``t`` by bisection, over an alpha-beta tree of single cards, compiled with numba
(``@njit(cache=True)``, iterative with an explicit stack of plies, all state in two int64
arrays). At trick boundaries a transposition table keyed on the *relative* ranks of the
remaining cards (cards played in earlier tricks close the gaps) stores a lower and an upper
bound on the declarer's remaining tricks and the best lead; positions that differ only in which
cards were already played share an entry. Only one card of each run of rank-equivalent cards is
searched (cards of one hand adjacent among the cards still in play, the current trick's cards
counting as in play). Moves are ordered by the table's best move, then cheap heuristics (cash
sure winners, lead to partner's winner or ruff, win as cheaply as possible, else play low). Two
bounds cut a node at once: quick tricks (the side on lead cashes its top trumps, then top cards
of side suits while every possible ruffer must follow) and master trumps (each of the highest
trumps in a row in one hand wins a trick, whoever leads). ``move_values`` solves the position
first, then steps each card's value from there (a declarer's card is worth at most the value, a
defender's at least).

Cost. The first call in a fresh environment compiles the kernels: about 15 s of CPU (a minute of
wall time on a busy 2-core machine); later processes load numba's disk cache in 1-3 s. Then, from
the first lead of random deals (``benchmarks/solver_speed.py``, CPU time of one core): two
defenders ``solve`` median 1.5 ms, 95th percentile 6 ms; ``move_values`` median 3.6 ms, 95th
percentile 14 ms; sole defender well under 1 ms.

``tests/paston/solver_reference.py`` is a plain minimax used as the tests' oracle.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numba import njit

from ..envs.cards import PASTON_CARDS, SUIT_LETTERS, mask_to_cards
from ..envs.compile_notice import install as _announce_compiles
from ..envs.paston.kernels import card_key as _winner_key
from ..envs.paston.kernels import legal_cards as _legal
from ..envs.paston.rules import LEVEL_NAMES, LEVEL_TRUMP, PLAY, trick_winner

__all__ = [
    "Position",
    "PastonSolver",
    "solve",
    "move_values",
    "best_moves",
    "legal_cards",
    "can_make",
    "solve_many",
    "move_values_many",
    "load_kernels",
]

NUM_SEATS = 3
NUM_TRICKS = 10
_SUIT_MASK = 0xFF


# --------------------------------------------------------------------------------------------
# Positions
# --------------------------------------------------------------------------------------------


def _parse_hand(hand: Any, what: str) -> int:
    if isinstance(hand, (int, np.integer)) and not isinstance(hand, bool):
        value = int(hand)
        if not 0 <= value < 1 << 32:
            raise ValueError(f"{what} bitmask {value} is outside the 32 cards (0 <= mask < 2**32)")
        return value
    if isinstance(hand, str):
        hand = hand.split()
    cards = PASTON_CARDS.parse_cards(hand, what)
    return sum(1 << card for card in cards)


def _parse_trump(trump: Any) -> int:
    if isinstance(trump, (int, np.integer)) and not isinstance(trump, bool):
        if 0 <= int(trump) < 4:
            return int(trump)
    elif isinstance(trump, str):
        key = trump.strip().lower().replace(" ", "_")
        if key.upper() in SUIT_LETTERS and len(key) == 1:
            return SUIT_LETTERS.index(key.upper())
        if key in LEVEL_NAMES:
            return LEVEL_TRUMP[LEVEL_NAMES.index(key)]
    raise ValueError(
        f"trump must be a suit 0..3, one of S/C/D/H or a contract name {LEVEL_NAMES}, got {trump!r}"
    )


def _parse_seat(seat: Any, what: str) -> int:
    if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < 3:
        return int(seat)
    raise ValueError(f"{what} must be a seat 0, 1 or 2, got {seat!r}")


def _suit_of(card: int) -> int:
    return card >> 3


class Position:
    """A Paston play-phase position with every hand visible (see the module docstring)."""

    __slots__ = ("hands", "trump", "declarer", "active", "leader", "trick", "declarer_tricks")

    def __init__(
        self,
        hands: Sequence[Any],
        trump: Any,
        declarer: int,
        active: Iterable[int] | None = None,
        leader: int | None = None,
        trick: Iterable[Any] = (),
        declarer_tricks: int = 0,
    ):
        if isinstance(hands, dict):  # {seat: hand} for the seats that play
            unknown = [seat for seat in hands if seat not in range(NUM_SEATS)]
            if unknown:
                raise ValueError(f"hands keys must be seats 0, 1 or 2, got {unknown}")
            hands = [hands.get(seat) for seat in range(NUM_SEATS)]
        if isinstance(hands, (str, bytes)) or len(hands) != NUM_SEATS:
            raise ValueError(f"hands must be a sequence of 3 hands, got {hands!r}")
        self.hands: tuple[int, int, int] = tuple(  # type: ignore[assignment]
            0 if hand is None else _parse_hand(hand, f"hand of player_{seat}")
            for seat, hand in enumerate(hands)
        )
        self.trump: int = _parse_trump(trump)
        self.declarer: int = _parse_seat(declarer, "declarer")
        if active is None:
            active = range(NUM_SEATS)
        active_list = [_parse_seat(seat, "an active seat") for seat in active]
        if len(set(active_list)) != len(active_list) or len(active_list) not in (2, 3):
            raise ValueError(f"active must be 2 or 3 distinct seats, got {active_list}")
        if self.declarer not in active_list:
            raise ValueError(f"the declarer player_{self.declarer} must be an active seat")
        self.active: tuple[int, ...] = tuple(sorted(active_list))
        self.leader: int = self.declarer if leader is None else _parse_seat(leader, "leader")
        if isinstance(trick, str):
            trick = trick.split()
        trick = list(trick)
        if trick and all(isinstance(item, (tuple, list)) for item in trick):
            # (seat, card) pairs, as in PastonDeal.trick and a sampled world's trick
            if any(len(item) != 2 for item in trick):
                raise ValueError(f"trick entries must be (seat, card) pairs, got {trick!r}")
            first = _parse_seat(trick[0][0], "the trick's first seat")
            if leader is not None and _parse_seat(leader, "leader") != first:
                raise ValueError(
                    f"leader={leader!r} but the trick was led by player_{first}; give one or agree"
                )
            self.leader = first
            seats: list[int] | None = [_parse_seat(item[0], "a trick seat") for item in trick]
            trick = [item[1] for item in trick]
        else:
            seats = None
        if self.leader not in self.active:
            raise ValueError(f"the leader player_{self.leader} is not an active seat")
        self.trick: tuple[int, ...] = tuple(PASTON_CARDS.parse_cards(trick, "the current trick"))
        if isinstance(declarer_tricks, bool) or not isinstance(declarer_tricks, (int, np.integer)):
            raise ValueError(f"declarer_tricks must be an int, got {declarer_tricks!r}")
        self.declarer_tricks: int = int(declarer_tricks)
        self._validate()
        if seats is not None and seats != self.play_order()[: len(seats)]:
            raise ValueError(
                f"trick seats {seats} are not the playing order {self.play_order()} from its leader"
            )

    # --- checks ------------------------------------------------------------------------------

    def _validate(self) -> None:
        seen = 0
        for seat, hand in enumerate(self.hands):
            if hand & seen:
                name = PASTON_CARDS.name((hand & seen).bit_length() - 1)
                raise ValueError(f"card {name} is in two hands (player_{seat} and another)")
            seen |= hand
        n_active = len(self.active)
        if len(self.trick) >= n_active:
            raise ValueError(
                f"the current trick holds {len(self.trick)} cards; with {n_active} active seats "
                f"a trick is complete at {n_active} and then cleared"
            )
        for card in self.trick:
            if seen >> card & 1:
                raise ValueError(
                    f"card {PASTON_CARDS.name(card)} is both in a hand and in the trick"
                )
        order = self.play_order()
        played = order[: len(self.trick)]
        waiting = order[len(self.trick) :]
        sizes = {seat: self.hands[seat].bit_count() for seat in self.active}
        if self.trick:
            size = sizes[waiting[0]]
            if any(sizes[s] != size for s in waiting) or any(sizes[s] != size - 1 for s in played):
                raise ValueError(
                    f"hand sizes {self._sizes_text(sizes)} do not fit a trick in progress: seats "
                    f"that played to it must hold one card fewer than the seats still to play"
                )
            left = size
        else:
            left = sizes[self.leader]
            if any(sizes[s] != left for s in self.active):
                raise ValueError(
                    f"the active hands must hold equal numbers of cards at a trick boundary, "
                    f"got {self._sizes_text(sizes)}"
                )
        if left > NUM_TRICKS:
            raise ValueError(f"a hand holds {left} cards, more than the {NUM_TRICKS} tricks")
        if self.trick and left == 0:
            raise ValueError("a trick is in progress but the seats to play hold no cards")
        done = NUM_TRICKS - left
        if not 0 <= self.declarer_tricks <= done:
            raise ValueError(
                f"declarer_tricks={self.declarer_tricks} is impossible after {done} completed "
                f"tricks"
            )
        if self.trick:
            led = _suit_of(self.trick[0])
            for seat, card in zip(played[1:], self.trick[1:], strict=True):
                suit = _suit_of(card)
                hand = self.hands[seat]
                if suit != led and hand >> (8 * led) & _SUIT_MASK:
                    raise ValueError(
                        f"trick inconsistent: player_{seat} played {PASTON_CARDS.name(card)} "
                        f"on a {SUIT_LETTERS[led]} lead while still holding {SUIT_LETTERS[led]}"
                    )
                if suit not in (led, self.trump) and hand >> (8 * self.trump) & _SUIT_MASK:
                    raise ValueError(
                        f"trick inconsistent: player_{seat} discarded {PASTON_CARDS.name(card)} "
                        f"while still holding a trump"
                    )

    @staticmethod
    def _sizes_text(sizes: dict[int, int]) -> str:
        return ", ".join(f"player_{s}: {n}" for s, n in sorted(sizes.items()))

    # --- derived facts -------------------------------------------------------------------------

    def play_order(self) -> list[int]:
        """The active seats in playing order, starting with the leader of the current trick."""
        order = [self.leader]
        while len(order) < len(self.active):
            order.append(self.next_seat(order[-1]))
        return order

    def next_seat(self, seat: int) -> int:
        """The active seat that plays after ``seat`` (clockwise, a passer skipped)."""
        nxt = (seat + 1) % NUM_SEATS
        if nxt not in self.active:
            nxt = (nxt + 1) % NUM_SEATS
        return nxt

    @property
    def to_act(self) -> int:
        """The seat to play the next card."""
        return self.play_order()[len(self.trick)]

    @property
    def sole_defender(self) -> bool:
        return len(self.active) == 2

    @property
    def tricks_left(self) -> int:
        """Tricks not yet completed, the current one included."""
        return self.hands[self.to_act].bit_count()

    def legal_mask(self) -> int:
        """The legal cards of the seat to act, as a bitmask."""
        led = _suit_of(self.trick[0]) if self.trick else -1
        return int(_legal(self.hands[self.to_act], led, self.trump))

    def play(self, card: Any) -> Position:
        """The position after the seat to act plays ``card`` (a legal card)."""
        card = PASTON_CARDS.card_id(card)
        if not self.legal_mask() >> card & 1:
            raise ValueError(
                f"{PASTON_CARDS.name(card)} is not a legal card for player_{self.to_act}"
            )
        seat = self.to_act
        hands = list(self.hands)
        hands[seat] &= ~(1 << card)
        trick = [*self.trick, card]
        if len(trick) < len(self.active):
            return Position(
                hands,
                self.trump,
                self.declarer,
                self.active,
                self.leader,
                trick,
                self.declarer_tricks,
            )
        order = self.play_order()
        winner = trick_winner(list(zip(order, trick, strict=True)), self.trump)
        won = self.declarer_tricks + (winner == self.declarer)
        return Position(hands, self.trump, self.declarer, self.active, winner, (), won)

    @property
    def trick_pairs(self) -> tuple[tuple[int, int], ...]:
        """The current trick as ``(seat, card)`` pairs in playing order."""
        return tuple(zip(self.play_order(), self.trick, strict=False))

    def play_hands(self) -> tuple[int, int, int]:
        """The hands with a passer's cards taken out of play."""
        h0, h1, h2 = (h if s in self.active else 0 for s, h in enumerate(self.hands))
        return h0, h1, h2

    def __repr__(self) -> str:
        hands = [" ".join(PASTON_CARDS.name(c) for c in mask_to_cards(h)) for h in self.hands]
        trick = " ".join(PASTON_CARDS.name(c) for c in self.trick)
        return (
            f"Position(hands={hands}, trump={SUIT_LETTERS[self.trump]!r}, "
            f"declarer={self.declarer}, "
            f"active={self.active}, leader={self.leader}, trick=[{trick}], "
            f"declarer_tricks={self.declarer_tricks})"
        )

    # --- constructors --------------------------------------------------------------------------

    @classmethod
    def from_deal(cls, deal: Any) -> Position:
        """The position of a play-phase engine state (``PastonDeal``; trusted, not re-checked:
        the engine only reaches legal states)."""
        if getattr(deal, "phase", None) != PLAY:
            raise ValueError("from_deal needs a PastonDeal in the play phase")
        trick = deal.trick
        position = object.__new__(cls)
        position.hands = tuple(deal.hands)
        position.trump = deal.trump
        position.declarer = deal.declarer
        position.active = tuple(sorted(deal.active))
        position.leader = trick[0][0] if trick else deal.leader
        position.trick = tuple(card for _, card in trick)
        position.declarer_tricks = deal.tricks[deal.declarer]
        return position

    @classmethod
    def first_lead(
        cls, hands: Sequence[Any], trump: Any, declarer: int, defenders: Iterable[int]
    ) -> Position:
        """A full deal before the first lead: the declarer and the whisting defenders play."""
        declarer = _parse_seat(declarer, "declarer")
        defender_list = [_parse_seat(seat, "a defender") for seat in defenders]
        if (
            not 1 <= len(defender_list) <= 2
            or len(set(defender_list)) != len(defender_list)
            or declarer in defender_list
        ):
            raise ValueError(
                f"defenders must be one or two seats other than the declarer, got {defender_list}"
            )
        if isinstance(hands, (str, bytes)) or len(hands) != NUM_SEATS:
            raise ValueError(f"hands must be a sequence of 3 hands, got {hands!r}")
        for seat in [declarer, *defender_list]:
            count = _parse_hand(hands[seat], f"hand of player_{seat}").bit_count()
            if count != NUM_TRICKS:
                raise ValueError(
                    f"hand of player_{seat} holds {count} cards; a full deal has {NUM_TRICKS}"
                )
        return cls(hands, trump, declarer, active=[declarer, *defender_list])


def legal_cards(position: Position) -> list[int]:
    """The legal cards of the seat to act, ascending."""
    return mask_to_cards(position.legal_mask())


# --------------------------------------------------------------------------------------------
# Compiled kernels
# --------------------------------------------------------------------------------------------

# All search state lives in one int64 workspace ``ws`` and the transposition table in one int64
# array ``tt`` (few array arguments keep numba's per-call overhead low). Layout of ``ws``:
_W_TRUMP, _W_DECL, _W_NACT, _W_NEXT, _W_META, _W_GEN, _W_NODES = 0, 1, 2, 3, 6, 7, 8
_W_HANDS = 10  # three hand masks (a passer's hand is 0)
_MAX_PLY = 40  # one ply per card; the current trick's cards sit at the plies just below a node
_W_PLY = 16  # per-ply fields, each a row of _MAX_PLY values:
_F_NIN, _F_LEADER, _F_TARGET, _F_SEAT, _F_NMOV, _F_MI, _F_CARD = 0, 1, 2, 3, 4, 5, 6
_F_K1, _F_K2, _F_IDX, _F_LO, _F_HI = 7, 8, 9, 10, 11
_F_SIZE = 12
_W_MOVES = _W_PLY + _F_SIZE * _MAX_PLY  # 10 move slots per ply
_W_SCORES = _W_MOVES + 10 * _MAX_PLY
_W_SIZE = _W_SCORES + 10
# ``tt`` entry j: tt[3j] and tt[3j+1] the key, tt[3j+2] = gen << 32 | (best+1) << 16 | hi << 8 | lo


def _tables() -> np.ndarray:
    """pext8[p * 256 + x]: the bits of x at the set positions of p, packed low."""
    p = np.arange(256, dtype=np.int64)[:, None]
    x = np.arange(256, dtype=np.int64)[None, :]
    out = np.zeros((256, 256), dtype=np.int64)
    packed = np.zeros((256, 1), dtype=np.int64)  # set bits of p below position i
    for i in range(8):
        bit = (p >> i) & 1
        out |= (((x >> i) & 1) * bit) << packed
        packed = packed + bit
    return out.astype(np.uint8).ravel()


_PEXT8 = _tables()


@njit(cache=True, inline="always")
def _f(field, p):
    return _W_PLY + field * _MAX_PLY + p


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@njit(cache=True)
def _key(ws, leader):
    """Relative-rank key of a trick-boundary position: (k1, k2)."""
    h0 = ws[_W_HANDS]
    h1 = ws[_W_HANDS + 1]
    h2 = ws[_W_HANDS + 2]
    present = h0 | h1 | h2
    c0 = 0
    c1 = 0
    c2 = 0
    for s in range(4):
        sh = 8 * s
        p = (present >> sh) & 0xFF
        if p == 0:
            continue
        base = p * 256
        c0 |= np.int64(_PEXT8[base + ((h0 >> sh) & 0xFF)]) << sh
        c1 |= np.int64(_PEXT8[base + ((h1 >> sh) & 0xFF)]) << sh
        c2 |= np.int64(_PEXT8[base + ((h2 >> sh) & 0xFF)]) << sh
    return c0 | (c1 << 32), c2 | (leader << 32) | ws[_W_META]


@njit(cache=True, inline="always")
def _slot(k1, k2, mask):
    h = (k1 * -7046029254386353131) ^ (k2 * -4658895280553007687)
    h ^= (h >> 29) & 0x7FFFFFFFF
    return h & mask


@njit(cache=True)
def _probe(tt, k1, k2, idx, gen):
    for probe in range(2):
        j = idx ^ probe
        if tt[3 * j] == k1 and tt[3 * j + 1] == k2 and (tt[3 * j + 2] >> 32) == gen:
            return j
    return -1


@njit(cache=True)
def _representatives(ws, legal, present, base):
    """Write one card (the highest) of each run of ``legal`` cards adjacent among ``present``."""
    n = 0
    for s in range(4):
        sh = 8 * s
        x = (legal >> sh) & 0xFF
        if x == 0:
            continue
        p = (present >> sh) & 0xFF
        in_run = False
        for r in range(7, -1, -1):
            if (p >> r) & 1:
                if (x >> r) & 1:
                    if not in_run:
                        ws[base + n] = sh + r
                        n += 1
                        in_run = True
                else:
                    in_run = False
    return n


@njit(cache=True)
def _order_moves(ws, p, n, n_in, seat, hint):
    """Sort the n moves of ply p by a heuristic score, best first (the hint card first)."""
    trump = ws[_W_TRUMP]
    decl = ws[_W_DECL]
    base = _W_MOVES + 10 * p
    sc = _W_SCORES
    my_side = seat == decl
    present = ws[_W_HANDS] | ws[_W_HANDS + 1] | ws[_W_HANDS + 2]
    opp = 0
    partner = 0
    for other in range(3):
        if other == seat:
            continue
        if (other == decl) != my_side:
            opp |= ws[_W_HANDS + other]
        else:
            partner |= ws[_W_HANDS + other]
    if n_in == 0:
        opp_trumps = (opp >> (8 * trump)) & 0xFF
        part_trumps = (partner >> (8 * trump)) & 0xFF
        for i in range(n):
            c = ws[base + i]
            s = c >> 3
            r = c & 7
            sh = 8 * s
            higher = ((present >> sh) & 0xFF) >> (r + 1)
            opp_suit = (opp >> sh) & 0xFF
            if higher == 0:
                # a top card: a sure winner unless an opponent ruffs
                if s == trump or opp_suit != 0 or opp_trumps == 0:
                    ws[sc + i] = 200 + r
                else:
                    ws[sc + i] = 20 + r
            else:
                part_suit = (partner >> sh) & 0xFF
                if part_suit != 0 and part_suit > (opp_suit | (1 << r)):
                    # partner holds the highest card here: lead low to it
                    ws[sc + i] = 150 - r
                elif part_suit == 0 and opp_suit != 0 and part_trumps != 0 and s != trump:
                    # partner can ruff an opponent's card here
                    ws[sc + i] = 140 - r
                elif opp_suit == 0 and opp_trumps != 0 and s != trump:
                    ws[sc + i] = 10 - r
                else:
                    ws[sc + i] = 100 - r - 2 * _popcount(higher)
    else:
        first = p - n_in
        led = ws[_f(_F_CARD, first)] >> 3
        best_key = -1
        best_seat = 0
        for i in range(first, p):
            k = _winner_key(ws[_f(_F_CARD, i)], led, trump)
            if k > best_key:
                best_key = k
                best_seat = ws[_f(_F_SEAT, i)]
        side_winning = (best_seat == decl) == my_side
        last = n_in == ws[_W_NACT] - 1
        for i in range(n):
            c = ws[base + i]
            r = c & 7
            k = _winner_key(c, led, trump)
            if side_winning or k <= best_key:
                ws[sc + i] = 100 - r
            elif last:
                ws[sc + i] = 200 - k
            else:
                ws[sc + i] = 150 - k
    for i in range(n):
        if ws[base + i] == hint:
            ws[sc + i] = 1000
    # insertion sort, descending score
    for i in range(1, n):
        m = ws[base + i]
        v = ws[sc + i]
        j = i - 1
        while j >= 0 and ws[sc + j] < v:
            ws[base + j + 1] = ws[base + j]
            ws[sc + j + 1] = ws[sc + j]
            j -= 1
        ws[base + j + 1] = m
        ws[sc + j + 1] = v


@njit(cache=True)
def _top_run(mine, present):
    """How many of the highest cards among ``present`` (8-bit suit masks) ``mine`` holds."""
    count = 0
    r = 7
    while r >= 0:
        if (present >> r) & 1:
            if (mine >> r) & 1:
                count += 1
            else:
                break
        r -= 1
    return count


@njit(cache=True)
def _quick_tricks(ws, leader):
    """A lower bound on the tricks the leader's side wins by cashing top cards from the leader.

    First the leader's top trumps t (each wins: nothing beats the highest trump). Then the
    leader's top cards of each side suit, as many rounds as every opponent who may still hold a
    trump (more than t trumps) can follow; a partner who could be forced to ruff limits the count
    to the partner's length too, so that the leader keeps the lead throughout.
    """
    trump = ws[_W_TRUMP]
    present = ws[_W_HANDS] | ws[_W_HANDS + 1] | ws[_W_HANDS + 2]
    mine = ws[_W_HANDS + leader]
    tsh = 8 * trump
    trump_rounds = _top_run((mine >> tsh) & 0xFF, (present >> tsh) & 0xFF)
    q = trump_rounds
    for s in range(4):
        if s == trump:
            continue
        sh = 8 * s
        tops = _top_run((mine >> sh) & 0xFF, (present >> sh) & 0xFF)
        if tops == 0:
            continue
        for other in range(3):
            hand = ws[_W_HANDS + other]
            # a hand that may still hold a trump after the trump rounds must follow every round
            if other != leader and _popcount((hand >> tsh) & 0xFF) > trump_rounds:
                length = _popcount((hand >> sh) & 0xFF)
                if length < tops:
                    tops = length
        q += tops
    return q


@njit(cache=True)
def _master_trumps(ws):
    """(holder, count): the hand holding the highest trump in play and how many of the highest
    trumps in a row it holds. Each of them wins the trick it falls in, whoever leads."""
    tsh = 8 * ws[_W_TRUMP]
    present = ((ws[_W_HANDS] | ws[_W_HANDS + 1] | ws[_W_HANDS + 2]) >> tsh) & 0xFF
    if present == 0:
        return -1, 0
    for seat in range(3):
        mine = (ws[_W_HANDS + seat] >> tsh) & 0xFF
        count = _top_run(mine, present)
        if count > 0:
            return seat, count
    return -1, 0


@njit(cache=True)
def _enter(ws, tt, p):
    """Open the node at ply ``p``: 1 or 0 if decided at once, else -1 with its moves generated."""
    ws[_W_NODES] += 1
    decl = ws[_W_DECL]
    trump = ws[_W_TRUMP]
    n_in = ws[_f(_F_NIN, p)]
    hint_card = -1
    if n_in == 0:
        leader = ws[_f(_F_LEADER, p)]
        target = ws[_f(_F_TARGET, p)]
        if target <= 0:
            return 1
        remaining = _popcount(ws[_W_HANDS + leader])
        if target > remaining:
            return 0
        gen = ws[_W_GEN]
        k1, k2 = _key(ws, leader)
        idx = _slot(k1, k2, tt.shape[0] // 3 - 1)
        found = _probe(tt, k1, k2, idx, gen)
        lo = 0
        hi = remaining
        hint = -1
        if found >= 0:
            info = tt[3 * found + 2]
            lo = info & 0xFF
            hi = (info >> 8) & 0xFF
            if lo >= target:
                return 1
            if hi < target:
                return 0
            hint = ((info >> 16) & 0xFF) - 1
        q = _quick_tricks(ws, leader)
        if leader == decl:
            if q >= target:
                return 1
        elif remaining - q < target:
            return 0
        holder, masters = _master_trumps(ws)
        if holder == decl:
            if masters >= target:
                return 1
        elif holder >= 0 and remaining - masters < target:
            return 0
        ws[_f(_F_K1, p)] = k1
        ws[_f(_F_K2, p)] = k2
        ws[_f(_F_IDX, p)] = idx
        ws[_f(_F_LO, p)] = lo
        ws[_f(_F_HI, p)] = hi
        if hint >= 0:
            # the table keeps the best lead as suit * 8 + rank among the cards in play
            hs = hint >> 3
            hr = hint & 7
            pm = ((ws[_W_HANDS] | ws[_W_HANDS + 1] | ws[_W_HANDS + 2]) >> (8 * hs)) & 0xFF
            cnt = 0
            for r in range(8):
                if (pm >> r) & 1:
                    if cnt == hr:
                        hint_card = 8 * hs + r
                        break
                    cnt += 1
        seat = leader
        led = -1
    else:
        seat = ws[_W_NEXT + ws[_f(_F_SEAT, p - 1)]]
        led = ws[_f(_F_CARD, p - n_in)] >> 3
    ws[_f(_F_SEAT, p)] = seat
    legal = _legal(ws[_W_HANDS + seat], led, trump)
    present = ws[_W_HANDS] | ws[_W_HANDS + 1] | ws[_W_HANDS + 2]
    for i in range(p - n_in, p):
        present |= np.int64(1) << ws[_f(_F_CARD, i)]
    n = _representatives(ws, legal, present, _W_MOVES + 10 * p)
    if n > 1:
        _order_moves(ws, p, n, n_in, seat, hint_card)
    ws[_f(_F_NMOV, p)] = n
    ws[_f(_F_MI, p)] = 0
    return -1


@njit(cache=True)
def _store(ws, tt, p, result, best):
    """Record a trick-boundary node's result (a bound on the declarer's remaining tricks)."""
    gen = ws[_W_GEN]
    k1 = ws[_f(_F_K1, p)]
    k2 = ws[_f(_F_K2, p)]
    idx = ws[_f(_F_IDX, p)]
    target = ws[_f(_F_TARGET, p)]
    lo = ws[_f(_F_LO, p)]
    hi = ws[_f(_F_HI, p)]
    if result:
        if target > lo:
            lo = target
    elif target - 1 < hi:
        hi = target - 1
    # the searches below this node may have moved entries: look the key up again
    found = _probe(tt, k1, k2, idx, gen)
    old_best = -1
    if found >= 0:
        info = tt[3 * found + 2]
        lo = max(lo, info & 0xFF)
        hi = min(hi, (info >> 8) & 0xFF)
        old_best = ((info >> 16) & 0xFF) - 1
    else:
        j0 = idx
        j1 = idx ^ 1
        if (tt[3 * j0 + 2] >> 32) != gen:
            found = j0
        elif (tt[3 * j1 + 2] >> 32) != gen:
            found = j1
        else:
            # keep the entry with more cards in play (the costlier one to recompute)
            d0 = _popcount(tt[3 * j0]) + _popcount(tt[3 * j0 + 1] & 0xFFFFFFFF)
            d1 = _popcount(tt[3 * j1]) + _popcount(tt[3 * j1 + 1] & 0xFFFFFFFF)
            found = j0 if d0 <= d1 else j1
        tt[3 * found] = k1
        tt[3 * found + 1] = k2
    rel = old_best
    if best >= 0:
        bs = best >> 3
        pm = ((ws[_W_HANDS] | ws[_W_HANDS + 1] | ws[_W_HANDS + 2]) >> (8 * bs)) & 0xFF
        rel = 8 * bs + _popcount(pm & ((np.int64(1) << (best & 7)) - 1))
    tt[3 * found + 2] = (gen << 32) | ((rel + 1) << 16) | (hi << 8) | lo


@njit(cache=True)
def _search(ws, tt, p0):
    """Zero-window search from the root node at ply ``p0`` (its fields set in ``ws``): can the
    declarer take at least its target of the remaining tricks, the current one included?"""
    decl = ws[_W_DECL]
    trump = ws[_W_TRUMP]
    nact = ws[_W_NACT]
    p = p0
    ret = _enter(ws, tt, p)
    while True:
        if ret >= 0:
            if p == p0:
                return ret == 1
            p -= 1
            seat = ws[_f(_F_SEAT, p)]
            c = ws[_f(_F_CARD, p)]
            ws[_W_HANDS + seat] ^= np.int64(1) << c
            is_decl = 1 if seat == decl else 0
            if ret == is_decl:
                if ws[_f(_F_NIN, p)] == 0:
                    _store(ws, tt, p, ret == 1, c)
                continue
            ws[_f(_F_MI, p)] += 1
            if ws[_f(_F_MI, p)] == ws[_f(_F_NMOV, p)]:
                ret = 1 - is_decl
                if ws[_f(_F_NIN, p)] == 0:
                    _store(ws, tt, p, ret == 1, -1)
                continue
        # play the next move of the node at ply p
        seat = ws[_f(_F_SEAT, p)]
        c = ws[_W_MOVES + 10 * p + ws[_f(_F_MI, p)]]
        ws[_W_HANDS + seat] ^= np.int64(1) << c
        ws[_f(_F_CARD, p)] = c
        n_in = ws[_f(_F_NIN, p)]
        target = ws[_f(_F_TARGET, p)]
        if n_in + 1 == nact:
            first = p - n_in
            led = ws[_f(_F_CARD, first)] >> 3
            wkey = -1
            w = 0
            for i in range(first, p + 1):
                k = _winner_key(ws[_f(_F_CARD, i)], led, trump)
                if k > wkey:
                    wkey = k
                    w = ws[_f(_F_SEAT, i)]
            ws[_f(_F_NIN, p + 1)] = 0
            ws[_f(_F_LEADER, p + 1)] = w
            ws[_f(_F_TARGET, p + 1)] = target - 1 if w == decl else target
        else:
            ws[_f(_F_NIN, p + 1)] = n_in + 1
            ws[_f(_F_LEADER, p + 1)] = ws[_f(_F_LEADER, p)]
            ws[_f(_F_TARGET, p + 1)] = target
        p += 1
        ret = _enter(ws, tt, p)


@njit(cache=True)
def _solve_future(ws, tt, p0, lo, hi):
    """The declarer's remaining tricks from the node at ply ``p0``, known to lie in [lo, hi]."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        ws[_f(_F_TARGET, p0)] = mid
        if _search(ws, tt, p0):
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True)
def _root(ws, tcards, n_in, leader):
    """Set up the root node at ply ``n_in`` (the current trick's cards at the plies below);
    return the seat to act."""
    seat = leader
    for i in range(n_in):
        ws[_f(_F_CARD, i)] = tcards[i]
        ws[_f(_F_SEAT, i)] = seat
        seat = ws[_W_NEXT + seat]
    ws[_f(_F_NIN, n_in)] = n_in
    ws[_f(_F_LEADER, n_in)] = leader
    ws[_f(_F_SEAT, n_in)] = seat
    return seat


@njit(cache=True, nogil=True)
def _solve_root(ws, tt, tcards, n_in, leader):
    seat = _root(ws, tcards, n_in, leader)
    return _solve_future(ws, tt, n_in, 0, _popcount(ws[_W_HANDS + seat]))


@njit(cache=True, nogil=True)
def _can_make_root(ws, tt, tcards, n_in, leader, target):
    """One zero-window search: can the declarer take at least ``target`` of the remaining
    tricks (the current one included)?"""
    seat = _root(ws, tcards, n_in, leader)
    if target <= 0:
        return True
    if target > _popcount(ws[_W_HANDS + seat]):
        return False
    ws[_f(_F_TARGET, n_in)] = target
    return _search(ws, tt, n_in)


@njit(cache=True, nogil=True)
def _move_values(ws, tt, tcards, n_in, leader, out_cards, out_values):
    """The declarer's remaining tricks after each legal card of the seat to act (every legal
    card; rank-equivalent cards share their run's value). Returns the number of cards.

    The position's value v comes first (it fills the table); a declarer's card is then worth at
    most v and a defender's at least v, so each card's value is found by stepping from v."""
    decl = ws[_W_DECL]
    trump = ws[_W_TRUMP]
    nact = ws[_W_NACT]
    p0 = n_in
    seat = _root(ws, tcards, n_in, leader)
    hand = ws[_W_HANDS + seat]
    remaining = _popcount(hand)
    value = _solve_future(ws, tt, p0, 0, remaining)
    led = tcards[0] >> 3 if n_in > 0 else -1
    legal = _legal(hand, led, trump)
    present = ws[_W_HANDS] | ws[_W_HANDS + 1] | ws[_W_HANDS + 2]
    for i in range(n_in):
        present |= np.int64(1) << tcards[i]
    n_out = 0
    for s in range(4):
        sh = 8 * s
        x = (legal >> sh) & 0xFF
        if x == 0:
            continue
        pm = (present >> sh) & 0xFF
        run_value = -1
        in_run = False
        for r in range(7, -1, -1):
            if not (pm >> r) & 1:
                continue
            if not (x >> r) & 1:
                in_run = False
                continue
            c = sh + r
            if not in_run:
                bit = np.int64(1) << c
                ws[_W_HANDS + seat] ^= bit
                ws[_f(_F_CARD, p0)] = c
                won = 0
                if n_in + 1 == nact:
                    wkey = -1
                    w = 0
                    for i in range(nact):
                        k = _winner_key(ws[_f(_F_CARD, i)], ws[_f(_F_CARD, 0)] >> 3, trump)
                        if k > wkey:
                            wkey = k
                            w = ws[_f(_F_SEAT, i)]
                    ws[_f(_F_NIN, p0 + 1)] = 0
                    ws[_f(_F_LEADER, p0 + 1)] = w
                    won = 1 if w == decl else 0
                else:
                    ws[_f(_F_NIN, p0 + 1)] = n_in + 1
                    ws[_f(_F_LEADER, p0 + 1)] = leader
                # "can the declarer reach t?" for t stepping away from the value
                if seat == decl:
                    run_value = value
                    while run_value > 0:
                        ws[_f(_F_TARGET, p0 + 1)] = run_value - won
                        if _search(ws, tt, p0 + 1):
                            break
                        run_value -= 1
                else:
                    run_value = value
                    while run_value < remaining:
                        ws[_f(_F_TARGET, p0 + 1)] = run_value + 1 - won
                        if not _search(ws, tt, p0 + 1):
                            break
                        run_value += 1
                ws[_W_HANDS + seat] ^= bit
                in_run = True
            out_cards[n_out] = c
            out_values[n_out] = run_value
            n_out += 1
    return n_out


# --------------------------------------------------------------------------------------------
# Python front end
# --------------------------------------------------------------------------------------------


class PastonSolver:
    """An open-hand solver with its own transposition table of ``2**tt_bits`` entries.

    By default every call starts from an empty table. With ``keep_table=True`` the entries of
    earlier calls stay until :meth:`clear_table`: an entry is an exact bound on the tricks still
    to take from a trick-boundary position, keyed by its cards (relative ranks), leader, trump,
    declarer and active seats, so the values are the same and the successive positions of one
    deal solve much faster (the open-hand analysis and pimc keep their tables).
    """

    @staticmethod
    def first_lead(
        hands: Sequence[Any], trump: Any, declarer: int, defenders: Sequence[int]
    ) -> Position:
        """:meth:`Position.first_lead`, for callers that reach the solver as a registry hook."""
        return Position.first_lead(hands, trump, declarer, defenders)

    def __init__(self, tt_bits: int = 18, *, keep_table: bool = False):
        if isinstance(tt_bits, bool) or not isinstance(tt_bits, int) or not 8 <= tt_bits <= 26:
            raise ValueError(f"tt_bits must be an int in 8..26, got {tt_bits!r}")
        self._tt = np.zeros(3 << tt_bits, dtype=np.int64)
        self._ws = np.zeros(_W_SIZE, dtype=np.int64)
        self._gen = 1
        self.keep_table = bool(keep_table)
        self.nodes = 0  # search nodes opened by the last call

    def clear_table(self) -> None:
        """Forget every table entry (a new generation: the old entries no longer match)."""
        self._gen += 1
        if self._gen >= 2**31 - 1:
            self._tt[:] = 0
            self._gen = 1

    def _prepare(self, position: Position) -> np.ndarray:
        """Load the position into the workspace (a fresh table generation unless the solver
        keeps its table); the trick's cards."""
        if not isinstance(position, Position):
            raise ValueError(f"expected a Position, got {type(position).__name__}")
        if not self.keep_table:
            self.clear_table()
        ws = self._ws
        ws[_W_HANDS : _W_HANDS + 3] = position.play_hands()
        ws[_W_TRUMP] = position.trump
        ws[_W_DECL] = position.declarer
        ws[_W_NACT] = len(position.active)
        for seat in range(NUM_SEATS):
            ws[_W_NEXT + seat] = position.next_seat(seat)
        active_bits = sum(1 << s for s in position.active)
        ws[_W_META] = (position.trump | position.declarer << 2 | active_bits << 4) << 34
        ws[_W_GEN] = self._gen
        ws[_W_NODES] = 0
        tcards = np.zeros(3, dtype=np.int64)
        tcards[: len(position.trick)] = position.trick
        return tcards

    def solve(self, position: Position) -> int:
        """The declarer's total tricks under optimal play from ``position``."""
        tcards = self._prepare(position)
        future = _solve_root(self._ws, self._tt, tcards, len(position.trick), position.leader)
        self.nodes = int(self._ws[_W_NODES])
        return position.declarer_tricks + int(future)

    def can_make(self, position: Position, target: int) -> bool:
        """Whether the declarer can take at least ``target`` tricks in total (already won plus
        still to win) against best defence: ``solve(position) >= target``, from one zero-window
        search instead of the several of ``solve``."""
        if isinstance(target, bool) or not isinstance(target, (int, np.integer)):
            raise ValueError(f"target must be an int number of tricks, got {target!r}")
        if not 0 <= target <= NUM_TRICKS:
            raise ValueError(f"target must be 0..{NUM_TRICKS} tricks, got {target}")
        tcards = self._prepare(position)
        future = int(target) - position.declarer_tricks
        made = _can_make_root(
            self._ws, self._tt, tcards, len(position.trick), position.leader, future
        )
        self.nodes = int(self._ws[_W_NODES])
        return bool(made)

    def solve_many(self, positions: Iterable[Position]) -> np.ndarray:
        """:meth:`solve` of each position, as an int64 array (one call for a batch of worlds)."""
        return np.array([self.solve(p) for p in _positions(positions)], dtype=np.int64)

    def move_values_many(self, positions: Iterable[Position]) -> list[dict[int, int]]:
        """:meth:`move_values` of each position, in order."""
        return [self.move_values(p) for p in _positions(positions)]

    def move_values(self, position: Position) -> dict[int, int]:
        """For each legal card of the seat to act: the declarer's total tricks after it."""
        tcards = self._prepare(position)
        if position.tricks_left == 0:
            return {}
        out_cards = np.zeros(10, dtype=np.int64)
        out_values = np.zeros(10, dtype=np.int64)
        n = _move_values(
            self._ws, self._tt, tcards, len(position.trick), position.leader, out_cards, out_values
        )
        self.nodes = int(self._ws[_W_NODES])
        base = position.declarer_tricks
        return dict(sorted((int(out_cards[i]), base + int(out_values[i])) for i in range(n)))

    def best_moves(self, position: Position) -> list[int]:
        """The legal cards that reach the optimum for the seat to act (ascending)."""
        values = self.move_values(position)
        if not values:
            return []
        maximise = position.to_act == position.declarer
        target = max(values.values()) if maximise else min(values.values())
        return [card for card, value in values.items() if value == target]


_DEFAULT = threading.local()


def _default() -> PastonSolver:
    """The module functions' solver: one per thread (a solver's workspace is not shared)."""
    solver = getattr(_DEFAULT, "solver", None)
    if solver is None:
        solver = _DEFAULT.solver = PastonSolver()
    return solver


def solve(position: Position) -> int:
    """The declarer's total tricks (won so far plus still to win) under optimal play."""
    return _default().solve(position)


def move_values(position: Position) -> dict[int, int]:
    """For every legal card of the seat to act, the declarer's total tricks after playing it."""
    return _default().move_values(position)


def best_moves(position: Position) -> list[int]:
    """The legal cards that reach the optimum for the seat to act."""
    return _default().best_moves(position)


def can_make(position: Position, target: int) -> bool:
    """Whether the declarer can take at least ``target`` tricks in total against best defence."""
    return _default().can_make(position, target)


def solve_many(positions: Iterable[Position]) -> np.ndarray:
    """:func:`solve` of each position of a batch, as an int64 array."""
    return _default().solve_many(positions)


def move_values_many(positions: Iterable[Position]) -> list[dict[int, int]]:
    """:func:`move_values` of each position of a batch, in order."""
    return _default().move_values_many(positions)


def load_kernels() -> None:
    """Load the solver's compiled kernels now (numba's disk cache, or a compile on a cache miss):
    otherwise the first search pays for it (about a second from the cache, ten or more for a
    compile). Callers that time their decisions (agents, benchmarks) call it when built."""
    last_trick = Position(["AS", "KS", "QS"], "S", declarer=0)
    solver = PastonSolver(tt_bits=8)
    solver.solve(last_trick)
    solver.move_values(last_trick)
    solver.can_make(last_trick, 1)


def _positions(positions: Iterable[Position]) -> list[Position]:
    if isinstance(positions, Position) or not hasattr(positions, "__iter__"):
        raise ValueError("expected a sequence of Position objects (use solve() for one)")
    items = list(positions)
    for item in items:
        if not isinstance(item, Position):
            raise ValueError(f"expected Position objects, got {type(item).__name__}")
    return items


_announce_compiles()  # one stderr line if this process has to compile (a cache miss)
