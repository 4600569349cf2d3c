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
(``GameSpec.web_view``) and written with the game (``web/<game>_view.py``).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

from folkcards.envs.cards import CardSet
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
    ``dealt_key`` and ``prikup_key`` are the unit keys of the dealt cards and of the cards a
    spectator's replay lists per unit (``None``: none). ``page`` names the page's renderer of this game's table (``static/app.js``).
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
    dealt_key: str
    finish: Finish | None = None
    prikup_key: str | None = None
    follow: Follow | None = None
    recall: Recall | None = None
    unit_start: UnitStart | None = None
    sheet: Sheet | None = None


def absolute_seat(seat: int, relative: int | None, players: int) -> int | None:
    """The absolute seat of ``relative`` (a seat as ``seat`` sees it; ``None`` stays ``None``)."""
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
    units = game_spec(game).record_units(record)
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
        view[key] = absolute_seat(seat, view.get(key), players)
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

    units = spec.record_units(record)
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


def unit_cards(game: str, record: dict[str, Any], which: str = "prikup") -> list[Any] | None:
    """The cards a replay lists per deal or round: ``"prikup"`` (Paston's prikups; ``None`` for
    a game without) or ``"dealt"`` (the dealt cards: Paston's hands, Tri Palki's deck)."""
    key = layout(game).prikup_key if which == "prikup" else layout(game).dealt_key
    if key is None:
        return None
    return [unit.get(key) for unit in game_spec(game).record_units(record)]


__all__ = [
    "SeatMemory",
    "WebLayout",
    "absolute_seat",
    "layout",
    "public_event",
    "replay_frames",
    "score_sheet",
    "seat_view",
    "unit_cards",
]
