"""Sound (issue 42): off by default, a "Sound: off/on" button in the top bar, the choice
remembered across reloads (localStorage); with it on, the page plays its "your turn" sound
when a new turn of mine arrives and its "trick won" sound on a trick.  The page counts what
it played in ``window.summonSound`` (WebAudio itself makes no sound a test could hear)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.pages import MY_TURN, login, open_table, state
from tests.web.test_web_dragon import BOTS, DragonPerson

pytestmark = pytest.mark.broker
BUTTON = "nav.top button[data-key='sound']"


def played(page: Any) -> dict[str, int]:
    return page.evaluate("() => ({ ...window.summonSound })")


def one_move(page: Any, person: DragonPerson) -> None:
    """Wait for my turn, make a move through the page, wait for the next state."""
    page.wait_for_function(MY_TURN, timeout=60000)
    seq = state(page)["seq"]
    person(page)
    page.wait_for_function("(q) => Number(document.querySelector('.status-line').dataset.seq) > q", arg=seq)


def test_sound_is_off_by_default_remembered_and_played_on_my_turn(stack, browser):
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    page = stack.page(browser, width=360, height=640)
    try:
        login(page, stack.web.url, "north")
        assert page.inner_text(BUTTON) == "Sound: off" and page.get_attribute(BUTTON, "aria-pressed") == "false"
        open_table(page, table)
        person = DragonPerson(keyboard=False)
        one_move(page, person)
        page.wait_for_function(MY_TURN, timeout=60000)
        assert played(page) == {"turn": 0, "trick": 0}, "sound is off until the person turns it on"

        page.click(BUTTON)
        page.wait_for_selector(f"{BUTTON}[aria-pressed='true']")
        assert page.inner_text(BUTTON) == "Sound: on"
        page.reload()
        page.wait_for_selector(BUTTON)
        assert page.inner_text(BUTTON) == "Sound: on", "the choice is kept across a reload"
        login(page, stack.web.url, "north")
        open_table(page, table)
        before = played(page)["turn"]
        tricks = 0
        for _ in range(40):   # my turns sound; play on until a trick has been won
            one_move(page, person)
            page.wait_for_function(MY_TURN, timeout=60000)
            if page.get_attribute(".status-line", "data-status") != "playing":
                break
            tricks = played(page)["trick"]
            if tricks and played(page)["turn"] > before:
                break
        assert played(page)["turn"] > before, "a new turn of mine played the turn sound"
        assert tricks > 0, "a trick won played the trick sound"

        page.click(BUTTON)
        page.wait_for_selector(f"{BUTTON}[aria-pressed='false']")
        page.reload()
        page.wait_for_selector(BUTTON)
        assert page.inner_text(BUTTON) == "Sound: off", "off is kept across a reload too"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
