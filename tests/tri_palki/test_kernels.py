"""Tri Palki's compiled rules (``envs/tri_palki/kernels.py``) against the readable reference
(``envs/tri_palki/rules.py``): every three-card hand, every swap of random tables, the sticks of
random final tables; and the scan that fails on a second definition of these rules."""

from __future__ import annotations

import ast
import re
from itertools import combinations

import numpy as np
import pytest
from folkcards.envs.tri_palki import kernels
from folkcards.envs.tri_palki.rules import (
    ANNOUNCE_VALUE,
    KIND_NAMES,
    NORMAL,
    NUM_CARDS,
    SWAP_ALL,
    SWAP_BASE,
    TRIPLES,
    hand_key,
    hand_kind,
    hand_value,
    settle,
)

from tests.paston.test_kernels import _package_files

HANDS = [sum(1 << c for c in combo) for combo in combinations(range(NUM_CARDS), 3)]


def test_every_hand_has_the_reference_key_kind_and_announce_right() -> None:
    assert len(HANDS) == 7140
    for hand in HANDS:
        key = kernels.hand_key(hand)
        assert key == hand_key(hand)
        assert KIND_NAMES[kernels.hand_kind(hand)] == hand_kind(hand)
        assert kernels.may_announce(hand) == (
            hand_kind(hand) == KIND_NAMES[NORMAL] and hand_value(hand) == ANNOUNCE_VALUE
        )
        assert kernels.one_suit(hand) == TRIPLES[hand].one_suit


@pytest.mark.parametrize("seed", range(5))
def test_swaps_agree_with_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(300):
        cards = rng.choice(NUM_CARDS, 6, replace=False)
        hand = int(sum(1 << int(c) for c in cards[:3]))
        centre = int(sum(1 << int(c) for c in cards[3:]))
        for action in range(SWAP_BASE, SWAP_ALL + 1):
            new_hand, new_centre, gave, took = kernels.swap(hand, centre, action)
            if action == SWAP_ALL:
                assert (new_hand, new_centre, gave, took) == (centre, hand, hand, centre)
                continue
            h, c = divmod(action - SWAP_BASE, 3)
            give, take = TRIPLES[hand].cards[h], TRIPLES[centre].cards[c]  # as swap_cards
            assert (gave, took) == (1 << give, 1 << take)
            assert new_hand == hand & ~(1 << give) | 1 << take
            assert new_centre == centre & ~(1 << take) | 1 << give


@pytest.mark.parametrize("seed", range(5))
def test_sticks_agree_with_the_reference_settlement(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    aces_tables = 0
    for _ in range(400):
        n = int(rng.integers(2, 12))
        deck = rng.permutation(NUM_CARDS)
        hands = [int(sum(1 << int(c) for c in deck[3 * s : 3 * s + 3])) for s in range(n)]
        if rng.random() < 0.2:  # three aces on the table more often than by chance
            hands[int(rng.integers(n))] = next(h for h in HANDS if hand_kind(h) == "three_aces")
            if len(set(hands)) < n or any(a & b for a in hands for b in hands if a is not b):
                continue
            aces_tables += 1
        reference = settle(hands, [True] * n, [0] * n, dealer=0)
        receivers, best = kernels.stick_receivers(np.array(hands, dtype=np.int64))
        assert [bool(receivers >> s & 1) for s in range(n)] == reference.stick
        normals = [s for s in range(n) if hand_kind(hands[s]) == "normal"]
        assert best == (max(normals, key=lambda s: hand_key(hands[s])) if normals else -1)
    assert aces_tables > 10


# --- each rule once ---------------------------------------------------------------------------

ALLOWED = {"envs/tri_palki/kernels.py", "envs/tri_palki/rules.py"}


def rule_definitions(source: str) -> list[tuple[str, str]]:
    """(rule, function) of each function in ``source`` that computes Tri Palki's hand key, hand
    kind, swap or stick rule itself instead of calling the kernels."""
    found = []
    tree = ast.parse(source)
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(scope) if isinstance(n, ast.Attribute)}
        text = ast.unparse(scope)
        if "SUIT_POINTS" in names and "KEY_VALUE_SHIFT" in names and "<<" in text:
            found.append(("hand key", scope.name))
        if {"SIXES", "ACES"} <= names or {"SIX_SEVEN_EIGHT", "ACES"} <= names:
            found.append(("hand kind", scope.name))
        if "SWAP_BASE" in names and "// 3" in text and "% 3" in text:
            found.append(("swap", scope.name))
        if {"THREE_ACES", "NORMAL"} <= names and re.search(
            r"key\w*\s*<|<\s*\w*key|min\(.*key", text
        ):
            found.append(("stick rule", scope.name))
    return sorted(set(found))


def test_each_tri_palki_rule_is_defined_once() -> None:
    files = _package_files()
    assert {rel for rel, _ in files} >= ALLOWED
    offenders = [
        f"{rel}: {rule} in {function}"
        for rel, path in files
        if rel not in ALLOWED
        for rule, function in rule_definitions(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "call envs/tri_palki/kernels.py instead: " + "; ".join(offenders)


def test_the_reference_and_the_kernels_are_found_by_the_scan() -> None:
    found = {
        rule for rel, path in _package_files() if rel in ALLOWED
        for rule, _ in rule_definitions(path.read_text(encoding="utf-8"))
    }  # fmt: skip
    assert found == {"hand key", "hand kind", "swap", "stick rule"}


PLANTED = {
    "hand key": """
def _key(mask):
    best = -1
    for s in range(4):
        ranks = (mask >> (NUM_RANKS * s)) & RANK_BITS
        if ranks:
            key = (SUIT_POINTS[ranks] << KEY_VALUE_SHIFT) | (ranks << KEY_RANKS_SHIFT) | s
            best = max(best, key)
    return best
""",
    "hand kind": """
def _kind(mask):
    if mask & SIXES == mask:
        return SAFE
    if mask & ACES == mask:
        return THREE_ACES
    return NORMAL
""",
    "swap": """
def _apply(hand, centre, action):
    h = (action - SWAP_BASE) // 3
    c = (action - SWAP_BASE) % 3
    return hand ^ _nth_bit(hand, h) ^ _nth_bit(centre, c)
""",
    "stick rule": """
def _settle(hands, n):
    any_aces, low_seat, low_key = False, -1, 0
    for seat in range(n):
        kind = _kind(hands[seat])
        if kind == THREE_ACES:
            any_aces = True
        elif kind == NORMAL and (low_seat < 0 or _key(hands[seat]) < low_key):
            low_seat, low_key = seat, _key(hands[seat])
    return any_aces, low_seat
""",
}


@pytest.mark.parametrize("rule", sorted(PLANTED))
def test_a_planted_second_definition_is_caught(rule: str) -> None:
    assert rule in {found for found, _ in rule_definitions(PLANTED[rule])}
