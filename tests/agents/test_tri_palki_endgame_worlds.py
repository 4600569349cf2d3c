"""Tri Palki search ``endgame_samples``: more worlds where the round is about to end."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from folkcards.agents.base import make_agent
from folkcards.agents.episode import Decision, play_episode
from folkcards.envs.tri_palki import observation as obs_mod
from folkcards.envs.tri_palki_v0 import raw_env
from folkcards.search import tri_palki_belief


def _endgame(view: obs_mod.TriPalkiView) -> bool:
    """The spec's endgame: a final turn, the announce decision, or a pass would end the round."""
    return view.announced or view.phase == "announce" or view.pass_ends_round


def _seat0_actions(spec: str, n: int, seeds: range) -> list[int]:
    agent = make_agent(spec, "tri_palki", "player_0", seed=3)
    others = [make_agent("heuristic", "tri_palki", f"player_{i}", seed=i) for i in range(1, n)]
    actions: list[int] = []

    def note(decision: Decision) -> None:
        if decision.agent == "player_0":
            actions.append(decision.action)

    env = raw_env(num_players=n)
    for seed in seeds:
        play_episode(env, [agent, *others], seed=seed, on_action=note)
    return actions


@pytest.mark.parametrize("spec", ["expert", "pimc"])
def test_endgame_decisions_draw_endgame_samples_worlds(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[tuple[bool, int]] = []
    real = tri_palki_belief.sample_worlds

    def counting(vector: np.ndarray, n: int, *args: Any, **kwargs: Any) -> Any:
        drawn.append((_endgame(obs_mod.decode(np.asarray(vector))), n))
        return real(vector, n, *args, **kwargs)

    monkeypatch.setattr(tri_palki_belief, "sample_worlds", counting)
    _seat0_actions(f"{spec}:samples=4,endgame_samples=16,infer=1", 4, range(60, 72))
    assert {endgame for endgame, _ in drawn} == {True, False}  # both kinds were searched
    for endgame, n in drawn:
        assert n == (16 if endgame else 4)


def test_endgame_samples_equal_to_samples_decide_as_without_it() -> None:
    seeds = range(80, 86)
    assert _seat0_actions("expert:samples=8,endgame_samples=0", 4, seeds) == _seat0_actions(
        "expert:samples=8,endgame_samples=8", 4, seeds
    )


def test_pimc_draws_no_extra_worlds_and_expert_768_by_default() -> None:
    """docs/guide/expert.md: ``endgame_samples`` is off (0) for ``pimc``; since 0.5.0 the
    ``expert`` draws 768 worlds where the round is about to end."""
    assert make_agent("pimc", "tri_palki").params.endgame_samples == 0
    assert make_agent("expert", "tri_palki").params.endgame_samples == 768
    with_zero = make_agent("expert:endgame_samples=0", "tri_palki")
    assert with_zero.params.endgame_samples == 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("expert:endgame_samples=-1", "endgame_samples must be at least 0"),
        ("pimc:endgame_samples=many", "endgame_samples needs an integer"),
    ],
)
def test_bad_endgame_samples_are_refused_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "tri_palki")
