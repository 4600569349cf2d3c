"""Tri Palki reconstruction: trying only the moves that can fit the next view loses nothing.

The reconstruction tries a single swap only when it ends the turn with the known cards the next
view shows or leaves a centre of one suit, a swap of all three only when that is the centre
taken or the turn goes on after a wash, and a wash only when the next view shows those cards
washed and the reserve that much smaller (``tri_palki.md`` §4-§5: washed cards stay face up, the
reserve count is public). The reference below is the exhaustive search: every card that could
be given, every hand that could be swapped, every wash. Whenever the exhaustive search finds
the histories within its budget, the pruned one finds the same histories with no more work."""

from __future__ import annotations

from itertools import combinations

import pytest
from folkcards.envs.cards import cards_to_mask, mask_to_cards
from folkcards.envs.tri_palki.rules import TRIPLES
from folkcards.search import tri_palki_reconstruction as recon

from .test_tri_palki_belief_history import _rounds

_PrunedFit = recon._Fit


class _ExhaustiveFit(_PrunedFit):
    """Every candidate move followed, each checked only at the end of the turn."""

    def single_swaps(self, ps, seat, path, pool, face):  # type: ignore[no-untyped-def]
        known, hidden = ps.known[seat], ps.hidden[seat]
        givable = known | (pool if hidden else 0)
        for took in TRIPLES[ps.centre].bits:
            for gave_card in mask_to_cards(givable):
                if not self.try_one():
                    return
                gave = 1 << gave_card
                from_hidden = not known & gave
                state = recon._swapped(
                    ps, seat, known & ~gave | took, hidden - from_hidden, ps.centre & ~took | gave
                )
                step = recon.OpponentStep(seat, recon.STEP_SWAP, gave, took, *face, self.survivors)
                self.washes(state, seat, path + (step,), pool & ~gave if from_hidden else pool)

    def swaps_of_all(self, ps, seat, path, pool, face):  # type: ignore[no-untyped-def]
        known, hidden = ps.known[seat], ps.hidden[seat]
        for combo in combinations(mask_to_cards(pool), hidden):
            if not self.try_one():
                return
            extra = cards_to_mask(combo)
            state = recon._swapped(ps, seat, ps.centre, 0, known | extra)
            step = recon.OpponentStep(
                seat, recon.STEP_SWAP_ALL, known | extra, ps.centre, *face, self.survivors
            )
            self.washes(state, seat, path + (step,), pool & ~extra)

    def _wash_fits(self, ps):  # type: ignore[no-untyped-def]
        return True


def _both(call, monkeypatch):  # type: ignore[no-untyped-def]
    """(histories, work) of ``call(counter)`` pruned, then exhaustive."""
    out = []
    for fit in (_PrunedFit, _ExhaustiveFit):
        monkeypatch.setattr(recon, "_Fit", fit)
        counter: dict[str, int] = {}
        out.append((call(counter), counter.get("reconstruction", 0)))
    return out


@pytest.mark.parametrize(("num_players", "rounds"), [(2, 30), (3, 30), (4, 20), (6, 24)])
def test_pruned_reconstruction_equals_the_exhaustive_one(num_players, rounds, monkeypatch):
    compared = 0
    previous = None
    for item in _rounds(num_players, rounds, seed=100 + num_players, noise=0.3):
        if item is None:
            previous = None
            continue
        _env, view, action = item
        if previous is None:
            pruned, exhaustive = _both(
                lambda c, v=view: recon.reconstruct_opening(v, counter=c), monkeypatch
            )
        else:
            pruned, exhaustive = _both(
                lambda c, b=previous, v=view: recon.reconstruct_steps(*b, v, counter=c),
                monkeypatch,
            )
        previous = (view, action)
        if exhaustive[0] is None:  # it gave up (or nothing fits): the pruned one may not
            continue
        compared += 1
        assert pruned[0] == exhaustive[0]
        assert pruned[1] <= exhaustive[1]
    assert compared >= rounds


def test_an_interval_with_more_fitting_histories_than_the_cap_gives_none():
    """``max_histories``: more ways the others' decisions may have gone than this is too
    ambiguous, and the reconstruction gives none; at or above the number that fit, all."""
    seen = 0
    previous = None
    for item in _rounds(6, 12, seed=7, noise=0.3):
        if item is None:
            previous = None
            continue
        _env, view, action = item
        if previous is not None:
            found = recon.reconstruct_steps(*previous, view, max_histories=64)
            if found is not None and len(found) >= 2:
                assert recon.reconstruct_steps(*previous, view, max_histories=len(found)) == found
                assert (
                    recon.reconstruct_steps(*previous, view, max_histories=len(found) - 1) is None
                )
                seen += 1
        previous = (view, action)
    assert seen >= 3
