"""Absent players and turn-based play, in real Chromium over a real Mosquitto and referee.

* A player's link dies (her browser context closes: the broker sends her ``offline`` will):
  the other player's page says she is away, the house bot takes her seat within the grace,
  and when she opens the page again the seat comes back and her next move is accepted.
* A turn-based table (one day a move) survives a referee restart in the middle; the lobby
  of the player to move says "your turn", the tab title says it, and a browser notification
  fires while the page is in the background -- once per turn, never for one already seen.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from collections.abc import Iterator

import pytest

from summon.clients.bots import HOUSE_BOTS, make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.clients.web.server import WebConfig, WebServer
from summon.referee.presets import preset
from summon.referee.service import Referee, RefereeConfig
from tests.web.pages import MY_TURN, login, offered, open_table
from tests.refthread import start_referee

pytestmark = pytest.mark.broker
PLAYERS = ["north", "east", "south", "west"]

# Notifications are recorded (and still shown), and the page's visibility is ours to set:
# headless Chromium is always "visible", and a second tab would not hide the first.
CAPTURE = """
window.__notes = [];
window.__vis = "visible";
Object.defineProperty(Document.prototype, "visibilityState", { get() { return window.__vis; }, configurable: true });
Object.defineProperty(Document.prototype, "hidden", { get() { return window.__vis === "hidden"; }, configurable: true });
const Real = window.Notification;
function Recorded(title, opts) {
  window.__notes.push({ title, body: opts && opts.body, tag: opts && opts.tag, hidden: document.visibilityState === "hidden" });
  try { return new Real(title, opts); } catch (err) { return { close() {} }; }
}
Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
Recorded.requestPermission = (...a) => Real.requestPermission(...a);
window.Notification = Recorded;
"""
HIDE = "() => { window.__vis = 'hidden'; document.dispatchEvent(new Event('visibilitychange')); }"
SHOW = "() => { window.__vis = 'visible'; document.dispatchEvent(new Event('visibilitychange')); }"


def play_if_my_turn(page: Any) -> bool:
    """One legal move through the page if it is this player's turn (the first one offered)."""
    if not page.evaluate("() => !!document.querySelector('.turn.mine')"):
        return False
    moves = offered(page)
    if not moves:
        return False
    seq = page.get_attribute(".status-line", "data-seq")
    page.click(f"button[data-move='{moves[0]}']:not([disabled])")
    page.wait_for_function("(seq) => document.querySelector('.status-line').dataset.seq !== seq", arg=seq, timeout=30000)
    return True


def test_an_absent_players_seat_goes_to_the_house_and_comes_back(stack, browser, out):
    bots = {"east": "dragon-heuristic", "west": "dragon-heuristic"}
    tid = stack.create("dragon", PLAYERS, {"max_hands": 1}, bots, seed=5, clock={"grace": 4}, pace=0.3)
    north = stack.page(browser)
    south = stack.page(browser)
    try:
        login(north, stack.web.url, "north")
        open_table(north, tid)
        login(south, stack.web.url, "south")
        open_table(south, tid)
        north.wait_for_function("() => !document.querySelector('.away-line')")
        south.context.close()  # her link dies: the broker publishes her will (offline)
        gone = time.monotonic()
        north.wait_for_selector(".away-line[data-away-seat='2']", timeout=10000)
        text = north.inner_text(".away-line")
        assert text.startswith("south is away (") and "the computer" in text, text
        # within the grace (4 s) plus a tick, the house bot holds her seat
        north.wait_for_selector(".away-line.house[data-away-seat='2']", timeout=20000)
        held = time.monotonic() - gone
        assert stack.table(tid).house == {2: "absent"}
        assert "the computer plays for them" in north.inner_text(".away-line")
        assert held < 4 + 10, f"the house bot took the seat {held:.1f} s after she left"
        print(f"house bot seated {held:.2f} s after the link died (grace 4 s)")
        chip = north.query_selector(".seat[data-seat='2'] .away-chip")
        assert chip is not None and chip.inner_text().startswith("away (") and "computer plays" in chip.inner_text()
        north.screenshot(path=str(out / "away-desktop.png"), full_page=True)
        north.set_viewport_size({"width": 390, "height": 844})
        north.screenshot(path=str(out / "away-phone.png"), full_page=True)
        north.set_viewport_size({"width": 1280, "height": 900})
        # the house bot plays her turns: the table moves on while north plays his own
        seq = stack.table(tid).seq
        deadline = time.monotonic() + 60
        while not any("house" in h.flags and h.seat == 2 for h in stack.table(tid).history[seq:]):
            assert time.monotonic() < deadline, "the house bot never played south's seat"
            play_if_my_turn(north)
            north.wait_for_timeout(200)
        # she opens the page again: presence online gives the seat back
        south = stack.page(browser)
        login(south, stack.web.url, "south")
        open_table(south, tid)
        north.wait_for_function("() => !document.querySelector('.away-line')", timeout=15000)
        assert stack.table(tid).house == {}
        south.wait_for_function("() => !document.querySelector('.notice.house')")
        # ... and her next legal move, from her page, is accepted as hers
        deadline = time.monotonic() + 90
        while not play_if_my_turn(south):
            assert time.monotonic() < deadline, "south's turn never came"
            play_if_my_turn(north)
            south.wait_for_timeout(200)
        last = [h for h in stack.table(tid).history if h.seat == 2][-1]
        assert last.flags == () and last.user == "south"
        assert not north.errors and not south.errors, north.errors + south.errors
    finally:
        north.context.close()
        south.context.close()


