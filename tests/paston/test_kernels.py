"""Paston's compiled rules (``envs/paston/kernels.py``) against the readable reference
(``envs/paston/rules.py``) on random play, and the check that each of these rules is written
once: a scan of the package's source for a second definition of the trick winner, the legal
cards or the score table."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import tomllib
from folkcards.envs.paston import kernels
from folkcards.envs.paston.rules import (
    DEFENCE,
    NUM_SEATS,
    OVER,
    PLAY,
    PastonDeal,
    random_deal,
    trick_winner,
)

REPO = Path(__file__).resolve().parents[2]


def _random_play(seed: int):
    """Every play-phase state of a seeded deal played with random legal actions, and its end."""
    rng = np.random.default_rng(seed)
    dealer = int(rng.integers(NUM_SEATS))
    hands, prikup = random_deal(rng, dealer, first_deal=False)
    deal = PastonDeal(hands, prikup, dealer, (dealer + 1) % NUM_SEATS)
    while deal.phase != OVER:
        legal = deal.legal_bits()
        bits = [a for a in range(legal.bit_length()) if legal >> a & 1]
        if deal.phase == DEFENCE:  # whist more often than not, so that most deals are played
            action = max(bits) if rng.random() < 0.8 else min(bits)
        else:
            action = int(rng.choice(bits))
        if deal.phase == PLAY:
            yield "play", deal, action
        deal.apply(action)
    yield "over", deal, None


@pytest.mark.parametrize("seed", range(40))
def test_kernels_agree_with_the_reference_rules(seed: int) -> None:
    for kind, deal, card in _random_play(1000 + seed):
        if kind == "play":
            led = deal.trick[0][1] >> 3 if deal.trick else -1
            hand = deal.hands[deal.to_act]
            assert kernels.legal_cards(hand, led, deal.trump) == deal.legal_bits()
            trick = [*deal.trick, (deal.to_act, card)]
            cards = np.array([c for _, c in trick], dtype=np.int64)
            winner = trick[kernels.trick_winner(cards, len(cards), deal.trump)][0]
            assert winner == trick_winner(trick, deal.trump)
            best = trick[0][1]
            for _, c in trick[1:]:
                if kernels.beats(c, best, deal.trump):
                    best = c
            assert dict((c, s) for s, c in trick)[best] == trick_winner(trick, deal.trump)
        elif deal.outcome == "played":
            sole = len(deal.active) == 2
            for seat in range(NUM_SEATS):
                if seat == deal.declarer:
                    expected = kernels.declarer_points(deal.tricks[seat], deal.level)
                elif seat in deal.active:
                    expected = kernels.defender_points(deal.tricks[seat], sole, deal.level)
                else:
                    expected = 0
                assert deal.scores[seat] == expected


def test_random_play_reaches_card_play_and_scored_deals() -> None:
    steps = [
        (kind, deal.outcome) for seed in range(40) for kind, deal, _ in _random_play(1000 + seed)
    ]
    assert sum(kind == "play" for kind, _ in steps) > 200
    assert sum(kind == "over" and outcome == "played" for kind, outcome in steps) > 5


def test_kernel_trick_winner_on_every_small_trick() -> None:
    rng = np.random.default_rng(7)
    for _ in range(5000):
        trump = int(rng.integers(4))
        count = int(rng.integers(2, 4))
        cards = rng.choice(32, count, replace=False).astype(np.int64)
        reference = trick_winner(list(enumerate(cards.tolist())), trump)
        assert kernels.trick_winner(cards, count, trump) == reference


# --- each rule once ---------------------------------------------------------------------------

# The only files that may state these rules: the compiled kernels and the readable reference.
ALLOWED = {"envs/paston/kernels.py", "envs/paston/rules.py"}


def _text(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_suit(node: ast.AST, suits: set[str]) -> bool:
    """``x >> 3`` (a card's suit), or a local name assigned from one."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.RShift):
        return isinstance(node.right, ast.Constant) and node.right.value == 3
    return isinstance(node, ast.Name) and node.id in suits


def _suit_mask_of(node: ast.AST) -> str | None:
    """The suit expression of ``SUIT_MASK[s]`` or ``0xFF << (8 * s)``; ``None`` otherwise."""
    if isinstance(node, ast.Subscript) and "SUIT_MASK" in _text(node.value):
        return _text(node.slice)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.LShift):
        left = node.left
        if (isinstance(left, ast.Constant) and left.value == 0xFF) or "SUIT_MASK" in _text(left):
            return _text(node.right)
    return None


