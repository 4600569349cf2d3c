"""Every registered game in every command: one test suite over ``GAMES``.

For each registry entry: its pieces resolve; a short tournament with ``--verify`` through the
command line; ``export`` / ``import`` of its stored records; ``watch`` of agents and of a stored
unit; ``play`` driven by scripted input to the end of an episode; the web table's create, play
and replay through its API; the batched engine and heuristic where the registry names them (and
a one-line refusal where it does not); and every agent spec the entry lists. A game added
without its pieces fails here with a message naming the missing piece (the fake variants at the
end show it).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
from typing import Any

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.base import agent_kinds
from folkcards.agents.episode import play_episode
from folkcards.envs import registry
from folkcards.envs.notation import from_text, to_text
from folkcards.envs.registry import GAME_NAMES, GAMES, PIECES, UnsupportedError, game_spec
from folkcards.evaluate.storage.database import Store

from folkcards.cli import main

# small search budgets, by the game or else its family (their full budgets are measured in
# benchmarks/); a game not listed here plays its specs as written
CHEAP = {
    ("paston", "pimc"): "pimc:samples=4,bid_samples=2,discard_samples=2,discard_candidates=1",
    ("tri_palki", "pimc"): "pimc:samples=4,horizon=20,infer=1",
    ("paston", "expert"): "expert:samples=4,bid_samples=2,discard_samples=2,discard_candidates=1",
    ("tri_palki", "expert"): "expert:samples=4,horizon=20,infer=1",
    ("tri_palki_tiny", "pimc"): "pimc",  # every world of ten cards: no sample size to cut
}


def _lineup(spec) -> list[str]:
    return ["heuristic", *["random"] * (spec.default_players - 1)]


@pytest.fixture(scope="module", params=GAME_NAMES)
def played(request, tmp_path_factory) -> tuple[Any, Any]:
    """A one-deal tournament of the game, run and verified through ``folkcards tournament``."""
    spec = GAMES[request.param]
    out = tmp_path_factory.mktemp(spec.name)
    args = ["tournament", "--game", spec.name, "--agents", *_lineup(spec)]
    args += ["--deals", "1", "--seed", "3", "--workers", "1", "--seating", "rotations"]
    args += ["--out", str(out), "--no-progress", "--no-plot", "--bootstrap", "0", "--verify"]
    assert main(args) == 0, f"{spec.name}: the tournament failed"
    return spec, out / "tournament.sqlite"


def _records(db) -> list[dict[str, Any]]:
    with Store(db) as store:
        return [unit["record"] for unit in store.units(with_records=True)]


# --- the registry entry -----------------------------------------------------------------------


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_piece_of_the_entry_resolves(name):
    spec = GAMES[name]
    spec.check_pieces()  # names what is missing
    for kind in spec.agents:
        assert kind.partition(":")[0] in agent_kinds()


# --- tournament, records, watch ---------------------------------------------------------------


def test_tournament_stores_verified_records_of_the_game(played, capsys):
    spec, db = played
    records = _records(db)
    assert len(records) == spec.default_players  # one deal, one rotation per seat
    assert {r["game"] for r in records} == {spec.name}
    assert main(["tournament", "--db", str(db), "--verify"]) == 0
    assert "verified" in capsys.readouterr().out


def test_export_import_round_trip(played, tmp_path, capsys):
    spec, db = played
    text_file, json_file = tmp_path / "records.txt", tmp_path / "records.json"
    assert main(["export", "--db", str(db), "--out", str(text_file)]) == 0
    text = text_file.read_text()
    assert text.count(f'[Game "{spec.name}"]') == spec.default_players
    assert main(["import", str(text_file), "--out", str(json_file)]) == 0
    assert json.loads(json_file.read_text()) == _records(db)
    # the score sheet: the game's own, or one line saying it keeps none
    code = main(["export", "--db", str(db), "--format", "sheet"])
    err = capsys.readouterr().err
    if spec.has("score_sheet"):
        assert code == 0
    else:
        assert code == 2 and err.strip() == (
            f"folkcards export: error: {spec.name} has no score sheet"
        )


def test_watch_agents_and_a_stored_unit(played, capsys):
    spec, db = played
    assert main(["watch", spec.name, "--agents", "random", "--delay", "0", "--seed", "1"]) == 0
    live = capsys.readouterr().out
    assert main(["watch", "--db", str(db), "--unit", "0", "--delay", "0"]) == 0
    stored = capsys.readouterr().out
    for out in (live, stored):
        assert "Traceback" not in out and len(out.splitlines()) > 5
    assert main(["demo", spec.name, "--deals", "1", "--quiet"]) == 0


def _watched(argv: list[str], capsys) -> str:
    """The moves ``watch`` shows (the lines after its heading), failing on any error."""
    code = main(["watch", *argv, "--delay", "0"])
    captured = capsys.readouterr()
    assert code == 0 and not captured.err, captured.err
    return captured.out.split(")", 1)[1]  # after "=== deal 1 (seed N)"


def test_record_files_round_trip_through_watch(played, tmp_path, capsys):
    """One record is one JSON object in every command; text records are read
    wherever a record is; a file of several records is read with a choice (--unit) or refused in
    one line naming the choice."""
    spec, db = played
    one_json, one_txt = tmp_path / "one.json", tmp_path / "one.txt"
    back = tmp_path / "back.json"
    stored = _records(db)[1]
    assert (
        main(["export", "--db", str(db), "--unit", "1", "--format", "json", "--out", str(one_json)])
        == 0
    )
    assert json.loads(one_json.read_text()) == stored  # an object, not a list of one
    assert main(["export", "--db", str(db), "--unit", "1", "--out", str(one_txt)]) == 0
    assert main(["import", str(one_txt), "--out", str(back)]) == 0
    assert json.loads(back.read_text()) == stored
    shown = _watched(["--db", str(db), "--unit", "1"], capsys)  # seats named by the database
    assert _watched(["--record", str(one_txt)], capsys) == shown  # ... and by the Players tag
    bare = _watched(["--record", str(one_json)], capsys)  # JSON records name no players
    assert _watched(["--record", str(back)], capsys) == bare
    assert len(bare.splitlines()) == len(shown.splitlines()) > 5
    # the text form is read by export and import too
    assert main(["export", "--record", str(one_txt), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == stored
    assert main(["import", str(one_json)]) == 0
    assert json.loads(capsys.readouterr().out) == stored
    # several records: a list in JSON, several text records; watch needs --unit
    all_json, all_txt = tmp_path / "all.json", tmp_path / "all.txt"
    assert main(["export", "--db", str(db), "--format", "json", "--out", str(all_json)]) == 0
    assert main(["export", "--db", str(db), "--out", str(all_txt)]) == 0
    assert isinstance(json.loads(all_json.read_text()), list)
    for path in (all_json, all_txt):
        assert _watched(["--record", str(path), "--unit", "1"], capsys) in (shown, bare)
        assert main(["watch", "--record", str(path), "--delay", "0"]) == 2
        err = capsys.readouterr().err.strip()
        count = spec.default_players
        assert err == (
            f"folkcards watch: error: {path} holds {count} records: choose one with --unit N "
            f"(0 to {count - 1})"
        ), err
        assert main(["watch", "--record", str(path), "--unit", str(count), "--delay", "0"]) == 2
        assert "--unit" in capsys.readouterr().err


# --- play in the terminal ---------------------------------------------------------------------


class _Person:
    """Scripted input: ``help`` first, then the last legal move each turn, Enter otherwise."""

    def __init__(self) -> None:
        self.session: Any = None
        self.moves = 0

    def __call__(self, prompt: str) -> str:
        if prompt != "your move> ":
            return ""  # Enter for the next deal or round
        self.moves += 1
        if self.moves == 1:
            return "help"  # a command first: the session answers and asks again
        session = self.session
        return session.table.legal_names(session.env.observe(session.me))[-1]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_play_one_episode_from_scripted_input(name):
    from folkcards.play.session import Session

    lines: list[str] = []
    person = _Person()
    single = next(mode.name for mode in GAMES[name].modes if not mode.multi)  # one deal/round
    session = Session(
        name, ["random"], seat=0, seed=2, mode=single, input_fn=person, write=lines.append
    )
    session.episodes = 1
    person.session = session
    assert session.run() == 0
    assert "Commands: help" in "\n".join(lines)
    assert person.moves >= 2, "the person was never asked for a move"
    env = session.env
    assert all(env.terminations[a] or env.truncations[a] for a in env.agents), "not over"


# --- the web table ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAME_NAMES)
def test_web_table_create_play_replay(name, tmp_path):
    from folkcards.web.app import create_app
    from starlette.testclient import TestClient

    spec = GAMES[name]
    rng = np.random.default_rng(0)
    app = create_app(tmp_path / "human.sqlite", seed=5, bot_workers=0)
    with TestClient(app) as client:
        meta = client.get("/api/meta").json()
        assert name in [g["name"] for g in meta["games"]]
        opponents = ["random"] * (spec.default_players - 1)
        response = client.post("/api/games", json={"game": name, "seat": 1, "opponents": opponents})
        assert response.status_code == 201, response.text
        view = response.json()
        assert view["players"] == spec.default_players
        while not view["over"]:
            if view["waiting"]:  # the agents are still thinking
                time.sleep(0.02)
                view = client.get(f"/api/games/{view['id']}").json()
                continue
            action = int(rng.choice([m["id"] for m in view["legal"]]))
            move = {"action": action, "move": view["move"]}
            response = client.post(f"/api/games/{view['id']}/move", json=move)
            assert response.status_code == 200, response.text
            view = response.json()
        assert view["result"] and not view["error"]
        replay = client.get(f"/api/replays/human/{view['id']}")
        assert replay.status_code == 200, replay.text
        frames = replay.json()["frames"]
        assert len(frames) >= 2 and all(len(f["views"]) == spec.default_players for f in frames)
        text = client.get(f"/api/replays/human/{view['id']}/text")
        assert text.status_code == 200
        assert from_text(text.text)["game"] == name


# --- the batched engine -----------------------------------------------------------------------


@pytest.mark.parametrize("name", GAME_NAMES)
def test_batched_engine_where_the_registry_names_one(name):
    from folkcards.agents.batched_agents import make_batched_agent
    from folkcards.train.batched_training_env import make_engine

    spec = GAMES[name]
    if not spec.has("batched_engine"):
        with pytest.raises(UnsupportedError, match=rf"^{name} has no batched engine \("):
            make_engine(name, 2, {})
        with pytest.raises(UnsupportedError, match=rf"^{name} has no batched heuristic$"):
            make_batched_agent("heuristic", name)
        return
    engine = make_engine(name, 4, {})
    heuristic = make_batched_agent("heuristic", name, engine.num_players)
    obs, mask, _player = engine.reset(seed=0)
    ended = np.zeros(engine.num_envs, dtype=bool)
    for _ in range(2000):
        actions = heuristic.act(obs, mask)
        out = engine.step(actions)
        obs, mask = out[0], out[1]
        ended |= out[4] | out[5]
        if ended.all():
            break
    assert ended.all(), f"{name}: the batched games did not end"


# --- every agent the entry lists ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"), [(name, kind) for name in GAME_NAMES for kind in GAMES[name].agents]
)
def test_every_listed_agent_plays_an_episode(name, kind):
    spec = GAMES[name]
    env = spec.raw_env()
    seats = env.possible_agents
    agent_spec = CHEAP.get((name, kind), CHEAP.get((spec.family, kind), kind))
    table = [make_agent(agent_spec, name, seats[0], seed=1)]
    table += [make_agent("random", name, seat, seed=i) for i, seat in enumerate(seats[1:], 2)]
    run = play_episode(env, table, 4)
    assert run.decision_seconds.get(seats[0]), f"{kind} never acted in {name}"
    assert from_text(to_text(env.record())) == env.record()


def _generator_states(root: Any) -> list[Any]:
    """The state of every random generator reachable from ``root`` through the attributes of
    folkcards objects (and their lists, tuples and dicts), in a fixed order."""
    states: list[Any] = []
    seen: set[int] = set()

    def walk(value: Any) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, np.random.Generator):
            states.append(value.bit_generator.state)
        elif isinstance(value, random.Random):
            states.append(value.getstate())
        elif isinstance(value, dict):
            for key in sorted(value, key=repr):
                walk(value[key])
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)
        elif type(value).__module__.startswith("folkcards") and hasattr(value, "__dict__"):
            walk(vars(value))

    walk(root)
    return states


def _episode_record(name: str, agent: Any, deal: int) -> tuple[Any, ...]:
    """``agent`` in the first seat against seeded random players on deal ``deal``: the record
    of the episode and the states of the agent's generators after it."""
    env = GAMES[name].raw_env()
    seats = env.possible_agents
    table = [agent] + [make_agent("random", name, s, seed=i) for i, s in enumerate(seats[1:], 7)]
    play_episode(env, table, deal)
    return env.record(), _generator_states(agent)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (name, kind)
        for name in GAME_NAMES
        for kind in (
            *GAMES[name].agents,
            *(("montecarlo",) if GAMES[name].montecarlo_agent else ()),
        )
    ],
)
def test_a_reseeded_agent_decides_as_a_fresh_one(name, kind):
    """``reseed(s)`` then ``reset()`` makes an agent that has played before decide as a fresh
    agent seeded ``s``, every generator inside it (a search's too) in the same state: the
    training envs, the opponent pool and the probe reuse agents across episodes this way."""
    spec = GAMES[name]
    agent_spec = CHEAP.get((name, kind), CHEAP.get((spec.family, kind), kind))
    seat = spec.raw_env().possible_agents[0]
    used = make_agent(agent_spec, name, seat, seed=101)
    _episode_record(name, used, deal=5)
    used.reseed(11)
    fresh = make_agent(agent_spec, name, seat, seed=11)
    assert _generator_states(used) == _generator_states(fresh), f"{kind}: a generator not reseeded"
    for deal in (21, 22):
        ours, theirs = _episode_record(name, used, deal), _episode_record(name, fresh, deal)
        assert ours == theirs, f"{kind} in {name}: the reseeded agent decided otherwise"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_table_opponent_plays_every_table_size(name):
    """The web table seats ``table_opponent`` at whatever size a person picks: it is one of the
    game's agents and plays each of its table sizes."""
    spec = GAMES[name]
    assert spec.table_opponent in spec.agents
    agent = make_agent(spec.table_opponent, name, "player_0", seed=0)
    supports = getattr(agent, "supports", None)
    if supports is not None:
        missing = [n for n in spec.table_sizes if not supports(n)]
        assert not missing, f"{name}: {spec.table_opponent} cannot play {missing} players"


