"""What the web table sends to a browser, built only from observations.

:func:`seat_view` turns one seat's observation into JSON with absolute seat numbers and card names:
nothing in it comes from the env's state, so a page can never hold a card its seat may not see.
:func:`public_event` is how one move looks to a given seat (a Paston discard is private; a Tri
Palki decision not to announce is never shown to the others). :func:`replay_frames` gives a
spectator's frames of a finished record: every seat's own view side by side after each move.
A :class:`SeatMemory` keeps what a seat saw happen that its observation no longer shows (Paston's
finished tricks and their winners), fed only that seat's observation and the moves;
:func:`score_sheet` is the running score of the finished deals or rounds, from their results,
which are public once each ends.

What differs between games is one :class:`WebLayout` per game, named by its registry entry
(``GameSpec.web_view``): :data:`PASTON_VIEW`, :data:`TRI_PALKI_VIEW`.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

from folkcards.envs.cards import PASTON_CARDS, TRI_PALKI_CARDS, CardSet
from folkcards.envs.paston.rules import trick_winner
from folkcards.envs.paston.vocabulary import LEVEL_NAMES
from folkcards.envs.registry import game_spec

# (view, seat, players, cards) -> None: the game's own finishing of a seat's view, in place
Finish = Callable[[dict[str, Any], int, int, CardSet], None]
# (action name, the actor's decoded view, actor, private to the actor) -> the event's text
Event = Callable[[str, Any, int, bool], str | None]
# (memory, the viewer's decoded view before the move, viewer, players, actor, action) -> events:
# the game's public history as the viewer saw it (e.g. finished tricks), kept in ``memory``
Follow = Callable[[dict[str, Any], Any, int, int, int, int], list[str]]
# (a seat's decoded view) -> whether it is the start of a deal or round (no move made yet)
UnitStart = Callable[[Any], bool]
# (memory, the seat's JSON view) -> the fields of the memory the view shows now
Recall = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
# (the results of the finished deals or rounds, players) -> the running score sheet's JSON
Sheet = Callable[[list[dict[str, Any]], int], dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class WebLayout:
    """How a game's decoded observation becomes the browser's JSON, and how moves read.

    Fields of the decoded view: ``seat_lists`` hold one entry per relative seat, ``seat_indexes``
    a relative seat; ``card_lists`` hold card ids, ``card_lists_per_seat`` one card list per
    seat. ``finish`` adds the game's own fields; ``event`` words a move for a viewer.
    ``prikup_key`` is the unit key of cards a spectator's replay lists per unit (``None``:
    none). ``page`` names the page's renderer of this game's table (``static/app.js``).
    ``follow`` keeps the public history a seat has seen (:class:`SeatMemory`), ``recall`` picks
    what of it a view shows (e.g. only the current deal's tricks); ``unit_start`` tells a view
    at the start of a deal or round (the table's history starts afresh there); ``sheet`` makes
    the running score sheet from the results of the finished deals or rounds, which are public.
    """

    cards: CardSet
    seat_lists: tuple[str, ...]
    seat_indexes: tuple[str, ...]
    card_lists: tuple[str, ...]
    card_lists_per_seat: tuple[str, ...]
    event: Event
    page: str
    finish: Finish | None = None
    prikup_key: str | None = None
    follow: Follow | None = None
    recall: Recall | None = None
    unit_start: UnitStart | None = None
    sheet: Sheet | None = None


def _absolute(seat: int, relative: int | None, players: int) -> int | None:
    return None if relative is None else (seat + relative) % players


def layout(game: str) -> WebLayout:
    """The game's :class:`WebLayout` (``UnsupportedError`` if it has none)."""
    return game_spec(game).piece("web_view")


class SeatMemory:
    """What one seat has seen happen that its observation no longer shows (the game's
    ``follow``, e.g. the last finished trick and who won each trick of the deal).

    :meth:`before_move` is called with every move before it is applied and reads only the
    seat's own observation and the move, so the memory holds nothing the seat did not see.
    """

    def __init__(self, game: str, seat: int):
        self.game = game
        self.seat = seat
        self.data: dict[str, Any] = {}
        self.units = 0  # deals or rounds begun so far, as the seat saw them begin

    def before_move(self, env: Any, actor: int, action: int) -> list[str]:
        """Note ``actor``'s ``action`` (about to be applied); the events it adds, e.g. a
        trick's winner."""
        web = layout(self.game)
        if web.follow is None and web.unit_start is None:
            return []
        players = len(env.possible_agents)
        observation = env.observe(env.possible_agents[self.seat])["observation"]
        view = game_spec(self.game).decode(observation, players)
        if web.unit_start is not None and web.unit_start(view):
            self.units += 1
        if web.follow is None:
            return []
        return web.follow(self.data, view, self.seat, players, actor, action)

    def recall(self, view: dict[str, Any]) -> dict[str, Any]:
        """The fields of the memory that ``view`` (a seat's JSON view now) shows."""
        recall = layout(self.game).recall
        return {} if recall is None else copy.deepcopy(recall(self.data, view))


def score_sheet(game: str, record: dict[str, Any], players: int) -> dict[str, Any] | None:
    """The running score sheet of a record's finished deals or rounds (public once each ends):
    ``{"unit", "rows": [{"label", "values", "note"}], "total", "higher_is_better"}``; ``None``
    for a game without a ``sheet`` piece."""
    units = record.get("deals") or record.get("rounds") or []
    return _sheet(game, [unit["result"] for unit in units if unit.get("result")], players)


def _sheet(game: str, results: list[dict[str, Any]], players: int) -> dict[str, Any] | None:
    spec = game_spec(game)
    sheet = layout(game).sheet
    if sheet is None:
        return None
    table = sheet(results, players)
    table.update(unit=spec.round_word, higher_is_better=spec.higher_is_better)
    return table


def seat_view(game: str, env: Any, seat: int, memory: SeatMemory | None = None) -> dict[str, Any]:
    """The JSON view of ``seat`` (an int) at this moment, from its observation alone (and the
    public history in its ``memory``, if given)."""
    spec = game_spec(game)
    web = layout(game)
    agent = env.possible_agents[seat]
    players = len(env.possible_agents)
    observation = env.observe(agent)
    view = dataclasses.asdict(spec.decode(observation["observation"], players))
    cards = web.cards
    for key in web.seat_lists:
        if view.get(key) is not None:
            rel = view[key]
            view[key] = [rel[(s - seat) % players] for s in range(players)]
    for key in web.seat_indexes:
        view[key] = _absolute(seat, view.get(key), players)
    for key in web.card_lists:
        view[key] = [cards.name(c) for c in view[key]]
    for key in web.card_lists_per_seat:
        view[key] = [[cards.name(c) for c in row] for row in view[key]]
    if web.finish is not None:
        web.finish(view, seat, players, cards)
    mask = observation["action_mask"]
    view["legal"] = [
        {"id": int(a), "name": env.action_to_string(int(a))} for a in mask.nonzero()[0]
    ]
    view.update(game=spec.name, seat=seat, players=players, page=web.page)
    if memory is not None:
        view.update(memory.recall(view))
    return view


def public_event(game: str, env: Any, actor: int, action: int, viewer: int | None) -> str | None:
    """How ``actor``'s move ``action`` (before it is applied) reads to ``viewer`` (``None``:
    a spectator of a finished game, who sees everything). ``None`` if the viewer sees nothing."""
    spec = game_spec(game)
    players = len(env.possible_agents)
    observation = env.observe(env.possible_agents[actor])["observation"]
    private_to_actor = viewer is not None and viewer != actor
    view = spec.decode(observation, players)
    return layout(game).event(env.action_to_string(action), view, actor, private_to_actor)


def replay_frames(game: str, record: dict[str, Any]) -> list[dict[str, Any]]:
    """A spectator's frames of a record: the start, then one frame after every move, each with
    every seat's own view (all hands shown) and the move's description."""
    spec = game_spec(game)
    env = spec.env_module().raw_env(**record["env_kwargs"])
    env.reset(seed=record["seed"], options=record.get("options") or None)
    players = len(env.possible_agents)

    units = record.get("deals") or record.get("rounds") or []
    unit_of_move = [i for i, unit in enumerate(units) for _ in unit["actions"]]

    # the sheet after a move: the units finished so far (a unit's result counts from its last
    # move on), read from the record once rather than rebuilt after every move
    results = [unit.get("result") for unit in units]
    last_move = list(itertools.accumulate(len(unit["actions"]) for unit in units))
    memory = SeatMemory(game, 0)  # the public history: the same for every seat

    def frame(event: str | None, unit: int, moves: int) -> dict[str, Any]:
        views = [seat_view(game, env, s) for s in range(players)]
        done = [
            r for u, r in enumerate(results) if r and u < len(last_move) and moves >= last_move[u]
        ]
        shown: dict[str, Any] = {"event": event, "unit": unit, "views": views}
        shown.update(memory.recall(views[0]), score_sheet=_sheet(game, done, players))
        return shown

    frames = [frame("dealt", 0, 0)]
    for move, (agent, action) in enumerate(record["actions"]):
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
        actor = env.possible_agents.index(agent)
        event = public_event(game, env, actor, action, None)
        more = memory.before_move(env, actor, action)
        if more:
            event = "; ".join([event or "", *more]) if event else "; ".join(more)
        env.step(action)
        unit = unit_of_move[move] if move < len(unit_of_move) else 0
        frames.append(frame(event, unit, move + 1))
    return frames


def unit_cards(game: str, record: dict[str, Any]) -> list[Any] | None:
    """The cards a replay lists per deal (Paston's prikups); ``None`` for a game without."""
    key = layout(game).prikup_key
    if key is None:
        return None
    units = record.get("deals") or record.get("rounds") or []
    return [unit.get(key) for unit in units]


# --- Paston ----------------------------------------------------------------------------------

_LEVELS = tuple(name.replace("_", " ") for name in LEVEL_NAMES)


def _paston_finish(view: dict[str, Any], seat: int, players: int, cards: CardSet) -> None:
    view["trick"] = [
        [_absolute(seat, rel, players), cards.name(card)] for rel, card in view["trick"]
    ]
    view["high_bid_name"] = None if view["high_bid"] is None else _LEVELS[view["high_bid"]]
    view["contract_name"] = None if view["contract"] is None else _LEVELS[view["contract"]]
    if view["totals"] is not None:  # the observation holds totals / 121 (clipped to ±2)
        view["totals"] = [round(total) for total in view["totals"]]


def _paston_follow(
    memory: dict[str, Any], view: Any, viewer: int, players: int, actor: int, action: int
) -> list[str]:
    """A card played in the play phase (public); when it ends a trick, the trick and its
    winner become ``last_trick`` and join ``tricks_won`` (this deal's tricks, in order)."""
    if view.phase != "play" or not 0 <= action < PASTON_CARDS.num_cards or view.trump is None:
        return []
    if not view.trick and not any(view.tricks):  # the first card of a deal
        memory["tricks_won"] = []
    trick = [(_absolute(viewer, rel, players), card) for rel, card in view.trick]
    trick.append((actor, action))
    if len(trick) < view.num_active:
        return []
    winner = trick_winner(trick, view.trump)
    number = sum(view.tricks) + 1
    done = {
        "number": number,
        "winner": winner,
        "cards": [[seat, PASTON_CARDS.name(card)] for seat, card in trick],
    }
    memory["last_trick"] = done
    memory.setdefault("tricks_won", []).append(done)
    return [f"trick {number} won by P{winner}"]


def _paston_recall(memory: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    """The tricks of the deal on the table (once a new deal is dealt, the last one's cards are
    no longer shown: they are in the new hands)."""
    played = {card for cards in view["played"] for card in cards}
    won = memory.get("tricks_won", [])
    if not all(card in played for trick in won for _, card in trick["cards"]):
        return {"last_trick": None, "tricks_won": []}
    return {"last_trick": memory.get("last_trick") if won else None, "tricks_won": won}


def _paston_sheet(results: list[dict[str, Any]], players: int) -> dict[str, Any]:
    rows = []
    total = None
    for number, result in enumerate(results, 1):
        seats = [result[f"player_{s}"] for s in range(players)]
        first = seats[0]
        declarer = first.get("declarer")
        note = first.get("outcome", "")
        if first.get("contract") and declarer:
            note = f"{first['contract'].replace('_', ' ')} by P{declarer.split('_')[1]}, {note}"
        rows.append(
            {"label": str(number), "values": [s["deal_score"] for s in seats], "note": note}
        )
        total = [s.get("total", s["deal_score"]) for s in seats]
    return {"rows": rows, "total": total}


def _paston_unit_start(view: Any) -> bool:
    return view.phase == "auction" and not any(view.bids) and not any(view.auction_passed)


def _paston_event(name: str, view: Any, actor: int, private_to_actor: bool) -> str | None:
    if view.phase == "discard" and private_to_actor:
        return f"P{actor} discards a card"
    return f"P{actor}: {name}"


PASTON_VIEW = WebLayout(
    cards=PASTON_CARDS,
    seat_lists=(
        "played",
        "auction_passed",
        "bids",
        "whist",
        "defence_pass",
        "tricks",
        "voids",
        "totals",
    ),
    seat_indexes=("trick_leader", "to_act", "dealer", "first_bidder", "high_bidder", "declarer"),
    card_lists=("hand", "prikup", "discards"),
    card_lists_per_seat=("played",),
    event=_paston_event,
    page="tricks",
    finish=_paston_finish,
    prikup_key="prikup",
    follow=_paston_follow,
    recall=_paston_recall,
    unit_start=_paston_unit_start,
    sheet=_paston_sheet,
)


# --- Tri Palki -------------------------------------------------------------------------------


def _tri_palki_event(name: str, view: Any, actor: int, private_to_actor: bool) -> str | None:
    who = f"P{actor}"
    if name == "no announce":
        return None if private_to_actor else f"{who}: does not announce"
    if name.startswith("swap ") and name != "swap all":
        _, give, take = name.split()
        return f"{who}: gives {give}, takes {take}"
    return f"{who}: {name}"


def _tri_palki_sheet(results: list[dict[str, Any]], players: int) -> dict[str, Any]:
    rows = []
    before = [0] * players
    for number, result in enumerate(results, 1):
        seats = [result[f"player_{s}"] for s in range(players)]
        after = [seat["sticks"] for seat in seats]
        gained = [a - b for a, b in zip(after, before, strict=True)]
        rows.append({"label": str(number), "values": gained, "note": seats[0].get("outcome", "")})
        before = after
    return {"rows": rows, "total": before if rows else None}


TRI_PALKI_VIEW = WebLayout(
    cards=TRI_PALKI_CARDS,
    seat_lists=("known", "sticks", "eliminated", "final_turn_pending"),
    seat_indexes=("dealer", "to_act", "announcer"),
    card_lists=("hand", "centre", "washed"),
    card_lists_per_seat=("known",),
    event=_tri_palki_event,
    page="swaps",
    unit_start=lambda view: view.turn_fraction == 0,  # no turn taken yet this round
    sheet=_tri_palki_sheet,
)


__all__ = [
    "PASTON_VIEW",
    "TRI_PALKI_VIEW",
    "SeatMemory",
    "WebLayout",
    "layout",
    "public_event",
    "replay_frames",
    "score_sheet",
    "seat_view",
    "unit_cards",
]
