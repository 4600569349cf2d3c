"""The Tri Palki ``distilled`` player's search where its network is unsure.

Contract (docs/guide/distilled.md, ``TriPalkiUnsureSearch``): a decision with a choice whose
network probability of its first choice is under the threshold (0.99 by default,
``distilled:unsure=P``) is the expert's search's; every other decision is the network's
(``unsure=0``: the network alone, as ``ppo:`` on the committed file plays it). The search's
inference reads the round as if it had been shown every decision (the network's are worked in
lazily), and a decision's work is bounded whatever the other players do."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.batched_agents import make_batched_agent
from folkcards.agents.policy_files import distilled_model_path
from folkcards.agents.tri_palki_search import EXPERT_PARAMS, TriPalkiSearchParams, parse_spec
from folkcards.agents.tri_palki_unsure_search import TriPalkiUnsureSearch
from folkcards.envs.tri_palki import observation as obs_mod

from .tri_palki_styles import play_rounds, style_opponents

MOVES = 11
# the unsure searches: the expert's budget without a network, and the 0.4.0 expert's (0.6's)
EXPERT_SEARCH = "iterated:samples=192,infer=4,endgame_samples=768,infer_epsilon=0.3"
EXPERT_0_4 = "iterated:samples=96,infer=8,infer_epsilon=0.1,endgame_samples=0"


def _walk(first, num_players: int, seeds, others_seed: int = 7):
    """Rounds with ``first`` in seat 0 and the heuristic and ``ppo:tri_palki`` alternating in
    the others; yields (observation, action) at each of seat 0's decisions."""
    others = [
        make_agent("heuristic" if i % 2 else "ppo:tri_palki", "tri_palki", f"player_{i}", others_seed + i)
        for i in range(1, num_players)
    ]  # fmt: skip
    for _, obs, action, _ in play_rounds(first, others, seeds, 0, max_turns=1000):
        yield obs, action


class _EagerReference:
    """The reference: the network, and where it is unsure the expert's search (``spec``), which
    is shown each of the network's decisions as they happen (what the lazy catch-up must
    reproduce)."""

    def __init__(
        self,
        seed: int,
        spec: str = EXPERT_SEARCH,
        threshold: float = 0.99,
        version: str | None = None,
    ):
        network = "distilled:unsure=0" + (f",version={version}" if version else "")
        self.network = make_agent(network, "tri_palki", seed=seed)
        self.expert = make_agent(spec, "tri_palki", seed=seed)
        self.threshold = threshold

    def reset(self):
        self.expert.reset()

    def act(self, obs):
        mask = obs["action_mask"].astype(bool)
        p = self.network.action_probabilities(obs)
        if mask.sum() > 1 and p[mask].max() < self.threshold:
            return self.expert.act(obs)
        action = int(np.argmax(p))
        view = obs_mod.decode(np.asarray(obs["observation"]))
        self.expert._remember(view)
        self.expert._trail = (view, action)
        return action


@pytest.mark.parametrize(
    ("version", "expert"), [(None, EXPERT_SEARCH), ("0.6", EXPERT_0_4)], ids=["distilled", "0.6"]
)
@pytest.mark.parametrize("num_players", [3, 4])
def test_distilled_decides_as_the_network_with_an_eagerly_informed_expert(
    num_players, version, expert
):
    """``distilled`` searches with the expert's budget, ``distilled:version=0.6`` with the 0.4.0
    expert's, the budget its network was cloned from."""
    spec = "distilled" if version is None else f"distilled:version={version}"
    player = make_agent(spec, "tri_palki", seed=5)
    # the reference has no cap on the searches of a round
    player.unsure = TriPalkiUnsureSearch(seed=5, max_searches=10**9, version=version)
    reference = _EagerReference(seed=5, spec=expert, version=version)
    seeds = range(100 + num_players * 10, 110 + num_players * 10)
    ours = [a for _, a in _walk(player, num_players, seeds)]
    theirs = [a for _, a in _walk(reference, num_players, seeds)]
    assert ours == theirs
    assert len(ours) > 20