# --- a game without its pieces ---------------------------------------------------------------


@pytest.fixture
def fake_game(monkeypatch):
    """Register a Paston variant ``fake`` and return a function that sets its pieces."""

    def register(**pieces: Any):
        spec = dataclasses.replace(
            GAMES["paston"], name="fake", aliases=("fake",), base_game="paston", **pieces
        )
        monkeypatch.setitem(registry.GAMES, "fake", spec)
        monkeypatch.setitem(registry._ALIASES, "fake", "fake")
        monkeypatch.setattr(registry, "GAME_NAMES", (*GAME_NAMES, "fake"))
        return spec

    return register


@pytest.mark.parametrize(
    "piece", [name for name, (_, required) in PIECES.items() if required and name != "heuristic"]
)
def test_a_game_missing_a_piece_is_named(fake_game, piece):
    spec = fake_game(**{piece: None})
    what = re.escape(PIECES[piece][0])
    with pytest.raises(ValueError, match=rf"^game 'fake' is incomplete: no {what} \({piece}\)$"):
        spec.check_pieces()
    with pytest.raises(UnsupportedError, match=rf"^fake has no {what}$"):
        spec.piece(piece)


def test_a_hook_that_does_not_resolve_is_named(fake_game):
    spec = fake_game(spectator="folkcards.play.watch:NoSuchSpectator")
    with pytest.raises(
        ValueError, match=r"\(folkcards watch\) \(spectator\): hook .*NoSuchSpectator"
    ):
        spec.check_pieces()


