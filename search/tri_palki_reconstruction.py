"""What a Tri Palki player can tell of the others' decisions from its own views.

An agent is shown the table only at its own decisions, not the public history.
:func:`reconstruct_steps` rebuilds, from two consecutive views of one observer (and its move in
between), every sequence of the other players' decisions that leads from one to the other
(:class:`OpponentStep`: passes, swaps with the cards given and taken, swaps of all three, and the
end of each turn, where a normal 31 would have been offered the announcement);
:func:`reconstruct_opening` does the same from the deal to the observer's first decision, trying
every three cards seen as the dealt centre. Swaps are public, so the ambiguity left is small
(which hidden card each of two players gave, what a wash brought): every fitting history is
kept. :mod:`folkcards.search.tri_palki_likelihood` then scores a world's hands by how likely
those decisions are under an opponent model.

**Bounded work.** A reconstruction counts its work and stops at a budget, so a decision costs at
most a known amount whatever the other players do: it tries at most ``budget`` candidate moves
(:data:`RECONSTRUCTION_BUDGET`) and then gives up. The budget counts work, not time: results
are deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import NamedTuple

from ..envs.cards import cards_to_mask, mask_to_cards, popcount
from ..envs.tri_palki import observation as obs_mod
from ..envs.tri_palki.rules import ANNOUNCE, PASS, SUIT_MASKS, SWAP_ALL, SWAP_BASE, TRIPLES

__all__ = [
    "MAX_HISTORIES",
    "RECONSTRUCTION_BUDGET",
    "STEP_OFFER",
    "STEP_PASS",
    "STEP_SWAP",
    "STEP_SWAP_ALL",
    "OpponentStep",
    "reconstruct_opening",
    "reconstruct_steps",
]


# Step kinds of an observed opponent decision (relative seats, masks), see :class:`OpponentStep`.
STEP_PASS, STEP_SWAP, STEP_SWAP_ALL, STEP_OFFER = "pass", "swap", "swap_all", "offer"
_MAX_NODES = 4000  # search nodes per reconstructed interval before giving up
MAX_HISTORIES = 8
"""Default most histories of one interval: more fitting than this is too ambiguous (``None``)."""
RECONSTRUCTION_BUDGET = 50_000
"""Default work budget of one reconstruction: candidate moves tried before giving up."""


class OpponentStep(NamedTuple):
    """One decision of another player, as the observer could reconstruct it (relative seats).

    ``kind`` is pass / swap / swap_all / offer. For a swap, ``gave`` and ``took`` are one-card
    masks; for swap all, the whole hand given and the centre taken. ``offer`` is the end of a turn
    without a wash: a player then holding a normal 31 (and no announcement made) is offered the
    announcement, ``gave`` = 1 if it announced. The other fields are the public table the player
    faced: the centre, the reserve count, the consecutive passes, whether someone had announced
    and how many players survive."""

    seat: int
    kind: str
    gave: int
    took: int
    centre: int
    reserve: int
    passes: int
    announced: bool
    survivors: int


class _Public(NamedTuple):
    """The public table between two of the observer's decisions (relative seats)."""

    centre: int
    known: tuple[int, ...]
    hidden: tuple[int, ...]  # unknown cards in each hand
    washed: int
    reserve: int
    passes: int
    to_act: int
    announcer: int  # -1: none
    final_left: int
    own: int  # the observer's hand


def _view_masks(view: obs_mod.TriPalkiView) -> tuple[int, tuple[int, ...], int, int]:
    known = tuple(cards_to_mask(k) for k in view.known)
    return cards_to_mask(view.centre), known, cards_to_mask(view.washed), cards_to_mask(view.hand)


def _visible(view: obs_mod.TriPalkiView) -> int:
    centre, known, washed, hand = _view_masks(view)
    mask = centre | washed | hand
    for k in known:
        mask |= k
    return mask


def _next_seat(seat: int, alive: Sequence[bool]) -> int:
    n = len(alive)
    for step in range(1, n + 1):
        if alive[(seat + step) % n]:
            return (seat + step) % n
    return seat


