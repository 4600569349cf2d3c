"""The one-ply Monte Carlo baseline (folkcards.agents.montecarlo)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.agents.montecarlo import copy_state as _copy
from folkcards.agents.tri_palki_montecarlo import _STRENGTH, greedy_action
from folkcards.envs.registry import game_spec
from folkcards.envs.tri_palki.rules import ANNOUNCE, PASS, TriPalkiRound

TABLES = [("paston", 3), ("tri_palki", 3), ("tri_palki", 4), ("tri_palki", 6)]


def _mask_bits(mask) -> int:
    return sum(1 << int(a) for a in np.flatnonzero(mask))


class _Checking:
    """Wraps a montecarlo agent: every world's engine state must be at this seat's decision
    with the observation's legal actions."""

    def __init__(self, agent):
        self.agent = agent
        self.states = 0

    def reset(self):
        self.agent.reset()

    def act(self, observation):
        if int(observation["action_mask"].sum()) > 1:
            for state in self.agent._states(np.asarray(observation["observation"])):
                assert state.to_act == self.agent.seat_index
                assert state.legal_bits() == _mask_bits(observation["action_mask"])
                self.states += 1
        return self.agent.act(observation)


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_worlds_become_engine_states_at_the_decision_and_episodes_finish(game, n):
    env = game_spec(game).raw_env(n)
    seat = [_Checking(make_agent("montecarlo:worlds=2", game, "player_0", seed=1))]
    others = [make_agent("random", game, f"player_{k}", seed=k) for k in range(1, n)]
    for deal in range(3):
        play_episode(env, seat + others, seed=deal)
    assert seat[0].states > 0 and seat[0].agent.fallbacks == 0


@pytest.mark.parametrize(("game", "n"), [("paston", 3), ("tri_palki", 4)])
def test_the_same_seed_plays_the_same_actions(game, n):
    env = game_spec(game).raw_env(n)
    records = []
    for _ in range(2):
        table = [make_agent("montecarlo:worlds=4", game, "player_0", seed=7)]
        table += [make_agent("random", game, f"player_{k}", seed=k) for k in range(1, n)]
        play_episode(env, table, seed=3)
        records.append(env.unwrapped.record()["actions"])
    assert records[0] == records[1]


def test_the_tri_palki_default_policy_makes_the_strongest_hand():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(200):
        state = TriPalkiRound([int(c) for c in rng.permutation(36)], 0, [True] * 4)
        for _ in range(int(rng.integers(0, 6))):  # somewhere into the round
            if state.phase != 0:
                break
            state.apply(int(rng.integers(0, 11)))
        if state.to_act < 0:
            continue
        choice = greedy_action(state)
        if state.legal_bits() >> ANNOUNCE & 1:
            assert choice == ANNOUNCE
            continue
        lists = ("hands", "known", "washes", "history")
        seat = state.to_act
        strength = {}
        for action in range(11):
            after = _copy(state, lists)
            hand = after.hands[seat]
            if action != PASS:  # a wash may follow: the policy judges the hand the swap gives
                after.apply(action)
                hand = after.hands[seat]
            strength[action] = _STRENGTH[hand]
        best = max(strength.values())
        assert strength[choice] == best
        if strength[PASS] == best:
            assert choice == PASS  # no strict improvement: pass
        checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    ("spec", "game", "message"),
    [
        ("montecarlo:worlds=0", "paston", "at least 1"),
        ("montecarlo:worlds=x", "paston", "must be an integer"),
        ("montecarlo:depth=2", "tri_palki", "key=value with a key of"),
        ("montecarlo", "paston_bidding", "has no one-ply Monte Carlo"),
    ],
)
def test_bad_specs_are_refused_in_one_line(spec, game, message):
    with pytest.raises(ValueError, match=message) as info:
        make_agent(spec, game)
    assert "\n" not in str(info.value)


def test_the_baseline_reads_no_heuristic_or_search_agent():
    # (built by its factory: make_agent loads every registered kind, the heuristics among them)
    code = (
        "import sys\n"
        "from folkcards.agents.episode import play_episode\n"
        "from folkcards.envs.registry import game_spec\n"
        "for game, n in (('paston', 3), ('tri_palki', 4)):\n"
        "    make = game_spec(game).piece('montecarlo_agent')\n"
        "    env = game_spec(game).raw_env(n)\n"
        "    table = [make(game, f'player_{k}', k, 'worlds=2') for k in range(n)]\n"
        "    play_episode(env, table, seed=1)\n"
        "banned = ('heuristic', 'pimc', 'expert', 'tri_palki_search', 'opponent_model')\n"
        "print(sorted(m for m in sys.modules if m.startswith('folkcards.agents.')\n"
        "             and any(b in m for b in banned)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
