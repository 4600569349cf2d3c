"""CFR+ and NashConv on Paston tiny in OpenSpiel's C++ code, in a small setting that runs in
seconds: one deal, every hand and the prikup given. The tree is solved both on OpenSpiel's
cache of the Python game and on the extensive form the binding's tree is written to
(``folkcards.openspiel.efg``), and the two must agree. The whole game is
``benchmarks/paston_tiny_exact.py``."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.agents.base import Agent

from tests.helpers import load_script

pyspiel = pytest.importorskip("pyspiel")

from folkcards.envs.cards import PASTON_CARDS  # noqa: E402
from folkcards.envs.paston.chance import PRIKUP, PastonTinyChance  # noqa: E402
from folkcards.envs.paston.rules import PastonDeal, left_of  # noqa: E402
from folkcards.envs.paston.variant import PASTON_TINY  # noqa: E402
from folkcards.envs.paston.vocabulary import OVER  # noqa: E402
from folkcards.openspiel import load_game  # noqa: E402
from folkcards.openspiel.efg import export  # noqa: E402
from folkcards.openspiel.exact import (  # noqa: E402
    agent_policy,
    best_response_gains,
    information_states,
    nash_conv,
    solve_cfr_plus,
    uniform_policy,
)

# dealer player_0: JS KS; player_1 (bids first): AS KC; player_2: 7S JC; the prikup: AC
ONE_DEAL = {"JS": 0, "KS": 0, "AS": 1, "KC": 1, "7S": 2, "JC": 2, "AC": 3}


def _game(given: dict[str, int]):
    game = load_game("paston_tiny")
    game.chance = PastonTinyChance.given_cards(
        {PASTON_CARDS.card_id(card): place for card, place in given.items()}
    )
    return game


@pytest.fixture(scope="module")
def one_deal():
    game = _game(ONE_DEAL)
    cached = pyspiel.convert_to_cached_tree(game)
    states, histories = information_states(cached)
    return game, cached, states, histories


def test_the_deal_is_the_given_one(one_deal):
    game, _, _, _ = one_deal
    state = game.new_initial_state()
    while state.is_chance_node():
        [(outcome, probability)] = state.chance_outcomes()
        assert probability == 1.0
        state.apply_action(outcome)
    assert "player_1: A♠ K♣" in str(state) and state.current_player() == 1


def test_cfr_plus_converges_and_random_is_exploitable(one_deal):
    _, cached, states, histories = one_deal
    assert histories > len(states) > 500
    policy, curve = solve_cfr_plus(cached, 40, [1, 10])
    values = [value for _, value, _ in curve]
    assert [i for i, _, _ in curve] == [1, 10, 40]
    assert all(v >= -1e-9 for v in values)
    assert values[-1] < values[1] < values[0]
    assert values[-1] < 1.0  # table points, summed over the three seats
    assert nash_conv(cached, uniform_policy(states)) > 10 * values[-1]
    assert nash_conv(cached, policy) == pytest.approx(values[-1])


def test_the_extensive_form_is_the_same_game(one_deal):
    """Histories, information states, NashConv and each seat's best-response gain of random
    and the heuristic, and CFR+'s curve: the same on the written tree as on the binding's."""
    game, cached, states, histories = one_deal
    tree = export(game)
    assert tree.histories == histories
    assert tree.states == states
    for binding in (uniform_policy(states), agent_policy("heuristic", game, states)):
        written = tree.policy(binding)
        assert nash_conv(tree.game, written) == pytest.approx(nash_conv(cached, binding))
        assert best_response_gains(tree.game, written) == pytest.approx(
            best_response_gains(cached, binding)
        )
    on_tree, curve = solve_cfr_plus(tree.game, 10, [1, 5])
    _, cached_curve = solve_cfr_plus(cached, 10, [1, 5])
    assert [v for _, v, _ in curve] == pytest.approx([v for _, v, _ in cached_curve])
    back = tree.binding_policy(on_tree)
    assert nash_conv(cached, back) == pytest.approx(curve[-1][1])


def _decisions(deal: PastonDeal) -> int:
    """The histories from a deal's first decision on, by the rules engine alone."""
    if deal.phase == OVER:
        return 1
    count = 1
    bits = deal.legal_bits()
    for action in range(bits.bit_length()):
        if bits >> action & 1:
            child = deal.copy()
            child.apply(action)
            count += _decisions(child)
    return count


