"""The rules pages in docs/rules: present, complete, consistent with the engine, self-contained.

Expected numbers are copied from the binding spec (paston.md §7, tri_palki.md §1, §8), not from the
pages, and the worked examples are recomputed with the engines' own scoring functions.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from folkcards.envs.paston import rules as paston
from folkcards.envs.tri_palki import rules as tri

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
PAGES = ("README.md", "paston.md", "tri_palki.md")


def _norm(text: str) -> str:
    """Unicode minus and multiplication sign as ASCII, no spaces: compare numbers, not layout."""
    return text.replace("\u2212", "-").replace("\u00d7", "x").replace("*", "x").replace(" ", "")


def _page(name: str) -> str:
    return (RULES / name).read_text(encoding="utf-8")


def _table_rows(text: str) -> list[list[str]]:
    """Cells of every Markdown table row in ``text`` (separator rows dropped)."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|") and not re.fullmatch(r"[|\-: ]+", line):
            rows.append([cell.strip() for cell in line[1:-1].split("|")])
    return rows


def _row(text: str, first_cell: str, width: int) -> list[str]:
    """The one table row of ``width`` cells whose first cell is ``first_cell``."""
    matches = [
        r
        for r in _table_rows(text)
        if len(r) == width and _norm(r[0]).lower() == _norm(first_cell).lower()
    ]
    assert len(matches) == 1, f"expected one table row starting {first_cell!r}, got {len(matches)}"
    return matches[0]


def _int(cell: str) -> int:
    return int(_norm(cell).replace("+", ""))


@pytest.mark.parametrize("name", PAGES)
def test_rules_page_exists_and_is_not_empty(name):
    assert (RULES / name).is_file(), f"docs/rules/{name} is missing"
    assert len(_page(name)) > 500


# --- Paston ---------------------------------------------------------------------------------

# paston.md §7 worked examples: (level, declarer tricks, defender tricks, sole, spec triple).
PASTON_PLAYED = [
    (paston.LEVEL_NAMES.index("best_spades"), 6, (3, 1), False, (10, 40, -36)),
    (paston.LEVEL_NAMES.index("spades"), 6, (3, 1), False, (10, 10, -9)),
    (paston.LEVEL_NAMES.index("hearts"), 5, (3, 2), False, (-40, 40, 0)),
    (paston.LEVEL_NAMES.index("diamonds"), 7, (3,), True, (30, -21)),
    (paston.LEVEL_NAMES.index("clubs"), 4, (6,), True, (-20, 40)),
]
# The same examples as the spec writes them; each must appear on the page.
PASTON_EXAMPLE_STRINGS = [
    "+10, +40, −36",
    "+10, +10, −9",
    "−40, +40, 0",
    "+30, −21, passer 0",
    "−20, +40, passer 0",
    "+40, 0, 0",
    "+10, 0, 0",
    "−10, +2, +2",
]


@pytest.mark.parametrize("expected", PASTON_EXAMPLE_STRINGS)
def test_paston_page_states_every_worked_example(expected):
    assert _norm(expected) in _norm(_page("paston.md"))


@pytest.mark.parametrize("level, declarer_tricks, defender_tricks, sole, expected", PASTON_PLAYED)
def test_paston_worked_examples_hold_in_the_engine(
    level, declarer_tricks, defender_tricks, sole, expected
):
    factor = paston.LEVEL_FACTOR[level]
    got = (paston.declarer_score(declarer_tricks, level),) + tuple(
        paston.defender_score(t, sole) * factor for t in defender_tricks
    )
    assert got == expected


def _deal_to_contract(bids: list[int]) -> paston.PastonDeal:
    """A random later deal (dealer 0) driven through ``bids`` and the two discards."""
    rng = np.random.default_rng(7)
    hands, prikup = paston.random_deal(rng, dealer=0, first_deal=False)
    deal = paston.PastonDeal(hands, prikup, dealer=0, first_bidder=paston.left_of(0))
    for action in bids:
        deal.apply(action)
    for _ in range(2):
        bits = deal.legal_bits()
        deal.apply((bits & -bits).bit_length() - 1)  # the lowest legal card
    return deal


def _bids_up_to(level: int) -> list[int]:
    """Seats 1, 2, 0, 1, ... bid each step up to ``level``; the other two then pass."""
    bids = [paston.BID_BASE + step for step in range(level + 1)]
    if level < paston.LEVEL_NAMES.index("best_spades"):
        bids += [paston.PASS, paston.PASS]
    return bids


