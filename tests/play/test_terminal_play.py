"""Terminal play driven by scripted input: help, bad and illegal moves, EOF, Ctrl-C, whole deals."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import numpy as np
import pytest
from folkcards.play.cli import play_main as main
from folkcards.play.session import Session

GARBAGE = [
    "",
    "   ",
    "xyzzy",
    "swap",
    "swap 10H",
    "swap QQ KK",
    "7Z",
    "10",
    "bid best",
    "contract",
    "💥",
    "\x00",
    "swap all all",
    "a" * 500,
    "AS AS",
]


class Driver:
    """An input function: scripted lines first (strings, callables of the session, or exceptions),
    then — if ``auto`` — a legal move by name, sometimes preceded by junk or an illegal move."""

    def __init__(
        self,
        script: list[Any] | None = None,
        auto: bool = True,
        junk: float = 0.0,
        seed: int = 0,
        limit: int = 5000,
    ):
        self.script = deque(script or [])
        self.auto = auto
        self.junk = junk
        self.rng = random.Random(seed)
        self.session: Session | None = None
        self.prompts: list[str] = []
        self.limit = limit

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if len(self.prompts) > self.limit:
            raise EOFError
        if self.script:
            item = self.script.popleft()
            if isinstance(item, type) and issubclass(item, BaseException):
                raise item()
            return item(self.session) if callable(item) else item
        if not self.auto:
            raise EOFError
        if prompt.lstrip().startswith("Press Enter"):
            return ""  # another deal (Session(episodes=...) ends the session)
        if self.rng.random() < self.junk:
            return self.rng.choice(GARBAGE + illegal_moves(self.session))
        return legal_move(self.session, self.rng)


def _me(session: Session) -> str:
    return session.env.possible_agents[session.seat]


def legal_move(session: Session, rng: random.Random) -> str:
    env = session.env
    mask = env.observe(_me(session))["action_mask"]
    action = rng.choice([int(a) for a in np.flatnonzero(mask)])
    return env.unwrapped.action_to_string(action)


def illegal_moves(session: Session) -> list[str]:
    """Names of well-formed moves that are not legal now."""
    env = session.env.unwrapped
    mask = env.observe(_me(session))["action_mask"]
    if session.game == "paston":
        return [env.action_to_string(a) for a in range(45) if not mask[a]]
    from folkcards.envs.tri_palki.observation import decode

    view = decode(env.observe(_me(session))["observation"], session.num_players)
    out = ["announce"] if view.phase == "action" else ["pass", "swap all"]
    if view.centre and view.phase == "action":
        out.append(
            f"swap {_tp_name(view.centre[0])} {_tp_name(view.centre[1])}"
        )  # both centre cards
    return out


def _tp_name(card: int) -> str:
    from folkcards.envs.cards import TRI_PALKI_CARDS

    return TRI_PALKI_CARDS.name(card)


def make_session(game: str, driver: Driver, out: list[str], **kw: Any) -> Session:
    kw.setdefault("opponents", ["random"])
    kw.setdefault("seed", 1)
    session = Session(game, input_fn=driver, write=out.append, **kw)
    driver.session = session
    return session


# --- Paston -------------------------------------------------------------------------------------


def test_paston_scripted_session(capsys: pytest.CaptureFixture[str]) -> None:
    def card_in_hand(session: Session) -> str:
        from folkcards.envs.paston.observation import decode

        hand = decode(session.env.observe(_me(session))["observation"]).hand
        return session.env.unwrapped.action_to_string(hand[0])

    def card_not_in_hand(session: Session) -> str:
        from folkcards.envs.paston.observation import decode

        hand = decode(session.env.observe(_me(session))["observation"]).hand
        return session.env.unwrapped.action_to_string(next(c for c in range(32) if c not in hand))

    driver = Driver(
        ["", "help", "xyzzy", "whist", card_in_hand, card_not_in_hand, "table", "contract"]
    )
    out: list[str] = []
    session = make_session("paston", driver, out, seat=0, episodes=1)
    assert session.run() == 0
    text = "\n".join(out)
    assert "You are player_0" in text and "'help' lists your moves" in text
    assert "Your hand:" in text and "Your moves:" in text
    assert "Type a move (" in text  # empty line
    assert "Legal now:" in text and "Commands: help" in text  # help
    assert "unknown move 'xyzzy'" in text
    assert "'whist' is not legal now (auction)" in text
    assert "you cannot play a card now (auction)" in text
    assert "you do not hold" in text
    assert "you cannot name a contract now" in text
    assert text.count("── Paston") >= 2  # shown each turn and on 'table'
    assert "Deal over" in text and "Session:" in text
    assert "Traceback" not in text
    assert capsys.readouterr().out == ""  # everything went through `write`


@pytest.mark.parametrize("seed", range(4))
def test_paston_never_crashes_on_junk_and_plays_out(seed: int) -> None:
    driver = Driver(junk=0.35, seed=seed)
    out: list[str] = []
    session = make_session("paston", driver, out, seat=seed % 3, seed=seed, episodes=2)
    assert session.run() == 0
    text = "\n".join(out)
    assert text.count("Deal over") + text.count("deals again") >= 2
    assert "Not possible:" in text


def test_paston_follow_suit_message() -> None:
    """Typing a held card that does not follow suit is refused with the reason."""
    for seed in range(12):
        out: list[str] = []
        session = make_session("paston", Driver(seed=seed), out, seat=1, seed=seed, episodes=1)
        session.input_fn = _FollowSuitProbe(session)
        assert session.run() == 0
        if "follow suit if you can" in "\n".join(out):
            return
    pytest.fail("no deal offered a card that does not follow suit")


class _FollowSuitProbe:
    """Before each play, first types a held card that is not legal (once), then a legal move."""

    def __init__(self, session: Session):
        self.session = session
        self.driver = session.input_fn
        self.tried = False

    def __call__(self, prompt: str) -> str:
        from folkcards.envs.paston.observation import decode

        obs = self.session.env.observe(_me(self.session))
        view = decode(obs["observation"])
        bad = [c for c in view.hand if not obs["action_mask"][c]]
        if prompt == "your move> " and view.phase == "play" and bad and not self.tried:
            self.tried = True
            return self.session.env.unwrapped.action_to_string(bad[0])
        self.tried = False
        return self.driver(prompt)


def test_paston_bid_and_level_shortcuts() -> None:
    from folkcards.play.paston_view import PastonTable

    out: list[str] = []
    driver = Driver(auto=False)
    session = make_session("paston", driver, out, seat=0)
    env = session.env
    env.reset(seed=3, options={"dealer": 2})  # seat 0 bids first
    table = session.table
    assert isinstance(table, PastonTable)
    obs = env.observe("player_0")
    assert table.parse("bid", obs) == 33
    assert table.parse("BID  spades", obs) == 33
    assert table.parse("spades", obs) == 33
    assert table.parse("p", obs) == 32
    with pytest.raises(ValueError, match="not the next step of the ladder: you can bid spades"):
        table.parse("bid hearts", obs)


def test_eof_leaves_cleanly() -> None:
    out: list[str] = []
    session = make_session("paston", Driver([EOFError], auto=False), out)
    assert session.run() == 0
    assert "End of input" in "\n".join(out)


def test_ctrl_c_leaves_cleanly() -> None:
    out: list[str] = []
    session = make_session("paston", Driver(["help", KeyboardInterrupt]), out)
    assert session.run() == 130
    assert "Interrupted" in out[-1]


def test_quit_command() -> None:
    out: list[str] = []
    session = make_session("paston", Driver(["quit"]), out)
    assert session.run() == 0
    assert "You leave the table." in out


def test_game_mode_shows_totals() -> None:
    out: list[str] = []
    driver = Driver(seed=2, limit=120)
    session = make_session("paston", driver, out, mode="game")
    assert session.run() == 0
    text = "\n".join(out)
    assert "a game to 121" in text
    assert "Totals:" in text


# --- Tri Palki ------------------------------------------------------------------------------------


def test_tri_palki_scripted_session() -> None:
    def not_my_card(session: Session) -> str:
        from folkcards.envs.tri_palki.observation import decode

        view = decode(session.env.observe(_me(session))["observation"], session.num_players)
        other = next(c for c in range(36) if c not in view.hand and c not in view.centre)
        return f"swap {_tp_name(other)} {_tp_name(view.centre[0])}"

    def reversed_swap(session: Session) -> str:
        from folkcards.envs.tri_palki.observation import decode

        view = decode(session.env.observe(_me(session))["observation"], session.num_players)
        return (
            f"swap {_tp_name(view.centre[1])} {_tp_name(view.hand[2])}"  # centre card first: fine
        )

    driver = Driver(
        ["help", "swap", "swap 10H", "swap XX YY", not_my_card, "announce", reversed_swap]
    )
    out: list[str] = []
    session = make_session(
        "tri-palki", driver, out, opponents=["random", "random", "random"], mode="round", episodes=1
    )
    assert session.num_players == 4
    assert session.run() == 0
    text = "\n".join(out)
    assert "Tri Palki (4 players), single rounds" in text
    assert "Centre:" in text and "Your hand:" in text and "Sticks:" in text
    assert "swap <your card> <centre card>" in text
    assert "a swap names two cards" in text
    assert "'xx' is not a card" in text
    assert "you do not hold" in text
    assert "you can announce only" in text
    assert "you give" in text  # the reversed swap was understood
    assert "Round over" in text
    assert "Traceback" not in text


@pytest.mark.parametrize("seed", range(3))
def test_tri_palki_never_crashes_on_junk(seed: int) -> None:
    driver = Driver(junk=0.35, seed=seed, limit=400)
    out: list[str] = []
    session = make_session(
        "tri_palki",
        driver,
        out,
        opponents=["random"],
        num_players=3,
        seat=seed % 3,
        seed=seed,
        mode="match",
    )
    assert session.run() == 0
    assert "Not possible:" in "\n".join(out)


def test_tri_palki_announce_prompt() -> None:
    """A seat holding a normal 31 at the end of its turn is asked, and 'no' declines."""
    from folkcards.play.tri_palki_view import TriPalkiTable

    out: list[str] = []
    session = make_session(
        "tri_palki", Driver(auto=False), out, opponents=["random"], num_players=2
    )
    table = session.table
    assert isinstance(table, TriPalkiTable)
    env = session.env
    for seed in range(300):
        env.reset(seed=seed)
        obs = env.observe(env.agent_selection)
        for _ in range(60):
            if (
                not env.agents
                or env.terminations[env.agent_selection]
                or env.truncations[env.agent_selection]
            ):
                break
            obs = env.observe(env.agent_selection)
            if obs["action_mask"][11]:
                break
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[seed % len(legal)]))
        if env.agents and obs["action_mask"][11]:
            break
    else:
        pytest.skip("no announcement offered in the sampled rounds")
    session.seat = table.seat = env.possible_agents.index(env.agent_selection)
    table.me = env.agent_selection
    shown = table.show(obs)
    assert "announce the last round?" in shown
    assert table.parse("no", obs) == 12
    assert table.parse("announce", obs) == 11
    with pytest.raises(ValueError, match="announce"):
        table.parse("pass", obs)


# --- command line -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["chess"], "unknown game"),
        (["paston", "--opponents", "random", "random", "random"], "needs 2 opponents"),
        (["paston", "--seat", "3", "--opponents", "random"], "--seat must be from 0 to 2"),
        (["paston", "--opponents", "nobody"], "unknown agent"),
        (["paston", "--mode", "match", "--opponents", "random"], "deal, game"),
        (["tri-palki", "--num-players", "12", "--opponents", "random"], "2 to 11"),
    ],
)
def test_play_command_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_play_main_with_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("help\nnonsense\nquit\n"))
    assert main(["paston", "--opponents", "random", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "unknown move 'nonsense'" in out and "You leave the table." in out


def test_tri_palki_match_goes_on_after_the_person_is_out() -> None:
    """A person who only passes against heuristic players is eliminated; the match ends anyway."""
    out: list[str] = []
    driver = Driver(["pass"] * 200, auto=False)
    session = make_session(
        "tri_palki", driver, out, opponents=["heuristic"], num_players=3, seed=0, episodes=1
    )
    assert session.run() == 0
    text = "\n".join(out)
    assert "You are out of the match; the others play on." in text
    assert "Match over:" in text and "ELIMINATED" in text
