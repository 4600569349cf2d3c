"""The web table in a real headless Chromium: whole games played by clicking, no
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
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
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


def _click(driver, selector: str) -> None:
    """Click the element ``selector`` finds, finding it again if the page re-rendered it
    between the find and the click (a selected card is redrawn)."""

    def clicked(d) -> bool:
        d.find_element(By.CSS_SELECTOR, selector).click()
        return True

    WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,)).until(clicked)


def _start(driver, url, game, players=None, seat=0, opponents=None, episode=None):
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
    if episode is not None:
        driver.find_element(By.CSS_SELECTOR, f"#episode option[value='{episode}']").click()
    if opponents is not None:
        box = driver.find_element(By.ID, "opponents")
        box.clear()
        box.send_keys(" ".join(opponents))
    driver.find_element(By.ID, "start").click()
    _wait(driver, lambda d: "hidden" not in d.find_element(By.ID, "table").get_attribute("class"))
    _wait(driver, _settled)


def _screenshot(driver, name: str) -> None:
    """Save the window as ``SHOTS/name``, in 128 colours (a quarter of the size) with Pillow."""
    path = Path(SHOTS) / name
    driver.save_screenshot(str(path))
    try:
        from PIL import Image
    except ImportError:
        return
    image = Image.open(path).convert("RGB")
    image.quantize(colors=128, dither=Image.Dither.NONE).save(path, optimize=True)


def _page_cards(driver) -> set[str]:
    cards = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-card]')).map(e => e.dataset.card)"
    )
    events = driver.find_element(By.ID, "events").text.replace(",", " ").split()
    return set(cards) | {w for w in events if len(w) in (2, 3) and w[-1] in "SCDH"}


def _settled(driver) -> bool:
    """The page shows the latest view: no move on its way, no agent still to answer."""
    return driver.execute_script("return current !== null && !current.waiting && !busy")


def _view(driver):
    return driver.execute_script("return current")


def _actions(game) -> int:
    return len(game.env.unwrapped.record()["actions"])


def _offered(driver, view) -> set[int]:
    """The legal moves the page lets the person make: buttons, cards to click, and a swap for
    every (hand card, centre card) pair it lets the person click in turn."""
    offered = {
        int(b.get_attribute("data-action"))
        for b in driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
    }
    offered |= {
        int(c.get_attribute("data-action"))
        for c in driver.find_elements(By.CSS_SELECTOR, "#hand .card[data-action]")
    }
    hand = {
        c.get_attribute("data-card")
        for c in driver.find_elements(By.CSS_SELECTOR, "#hand .card.choosable")
    }
    centre = {
        c.get_attribute("data-card")
        for c in driver.find_elements(By.CSS_SELECTOR, "#centre .card.choosable")
    }
    for move in view["legal"]:
        parts = move["name"].split()
        if len(parts) == 3 and parts[0] == "swap" and parts[1] in hand and parts[2] in centre:
            offered.add(move["id"])
    return offered


def _click_a_move(driver, game, moves):
    """Make one legal move the way a person does: a card click where the move is a card's."""
    view = _view(driver)
    names = [m["name"] for m in view["legal"]]
    if view["page"] == "tricks" and driver.find_elements(By.ID, "confirm-discard"):
        chosen = driver.find_elements(By.CSS_SELECTOR, "#hand .card.choosable")[:2]
        for name in [card.get_attribute("data-card") for card in chosen]:
            _click(driver, f"#hand .card[data-card='{name}']")  # each click redraws the hand
        _click(driver, "#confirm-discard")
        return
    cards = driver.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
    if cards and view["page"] == "tricks":
        cards[moves % len(cards)].click()
        return
    choosable = driver.find_elements(By.CSS_SELECTOR, "#hand .card.choosable")
    if choosable and moves % 3 == 0:
        choosable[moves % len(choosable)].click()
        driver.find_elements(By.CSS_SELECTOR, "#centre .card.legal")[0].click()
        return
    buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
    pick = moves % len(buttons)
    if moves >= 3 and "pass" in names and view["page"] == "swaps":
        pick = [b.text for b in buttons].index("pass")  # end the round: swaps could run long
    buttons[pick].click()


