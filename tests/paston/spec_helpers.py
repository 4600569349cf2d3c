"""Helpers for the Paston rulebook tests.

Written from ``docs/rules/paston.md`` and the public contract (``docs/envs/``) only (never from the
environment's code), so that the tests do not inherit the implementation's readings.

Contents:

* card ids <-> strings (paston.md §1) and text deals;
* the public action ids (api.md "Actions");
* a small *reference* of the rules, as pure functions over seat numbers: the auction
  ladder (§3), the contract options (§4), the play obligations and trick winner (§6) and
  the score table (§7).  The tests use it to drive deals and to cross-check the env;
* ``Table``: a thin driver around ``paston_v0.raw_env`` that steps scripted actions,
  checks who is to act, and sums every agent's rewards in the two ways an AEC user sees
  them (``env.rewards`` after each step, and ``last()`` before each of its turns).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import numpy as np

# --------------------------------------------------------------------------- cards (§1)

SUITS = "SCDH"
RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"]
SUIT_NAMES = ["spades", "clubs", "diamonds", "hearts"]
ALL_CARDS = list(range(32))

J_SPADES = 4
SEVEN_SPADES = 0


def cid(text: str) -> int:
    """Card id from a string such as ``"10H"`` or ``"AS"`` (paston.md §1)."""
    text = text.strip().upper()
    rank, suit = text[:-1], text[-1]
    return 8 * SUITS.index(suit) + RANKS.index(rank)


def cstr(card: int) -> str:
    return RANKS[card % 8] + SUITS[card // 8]


def suit_of(card: int) -> int:
    return card // 8


def rank_of(card: int) -> int:
    return card % 8


def cards(text: str | Iterable) -> list[int]:
    """``"7S 8S AH"`` -> ``[0, 1, 31]``; a list of strings/ids is accepted too."""
    if isinstance(text, str):
        return [cid(t) for t in text.split()]
    return [t if isinstance(t, int) else cid(t) for t in text]


def P(seat: int) -> str:
    """Agent name of a seat (seats taken modulo 3)."""
    return f"player_{seat % 3}"


def seat_of(agent: str) -> int:
    return int(agent.rsplit("_", 1)[1])


def left(seat: int) -> int:
    return (seat + 1) % 3


def right(seat: int) -> int:
    return (seat + 2) % 3


def is_six_spade(hand: Iterable[int]) -> bool:
    """§2.4: 7♠ 8♠ 9♠ 10♠ J♠ Q♠ held, with neither K♠ nor A♠."""
    h = set(hand)
    return set(range(6)) <= h and 6 not in h and 7 not in h


def deal(h0: str, h1: str, h2: str, prikup: str, *, as_ids: bool = False) -> dict:
    """A deal option from text; checks (as a guard against typos in the tests) that the
    32 cards are there once each."""
    hands = [cards(h) for h in (h0, h1, h2)]
    pk = cards(prikup)
    flat = [c for h in hands for c in h] + pk
    assert sorted(flat) == ALL_CARDS, f"test deal is not 32 distinct cards: {sorted(flat)}"
    assert all(len(h) == 10 for h in hands) and len(pk) == 2
    if as_ids:
        return {"hands": [list(h) for h in hands], "prikup": list(pk)}
    return {"hands": [[cstr(c) for c in h] for h in hands], "prikup": [cstr(c) for c in pk]}


def deal_from_ids(hands: Sequence[Sequence[int]], prikup: Sequence[int]) -> dict:
    return {"hands": [[cstr(c) for c in h] for h in hands], "prikup": [cstr(c) for c in prikup]}


def deal_cards(d: dict) -> tuple[list[set[int]], list[int]]:
    """(hands as sets of ids, prikup ids) of a deal option."""
    return [set(cards(h)) for h in d["hands"]], cards(d["prikup"])


def random_deal(rng: random.Random, *, allow_six_spade: bool = False) -> dict:
    while True:
        deck = ALL_CARDS[:]
        rng.shuffle(deck)
        hands = [deck[0:10], deck[10:20], deck[20:30]]
        if allow_six_spade or not any(is_six_spade(h) for h in hands):
            return deal_from_ids(hands, deck[30:32])


# ---------------------------------------------------------------- actions (api.md)

PASS = 32
BID_SPADES, BID_CLUBS, BID_DIAMONDS, BID_HEARTS, BID_BEST = 33, 34, 35, 36, 37
C_SPADES, C_CLUBS, C_DIAMONDS, C_HEARTS, C_BEST = 38, 39, 40, 41, 42
SURRENDER = 43
WHIST = 44
NUM_ACTIONS = 45

LEVEL_NAMES = ["spades", "clubs", "diamonds", "hearts", "best_spades"]
FACTOR = {"spades": 1, "clubs": 2, "diamonds": 3, "hearts": 4, "best_spades": 4}
TRUMP = {"spades": 0, "clubs": 1, "diamonds": 2, "hearts": 3, "best_spades": 0}


def contract_name(action: int) -> str:
    return LEVEL_NAMES[action - C_SPADES]


# ------------------------------------------------------------ reference rules (§3-§7)


class RefAuction:
    """The auction of §3 over seat numbers."""

    def __init__(self, first: int):
        self.turn = first
        self.passed: set[int] = set()
        self.high: int | None = None  # level 0..4 of the highest bid
        self.high_by: int | None = None
        self.done = False
        self.declarer: int | None = None
        self.all_pass = False

    def legal(self) -> set[int]:
        nxt = 0 if self.high is None else self.high + 1
        return {PASS, BID_SPADES + nxt}

    def act(self, action: int) -> None:
        assert not self.done and action in self.legal()
        seat = self.turn
        if action == PASS:
            self.passed.add(seat)
        else:
            self.high, self.high_by = action - BID_SPADES, seat
            if self.high == 4:  # best spades ends the auction at once
                self.done, self.declarer = True, seat
                return
        if len(self.passed) == 3:
            self.done, self.all_pass = True, True
            return
        if len(self.passed) == 2 and self.high_by is not None and self.high_by not in self.passed:
            self.done, self.declarer = True, self.high_by
            return
        t = left(seat)
        while t in self.passed:
            t = left(t)
        self.turn = t


def all_pass_declarer(hands: Sequence[set[int]]) -> int | None:
    """§3 all-pass: J♠'s holder, else 7♠'s holder, else None (redeal)."""
    for card in (J_SPADES, SEVEN_SPADES):
        for s in range(3):
            if card in hands[s]:
                return s
    return None


def contract_options(high: int | None) -> set[int]:
    """§4.2: contract actions (and surrender) open to the declarer."""
    if high is None:
        return {C_SPADES, C_CLUBS, C_DIAMONDS, C_HEARTS, SURRENDER}
    if high == 4:
        return {C_BEST, SURRENDER}
    return {C_SPADES + lvl for lvl in range(high, 4)} | {SURRENDER}


def legal_plays(hand: set[int], trick: Sequence[tuple[int, int]], trump: int) -> set[int]:
    """§6: lead anything; follow suit; else trump; else anything."""
    if not trick:
        return set(hand)
    led = suit_of(trick[0][1])
    same = {c for c in hand if suit_of(c) == led}
    if same:
        return same
    trumps = {c for c in hand if suit_of(c) == trump}
    return trumps or set(hand)


def trick_winner(trick: Sequence[tuple[int, int]], trump: int) -> int:
    """§6: highest trump, else highest card of the led suit."""
    trumps = [(s, c) for s, c in trick if suit_of(c) == trump]
    if trumps:
        return max(trumps, key=lambda sc: rank_of(sc[1]))[0]
    led = suit_of(trick[0][1])
    return max(((s, c) for s, c in trick if suit_of(c) == led), key=lambda sc: rank_of(sc[1]))[0]


class RefPlay:
    """Trick play of §6 among the active seats; the declarer leads the first trick."""

    def __init__(self, hands: dict[int, set[int]], trump: int, declarer: int):
        self.hands = {s: set(h) for s, h in hands.items()}
        self.active = sorted(hands)
        self.trump = trump
        self.leader = declarer
        self.trick: list[tuple[int, int]] = []
        self.tricks = dict.fromkeys(self.active, 0)
        self.n_tricks = 0
        self.last_winner: int | None = None

    def order(self) -> list[int]:
        out, s = [], self.leader
        for _ in range(3):
            if s in self.hands:
                out.append(s)
            s = left(s)
        return out

    @property
    def done(self) -> bool:
        return self.n_tricks == 10

    def to_act(self) -> int:
        return self.order()[len(self.trick)]

    def legal(self) -> set[int]:
        return legal_plays(self.hands[self.to_act()], self.trick, self.trump)

    def play(self, card: int) -> int | None:
        seat = self.to_act()
        assert card in self.legal(), (seat, cstr(card))
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < len(self.active):
            return None
        w = trick_winner(self.trick, self.trump)
        self.tricks[w] += 1
        self.n_tricks += 1
        self.leader, self.last_winner, self.trick = w, w, []
        return w


# The score table of §7, written out as the table reads (points before the factor).
DECLARER_SUCCESS = {"spades": 10, "clubs": 20, "diamonds": 30, "hearts": 40, "best_spades": 10}
DECLARER_FAIL = {"spades": -10, "clubs": -20, "diamonds": -30, "hearts": -40, "best_spades": -40}
TWO_DEFENDERS = {0: -10, 1: -9, 2: 0}  # then +10 x (t - 2)
SOLE_DEFENDER = {0: -10, 1: -9, 2: -8, 3: -7, 4: 0}  # then +10 x (t - 4)


def table_declarer(contract: str, t: int) -> int:
    return DECLARER_SUCCESS[contract] if t >= 6 else DECLARER_FAIL[contract]


def table_defender(contract: str, t: int, sole: bool) -> int:
    base = SOLE_DEFENDER.get(t, 10 * (t - 4)) if sole else TWO_DEFENDERS.get(t, 10 * (t - 2))
    return base * FACTOR[contract]


# --------------------------------------------------------------------------- driver


def make_raw_env(**kwargs):
    from folkcards.envs import paston_v0

    return paston_v0.raw_env(**kwargs)


def mask_of(env, agent: str) -> np.ndarray:
    return np.asarray(env.observe(agent)["action_mask"])


def legal_of(env, agent: str) -> set[int]:
    return {int(a) for a in np.flatnonzero(mask_of(env, agent))}


def snapshot(env) -> dict:
    """Everything an outside observer can compare before/after a rejected call."""
    obs = {}
    for a in env.possible_agents:
        o = env.observe(a)
        obs[a] = (np.array(o["observation"], copy=True), np.array(o["action_mask"], copy=True))
    return {
        "agent_selection": env.agent_selection,
        "agents": list(env.agents),
        "obs": obs,
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "cumulative": dict(env._cumulative_rewards),
    }


def assert_same_snapshot(before: dict, after: dict) -> None:
    assert before["agent_selection"] == after["agent_selection"]
    assert before["agents"] == after["agents"]
    assert before["terminations"] == after["terminations"]
    assert before["truncations"] == after["truncations"]
    assert before["cumulative"] == after["cumulative"]
    for a, (o, m) in before["obs"].items():
        o2, m2 = after["obs"][a]
        assert np.array_equal(o, o2), f"observation of {a} changed"
        assert np.array_equal(m, m2), f"action mask of {a} changed"


class Table:
    """A raw Paston env with a scripted-play driver and reward bookkeeping."""

    def __init__(self, **env_kwargs):
        self.env = make_raw_env(**env_kwargs)
        self.reward_sum: dict[str, float] = {}
        self.seen: dict[str, float] = {}
        self.nonzero_before_end = False
        self.n_steps = 0

    # -- set-up
    def reset(self, seed: int | None = 0, **options):
        self.env.reset(seed=seed, options=options or None)
        self.reward_sum = {a: float(self.env.rewards.get(a, 0.0)) for a in self.env.possible_agents}
        self.seen = dict.fromkeys(self.env.possible_agents, 0.0)
        self.n_steps = 0
        return self

    # -- views
    @property
    def turn(self) -> str:
        return self.env.agent_selection

    def mask(self, agent: str | int | None = None) -> np.ndarray:
        return mask_of(self.env, self._name(agent))

    def legal(self, agent: str | int | None = None) -> set[int]:
        return legal_of(self.env, self._name(agent))

    def _name(self, agent) -> str:
        if agent is None:
            return self.env.agent_selection
        return P(agent) if isinstance(agent, int) else agent

    @property
    def infos(self):
        return self.env.infos

    def done(self) -> bool:
        return bool(self.env.terminations) and all(self.env.terminations.values())

    def assert_only_turn_has_mask(self) -> None:
        """api.md: the mask is all zeros for an agent that is not to act."""
        for a in self.env.possible_agents:
            if a != self.turn:
                assert not self.mask(a).any(), f"{a} is not to act but has a non-zero mask"

    # -- acting
    def act(self, action: int | str, agent: str | int | None = None) -> None:
        env = self.env
        if isinstance(action, str):
            action = cid(action)
        if agent is not None:
            expected = self._name(agent)
            assert env.agent_selection == expected, (
                f"expected {expected} to act, but it is {env.agent_selection}'s turn"
            )
        a = env.agent_selection
        legal = legal_of(env, a)
        assert action in legal, f"{a}: action {action} not in mask {sorted(legal)}"
        self.seen[a] += float(env._cumulative_rewards[a])
        env.step(action)
        self.n_steps += 1
        for ag, r in env.rewards.items():
            self.reward_sum[ag] = self.reward_sum.get(ag, 0.0) + float(r)
            if r and not self.done():
                self.nonzero_before_end = True

    def script(self, steps: Iterable[tuple[int, int | str]]) -> None:
        """Play ``(seat, action)`` pairs, checking the acting seat each time."""
        for seat, action in steps:
            self.act(action, seat)

    def episode_rewards(self) -> dict[str, float]:
        """What each agent received over the episode, as read through ``last()``."""
        return {a: self.seen[a] + float(self.env._cumulative_rewards[a]) for a in self.seen}

    # -- whole phases
    def play_tricks(
        self,
        hands: dict[int, set[int]],
        trump: int,
        declarer: int,
        *,
        strict: bool = False,
        choose=min,
        rng: random.Random | None = None,
        passer: int | None = None,
        tricks_done: int = 0,
    ) -> RefPlay:
        """Play the 10 tricks by a deterministic policy over the *reference's* legal set
        (``min`` = lowest id), checking at every card that the env selects the seat the
        rules say is to act.  ``strict`` also checks the env's mask equals the reference's
        legal set exactly (and nobody else has a mask).  ``tricks_done`` tricks may
        already have been played (by a script), ``declarer`` then being the next leader."""
        ref = RefPlay(hands, trump, declarer)
        ref.n_tricks = tricks_done
        while not ref.done:
            seat = ref.to_act()
            assert self.turn == P(seat), (
                f"trick {ref.n_tricks + 1}, card {len(ref.trick) + 1}: rules say {P(seat)} acts, "
                f"env selects {self.turn}"
            )
            if passer is not None:
                assert self.turn != P(passer)
                assert not self.mask(passer).any(), "the passer has a non-zero mask during play"
            legal = ref.legal()
            if strict:
                got = self.legal()
                assert got == legal, (
                    f"{P(seat)} trick {ref.n_tricks + 1}: mask {sorted(map(cstr, got & set(ALL_CARDS)))}"
                    f" + {sorted(got - set(ALL_CARDS))}, rules allow {sorted(map(cstr, legal))}"
                )
                self.assert_only_turn_has_mask()
            card = rng.choice(sorted(legal)) if rng is not None else choose(legal)
            assert not self.done(), "the deal ended before 10 tricks were played"
            self.act(card)
            ref.play(card)
        return ref


def hands_after_discard(d: dict, declarer: int, discards: Sequence[int]) -> list[set[int]]:
    hands, pk = deal_cards(d)
    hands[declarer] |= set(pk)
    hands[declarer] -= set(discards)
    return hands


def auction_script(first: int, bids: Sequence[int]) -> tuple[list[tuple[int, int]], RefAuction]:
    """Attach the seats the reference says act to a list of auction actions."""
    ref = RefAuction(first)
    out = []
    for a in bids:
        out.append((ref.turn, a))
        ref.act(a)
    return out, ref


def auction_to(first: int, declarer: int, level: int) -> list[tuple[int, int]]:
    """The shortest auction (as ``(seat, action)`` pairs, by the reference rules) in which
    ``declarer`` wins with highest bid ``level`` (0 = spades ... 4 = best spades)."""
    import copy

    frontier: list[tuple[RefAuction, list[tuple[int, int]]]] = [(RefAuction(first), [])]
    while frontier:
        nxt = []
        for ref, path in frontier:
            for a in sorted(ref.legal()):
                r2 = copy.deepcopy(ref)
                seat = r2.turn
                r2.act(a)
                p2 = path + [(seat, a)]
                if r2.done:
                    if r2.declarer == declarer and r2.high == level:
                        return p2
                else:
                    nxt.append((r2, p2))
        frontier = nxt
    raise AssertionError("no such auction")
