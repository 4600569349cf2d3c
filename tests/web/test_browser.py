"""The web table in a real headless Chromium (issue 14): whole games played by clicking, no
illegal move possible, a stored deal replayed, and never a hidden card of another seat on the page.

Needs Debian's ``chromium`` and ``chromium-driver`` (scripts/setup.sh installs them). With
``FOLKCARDS_SCREENSHOTS=DIR`` set, the tests also save the screenshots used in the README.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from folkcards.web.app import create_app

from .conftest import hidden_cards

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER) and not os.environ.get("CI"),
    reason="Debian's chromium and chromium-driver are not installed",
)
SHOTS = os.environ.get("FOLKCARDS_SCREENSHOTS")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("web") / "human.sqlite"
    app = create_app(store, seed=11, bot_workers=1)  # agents in a worker process, as served
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if uv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app.state.table
    uv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or "chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=DRIVER or "chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout=20):
    return WebDriverWait(driver, timeout).until(condition)


def _start(driver, url, game, players=None, seat=0, opponents=None):
    driver.get(url)
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    driver.find_element(By.CSS_SELECTOR, f"#game option[value='{game}']").click()
    if players is not None:
        field = driver.find_element(By.ID, "num-players")
        field.clear()
        field.send_keys(str(players))
        driver.execute_script("arguments[0].dispatchEvent(new Event('change'))", field)
    seat_field = driver.find_element(By.ID, "seat")
    seat_field.clear()
    seat_field.send_keys(str(seat))
    if opponents is not None:
        box = driver.find_element(By.ID, "opponents")
        box.clear()
        box.send_keys(" ".join(opponents))
    driver.find_element(By.ID, "start").click()
    _wait(driver, lambda d: "hidden" not in d.find_element(By.ID, "table").get_attribute("class"))
    _wait(driver, _settled)


def _page_cards(driver) -> set[str]:
    cards = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-card]')).map(e => e.dataset.card)"
    )
    events = driver.find_element(By.ID, "events").text.replace(",", " ").split()
    return set(cards) | {w for w in events if len(w) in (2, 3) and w[-1] in "SCDH"}


def _settled(driver) -> bool:
    """The page shows the latest view: no move on its way, no agent still to answer."""
    return driver.execute_script("return current !== null && !current.waiting && !busy")


def _current_game(table):
    return max(table.games.values(), key=lambda g: len(g.env.unwrapped.record()["actions"]))


def _play_by_clicking(driver, table, shot_name=None, max_moves=400):
    """Click legal moves until the game is over, checking the page for hidden cards each time."""
    moves = 0
    game = None
    while not driver.find_elements(By.ID, "again"):
        game_id = driver.execute_script("return current && current.id")
        game = table.games[game_id]
        leaked = _page_cards(driver) & hidden_cards(game)
        assert not leaked, f"the page shows another seat's hidden cards: {leaked}"
        buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
        assert buttons, "the person is to act but no move is offered"
        legal = {int(b.get_attribute("data-action")) for b in buttons}
        mask = game.env.observe(game.env.agent_selection)["action_mask"]
        assert legal == {int(a) for a in mask.nonzero()[0]}, "the buttons are not the legal moves"
        if shot_name and SHOTS and moves == 5:
            driver.save_screenshot(str(Path(SHOTS) / shot_name))
        before = len(game.env.unwrapped.record()["actions"])
        names = [b.text for b in buttons]
        pick = moves % len(buttons)
        if moves >= 3 and "pass" in names and game.game == "tri_palki":
            pick = names.index("pass")  # end the round: swaps alone could run to max_turns
        buttons[pick].click()
        _wait(driver, lambda d, g=game, n=before: len(g.env.unwrapped.record()["actions"]) > n)
        _wait(driver, _settled)
        moves += 1
        assert moves < max_moves
    return game


def test_play_a_whole_paston_deal_by_clicking(server, browser):
    url, table = server
    _start(browser, url, "paston", seat=0, opponents=["heuristic", "heuristic"])
    game = _play_by_clicking(browser, table, shot_name="web_paston.png")
    assert game.over and game.error is None
    text = browser.find_element(By.ID, "result-table").text
    assert any(word in text for word in ("played", "auto_win", "surrender", "redeal"))


def test_play_a_whole_tri_palki_round_by_clicking(server, browser):
    url, table = server
    _start(
        browser, url, "tri_palki", players=4, seat=1, opponents=["heuristic", "random", "heuristic"]
    )
    game = _play_by_clicking(browser, table, shot_name="web_tri_palki.png")
    assert game.over and game.error is None
    assert browser.find_element(By.ID, "result-table").text


def test_a_card_that_is_not_legal_cannot_be_played(server, browser):
    url, table = server
    _start(browser, url, "paston", seat=0, opponents=["random", "random"])
    game_id = browser.execute_script("return current.id")
    game = table.games[game_id]
    before = len(game.env.unwrapped.record()["actions"])
    hand = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
    not_legal = [c for c in hand if "legal" not in c.get_attribute("class")]
    assert not_legal, "in the auction no card is a legal move"
    not_legal[0].click()
    time.sleep(0.3)
    assert len(game.env.unwrapped.record()["actions"]) == before
    assert browser.find_element(By.ID, "move-error").text == ""


def test_replay_a_stored_deal_with_all_cards(server, browser):
    url, table = server
    _start(browser, url, "paston", seat=2, opponents=["heuristic", "random"])
    game = _play_by_clicking(browser, table)
    browser.find_element(By.ID, "nav-replays").click()
    button = _wait(
        browser,
        lambda d: d.find_element(By.CSS_SELECTOR, f"button.replay-open[data-key='{game.id}']"),
    )
    button.click()
    _wait(browser, lambda d: "move 0 of" in d.find_element(By.ID, "replay-step").text)
    dealt = game.env.unwrapped.record()["deals"][0]
    shown = set(
        browser.execute_script(
            "return Array.from(document.querySelectorAll('#replay-board [data-card]'))"
            ".map(e => e.dataset.card)"
        )
    )
    assert {c for hand in dealt["hands"] for c in hand} <= shown
    assert set(dealt["prikup"]) <= shown
    moves = len(game.env.unwrapped.record()["actions"])
    assert browser.find_element(By.ID, "replay-step").text == f"move 0 of {moves}"
    steps = min(12, moves)  # a deal won without play has fewer moves
    for _ in range(steps):
        browser.find_element(By.ID, "replay-next").click()
    assert browser.find_element(By.ID, "replay-step").text == f"move {steps} of {moves}"
    browser.find_element(By.ID, "replay-last").click()
    browser.find_element(By.ID, "replay-next").click()  # past the end: stays at the last move
    assert browser.find_element(By.ID, "replay-step").text == f"move {moves} of {moves}"
    assert browser.find_element(By.ID, "replay-event").text
    if SHOTS:
        browser.save_screenshot(str(Path(SHOTS) / "web_replay.png"))


def test_a_move_from_a_stale_view_refreshes_the_page(server, browser):
    """Another tab moved first: the page's click gets 409 and the page shows the game as it is."""
    url, table = server
    _start(browser, url, "paston", seat=0, opponents=["random", "random"])
    game = table.games[browser.execute_script("return current.id")]
    seen = browser.execute_script("return current.move")
    buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
    assert len(buttons) >= 2, "an auction turn offers pass and a bid"
    other_tab, clicked = (int(b.get_attribute("data-action")) for b in buttons[:2])
    answer = httpx.post(
        f"{url}/api/games/{game.id}/move", json={"action": other_tab, "move": seen}, timeout=30
    )
    assert answer.status_code == 200
    buttons[1].click()
    _wait(browser, lambda d: "refreshed" in d.find_element(By.ID, "move-error").text)
    _wait(browser, _settled)
    assert "moved on" in browser.find_element(By.ID, "move-error").text
    with game.lock:
        done = len(game.history)
        assert game.history[seen] == (0, other_tab)  # the stale click was not applied
    assert browser.execute_script("return current.move") == done
    assert clicked != other_tab
