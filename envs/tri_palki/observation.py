"""Tri Palki observations: the only place where hidden cards are redacted.

The vector is relative to the observer: relative seat 0 is the observer, then clockwise over
*all* seats (eliminated ones included), so its size depends on the number of players:
``121 + 45 * num_players`` (301 for 4 players). It holds exactly what the observer may know
(``tri_palki.md`` §9): its own hand, the centre, the washed cards, the reserve count, the cards
each seat is publicly known to hold from swaps, sticks, eliminations, the dealer, whose turn it
is, the announcement, the final turns, the consecutive passes and the turns taken this round. Never another hand's hidden
cards, the reserve order, or whether another player was offered (or declined) the announcement:
while a player decides, the others see the table as it will be if that player declines.

:func:`observation_layout` names every slice; :func:`decode` turns a vector back into a
:class:`TriPalkiView` for agents, so that an agent built on it can never see more than the
vector; :func:`encode_view` is its inverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .rules import (
    ACTION,
    ANNOUNCE_DECISION,
    ELIMINATED_STICKS,
    KIND_NAMES,
    MAX_PLAYERS,
    MAX_RESERVE,
    MIN_PLAYERS,
    NUM_CARDS,
    OVER,
    PHASE_NAMES,
    TRIPLES,
    TriPalkiRound,
)

PASSES_SCALE = float(MAX_PLAYERS)  # consecutive passes are divided by 11
VALUE_SCALE = 31.0
TURNS_HORIZON = 200  # the `turns` piece is turns ÷ min(max_turns, 200), capped at 1


def observation_layout(num_players: int) -> tuple[tuple[str, int, str], ...]:
    """``(name, size, description)`` of every piece of the vector, in order, for ``num_players``."""
    n = num_players
    return (
        ("hand", 36, "1 for each card id (9·suit + rank) in the observer's hand"),
        ("centre", 36, "the face-up centre cards"),
        ("washed", 36, "cards washed out of the centre this round (face up, out of play)"),
        (
            "known",
            36 * n,
            "for each relative seat (0 = observer, then clockwise over all seats, 36 each): the "
            "cards publicly known to be in that seat's hand — taken from the centre by a swap and "
            "not swapped out since",
        ),
        ("reserve_count", 1, f"cards left in the reserve ÷ {MAX_RESERVE}"),
        (
            "reserve_low",
            1,
            "1 if fewer than 3 reserve cards remain: a wash now would end the round",
        ),
        (
            "sticks",
            4 * n,
            "sticks held by each relative seat, one-hot 0, 1, 2, 3 (4 each; all 0 once eliminated)",
        ),
        ("eliminated", n, "1 for each relative seat eliminated from the match"),
        ("dealer", n, "relative seat of this round's dealer"),
        (
            "to_act",
            n,
            "relative seat whose turn it is (all 0 once the round is over); while another player "
            "decides whether to announce, the seat that acts next if they do not",
        ),
        ("announced", 1, "1 once the last round has been announced"),
        ("announcer", n, "relative seat that announced"),
        (
            "final_turn_pending",
            n,
            "1 for each relative seat that still has (or is taking) its final turn after the "
            "announcement",
        ),
        ("passes", 1, f"consecutive passes so far ÷ {MAX_PLAYERS:g} (0 after an announcement)"),
        (
            "pass_ends_round",
            1,
            "1 if one more pass ends the round (no announcement, passes = survivors − 1)",
        ),
        (
            "turns",
            1,
            f"turns taken in this round ÷ min(max_turns, {TURNS_HORIZON}), capped at 1: how near "
            "the round is to truncation, or how long it has lasted",
        ),
        (
            "phase",
            3,
            "action, announce (the observer is deciding whether to announce), over "
            "(others never see another player's announce decision)",
        ),
        ("hand_value", 1, "own hand's best single-suit value ÷ 31 (0 without a hand)"),
        ("hand_kind", 3, "own hand: normal, safe, three aces (all 0 without a hand)"),
    )


@cache
def _offsets(num_players: int) -> dict[str, int]:
    offsets: dict[str, int] = {}
    offset = 0
    for name, size, _ in observation_layout(num_players):
        offsets[name] = offset
        offset += size
    offsets["_size"] = offset
    return offsets


def observation_size(num_players: int) -> int:
    """Length of the observation vector: ``121 + 45 * num_players``."""
    return _offsets(num_players)["_size"]


def observation_offsets(num_players: int) -> dict[str, int]:
    """Start index of every named piece for ``num_players``."""
    offsets = dict(_offsets(num_players))
    del offsets["_size"]
    return offsets


_CARD_PIECE_SLICE = np.s_[:, :NUM_CARDS]


def encode(
    rnd: TriPalkiRound, observer: int, sticks: list[int], max_turns: int | None = None
) -> np.ndarray:
    """The observation vector of seat ``observer`` (float32, :func:`observation_size`).

    ``sticks`` holds every seat's sticks, 4 for an eliminated seat; ``max_turns`` is the env's
    truncation limit (the ``turns`` piece stays 0 without it; it counts turns against
    ``min(max_turns, TURNS_HORIZON)``).
    """
    n = rnd.num_seats
    o = _offsets(n)
    rel = [(observer + r) % n for r in range(n)]
    known = rnd.known
    masks = np.array(
        [rnd.hands[observer], rnd.centre, rnd.washed] + [known[s] for s in rel], dtype="<u8"
    )
    obs = np.zeros(o["_size"], dtype=np.float32)
    card_end = o["reserve_count"]
    obs[:card_end] = (
        np.unpackbits(masks.view(np.uint8), bitorder="little")
        .reshape(-1, 64)[_CARD_PIECE_SLICE]
        .ravel()
    )

    ones = []
    phase = rnd.phase
    to_act = rnd.to_act
    turns = rnd.turns
    if phase == ANNOUNCE_DECISION and to_act != observer:
        # The offer and the answer are private: show the table as after a decline (which
        # completes the decider's turn).
        phase = ACTION
        to_act = rnd.left[to_act]
        turns += 1
    reserve = rnd.reserve_count
    obs[o["reserve_count"]] = reserve / MAX_RESERVE
    if reserve < 3:
        ones.append(o["reserve_low"])
    t_sticks = o["sticks"]
    t_elim = o["eliminated"]
    for r in range(n):
        count = sticks[rel[r]]
        if count >= ELIMINATED_STICKS:
            ones.append(t_elim + r)
        else:
            ones.append(t_sticks + 4 * r + count)
    ones.append(o["dealer"] + (rnd.dealer - observer) % n)
    if to_act >= 0:
        ones.append(o["to_act"] + (to_act - observer) % n)
    if rnd.announcer >= 0:
        ones.append(o["announced"])
        ones.append(o["announcer"] + (rnd.announcer - observer) % n)
        if phase != OVER:
            seat = to_act
            t = o["final_turn_pending"]
            for _ in range(rnd.final_left):
                ones.append(t + (seat - observer) % n)
                seat = rnd.left[seat]
    elif phase != OVER and rnd.passes == rnd.survivors - 1:
        ones.append(o["pass_ends_round"])
    obs[o["passes"]] = (rnd.passes if rnd.announcer < 0 else 0) / PASSES_SCALE
    ones.append(o["phase"] + phase)
    if max_turns:
        obs[o["turns"]] = min(1.0, turns / min(max_turns, TURNS_HORIZON))
    hand = rnd.hands[observer]
    if hand:
        info = TRIPLES[hand]
        obs[o["hand_value"]] = info.value / VALUE_SCALE
        ones.append(o["hand_kind"] + info.kind)
    obs[ones] = 1.0
    return obs


@dataclass
class TriPalkiView:
    """What one player knows, decoded from its observation vector. Seats are relative:
    0 = the observer, then clockwise over all seats (eliminated ones included)."""

    num_players: int
    hand: list[int]
    centre: list[int]
    washed: list[int]
    known: list[list[int]]  # per relative seat: cards publicly known to be in its hand
    reserve_count: int
    sticks: list[int]  # per relative seat; 4 = eliminated
    eliminated: list[bool]
    dealer: int
    to_act: int | None
    announced: bool
    announcer: int | None
    final_turn_pending: list[bool]
    passes: int
    pass_ends_round: bool
    phase: str  # "action", "announce" or "over"
    hand_value: int
    hand_kind: str | None  # "normal", "safe", "three_aces", or None without a hand
    turn_fraction: float = 0.0  # turns taken this round ÷ max_turns

    @property
    def survivors(self) -> int:
        return self.num_players - sum(self.eliminated)

    @property
    def reserve_low(self) -> bool:
        """Fewer than 3 reserve cards: a wash now would end the round."""
        return self.reserve_count < 3


def _infer_players(size: int) -> int:
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        if observation_size(n) == size:
            return n
    sizes = ", ".join(f"{observation_size(n)} ({n}p)" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
    raise ValueError(f"no Tri Palki observation has {size} elements; valid sizes: {sizes}")


def decode(obs: np.ndarray, num_players: int | None = None) -> TriPalkiView:
    """Turn an observation vector back into a :class:`TriPalkiView` (``num_players`` is
    inferred from the length when not given)."""
    obs = np.asarray(obs)
    if obs.ndim != 1:
        raise ValueError(f"a Tri Palki observation is a 1-d vector, got shape {obs.shape}")
    n = _infer_players(obs.shape[0]) if num_players is None else num_players
    if obs.shape != (observation_size(n),):
        raise ValueError(
            f"a {n}-player observation has {observation_size(n)} elements, got shape {obs.shape}"
        )
    o = _offsets(n)
    # one conversion to Python numbers, then plain slicing (a numpy call per piece cost more)
    values = obs.tolist()

    def piece(name: str, size: int) -> list[Any]:
        return values[o[name] : o[name] + size]

    def cards(bits: list[Any]) -> list[int]:
        return [c for c, bit in enumerate(bits) if bit]

    def one_hot(name: str, size: int) -> int | None:
        return next((i for i, bit in enumerate(piece(name, size)) if bit), None)

    def rows(name: str, count: int, width: int) -> list[list[Any]]:
        flat = piece(name, count * width)
        return [flat[k : k + width] for k in range(0, count * width, width)]

    known = rows("known", n, 36)
    stick_bits = rows("sticks", n, 4)
    eliminated = [bool(x) for x in piece("eliminated", n)]
    sticks = [
        ELIMINATED_STICKS if eliminated[r] else (cards(stick_bits[r]) or [0])[0] for r in range(n)
    ]
    phase = one_hot("phase", 3)
    kind = one_hot("hand_kind", 3)
    return TriPalkiView(
        num_players=n,
        hand=cards(piece("hand", 36)),
        centre=cards(piece("centre", 36)),
        washed=cards(piece("washed", 36)),
        known=[cards(known[r]) for r in range(n)],
        reserve_count=round(float(values[o["reserve_count"]]) * MAX_RESERVE),
        sticks=sticks,
        eliminated=eliminated,
        dealer=one_hot("dealer", n) or 0,
        to_act=one_hot("to_act", n),
        announced=bool(values[o["announced"]]),
        announcer=one_hot("announcer", n),
        final_turn_pending=[bool(x) for x in piece("final_turn_pending", n)],
        passes=round(float(values[o["passes"]]) * PASSES_SCALE),
        pass_ends_round=bool(values[o["pass_ends_round"]]),
        phase=PHASE_NAMES[phase if phase is not None else OVER],
        hand_value=round(float(values[o["hand_value"]]) * VALUE_SCALE),
        hand_kind=KIND_NAMES[kind] if kind is not None else None,
        turn_fraction=float(values[o["turns"]]),
    )


def encode_view(view: TriPalkiView) -> np.ndarray:
    """The observation vector of a :class:`TriPalkiView` (the inverse of :func:`decode`)."""
    n = view.num_players
    o = _offsets(n)
    obs = np.zeros(o["_size"], dtype=np.float32)
    obs[[o["hand"] + c for c in view.hand]] = 1.0
    obs[[o["centre"] + c for c in view.centre]] = 1.0
    obs[[o["washed"] + c for c in view.washed]] = 1.0
    for r in range(n):
        obs[[o["known"] + 36 * r + c for c in view.known[r]]] = 1.0
        if view.eliminated[r]:
            obs[o["eliminated"] + r] = 1.0
        else:
            obs[o["sticks"] + 4 * r + view.sticks[r]] = 1.0
        if view.final_turn_pending[r]:
            obs[o["final_turn_pending"] + r] = 1.0
    obs[o["reserve_count"]] = view.reserve_count / MAX_RESERVE
    obs[o["reserve_low"]] = float(view.reserve_count < 3)
    obs[o["dealer"] + view.dealer] = 1.0
    if view.to_act is not None:
        obs[o["to_act"] + view.to_act] = 1.0
    obs[o["announced"]] = float(view.announced)
    if view.announcer is not None:
        obs[o["announcer"] + view.announcer] = 1.0
    obs[o["passes"]] = view.passes / PASSES_SCALE
    obs[o["pass_ends_round"]] = float(view.pass_ends_round)
    obs[o["phase"] + PHASE_NAMES.index(view.phase)] = 1.0
    obs[o["turns"]] = view.turn_fraction
    obs[o["hand_value"]] = view.hand_value / VALUE_SCALE
    if view.hand_kind is not None:
        obs[o["hand_kind"] + KIND_NAMES.index(view.hand_kind)] = 1.0
    return obs


def layout_table(num_players: int = 4) -> str:
    """The observation layout for ``num_players`` as a Markdown table (for docs)."""
    rows = ["| index | size | piece | meaning |", "|---|---|---|---|"]
    o = _offsets(num_players)
    for name, size, text in observation_layout(num_players):
        start = o[name]
        span = f"{start}" if size == 1 else f"{start}–{start + size - 1}"
        rows.append(f"| {span} | {size} | `{name}` | {text} |")
    return "\n".join(rows)
