"""The batched Tri Palki engine against the AEC env.

Differential: the same deals (injected through ``deals``/``dealers``/``sticks``, and after each
auto-reset the engine's own deal given to a fresh AEC env through ``deal_options``) are played
with the same random legal actions; every observation, mask, acting player, reward, end flag
and final info must be identical. The referee's vectors replay through the batched engine too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from folkcards.envs.tri_palki import batched
from folkcards.envs.tri_palki.env import raw_env
from folkcards.envs.tri_palki.rules import NUM_CARDS

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _aec_view(env: raw_env) -> tuple[int, np.ndarray, np.ndarray]:
    agent = env.agent_selection
    observed = env.observe(agent)
    return env.agent_seat[agent], observed["observation"], observed["action_mask"]


def _check_instant(record: batched.InstantRound, n: int, max_turns: int) -> None:
    """A round that ended at its deal ends the same way in the AEC env, right after reset."""
    env = raw_env(num_players=n, max_turns=max_turns)
    env.reset(seed=0, options=record.options)
    assert all(env.terminations.values())
    for seat, agent in enumerate(env.possible_agents):
        assert env.infos[agent] == record.infos[agent]
        assert env._cumulative_rewards[agent] == record.rewards[seat]


def play_differential(
    n: int, num_envs: int, games: int, max_turns: int, seed: int, subsets: bool = False
) -> dict:
    """Play until ``games`` games have finished in the batch; return what was compared. With
    ``subsets``, each step moves a random half of the games (``step(actions, where=...)``)."""
    rng = np.random.default_rng(seed)
    options = {
        "deals": [rng.permutation(NUM_CARDS).tolist() for _ in range(num_envs)],
        "dealers": [int(d) for d in rng.integers(n, size=num_envs)],
        "sticks": rng.integers(0, 4, size=(num_envs, n)).tolist(),
    }
    vec = batched.vector_env(num_envs, num_players=n, max_turns=max_turns)
    obs, mask, player = vec.reset(seed=seed, options=options)
    counts = {"games": 0, "decisions": 0, "instant": 0, "truncated": 0, "outcomes": set()}
    instant_games = {record.game for record in vec.instant_rounds}
    for record in vec.instant_rounds:
        _check_instant(record, n, max_turns)
        counts["instant"] += 1
    envs = []
    for i in range(num_envs):
        if i not in instant_games:  # the injected deal is being played
            assert vec.deal_options(i) == {
                "dealer": options["dealers"][i],
                "deck": options["deals"][i],
                "sticks": options["sticks"][i],
            }
        env = raw_env(num_players=n, max_turns=max_turns)
        env.reset(seed=0, options=vec.deal_options(i))
        envs.append(env)
    while counts["games"] < games:
        actions = np.empty(num_envs, dtype=np.int64)
        for i, env in enumerate(envs):
            seat, aec_obs, aec_mask = _aec_view(env)
            assert player[i] == seat, f"game {i}: acting seat"
            assert np.array_equal(mask[i], aec_mask), f"game {i}: mask"
            assert np.array_equal(obs[i], aec_obs), (
                f"game {i}: observation differs at {np.flatnonzero(obs[i] != aec_obs)}"
            )
            actions[i] = rng.choice(np.flatnonzero(aec_mask))
        where = rng.random(num_envs) < 0.5 if subsets else np.ones(num_envs, dtype=bool)
        counts["decisions"] += int(where.sum())
        actions[~where] = 99  # ignored where a game does not move
        obs, mask, player, rewards, terminated, truncated, infos = vec.step(
            actions, where=where if subsets else None
        )
        for i, env in enumerate(envs):
            if not where[i]:
                assert not rewards[i].any() and not terminated[i] and not truncated[i]
                assert i not in infos
                continue
            env.step(int(actions[i]))
            for seat, agent in enumerate(env.possible_agents):
                assert rewards[i, seat] == env.rewards[agent], f"game {i}: reward of {agent}"
            done_aec = all(env.terminations.values())
            trunc_aec = all(env.truncations.values())
            assert terminated[i] == done_aec and truncated[i] == trunc_aec, f"game {i}: end flags"
            if done_aec or trunc_aec:
                assert set(infos) >= {i}
                for agent in env.possible_agents:
                    assert infos[i][agent] == env.infos[agent], f"game {i}: infos of {agent}"
                counts["games"] += 1
                counts["truncated"] += int(trunc_aec)
                counts["outcomes"].add(env.infos["player_0"]["outcome"])
                env.reset(seed=0, options=vec.deal_options(i))
            else:
                assert i not in infos
        for record in vec.instant_rounds:
            _check_instant(record, n, max_turns)
            counts["instant"] += 1
    return counts


@pytest.mark.parametrize(
    ("n", "max_turns", "games"), [(2, 200, 60), (4, 40, 60), (7, 60, 100), (11, 200, 100)]
)
def test_differential_against_aec(n: int, max_turns: int, games: int):
    counts = play_differential(n, num_envs=16, games=games, max_turns=max_turns, seed=n)
    assert counts["games"] >= games
    assert len(counts["outcomes"]) >= 2
    if n == 11:
        assert counts["instant"] > 0  # rounds over at the deal were compared too


def test_differential_against_aec_stepping_subsets():
    counts = play_differential(5, num_envs=16, games=60, max_turns=50, seed=55, subsets=True)
    assert counts["games"] >= 60


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n", "max_turns", "games"),
    [(n, 60, 3000) for n in (2, 3, 4, 5, 7, 9, 11)] + [(n, 400, 1000) for n in (2, 4, 7, 11)],
)
def test_differential_against_aec_thousands(n: int, max_turns: int, games: int):
    """Thousands of rounds per player count: short rounds (mostly truncated) and long ones
    (mostly ended by the rules)."""
    counts = play_differential(n, num_envs=64, games=games, max_turns=max_turns, seed=100 + n)
    assert counts["games"] >= games
    assert counts["outcomes"] >= {"announced", "reserve_empty"}


def _vector_episodes() -> list[dict]:
    episodes = [
        json.loads(line)
        for line in (VECTORS / "tri_palki_episodes.jsonl").read_text().splitlines()
        if line.strip()
    ]
    bundle = VECTORS / "tri_palki_rounds.json"
    if bundle.exists():
        episodes += json.loads(bundle.read_text())["episodes"]
    return episodes


def test_referee_vectors_replay():
    episodes = _vector_episodes()
    assert len(episodes) >= 40
    for episode in episodes:
        kwargs = dict(episode["env_kwargs"])
        n = kwargs.pop("num_players", 4)
        vec = batched.vector_env(1, num_players=n, **kwargs)
        opts = episode["options"]
        obs, mask, player = vec.reset(
            seed=0,
            options={
                "deals": [opts["deck"]],
                "dealers": [opts.get("dealer")],
                "sticks": [opts.get("sticks")],
            },
        )
        totals = np.zeros(n)
        final = None
        if not episode["steps"]:
            assert len(vec.instant_rounds) == 1, episode["name"]
            totals += vec.instant_rounds[0].rewards
            final = vec.instant_rounds[0].infos
        else:
            assert not vec.instant_rounds, episode["name"]
        for k, step in enumerate(episode["steps"]):
            assert f"player_{player[0]}" == step["agent"], episode["name"]
            assert np.flatnonzero(mask[0]).tolist() == step["legal"], episode["name"]
            obs, mask, player, rewards, terminated, truncated, infos = vec.step([step["action"]])
            totals += rewards[0]
            last = k == len(episode["steps"]) - 1
            assert bool(terminated[0]) == last, episode["name"]
            if last:
                final = infos[0]
        assert final is not None
        for seat in range(n):
            agent = f"player_{seat}"
            expected = dict(episode["result"].get(agent, {}))
            if not expected:
                continue
            assert totals[seat] == pytest.approx(expected.pop("total_reward")), episode["name"]
            for key, value in expected.items():
                assert final[agent][key] == value, (episode["name"], agent, key)
        if "next_dealer" in episode:
            assert final["player_0"]["next_dealer"] == episode["next_dealer"]


def test_bad_actions_raise_and_leave_the_batch_unchanged():
    vec = batched.vector_env(5, num_players=3)
    obs, mask, player = vec.reset(seed=3)
    before = ([vec.deal_options(i) for i in range(5)], obs.copy(), mask.copy(), player.copy())
    good = np.array([int(np.flatnonzero(mask[i])[0]) for i in range(5)])
    illegal = good.copy()
    illegal[3] = 11 if mask[3, 0] else 0  # announce outside the decision, or pass inside it
    for bad, pattern in [
        (illegal, "game 3"),
        (np.append(good, 0), "shape"),
        (good[:4], "shape"),
        (np.where(np.arange(5) == 2, 13, good), "game 2"),
        (np.where(np.arange(5) == 1, -1, good), "game 1"),
        (good.astype(float) + 0.5, "integers"),
        ("pass", "shape"),
    ]:
        with pytest.raises(ValueError, match=pattern):
            vec.step(bad)
        after = ([vec.deal_options(i) for i in range(5)], obs, mask, player)
        assert after[0] == before[0]
        assert np.array_equal(after[1], before[1]) and np.array_equal(after[2], before[2])
        assert np.array_equal(after[3], before[3])
    vec.step(good)  # still playable


def test_bad_options_raise():
    with pytest.raises(ValueError, match="episode='round'"):
        batched.vector_env(2, episode="match")
    with pytest.raises(ValueError, match="reward='sticks'"):
        batched.vector_env(2, reward="win")
    with pytest.raises(ValueError, match="num_players"):
        batched.vector_env(2, num_players=12)
    with pytest.raises(ValueError, match="num_envs"):
        batched.vector_env(0)
    with pytest.raises(ValueError, match="max_turns"):
        batched.vector_env(2, max_turns=0)
    vec = batched.vector_env(2, num_players=2)
    deck = list(range(NUM_CARDS))
    with pytest.raises(ValueError, match="game 1"):
        vec.reset(options={"deals": [deck, deck[:-1]]})
    with pytest.raises(ValueError, match="2 entries"):
        vec.reset(options={"deals": [deck]})
    with pytest.raises(ValueError, match="game 0"):
        vec.reset(options={"sticks": [[0, 4], [0, 0]]})
    with pytest.raises(ValueError, match="game 1"):
        vec.reset(options={"dealers": [0, 2]})
    with pytest.raises(ValueError, match="unknown reset options"):
        vec.reset(options={"deck": deck})
    with pytest.raises(ValueError, match="before reset"):
        batched.vector_env(1).step([0])


def test_same_seed_same_games_whatever_the_batch_size():
    def run(num_envs: int) -> list:
        vec = batched.vector_env(num_envs, num_players=4)
        obs, mask, player = vec.reset(seed=11)
        rng = np.random.default_rng(0)
        seen = []
        for _ in range(50):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask[:3]])
            actions = np.concatenate([actions, np.zeros(num_envs - 3, dtype=np.int64)])
            actions[3:] = [int(np.flatnonzero(m)[0]) for m in mask[3:]]
            seen.append([vec.deal_options(i) for i in range(3)])
            obs, mask, player, *_ = vec.step(actions)
        return seen

    assert run(3) == run(80)  # 80 games step in parallel, 3 serially
    other = batched.vector_env(3, num_players=4)
    other.reset(seed=12)
    assert [other.deal_options(i) for i in range(3)] != run(3)[0]


def test_random_deals_are_uniform():
    """Dealers and card positions are uniform, and instant rounds (11 players: a one-suit
    centre, empty reserve) come at the rate of the deal: 4·C(9,3)/C(36,3) per deal."""
    n, num_envs = 11, 30_000
    vec = batched.vector_env(num_envs, num_players=n)
    vec.reset(seed=5)
    dealers = np.array([vec.deal_options(i)["dealer"] for i in range(num_envs)])
    expected = num_envs / n
    chi2 = float((((np.bincount(dealers, minlength=n) - expected) ** 2) / expected).sum())
    assert chi2 < 35.0  # 10 degrees of freedom: p < 1e-4 beyond this
    where_ace = np.array([vec.deal_options(i)["deck"].index(35) for i in range(2000)])
    expected = 2000 / NUM_CARDS
    chi2 = float((((np.bincount(where_ace, minlength=NUM_CARDS) - expected) ** 2) / expected).sum())
    assert chi2 < 75.0  # 35 degrees of freedom: p < 1e-4 beyond this
    p = 4 * math.comb(9, 3) / math.comb(36, 3)
    mean = p / (1 - p)  # instant rounds before a playable one, per game
    sd = math.sqrt(p / (1 - p) ** 2 / num_envs)
    assert abs(len(vec.instant_rounds) / num_envs - mean) < 5 * sd


def test_partly_injected_reset():
    """A game given only a dealer, a deck or sticks gets the rest at random."""
    deck = np.random.default_rng(3).permutation(NUM_CARDS).tolist()
    vec = batched.vector_env(4, num_players=3)
    vec.reset(
        seed=9,
        options={
            "dealers": [1, None, None, None],
            "deals": [None, deck, None, None],
            "sticks": [None, None, [3, 2, 1], None],
        },
    )
    got = [vec.deal_options(i) for i in range(4)]
    if not vec.instant_rounds:  # (a round over at its deal would have been replaced)
        assert got[0]["dealer"] == 1 and got[1]["deck"] == deck
        assert got[2]["sticks"] == [3, 2, 1] and got[3]["sticks"] == [0, 0, 0]
    assert all(sorted(options["deck"]) == list(range(NUM_CARDS)) for options in got)
