"""The score explanations: their arithmetic is the engine's score in every role and
outcome, the rules page's worked examples read as the page says, and Tri Palki's reasons match
the sticks the env gave."""

from __future__ import annotations

import re
from typing import Any

import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.envs.registry import game_spec
from folkcards.play.paston_explain import paston_explanations
from folkcards.play.tri_palki_explain import tri_palki_explanations


def _number(text: str) -> int:
    return int(text.replace("−", "-").replace("+", ""))


def check_paston_line(line: str, r: dict[str, Any]) -> None:
    """The line's own arithmetic holds and ends in the seat's deal score."""
    score = r["deal_score"]
    product = re.search(r"([+−]?\d+) × factor (\d) = ([+−]?\d+)$", line)
    if product:
        points, factor, total = (_number(g) for g in product.groups())
        assert points * factor == total == score, line
        return
    last = re.search(r"([+−]?\d+)(?: \([^)]*\))?$", line)
    assert last is not None, line
    assert _number(last.group(1)) == score, line


def paston_results(seeds: range) -> list[dict[str, dict[str, Any]]]:
    spec = game_spec("paston")
    env = spec.raw_env()
    results = []
    for seed in seeds:
        kinds = ("random", "heuristic", "random") if seed % 2 else ("random",) * 3
        table = [make_agent(k, "paston", f"player_{i}", seed + i) for i, k in enumerate(kinds)]
        run = play_episode(env, table, seed=seed)
        results.append(run.final_infos)
    return results


def test_paston_explanations_add_up_in_every_role_and_outcome() -> None:
    seen = set()
    for result in paston_results(range(400)):
        lines = paston_explanations(result, str)
        sole = sum(r["role"] == "defender" for r in result.values()) == 1
        for line, (name, r) in zip(lines, result.items(), strict=True):
            assert line.startswith(f"{name}: ")
            check_paston_line(line, r)
            seen.add((r["outcome"], r["role"], sole if r["role"] == "defender" else None))
    wanted = {
        ("played", "declarer", None),
        ("played", "defender", True),
        ("played", "defender", False),
        ("played", "passer", None),
        ("auto_win", "declarer", None),
        ("auto_win", "passer", None),
        ("surrender", "declarer", None),
        ("surrender", "opponent", None),
    }
    assert wanted <= seen


def _result(contract: str, rows: list[tuple[str, int]], outcome: str = "played") -> dict:
    return {
        f"player_{i}": {"outcome": outcome, "role": role, "tricks": t, "contract": contract}
        for i, (role, t) in enumerate(rows)
    }


@pytest.mark.parametrize(
    "contract, rows, scores",
    [  # docs/rules/paston.md §8, examples 1-5
        ("best_spades", [("declarer", 6), ("defender", 3), ("defender", 1)], [10, 40, -36]),
        ("spades", [("declarer", 6), ("defender", 3), ("defender", 1)], [10, 10, -9]),
        ("hearts", [("declarer", 5), ("defender", 3), ("defender", 2)], [-40, 40, 0]),
        ("diamonds", [("declarer", 7), ("defender", 3), ("passer", 0)], [30, -21, 0]),
        ("clubs", [("declarer", 4), ("defender", 6), ("passer", 0)], [-20, 40, 0]),
    ],
)
def test_paston_worked_examples(contract: str, rows: list, scores: list[int]) -> None:
    result = _result(contract, rows)
    for line, score, r in zip(
        paston_explanations(result, str), scores, result.values(), strict=True
    ):
        check_paston_line(line, {**r, "deal_score": score})


def test_paston_special_lines() -> None:
    surrender = _result("hearts", [("declarer", 0), ("opponent", 0), ("opponent", 0)], "surrender")
    lines = paston_explanations(surrender, str)
    assert lines[0] == "player_0: surrendered: −10 (no factor on a surrender)"
    assert lines[1] == "player_1: the declarer surrendered: +2"
    auto = _result("hearts", [("declarer", 0), ("passer", 0), ("passer", 0)], "auto_win")
    assert paston_explanations(auto, str)[0].endswith("+10 × factor 4 = +40")
    redeal = _result("spades", [("none", 0)] * 3, "redeal")
    assert "dealt again" in paston_explanations(redeal, str)[0]
    one = _result("spades", [("declarer", 8), ("defender", 1), ("defender", 1)])
    assert "took 1 trick:" in paston_explanations(one, str)[1]


def test_tri_palki_reasons_match_the_sticks() -> None:
    spec = game_spec("tri_palki")
    kinds_seen = set()
    for n in (2, 3, 5):
        env = spec.raw_env(n)
        for seed in range(100):
            kinds = ["heuristic" if (seed + i) % 3 else "random" for i in range(n)]
            table = [
                make_agent(k, "tri_palki", f"player_{i}", seed + i) for i, k in enumerate(kinds)
            ]
            result = play_episode(env, table, seed=seed).final_infos
            lines = tri_palki_explanations(result, str)
            if next(iter(result.values()))["outcome"] == "truncated":
                assert lines == ["the turn limit was reached: nobody takes a stick"]
                continue
            normals = [r["hand_value"] for r in result.values() if r["hand_kind"] == "normal"]
            aces = any(r["hand_kind"] == "three_aces" for r in result.values())
            for line, r in zip(lines, result.values(), strict=True):
                assert ("a stick" in line and "never" not in line and "no stick" not in line) == (
                    r["stick"]
                ), line
                if "lowest normal hand" in line:
                    assert f"({min(normals)})" in line
                kinds_seen.add((r["hand_kind"], aces, r["stick"]))
    assert ("normal", False, True) in kinds_seen and ("normal", False, False) in kinds_seen


def test_tri_palki_three_aces_line() -> None:
    hands = {
        "player_0": ["AS", "AC", "AD"],
        "player_1": ["KH", "QH", "10H"],
        "player_2": ["6S", "6C", "6D"],
    }
    kinds = {"player_0": "three_aces", "player_1": "normal", "player_2": "safe"}
    result = {
        name: {"outcome": "all_passed", "hand": hands[name], "hand_kind": kinds[name],
               "hand_value": 11 if name != "player_1" else 30, "stick": name == "player_1",
               "sticks": 1 if name == "player_1" else 0, "eliminated": False}
        for name in hands
    }  # fmt: skip
    lines = tri_palki_explanations(result, str)
    assert lines[0] == "player_0: three aces: never a stick"
    assert lines[1].startswith("player_1: three aces were shown: every normal hand takes a stick")
    assert lines[2] == "player_2: a safe hand: never a stick"
