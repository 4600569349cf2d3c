"""The bidding benchmark's submit command: ``folkcards bidding evaluate`` and
:func:`folkcards.evaluate.benchmarks.bidding.evaluate_bidding` on slices of the shipped held-out table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.envs import paston_bidding_v0
from folkcards.envs.paston.rules import DISCARD
from folkcards.envs.paston_bidding import tables as T
from folkcards.evaluate.benchmarks.bidding import evaluate_bidding

from folkcards.cli import main

# the heuristic as a per-game agent (a module:Class spec has no batched form)
PER_GAME_HEURISTIC = "folkcards.agents.paston_bidding_heuristic:PastonBiddingHeuristicAgent"


def test_the_reference_against_itself_has_no_advantage() -> None:
    """Each seating of the heuristic among heuristics is the all-heuristic table again."""
    result = evaluate_bidding("heuristic", deals=60)
    assert result.deals == 60 and result.table == "open_hand_3000.table"
    assert result.table_seed == 2025
    assert result.deal_scores == result.reference_deal_scores
    assert result.advantage.mean == 0.0 and result.advantage.high == 0.0
    assert result.score.low < result.score.mean < result.score.high


def test_per_game_and_batched_agents_give_the_same_deals() -> None:
    """A per-game agent (played deal by deal) and the batched form of the same rules give the
    same score on every deal, as the agent and as the reference."""
    batched = evaluate_bidding("heuristic", deals=12, first=100, reference="random", seed=3)
    single = evaluate_bidding(PER_GAME_HEURISTIC, deals=12, first=100, reference="random", seed=3)
    assert single.deal_scores == batched.deal_scores
    assert single.reference_deal_scores == batched.reference_deal_scores
    assert single.agent_decisions == batched.agent_decisions > 12


def test_reference_scores_equal_the_aec_bidding_env_solving_each_deal() -> None:
    """The all-reference row, recomputed independently: the AEC bidding env (which solves the
    deal) with the heuristic in every seat and the table's discards."""
    table = T.load_table(T.shipped_table_path())
    result = evaluate_bidding("random", deals=15, first=40, reference=PER_GAME_HEURISTIC)
    for row, index in enumerate(range(40, 55)):
        env = paston_bidding_v0.raw_env()
        env.reset(options=table.deal_option(index))
        agents = {a: make_agent("heuristic", "paston_bidding", a) for a in env.possible_agents}
        while not all(env.terminations.values()):
            deal = env.state_deal()
            if deal.phase == DISCARD:
                pair = table.discard_pair(index, deal.declarer, max(deal.high_bid, 0))
                env.step(pair[0] if deal.discards == 0 else pair[1])
                continue
            agent = env.agent_selection
            env.step(agents[agent].act(env.observe(agent)))
        scores = [env.infos[a]["deal_score"] for a in env.possible_agents]
        assert result.reference_deal_scores[row] == pytest.approx(np.mean(scores))


def test_a_deal_does_not_depend_on_the_others_evaluated() -> None:
    """Deals 10..29 give the same per-deal results alone as inside 0..29 (a random agent:
    seeded by deal and seating, not by position in the run)."""
    whole = evaluate_bidding("random", deals=30, seed=7)
    part = evaluate_bidding("random", deals=20, first=10, seed=7)
    assert part.deal_scores == whole.deal_scores[10:]
    other = evaluate_bidding("random", deals=20, first=10, seed=8)
    assert other.deal_scores != part.deal_scores


def test_random_bidding_loses_to_the_heuristic() -> None:
    result = evaluate_bidding("random", deals=100)
    assert result.advantage.high < 0 and result.advantage.n == 100


def test_submit_command_prints_the_row_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "row.json"
    code = main(["bidding", "evaluate", "--agent", "random", "--deals", "20", "--quiet",
                 "--json", str(out)])  # fmt: skip
    assert code == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1].startswith("| agent | deals |") and lines[3].startswith("| random | 20 |")
    data = json.loads(out.read_text())
    assert data["deals"] == 20 and len(data["deal_scores"]) == 20
    names = [a["name"] for a in data["agents"]]
    assert names == ["agent", "reference"] and data["head_to_head"][0]["a"] == "agent"


