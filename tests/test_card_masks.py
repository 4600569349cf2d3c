"""The card bitmask helpers of ``folkcards.envs.cards``: a mask holds exactly the cards set in
it, whatever integer type carries it."""

from __future__ import annotations

import numpy as np
from folkcards.envs.cards import cards_to_mask, mask_to_cards, popcount


def test_a_mask_holds_the_cards_set_in_it() -> None:
    rng = np.random.default_rng(20261205)
    for _ in range(500):
        cards = sorted(set(rng.integers(0, 36, size=int(rng.integers(0, 37))).tolist()))
        mask = cards_to_mask(cards)
        assert mask_to_cards(mask) == cards
        assert popcount(mask) == len(cards)
        assert popcount(np.int64(mask)) == len(cards)
        assert popcount(np.uint64(mask)) == len(cards)


def test_the_empty_and_the_full_deck() -> None:
    assert popcount(0) == 0 and mask_to_cards(0) == []
    assert popcount((1 << 36) - 1) == 36