def _play_by_clicking(
    driver, table, shot_name=None, max_moves=400, check=None, shot_when=None, until=None
):
    """Click legal moves until the game is over (or ``until(view)`` holds), checking the page
    for hidden cards each time (and ``check(driver, game)`` if given). With
    FOLKCARDS_SCREENSHOTS set, ``shot_name`` is saved when ``shot_when(view, moves)`` first
    holds (default: at the fifth move)."""
    moves = 0
    game = None
    shot_when = shot_when or (lambda view, moves: moves == 5)
    while not driver.find_elements(By.ID, "again"):
        view = _view(driver)
        if until is not None and until(view):
            return table.games[view["id"]]
        game = table.games[view["id"]]
        leaked = _page_cards(driver) & hidden_cards(game)
        assert not leaked, f"the page shows another seat's hidden cards: {leaked}"
        mask = game.env.observe(game.env.agent_selection)["action_mask"]
        legal = {int(a) for a in mask.nonzero()[0]}
        assert {m["id"] for m in view["legal"]} == legal
        assert _offered(driver, view) == legal, "the page does not offer exactly the legal moves"
        if check is not None:
            check(driver, game)
        if shot_name and SHOTS and shot_when(view, moves):
            _screenshot(driver, shot_name)
            shot_name = None
        before = _actions(game)
        _click_a_move(driver, game, moves)
        _wait(driver, lambda d, g=game, n=before: _actions(g) > n)
        _wait(driver, _settled)
        moves += 1
        assert moves < max_moves
    return game


def test_play_a_whole_paston_deal_by_clicking(server, browser):
    url, table = server
    _start(browser, url, "paston", seat=0, opponents=["heuristic", "heuristic"])
    game = _play_by_clicking(
        browser,
        table,
        shot_name="web_paston.png",
        shot_when=lambda view, moves: len(view["tricks_won"]) >= 3 and view["trick"],
    )
    assert game.over and game.error is None
    text = browser.find_element(By.ID, "result-table").text
    assert any(word in text for word in ("played", "auto_win", "surrender", "redeal"))


def test_play_a_whole_tri_palki_round_by_clicking(server, browser):
    url, table = server
    _start(
        browser, url, "tri_palki", players=4, seat=1, opponents=["heuristic", "random", "heuristic"]
    )
    game = _play_by_clicking(
        browser, table, shot_name="web_tri_palki.png", shot_when=lambda view, moves: moves == 1
    )
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


# --- the table as a player sees it --------------------------------------------------------------


def _in_view(driver, element_id) -> bool:
    """The element is displayed and wholly inside the window (no scrolling needed)."""
    return driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight",
        element_id,
    )


def _check_my_box_and_score(driver, game):
    """Your own box shows your bids, tricks and the dealer mark; the running score is in view
    and agrees with the server's game; every finished trick is in the history with its winner."""
    view = _view(driver)
    me = view["seat"]
    box = driver.find_element(By.ID, "my-box")
    assert box.get_attribute("data-seat") == str(me)
    assert (len(box.find_elements(By.CSS_SELECTOR, ".dealer-mark")) == 1) == (view["dealer"] == me)
    dealer_boxes = driver.find_elements(By.CSS_SELECTOR, "#felt .seat .dealer-mark")
    assert len(dealer_boxes) == 1
    players = len(game.env.possible_agents)
    truth = game.env.unwrapped.record()
    assert _in_view(driver, "score-table")
    rows = driver.find_elements(By.CSS_SELECTOR, "#score-table tr[data-seat]")
    assert len(rows) == players
    if view["page"] == "tricks":
        levels = ["spades", "clubs", "diamonds", "hearts", "best spades"]
        said = [levels[level] for level in view["bids"][me]]
        bids = box.find_element(By.CSS_SELECTOR, ".bids").text
        for word in said:
            assert word in bids
        if view["auction_passed"][me]:
            assert "pass" in bids
        assert box.find_element(By.CSS_SELECTOR, ".tricks").text == f"tricks: {view['tricks'][me]}"
        for s, row in enumerate(rows):  # tricks column, from the server's deal
            assert row.find_elements(By.TAG_NAME, "td")[2].text == str(view["tricks"][s])
        deal = truth["deals"][-1]
        winners = [e for e in view["events"] if e.startswith("trick ")]
        history = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#events li.trick-won")]
        assert (
            history
            == winners
            == [
                f"trick {t['number']} won by " + ("You" if t["winner"] == me else f"P{t['winner']}")
                for t in view["tricks_won"]
            ]
        )
        assert len(winners) == sum(view["tricks"]) or deal.get("result")
    else:
        for s, row in enumerate(rows):
            assert row.find_elements(By.TAG_NAME, "td")[1].text.split()[0] == str(view["sticks"][s])


