"""The Paston heuristic in its first, pure-Python form: the oracle of the differential tests.

Until the rules moved into one compiled module (``folkcards.agents.paston_heuristic_core``,
called by both ``PastonHeuristicAgent`` and ``BatchedPastonHeuristic``), this was
``folkcards/agents/paston_heuristic.py``, and the compiled rules were checked against it
decision for decision. It stays here, outside the installed package, so that the compiled rules
keep an independent implementation to agree with (as ``solver_reference.py`` does for the
solver). Only its imports changed; its design notes follow.

A rule-based Paston agent that reads only its observation.

Every decision starts from ``decode(observation["observation"])`` (the env's own decoder, so
the agent can never know more than the vector holds) and ends with a legal action of
``observation["action_mask"]``. The agent keeps no memory between calls.

Design, by phase:

- **Trick estimates.** :func:`suit_tricks` values one suit of a declarer's hand from the
  ranks held and the ranks still outstanding: a card with ``h`` outstanding higher cards and
  ``k`` higher cards of one's own is worth 1 when ``h == 0``, ``1 - 0.5 ** (k - h + 1)`` when
  the higher cards will have been drawn (``h <= k``), else ``0.5 ** (h - k)`` (less when
  unguarded). Low trumps earn length credit once the opponents' trumps are likely exhausted;
  side-suit cards are discounted by the chance that the round is ruffed (the outstanding cards
  split between two hands, and how many trumps the opponents hold against the declarer's).
  :func:`declarer_tricks` combines trump tricks, side tricks, ruffs with short side suits and
  the trump counts with weights fitted by least squares on heuristic play (random forced
  contracts, both defenders whisting; residual spread about 1 trick).
  :func:`defence_tricks` is a linear model of the same kind for a defender (side aces and
  kings, trump honours and length, short and long side suits), fitted separately for two
  defenders and for a sole defender.
- **Auction.** For each contract the next bid would allow (only trump suits of 3+ cards), the
  expected tricks plus the value of the 2 prikup cards (``prikup_bonus``) give a success
  probability (a normal around the estimate) and an expected score ``10·f·(2p − 1)`` (best
  spades: ``10p − 40(1 − p)``). The agent bids the next step only if the best such contract is
  worth at least ``bid_margin`` × factor, so it grows more careful as the factor grows; best
  spades needs ``p`` of about 0.9.
- **Discards.** Every allowed contract is tried with every pair (then every single card) of
  its side cards (trumps only when there are not enough side cards); the agent keeps the
  discard with the best expected score, then the most tricks, then the lowest cards, so
  trumps and winners are kept and short suits become voids.
- **Contract.** The allowed contract with the best expected score, or surrender (−10) when
  every contract is expected to lose more than 10.
- **Defence.** Whist when the expected score of defending is positive: the defender's trick
  estimate gives a distribution of tricks, scored with the 2-trick table (both defend) or the
  4-trick table (sole defender); the first speaker weighs both by the chance that the second
  also whists (0.3, as measured in self-play). A pass scores 0, so whist needs a real chance.
- **Play.** Count every played card (and the declarer's own discards) to know the outstanding
  cards and the masters (cards no outstanding card beats), and use the public voids (plus a
  suit with no outstanding card). Follow cheaply when the trick is lost, win with the lowest
  card that is sure to hold against the players still to play, never overtake a winning
  partner-defender, ruff with the lowest winning trump; as declarer draw trumps (the master,
  the top of a sequence, else a low one) while holding two or more and the opponents may have
  some, then cash masters the opponents cannot ruff and lead low from length; as defender
  cash masters the declarer cannot ruff, lead to a partner's void for a ruff, lead a singleton
  when holding trumps, lead the top of an honour sequence, else low from the longest suit
  without a loose honour; discard from the shortest suit without winners.

The constants live in :class:`PastonParams`; ``benchmarks/heuristic_vs_random.py`` measures
the agent against ``random``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
from folkcards.agents.base import RuleBasedAgent
from folkcards.envs.cards import cards_to_mask, mask_to_cards
from folkcards.envs.paston.observation import PastonView, decode
from folkcards.envs.paston.vocabulary import (
    BEST_SPADES,
    BID_BASE,
    CONTRACT_BASE,
    LEVEL_FACTOR,
    LEVEL_TRUMP,
    NUM_LEVELS,
    PASS,
    SURRENDER,
    WHIST,
)


@dataclass(frozen=True)
class PastonParams:
    """The tuned constants. The spreads were measured on heuristic self-play with the defence
    forced; the margins and the prikup bonus were tuned by duplicate deals against the
    heuristic itself and against ``random``. ``tricks = scale · estimate + shift``."""

    prikup_bonus: float = 1.2  # estimated gain from taking the prikup and discarding two
    declarer_scale: float = 1.0
    declarer_shift: float = 0.0
    declarer_sigma: float = 1.3  # spread of the declarer's tricks once the hand is known
    bid_sigma: float = 1.5  # spread at bidding time (the prikup is unknown)
    bid_margin: float = 1.0  # bid when the best contract is worth >= margin x factor
    best_spades_margin: float = 4.0
    two_sigma: float = 0.95  # spread of a defender's tricks when both defend
    sole_sigma: float = 1.1  # spread of a sole defender's tricks
    all_pass_bonus: float = 0.4  # a forced declarer (all passed) is weaker than a bidder
    other_whist_prob: float = (
        0.3  # the first speaker's guess that the second also whists (measured)
    )
    whist_margin: float = 0.0  # whist when defending is worth > margin x factor


def _popcount(x: int) -> int:
    return x.bit_count()


# --- split probabilities of m outstanding cards between two hands (each card 50/50) ---------


def _binom_split_tables() -> tuple[list[list[float]], list[list[float]]]:
    min_ge = [[0.0] * 10 for _ in range(9)]  # P(min(X, m - X) >= r)
    max_le = [[0.0] * 10 for _ in range(9)]  # P(max(X, m - X) <= r)
    for m in range(9):
        probs = [math.comb(m, x) / 2**m for x in range(m + 1)]
        for r in range(10):
            min_ge[m][r] = sum(p for x, p in enumerate(probs) if min(x, m - x) >= r)
            max_le[m][r] = sum(p for x, p in enumerate(probs) if max(x, m - x) <= r)
    return min_ge, max_le


_MIN_GE, _MAX_LE = _binom_split_tables()
# chance that an opponent void in a side suit cannot ruff it, by the declarer's trump control
RUFF_MISS = (1.0, 0.75, 0.5, 0.3, 0.1)


def trump_control(mine: int, out: int) -> int:
    """0: no trumps out; 1..4: from comfortably more trumps than the opponents to far fewer."""
    if out == 0:
        return 0
    if mine >= out + 2:
        return 1
    if mine >= out:
        return 2
    if mine >= out - 2:
        return 3
    return 4


@cache
def suit_tricks(mine: int, out: int, trump: bool, control: int = 2) -> float:
    """Expected declarer tricks from one suit: ``mine``/``out`` are 8-bit rank masks (A = bit 7)
    of the cards held and of the cards still outstanding (not held, not gone); ``control`` is
    :func:`trump_control` (how likely a void opponent can ruff a side suit)."""
    ranks = [r for r in range(7, -1, -1) if mine >> r & 1]
    n = len(ranks)
    m = _popcount(out)
    miss = RUFF_MISS[control]
    total = 0.0
    for k, r in enumerate(ranks):
        h = _popcount(out >> (r + 1))
        if h == 0:
            credit = 1.0
        elif h <= k:
            credit = 1.0 - 0.5 ** (k - h + 1)
        else:
            guard = n - k - 1
            credit = 0.5 ** (h - k) * (1.0 if guard >= h - k else 0.4)
        if trump:
            credit = 1.0 if k >= m else max(credit, 0.9 * _MAX_LE[min(m, 8)][k])
        else:
            survive = _MIN_GE[min(m, 8)][k + 1]
            credit *= survive + (1.0 - survive) * miss
        total += credit
    return total


def declarer_components(hand: int, gone: int, trump: int) -> tuple[float, float, float, int, int]:
    """``(trump tricks, side tricks, ruffs, trumps held, trumps out)`` of a declarer hand (a
    32-bit mask) with ``trump``; ``gone`` holds cards out of play (played or discarded)."""
    other = ~(hand | gone) & 0xFFFFFFFF
    t_mine = hand >> (8 * trump) & 0xFF
    t_out = other >> (8 * trump) & 0xFF
    n_t, m_t = _popcount(t_mine), _popcount(t_out)
    control = trump_control(n_t, m_t)
    trump_tricks = suit_tricks(t_mine, t_out, True)
    side = 0.0
    shortness = 0
    for s in range(4):
        if s == trump:
            continue
        mine = hand >> (8 * s) & 0xFF
        side += suit_tricks(mine, other >> (8 * s) & 0xFF, False, control)
        shortness += max(0, 2 - _popcount(mine))
    ruffs = min(max(0.0, n_t - trump_tricks), shortness)
    return trump_tricks, side, ruffs, n_t, m_t


# weights of the components, fitted on heuristic play (forced random contracts, both defend)
DECLARER_WEIGHTS = (0.97, 1.08, 0.21, 0.31, 0.19, -2.0)  # trumps, side, ruffs, held, out, constant


def declarer_tricks(hand: int, gone: int, trump: int) -> float:
    """The trick estimate of a 10-card declarer hand (32-bit mask) with ``trump``; ``gone``
    holds cards out of play (played or discarded). :class:`PastonParams` calibrates it."""
    comps = declarer_components(hand, gone, trump)
    w = DECLARER_WEIGHTS
    return sum(wi * ci for wi, ci in zip(w, comps, strict=False)) + w[-1]


class _SideDiscards:
    """:func:`declarer_tricks` of a hand after discarding side cards, computed incrementally
    (a side discard changes only its own suit's value and the shortness)."""

    def __init__(self, hand: int, gone: int, trump: int):
        other = ~(hand | gone) & 0xFFFFFFFF
        t_mine = hand >> (8 * trump) & 0xFF
        t_out = other >> (8 * trump) & 0xFF
        self.n_t, self.m_t = _popcount(t_mine), _popcount(t_out)
        self.control = trump_control(self.n_t, self.m_t)
        self.trump_tricks = suit_tricks(t_mine, t_out, True)
        self.mine = [hand >> (8 * s) & 0xFF for s in range(4)]
        self.out = [other >> (8 * s) & 0xFF for s in range(4)]
        self.values = [
            0.0 if s == trump else suit_tricks(self.mine[s], self.out[s], False, self.control)
            for s in range(4)
        ]
        self.side = sum(self.values)
        self.shortness = [max(0, 2 - _popcount(m)) for m in self.mine]
        self.shortness[trump] = 0
        self.short_total = sum(self.shortness)

    def tricks(self, drop: tuple[int, ...]) -> float:
        mine = list(self.mine)
        for card in drop:
            mine[card >> 3] &= ~(1 << (card & 7))
        side, short = self.side, self.short_total
        for suit in {card >> 3 for card in drop}:
            side += suit_tricks(mine[suit], self.out[suit], False, self.control) - self.values[suit]
            short += max(0, 2 - _popcount(mine[suit])) - self.shortness[suit]
        ruffs = min(max(0.0, self.n_t - self.trump_tricks), short)
        w = DECLARER_WEIGHTS
        return (
            w[0] * self.trump_tricks
            + w[1] * side
            + w[2] * ruffs
            + w[3] * self.n_t
            + w[4] * self.m_t
            + w[5]
        )


def defence_features(hand: int, trump: int) -> tuple[float, ...]:
    """Features of a defender's 10-card hand against ``trump`` (see :data:`DEFENCE_WEIGHTS`)."""
    f = [0.0] * 14
    t = hand >> (8 * trump) & 0xFF
    nt = _popcount(t)
    for s in range(4):
        if s == trump:
            continue
        mine = hand >> (8 * s) & 0xFF
        n = _popcount(mine)
        a, k, q = mine >> 7 & 1, mine >> 6 & 1, mine >> 5 & 1
        f[0] += a
        f[1] += a and k
        f[2] += k and not a and n >= 2
        f[3] += k and n == 1
        f[4] += q and n >= 3 and (a or k)
        if n <= 1 and nt >= 2:
            f[12] += 1
        if n >= 5:
            f[13] += 1
    f[5] = t >> 7 & 1
    f[6] = float(bool(t >> 6 & 1) and nt >= 2)
    f[7] = float(bool(t >> 6 & 1) and nt == 1)
    f[8] = float(bool(t >> 5 & 1) and nt >= 3)
    f[9] = float(bool(t >> 4 & 1) and nt >= 4)
    f[10] = max(0, nt - 3)
    f[11] = nt
    return tuple(f)


# Fitted on heuristic play (declarers from the heuristic's auction, the defence forced) by least
# squares: a defender's tricks when both defend, and a sole defender's tricks.
# side A, side AK, side Kx, side K single, side Q with A/K, trump A, trump Kx, trump K single,
# trump Qxx, trump Jxxx, trumps beyond 3, trumps, short side suits with 2+ trumps, long side suits
TWO_DEFENCE_WEIGHTS = (
    0.77,
    0.07,
    0.46,
    0.22,
    0.0,
    1.04,
    0.9,
    0.07,
    0.84,
    0.42,
    0.76,
    0.33,
    -0.17,
    -0.36,
)
TWO_DEFENCE_CONSTANT = -0.17
SOLE_DEFENCE_WEIGHTS = (
    0.73,
    0.07,
    0.45,
    0.22,
    0.01,
    1.03,
    0.77,
    0.03,
    0.84,
    0.46,
    0.69,
    0.43,
    -0.42,
    -0.6,
)
SOLE_DEFENCE_CONSTANT = 0.33


def defence_tricks(hand: int, trump: int, sole: bool = False) -> float:
    """Expected tricks of a defender's 10-card hand against ``trump``: one of two defenders, or
    a sole defender."""
    feats = defence_features(hand, trump)
    weights = SOLE_DEFENCE_WEIGHTS if sole else TWO_DEFENCE_WEIGHTS
    constant = SOLE_DEFENCE_CONSTANT if sole else TWO_DEFENCE_CONSTANT
    return constant + sum(w * x for w, x in zip(weights, feats, strict=True))


def _p_at_least(mean: float, need: float, sigma: float) -> float:
    """P(tricks >= need) for a normal around ``mean`` (continuity corrected)."""
    z = (mean - (need - 0.5)) / sigma
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def contract_value(tricks: float, level: int, sigma: float) -> float:
    """Expected score of declaring ``level`` when the tricks are about ``tricks`` ± ``sigma``."""
    p = _p_at_least(tricks, 6, sigma)
    if level == BEST_SPADES:
        return 10.0 * p - 40.0 * (1.0 - p)
    return 10.0 * LEVEL_FACTOR[level] * (2.0 * p - 1.0)


_TWO_DEF = (-10, -9, 0, 10, 20, 30, 40, 50, 60, 70, 80)
_SOLE_DEF = (-10, -9, -8, -7, 0, 10, 20, 30, 40, 50, 60)


def _trick_distribution(mean: float, sigma: float) -> list[float]:
    cdf = [0.5 * (1.0 + math.erf((t + 0.5 - mean) / (sigma * math.sqrt(2.0)))) for t in range(11)]
    probs = [cdf[0]] + [cdf[t] - cdf[t - 1] for t in range(1, 10)] + [1.0 - cdf[9]]
    return probs


def defence_value(tricks: float, sigma: float, sole: bool, factor: int) -> float:
    """Expected score of defending with about ``tricks`` ± ``sigma`` tricks."""
    table = _SOLE_DEF if sole else _TWO_DEF
    probs = _trick_distribution(tricks, sigma)
    return factor * sum(p * s for p, s in zip(probs, table, strict=True))


def defence_call(
    hand: int,
    level: int,
    *,
    all_pass: bool,
    first_speaker: bool,
    other_whisted: bool,
    params: PastonParams | None = None,
) -> bool:
    """Whether the heuristic whists with this 10-card ``hand`` (mask) against ``level``.

    ``first_speaker``: the declarer's left, who speaks before the other defender (and guesses
    that they whist with ``other_whist_prob``); otherwise ``other_whisted`` is what the first
    speaker said. ``all_pass``: the declarer was designated after all three passed.
    """
    p = params or PastonParams()
    trump = LEVEL_TRUMP[level]
    factor = LEVEL_FACTOR[level]
    bonus = p.all_pass_bonus if all_pass else 0.0  # a forced declarer is weaker
    two = defence_value(defence_tricks(hand, trump) + bonus, p.two_sigma, False, factor)
    sole = defence_value(defence_tricks(hand, trump, True) + bonus, p.sole_sigma, True, factor)
    if first_speaker:
        value = p.other_whist_prob * two + (1.0 - p.other_whist_prob) * sole
    else:
        value = two if other_whisted else sole
    return value > p.whist_margin * factor


class ReferencePastonHeuristicAgent(RuleBasedAgent):
    """Rule-based Paston player; see the module docstring for the rules it follows."""

    name = "heuristic"
    game_name = "paston"

    def __init__(
        self,
        game: str = "paston",
        seat: str = "player_0",
        seed: int | None = None,
        params: PastonParams | None = None,
    ):
        super().__init__(game, seat, seed)
        self.params = params or PastonParams()

    def _declarer_value(self, hand: int, gone: int, level: int, bidding: bool = False) -> float:
        """Expected score of declaring ``level`` with this hand (before the prikup if bidding)."""
        p = self.params
        raw = declarer_tricks(hand, gone, LEVEL_TRUMP[level])
        if bidding:
            raw += p.prikup_bonus
        tricks = p.declarer_scale * raw + p.declarer_shift
        return contract_value(tricks, level, p.bid_sigma if bidding else p.declarer_sigma)

    def _decide(self, vector: np.ndarray, legal: list[int]) -> int | None:
        return self._choose(decode(vector), legal)

    # --- dispatch ----------------------------------------------------------------------------

    def _choose(self, view: PastonView, legal: list[int]) -> int | None:
        phase = view.phase
        if phase == "auction":
            return self._auction(view, legal)
        if phase == "discard":
            return self._discard(view, legal)
        if phase == "contract":
            return self._contract(view, legal)
        if phase == "defence":
            return self._defence(view, legal)
        if phase == "play":
            return self._play(view, legal)
        return None

    # --- auction -----------------------------------------------------------------------------

    def _auction(self, view: PastonView, legal: list[int]) -> int:
        bids = [a for a in legal if BID_BASE <= a < BID_BASE + NUM_LEVELS]
        if not bids:
            return PASS
        level = bids[0] - BID_BASE
        hand = cards_to_mask(view.hand)
        allowed = [BEST_SPADES] if level == BEST_SPADES else list(range(level, 4))
        # a contract needs trumps: a suit of fewer than three cards is never bid on
        allowed = [c for c in allowed if _popcount(hand >> (8 * LEVEL_TRUMP[c]) & 0xFF) >= 3]
        if not allowed:
            return PASS if PASS in legal else bids[0]
        best = max(self._declarer_value(hand, 0, c, bidding=True) for c in allowed)
        if level == BEST_SPADES:
            margin = self.params.best_spades_margin
        else:
            margin = self.params.bid_margin * LEVEL_FACTOR[level]
        if best >= margin:
            return bids[0]
        return PASS if PASS in legal else bids[0]

    # --- discard and contract ----------------------------------------------------------------

    @staticmethod
    def _allowed_contracts(view: PastonView) -> list[int]:
        if view.high_bid == BEST_SPADES:
            return [BEST_SPADES]
        low = view.high_bid if view.high_bid is not None else 0
        return list(range(low, 4))

    def _best_contract(self, hand: int, gone: int, allowed: list[int]) -> tuple[float, int, float]:
        """``(expected score, level, expected tricks)`` of the best allowed contract."""
        best = (-1e9, allowed[0], 0.0)
        p = self.params
        for c in allowed:
            tricks = (
                p.declarer_scale * declarer_tricks(hand, gone, LEVEL_TRUMP[c]) + p.declarer_shift
            )
            value = contract_value(tricks, c, p.declarer_sigma)
            if (value, tricks) > best[::2]:
                best = (value, c, tricks)
        return best

    def _discard(self, view: PastonView, legal: list[int]) -> int:
        """Try every contract with every set of cards still to discard (side cards only when
        there are enough of them) and keep the set with the best expected score, then the most
        tricks, then the lowest cards."""
        p = self.params
        hand = cards_to_mask(view.hand)
        gone = cards_to_mask(view.discards)
        allowed = self._allowed_contracts(view)
        cards = [c for c in view.hand if c in legal] or legal
        to_drop = max(1, min(2, len(view.hand) - 10))
        best_key: tuple[float, float, float] | None = None
        best_card = cards[0]
        for level in allowed:
            trump = LEVEL_TRUMP[level]
            side = [c for c in cards if c >> 3 != trump]
            if len(side) >= to_drop:
                pool = side
                fast = _SideDiscards(hand, gone, trump)
            else:
                pool, fast = cards, None
            for combo in combinations(pool, to_drop):
                if fast is not None:
                    raw = fast.tricks(combo)
                else:
                    drop = cards_to_mask(list(combo))
                    raw = declarer_tricks(hand & ~drop, gone | drop, trump)
                tricks = p.declarer_scale * raw + p.declarer_shift
                value = contract_value(tricks, level, p.declarer_sigma)
                keeps = [self._keep_value(c, trump) for c in combo]
                key = (round(value, 6), round(tricks, 6), -sum(keeps))
                if best_key is None or key > best_key:
                    best_key = key
                    best_card = combo[keeps.index(min(keeps))]
        return best_card

    @staticmethod
    def _keep_value(card: int, trump: int) -> float:
        """How much a card is worth keeping, for ties: trumps and high cards first."""
        return (10.0 if card >> 3 == trump else 0.0) + (card & 7)

    def _contract(self, view: PastonView, legal: list[int]) -> int:
        hand = cards_to_mask(view.hand)
        gone = cards_to_mask(view.discards)
        allowed = [
            a - CONTRACT_BASE for a in legal if CONTRACT_BASE <= a < CONTRACT_BASE + NUM_LEVELS
        ]
        if not allowed:
            return SURRENDER
        value, c, _ = self._best_contract(hand, gone, allowed)
        if value < -10.0 and SURRENDER in legal:
            return SURRENDER
        return CONTRACT_BASE + c

    # --- defence -----------------------------------------------------------------------------

    def _defence(self, view: PastonView, legal: list[int]) -> int:
        if view.contract is None or view.declarer is None:
            return PASS
        # the declarer's left speaks first: relative seat 2 is the declarer then, and my right
        # (relative seat 2) is the declarer's left when the declarer is my left
        first_speaker = view.declarer == 2
        whists = defence_call(
            cards_to_mask(view.hand),
            view.contract,
            all_pass=view.all_pass,
            first_speaker=first_speaker,
            other_whisted=not first_speaker and view.whist[2],
            params=self.params,
        )
        return WHIST if whists and WHIST in legal else PASS

    # --- play --------------------------------------------------------------------------------

    def _play(self, view: PastonView, legal: list[int]) -> int:
        trump = view.trump if view.trump is not None else 0
        declarer = view.declarer if view.declarer is not None else 0
        active = [r for r in range(3) if r == declarer or view.whist[r]]
        hand = cards_to_mask(view.hand)
        gone = cards_to_mask(view.discards)
        for cards in view.played:
            gone |= cards_to_mask(cards)
        unknown = ~(hand | gone) & 0xFFFFFFFF
        ctx = _PlayContext(view, trump, declarer, active, hand, unknown)
        if not view.trick:
            return ctx.lead(legal)
        return ctx.follow(legal)


class _PlayContext:
    """Facts about the current trick, computed once per play decision."""

    def __init__(
        self,
        view: PastonView,
        trump: int,
        declarer: int,
        active: list[int],
        hand: int,
        unknown: int,
    ):
        self.view = view
        self.trump = trump
        self.declarer = declarer
        self.active = active
        self.hand = hand
        self.unknown = unknown
        self.me_declarer = declarer == 0
        if self.me_declarer:
            self.opponents = [r for r in active if r != 0]
            self.partner: int | None = None
        else:
            self.opponents = [declarer]
            others = [r for r in active if r not in (0, declarer)]
            self.partner = others[0] if others else None
        self.voids = [list(row) for row in view.voids]
        for s in range(4):
            if not unknown >> (8 * s) & 0xFF:
                for r in range(1, 3):
                    self.voids[r][s] = True

    # --- card facts --------------------------------------------------------------------------

    def suit_unknown(self, suit: int) -> int:
        return self.unknown >> (8 * suit) & 0xFF

    def higher_out(self, card: int) -> int:
        """How many outstanding cards of the card's suit rank above it."""
        return _popcount(self.suit_unknown(card >> 3) >> ((card & 7) + 1))

    def is_master(self, card: int) -> bool:
        return self.higher_out(card) == 0

    def may_hold(self, seat: int, suit: int) -> bool:
        return not self.voids[seat][suit] and bool(self.suit_unknown(suit))

    def beats(self, card: int, best: int, led: int) -> bool:
        trump = self.trump
        cs, bs = card >> 3, best >> 3
        if cs == bs:
            return (card & 7) > (best & 7)
        return cs == trump

    def safe_against(self, card: int, seat: int, led: int) -> bool:
        """Whether ``seat``, still to play, surely cannot beat ``card`` in a trick led in ``led``."""
        trump = self.trump
        suit = card >> 3
        if suit == led:
            if self.may_hold(seat, led):
                return self.higher_out(card) == 0
            # the seat is void in the led suit: it may ruff
            if suit == trump:
                return True
            return not self.may_hold(seat, trump)
        if suit == trump:  # a ruff: only a seat void in the led suit can overruff
            if self.may_hold(seat, led):
                return True
            if not self.may_hold(seat, trump):
                return True
            return self.higher_out(card) == 0
        return False

    # --- following ---------------------------------------------------------------------------

    def later_seats(self) -> list[int]:
        played = {r for r, _ in self.view.trick}
        return [r for r in self.active if r != 0 and r not in played]

    def follow(self, legal: list[int]) -> int:
        trick = self.view.trick
        led = trick[0][1] >> 3
        best_seat, best = trick[0]
        for seat, card in trick[1:]:
            if self.beats(card, best, led):
                best_seat, best = seat, card
        later = self.later_seats()
        later_opps = [r for r in later if r in self.opponents]
        partner_winning = self.partner is not None and best_seat == self.partner
        winners = sorted((c for c in legal if self.beats(c, best, led)), key=self._strength)
        sure = [c for c in winners if all(self.safe_against(c, r, led) for r in later_opps)]
        if partner_winning:
            holds = all(self.safe_against(best, r, led) for r in later_opps)
            if holds or not sure:
                return self.cheapest(legal, led)
            return sure[0]
        if sure:
            return sure[0]
        if winners and not later_opps:
            return winners[0]
        if winners and winners[0] >> 3 == self.trump and led != self.trump:
            return winners[0]  # a ruff that may be overruffed: still take the chance cheaply
        return self.cheapest(legal, led)

    def _strength(self, card: int) -> int:
        return (card & 7) + (16 if card >> 3 == self.trump else 0)

    def cheapest(self, legal: list[int], led: int | None) -> int:
        """The card that costs least: the lowest follow, the lowest trump, or the best discard."""
        if led is not None:
            follow = [c for c in legal if c >> 3 == led]
            if follow:
                return min(follow)
        non_trump = [c for c in legal if c >> 3 != self.trump]
        if not non_trump:
            return min(legal, key=lambda c: c & 7)
        return min(non_trump, key=self._discard_key)

    def _discard_key(self, card: int) -> tuple[int, int, int, int]:
        suit = card >> 3
        in_suit = self._my_suit(suit)
        length = len(in_suit)
        has_winner = any(self.is_master(c) for c in in_suit)
        guarded_honour = (card & 7) >= 5 and length >= 2 and self.higher_out(card) <= length - 1
        return (
            1 if self.is_master(card) else 0,
            1 if guarded_honour else 0,
            (10 if has_winner else 0) + length,
            card & 7,
        )

    # --- leading -----------------------------------------------------------------------------

    def lead(self, legal: list[int]) -> int:
        if self.me_declarer:
            return self.declarer_lead(legal)
        return self.defender_lead(legal)

    def _my_suit(self, suit: int) -> list[int]:
        return [8 * suit + r for r in mask_to_cards(self.hand >> (8 * suit) & 0xFF)]

    def _opps_may_ruff(self, suit: int) -> bool:
        return (
            any(self.voids[r][suit] and self.may_hold(r, self.trump) for r in self.opponents)
            if suit != self.trump
            else False
        )

    def declarer_lead(self, legal: list[int]) -> int:
        trump = self.trump
        my_trumps = self._my_suit(trump)
        out_trumps = _popcount(self.suit_unknown(trump))
        opps_with_trumps = [r for r in self.opponents if self.may_hold(r, trump)]
        if my_trumps and out_trumps and opps_with_trumps and len(my_trumps) >= 2:
            top = max(my_trumps)
            if self.is_master(top):
                return top
            if top - 1 in my_trumps and top >> 3 == (top - 1) >> 3:
                return top
            return min(my_trumps)
        masters = [
            c
            for c in legal
            if c >> 3 != trump and self.is_master(c) and not self._opps_may_ruff(c >> 3)
        ]
        if masters:
            return max(masters, key=lambda c: (len(self._my_suit(c >> 3)), c & 7))
        if my_trumps and self.is_master(max(my_trumps)) and opps_with_trumps:
            return max(my_trumps)
        side = [
            s for s in range(4) if s != trump and self._my_suit(s) and not self._opps_may_ruff(s)
        ]
        if side:
            suit = max(side, key=lambda s: (len(self._my_suit(s)), -min(self._my_suit(s))))
            return min(self._my_suit(suit))
        if my_trumps:
            return min(my_trumps)
        return min(legal, key=lambda c: c & 7)

    def defender_lead(self, legal: list[int]) -> int:
        trump = self.trump
        declarer = self.declarer
        my_trumps = self._my_suit(trump)
        decl_ruffs = {
            s
            for s in range(4)
            if s != trump and self.voids[declarer][s] and self.may_hold(declarer, trump)
        }
        masters = [
            c for c in legal if c >> 3 != trump and self.is_master(c) and (c >> 3) not in decl_ruffs
        ]
        if masters:
            return max(masters, key=lambda c: (c & 7, -len(self._my_suit(c >> 3))))
        partner = self.partner
        if partner is not None and self.may_hold(partner, trump):
            for s in range(4):
                if (
                    s != trump
                    and self.voids[partner][s]
                    and s not in decl_ruffs
                    and self._my_suit(s)
                ):
                    return min(self._my_suit(s))
        side = [s for s in range(4) if s != trump and self._my_suit(s) and s not in decl_ruffs]
        if my_trumps:
            singles = [
                s
                for s in side
                if len(self._my_suit(s)) == 1 and not self.is_master(self._my_suit(s)[0])
            ]
            if singles:
                return min(self._my_suit(s)[0] for s in singles)
        # the top of an honour sequence (K Q, Q J ...): it forces out the declarer's cards
        for s in side:
            cards = sorted(self._my_suit(s), reverse=True)
            for hi, lo in zip(cards, cards[1:], strict=False):
                if hi - lo == 1 and (hi & 7) >= 4 and self.higher_out(hi) >= 1:
                    return hi
        if side:
            # avoid leading away from an unguarded honour; prefer the longest plain suit
            def key(s: int) -> tuple[int, int]:
                cards = self._my_suit(s)
                honour = any((c & 7) >= 5 and not self.is_master(c) for c in cards)
                return (0 if honour else 1, len(cards))

            suit = max(side, key=key)
            return min(self._my_suit(suit))
        if my_trumps:
            return max(my_trumps) if self.is_master(max(my_trumps)) else min(my_trumps)
        return min(legal, key=lambda c: c & 7)
