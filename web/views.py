"""What the web table sends to a browser, built only from observations.

:func:`seat_view` turns one seat's observation into JSON with absolute seat numbers and card names:
nothing in it comes from the env's state, so a page can never hold a card its seat may not see.
:func:`public_event` is how one move looks to a given seat (a Paston discard is private; a Tri
Palki decision not to announce is never shown to the others). :func:`replay_frames` gives a
spectator's frames of a finished record: every seat's own view side by side after each move.

What differs between games is one :class:`WebLayout` per game, named by its registry entry
(``GameSpec.web_view``): :data:`PASTON_VIEW`, :data:`TRI_PALKI_VIEW`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from folkcards.envs.cards import PASTON_CARDS, TRI_PALKI_CARDS, CardSet
from folkcards.envs.paston.vocabulary import LEVEL_NAMES
from folkcards.envs.registry import game_spec

# (view, seat, players, cards) -> None: the game's own finishing of a seat's view, in place
Finish = Callable[[dict[str, Any], int, int, CardSet], None]
# (action name, the actor's decoded view, actor, private to the actor) -> the event's text
Event = Callable[[str, Any, int, bool], str | None]


@dataclasses.dataclass(frozen=True)
class WebLayout:
    """How a game's decoded observation becomes the browser's JSON, and how moves read.

    Fields of the decoded view: ``seat_lists`` hold one entry per relative seat, ``seat_indexes``
    a relative seat; ``card_lists`` hold card ids, ``card_lists_per_seat`` one card list per
    seat. ``finish`` adds the game's own fields; ``event`` words a move for a viewer.
    ``units_key`` is the record key of its deals or rounds; ``prikup_key`` the unit key of
    cards a spectator's replay lists per unit (``None``: none).
    """

    cards: CardSet
    seat_lists: tuple[str, ...]
    seat_indexes: tuple[str, ...]
    card_lists: tuple[str, ...]
    card_lists_per_seat: tuple[str, ...]
    event: Event
    finish: Finish | None = None
    prikup_key: str | None = None


def _absolute(seat: int, relative: int | None, players: int) -> int | None:
    return None if relative is None else (seat + relative) % players


def layout(game: str) -> WebLayout:
    """The game's :class:`WebLayout` (``UnsupportedError`` if it has none)."""
    return game_spec(game).piece("web_view")


def seat_view(game: str, env: Any, seat: int) -> dict[str, Any]:
    """The JSON view of ``seat`` (an int) at this moment, from its observation alone."""
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
    view.update(game=spec.name, seat=seat, players=players)
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

    def frame(event: str | None, unit: int) -> dict[str, Any]:
        views = [seat_view(game, env, s) for s in range(players)]
        return {"event": event, "unit": unit, "views": views}

    frames = [frame("dealt", 0)]
    for move, (agent, action) in enumerate(record["actions"]):
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
        actor = env.possible_agents.index(agent)
        event = public_event(game, env, actor, action, None)
        env.step(action)
        frames.append(frame(event, unit_of_move[move] if move < len(unit_of_move) else 0))
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
    finish=_paston_finish,
    prikup_key="prikup",
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


TRI_PALKI_VIEW = WebLayout(
    cards=TRI_PALKI_CARDS,
    seat_lists=("known", "sticks", "eliminated", "final_turn_pending"),
    seat_indexes=("dealer", "to_act", "announcer"),
    card_lists=("hand", "centre", "washed"),
    card_lists_per_seat=("known",),
    event=_tri_palki_event,
)


__all__ = [
    "PASTON_VIEW",
    "TRI_PALKI_VIEW",
    "WebLayout",
    "layout",
    "public_event",
    "replay_frames",
    "seat_view",
    "unit_cards",
]