def rule_definitions(source: str) -> list[tuple[str, str]]:
    """(rule, function) of each function in ``source`` that computes Paston's trick winner, legal
    cards or score table itself instead of calling the kernels."""
    found = []
    tree = ast.parse(source)
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in [tree, *scopes]:
        body = list(ast.walk(scope)) if scope is not tree else list(ast.iter_child_nodes(tree))
        name = getattr(scope, "name", "<module>")
        suits = {
            target.id
            for node in body
            if isinstance(node, ast.Assign) and _is_suit(node.value, set())
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        trump_compare = led_compare = rank = False
        trump_mask = other_mask = False
        for node in body:
            if isinstance(node, ast.Compare) and len(node.comparators) == 1:
                sides = [node.left, node.comparators[0]]
                for this, other in (sides, sides[::-1]):
                    if _is_suit(this, suits):
                        if "trump" in _text(other):
                            trump_compare = True
                        elif "led" in _text(other) or _is_suit(other, suits):
                            led_compare = True
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
                if isinstance(node.right, ast.Constant) and node.right.value == 7:
                    rank = True
                for operand in (node.left, node.right):
                    suit = _suit_mask_of(operand)
                    if suit is not None:
                        if "trump" in suit.lower():
                            trump_mask = True
                        else:
                            other_mask = True
            if isinstance(node, (ast.Tuple, ast.List)):
                values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                values |= {
                    -e.operand.value
                    for e in node.elts
                    if isinstance(e, ast.UnaryOp)
                    and isinstance(e.op, ast.USub)
                    and isinstance(e.operand, ast.Constant)
                }
                if {-10, -9} <= values:
                    found.append(("score table", name))
        if trump_compare and led_compare and rank:
            found.append(("trick winner", name))
        if trump_mask and other_mask:
            found.append(("legal cards", name))
    return sorted(set(found))


def _package_files() -> list[tuple[str, Path]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    files = []
    for folder in config["tool"]["setuptools"]["package-dir"].values():
        for path in sorted((REPO / folder).rglob("*.py")):
            files.append((path.relative_to(REPO).as_posix(), path))
    return files


def test_each_paston_rule_is_defined_once() -> None:
    seen = {rel for rel, _ in _package_files()}
    assert seen >= ALLOWED  # the scan looks where the rules are
    offenders = [
        f"{rel}: {rule} in {function}"
        for rel, path in _package_files()
        if rel not in ALLOWED
        for rule, function in rule_definitions(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "call envs/paston/kernels.py instead: " + "; ".join(offenders)


def test_the_reference_and_the_kernels_are_found_by_the_scan() -> None:
    found = {
        rule for rel, path in _package_files() if rel in ALLOWED
        for rule, _ in rule_definitions(path.read_text(encoding="utf-8"))
    }  # fmt: skip
    assert found == {"trick winner", "legal cards", "score table"}


# Second definitions as they were written before the kernels existed; each must be caught.
PLANTED = {
    "trick winner": [
        """
def _beats(card, best, trump):
    if card >> 3 == best >> 3:
        return (card & 7) > (best & 7)
    return card >> 3 == trump
""",
        """
def _winner_key(card, led, trump):
    suit = card >> 3
    if suit == trump:
        return 16 + (card & 7)
    if suit == led:
        return 8 + (card & 7)
    return 0
""",
        """
def _play(seat, st, i, leader, trump, num_active):
    first = seat[i, 7, leader]
    led = first >> 3
    best_key = (1 if led == trump else 0) * 16 + (first & 7) + 8
    for s in range(num_active - 1):
        c = seat[i, 7, s]
        if c >> 3 == trump:
            key = 16 + (c & 7) + 8
        elif c >> 3 == led:
            key = (c & 7) + 8
""",
    ],
    "legal cards": [
        """
def _legal(hand, led, trump):
    if led >= 0:
        follow = hand & (0xFF << (8 * led))
        if follow != 0:
            return follow
        trumps = hand & (0xFF << (8 * trump))
        if trumps != 0:
            return trumps
    return hand
""",
        """
def legal_bits(seat, st, i):
    hand = seat[i, 0, st[i, 2]]
    follow = hand & SUIT_MASK[seat[i, 7, st[i, 13]] >> 3]
    if follow:
        return follow
    trumps = hand & SUIT_MASK[st[i, TRUMP]]
    return trumps or hand
""",
    ],
    "score table": [
        """
def defender_score(tricks, sole):
    return (-10, -9, 0)[tricks] if tricks <= 2 else 10 * (tricks - 2)
""",
    ],
}


@pytest.mark.parametrize(
    "rule, source", [(rule, source) for rule, sources in PLANTED.items() for source in sources]
)
def test_a_planted_second_definition_is_caught(rule: str, source: str) -> None:
    assert rule in {found for found, _ in rule_definitions(source)}


def test_calls_to_the_kernels_are_not_definitions() -> None:
    source = """
from folkcards.envs.paston.kernels import beats, card_key, legal_cards

def follow(cards, best, trump, hand, led):
    for c in cards:
        if beats(c, best, trump):
            best = c
    strength = card_key(best, led, trump)
    keep = (10.0 if best >> 3 == trump else 0.0) + (best & 7)
    return legal_cards(hand, led, trump), strength, keep
"""
    assert rule_definitions(source) == []