def test_against_another_row_is_paired_by_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--against FILE`` prints the per-deal difference to another submission's row: against
    itself exactly 0, against another agent the difference of the two rows' deal scores."""
    heuristic = tmp_path / "heuristic.json"
    common = ["bidding", "evaluate", "--deals", "25", "--quiet"]
    assert main([*common, "--agent", "heuristic", "--json", str(heuristic)]) == 0
    capsys.readouterr()
    assert main([*common, "--agent", "heuristic", "--against", str(heuristic)]) == 0
    assert "heuristic minus heuristic on the same deals: +0.00 [+0.00, +0.00]" in (
        capsys.readouterr().out
    )
    random_row = tmp_path / "random.json"
    argv = [*common, "--agent", "random", "--json", str(random_row), "--against", str(heuristic)]
    assert main(argv) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    a, b = (json.loads(p.read_text()) for p in (random_row, heuristic))
    diff = np.mean(np.array(a["deal_scores"]) - np.array(b["deal_scores"]))
    assert line.startswith(f"random minus heuristic on the same deals: {diff:+.2f} [")
    # other deals: one line, after the row
    assert main([*common, "--first", "5", "--agent", "random", "--against", str(heuristic)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "of other deals" in err
    assert main([*common, "--agent", "random", "--against", str(tmp_path / "none.json")]) == 2
    assert "cannot read the results file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--agent", "nonsense"], "unknown agent 'nonsense'"),
        (["--agent", "ppo:/no/such/model.zip"], "no PPO model file"),
        (["--agent", "random", "--reference", "pimc:samples=x"], "reference:"),
        (["--agent", "random", "--deals", "4000"], "outside the table's 3000 deals"),
        (["--agent", "random", "--deals", "1"], "at least 2 deals"),
        (["--agent", "random", "--first", "-3"], "non-negative"),
        (["--agent", "random", "--tables", "/no/such.table"], "cannot read the table"),
    ],
)
def test_bad_input_is_one_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bidding", "evaluate", "--quiet", *argv]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and words in err and err.startswith("folkcards bidding evaluate: ")
    assert captured.out == ""


# --- folkcards bidding information -------------------------------------------------------------


def test_calls_likelihood_equals_the_samplers_weighting_during_the_auction() -> None:
    """Before any discard every action is a call: the information measure's likelihood is
    then the sampler's own ``log_likelihoods``."""
    from folkcards.evaluate.benchmarks.bidding_information import calls_log_likelihood
    from folkcards.search import paston_belief as pb

    compared = 0
    for seed in range(40):
        env = paston_bidding_v0.raw_env()
        env.reset(seed=seed)
        agents = {a: make_agent("heuristic", "paston_bidding", a) for a in env.possible_agents}
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(1, 4))):
            if env.state_deal().phase != 0:  # the auction only
                break
            agent = env.agent_selection
            env.step(agents[agent].act(env.observe(agent)))
        if env.state_deal().phase != 0 or not env.state_deal().history:
            continue
        observer = int(env.agent_selection[-1])
        context = pb.public_context(env, observer)
        worlds = pb.sample_worlds(env.observe(env.agent_selection), 30, rng, **context)
        model = make_agent("heuristic", "paston_bidding")
        ours = [calls_log_likelihood(w, context["history"], model, 0.2) for w in worlds]
        theirs = pb.log_likelihoods(worlds, model, epsilon=0.2, history=context["history"])
        np.testing.assert_allclose(ours, theirs)
        compared += 1
    assert compared > 10


def test_the_true_bidder_model_makes_better_worlds_than_uniform() -> None:
    """Weighting by the bidder's own rules raises the log-likelihood of the declarer's true
    hand and the trump length predicted, over uniform worlds (40 held-out deals)."""
    from folkcards.evaluate.benchmarks.bidding_information import measure_information

    result = measure_information(deals=40, worlds=120, models=["heuristic", "random"])
    uniform, heuristic, random_model = result.rows
    assert [r.weighting for r in result.rows] == ["uniform", "heuristic", "random"]
    assert uniform.versus_uniform.mean == 0
    assert uniform.effective_worlds.mean == pytest.approx(120)
    assert heuristic.versus_uniform.low > 0
    assert heuristic.trump_probability.mean > uniform.trump_probability.mean
    assert random_model.versus_uniform.mean < heuristic.versus_uniform.mean
    assert -1.2 < uniform.log_likelihood.mean < -0.8 and result.deals > 30


def test_information_command_prints_one_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "info.json"
    argv = ["bidding", "information", "--deals", "6", "--worlds", "20", "--models", "heuristic",
            "--quiet", "--json", str(out)]  # fmt: skip
    assert main(argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1].startswith("| worlds weighted by |") and len(lines) == 5
    assert [json.loads(out.read_text())["rows"][k]["weighting"] for k in (0, 1)] == [
        "uniform",
        "heuristic",
    ]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--models", "nonsense"], "model: unknown agent 'nonsense'"),
        (["--bidder", "ppo:/no/model.zip"], "bidder:"),
        (["--worlds", "1"], "--worlds"),
        (["--epsilon", "0"], "--epsilon"),
        (["--deals", "9000"], "outside the table"),
    ],
)
def test_information_bad_input_is_one_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bidding", "information", "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err