def _after_own_action(view: obs_mod.TriPalkiView, action: int) -> _Public | None:
    """The public table when the observer's turn has ended after ``action`` at ``view``, or
    ``None`` if the observer acts again (a wash, an announcement offer) or the round ends."""
    alive = [not e for e in view.eliminated]
    survivors = sum(alive)
    centre, known, washed, hand = _view_masks(view)
    known_l = list(known)
    announcer = -1 if view.announcer is None else view.announcer
    final_left = sum(view.final_turn_pending)
    passes = view.passes if announcer < 0 else 0
    announced_now = False
    if view.phase == "announce":
        if action == ANNOUNCE:
            announcer, final_left, announced_now = 0, survivors - 1, True
    elif action == PASS:
        passes += 1
        if announcer < 0 and passes >= survivors:
            return None
        if announcer < 0 and TRIPLES[hand].normal_31:
            return None
    elif SWAP_BASE <= action <= SWAP_ALL:
        passes = 0
        if action == SWAP_ALL:
            hand, centre = centre, hand
            known_l[0] = hand
        else:
            h, c = divmod(action - SWAP_BASE, 3)
            gave, took = TRIPLES[hand].bits[h], TRIPLES[centre].bits[c]
            hand, centre = hand ^ gave ^ took, centre ^ gave ^ took
            known_l[0] = known_l[0] & ~gave | took
        if TRIPLES[centre].one_suit or (announcer < 0 and TRIPLES[hand].normal_31):
            return None
    else:
        return None
    if announcer >= 0 and not announced_now:
        final_left -= 1
        if final_left <= 0:
            return None
    hidden = tuple(
        3 - popcount(known_l[s]) if alive[s] and s != 0 else 0 for s in range(len(alive))
    )
    return _Public(
        centre, tuple(known_l), hidden, washed, view.reserve_count, passes,
        _next_seat(0, alive), announcer, final_left, hand,
    )  # fmt: skip


def reconstruct_steps(
    before: obs_mod.TriPalkiView,
    action: int,
    after: obs_mod.TriPalkiView,
    *,
    budget: int = RECONSTRUCTION_BUDGET,
    counter: dict[str, int] | None = None,
    max_histories: int = MAX_HISTORIES,
) -> list[tuple[OpponentStep, ...]] | None:
    """Every sequence of other players' decisions that leads from the observer's decision
    ``before`` (where it played ``action``) to its next decision ``after`` (both views of the
    same observer; relative seats).

    Swaps are public, but the observer sees the table only at its own turns, so some details
    can be ambiguous (which hidden card a player gave when two players gave one each; which
    cards a wash brought): every public history that fits both views is returned (``None``
    when more than ``max_histories`` fit). ``[()]`` if nobody else acted (the observer acts again after a wash or an offer to
    announce); ``None`` if the views do not fit one round (a new round began) or the search
    gave up (after 4,000 players' turns, or when ``budget`` candidate moves were not enough;
    the moves tried, at most ``budget``, are added to ``counter["reconstruction"]``)."""
    if before.num_players != after.num_players or after.phase == "over":
        return None
    if after.to_act != 0 or before.turn_fraction > after.turn_fraction:
        return None
    start = _after_own_action(before, action)
    if start is None:
        same = (
            after.reserve_count <= before.reserve_count and _visible(before) & ~_visible(after) == 0
        )
        return [()] if same else None
    if after.phase != "action":
        return None
    seen_before = start.centre | start.washed | start.own
    for k in start.known:
        seen_before |= k
    seen_after = _visible(after)
    if seen_before & ~seen_after or start.own != cards_to_mask(after.hand):
        return None
    return _fit([(start, seen_after & ~seen_before)], after, budget, counter, max_histories)


def reconstruct_opening(
    view: obs_mod.TriPalkiView,
    *,
    budget: int = RECONSTRUCTION_BUDGET,
    counter: dict[str, int] | None = None,
    max_histories: int = MAX_HISTORIES,
) -> list[tuple[OpponentStep, ...]] | None:
    """Every sequence of other players' decisions from the deal to the observer's first
    decision ``view`` (relative seats), as :func:`reconstruct_steps`. The dealt centre is not
    seen, so every three cards seen now (not in the observer's hand) are tried as the dealt
    centre; ``None`` when a wash has happened (the dealt cards are then too uncertain) or the
    search gave up; ``[()]`` when the observer deals (it acts first)."""
    if view.phase != "action" or view.to_act != 0 or view.washed or view.announcer is not None:
        return None
    alive = [not e for e in view.eliminated]
    if round(view.turn_fraction * obs_mod.TURNS_HORIZON) >= sum(alive):
        return None  # more turns than one round of the table: not the first decision
    if view.dealer == 0:
        return [()]
    hand = cards_to_mask(view.hand)
    seen = _visible(view) & ~hand
    n = view.num_players
    hidden = tuple(3 if alive[s] and s != 0 else 0 for s in range(n))
    starts = []
    for combo in combinations(mask_to_cards(seen), 3):
        centre = cards_to_mask(combo)
        if TRIPLES[centre].one_suit:
            continue
        start = _Public(
            centre, (0,) * n, hidden, 0, view.reserve_count, 0, view.dealer, -1, 0, hand
        )
        starts.append((start, seen & ~centre))
    return _fit(starts, view, budget, counter, max_histories)


