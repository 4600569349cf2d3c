"""Helpers for the Tri Palki rulebook tests, written from ``docs/rules/tri_palki.md``
and the public contract (``docs/envs/``) only (never from the environment's code).

They give: card ids and strings (§1), a reference hand evaluator (§2, §6, §7), a deck
builder that puts chosen hands / centre / reserve at the deck positions of the deal (§3),
a tiny table model that tracks swaps and washes (§4, §5) so that tests can compute the
swap action ids of the public contract, and small drivers for the AEC loop.

This module is loaded by file path from the test module (``tests/paston`` may hold a
module with the same name).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import numpy as np

# ---------------------------------------------------------------- cards (§1)

SUITS = "SCDH"  # S=0 C=1 D=2 H=3
RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]  # 6=0 ... A=8
POINTS = [6, 7, 8, 9, 10, 10, 10, 10, 11]
ALL_CARDS = list(range(36))

# action ids (api.md)
PASS = 0
SWAP_ALL = 10
ANNOUNCE = 11
NO_ANNOUNCE = 12
NUM_ACTIONS = 13
NORMAL_MASK = frozenset(range(11))  # pass, nine swap-one, swap-all
ANNOUNCE_MASK = frozenset({ANNOUNCE, NO_ANNOUNCE})


def cid(card) -> int:
    """Card id from an id or a string such as ``"10H"`` / ``"as"``."""
    if isinstance(card, (int, np.integer)):
        return int(card)
    s = str(card).strip().upper()
    return 9 * SUITS.index(s[-1]) + RANKS.index(s[:-1])


def cstr(card) -> str:
    i = cid(card)
    return RANKS[i % 9] + SUITS[i // 9]


def suit_of(card) -> int:
    return cid(card) // 9


def rank_of(card) -> int:
    return cid(card) % 9


def points(card) -> int:
    return POINTS[rank_of(card)]


# ---------------------------------------------------------- hand value (§2)


def suit_key(hand, suit):
    cards = [cid(c) for c in hand if suit_of(c) == suit]
    return (
        sum(points(c) for c in cards),
        tuple(sorted((rank_of(c) for c in cards), reverse=True)),
        suit,
    )


def hand_key(hand):
    """Comparison key: value, scoring ranks top down, scoring suit (H>D>C>S)."""
    return max(suit_key(hand, s) for s in {suit_of(c) for c in hand})


def hand_value(hand) -> int:
    return hand_key(hand)[0]


def hand_kind(hand) -> str:
    ids = [cid(c) for c in hand]
    ranks = sorted(rank_of(c) for c in ids)
    if ranks == [8, 8, 8]:
        return "three_aces"
    if ranks == [0, 0, 0]:
        return "safe"
    if ranks == [0, 1, 2] and len({suit_of(c) for c in ids}) == 1:
        return "safe"
    return "normal"


def is_normal_31(hand) -> bool:
    return hand_kind(hand) == "normal" and hand_value(hand) == 31


def stick_receivers(hands: Mapping[int, Sequence]) -> set[int]:
    """Seats that receive a stick (§6). ``hands``: seat -> hand, surviving seats only."""
    kinds = {s: hand_kind(h) for s, h in hands.items()}
    normals = [s for s, k in kinds.items() if k == "normal"]
    if "three_aces" in kinds.values():
        return set(normals)
    if not normals:
        return set()
    return {min(normals, key=lambda s: hand_key(hands[s]))}


def next_surviving(seat: int, alive: set[int], n: int) -> int:
    """Next surviving seat clockwise after ``seat`` (increasing order, wrapping)."""
    for k in range(1, n + 1):
        s = (seat + k) % n
        if s in alive:
            return s
    raise AssertionError("nobody survives")


def next_dealer(hands: Mapping[int, Sequence], dealer: int, alive_after: set[int], n: int) -> int:
    """Next dealer (§7)."""
    normals = [s for s, h in hands.items() if hand_kind(h) == "normal"]
    if not normals:
        return dealer
    best = max(normals, key=lambda s: hand_key(hands[s]))
    if best in alive_after:
        return best
    return next_surviving(best, alive_after, n)


# ------------------------------------------------------------- the deal (§3)


def deal_positions(n: int, dealer: int):
    """For each of the first 3n+3 deck positions: the seat it goes to, or 'C'."""
    out = []
    for _ in range(3):
        for k in range(n):
            out.append((dealer + 1 + k) % n)
        out.append("C")
    return out


def build_deck(n: int, dealer: int, hands, centre, reserve=(), as_ids=False):
    """All 36 cards in deal order.

    ``hands``: a list of n hands (index = seat) or a dict seat -> hand (3 cards each; seats
    missing from a dict are filled with unused cards). ``centre``: 3 cards. ``reserve``: the
    top of the reserve, top first; the other unused cards follow, suits interleaved.
    """
    if isinstance(hands, Mapping):
        hands = {int(k): [cid(c) for c in v] for k, v in hands.items()}
    else:
        hands = {i: [cid(c) for c in h] for i, h in enumerate(hands)}
    centre = [cid(c) for c in centre]
    reserve = [cid(c) for c in reserve]
    used = [c for h in hands.values() for c in h] + centre + reserve
    assert len(used) == len(set(used)), f"repeated card in test setup: {sorted(map(cstr, used))}"
    # unused cards, suits interleaved (rank-major), so filler never gives a one-suit run
    free = sorted((c for c in ALL_CARDS if c not in used), key=lambda c: (rank_of(c), suit_of(c)))
    for s in range(n):
        if s not in hands:
            hands[s] = [free.pop(0) for _ in range(3)]
    assert all(len(hands[s]) == 3 for s in range(n)) and len(centre) == 3
    deck = []
    given = {s: list(h) for s, h in hands.items()}
    cen = list(centre)
    for pos in deal_positions(n, dealer):
        deck.append(cen.pop(0) if pos == "C" else given[pos].pop(0))
    deck += reserve + free
    assert sorted(deck) == ALL_CARDS, "deck is not the 36 cards once each"
    return deck if as_ids else [cstr(c) for c in deck]


def neutral_centre(exclude, k=3):
    """Three unused cards showing at least two suits (no wash at the deal)."""
    ex = {cid(c) for c in exclude}
    free = [c for c in ALL_CARDS if c not in ex]
    first = free[0]
    second = next(c for c in free if suit_of(c) != suit_of(first))
    third = next(c for c in free if c not in (first, second))
    return [cstr(first), cstr(second), cstr(third)]


class Table:
    """Reference model of hands, centre, reserve and washes (§3, §4), for action ids."""

    def __init__(self, n: int, dealer: int, deck):
        deck = [cid(c) for c in deck]
        self.n = n
        self.hands = {s: [] for s in range(n)}
        self.centre = []
        for i, pos in enumerate(deal_positions(n, dealer)):
            (self.centre if pos == "C" else self.hands[pos]).append(deck[i])
        self.reserve = deck[3 * n + 3 :]
        self.washed = []
        self.reserve_empty = False
        self.washes = 0
        self._wash()

    def _one_suit(self):
        return len({suit_of(c) for c in self.centre}) == 1

    def _wash(self):
        while self._one_suit():
            if len(self.reserve) < 3:
                self.reserve_empty = True
                return
            self.washed += self.centre
            self.centre, self.reserve = self.reserve[:3], self.reserve[3:]
            self.washes += 1

    def swap_id(self, seat: int, give, take) -> int:
        h = sorted(self.hands[seat]).index(cid(give))
        c = sorted(self.centre).index(cid(take))
        return 1 + 3 * h + c

    def swap(self, seat: int, give, take) -> int:
        """Apply a swap-one; return its action id. ``self.washes`` counts washes."""
        a = self.swap_id(seat, give, take)
        g, t = cid(give), cid(take)
        self.hands[seat][self.hands[seat].index(g)] = t
        self.centre[self.centre.index(t)] = g
        self._wash()
        return a

    def swap_all(self, seat: int) -> int:
        self.hands[seat], self.centre = list(self.centre), list(self.hands[seat])
        self._wash()
        return SWAP_ALL


# ----------------------------------------------------------------- drivers


def agent(i: int) -> str:
    return f"player_{i}"


def seat(name: str) -> int:
    return int(name.rsplit("_", 1)[1])


def make_env(n=4, episode="round", reward="sticks", max_turns=200):
    from folkcards.envs import tri_palki_v0

    return tri_palki_v0.raw_env(num_players=n, episode=episode, reward=reward, max_turns=max_turns)


def reset(env, deck, dealer, sticks=None, seed=0):
    options = {"dealer": dealer, "deck": list(deck)}
    if sticks is not None:
        options["sticks"] = list(sticks)
    return env.reset(seed=seed, options=options)


def setup(
    n,
    dealer,
    hands,
    centre,
    reserve=(),
    sticks=None,
    episode="round",
    reward="sticks",
    max_turns=200,
    seed=0,
):
    """A raw env reset to the given deal; returns (env, Table model)."""
    deck = build_deck(n, dealer, hands, centre, reserve)
    env = make_env(n, episode=episode, reward=reward, max_turns=max_turns)
    reset(env, deck, dealer, sticks=sticks, seed=seed)
    return env, Table(n, dealer, deck)


def mask_of(env, name=None) -> frozenset:
    name = env.agent_selection if name is None else name
    m = np.asarray(env.observe(name)["action_mask"])
    return frozenset(int(i) for i in np.flatnonzero(m))


def act(env, action):
    """Step ``action`` after checking it is in the acting agent's mask."""
    m = mask_of(env)
    assert action in m, f"{env.agent_selection}: action {action} not in mask {sorted(m)}"
    env.step(action)