def test_your_seat_box_and_the_running_score_follow_a_paston_deal(server, browser):
    url, table = server
    for _ in range(15):  # until you are the dealer of the deal (the mark on your own box)
        _start(browser, url, "paston", seat=1, opponents=["heuristic", "random"])
        if _view(browser)["dealer"] == 1:
            break
    assert _view(browser)["dealer"] == 1
    game = _play_by_clicking(  # the auction, the defence and three tricks are enough
        browser,
        table,
        check=_check_my_box_and_score,
        until=lambda view: len(view["tricks_won"]) >= 3,
    )
    view = _view(browser)
    assert game.over or len(view["tricks_won"]) >= 3


def test_the_running_score_of_a_tri_palki_match_is_in_view(server, browser):
    """Mid-match, the sticks of every seat and the sheet of the finished rounds are in view."""
    url, table = server
    _start(
        browser,
        url,
        "tri_palki",
        players=3,
        seat=0,
        opponents=["heuristic", "heuristic"],
        episode="match",
    )
    view = _view(browser)
    game = table.games[view["id"]]
    for moves in range(300):
        view = _view(browser)
        _check_my_box_and_score(browser, game)
        if view["over"] or view["score_sheet"]["rows"]:
            break
        before = _actions(game)
        _click_a_move(browser, game, moves)
        _wait(browser, lambda d, n=before: _actions(game) > n)
        _wait(browser, _settled)
    assert view["score_sheet"]["rows"] and not view["over"], "the first round did not end"
    assert browser.find_element(By.ID, "score").text.startswith("Score — round 2")
    sheet = browser.find_elements(By.CSS_SELECTOR, "#score .score-sheet tr")
    assert len(sheet) == 3  # the header, round 1 and the total
    assert sheet[-1].text.split()[1:] == [str(x) for x in view["sticks"]]


def _to_the_play(driver, url, table):
    """A Paston deal in which you won the auction (you bid at every turn against random
    opponents) and are to discard."""
    for _ in range(20):
        _start(driver, url, "paston", seat=0, opponents=["random", "random"])
        game = table.games[_view(driver)["id"]]
        while _view(driver)["phase"] == "auction" and not _view(driver)["over"]:
            bids = [
                b
                for b in driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
                if b.text.startswith("bid ")
            ]
            if not bids:
                break
            before = _actions(game)
            bids[0].click()
            _wait(driver, lambda d, g=game, n=before: _actions(g) > n)
            _wait(driver, _settled)
        view = _view(driver)
        if view["phase"] == "discard" and view["legal"]:
            return game
    raise AssertionError("never the declarer")


def test_paston_discards_two_clicked_cards_after_a_confirm(server, browser):
    url, table = server
    game = _to_the_play(browser, url, table)
    confirm = browser.find_element(By.ID, "confirm-discard")
    assert not confirm.is_enabled()
    cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card.choosable")
    assert len(cards) == 12, "ten cards and the prikup"
    chosen = [cards[3].get_attribute("data-card"), cards[7].get_attribute("data-card")]
    before = _actions(game)
    cards[3].click()
    assert _actions(game) == before, "one click chooses, it does not discard"
    browser.find_elements(By.CSS_SELECTOR, "#hand .card.choosable")[7].click()
    confirm = browser.find_element(By.ID, "confirm-discard")
    assert confirm.is_enabled() and all(c in confirm.text for c in chosen)
    confirm.click()
    _wait(browser, lambda d: _actions(game) == before + 2)
    _wait(browser, _settled)
    names = game.env.unwrapped.record()["actions"][before:]
    assert [game.env.action_to_string(a) for _, a in names] == chosen
    assert sorted(_view(browser)["discards"]) == sorted(chosen)
    assert not set(chosen) & set(_view(browser)["hand"])


