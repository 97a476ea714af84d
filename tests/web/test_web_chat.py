"""The chat panel in real Chromium: players send lines and presets, a watcher reads them
read-only, a mute hides one person on this device, and what a player types -- markup
included -- reaches the other pages as text, never as an element.  Over a real Mosquitto
(websockets) and a real referee; the referee's own count says what was relayed."""

from __future__ import annotations

import uuid

import pytest

from tests.web.pages import login, open_table
from tests.web.test_web_screens import shoot

pytestmark = pytest.mark.broker
MARKUP = "<img src=x onerror=alert(1)> <b>bold</b> & <script>alert(2)</script>"


def lines(page) -> list[tuple[str, str]]:
    """The chat as shown, oldest first (the DOM holds it newest first; the stylesheet reverses it)."""
    return page.eval_on_selector_all(".chat-line", "els => els.reverse().map(e => [e.dataset.user, e.querySelector('.chat-text').textContent])")


def wait_lines(page, n: int) -> None:
    page.wait_for_function("(n) => document.querySelectorAll('.chat-line').length === n", arg=n, timeout=15000)


def test_players_chat_a_watcher_reads_mute_hides_and_markup_stays_text(stack, browser, out):
    table = f"chat-{uuid.uuid4().hex[:8]}"
    stack.referee.call(lambda: stack.referee.create_table("dragon", ["north", "east", "south", "west"], {"max_hands": 1},
                                                          seed=2, table_id=table))
    north, east, fan = stack.page(browser), stack.page(browser, 360, 740), stack.page(browser)
    dialogs: list[str] = []
    for page in (north, east, fan):
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for page, user in ((north, "north"), (east, "east"), (fan, "mallory")):
        login(page, stack.web.url, user)
        open_table(page, table)
    # a player types markup and presses Enter
    north.fill(".chat-input", MARKUP)
    north.press(".chat-input", "Enter")
    for page in (north, east, fan):
        wait_lines(page, 1)
        assert lines(page) == [["north", MARKUP]]
        assert page.evaluate("() => document.querySelectorAll('.chat-lines img, .chat-lines b, .chat-lines script').length") == 0
    assert north.input_value(".chat-input") == ""  # sent: the input is empty again
    # a preset from the phone
    east.click("button[data-preset=gg]")
    for page in (north, east, fan):
        wait_lines(page, 2)
        assert lines(page)[1] == ["east", "Good game!"]
    # what is being typed survives the re-renders the incoming lines cause
    north.fill(".chat-input", "half a thou")
    east.click("button[data-preset=gl]")
    wait_lines(north, 3)
    assert north.input_value(".chat-input") == "half a thou"
    north.fill(".chat-input", "")
    # the watcher (an account with no seat) reads, and has nothing to write with
    wait_lines(fan, 3)
    assert fan.locator(".chat-input").count() == 0 and fan.locator("button[data-preset]").count() == 0
    assert "everyone watching can read this" in fan.inner_text(".chat-readonly")
    assert "Everyone watching can read this." in north.inner_text(".chat-public")
    # too long: refused in words by the page, nothing sent
    before = stack.referee.call(lambda: stack.referee.tables[table].chat_n)
    for size in (301, 65_536):  # 64 KiB pasted would make the broker drop the connection: never sent
        north.fill(".chat-input", "w" * size)
        north.click(".chat-send")
        north.wait_for_selector(".chat-error")
        assert f"That message has {size} characters; at most 300" in north.inner_text(".chat-error")
        assert north.input_value(".chat-input") == "w" * size  # kept, to shorten
    assert stack.referee.call(lambda: stack.referee.tables[table].chat_n) == before
    assert north.locator(".conn-online").count() == 1
    north.fill(".chat-input", "")
    # mute east on north's page: east's lines go, a way back stays; the choice is this browser's only
    north.click(".chat-line[data-user=east] button[data-mute=east]")
    wait_lines(north, 1)
    assert "east (2 hidden)" in north.inner_text(".chat-muted")
    assert north.evaluate("() => localStorage.getItem('summon.chat.muted')") == '["east"]'
    wait_lines(fan, 3)  # nobody else is affected
    east.click("button[data-preset=thanks]")
    wait_lines(fan, 4)
    assert len(lines(north)) == 1
    north.click("button[data-unmute=east]")
    wait_lines(north, 4)
    north.fill(".chat-input", "")
    assert north.locator(".chat-error").count() == 0  # shortened: the page's refusal is over
    shoot(north, "chat", out)   # docs/screens/web/chat-phone.png and chat-desktop.png
    shoot(fan, "chat-watcher", out)
    # a refusal by the referee, in words: a flood from east's phone.  The bucket refills one
    # line every 2 s, so 8 clicks slower than 4 s in all all fit (a loaded machine): click until the referee
    # says no (each click spends a token faster than the refill once clicks take < 2 s).
    for _ in range(60):
        east.click("button[data-preset=oops]")
        if east.locator(".chat-error").count():
            break
    east.wait_for_selector(".chat-error")
    assert "too fast" in east.inner_text(".chat-error")
    assert not dialogs, dialogs
    for page in (north, east, fan):
        assert not [e for e in page.errors if "WebSocket" not in e], page.errors
