"""Clocks count down on the page; when the house bot takes my seat the page says so and
gives it back at one click (reclaim), and the feed reports both."""

from __future__ import annotations

import pytest

from tests.web.pages import MY_TURN, login, open_table

pytestmark = pytest.mark.broker
BOTS = {"east": "dragon-heuristic", "south": "dragon-heuristic", "west": "dragon-heuristic"}


def clock_seconds(text: str) -> int:
    m, s = text.split("clock ", 1)[1].split(":")[:2]
    return int(m) * 60 + int(s[:2])


def test_clock_counts_down_and_the_house_bot_seat_is_reclaimed(stack, browser):
    # paced bots: unpaced, the house bot and three bots play a trick in ~0.1 s, and the house
    # notice scrolled out of the feed's newest 30 lines before a loaded machine's page showed it
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=31,
                         clock={"move": 8, "max_timeouts": 1}, pace=0.5)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.wait_for_function(MY_TURN)
        running = ".seat.me .clock.running .left"
        page.wait_for_selector(running)
        first = clock_seconds(page.inner_text(running))
        assert 0 < first <= 8
        # it counts down on the page, without any new message from the referee
        page.wait_for_function("([sel, first]) => { const e = document.querySelector(sel); return e && "
                               "Number(e.textContent.split(':')[1]) < first; }", arg=[running, first], timeout=10000)
        # north does not move: it times out once and the house bot takes the seat
        page.wait_for_selector(".notice.house", timeout=20000)
        assert "The computer is playing for you" in page.inner_text(".notice.house")
        page.wait_for_selector(".feed .ev-house")
        page.click("button[data-key='reclaim']")
        page.wait_for_selector(".feed .ev-reclaim", timeout=15000)
        page.wait_for_function("() => !document.querySelector('.notice.house')", timeout=15000)
        assert "is back in their seat" in page.inner_text(".feed .ev-reclaim")
    finally:
        page.context.close()
