"""The page under trouble: a refused move is explained in words and loses nothing; after a
broker restart the page reconnects by itself and shows where the game stands."""

from __future__ import annotations

import time

import pytest

from tests.web.pages import MY_TURN, login, offered, open_table, state

pytestmark = pytest.mark.broker
BOTS = {"east": "dragon-heuristic", "south": "dragon-heuristic", "west": "dragon-heuristic"}


def wait_seq_change(page, seq: int) -> None:
    page.wait_for_function("(seq) => document.querySelector('.status-line') && "
                           "Number(document.querySelector('.status-line').dataset.seq) > seq", arg=seq, timeout=30000)


def north_to_move(stack, browser, seed: int):
    """A Dragon table with north in the browser, waiting until it is north's turn."""
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=seed)
    page = stack.page(browser)
    login(page, stack.web.url, "north")
    open_table(page, table)
    page.wait_for_function(MY_TURN)
    return table, page


def test_a_stale_move_is_explained_and_the_right_one_still_plays(stack, browser):
    table, page = north_to_move(stack, browser, seed=21)
    try:
        seq, legal = state(page)["seq"], state(page)["legal"]
        # a race: the page sends a move for the position before this one
        page.evaluate("([t, s, m]) => window.summon.link.move(t, s, m)", [table, seq - 1, legal[0]])
        page.wait_for_selector(".error", timeout=15000)
        text = page.inner_text(".error")
        assert "earlier position" in text and f"seq {seq}" in text, text
        assert stack.table(table).seq == seq, "a refused move changed nothing"
        move = next(m for m in offered(page) if m in legal)
        page.click(f"button[data-move='{move}']")
        wait_seq_change(page, seq)
        assert not page.query_selector(".error"), "the error goes away once the game moves on"
    finally:
        page.context.close()


def test_after_a_broker_restart_the_page_reconnects_and_shows_the_game(stack, browser):
    table, page = north_to_move(stack, browser, seed=22)
    try:
        seq = state(page)["seq"]
        stack.broker.restart()  # no persistence: every retained message is gone until the referee republishes
        page.wait_for_selector(".connection.conn-connecting, .connection.conn-offline", timeout=30000)
        page.wait_for_function("() => window.summon.store.connection.state === 'online'", timeout=60000)
        deadline = time.monotonic() + 30
        while stack.table(table).seq != seq and time.monotonic() < deadline:
            time.sleep(0.1)
        page.wait_for_function(
            "(seq) => { const s = document.querySelector('.status-line'); return s && Number(s.dataset.seq) === seq; }",
            arg=seq, timeout=30000)
        page.wait_for_function(MY_TURN)
        legal = state(page)["legal"]
        move = next(m for m in offered(page) if m in legal)
        page.click(f"button[data-move='{move}']")
        wait_seq_change(page, seq)
        assert stack.table(table).seq > seq, "the move made after the restart was accepted"
    finally:
        page.context.close()


def test_a_wrong_password_is_said_in_words_and_not_retried(stack, browser):
    page = stack.page(browser)
    try:
        page.goto(stack.web.url)
        page.fill("input[name=username]", "north")
        page.fill("input[name=password]", "not-the-password")
        page.click("button[type=submit]")
        page.wait_for_selector(".connection.conn-error", timeout=15000)
        assert "refused this username or password" in page.inner_text(".connection")
        page.wait_for_timeout(3000)  # longer than the reconnect period: nothing retries
        assert page.evaluate("() => window.summon.link.client.disconnected || !window.summon.link.client.connected")
        assert "refused" in page.inner_text(".connection")
        assert page.query_selector("form.login"), "the form is there to try again"
    finally:
        page.context.close()


def test_an_unreachable_broker_is_said_in_words(browser):
    from summon.clients.embedded_broker import free_port
    from summon.clients.web.server import WebConfig, WebServer

    web = WebServer(WebConfig(broker=f"ws://127.0.0.1:{free_port()}"), port=0).start()
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(web.url)
        page.fill("input[name=username]", "north")
        page.fill("input[name=password]", "x")
        page.click("button[type=submit]")
        page.wait_for_function("() => /cannot reach .* retrying/.test(document.querySelector('.connection').textContent)",
                               timeout=20000)
    finally:
        context.close()
        web.stop()


def test_the_page_acts_only_on_its_own_seat_topic(stack, browser):
    """A broker without per-user ACLs (the demo's amqtt replays retained messages to anyone)
    could deliver another seat's state: the page must not take it for its own."""
    table, page = north_to_move(stack, browser, seed=23)
    try:
        before = state(page)
        page.evaluate("""([t, seq]) => window.summon.link.receive(`summon/v1/t/${t}/seat/west/state`,
            MessagePack.encode({v: 1, type: "seat_state", table: t, game: "dragon", seat: 3, seq: seq + 5,
                                status: "playing", to_move: [3], legal: ["pass"], view: {hand: ["dragon"]}, events: []}))""",
                      [table, before["seq"]])
        page.wait_for_timeout(300)
        after = state(page)
        assert after["seat"] == 0 and after["seq"] == before["seq"], "west's state was taken for north's"
        assert "you are north" in page.inner_text(".status-line")
    finally:
        page.context.close()