@pytest.mark.parametrize("level", range(5))
def test_paston_surrender_example_holds_in_the_engine(level):
    deal = _deal_to_contract(_bids_up_to(level))
    declarer = deal.declarer
    deal.apply(paston.SURRENDER)
    scores = [deal.scores[declarer]] + [deal.scores[s] for s in range(3) if s != declarer]
    assert scores == [-10, 2, 2]


@pytest.mark.parametrize("name, expected", [("hearts", 40), ("best_spades", 10)])
def test_paston_automatic_win_example_holds_in_the_engine(name, expected):
    level = paston.LEVEL_NAMES.index(name)
    deal = _deal_to_contract(_bids_up_to(level))
    declarer = deal.declarer
    deal.apply(paston.CONTRACT_BASE + level)
    deal.apply(paston.PASS)
    deal.apply(paston.PASS)
    assert deal.outcome == "auto_win"
    assert [deal.scores[declarer]] + [deal.scores[s] for s in range(3) if s != declarer] == [
        expected,
        0,
        0,
    ]


def test_paston_page_states_the_score_table():
    text = _norm(_page("paston.md"))
    # paston.md §7: two defenders -10, -9, 0, +10(t-2); sole -10, -9, -8, -7, 0, +10(t-4).
    assert _norm("−10 / −9 / 0 / +10×(t−2)") in text
    assert _norm("−10 / −9 / −8 / −7 / 0 / +10×(t−4)") in text
    two = [-10, -9, 0] + [10 * (t - 2) for t in range(3, 11)]
    sole = [-10, -9, -8, -7, 0] + [10 * (t - 4) for t in range(5, 11)]
    declarer = [-10] * 6 + [10] * 5
    page = _page("paston.md")
    assert [_int(c) for c in _row(page, "tricks t", 12)[1:]] == list(range(11))
    assert [_int(c) for c in _row(page, "one of two defenders", 12)[1:]] == two
    assert [_int(c) for c in _row(page, "sole defender", 12)[1:]] == sole
    assert [_int(c) for c in _row(page, "declarer", 12)[1:]] == declarer
    assert [paston.defender_score(t, False) for t in range(11)] == two
    assert [paston.defender_score(t, True) for t in range(11)] == sole


def test_paston_page_states_the_factors():
    page = _page("paston.md")
    spec = {"spades": 1, "clubs": 2, "diamonds": 3, "hearts": 4, "best spades": 4}
    stated = {}
    for row in _table_rows(page):
        if len(row) == 5 and row[1] in spec and row[4].isdigit():
            stated[row[1]] = int(row[4])
    assert stated == spec
    assert list(paston.LEVEL_FACTOR) == list(spec.values())
    assert "spades 1, clubs 2, diamonds 3, hearts 4, best spades 4" in page


def test_paston_action_table_matches_the_engine():
    page = _page("paston.md")
    assert "Discrete(45)" in page
    assert paston.NUM_ACTIONS == 45
    named = {
        "pass": paston.PASS,
        "surrender": paston.SURRENDER,
        "whist": paston.WHIST,
        "bid spades": paston.BID_BASE,
        "bid best spades": paston.BID_BASE + 4,
        "contract hearts": paston.CONTRACT_BASE + 3,
        "contract best spades": paston.CONTRACT_BASE + 4,
    }
    for meaning, action in named.items():
        assert [str(action), meaning] in [r[:2] for r in _table_rows(page)], meaning


# --- Tri Palki ------------------------------------------------------------------------------


def test_tri_palki_page_states_the_card_points():
    page = _page("tri_palki.md")
    ranks = _row(page, "card", 10)[1:]
    points = [_int(c) for c in _row(page, "points", 10)[1:]]
    # tri_palki.md §1: A 11; K, Q, J 10; 10 to 6 their face value.
    spec = {"A": 11, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 9, "8": 8, "7": 7, "6": 6}
    assert dict(zip(ranks, points, strict=True)) == spec
    assert list(tri.POINTS) == [spec[r] for r in ("6", "7", "8", "9", "10", "J", "Q", "K", "A")]


# tri_palki.md §8, in the engine's card strings.
EXAMPLE = {"A": ["6H", "7H", "8H"], "B": ["AC", "AD", "AS"], "C": ["KD", "QD", "10D"]}
EXAMPLE["D"] = ["AH", "JH", "9H"]


def _mask(cards: list[str]) -> int:
    return sum(1 << c for c in tri.TRI_PALKI_CARDS.parse_cards(cards, "hand", 3))