def _count(chance) -> int:
    """Every history of the tree, counted with the rules engine instead of the binding: the
    chance events placing the cards, then each deal's decisions."""
    outcomes = chance.outcomes()
    if not outcomes:
        hands, prikup = [0, 0, 0], 0
        for card, place in zip(PASTON_TINY.deck, chance.places, strict=True):
            if place == PRIKUP:
                prikup |= 1 << card
            else:
                hands[place] |= 1 << card
        return _decisions(PastonDeal(hands, prikup, 0, left_of(0), PASTON_TINY))
    count = 1
    for place, _ in outcomes:
        chance.places.append(place)
        count += _count(chance)
        chance.places.pop()
    return count


class _Env:
    variant = PASTON_TINY


def test_the_written_tree_has_the_histories_the_rules_engine_counts():
    given = {"AS": 1, "KC": 1, "7S": 2, "JC": 2}
    chance = PastonTinyChance.given_cards({PASTON_CARDS.card_id(c): p for c, p in given.items()})
    assert export(_game(given)).histories == _count(chance(_Env, dealer=0))


@pytest.mark.slow
def test_the_whole_game_is_solved():
    """Full size: all 630 deals (about ten minutes on a quiet machine)."""
    tree = export(load_game("paston_tiny"))
    assert tree.histories == _count(PastonTinyChance(_Env, dealer=0)) == 1_454_891
    _, curve = solve_cfr_plus(tree.game, 5, [1])
    assert curve[-1][1] < curve[0][1]


def test_a_sub_game_of_three_deals_is_walked_whole():
    """Two hands given: the dealer's two cards and the prikup's one come from the three left."""
    game = _game({"AS": 1, "KC": 1, "7S": 2, "JC": 2})
    tree = export(game)
    root = tree.game.new_initial_state()
    deals = 0
    stack = [root]
    while stack:
        state = stack.pop()
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
        else:
            deals += 1
    assert deals == 3
    assert nash_conv(tree.game, tree.policy(uniform_policy(tree.states))) > 1.0


def _script():
    return load_script("benchmarks/paston_tiny_exact.py")


def _given(deal: dict[str, int]) -> list[str]:
    seats = ["player_0", "player_1", "player_2", "prikup"]
    args = []
    for place, seat in enumerate(seats):
        cards = [card for card, at in deal.items() if at == place]
        args += ["--given", f"{seat}={','.join(cards)}"]
    return args


def test_add_to_gives_the_full_runs_row(tmp_path):
    """``benchmarks/paston_tiny_exact.py --add-to --agent heuristic=heuristic`` on a stored
    result gives the heuristic the row a full run gave it, from the tree walked again and from
    the tree read back (``--tree``), and keeps the other rows and the CFR+ curve as stored;
    ``--policy-only`` on the tree read back writes the full run's CFR+ policy."""
    import json

    script = _script()
    given = _given(ONE_DEAL)
    full = tmp_path / "full.json"
    tree = tmp_path / "tree.json.gz"
    common = [*given, "--iterations", "3", "--plot", str(tmp_path / "cfr.png")]
    policy = tmp_path / "policy.json"
    argv = [*common, "--out", str(full), "--tree", str(tree), "--policy-out", str(policy)]
    assert script.main(argv) == 0
    assert tree.is_file()
    again = tmp_path / "again.json"
    argv = [*common, "--tree", str(tree), "--policy-only", "--policy-out", str(again)]
    assert script.main(argv) == 0  # the same CFR+ policy without the rows
    assert again.read_bytes() == policy.read_bytes()
    stored = json.loads(full.read_text(encoding="utf-8"))
    assert [row["agent"] for row in stored["rows"]] == [
        "random",
        "heuristic",
        "cfr+ (3 iterations)",
    ]
    for tree_args in ([], ["--tree", str(tree)]):  # walked again, then read back
        added = tmp_path / f"added{len(tree_args)}.json"
        added.write_text(full.read_text(encoding="utf-8"), encoding="utf-8")
        argv = [*given, "--add-to", "--out", str(added), "--agent", "heuristic=heuristic"]
        assert script.main([*argv, *tree_args]) == 0
        result = json.loads(added.read_text(encoding="utf-8"))
        rows = {row["agent"]: row for row in result["rows"]}
        assert [row["agent"] for row in result["rows"]] == [r["agent"] for r in stored["rows"]]
        assert rows.pop("heuristic") == {**stored["rows"][1], "spec": "heuristic"}
        assert list(rows.values()) == [stored["rows"][0], stored["rows"][2]]
        assert result["cfr_curve"] == stored["cfr_curve"]
        assert result["added"] == [
            " ".join(["python benchmarks/paston_tiny_exact.py", *argv, *tree_args])
        ]


