"""Paston observations: the only place where hidden cards are redacted.

The vector is relative to the observer: relative seat 0 is the observer, 1 its left, 2 its
right. It holds exactly what the observer may know (``paston.md`` §9): its own hand, the prikup
and discards only if it is the declarer, the cards every seat has played, the current trick,
the auction, the contract, the defence, tricks taken, publicly revealed voids and the totals.
The passer's unused hand and the other hands never enter it.

:data:`OBSERVATION_LAYOUT` names every slice; :func:`decode` turns a vector back into a
:class:`PastonView` for agents, so that an agent built on it can never see more than the vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .rules import PastonDeal
from .vocabulary import LEVEL_TRUMP, NUM_LEVELS, NUM_SEATS, OVER, PHASE_NAMES

# (name, size, description) in order; each row is one documented piece of the vector.
OBSERVATION_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", 32, "1 for each card id in the observer's hand"),
    ("prikup", 32, "the two prikup cards, only once the observer is declarer and has taken them"),
    ("discards", 32, "the declarer's two discards, to the declarer only"),
    ("played", 96, "cards played so far by relative seat 0, 1, 2 (32 each)"),
    ("trick", 96, "the card each relative seat has put in the current trick (32 each)"),
    ("trick_leader", 3, "relative seat that led the current trick"),
    ("to_act", 3, "relative seat whose turn it is"),
    ("dealer", 3, "relative seat of the dealer"),
    ("first_bidder", 3, "relative seat of the first bidder"),
    ("phase", 6, "auction, discard, contract, defence, play, over"),
    ("auction_passed", 3, "1 for each relative seat that has passed in the auction"),
    ("high_bid", 5, "the auction's highest bid: spades, clubs, diamonds, hearts, best spades"),
    ("high_bidder", 3, "relative seat holding the highest bid"),
    ("bids", 15, "bids made: relative seat x level (5 levels each)"),
    ("all_pass", 1, "1 if all three passed and the J♠/7♠ holder was designated"),
    ("declarer", 3, "relative seat of the declarer"),
    ("contract", 5, "the named contract: spades, clubs, diamonds, hearts, best spades"),
    ("surrendered", 1, "1 if the declarer surrendered"),
    ("whist", 3, "1 for each relative seat that said whist"),
    ("defence_pass", 3, "1 for each relative seat that said pass in the defence"),
    ("tricks", 3, "tricks taken by each relative seat, divided by 10"),
    ("voids", 12, "publicly revealed voids: relative seat x suit (S, C, D, H)"),
    (
        "totals",
        3,
        "game totals by relative seat divided by 121, clipped to [-2, 2] (0 in deal mode)",
    ),
    ("game_mode", 1, "1 in game mode"),
)

OFFSETS: dict[str, int] = {}
_offset = 0
for _name, _size, _ in OBSERVATION_LAYOUT:
    OFFSETS[_name] = _offset
    _offset += _size
OBSERVATION_SIZE = _offset
CARD_PIECES_SIZE = OFFSETS["trick_leader"]  # the first nine 32-card pieces


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Per-element low and high of the observation Box."""
    low = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    high = np.ones(OBSERVATION_SIZE, dtype=np.float32)
    low[OFFSETS["totals"] : OFFSETS["totals"] + 3] = -2.0
    high[OFFSETS["totals"] : OFFSETS["totals"] + 3] = 2.0
    return low, high


def encode(deal: PastonDeal, observer: int, totals: list[int] | None = None) -> np.ndarray:
    """The observation vector of seat ``observer`` (float32, :data:`OBSERVATION_SIZE`)."""
    rel = [observer, (observer + 1) % NUM_SEATS, (observer + 2) % NUM_SEATS]
    is_declarer = deal.declarer == observer
    trick_masks = [0, 0, 0]
    for seat, card in deal.trick:
        trick_masks[(seat - observer) % NUM_SEATS] = 1 << card
    masks = np.array(
        [
            deal.hands[observer],
            deal.prikup if is_declarer and deal.prikup_taken else 0,
            deal.discards if is_declarer else 0,
            deal.played[rel[0]],
            deal.played[rel[1]],
            deal.played[rel[2]],
            trick_masks[0],
            trick_masks[1],
            trick_masks[2],
        ],
        dtype="<u4",
    )
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    obs[:CARD_PIECES_SIZE] = np.unpackbits(masks.view(np.uint8), bitorder="little")

    ones = []
    o = OFFSETS
    if deal.trick:
        ones.append(o["trick_leader"] + (deal.trick[0][0] - observer) % NUM_SEATS)
    if deal.to_act >= 0:
        ones.append(o["to_act"] + (deal.to_act - observer) % NUM_SEATS)
    ones.append(o["dealer"] + (deal.dealer - observer) % NUM_SEATS)
    ones.append(o["first_bidder"] + (deal.first_bidder - observer) % NUM_SEATS)
    ones.append(o["phase"] + deal.phase)
    for r in range(NUM_SEATS):
        seat = rel[r]
        if deal.passed[seat]:
            ones.append(o["auction_passed"] + r)
        bids = deal.bids[seat]
        level = 0
        while bids:
            if bids & 1:
                ones.append(o["bids"] + NUM_LEVELS * r + level)
            bids >>= 1
            level += 1
        if deal.defence[seat] == 1:
            ones.append(o["whist"] + r)
        elif deal.defence[seat] == 0:
            ones.append(o["defence_pass"] + r)
        voids = deal.voids[seat]
        for suit in range(4):
            if voids >> suit & 1:
                ones.append(o["voids"] + 4 * r + suit)
    if deal.high_bid >= 0:
        ones.append(o["high_bid"] + deal.high_bid)
        ones.append(o["high_bidder"] + (deal.high_bidder - observer) % NUM_SEATS)
    if deal.all_pass:
        ones.append(o["all_pass"])
    if deal.declarer >= 0:
        ones.append(o["declarer"] + (deal.declarer - observer) % NUM_SEATS)
    if deal.level >= 0:
        ones.append(o["contract"] + deal.level)
    if deal.surrendered:
        ones.append(o["surrendered"])
    obs[ones] = 1.0
    t = o["tricks"]
    obs[t] = deal.tricks[rel[0]] / 10.0
    obs[t + 1] = deal.tricks[rel[1]] / 10.0
    obs[t + 2] = deal.tricks[rel[2]] / 10.0
    if totals is not None:
        t = o["totals"]
        for r in range(NUM_SEATS):
            obs[t + r] = min(2.0, max(-2.0, totals[rel[r]] / 121.0))
        obs[o["game_mode"]] = 1.0
    return obs


