"""Tri Palki ``expert`` against its references, asked the same observations with the same seed,
decision by decision: the same action from the same action values.

- Without its network (at the table sizes outside ``EXPERT_NETS``, or ``nets={}``)
  the compiled search with batched rollouts is the Python search with the expert's budget
  (``TriPalkiSearchAgent`` with ``EXPERT_PARAMS``, i.e. ``pimc`` given the expert's keys).
- At the sizes of ``EXPERT_NETS`` it is the network's search for its own seat,
  ``iterated:net=shipped,top_k=5,cutoff=10,others=rules,weights=net`` with the expert's
  budget, the player of the tournaments that made it ``expert`` there (docs/iterate.md).

Seeds 91000+ were not used to develop either search."""

from __future__ import annotations

from typing import Any

import pytest
from folkcards.agents.base import make_agent
from folkcards.agents.episode import play_episode
from folkcards.agents.tri_palki_net_search import EXPERT_NET_SIZES, TriPalkiExpertAgent
from folkcards.agents.tri_palki_search import (
    EXPERT_PARAMS,
    TriPalkiSearchAgent,
    parse_spec,
)
from folkcards.envs.tri_palki_v0 import raw_env


class _Lockstep:
    """Plays ``new``'s moves; asks ``reference`` every same observation and keeps both answers."""

    def __init__(self, new: Any, reference: Any):
        self.new, self.reference = new, reference
        self.decisions: list[tuple[Any, ...]] = []

    def reset(self) -> None:
        self.new.reset()
        self.reference.reset()

    def act(self, observation: Any) -> int:
        action = self.new.act(observation)
        reference = self.reference.act(observation)
        self.decisions.append(
            (action, reference, self.new.last_action_values, self.reference.last_action_values)
        )
        return action


def _pair(spec_keys: str, seed: int) -> _Lockstep:
    """``expert`` without its network (``nets={}``) and the Python search."""
    params, _ = parse_spec(spec_keys, EXPERT_PARAMS)
    new = TriPalkiExpertAgent("tri_palki", "player_0", seed, params, nets={})
    return _Lockstep(new, TriPalkiSearchAgent("tri_palki", "player_0", seed, params))


BUDGET = "samples=192,infer=4,endgame_samples=768,infer_epsilon=0.3"  # EXPERT_PARAMS's keys


def _play(pair: _Lockstep, n: int, opponents: list[str], seeds: range, **env: Any) -> None:
    table: list[Any] = [pair] + [
        make_agent(opponents[(i - 1) % len(opponents)], "tri_palki", f"player_{i}", seed=i)
        for i in range(1, n)
    ]
    for seed in seeds:
        play_episode(raw_env(num_players=n, **env), table, seed=seed)


def _assert_same(pair: _Lockstep, at_least: int) -> None:
    searched = [d for d in pair.decisions if d[3] is not None]
    assert len(searched) >= at_least
    for action, reference, values, reference_values in pair.decisions:
        assert action == reference
        assert values == reference_values  # the same floats: the same sticks over the same worlds


def test_the_shipped_expert_is_the_compiled_search() -> None:
    assert isinstance(make_agent("expert", "tri_palki", "player_0", seed=1), TriPalkiExpertAgent)
    # docs/iterate.md: where the rules made the network expert's
    assert EXPERT_NET_SIZES == (3, 4, 6)


@pytest.mark.parametrize(
    ("n", "reference"),
    [
        (3, f"iterated:{BUDGET},net=shipped,top_k=5,cutoff=10,others=rules,weights=net"),
        (4, f"iterated:{BUDGET},net=shipped,top_k=5,cutoff=10,others=rules,weights=net"),
        (6, f"iterated:{BUDGET},net=shipped,top_k=5,cutoff=10,others=rules,weights=net"),
        (2, f"iterated:{BUDGET}"),
        (5, f"iterated:{BUDGET}"),
    ],
)
def test_expert_is_the_networks_search_at_3_4_and_6_players_and_without_it_elsewhere(
    n: int, reference: str
) -> None:
    seed = 91100 + n
    pair = _Lockstep(
        make_agent("expert", "tri_palki", "player_0", seed=seed),
        make_agent(reference, "tri_palki", "player_0", seed=seed),
    )
    _play(pair, n, ["heuristic", "random"], range(91700 + 10 * n, 91703 + 10 * n))
    _assert_same(pair, at_least=5)


@pytest.mark.parametrize("n", [3, 4, 6])
def test_expert_decides_as_its_python_reference_decision_by_decision(n: int) -> None:
    pair = _pair("", seed=91000 + n)
    _play(
        pair, n, ["heuristic", "random", "pimc:samples=4"], range(91000 + 100 * n, 91006 + 100 * n)
    )
    _assert_same(pair, at_least=8)


@pytest.mark.parametrize(
    "keys",
    ["opponents=learned,samples=24", "confidence=1.5,samples=24", "infer=1,horizon=8,samples=24"],
)
def test_the_expert_keys_keep_the_decisions_of_the_reference(keys: str) -> None:
    pair = _pair(keys, seed=91017)
    _play(pair, 4, ["heuristic", "random"], range(91400, 91404))
    _assert_same(pair, at_least=4)


def test_eliminated_players_and_the_full_heuristic_rollouts_use_the_reference() -> None:
    """A match eliminates players (the compiled rollouts play full tables only), and
    ``rollout=heuristic`` is the heuristic agent itself: both fall back to the Python search."""
    pair = _pair("samples=8", seed=91023)
    _play(pair, 4, ["heuristic"], range(91500, 91501), episode="match", max_turns=200)
    _assert_same(pair, at_least=10)
    pair = _pair("rollout=heuristic,samples=4,horizon=12", seed=91029)
    _play(pair, 3, ["heuristic"], range(91600, 91602))
    _assert_same(pair, at_least=2)


def test_a_network_key_of_an_expert_spec_applies_at_every_size_with_the_network() -> None:
    from folkcards.agents.tri_palki_net_search import EXPERT_NETS

    assert make_agent("expert", "tri_palki", "player_0", seed=1).nets == EXPERT_NETS
    agent = make_agent("expert:net=compact,weights=rules", "tri_palki", "player_0", seed=1)
    assert set(agent.nets) == set(EXPERT_NET_SIZES)
    for settings in agent.nets.values():
        assert (settings.net, settings.weights, settings.others) == ("compact", "rules", "rules")
        assert (settings.top_k, settings.cutoff) == (5, 10)