def test_add_to_refuses_a_result_of_other_given_hands(tmp_path, capsys):
    script = _script()
    stored = tmp_path / "stored.json"
    stored.write_text(
        '{"game": "paston_tiny", "params": {"dealer": 0, "given": {}}, "rows": []}',
        encoding="utf-8",
    )
    argv = [*_given(ONE_DEAL), "--add-to", "--out", str(stored), "--agent", "h=heuristic"]
    with pytest.raises(SystemExit):
        script.main(argv)
    assert "was computed with" in capsys.readouterr().err


def test_the_saved_policy_plays_whoever_deals(tmp_path):
    """The CFR+ policy is solved at dealer seat 0; ``--policy-out`` also names each information
    state for the seats one and two to the left, so at dealer 1, on the same deal turned one seat
    to the left, every decision is in the table with the row of the same role at dealer 0."""
    import json

    script = _script()
    policy = tmp_path / "policy.json"
    argv = [*_given(ONE_DEAL), "--iterations", "3", "--out", str(tmp_path / "r.json")]
    argv += ["--plot", str(tmp_path / "cfr.png"), "--policy-out", str(policy)]
    assert script.main(argv) == 0
    table = json.loads(policy.read_text(encoding="utf-8"))
    turned = {
        card: place if place == PRIKUP else (place + 1) % 3 for card, place in ONE_DEAL.items()
    }
    game = load_game("paston_tiny", dealer=1)
    game.chance = PastonTinyChance.given_cards(
        {PASTON_CARDS.card_id(card): place for card, place in turned.items()}
    )
    keys = export(game).states
    assert len(keys) > 500
    for key in keys:
        seat, _, rest = key.partition("\n")
        role = (int(seat.removeprefix("player_")) - 1) % 3  # the same seat at dealer 0
        assert table[key] == table[f"player_{role}\n{rest}"]


def _fresh_agent_policy(spec: str, game, states) -> dict:
    """The plain definition: a new agent for every information state, shown the seat's earlier
    decisions, then asked about the current one."""
    from folkcards.agents.base import make_agent
    from folkcards.openspiel.exact import _observation

    size, n = game.observation_size, game.num_distinct_actions()
    table = {}
    for key, legal in states.items():
        seat, *decisions, current = key.split("\n")
        agent = make_agent(spec, game.spec.name, seat, seed=0)
        agent.reset()
        for decision in decisions:
            agent.act(_observation(decision.rpartition(">")[0], size, n))
        probs = np.zeros(n)
        probs[agent.act(_observation(current, size, n))] = 1.0
        table[key] = [(a, float(probs[a])) for a in legal]
    return table


class StreamAgent(Agent):
    """A legal move drawn from its seeded stream: each choice depends on every draw before it,
    so a policy that reused an agent's state wrongly would differ."""

    name = "stream"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


@pytest.mark.parametrize(
    "spec", ["heuristic", "pimc", f"{__file__}:StreamAgent"], ids=["heuristic", "pimc", "stream"]
)
def test_agent_policy_replaying_each_decision_once_is_the_plain_definition(one_deal, spec):
    """Differential: the tabular policy that keeps the agent after each earlier decision (a
    copy per branch) equals building a fresh agent for every state."""
    game, _, states, _ = one_deal
    some = states if "pimc" not in spec else dict(list(states.items())[:: len(states) // 200])
    kept = agent_policy(spec, game, some).policy_table()
    assert dict(kept) == _fresh_agent_policy(spec, game, some)