def _to_the_tricks(driver, url, table):
    """A Paston deal whose play is under way with you in it: you pass in the auction and say
    whist when the declarer's opponents are asked."""
    for _ in range(20):
        _start(driver, url, "paston", seat=0, opponents=["random", "random"])
        game = table.games[_view(driver)["id"]]
        while not _view(driver)["over"] and _view(driver)["phase"] != "play":
            names = {b.text: b for b in driver.find_elements(By.CSS_SELECTOR, "#moves button.move")}
            choice = names.get("whist") or names.get("pass") or next(iter(names.values()), None)
            if choice is None or _view(driver)["phase"] == "discard":
                break
            before = _actions(game)
            choice.click()
            _wait(driver, lambda d, g=game, n=before: _actions(g) > n)
            _wait(driver, _settled)
        if _view(driver)["phase"] == "play" and _view(driver)["whist"][0]:
            return game
    raise AssertionError("never in the play")


TRICK_SHOWN = (
    "return Array.from(document.querySelectorAll('#trick .played'))"
    ".map(p => [parseInt(p.dataset.seat), p.querySelector('.card').dataset.card])"
)


def test_the_last_trick_stays_in_the_middle_and_on_demand(server, browser):
    """Between tricks the finished trick stays in the middle, marked with its winner; while
    the next one is under way a button shows it; a clicked card is the card played."""
    url, table = server
    game = _to_the_tricks(browser, url, table)
    seen_between = seen_on_demand = cards_played = 0
    for _ in range(40):
        view = _view(browser)
        if view["over"]:
            break
        last = view["last_trick"]
        label = browser.find_element(By.ID, "trick-label").text
        shown = browser.execute_script(TRICK_SHOWN)
        if last and not view["trick"]:  # between tricks: the finished one stays
            assert shown == last["cards"]
            assert label.startswith(f"Trick {last['number']} won by")
            seen_between += 1
        elif last and view["trick"]:  # a trick under way: the last one on demand
            assert shown == view["trick"]
            browser.find_element(By.ID, "show-last").click()
            assert browser.execute_script(TRICK_SHOWN) == last["cards"]
            assert "won by" in browser.find_element(By.ID, "trick-label").text
            browser.find_element(By.ID, "show-last").click()
            assert browser.execute_script(TRICK_SHOWN) == view["trick"]
            seen_on_demand += 1
        cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
        assert cards, "in the play the person's moves are cards"
        name = cards[-1].get_attribute("data-card")
        before = _actions(game)
        cards[-1].click()
        _wait(browser, lambda d, n=before: _actions(game) > n)
        _wait(browser, _settled)
        seat, action = game.env.unwrapped.record()["actions"][before]
        assert seat == "player_0" and game.env.action_to_string(action) == name
        cards_played += 1
    assert cards_played >= 5 and seen_between + seen_on_demand >= 4


def test_tri_palki_swaps_by_clicking_a_hand_card_then_a_centre_card(server, browser):
    url, table = server
    _start(browser, url, "tri_palki", players=3, seat=0, opponents=["random", "random"])
    view = _view(browser)
    game = table.games[view["id"]]
    names = {b.text for b in browser.find_elements(By.CSS_SELECTOR, "#moves button.move")}
    assert not any(n.startswith("swap ") and n != "swap all" for n in names), "no swap buttons"
    assert {"pass", "swap all"} <= names
    for order in ("hand first", "centre first"):
        view = _view(browser)
        if view["over"]:
            break
        hand = browser.find_elements(By.CSS_SELECTOR, "#hand .card.choosable")
        centre = browser.find_elements(By.CSS_SELECTOR, "#centre .card.choosable")
        give, take = hand[1].get_attribute("data-card"), centre[2].get_attribute("data-card")
        expected = next(m["id"] for m in view["legal"] if m["name"] == f"swap {give} {take}")
        before = _actions(game)
        if order == "hand first":
            hand[1].click()
            target = browser.find_element(By.CSS_SELECTOR, f"#centre .card[data-card='{take}']")
        else:
            centre[2].click()
            target = browser.find_element(By.CSS_SELECTOR, f"#hand .card[data-card='{give}']")
        assert _actions(game) == before, "the first click only chooses"
        assert "legal" in target.get_attribute("class")
        target.click()
        _wait(browser, lambda d, n=before: _actions(game) > n)
        _wait(browser, _settled)
        seat, action = game.env.unwrapped.record()["actions"][before]
        assert seat == "player_0"
        assert action == expected  # action ids of swaps name hand and centre positions
        mine = _view(browser)["hand"]
        assert take in mine and give not in mine


