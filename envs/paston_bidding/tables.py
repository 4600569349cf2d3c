"""Open-hand tables for Paston: every way a deal can be played once the auction is over, solved.

A table holds, for each of N fixed deals, the open-hand (double-dummy) result of every
declarer seat, every reachable contract and every defence, so that a bidding environment scores
a deal by a lookup (as bridge bidding research does with double-dummy tables: OpenSpiel's
uncontested bridge bidding, Pgx's bridge bidding dataset). ``docs/bidding_benchmark.md`` is the
user's page; this docstring is the reference. This module reads tables (data: the bidding env
never runs the solver for a table deal); :mod:`folkcards.search.paston_table_maker` makes them
(``folkcards tables``).

What is solved
--------------
For a deal (three dealt hands, the prikup, the dealer) and each declarer seat ``d``:

- **Contracts.** After a high bid at level ``b`` the declarer names a contract of level
  ``max(b, 0)`` to hearts, or best spades only after a best-spades bid (``paston.md`` §4). The
  *minimum level* ``m = max(b, 0)`` (0..4) therefore fixes the reachable trumps:
  ``m=0``: S C D H; ``m=1``: C D H; ``m=2``: D H; ``m=3``: H; ``m=4``: S (best spades). The
  tricks depend on the trump only, so best spades reads the spades entry of its group.
- **Discards (the rule this table defines).** The declarer's 12 cards (dealt hand + prikup)
  lose two before the contract is named. For each minimum level ``m`` the table's declarer
  discards the pair that maximises its open-hand tricks against *two* defenders, maximised over
  the trumps reachable from ``m`` (it names the contract after discarding, knowing the cards,
  so it discards for its best contract). Ties go to the first pair in the candidate order.
- **Candidates.** Only pairs made of the lowest card of a suit: the two lowest cards of one
  suit, or the lowest cards of two suits (at most 10 pairs, of the 66). Keeping a higher card of
  a suit instead of a lower one never costs the declarer a trick open-handed (every card the
  lower one beats, the higher one beats too), so the best pair is among these; the test suite
  checks the maximum against all 66 pairs on sampled deals.
- **Defences.** Both defenders (index 0), the declarer's left alone (1), the declarer's right
  alone (2), each scored as ``paston_bidding_v0`` credits tricks: the declarer's open-hand count
  and, with two defenders, each defender's guarantee (:mod:`.solved_scores`).

Why this rule, and what it costs: the discard is a real decision in Paston and an open-hand
table cannot hold all 66 pairs × 4 trumps × 3 defences per declarer (about 2,400 solves a deal).
The chosen pair is the open-hand declarer's best for the contracts it may still name, which is
what a declarer with a good discard policy aims at, and it is chosen before the contract, as in
the game. Costs: a table-scored env cannot let an agent choose the discards (the batched
bidding env plays the table's pair); the pair is optimal for the two-defender count, not for the
score after a sole defence or for the declarer's expected score under an uncertain defence; and
choosing it takes one exact solve and up to nine target queries per trump and declarer: over 20
deals, 83 ms of CPU per deal against 64 ms for solving the chosen pairs' entries.

Layout (``TABLE_FORMAT`` 1)
---------------------------
A file is ``MAGIC``, an 8-byte little-endian header length, a UTF-8 JSON header (sorted keys),
then each array's bytes compressed with zlib, in the header's order. The header holds
``format``, ``rules`` (the rules the results follow), ``generator`` (the parameters: seed,
deals, deal procedure, discard rule, solver), ``arrays`` (name, dtype, shape, offset and length of
each compressed block) and ``sha256``, the checksum of the uncompressed arrays (name, dtype,
shape and bytes in order), which :func:`load_table` verifies. Arrays (N deals):

| name | dtype, shape | meaning |
|---|---|---|
| `dealer` | uint8 (N,) | the dealer seat (the first bidder is the dealer's left) |
| `hands` | uint32 (N, 3) | each seat's dealt hand, a mask over card ids ``8 * suit + rank`` |
| `prikup` | uint32 (N,) | the two prikup cards, a mask |
| `discards` | uint32 (N, 3, 5) | [deal, declarer, minimum level]: the two discarded cards, a mask |
| `results` | uint8 (N, 3, 5, 4, 3, 3) | [deal, declarer, minimum level, trump, defence, value] |

``defence``: 0 both defenders, 1 the declarer's left alone, 2 the declarer's right alone.
``value``: 0 the declarer's tricks, 1 the guarantee of the declarer's left, 2 that of the
declarer's right (a sole defender's is its tricks); ``UNUSED`` (255) for an absent defender and
for trumps the minimum level cannot reach.

Deal ``i`` is ``random_deal`` (``paston_v0``'s deal procedure, not a game's first deal) with the
generator ``numpy.random.default_rng([seed, i])`` after drawing its dealer from the same
generator, so a deal does not depend on the number of workers or chunks, and a table of N deals
is the first N deals of any larger table with the same seed.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..cards import PASTON_CARDS, mask_to_cards
from ..paston.rules import (
    BEST_SPADES,
    LEVEL_TRUMP,
    NUM_SEATS,
    NUM_TRICKS,
    left_of,
    random_deal,
    right_of,
)
from .solved_scores import OpenHandResult, sole_defender_result, two_defender_result

__all__ = [
    "MAGIC",
    "TABLE_FORMAT",
    "UNUSED",
    "OpenHandTable",
    "load_table",
    "table_deal",
    "candidate_pairs",
    "reachable_trumps",
    "defence_seats",
    "shipped_table_path",
]

MAGIC = b"FOLKCARDS PASTON OPEN-HAND TABLE\n"
TABLE_FORMAT = 1
RULES = "paston_v0 (docs/rules/paston.md); tricks credited as paston_bidding_v0"
DISCARD_RULE = "best-two-defender-count-over-reachable-trumps/lowest-of-suit-pairs/v1"
UNUSED = 255
NUM_LEVELS = 5  # minimum contract level 0..4 (best spades)
NUM_TRUMPS = 4
NUM_DEFENCES = 3  # both, left alone, right alone
DEFENCE_NAMES = ("both", "left", "right")
DEFAULT_CHUNK = 16
SHIPPED_NAME = "open_hand_3000.table"  # in this package's data/
SHIPPED_DEALS = 3000
SHIPPED_SEED = 2025


def reachable_trumps(min_level: int) -> tuple[int, ...]:
    """The trumps of the contracts a declarer may name when the lowest legal level is
    ``min_level`` (best spades only after a best-spades bid)."""
    if min_level == BEST_SPADES:
        return (LEVEL_TRUMP[BEST_SPADES],)
    return tuple(LEVEL_TRUMP[level] for level in range(min_level, BEST_SPADES))


def defence_seats(declarer: int, defence: int) -> list[int]:
    """The defending seats of defence index 0 (both), 1 (left alone) or 2 (right alone)."""
    return [[left_of(declarer), right_of(declarer)], [left_of(declarer)], [right_of(declarer)]][
        defence
    ]


def candidate_pairs(twelve: int) -> list[int]:
    """The discard candidates of a 12-card hand, as masks in the table's order: every pair of
    lowest-of-suit cards (the two lowest of one suit, or the lowest of two suits), sorted by
    their card ids."""
    lows: list[int] = []
    pairs: set[tuple[int, int]] = set()
    for suit in range(4):
        cards = mask_to_cards((twelve >> (8 * suit) & 0xFF) << (8 * suit))
        if cards:
            lows.append(cards[0])
        if len(cards) >= 2:
            pairs.add((cards[0], cards[1]))
    for i, a in enumerate(lows):
        for b in lows[i + 1 :]:
            pairs.add((a, b))
    return [(1 << a) | (1 << b) for a, b in sorted(pairs)]


def table_deal(seed: int, index: int) -> tuple[int, list[int], int]:
    """Deal ``index`` of the tables with ``seed``: (dealer, dealt hands, prikup)."""
    rng = np.random.default_rng([seed, index])
    dealer = int(rng.integers(NUM_SEATS))
    hands, prikup = random_deal(rng, dealer, first_deal=False)
    return dealer, hands, prikup


ARRAY_NAMES = ("dealer", "hands", "prikup", "discards", "results")


# --- the file -------------------------------------------------------------------------------


def checksum(arrays: dict[str, np.ndarray]) -> str:
    """The SHA-256 of the arrays (name, dtype, shape and bytes in order), as the header stores."""
    digest = hashlib.sha256()
    for name in ARRAY_NAMES:
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{list(array.shape)}\n".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class OpenHandTable:
    """A loaded table: the header and the arrays of the layout (see the module docstring)."""

    header: dict[str, Any]
    dealer: np.ndarray
    hands: np.ndarray
    prikup: np.ndarray
    discards: np.ndarray
    results: np.ndarray

    def __len__(self) -> int:
        return len(self.dealer)

    @property
    def seed(self) -> int:
        return int(self.header["generator"]["seed"])

    def deal_option(self, index: int) -> dict[str, Any]:
        """Deal ``index`` as the envs' ``reset(options=...)``: ``dealer`` and ``deal``."""
        index = self._index(index)
        return {
            "dealer": int(self.dealer[index]),
            "deal": {
                "hands": [
                    [PASTON_CARDS.name(c) for c in mask_to_cards(int(h))] for h in self.hands[index]
                ],
                "prikup": [PASTON_CARDS.name(c) for c in mask_to_cards(int(self.prikup[index]))],
            },
        }

    def discard_pair(self, index: int, declarer: int, min_level: int) -> list[int]:
        """The two card ids the table's declarer discards."""
        index = self._index(index)
        return mask_to_cards(int(self.discards[index, declarer, min_level]))

    def result(
        self, index: int, declarer: int, min_level: int, trump: int, defenders: list[int]
    ) -> OpenHandResult:
        """The credited tricks of one entry (as ``paston_bidding_v0`` credits them)."""
        index = self._index(index)
        if trump not in reachable_trumps(min_level):
            raise ValueError(f"trump {trump} is not reachable from minimum level {min_level}")
        seats = sorted(defenders)
        options = [sorted(defence_seats(declarer, d)) for d in range(NUM_DEFENCES)]
        if seats not in options:
            raise ValueError(f"defenders {defenders} are not a defence against {declarer}")
        defence = options.index(seats)
        value = self.results[index, declarer, min_level, trump, defence]
        if defence == 0:
            return two_defender_result(
                declarer, NUM_TRICKS, int(value[0]), int(value[1]), int(value[2])
            )
        return sole_defender_result(declarer, seats[0], NUM_TRICKS, int(value[0]))

    def _index(self, index: int) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"a deal index must be an int, got {index!r}")
        if not 0 <= index < len(self):
            raise ValueError(f"deal index {index} is outside the table's {len(self)} deals")
        return int(index)


