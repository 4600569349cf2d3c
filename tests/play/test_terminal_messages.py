"""Terminal play's messages and input: `rules`, contract names typed alone, "1 trick", the
all-pass explained on the spot, the Tri Palki match waiting after each round, the help text."""

from __future__ import annotations

import numpy as np
import pytest
from folkcards.envs.paston import rules
from folkcards.envs.registry import GAMES_HELP
from folkcards.play.base import MoveError
from folkcards.play.session import Session

from folkcards import cli

from .test_terminal_play import Driver, make_session


def paston_session(**kw) -> Session:
    out: list[str] = []
    return make_session("paston", Driver(auto=False), out, seat=0, **kw)


def test_rules_summary_follows_the_phase() -> None:
    session = paston_session()
    env, table = session.env, session.table
    wanted = {
        "auction": "ladder",
        "discard": "discard",
        "contract": "surrender",
        "defence": "whist",
        "play": "Follow suit",
    }
    seen: dict[str, str] = {}
    rng = np.random.default_rng(0)
    for seed in range(30):
        env.reset(seed=seed)
        while env.agents and not all(env.terminations.values()):
            obs = env.observe(env.agent_selection)
            if env.agent_selection == "player_0":
                phase = table.view().phase
                seen.setdefault(phase, table.rules_text(obs))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if set(wanted) <= set(seen):
            break
    for phase, word in wanted.items():
        assert word.lower() in seen[phase].lower(), (phase, seen[phase])
        assert "docs/rules/paston.md" in seen[phase]
    assert "J♠" in seen["auction"]  # the all-pass rule
    assert "and need" in seen["play"]


def test_rules_command_in_a_session() -> None:
    out: list[str] = []
    driver = Driver(["rules", "quit"])
    session = make_session("tri_palki", driver, out, opponents=["random"], num_players=3, seat=0)
    session.run()
    text = "\n".join(out)
    assert "wash" in text.lower() and "docs/rules/tri_palki.md" in text and "stick" in text


def _to_contract_phase(session: Session) -> None:
    """player_0 wins the auction at diamonds and discards two cards."""
    env = session.env
    env.reset(seed=3, options={"dealer": 2})
    for action in (33, 34, 32, 35, 32):  # p0 spades, p1 clubs, p2 pass, p0 diamonds, p1 pass
        env.step(action)
    for _ in range(2):
        env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))


def test_a_suit_alone_in_the_contract_phase() -> None:
    session = paston_session()
    _to_contract_phase(session)
    obs = session.env.observe("player_0")
    table = session.table
    assert table.parse("hearts", obs) == rules.CONTRACT_BASE + 3
    assert table.parse("gupa", obs) == rules.CONTRACT_BASE + 3
    with pytest.raises(MoveError) as exc:
        table.parse("spades", obs)
    message = str(exc.value)
    assert "unknown move" not in message
    assert "contract diamonds, contract hearts" in message and "surrender" in message
    with pytest.raises(MoveError, match="which contract"):
        table.parse("contract", obs)


def test_singular_trick_and_the_all_pass_on_the_spot() -> None:
    session = paston_session()
    env, table = session.env, session.table
    said = None
    for seed in range(200):
        env.reset(seed=seed, options={"dealer": 2})  # player_0 bids first
        view = table.view()
        if rules.JACK_OF_SPADES not in view.hand:
            continue
        env.step(32)
        env.step(32)
        before = table.before_step(2)
        env.step(32)
        said = table.events(before, 2, 32)
        break
    assert said is not None
    assert any("all three passed: you hold the J♠, so you must declare" in line for line in said), (
        said
    )
    for seed in range(20):
        out: list[str] = []
        session = make_session("paston", Driver(seed=seed), out, seed=seed, episodes=1)
        session.run()
        text = "\n".join(out)
        if "trick:" in text:
            break
    assert "(1 trick)" in text and "(1 tricks)" not in text


def test_all_pass_names_the_other_declarer() -> None:
    session = paston_session()
    env, table = session.env, session.table
    for seed in range(300):
        env.reset(seed=seed, options={"dealer": 2})
        if rules.SEVEN_OF_SPADES not in table.view().hand:
            continue
        env.step(32)
        env.step(32)
        before = table.before_step(2)
        env.step(32)
        if env.terminations["player_0"]:
            continue  # J♠ and 7♠ both in the prikup: redeal
        line = table.events(before, 2, 32)[0]
        assert "all three passed:" in line and "must declare (they hold the J♠)" in line
        return
    pytest.fail("no deal with the 7♠ in player_0's hand")


def test_tri_palki_match_waits_after_each_round() -> None:
    out: list[str] = []
    driver = Driver(seed=2)
    session = make_session(
        "tri_palki", driver, out, opponents=["heuristic"], num_players=2, seed=5, episodes=1
    )
    assert session.run() == 0
    text = "\n".join(out)
    rounds = text.count("Round over")
    assert rounds >= 2 and "Match over" in text
    waits = [p for p in driver.prompts if "Press Enter for the next round" in p]
    assert len(waits) == rounds - 1  # every round but the last one that ends the match


@pytest.mark.parametrize("command", ["play", "watch", "demo"])
def test_help_spells_the_games_as_tournament_does(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert GAMES_HELP in out


def test_each_deal_and_round_ends_with_the_reasons() -> None:
    for seed in range(20):
        out: list[str] = []
        make_session("paston", Driver(seed=seed), out, seed=seed, episodes=1).run()
        text = "\n".join(out)
        if "played" in text.split("Deal over:")[-1].splitlines()[0]:
            break
    summary = text.split("Deal over:")[-1].splitlines()
    assert sum(line.startswith(("  you: ", "  player_")) for line in summary) == 3
    assert "× factor" in "\n".join(summary)
    out = []
    make_session("tri_palki", Driver(seed=1), out, num_players=3, mode="round", episodes=1).run()
    text = "\n".join(out)
    assert "Why:" in text and ("a stick" in text or "nobody takes a stick" in text)


def test_paston_bidding_deal_scored_by_the_solver_is_told_not_as_a_trick() -> None:
    """Whisting ends a paston_bidding deal with credited tricks: no trick is narrated (the
    whist is not a card), and the result names the tricks."""
    lines: list[str] = []
    session: Session

    def person(prompt: str) -> str:
        if prompt != "your move> ":
            return ""
        names = session.table.legal_names(session.env.observe(session.me))
        return "whist" if "whist" in names else names[0]

    session = Session("paston_bidding", ["heuristic"], seed=3, input_fn=person, write=lines.append)
    session.episodes = 1
    assert session.run() == 0
    text = "\n".join(lines)
    assert "you: whist" in text and "Deal over: hearts played" in text
    assert "trick:" not in text
    assert "took 2 tricks" in text


def test_an_error_lists_the_moves_in_their_own_notation() -> None:
    """The message "you cannot bid now (…). Your moves: …" names the moves as the env writes
    them (cards in capitals, "JH" not "jh")."""
    session = paston_session()
    env, table = session.env, session.table
    env.reset(seed=3, options={"dealer": 2})
    for action in (33, 34, 32, 35, 32):  # player_0 wins the auction and discards next
        env.step(action)
    obs = env.observe("player_0")
    names = table.legal_names(obs)
    assert any(name != name.lower() for name in names), names
    with pytest.raises(MoveError) as exc:
        table.parse("bid", obs)
    assert str(exc.value).endswith("Your moves: " + ", ".join(names)), str(exc.value)