def test_the_replay_board_is_on_top_and_changes_as_you_step(server, browser):
    url, table = server
    _start(browser, url, "paston", seat=0, opponents=["heuristic", "heuristic"])
    game = _play_by_clicking(browser, table)
    browser.find_element(By.ID, "nav-replays").click()
    button = _wait(
        browser,
        lambda d: d.find_element(By.CSS_SELECTOR, f"button.replay-open[data-key='{game.id}']"),
    )
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    button.click()
    _wait(browser, lambda d: "move 0 of" in d.find_element(By.ID, "replay-step").text)
    assert _in_view(browser, "replay-board") and _in_view(browser, "replay-next")
    assert browser.execute_script("return window.scrollY") == 0
    moves = _actions(game)
    board = browser.find_element(By.ID, "replay-board").get_attribute("innerHTML")
    browser.find_element(By.ID, "replay-next").click()
    assert browser.find_element(By.ID, "replay-board").get_attribute("innerHTML") != board
    assert browser.find_element(By.ID, "replay-event").text
    browser.find_element(By.ID, "replay-prev").click()
    assert browser.find_element(By.ID, "replay-board").get_attribute("innerHTML") == board
    slider = browser.find_element(By.ID, "replay-slider")
    assert slider.get_attribute("max") == str(moves)
    browser.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))",
        slider,
        moves // 2,
    )
    assert browser.find_element(By.ID, "replay-step").text == f"move {moves // 2} of {moves}"
    if SHOTS:
        _screenshot(browser, "web_replay.png")
    browser.find_element(By.ID, "replay-last").click()
    assert browser.find_element(By.ID, "replay-step").text == f"move {moves} of {moves}"
    assert slider.get_attribute("value") == str(moves)
    current = browser.find_element(By.CSS_SELECTOR, "#replay-moves li.current")
    assert current.get_attribute("data-step") == str(moves)
    browser.find_element(By.ID, "replay-first").click()
    pages = -(-moves // 20)
    assert browser.find_element(By.ID, "replay-page").text == f"(page 1 of {pages})"
    if pages > 1:
        browser.find_element(By.ID, "replay-page-next").click()
        first = browser.find_elements(By.CSS_SELECTOR, "#replay-moves li")[0]
        assert first.get_attribute("data-step") == "21"
        first.click()
        assert browser.find_element(By.ID, "replay-step").text == f"move 21 of {moves}"
    assert _in_view(browser, "replay-board")


def test_a_paston_game_shows_its_totals_beside_the_deal(server, browser):
    """In game mode the cumulative totals are a column of the running score and a line of
    every seat's box, next to this deal's tricks."""
    url, _ = server
    _start(browser, url, "paston", seat=2, opponents=["random", "random"], episode="game")
    view = _view(browser)
    assert view["totals"] == [0, 0, 0]
    head = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#score-table th")]
    assert head[-2:] == ["tricks", "total"]
    assert _in_view(browser, "score-table")
    for s in range(3):
        box = browser.find_element(By.CSS_SELECTOR, f"#felt .seat[data-seat='{s}']")
        assert box.find_element(By.CSS_SELECTOR, ".total").text == "total: 0"
    _start(browser, url, "paston", seat=2, opponents=["random", "random"])  # no totals in a deal
    head = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#score-table th")]
    assert head[-1] == "tricks"
