"""Agents from outside the package: ``module:Class``,
``file.py:Class`` and entry points of group ``folkcards.agents``, in make_agent and tournaments."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from folkcards.agents import agent_origin, make_agent
from folkcards.envs import paston_v0

HIGH_CARD = textwrap.dedent(
    '''
    import numpy as np
    from folkcards.agents import Agent


    class HighCard(Agent):
        """The highest legal action id."""

        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[-1])


    def low_card_factory(game, seat, seed, arg=None, **_):
        agent = HighCard(game, seat, seed)
        agent.act = lambda observation: int(np.flatnonzero(observation["action_mask"])[0])
        agent.arg = arg
        return agent


    class NotAnAgent:
        pass
    '''
)


@pytest.fixture
def agent_file(tmp_path):
    path = tmp_path / "my_agents_file.py"
    path.write_text(HIGH_CARD)
    return path


def _first_decision():
    env = paston_v0.raw_env()
    env.reset(seed=3)
    return env.observe(env.agent_selection)


def test_a_class_in_a_file_plays_its_rule(agent_file):
    agent = make_agent(f"{agent_file}:HighCard", "paston", seat="player_1", seed=0)
    observation = _first_decision()
    assert agent.seat == "player_1"
    assert agent.act(observation) == int(np.flatnonzero(observation["action_mask"])[-1])


def test_a_class_in_an_importable_module(tmp_path, monkeypatch):
    (tmp_path / "my_agents_module.py").write_text(HIGH_CARD)
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = make_agent("my_agents_module:HighCard", "paston")
    assert type(agent).__name__ == "HighCard"
    assert "my_agents_module" in agent_origin("my_agents_module:HighCard")


def test_a_factory_gets_the_argument_after_the_second_colon(agent_file):
    agent = make_agent(f"{agent_file}:low_card_factory:fast", "paston", seed=1)
    observation = _first_decision()
    assert agent.arg == "fast"
    assert agent.act(observation) == int(np.flatnonzero(observation["action_mask"])[0])


def test_an_entry_point_of_the_group_is_an_agent_kind(tmp_path, monkeypatch):
    (tmp_path / "plugin_agents.py").write_text(HIGH_CARD)
    info = tmp_path / "plugin_agents-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-agents\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(
        "[folkcards.agents]\nhighcard = plugin_agents:HighCard\n"
        "lowcard = plugin_agents:low_card_factory\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert type(make_agent("highcard", "tri_palki")).__name__ == "HighCard"
    assert make_agent("lowcard:x", "paston").arg == "x"
    origin = agent_origin("highcard")
    assert "entry point highcard" in origin and "plugin-agents 1.2.3" in origin


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{file}:Missing", "has no 'Missing'"),
        ("{file}:NotAnAgent", "not an agent"),
        ("{dir}/nowhere.py:HighCard", "does not exist"),
        ("no_such_module_xyz:HighCard", "cannot import module 'no_such_module_xyz'"),
        ("nobody", "unknown agent 'nobody'"),
    ],
)
def test_bad_specs_are_one_line(agent_file, spec, message):
    spec = spec.format(file=agent_file, dir=agent_file.parent)
    with pytest.raises(ValueError, match=message) as caught:
        make_agent(spec, "paston")
    assert "\n" not in str(caught.value)


def test_a_file_that_fails_to_import_is_one_line(tmp_path):
    broken = tmp_path / "broken_agent.py"
    broken.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(ValueError, match="importing .* failed: RuntimeError: boom"):
        make_agent(f"{broken}:X", "paston")


def test_a_long_spec_is_not_echoed_whole():
    with pytest.raises(ValueError) as caught:
        make_agent("x" * 100_000, "paston")
    message = str(caught.value)
    assert "x" * 80 not in message  # the spec is cut, whatever the list of known kinds after it
    assert len(message) < 500 and "\n" not in message


def test_the_origin_of_a_built_in_and_of_a_file(agent_file):
    assert agent_origin("heuristic").startswith("built in, folkcards ")
    origin = agent_origin(f"{agent_file}:HighCard")
    assert "class HighCard in file" in origin and "sha256" in origin


def test_a_file_agent_plays_a_tournament_with_worker_processes(agent_file, tmp_path):
    from folkcards.cli import main

    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"t{workers}"
        code = main(
            ["tournament", "--game", "paston", "--agents", f"{agent_file}:HighCard",
             "heuristic", "random", "--deals", "3", "--seed", "5", "--workers", workers,
             "--out", str(out), "--no-progress", "--no-plot", "--bootstrap", "0"]
        )  # fmt: skip
        assert code == 0
        outs.append(json.loads((out / "results.json").read_text()))
    assert [row["mean"] for row in outs[0]["agents"]] == [row["mean"] for row in outs[1]["agents"]]
    report = (tmp_path / "t2" / "report.md").read_text()
    assert "class HighCard in file" in report, "the report says where the agent came from"