@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_unsure_net_searches_as_the_expert_with_its_network(num_players):
    """``distilled:unsure_net=1``: at 3 players the unsure decisions are the search's with the
    loop's network for its own seat (0.14.0's ``expert`` there), elsewhere without a network."""
    player = make_agent("distilled:unsure_net=1", "tri_palki", seed=5)
    player.unsure = TriPalkiUnsureSearch(seed=5, max_searches=10**9, with_net=True)
    own_seat = ",net=shipped,top_k=5,cutoff=10,others=rules" if num_players == 3 else ""
    reference = _EagerReference(seed=5, spec=EXPERT_SEARCH + own_seat)
    seeds = range(300 + num_players * 10, 308 + num_players * 10)
    ours = [a for _, a in _walk(player, num_players, seeds)]
    assert ours == [a for _, a in _walk(reference, num_players, seeds)]
    assert len(ours) > 20
    # the last search used the network at 3 players only
    assert (player.unsure.search.net is not None) == (num_players == 3)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("distilled:unsure_net=2", "unsure_net is 0 or 1"),
        ("distilled:unsure_net=1,unsure=0", "unsure_net=1 gives the search"),
    ],
)
def test_unsure_net_refuses_what_it_cannot_play_in_one_line(spec, message):
    for game in ("tri_palki", "paston"):
        with pytest.raises(ValueError, match=message) as caught:
            make_agent(spec, game)
        assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="unsure_net=1 gives the search"):
        make_agent("distilled:unsure_net=1", "paston")


@pytest.mark.parametrize("style", ["long_rounds", "rare_pass"])
def test_the_catch_up_reproduces_the_eager_expert_over_long_rounds(style):
    """Rounds of many decisions: long runs of the network's decisions are caught up with."""
    spec = "iterated:samples=8,horizon=40,infer=4,endgame_samples=768,infer_epsilon=0.3"
    params, _ = parse_spec("samples=8,horizon=40", EXPERT_PARAMS)
    player = make_agent("distilled", "tri_palki", seed=4)
    player.unsure = TriPalkiUnsureSearch(seed=4, params=params, max_searches=10**9)
    runs = []
    for first in (player, _EagerReference(seed=4, spec=spec)):
        opponents = style_opponents(style, 3, 4)
        runs.append([a for _, _, a, _ in play_rounds(first, opponents, range(40, 52), 4, 300)])
    assert runs[0] == runs[1]
    assert len(runs[0]) > 200


def test_the_search_takes_exactly_the_unsure_decisions_and_unsure_0_is_the_network():
    player = make_agent("distilled", "tri_palki", seed=2)
    network = make_agent(f"ppo:{distilled_model_path('tri_palki')}", "tri_palki")
    searched = []
    original = player.unsure.act

    def counting(obs):
        searched.append(True)
        return original(obs)

    player.unsure.act = counting
    new_round = []  # the player is reset at each round's start: its count of searches too
    reset = player.reset

    def resetting():
        new_round.append(True)
        reset()

    player.reset = resetting
    taken = differs = unsure = 0
    this_round, in_round = None, 0
    for obs, action in _walk(player, 4, range(40)):
        mask = obs["action_mask"].astype(bool)
        p = player.action_probabilities(obs)
        view = obs_mod.decode(np.asarray(obs["observation"]))
        if new_round or (view.dealer, view.sticks) != this_round:
            this_round, in_round = (view.dealer, view.sticks), 0
            new_round.clear()
        expected_search = mask.sum() > 1 and p[mask].max() < 0.99 and in_round < 6
        in_round += expected_search
        assert bool(searched) == expected_search
        unsure += expected_search
        taken += 1
        differs += action != network.act(obs)
        searched.clear()
    assert 0 < unsure < taken  # both kinds of decision occur
    assert differs > 0  # the search changed some decisions
    alone = make_agent("distilled:unsure=0", "tri_palki", seed=2)
    assert alone.unsure is None
    for obs, action in _walk(alone, 3, range(10)):
        assert action == network.act(obs)


def test_a_higher_threshold_searches_more_decisions():
    counts = {}
    for threshold in (0.5, 0.99):
        player = make_agent(f"distilled:unsure={threshold}", "tri_palki", seed=1)
        assert player.unsure.threshold == threshold
        n = 0
        for obs, _ in _walk(make_agent("heuristic", "tri_palki"), 4, range(20)):
            player.unsure.reset()
            n += player.unsure.takes(obs, player.action_probabilities(obs))
        counts[threshold] = n
    assert counts[0.5] < counts[0.99]


SMALL = TriPalkiSearchParams(samples=8, horizon=40, infer_budget=1500, reconstruct_budget=20)
LIMITS = {"likelihood": 1_500, "reconstruction": 5 * 20, "rollout": 8 * MOVES * 40}


