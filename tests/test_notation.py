"""The text form of records: exact round trips, checked lines, located errors."""

from __future__ import annotations

import json
import re

import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.envs.notation import from_text, load_record, to_text
from folkcards.envs.paston.notation import paston_score_sheet
from folkcards.envs.registry import game_spec

SETTINGS = [
    ("paston", {"episode": "deal"}, None),
    ("paston", {"episode": "game", "max_deals": 4}, None),
    ("tri_palki", {"episode": "round"}, 4),
    ("tri_palki", {"episode": "round"}, 9),
    ("tri_palki", {"episode": "match", "max_turns": 80}, 3),
]


def _record(game, kwargs, players, seed, kinds=("random",)):
    spec = game_spec(game)
    env = spec.raw_env(players, **kwargs)
    table = [
        make_agent(kinds[i % len(kinds)], game, seed=seed * 7 + i)
        for i in range(len(env.possible_agents))
    ]
    play_episode(env, table, seed=seed)
    return json.loads(json.dumps(env.record()))


@pytest.mark.parametrize(("game", "kwargs", "players"), SETTINGS)
def test_text_json_replay_round_trip_is_exact(game, kwargs, players):
    for seed in range(40):
        record = _record(game, kwargs, players, seed, ("random", "heuristic"))
        text = to_text(record)
        assert from_text(text) == record
        assert to_text(from_text(text)) == text
        replayed = game_spec(game).replay(load_record(text))
        assert replayed.record() == record


@pytest.mark.slow
@pytest.mark.parametrize(("game", "kwargs", "players"), SETTINGS)
def test_round_trip_over_thousands_of_episodes(game, kwargs, players):
    for seed in range(1000):
        record = _record(game, kwargs, players, seed)
        assert from_text(to_text(record)) == record


def _paston_text():
    return to_text(_record("paston", {"episode": "deal"}, None, 3, ("heuristic",)))


def test_a_changed_score_is_rejected_with_its_line_and_column():
    text = _paston_text()
    lines = text.splitlines()
    last = len(lines)
    scores_at = lines[-1].index("scores ")
    head, _, tail = lines[-1].partition("scores ")
    first, *rest = tail.split(" ")
    changed = f"{int(first) + 10:+d}"
    original = lines[-1]
    lines[-1] = head + "scores " + " ".join([changed, *rest])
    column = (
        next(i for i, (a, b) in enumerate(zip(lines[-1], original, strict=False)) if a != b) + 1
    )
    assert scores_at < column <= scores_at + 12
    with pytest.raises(ValueError, match=rf"^line {last}, column {column}: the text says"):
        from_text("\n".join(lines))


def test_a_changed_card_in_a_hand_is_rejected():
    text = _paston_text()
    lines = text.splitlines()
    hands = lines[-1].split(" | ")[1].split()
    swap_from, swap_to = hands[0], hands[-1]
    lines[-1] = lines[-1].replace(f"| {swap_from} ", f"| {swap_to} ", 1)
    with pytest.raises(ValueError, match=rf"^line {len(lines)}, column \d+: the text says"):
        from_text("\n".join(lines))


def test_a_move_by_the_wrong_seat_names_the_seat_and_position():
    text = _paston_text()
    lines = text.splitlines()
    line = lines[-1]
    column = line.index(" P", line.index("|", line.index("|", line.index("|") + 1) + 1)) + 2
    seat = line[column]
    wrong = str((int(seat) + 1) % 3)
    lines[-1] = line[:column] + wrong + line[column + 1 :]
    with pytest.raises(ValueError, match=rf"^line {len(lines)}, column {column}: P{wrong}:"):
        from_text("\n".join(lines))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Game "bridge"]\n', "line 1, column 1: the Game tag must be one of"),
        ('[Game "paston"\n', "line 1, column 1: a tag must look like"),
        ('[Game "paston"]\n[Seed "x"]\n', "line 1, column 1: bad header"),
    ],
)
def test_malformed_headers(text, message):
    with pytest.raises(ValueError, match=message):
        from_text(text)


def test_an_illegal_move_is_located():
    text = _paston_text()
    lines = text.splitlines()
    line = lines[-1]
    auction = line.split(" | ")[3]
    first_move = auction.split()[0]
    bad = first_move.split(":")[0] + ":contract-hearts"
    lines[-1] = line.replace(first_move, bad, 1)
    column = lines[-1].index(bad) + 1
    with pytest.raises(ValueError, match=rf"^line {len(lines)}, column {column}: .*illegal"):
        from_text("\n".join(lines))


def test_score_sheet_totals_follow_the_deals():
    record = _record("paston", {"episode": "game", "max_deals": 5}, None, 11, ("heuristic",))
    sheet = paston_score_sheet(record, ["ann", "bob", "cy"]).splitlines()
    assert sheet[0].split()[-6:] == ["ann", "total", "bob", "total", "cy", "total"]
    deals = record["deals"]
    assert len(sheet) == 2 + len(deals)
    for row, deal in zip(sheet[2:], deals, strict=True):
        words = row.split()
        seats = [deal["result"][f"player_{s}"] for s in range(3)]
        assert [int(words[i]) for i in (5, 7, 9)] == [s["deal_score"] for s in seats]
        if seats[0]["outcome"] != "redeal":
            assert [int(words[i]) for i in (6, 8, 10)] == seats[0]["totals"]


def test_the_env_modules_replay_the_text_form_and_json_text():
    from folkcards.envs import paston_v0, tri_palki_v0

    for module, game, players in ((paston_v0, "paston", None), (tri_palki_v0, "tri_palki", 5)):
        record = _record(game, {}, players, 2, ("heuristic",))
        assert module.replay(to_text(record)).record() == record
        assert module.replay(json.dumps(record)).record() == record
    with pytest.raises(ValueError, match="cannot be replayed by tri_palki_v0"):
        tri_palki_v0.replay(_record("paston", {}, None, 1))


def test_vector_env_is_reachable_from_the_versioned_modules():
    from folkcards.envs import paston_v0, tri_palki_v0

    obs, mask, player = paston_v0.vector_env(3).reset(seed=0)
    assert obs.shape == (3, 367) and mask.shape == (3, 45) and player.shape == (3,)
    obs, mask, player = tri_palki_v0.vector_env(2, num_players=5).reset(seed=0)
    assert obs.shape == (2, 121 + 45 * 5) and mask.shape == (2, 13)


def test_score_sheet_columns_stay_aligned_with_long_names():
    """With long agent names every column of every row starts where its header
    does (the dealer and declarer columns widen to the longest name)."""
    record = _record("paston", {"episode": "game", "max_deals": 6}, None, 11, ("heuristic",))
    names = ["ppo:paston_really_long", "heuristic#2", "random"]
    sheet = paston_score_sheet(record, names).splitlines()
    header, rule, rows = sheet[0], sheet[1], sheet[2:]
    assert len(rule) == len(header) and set(rule) == {"-"}
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    right = [m.end() for m in re.finditer(r"\S+", header)]
    for row in rows:
        assert len(row) == len(header), (row, header)
        cells = list(re.finditer(r"\S+", row))
        assert len(cells) == len(starts)
        # the five text columns are left-aligned, the numbers right-aligned, under their header
        assert [c.start() for c in cells[1:5]] == starts[1:5], (row, header)
        assert [c.end() for c in cells[5:]] == right[5:], (row, header)
    assert any(names[0] in row for row in rows)