def test_tri_palki_worked_example_hands():
    assert [tri.hand_kind(EXAMPLE[p]) for p in "ABCD"] == ["safe", "three_aces", "normal", "normal"]
    assert tri.hand_value(EXAMPLE["C"]) == tri.hand_value(EXAMPLE["D"]) == 30
    assert tri.hand_key(EXAMPLE["D"]) > tri.hand_key(EXAMPLE["C"])


@pytest.mark.parametrize("d_sticks, d_eliminated, next_dealer", [(0, False, 3), (3, True, 0)])
def test_tri_palki_worked_example_settles_as_the_spec_says(d_sticks, d_eliminated, next_dealer):
    hands = [_mask(EXAMPLE[p]) for p in "ABCD"]
    result = tri.settle(hands, [True] * 4, [0, 0, 0, d_sticks], dealer=0)
    assert result.stick == [False, False, True, True]  # C and D, because of B's aces
    assert result.eliminated == [False, False, False, d_eliminated]
    assert result.next_dealer == next_dealer  # D; if D is out, the next survivor after D (A)


def test_tri_palki_page_states_the_worked_example_outcome():
    text = _norm(_page("tri_palki.md"))
    for fact in (
        "C and D each receive a stick",
        "A and B receive none",
        "D deals next",
        "the next player still in the match",
    ):
        assert _norm(fact) in text, fact
    for hand in ("6♥ 7♥ 8♥", "A♣ A♦ A♠", "K♦ Q♦ 10♦", "A♥ J♥ 9♥"):
        assert _norm(hand) in text, hand


def test_tri_palki_more_cases_hold_in_the_engine_and_on_the_page():
    assert tri.hand_value(["KH", "7C", "KD"]) == 10
    assert tri.scoring_suit(["KH", "7C", "KD"]) == 3  # hearts
    first, second = ["AS", "9S", "7H"], ["KC", "QC", "8D"]
    assert tri.hand_value(first) == tri.hand_value(second) == 20
    assert tri.scoring_suit(first) == 0 and tri.scoring_suit(second) == 1
    assert tri.hand_key(first) > tri.hand_key(second)
    assert tri.hand_kind(["KS", "KC", "KD"]) == "normal"
    assert tri.hand_value(["KS", "KC", "KD"]) == 10
    text = _norm(_page("tri_palki.md"))
    for fact in ("worth 10, scoring suit hearts", "A♠ 9♠ 7♥ wins", "normal, worth 10"):
        assert _norm(fact) in text, fact


def test_tri_palki_action_table_matches_the_engine():
    page = _page("tri_palki.md")
    assert "Discrete(13)" in page
    assert tri.NUM_ACTIONS == 13
    rows = [r[:2] for r in _table_rows(page)]
    assert [str(tri.PASS), "pass"] in rows
    assert [str(tri.SWAP_ALL), "swap all three hand cards for all three centre cards"] in rows
    grid = [r for r in _table_rows(page) if r[0].startswith("**hand card")]
    assert [[int(c) for c in r[1:]] for r in grid] == [
        [tri.SWAP_BASE + 3 * h + c for c in range(3)] for h in range(3)
    ]


# --- both pages -----------------------------------------------------------------------------


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(h) for h in re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)}


def _links(text: str) -> list[str]:
    inline = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    reference = re.findall(r"^\s*\[[^\]]+\]:\s*(\S+)", text, re.M)
    return inline + reference


@pytest.mark.parametrize("name", PAGES)
def test_rules_links_stay_inside_the_repository_and_resolve(name):
    source = RULES / name
    links = _links(_page(name))
    if name == "README.md":
        assert {"paston.md", "tri_palki.md"} <= {link.partition("#")[0] for link in links}
    for link in links:
        assert not re.match(r"^[a-z][a-z0-9+.-]*:", link, re.I), f"{name}: external link {link}"
        target, _, anchor = link.partition("#")
        path = (source.parent / target).resolve() if target else source
        assert path.is_relative_to(ROOT), f"{name}: {link} points outside the repository"
        assert path.exists(), f"{name}: {link} points to a missing file"
        if anchor:
            assert anchor in _anchors(path), f"{name}: {link} has no such heading"


def test_rules_pages_mark_the_project_decisions():
    # paston.md has 7 decided points, tri_palki.md 3; each page marks at least as many.
    assert _page("paston.md").count("(project decision") >= 7
    assert _page("tri_palki.md").count("(project decision") >= 3