def load_table(path: str | os.PathLike[str]) -> OpenHandTable:
    """Read and check a table file (magic, format, every block, the checksum)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read the table {path}: {error.strerror}") from None
    if not data.startswith(MAGIC):
        raise ValueError(f"{path} is not a folkcards Paston open-hand table")
    start = len(MAGIC) + 8
    size = int.from_bytes(data[len(MAGIC) : start], "little")
    try:
        header = json.loads(data[start : start + size])
    except ValueError:
        raise ValueError(f"{path}: the table's header is damaged") from None
    if header.get("format") != TABLE_FORMAT:
        raise ValueError(
            f"{path} has table format {header.get('format')!r}; this folkcards reads {TABLE_FORMAT}"
        )
    body = start + size
    arrays: dict[str, np.ndarray] = {}
    try:
        for spec in header["arrays"]:
            block = data[body + spec["offset"] : body + spec["offset"] + spec["length"]]
            raw = zlib.decompress(block)
            arrays[spec["name"]] = np.frombuffer(raw, dtype=np.dtype(spec["dtype"])).reshape(
                spec["shape"]
            )
    except (zlib.error, ValueError, KeyError, TypeError):
        raise ValueError(f"{path}: the table's data is damaged (truncated or altered)") from None
    if set(arrays) != set(ARRAY_NAMES) or checksum(arrays) != header.get("sha256"):
        raise ValueError(f"{path}: checksum mismatch, the table's data is damaged")
    header = {k: v for k, v in header.items() if k != "arrays"}
    native = {name: arrays[name].astype(arrays[name].dtype.newbyteorder("=")) for name in arrays}
    return OpenHandTable(header=header, **native)


def shipped_table_path() -> Path:
    """The small table that ships with the package (``SHIPPED_DEALS`` deals, ``SHIPPED_SEED``),
    made by ``folkcards tables --deals 3000 --seed 2025 --out FILE``."""
    return Path(__file__).parent / "data" / SHIPPED_NAME


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a whole table file (what ``folkcards tables`` prints)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