@pytest.mark.parametrize(
    ("style", "num_players", "max_turns", "rounds"),
    [("back_and_forth", 3, 300, 2), ("swap_all", 4, 1000, 3), ("long_rounds", 3, 300, 2)],
)
def test_work_per_decision_is_bounded_whatever_the_opponents(style, num_players, max_turns, rounds):
    """Each searched decision's work (catching up with the round included: at most about the
    reconstruction budget, then the search's own interval and opening) stays within the
    budgets; the network's own decisions do no search work. Threshold 1: nearly every
    decision is searched; threshold 0.9 leaves runs of the network's decisions to catch up
    with (against these players the committed network is unsure of most decisions at 0.99),
    and a small reconstruction budget makes the catch-up run out of it."""
    cuts = 0
    for threshold in (0.9, 1.0):
        player = make_agent("distilled", "tri_palki", seed=3)
        player.unsure = TriPalkiUnsureSearch(
            seed=3, threshold=threshold, params=SMALL, max_searches=10**9
        )
        searched = decisions = 0
        for agent, _, _, seconds in play_rounds(
            player, style_opponents(style, num_players, 3), [300 + r for r in range(rounds)], 3,
            max_turns,
        ):  # fmt: skip
            work = agent.unsure.work
            if work:
                for key, limit in LIMITS.items():
                    assert work[key] <= limit, (key, work)
                searched += 1
                cuts += agent.unsure.cut
                agent.unsure.work = {}
            decisions += 1
            assert seconds < 60.0
        assert decisions > 10 and searched > 0
    if style == "swap_all":  # (elsewhere the rounds end, or reconstructions stop, sooner)
        assert cuts > 0  # the catch-up budget was reached, so its cut is exercised


def _rows(count: int):
    rows, masks = [], []
    for obs, _ in _walk(make_agent("heuristic", "tri_palki"), 4, range(60)):
        if obs["action_mask"].sum() > 1 and len(rows) < count:
            rows.append(np.asarray(obs["observation"], np.float32))
            masks.append(np.asarray(obs["action_mask"], bool))
    return np.stack(rows), np.stack(masks)


def test_batched_distilled_rows_do_not_depend_on_the_batch():
    rows, masks = _rows(40)
    streams = np.random.default_rng(3).integers(0, 2**63, size=(len(rows), 4)).astype(np.uint64)
    batched = make_batched_agent("distilled", "tri_palki", seed=1, num_players=4)
    together = batched.act(rows, masks, streams.copy())
    alone = [int(batched.act(rows[k : k + 1], masks[k : k + 1], streams[k : k + 1].copy())[0])
             for k in range(len(rows))]  # fmt: skip
    assert together.tolist() == alone
    assert all(masks[k, a] for k, a in enumerate(together))
    network = make_batched_agent("distilled:unsure=0", "tri_palki", seed=1, num_players=4)
    plain = network.act(rows, masks)
    assert (plain != together).any()  # the search took some rows
    single = make_agent("distilled:unsure=0", "tri_palki")
    assert plain.tolist() == [
        single.act({"observation": r, "action_mask": m.astype(np.int8)})
        for r, m in zip(rows, masks, strict=True)
    ]


def test_at_most_max_searches_a_round_then_the_network_and_the_count_starts_again():
    """Whole matches (several rounds an episode) against players who keep rounds long: no round
    has more than ``max_searches`` searched decisions, the decisions past them are the
    network's first choices, and a later round of the same match is searched again."""
    player = make_agent("distilled", "tri_palki", seed=6)
    player.unsure = TriPalkiUnsureSearch(seed=6, max_searches=2, params=SMALL)
    network = make_agent("distilled:unsure=0", "tri_palki")
    original = player.unsure.act
    searched = []

    def counting(obs):
        searched.append(True)
        return original(obs)

    player.unsure.act = counting
    per_round: dict = {}
    capped = 0
    opponents = style_opponents("long_rounds", 3, 6)
    seen = []

    for _, obs, action, _ in play_rounds(
        _Watched(player, seen), opponents, [61], 6, 300, episode="match"
    ):
        view = obs_mod.decode(np.asarray(obs["observation"]))
        key = (view.dealer, tuple(view.sticks))
        unsure = seen.pop()
        per_round[key] = per_round.get(key, 0) + len(searched)
        if unsure and not searched:
            capped += 1
            assert action == network.act(obs)
        searched.clear()
    assert max(per_round.values()) == 2
    assert sum(1 for n in per_round.values() if n == 2) >= 2  # the count started again
    assert capped > 0


class _Watched:
    """``player``, noting before each decision whether its network is unsure of it."""

    def __init__(self, player, seen: list):
        self.player, self.seen = player, seen

    def reset(self):
        self.player.reset()

    def act(self, obs):
        mask = obs["action_mask"].astype(bool)
        p = self.player.action_probabilities(obs)
        self.seen.append(bool(mask.sum() > 1 and p[mask].max() < 0.99))
        return self.player.act(obs)
