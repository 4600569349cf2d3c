"""Invariants over many random Tri Palki rounds and matches.

After every step: the 36 cards are all accounted for (hands + centre + reserve + washed), every
hand and the centre hold three cards, publicly known cards are in their holder's hand, the mask
matches the phase. After every round, an independent list-based model written from the rules
(§3–§7 of ``tri_palki.md``) replays the recorded deck and actions, and must agree on who acted,
when the announcement was offered, the outcome and the final hands; the sticks, eliminations,
hand values and kinds and the next dealer are recomputed from the hands revealed in the infos.
Rewards are checked per mode, every finished match has exactly one winner, and the same seed
with the same actions gives the same episode.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from folkcards.envs import tri_palki_v0

# ------------------------------------------------------------------ reference model

RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
POINTS = [6, 7, 8, 9, 10, 10, 10, 10, 11]


def card_id(name: str) -> int:
    return 9 * "SCDH".index(name[-1]) + RANKS.index(name[:-1])


def ref_key(hand: list[int]) -> tuple:
    """(value, ranks of the scoring suit top down, suit), the best over the hand's suits."""
    keys = []
    for suit in {c // 9 for c in hand}:
        ranks = sorted((c % 9 for c in hand if c // 9 == suit), reverse=True)
        keys.append((sum(POINTS[r] for r in ranks), tuple(ranks), suit))
    return max(keys)


def ref_kind(hand: list[int]) -> str:
    ranks = sorted(c % 9 for c in hand)
    if ranks == [8, 8, 8]:
        return "three_aces"
    if ranks == [0, 0, 0] or (ranks == [0, 1, 2] and len({c // 9 for c in hand}) == 1):
        return "safe"
    return "normal"


def ref_round(deck: list[int], dealer: int, alive: list[bool], actions: list, max_turns: int):
    """Replay one round with plain lists; returns (final hands, outcome, turns)."""
    n = len(alive)
    order = [(dealer + k) % n for k in range(1, n + 1) if alive[(dealer + k) % n]]
    hands: dict[int, list[int]] = {s: [] for s in order}
    centre: list[int] = []
    position = 0
    for _ in range(3):
        for seat in order:
            hands[seat].append(deck[position])
            position += 1
        centre.append(deck[position])
        position += 1
    reserve = deck[position:]

    def wash() -> bool:
        while len({c // 9 for c in centre}) == 1:
            if len(reserve) < 3:
                return False
            centre[:] = reserve[:3]
            del reserve[:3]
        return True

    def left(seat: int) -> int:
        return next((seat + k) % n for k in range(1, n + 1) if alive[(seat + k) % n])

    if not wash():
        assert actions == []
        return hands, "reserve_empty", 0
    survivors = len(order)
    to_act, passes, announcer, finals_done, turns = dealer, 0, None, 0, 0
    offering = False
    for agent, action in actions:
        assert agent == f"player_{to_act}"
        end_turn = False
        if offering:
            assert action in (11, 12), "the announcement was offered"
            offering = False
            if action == 11:
                announcer = to_act
            end_turn = True
        else:
            assert 0 <= action <= 10, "an action was expected, not an announce decision"
            hand = hands[to_act]
            if action == 0:
                passes += 1
                if announcer is None and passes == survivors:
                    return hands, "all_passed", turns
            else:
                passes = 0
                if action == 10:
                    hands[to_act], centre[:] = list(centre), list(hand)
                else:
                    h, c = divmod(action - 1, 3)
                    give, take = sorted(hand)[h], sorted(centre)[c]
                    hand[hand.index(give)] = take
                    centre[centre.index(take)] = give
                if len({c // 9 for c in centre}) == 1:
                    if not wash():
                        return hands, "reserve_empty", turns
                    continue  # the same player acts again
            final = hands[to_act]
            if announcer is None and ref_kind(final) == "normal" and ref_key(final)[0] == 31:
                offering = True
                continue
            end_turn = True
        if end_turn:
            turns += 1
            if announcer is not None and announcer != to_act:
                finals_done += 1
                if finals_done == survivors - 1:
                    return hands, "announced", turns
            if turns >= max_turns:
                return hands, "truncated", turns
            to_act = left(to_act)
    raise AssertionError("the recorded actions stop before the round ends")


def ref_settle(hands: dict[int, list[int]], sticks: list[int], dealer: int):
    """Stick receivers, sticks after, eliminated seats and the next dealer (§6, §7)."""
    n = len(sticks)
    kinds = {s: ref_kind(h) for s, h in hands.items()}
    normals = [s for s in hands if kinds[s] == "normal"]
    if "three_aces" in kinds.values():
        receivers = set(normals)
    elif normals:
        receivers = {min(normals, key=lambda s: ref_key(hands[s]))}
    else:
        receivers = set()
    after = list(sticks)
    eliminated = set()
    for seat in receivers:
        if after[seat] == 3:
            after[seat] = 4
            eliminated.add(seat)
        else:
            after[seat] += 1
    if not normals:
        return receivers, after, eliminated, dealer
    best = max(normals, key=lambda s: ref_key(hands[s]))
    while after[best] == 4:
        best = (best + 1) % n
    return receivers, after, eliminated, best


# ------------------------------------------------------------------ per-step invariants

ALL = (1 << 36) - 1


def check_state(env) -> None:
    rnd = env.state_round()
    total = rnd.centre
    count = 3
    assert bin(rnd.centre).count("1") == 3
    for seat in range(rnd.num_seats):
        hand = rnd.hands[seat]
        if rnd.alive[seat]:
            assert bin(hand).count("1") == 3
            assert total & hand == 0
            total |= hand
            count += 3
            assert rnd.known[seat] & ~hand == 0, "a known card is not in its holder's hand"
        else:
            assert hand == 0 and rnd.known[seat] == 0
    reserve = 0
    for card in rnd.reserve_cards():
        reserve |= 1 << card
    assert total & reserve == 0 and total & rnd.washed == 0 and reserve & rnd.washed == 0
    total |= reserve | rnd.washed
    count += rnd.reserve_count + bin(rnd.washed).count("1")
    assert total == ALL and count == 36, "the 36 cards are not all accounted for"
    assert bin(rnd.washed).count("1") % 3 == 0
    assert rnd.reserve_count == 36 - 3 * rnd.survivors - 3 - bin(rnd.washed).count("1")
    live = [a for a in env.agents if not (env.terminations[a] or env.truncations[a])]
    if live:
        agent = env.agent_selection
        if agent in live:
            assert rnd.phase in (0, 1) and f"player_{rnd.to_act}" == agent
            assert rnd.passes < rnd.survivors
            if rnd.announcer >= 0:
                assert 1 <= rnd.final_left <= rnd.survivors - 1


# ------------------------------------------------------------------ one episode


def play_and_check(
    num_players: int,
    episode: str,
    reward: str,
    seed: int,
    max_turns: int = 400,
    random_sticks: bool = False,
) -> dict:
    env = tri_palki_v0.raw_env(
        num_players=num_players, episode=episode, reward=reward, max_turns=max_turns
    )
    rng = np.random.default_rng(seed)
    options = (
        {"sticks": [int(x) for x in rng.integers(0, 4, num_players)]} if random_sticks else None
    )
    env.reset(seed=seed, options=options)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    check_state(env)
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        totals[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        check_state(env)
    record = env.record()
    check_record(record, totals, max_turns)
    return record


def check_record(record: dict, totals: dict[str, float], max_turns: int) -> None:
    kw = record["env_kwargs"]
    n = kw["num_players"]
    names = [f"player_{i}" for i in range(n)]
    expected = dict.fromkeys(names, 0.0)
    rounds = record["rounds"]
    truncated = False
    for k, rnd in enumerate(rounds):
        result = rnd["result"]
        assert result is not None
        sticks = rnd["sticks"]
        alive = [s < 4 for s in sticks]
        dealer = names.index(rnd["dealer"])
        deck = [card_id(c) for c in rnd["deck"]]
        hands, outcome, _ = ref_round(deck, dealer, alive, rnd["actions"], max_turns)
        assert set(result) == {names[s] for s in hands}
        revealed = {}
        for seat, hand in hands.items():
            info = result[names[seat]]
            assert info["outcome"] == outcome
            assert sorted(card_id(c) for c in info["hand"]) == sorted(hand)
            revealed[seat] = [card_id(c) for c in info["hand"]]
        if outcome == "truncated":
            truncated = True
            assert k == len(rounds) - 1
            for info in result.values():
                assert info["stick"] is False and info["eliminated"] is False
            break
        receivers, after, eliminated, next_dealer = ref_settle(revealed, sticks, dealer)
        for seat, hand in revealed.items():
            info = result[names[seat]]
            assert info["hand_value"] == ref_key(hand)[0]
            assert info["hand_kind"] == ref_kind(hand)
            assert info["stick"] == (seat in receivers)
            assert info["sticks"] == after[seat]
            assert info["eliminated"] == (seat in eliminated)
            assert info["next_dealer"] == names[next_dealer]
            if kw["reward"] == "sticks" and seat in receivers:
                expected[names[seat]] -= 1.0
            if kw["reward"] == "win" and seat in eliminated:
                expected[names[seat]] -= 1.0
        if k + 1 < len(rounds):
            assert rounds[k + 1]["sticks"] == after
            assert rounds[k + 1]["dealer"] == names[next_dealer]
        else:
            assert record["next_dealer"] == names[next_dealer]
            assert record["sticks"] == after
    survivors = [a for a, s in zip(names, record["sticks"], strict=True) if s < 4]
    if kw["episode"] == "match" and not truncated:
        assert len(survivors) == 1, "a finished match has exactly one winner"
        assert record["winner"] == survivors[0]
        if kw["reward"] == "win":
            expected[survivors[0]] += 1.0
    if kw["episode"] == "round":
        assert len(rounds) == 1
    assert totals == pytest.approx(expected)


# ------------------------------------------------------------------ tests

ROUND_CASES = [(2, 700), (4, 600), (6, 500), (11, 700)]  # 2,500 rounds
MATCH_CASES = [(2, 60), (4, 40), (6, 25), (11, 12)]


@pytest.mark.parametrize(("num_players", "count"), ROUND_CASES)
def test_random_rounds_keep_every_invariant(num_players, count):
    outcomes = set()
    for seed in range(count):
        record = play_and_check(num_players, "round", "sticks", seed, random_sticks=seed % 2 == 0)
        outcomes.add(next(iter(record["rounds"][0]["result"].values()))["outcome"])
    assert {"announced", "reserve_empty"} <= outcomes


@pytest.mark.parametrize("reward", ["sticks", "win"])
@pytest.mark.parametrize(("num_players", "count"), MATCH_CASES)
def test_random_matches_keep_every_invariant(num_players, count, reward):
    for seed in range(count):
        play_and_check(
            num_players, "match", reward, 1000 + seed, max_turns=300, random_sticks=seed % 3 != 0
        )


def test_truncated_rounds_keep_every_invariant():
    for seed in range(60):
        play_and_check(4, "match", "win", seed, max_turns=25)


def _episode_fingerprint(num_players: int, episode: str, seed: int) -> str:
    env = tri_palki_v0.raw_env(num_players=num_players, episode=episode, max_turns=300)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        digest.update(agent.encode())
        digest.update(obs["observation"].tobytes())
        digest.update(obs["action_mask"].tobytes())
        digest.update(repr((rew, term, trunc, sorted(info.items()))).encode())
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return digest.hexdigest()


@pytest.mark.parametrize(
    ("num_players", "episode"), [(2, "match"), (4, "round"), (6, "match"), (11, "match")]
)
def test_same_seed_and_actions_give_the_same_episode(num_players, episode):
    first = [_episode_fingerprint(num_players, episode, seed) for seed in range(4)]
    again = [_episode_fingerprint(num_players, episode, seed) for seed in range(4)]
    assert first == again
    assert len(set(first)) == 4


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6, 8, 10, 11])
def test_many_random_rounds_keep_every_invariant(num_players):
    for seed in range(1300):  # 10,400 rounds over the eight table sizes
        play_and_check(
            num_players,
            "round",
            "sticks",
            10_000 + seed,
            max_turns=1000,
            random_sticks=seed % 2 == 0,
        )


@pytest.mark.slow
@pytest.mark.parametrize("reward", ["sticks", "win"])
@pytest.mark.parametrize("num_players", [2, 4, 6, 11])
def test_many_random_matches_keep_every_invariant(num_players, reward):
    for seed in range(150):
        play_and_check(
            num_players, "match", reward, 50_000 + seed, max_turns=500, random_sticks=seed % 2 == 0
        )