def _fit(
    starts: Sequence[tuple[_Public, int]],
    after: obs_mod.TriPalkiView,
    budget: int = RECONSTRUCTION_BUDGET,
    counter: dict[str, int] | None = None,
    max_histories: int = MAX_HISTORIES,
) -> list[tuple[OpponentStep, ...]] | None:
    """The other players' decisions that lead from one of ``starts`` (a public table and the
    cards still to appear) to the observer's decision ``after``; ``None`` if there are none,
    too many, or the search needed more than ``budget`` candidate moves (added to
    ``counter["reconstruction"]``)."""
    fit = _Fit(after, budget, max_histories)
    for start, pool in starts:
        fit.search(start, (), pool)
    if counter is not None:
        counter["reconstruction"] = counter.get("reconstruction", 0) + fit.work
    if not fit.results or fit.gave_up():
        return None
    return fit.results


def _swapped(ps: _Public, seat: int, known: int, hidden: int, centre: int) -> _Public:
    """Table ``ps`` after a swap of ``seat``: its known cards and hidden count, the centre."""
    new_known = list(ps.known)
    new_known[seat] = known
    new_hidden = list(ps.hidden)
    new_hidden[seat] = hidden
    return ps._replace(centre=centre, known=tuple(new_known), hidden=tuple(new_hidden), passes=0)


