"""The batched Paston engine against the AEC env.

Differential: the same deals (injected through ``deals``/``dealers``, and after each auto-reset
the engine's own deal given to a fresh AEC env through ``deal_options``) are played with the
same random legal actions; every observation, mask, acting player, reward, end flag and final
info must be identical. The referee's vectors replay through the batched engine too.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from folkcards.envs.paston import batched
from folkcards.envs.paston.env import raw_env
from folkcards.envs.paston.rules import deal_deck, has_six_spades, redeal_reason

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _random_deals(rng: np.random.Generator, count: int) -> list[dict]:
    """Valid injected deals (no six spades) in the AEC ``deal`` format."""
    deals = []
    while len(deals) < count:
        hands, prikup = deal_deck(rng.permutation(32).tolist(), 0)
        if redeal_reason(hands, False) is None:
            to_cards = lambda mask: [c for c in range(32) if mask >> c & 1]  # noqa: E731
            deals.append({"hands": [to_cards(h) for h in hands], "prikup": to_cards(prikup)})
    return deals


def play_differential(
    num_envs: int,
    games: int,
    seed: int,
    shaping: bool,
    reward_scale: float,
    subsets: bool = False,
) -> dict:
    """Play until ``games`` deals have finished in the batch; return what was compared. With
    ``subsets``, each step moves a random half of the games (``step(actions, where=...)``)."""
    rng = np.random.default_rng(seed)
    options = {
        "deals": _random_deals(rng, num_envs),
        "dealers": [int(d) for d in rng.integers(3, size=num_envs)],
    }
    kwargs = {"shaping": shaping, "reward_scale": reward_scale}
    vec = batched.vector_env(num_envs, **kwargs)
    obs, mask, player = vec.reset(seed=seed, options=options)
    envs = []
    for i in range(num_envs):
        assert vec.deal_options(i) == {"dealer": options["dealers"][i], "deal": options["deals"][i]}
        env = raw_env(**kwargs)
        env.reset(seed=0, options=vec.deal_options(i))
        envs.append(env)
    counts = {"games": 0, "decisions": 0, "outcomes": set()}
    while counts["games"] < games:
        actions = np.empty(num_envs, dtype=np.int64)
        for i, env in enumerate(envs):
            agent = env.agent_selection
            observed = env.observe(agent)
            assert player[i] == env.agent_seat[agent], f"game {i}: acting seat"
            assert np.array_equal(mask[i], observed["action_mask"]), f"game {i}: mask"
            assert np.array_equal(obs[i], observed["observation"]), (
                f"game {i}: observation differs at {np.flatnonzero(obs[i] != observed['observation'])}"
            )
            actions[i] = rng.choice(np.flatnonzero(observed["action_mask"]))
        where = rng.random(num_envs) < 0.5 if subsets else np.ones(num_envs, dtype=bool)
        counts["decisions"] += int(where.sum())
        actions[~where] = -1  # ignored where a game does not move
        obs, mask, player, rewards, terminated, truncated, infos = vec.step(
            actions, where=where if subsets else None
        )
        assert not truncated.any()
        for i, env in enumerate(envs):
            if not where[i]:
                assert not rewards[i].any() and not terminated[i] and i not in infos
                continue
            env.step(int(actions[i]))
            for seat, agent in enumerate(env.possible_agents):
                assert rewards[i, seat] == np.float32(env.rewards[agent]), f"game {i}: {agent}"
            done = all(env.terminations.values())
            assert terminated[i] == done, f"game {i}: end flag"
            if done:
                for agent in env.possible_agents:
                    assert infos[i][agent] == env.infos[agent], f"game {i}: infos of {agent}"
                counts["games"] += 1
                counts["outcomes"].add(env.infos["player_0"]["outcome"])
                env.reset(seed=0, options=vec.deal_options(i))
            else:
                assert i not in infos
    return counts


@pytest.mark.parametrize(("shaping", "reward_scale"), [(False, 1.0), (True, 0.1)])
def test_differential_against_aec(shaping: bool, reward_scale: float):
    counts = play_differential(16, games=250, seed=7, shaping=shaping, reward_scale=reward_scale)
    assert counts["games"] >= 250
    assert counts["outcomes"] >= {"played", "auto_win", "surrender"}


def test_differential_against_aec_stepping_subsets():
    counts = play_differential(16, games=60, seed=8, shaping=True, reward_scale=1.0, subsets=True)
    assert counts["games"] >= 60


@pytest.mark.slow
@pytest.mark.parametrize(("shaping", "reward_scale"), [(False, 1.0), (True, 0.05)])
def test_differential_against_aec_thousands(shaping: bool, reward_scale: float):
    counts = play_differential(64, games=5000, seed=70, shaping=shaping, reward_scale=reward_scale)
    assert counts["games"] >= 5000


def _vector_episodes() -> list[dict]:
    episodes = [
        json.loads(line)
        for line in (VECTORS / "paston_episodes.jsonl").read_text().splitlines()
        if line.strip()
    ]
    bundle = VECTORS / "paston_deals.json"
    if bundle.exists():
        episodes += json.loads(bundle.read_text())["episodes"]
    return episodes


def test_referee_vectors_replay():
    episodes = _vector_episodes()
    assert len(episodes) >= 40
    for episode in episodes:
        vec = batched.vector_env(1, **episode["env_kwargs"])
        opts = episode["options"]
        obs, mask, player = vec.reset(
            seed=0, options={"deals": [opts["deal"]], "dealers": [opts.get("dealer")]}
        )
        totals = np.zeros(3)
        final = None
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
        for seat in range(3):
            agent = f"player_{seat}"
            expected = dict(episode["result"][agent])
            assert totals[seat] == pytest.approx(expected.pop("total_reward")), episode["name"]
            for key, value in expected.items():
                assert final[agent][key] == value, (episode["name"], agent, key)


def test_bad_actions_raise_and_leave_the_batch_unchanged():
    vec = batched.vector_env(4)
    obs, mask, player = vec.reset(seed=3)
    before = ([vec.deal_options(i) for i in range(4)], obs.copy(), mask.copy(), player.copy())
    good = np.array([int(np.flatnonzero(mask[i])[0]) for i in range(4)])
    illegal = good.copy()
    illegal[2] = 44  # whist is never legal in the auction
    for bad, pattern in [
        (illegal, "game 2"),
        (np.append(good, 32), "shape"),
        (good.reshape(2, 2), "shape"),
        (np.where(np.arange(4) == 1, 45, good), "game 1"),
        (np.where(np.arange(4) == 3, -2, good), "game 3"),
        (good.astype(float) + 0.5, "integers"),
    ]:
        with pytest.raises(ValueError, match=pattern):
            vec.step(bad)
        assert [vec.deal_options(i) for i in range(4)] == before[0]
        assert np.array_equal(obs, before[1]) and np.array_equal(mask, before[2])
        assert np.array_equal(player, before[3])
    with pytest.raises(ValueError, match="where"):
        vec.step(good, where=[1, 0, 1, 1])
    vec.step(illegal, where=np.arange(4) != 2)  # game 2 does not move: its action is ignored
    assert vec.deal_options(2) == before[0][2] and np.array_equal(mask[2], before[2][2])


def test_bad_options_raise():
    with pytest.raises(ValueError, match="episode='deal'"):
        batched.vector_env(2, episode="game")
    with pytest.raises(ValueError, match="reward='score'"):
        batched.vector_env(2, reward="win")
    with pytest.raises(ValueError, match="reward_scale"):
        batched.vector_env(2, reward_scale=0)
    with pytest.raises(ValueError, match="shaping"):
        batched.vector_env(2, shaping="yes")
    with pytest.raises(ValueError, match="render"):
        batched.vector_env(2, render_mode="ansi")
    vec = batched.vector_env(2)
    deal = _random_deals(np.random.default_rng(0), 1)[0]
    six = {
        "hands": [
            ["7S", "8S", "9S", "10S", "JS", "QS", "7C", "8C", "9C", "10C"],
            ["KS", "AS", "JC", "QC", "KC", "AC", "7D", "8D", "9D", "10D"],
            ["JD", "QD", "KD", "AD", "7H", "8H", "9H", "10H", "JH", "QH"],
        ],
        "prikup": ["KH", "AH"],
    }
    with pytest.raises(ValueError, match="game 1.*six-spade"):
        vec.reset(options={"deals": [deal, six]})
    with pytest.raises(ValueError, match="game 0"):
        vec.reset(options={"deals": [{"hands": deal["hands"]}, deal]})
    with pytest.raises(ValueError, match="game 1"):
        vec.reset(options={"dealers": [0, "player_3"]})
    with pytest.raises(ValueError, match="unknown reset options"):
        vec.reset(options={"deal": deal})


def test_same_seed_same_games_whatever_the_batch_size():
    def run(num_envs: int) -> list:
        vec = batched.vector_env(num_envs)
        obs, mask, player = vec.reset(seed=21)
        rng = np.random.default_rng(1)
        seen = []
        for _ in range(60):
            actions = np.array([int(np.flatnonzero(m)[0]) for m in mask])
            actions[:3] = [int(rng.choice(np.flatnonzero(m))) for m in mask[:3]]
            seen.append([vec.deal_options(i) for i in range(3)])
            obs, mask, player, *_ = vec.step(actions)
        return seen

    first = run(3)
    assert first == run(70)  # 70 games step on two threads, 3 in the calling thread
    assert len({json.dumps(options) for step in first for options in step}) > 6  # deals change


def test_random_deals_follow_the_deal_procedure():
    """Random deals: uniform dealers; never a six-spade hand (about 30 would be expected in
    60,000 unfiltered deals); 7♠ never the bottom card, so the dealer holds it with probability
    9/31, each other player 10/31 and the prikup 2/31."""
    num_envs = 60_000
    vec = batched.vector_env(num_envs)
    vec.reset(seed=4)
    hands, prikup, dealers = vec.current_deals()
    assert not any(has_six_spades(int(h)) for h in hands.ravel())
    chi2 = float(((np.bincount(dealers, minlength=3) - num_envs / 3) ** 2 / (num_envs / 3)).sum())
    assert chi2 < 18.4  # 2 degrees of freedom, p = 1e-4
    holder = np.full(num_envs, 3)  # 3 = prikup
    for s in range(3):
        holder[(hands[:, s] & 1) == 1] = (s - dealers[(hands[:, s] & 1) == 1]) % 3
    observed = np.bincount(holder, minlength=4)  # dealer, left, right, prikup
    expected = num_envs * np.array([9, 10, 10, 2]) / 31
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < 21.1  # 3 degrees of freedom, p = 1e-4
    assert (hands.sum(axis=1) + prikup == 2**32 - 1).all()


def test_partly_injected_reset():
    """A game given only a dealer gets a random deal from that dealer; one given only a deal
    gets a random dealer; the others get both at random."""
    deal = _random_deals(np.random.default_rng(2), 1)[0]
    vec = batched.vector_env(3)
    vec.reset(seed=8, options={"dealers": [2, None, None], "deals": [None, deal, None]})
    assert vec.deal_options(0)["dealer"] == 2
    assert vec.deal_options(1)["deal"] == deal
    for i in range(3):
        options = vec.deal_options(i)
        hands = [sum(1 << c for c in hand) for hand in options["deal"]["hands"]]
        assert redeal_reason(hands, False) is None
        env = raw_env()
        env.reset(seed=0, options=options)  # a valid AEC deal
