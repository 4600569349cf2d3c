"""What the web table sends to a browser, built only from observations.

:func:`seat_view` turns one seat's observation into JSON with absolute seat numbers and card names:
nothing in it comes from the env's state, so a page can never hold a card its seat may not see.
:func:`public_event` is how one move looks to a given seat (a Paston discard is private; a Tri
Palki decision not to announce is never shown to the others). :func:`replay_frames` gives a
spectator's frames of a finished record: every seat's own view side by side after each move.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from folkcards.envs.cards import PASTON_CARDS, TRI_PALKI_CARDS
from folkcards.envs.registry import game_spec

CARD_SETS = {"paston": PASTON_CARDS, "tri_palki": TRI_PALKI_CARDS}

# Fields of the decoded views that hold one entry per relative seat, or a relative seat index.
_SEAT_LISTS = {
    "paston": (
        "played",
        "auction_passed",
        "bids",
        "whist",
        "defence_pass",
        "tricks",
        "voids",
        "totals",
    ),
    "tri_palki": ("known", "sticks", "eliminated", "final_turn_pending"),
}
_SEAT_INDEXES = {
    "paston": ("trick_leader", "to_act", "dealer", "first_bidder", "high_bidder", "declarer"),
    "tri_palki": ("dealer", "to_act", "announcer"),
}
_CARD_LISTS = {
    "paston": ("hand", "prikup", "discards"),
    "tri_palki": ("hand", "centre", "washed"),
}
_CARD_LISTS_PER_SEAT = {"paston": ("played",), "tri_palki": ("known",)}
_LEVELS = ("spades", "clubs", "diamonds", "hearts", "best spades")


def _absolute(seat: int, relative: int | None, players: int) -> int | None:
    return None if relative is None else (seat + relative) % players


def seat_view(game: str, env: Any, seat: int) -> dict[str, Any]:
    """The JSON view of ``seat`` (an int) at this moment, from its observation alone."""
    spec = game_spec(game)
    agent = env.possible_agents[seat]
    players = len(env.possible_agents)
    observation = env.observe(agent)
    view = dataclasses.asdict(spec.decode(observation["observation"], players))
    cards = CARD_SETS[game]
    for key in _SEAT_LISTS[game]:
        if view.get(key) is not None:
            rel = view[key]
            view[key] = [rel[(s - seat) % players] for s in range(players)]
    for key in _SEAT_INDEXES[game]:
        view[key] = _absolute(seat, view.get(key), players)
    for key in _CARD_LISTS[game]:
        view[key] = [cards.name(c) for c in view[key]]
    for key in _CARD_LISTS_PER_SEAT[game]:
        view[key] = [[cards.name(c) for c in row] for row in view[key]]
    if game == "paston":
        view["trick"] = [
            [_absolute(seat, rel, players), cards.name(card)] for rel, card in view["trick"]
        ]
        view["high_bid_name"] = None if view["high_bid"] is None else _LEVELS[view["high_bid"]]
        view["contract_name"] = None if view["contract"] is None else _LEVELS[view["contract"]]
    mask = observation["action_mask"]
    view["legal"] = [
        {"id": int(a), "name": env.action_to_string(int(a))} for a in mask.nonzero()[0]
    ]
    view.update(game=game, seat=seat, players=players)
    return view


def public_event(game: str, env: Any, actor: int, action: int, viewer: int | None) -> str | None:
    """How ``actor``'s move ``action`` (before it is applied) reads to ``viewer`` (``None``:
    a spectator of a finished game, who sees everything). ``None`` if the viewer sees nothing."""
    name = env.action_to_string(action)
    who = f"P{actor}"
    private_to_actor = viewer is not None and viewer != actor
    if game == "paston":
        deal_phase = (
            game_spec(game).decode(env.observe(env.possible_agents[actor])["observation"]).phase
        )
        if deal_phase == "discard" and private_to_actor:
            return f"{who} discards a card"
        return f"{who}: {name}"
    if name == "no announce":
        return None if private_to_actor else f"{who}: does not announce"
    if name.startswith("swap ") and name != "swap all":
        _, give, take = name.split()
        return f"{who}: gives {give}, takes {take}"
    return f"{who}: {name}"


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


__all__ = ["CARD_SETS", "public_event", "replay_frames", "seat_view"]