@dataclass
class PastonView:
    """What one player knows, decoded from its observation vector. Seats are relative."""

    hand: list[int]
    prikup: list[int]
    discards: list[int]
    played: list[list[int]]
    trick: list[tuple[int, int]]  # (relative seat, card) in play order
    trick_leader: int | None
    to_act: int | None
    dealer: int
    first_bidder: int
    phase: str
    auction_passed: list[bool]
    high_bid: int | None
    high_bidder: int | None
    bids: list[list[int]]
    all_pass: bool
    declarer: int | None
    contract: int | None
    surrendered: bool
    whist: list[bool]
    defence_pass: list[bool]
    tricks: list[int]
    voids: list[list[bool]]
    totals: list[float] | None

    @property
    def trump(self) -> int | None:
        """The trump suit index (0..3) once a contract is named."""
        if self.contract is None:
            return None
        return LEVEL_TRUMP[self.contract]

    @property
    def num_active(self) -> int:
        """Players in the play: 3, or 2 with a sole defender."""
        return 1 + sum(self.whist)


SIZES: dict[str, int] = {name: size for name, size, _ in OBSERVATION_LAYOUT}


def decode(obs: np.ndarray) -> PastonView:
    """Turn an observation vector back into a :class:`PastonView`."""
    obs = np.asarray(obs)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(
            f"a Paston observation is a vector of {OBSERVATION_SIZE} elements, got shape {obs.shape}"
        )
    # one conversion to Python numbers, then plain slicing: a decision decodes its observation
    # once, and a numpy call per piece cost more than the rest of a bid
    values = obs.tolist()

    def piece(name: str) -> list[Any]:
        start = OFFSETS[name]
        return values[start : start + SIZES[name]]

    def cards(bits: list[Any]) -> list[int]:
        return [c for c, bit in enumerate(bits) if bit]

    def one_hot(name: str) -> int | None:
        return next((i for i, bit in enumerate(piece(name)) if bit), None)

    def rows(name: str, width: int) -> list[list[Any]]:
        flat = piece(name)
        return [flat[k : k + width] for k in range(0, len(flat), width)]

    trick_bits = rows("trick", 32)
    leader = one_hot("trick_leader")
    trick: list[tuple[int, int]] = []
    if leader is not None:
        for k in range(NUM_SEATS):
            r = (leader + k) % NUM_SEATS
            held = cards(trick_bits[r])
            if held:
                trick.append((r, held[0]))
    phase = one_hot("phase")
    totals = None
    if values[OFFSETS["game_mode"]] > 0:
        totals = [float(x) * 121.0 for x in piece("totals")]
    return PastonView(
        hand=cards(piece("hand")),
        prikup=cards(piece("prikup")),
        discards=cards(piece("discards")),
        played=[cards(row) for row in rows("played", 32)],
        trick=trick,
        trick_leader=leader,
        to_act=one_hot("to_act"),
        dealer=one_hot("dealer") or 0,
        first_bidder=one_hot("first_bidder") or 0,
        phase=PHASE_NAMES[phase if phase is not None else OVER],
        auction_passed=[bool(x) for x in piece("auction_passed")],
        high_bid=one_hot("high_bid"),
        high_bidder=one_hot("high_bidder"),
        bids=[cards(row) for row in rows("bids", NUM_LEVELS)],
        all_pass=bool(values[OFFSETS["all_pass"]]),
        declarer=one_hot("declarer"),
        contract=one_hot("contract"),
        surrendered=bool(values[OFFSETS["surrendered"]]),
        whist=[bool(x) for x in piece("whist")],
        defence_pass=[bool(x) for x in piece("defence_pass")],
        tricks=[round(float(x) * 10) for x in piece("tricks")],
        voids=[[bool(x) for x in row] for row in rows("voids", 4)],
        totals=totals,
    )


def layout_table() -> str:
    """The observation layout as a Markdown table (for docs)."""
    rows = ["| index | size | piece | meaning |", "|---|---|---|---|"]
    for name, size, text in OBSERVATION_LAYOUT:
        start = OFFSETS[name]
        span = f"{start}" if size == 1 else f"{start}–{start + size - 1}"
        rows.append(f"| {span} | {size} | `{name}` | {text} |")
    return "\n".join(rows)