def all_done(env) -> bool:
    return bool(env.agents) and all(env.terminations[a] or env.truncations[a] for a in env.agents)


def all_terminated(env) -> bool:
    return bool(env.agents) and all(env.terminations[a] for a in env.agents)


def pass_turn(env, decline=True):
    """Pass; if the same player is then offered the announcement, decline it."""
    who = env.agent_selection
    act(env, PASS)
    if (
        decline
        and not all_done(env)
        and env.agent_selection == who
        and mask_of(env) == ANNOUNCE_MASK
    ):
        act(env, NO_ANNOUNCE)


def skip_dead(env, totals=None, infos=None):
    """Dead-step terminated/truncated agents (standard AEC loop), collecting their rewards."""
    while env.agents:
        a = env.agent_selection
        if not (env.terminations[a] or env.truncations[a]):
            return
        _, r, _, _, info = env.last()
        if totals is not None:
            totals[a] = totals.get(a, 0) + r
        if infos is not None:
            infos[a] = copy.deepcopy(info)
        env.step(None)


def to_py(x):
    if isinstance(x, Mapping):
        return {k: to_py(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [to_py(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def snapshot(env):
    """Everything public about the env, to check that a refused call changed nothing."""
    return to_py(
        {
            "selection": env.agent_selection,
            "agents": list(env.agents),
            "terminations": dict(env.terminations),
            "truncations": dict(env.truncations),
            "infos": copy.deepcopy(env.infos),
            "rewards": dict(env._cumulative_rewards),
            "obs": {a: env.observe(a) for a in env.possible_agents},
        }
    )
