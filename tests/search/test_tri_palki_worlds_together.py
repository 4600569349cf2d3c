"""Tri Palki's world sampler draws the worlds of an observation together: the same worlds, and
the generator left in the same state, as drawing them one at a time (``_draw_world`` below,
the reference), whether or not an announcer's hand is to complete; a batch of drawn worlds
builds any of them on request, as drawn."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from folkcards.agents.base import make_agent
from folkcards.agents.episode import play_episode
from folkcards.envs.tri_palki_v0 import raw_env
from folkcards.search import tri_palki_belief as belief


class _Recorder:
    def __init__(self, agent: Any, seen: list[Any]):
        self.agent, self.seen = agent, seen

    def reset(self) -> None:
        self.agent.reset()

    def act(self, observation: Any) -> int:
        self.seen.append(observation)
        return self.agent.act(observation)


def _draw_world(rng, seen, o, announcer, completions, unknown_cards, slot_seats,
                base):  # type: ignore[no-untyped-def]  # fmt: skip
    """One world: the announcer's completion (if any), then one shuffle of the remaining unseen
    cards into the hidden hand places (in seat order) and the reserve."""
    hands = list(seen.known)
    hands[o] = seen.hand_o
    pool = unknown_cards
    if completions:
        extra = completions[int(rng.integers(len(completions)))]
        hands[announcer] |= extra
        pool = pool[[not extra >> int(c) & 1 for c in pool]]
    order = pool[rng.permutation(len(pool))].tolist()
    start = 0
    for seat in slot_seats:
        need = 3 - bin(hands[seat]).count("1")
        for card in order[start : start + need]:
            hands[seat] |= 1 << card
        start += need
    return belief.TriPalkiWorld(hands=tuple(hands), reserve=tuple(order[start:]), **base)


class _Listed:
    """The worlds drawn one at a time, as the sampler's batch answers for them."""

    def __init__(self, worlds: list[Any]):
        self._worlds = worlds

    def worlds(self) -> list[Any]:
        return self._worlds


def _one_at_a_time(rng, seen, o, unknown_cards, slot_seats, base, n):  # type: ignore[no-untyped-def]
    return _Listed(
        [_draw_world(rng, seen, o, None, [], unknown_cards, slot_seats, base) for _ in range(n)]
    )


def _completed_one_at_a_time(rng, seen, o, announcer, completions, unknown_cards, slot_seats,
                             base, n):  # type: ignore[no-untyped-def]  # fmt: skip
    return _Listed([
        _draw_world(rng, seen, o, announcer, completions, unknown_cards, slot_seats, base)
        for _ in range(n)
    ])  # fmt: skip


@pytest.mark.parametrize("n", [3, 4, 6])
def test_worlds_drawn_together_are_the_worlds_drawn_one_at_a_time(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    observations: list[Any] = []
    table = [
        _Recorder(make_agent(spec, "tri_palki", f"player_{i}", seed=i), observations)
        for i, spec in enumerate(["heuristic", "random"] * 3)
    ][:n]
    for episode in range(6):
        play_episode(raw_env(num_players=n), table, seed=92000 + 10 * n + episode)
    for episode in range(2):  # a match: eliminated seats
        play_episode(raw_env(num_players=n, episode="match", max_turns=100), table,
                     seed=92500 + 10 * n + episode)  # fmt: skip
    assert len(observations) > 20
    completed = 0  # observations after another seat announced: its hand completed to a 31
    for k, observation in enumerate(observations):
        together_rng, reference_rng = np.random.default_rng(k), np.random.default_rng(k)
        together = belief.sample_worlds(observation, 40, together_rng, observer=0)
        with monkeypatch.context() as patch:
            patch.setattr(belief, "_draw_worlds", _one_at_a_time)
            patch.setattr(belief, "_draw_completed_worlds", _completed_one_at_a_time)
            reference = belief.sample_worlds(observation, 40, reference_rng, observer=0)
        completed += together[0].announcer is not None and together[0].announcer != 0
        assert together == reference
        batch = belief.sample_world_batch(observation, 40, np.random.default_rng(k), observer=0)
        picked = [7, 0, 7, 39]  # a search keeps some of the worlds it drew, some more than once
        assert batch.worlds(picked) == [together[i] for i in picked]
        assert batch.hands.tolist() == [list(world.hands) for world in together]
        assert all(type(card) is int for card in together[0].hands + together[0].reserve)
        assert together_rng.integers(2**62) == reference_rng.integers(2**62)
    assert completed >= 3
