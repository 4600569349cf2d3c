"""Paston card-play features for learned agents (the ``paston_cards`` feature set).

A plain network sees Paston's cards as bits and must learn from them which card wins a trick,
which is the master of its suit and who can still trump it: what a search player computes
before anything else. This feature set computes them from the observation only
(``decode(observation)``: nothing the player does not see), the observation first, then:

- global (:data:`GLOBAL_FEATURES`): the player is the declarer; its position in the trick / 2;
  the trick's current winner is the declarer, or a defender; its own and the
  declarer's tricks / 10; tricks left / 10; trumps it has not seen / 8; a sole defence; the
  tricks its side still needs over what it needs in all (declarer 6, defender 2, sole 4);
- per card (:data:`CARD_FEATURES` for each of the 32 cards, whether held or not): played now,
  it would win the trick as it stands (always on lead); higher cards of its suit the player has
  not seen / 8 (0: the master of its suit); it is a trump; the player's cards of its suit / 8;
  cards of its suit the player has not seen / 8; the left and the right seat have shown a void
  in its suit; its rank / 7; it is a **sure winner**: it wins the trick as it stands and no
  unseen card can beat it in the hand of a seat still to play, given the voids shown (a seat
  not void in the led suit can follow higher; a seat not void in trumps may be void in the led
  suit and trump).

"Not seen" is every card outside the player's hand, the cards played, the trick and (for the
declarer) the prikup and discards; it includes the cards no one will play (the discards for a
defender, a passer's hand), which the player cannot tell apart.
"""

from __future__ import annotations

import numpy as np

from ..envs.cards import cards_to_mask
from ..envs.paston.observation import OBSERVATION_SIZE, PastonView, decode
from ..envs.paston.rules import (
    ALL_CARDS,
    DECLARER_NEED,
    DEFENDER_NEED,
    NUM_TRICKS,
    SOLE_DEFENDER_NEED,
    SUIT_MASKS,
    trick_winner,
)
from .features import FeatureSet

NUM_CARDS = 32
CARD_FEATURES = 9
GLOBAL_FEATURES = 10
EXTRA_SIZE = GLOBAL_FEATURES + CARD_FEATURES * NUM_CARDS


def _above(card: int) -> int:
    """The cards of ``card``'s suit ranked above it, as a bit mask."""
    return SUIT_MASKS[card >> 3] & ~((2 << card) - 1)


def _extra_size(obs_size: int) -> int:
    if obs_size != OBSERVATION_SIZE:
        raise ValueError(f"{obs_size} is not the size of a Paston observation ({OBSERVATION_SIZE})")
    return EXTRA_SIZE


def paston_card_extra(view: PastonView) -> np.ndarray:
    """The extra ``paston_cards`` elements of ``view`` (see the module docstring)."""
    extra = np.zeros(EXTRA_SIZE, dtype=np.float32)
    hand = cards_to_mask(view.hand)
    played = [card for cards in view.played for card in cards]
    trick = [card for _, card in view.trick]
    seen = hand | cards_to_mask([*played, *trick, *view.prikup, *view.discards])
    unseen = ALL_CARDS & ~seen
    trump = view.trump
    declarer = view.declarer
    sole = view.num_active == 2
    active = [r == declarer or view.whist[r] for r in range(3)]
    if declarer is not None:
        extra[0] = declarer == 0
        extra[5] = view.tricks[declarer] / NUM_TRICKS
        need = DECLARER_NEED if declarer == 0 else SOLE_DEFENDER_NEED if sole else DEFENDER_NEED
        extra[9] = max(0, need - view.tricks[0]) / need
    extra[1] = len(view.trick) / 2
    if view.trick and trump is not None:
        winner = trick_winner(view.trick, trump)
        extra[2] = winner == declarer
        extra[3] = winner != declarer
    extra[4] = view.tricks[0] / NUM_TRICKS
    extra[6] = (NUM_TRICKS - sum(view.tricks)) / NUM_TRICKS
    trumps = SUIT_MASKS[trump] if trump is not None else 0
    extra[7] = (unseen & trumps).bit_count() / 8
    extra[8] = sole
    # the seats still to play in this trick after the player (clockwise: left, then right)
    in_trick = {seat for seat, _ in view.trick}
    later = [r for r in (1, 2) if active[r] and r not in in_trick]
    led = view.trick[0][1] >> 3 if view.trick else None
    rows = extra[GLOBAL_FEATURES:].reshape(NUM_CARDS, CARD_FEATURES)  # a view into ``extra``
    for card in range(NUM_CARDS):
        suit = card >> 3
        row = rows[card]
        beats = False
        if trump is not None:
            beats = not view.trick or trick_winner([*view.trick, (0, card)], trump) == 0
        row[0] = beats
        row[1] = (unseen & _above(card)).bit_count() / 8
        row[2] = suit == trump
        row[3] = (hand & SUIT_MASKS[suit]).bit_count() / 8
        row[4] = (unseen & SUIT_MASKS[suit]).bit_count() / 8
        row[5] = view.voids[1][suit]
        row[6] = view.voids[2][suit]
        row[7] = (card & 7) / 7
        if beats and trump is not None:
            lead_suit = suit if led is None else led
            row[8] = not any(
                _can_beat(view.voids[r], card, lead_suit, trump, unseen) for r in later
            )
    return extra


def _can_beat(voids: list[bool], card: int, led: int, trump: int, unseen: int) -> bool:
    """Whether a seat still to play, void in the suits ``voids`` shows, may hold an unseen card
    beating ``card`` (the trick's winner so far) in a trick led in ``led``."""
    suit = card >> 3
    if suit == led and not voids[led] and unseen & _above(card):
        return True  # follows higher
    if led == trump or voids[trump]:
        return False  # cannot trump
    trumps = _above(card) if suit == trump else SUIT_MASKS[trump]
    return bool(unseen & trumps)  # may be void in the led suit and trump (higher)


def paston_cards(observation: np.ndarray) -> np.ndarray:
    """The ``paston_cards`` feature vector (observation first); see the module docstring."""
    obs = np.asarray(observation, dtype=np.float32)
    return np.concatenate([obs, paston_card_extra(decode(obs))])


PASTON_CARDS = FeatureSet("paston_cards", "paston", _extra_size, paston_cards)

__all__ = [
    "CARD_FEATURES",
    "EXTRA_SIZE",
    "GLOBAL_FEATURES",
    "PASTON_CARDS",
    "paston_card_extra",
    "paston_cards",
]