def test_commands_refuse_a_missing_piece_in_one_line(fake_game, tmp_path):
    from folkcards.evaluate.scoring import make_runner
    from folkcards.play.session import Session
    from folkcards.web.views import seat_view

    spec = fake_game(terminal_view=None, tournament_scorer=None, web_view=None, text_format=None)
    with pytest.raises(ValueError, match=r"^fake has no terminal view \(folkcards play\)$"):
        Session("fake", ["random"])
    with pytest.raises(ValueError, match=r"^fake has no tournament scorer$"):
        make_runner("fake", "deal", 3)
    env = spec.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"^fake has no web table view$"):
        seat_view("fake", env, 0)
    record = {**env.record(), "game": "fake"}
    with pytest.raises(ValueError, match=r"^fake has no text record form$"):
        to_text(record)


def test_a_variant_inherits_every_piece_it_does_not_override():
    bidding, paston = game_spec("paston_bidding"), game_spec("paston")
    for piece in PIECES:
        overridden = ("heuristic", "batched_engine", "open_hand_analysis", "endgame_search")
        if piece not in (*overridden, "montecarlo_agent", "expert_iteration"):
            assert getattr(bidding, piece) == getattr(paston, piece), piece
    assert bidding.batched_engine != paston.batched_engine and bidding.family == "paston"
    assert bidding.open_hand_analysis is None, "no card is played in the bidding game"
    assert bidding.endgame_search is None, "no card is played in the bidding game"
    assert bidding.montecarlo_agent is None, "its rollouts would play the cards the solver scores"
    assert bidding.expert_iteration is None, "the loop's expert plays whole deals"