class _Fit:
    """The depth-first search of :func:`_fit`: from a public table, each other player's
    possible decisions in turn (pass, a single swap, swap all; washes and their replacement
    cards), kept when the table reaches the observer's decision ``after``. Every public fact of
    ``after`` (known cards at the end of each player's turn, the centre, washed cards, reserve,
    announcer, passes) prunes the search."""

    def __init__(
        self, after: obs_mod.TriPalkiView, budget: int, max_histories: int = MAX_HISTORIES
    ):
        self.centre, self.known, self.washed, _ = _view_masks(after)
        self.announcer = -1 if after.announcer is None else after.announcer
        self.passes = after.passes if self.announcer < 0 else 0
        self.reserve = after.reserve_count
        self.alive = [not e for e in after.eliminated]
        self.survivors = sum(self.alive)
        self.results: list[tuple[OpponentStep, ...]] = []
        self.nodes = 0  # players' turns searched
        self.work = 0  # candidate moves tried
        self.budget = budget
        self.max_histories = max_histories
        self.spent = False  # a candidate move was refused: the budget is spent

    def gave_up(self) -> bool:
        return self.nodes > _MAX_NODES or len(self.results) > self.max_histories or self.spent

    def try_one(self) -> bool:
        """Count one candidate move; ``False`` (the search gives up) once ``budget`` are."""
        if self.work >= self.budget:
            self.spent = True
            return False
        self.work += 1
        return True

    def search(self, ps: _Public, path: tuple[OpponentStep, ...], pool: int) -> None:
        """From table ``ps``: the observer is to act (keep ``path`` if the table is ``after``'s
        and every card due to appear has), or the player to act decides."""
        if ps.to_act != 0:
            self.act(ps, ps.to_act, path, pool)
            return
        if (
            pool == 0
            and ps.centre == self.centre
            and ps.washed == self.washed
            and ps.reserve == self.reserve
            and ps.announcer == self.announcer
            and (ps.passes if ps.announcer < 0 else 0) == self.passes
            and path not in self.results
        ):
            self.results.append(path)

    def act(self, ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        """Every decision of ``seat`` at table ``ps``."""
        self.nodes += 1
        if self.nodes > _MAX_NODES or len(self.results) > self.max_histories:
            return
        face = (ps.centre, ps.reserve, ps.passes if ps.announcer < 0 else 0, ps.announcer >= 0)
        passes = ps.passes + 1
        if ps.announcer >= 0 or passes < self.survivors:
            step = OpponentStep(seat, STEP_PASS, 0, 0, *face, self.survivors)
            self.turn_end(ps._replace(passes=passes), seat, path + (step,), pool)
        self.single_swaps(ps, seat, path, pool, face)
        self.swaps_of_all(ps, seat, path, pool, face)

    def single_swaps(
        self,
        ps: _Public,
        seat: int,
        path: tuple[OpponentStep, ...],
        pool: int,
        face: tuple[int, int, int, bool],
    ) -> None:
        """One card for one: a known card given, or a hidden one that shows later. Only the
        swaps that can fit ``after`` are tried: those that end the turn with its known cards,
        and those that leave a centre of one suit that ``after`` shows washed."""
        known, hidden, target = ps.known[seat], ps.hidden[seat], self.known[seat]
        givable = known | (pool if hidden else 0)
        can_wash = self._can_wash(ps)
        for took in TRIPLES[ps.centre].bits:
            rest = ps.centre & ~took
            fitting = 0
            if can_wash and rest & ~self.washed == 0:
                for suit in SUIT_MASKS:
                    if rest & ~suit == 0:
                        fitting |= givable & suit & self.washed
            for card in mask_to_cards(known):
                if known & ~(1 << card) | took == target:
                    fitting |= 1 << card
            if hidden and known | took == target:
                fitting |= pool
            for gave_card in mask_to_cards(fitting):
                if not self.try_one():
                    return
                gave = 1 << gave_card
                from_hidden = not known & gave
                state = _swapped(ps, seat, known & ~gave | took, hidden - from_hidden, rest | gave)
                step = OpponentStep(seat, STEP_SWAP, gave, took, *face, self.survivors)
                self.washes(state, seat, path + (step,), pool & ~gave if from_hidden else pool)

    def swaps_of_all(
        self,
        ps: _Public,
        seat: int,
        path: tuple[OpponentStep, ...],
        pool: int,
        face: tuple[int, int, int, bool],
    ) -> None:
        """All three: the known cards and any hidden ones become the centre. Unless the known
        cards end the turn as the centre taken, the turn must go on after a wash, so only hands
        of one suit that ``after`` shows washed are tried."""
        known, hidden = ps.known[seat], ps.hidden[seat]
        if ps.centre == self.known[seat]:
            combos: Iterable[tuple[int, ...]] = combinations(mask_to_cards(pool), hidden)
        elif self._can_wash(ps) and known & ~self.washed == 0:
            combos = (
                combo
                for suit in SUIT_MASKS
                if known & ~suit == 0
                for combo in combinations(mask_to_cards(pool & suit & self.washed), hidden)
            )
        else:
            return
        extras = map(cards_to_mask, combos)  # lazily: the budget may stop the loop early
        for extra in extras:
            if not self.try_one():
                return
            given = known | extra
            state = _swapped(ps, seat, ps.centre, 0, given)
            step = OpponentStep(seat, STEP_SWAP_ALL, given, ps.centre, *face, self.survivors)
            self.washes(state, seat, path + (step,), pool & ~extra)

    def _wash_fits(self, ps: _Public) -> bool:
        """Whether ``after`` shows the wash of ``ps``'s centre: those cards washed, and room in
        the reserve for it."""
        return ps.centre & ~self.washed == 0 and self._can_wash(ps)

    def _can_wash(self, ps: _Public) -> bool:
        """Whether ``after`` leaves room for one more wash from table ``ps`` (three reserve
        cards fewer)."""
        return ps.reserve - 3 >= self.reserve

    def washes(self, ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        """After an action of ``seat``: the turn ends, or the centre is washed (each
        replacement is any three cards still to appear) and the same player acts again."""
        if not TRIPLES[ps.centre].one_suit:
            self.turn_end(ps, seat, path, pool)
            return
        if ps.reserve < 3:
            return  # the round ended
        if not self._wash_fits(ps):
            return
        for combo in combinations(mask_to_cards(pool), 3):
            if self.nodes > _MAX_NODES or not self.try_one():
                return
            new = cards_to_mask(combo)
            state = ps._replace(centre=new, washed=ps.washed | ps.centre, reserve=ps.reserve - 3)
            if TRIPLES[new].one_suit:
                self.washes(state, seat, path, pool & ~new)
            else:
                self.act(state, seat, path, pool & ~new)

    def turn_end(self, ps: _Public, seat: int, path: tuple[OpponentStep, ...], pool: int) -> None:
        """The end of ``seat``'s turn: its known cards must be ``after``'s; the announcement
        offer (taken if ``after`` shows it as the announcer); the next player's turn."""
        if ps.known[seat] != self.known[seat]:
            return
        announces = ps.announcer < 0 and self.announcer == seat
        offer = OpponentStep(
            seat, STEP_OFFER, int(announces), 0, ps.centre, ps.reserve, ps.passes,
            ps.announcer >= 0, self.survivors,
        )  # fmt: skip
        announcer, final_left = ps.announcer, ps.final_left
        if announces:
            announcer, final_left = seat, self.survivors - 1
        elif announcer >= 0:
            final_left -= 1
            if final_left <= 0:
                return  # the round ended
        nxt = _next_seat(seat, self.alive)
        state = ps._replace(to_act=nxt, announcer=announcer, final_left=final_left)
        self.search(state, path + (offer,), pool)