@pytest.fixture
def durable(mosquitto_ws: Any, tmp_path: Any) -> Iterator[dict[str, Any]]:
    """A referee on a file store (restartable with the same store) and ``summon web``."""
    config = RefereeConfig(broker=mosquitto_ws.url("referee"), client_id="referee",
                           directors=frozenset({"director"}), db=str(tmp_path / "referee.db"), db_sync="normal")
    s: dict[str, Any] = {"broker": mosquitto_ws, "config": config, "bots": []}

    def start() -> None:
        ref = Referee(config, house_bots=HOUSE_BOTS)
        thread = start_referee(ref)
        s["ref"], s["thread"] = ref, thread

    def stop() -> None:
        s["ref"].request_stop()
        s["thread"].join(15)
        assert not s["thread"].is_alive()

    s["start"], s["stop"] = start, stop
    start()
    web = WebServer(WebConfig(broker=mosquitto_ws.ws_url()), port=0).start()
    s["web"] = web
    try:
        yield s
    finally:
        for bot in s["bots"]:
            bot.request_stop()
        web.stop()
        stop()


def test_turn_based_table_survives_a_restart_and_says_your_turn(durable, browser, out):
    broker = durable["broker"]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, permissions=["notifications"])
    context.add_init_script(CAPTURE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        login(page, durable["web"].url, "north")
        assert page.evaluate("() => Notification.permission") == "granted"
        page.wait_for_selector(".notify-on")
        page.evaluate(HIDE)  # the page is in the background from here on
        for i, user in enumerate(PLAYERS[1:]):
            bot = BotClient(make_bot("dragon-heuristic", 70 + i), broker.url(user), user)
            durable["bots"].append(bot)
            threading.Thread(target=bot.run, daemon=True).start()
        tid = create_table(broker.url("director"), "director", "dragon", PLAYERS, {"max_hands": 1}, seed=7,
                           clock=preset("turn-based"))
        page.wait_for_function("() => window.__notes.length >= 1", timeout=30000)
        [note] = page.evaluate("() => window.__notes")
        assert note["title"] == "Your turn — Summon" and note["hidden"] and tid in note["tag"]
        row = f".tables.your-turn li[data-table='{tid}']"
        page.wait_for_selector(row)
        assert page.title() == "(1) Your turn — Summon"
        seq = durable["ref"].call(lambda: durable["ref"].tables[tid].seq)
        assert durable["ref"].call(lambda: durable["ref"].tables[tid].clock.control.move_ms) == 86_400_000

        # the referee restarts in the middle of the game, on the same store
        seen_at = page.evaluate("(id) => window.summon.store.tables.get(id).seatAt", tid)
        durable["stop"]()
        page.wait_for_function("() => document.title === 'Summon'", timeout=15000)  # interrupted: nobody's turn
        durable["start"]()
        page.wait_for_function("([id, at]) => window.summon.store.tables.get(id).seatAt > at", arg=[tid, seen_at],
                               timeout=15000)  # the restored table's states reached the page
        page.wait_for_selector(row, timeout=15000)
        page.wait_for_function("() => document.title === '(1) Your turn — Summon'")
        restored = durable["ref"].call(lambda: durable["ref"].tables[tid])
        assert restored.seq == seq and restored.clock.control.move_ms == 86_400_000
        assert page.evaluate("() => window.__notes.length") == 1, "the same turn was notified again after the restart"

        page.evaluate(SHOW)
        page.screenshot(path=str(out / "lobby-your-turn-desktop.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=str(out / "lobby-your-turn-phone.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
        open_table(page, tid)
        page.wait_for_function(MY_TURN)
        page.evaluate(HIDE)
        page.evaluate(SHOW)  # a turn already seen: never notified, hidden or not
        page.evaluate(HIDE)
        assert page.evaluate("() => window.__notes.length") == 1, "a turn already seen was notified"
        assert play_if_my_turn(page)
        page.wait_for_function("() => window.__notes.length >= 2", timeout=30000)
        notes = page.evaluate("() => window.__notes")
        assert len(notes) == 2 and notes[1]["hidden"]
        mine = durable["ref"].call(lambda: durable["ref"].tables[tid].seq)
        assert mine > seq + 1
        assert not errors, errors
    finally:
        context.close()
