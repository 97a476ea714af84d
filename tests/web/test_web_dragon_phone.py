"""The Dragon on a phone: while bidding, the whole hand and the bidding control are on the
first screen (no scrolling), and a table re-opened after a hand ended arrives on the table,
not on that old hand's result (the score sheet keeps past hands)."""

from __future__ import annotations

import time
import pytest

from tests.web.pages import login, open_table, shoot

pytestmark = pytest.mark.broker
BOTS = {"east": "dragon-heuristic", "south": "dragon-heuristic", "west": "dragon-heuristic"}
PHONES = {"360": (360, 640), "390": (390, 844)}

# Every card of my hand and the first bid button, as bounding boxes, measured in one turn
# of the page's script (a bot's move re-renders the table).
BOXES = """() => { const cards = [...document.querySelectorAll('.my-hand .hand .card')];
  const bid = document.querySelector('.bid-picker .designations button:not([disabled])');
  if (!cards.length || !bid) return null;
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return { cards: cards.map(box), bid: box(bid), w: window.innerWidth, h: window.innerHeight }; }"""


def inside(box: list[float], w: int, h: int) -> bool:
    left, top, right, bottom = box
    return left >= 0 and top >= 0 and right <= w and bottom <= h


@pytest.mark.parametrize("size", sorted(PHONES))
def test_the_whole_hand_and_the_bid_are_on_the_first_screen(stack, browser, out, size):
    w, h = PHONES[size]
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    page = stack.page(browser, width=w, height=h)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        got = page.wait_for_function(BOXES, timeout=30000).json_value()
        assert len(got["cards"]) == 12, got
        assert page.evaluate("() => window.scrollY") == 0
        outside = [b for b in got["cards"] if not inside(b, w, h)]
        assert not outside, f"at {w}x{h}, {len(outside)} of 12 cards are off the first screen: {outside}"
        assert inside(got["bid"], w, h), f"at {w}x{h} the bid button is off the first screen: {got['bid']}"
        shoot(page, "dragon-bidding-phone", out, widths={size: (w, h)})
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_a_reopened_table_shows_no_old_hand_result(stack, browser):
    """When the first hand has ended (the referee dealt the second), a page that opens the
    table shows the table and no .hand-end box (the old page showed hand 1's result on
    top); the sheet lists the first hand, and the second hand's end, seen live, is shown."""
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 10},
                         {"north": "dragon-heuristic", **BOTS}, seed=5, pace=0.05)
    t = stack.table(table)
    deadline = time.monotonic() + 60
    while stack.referee.call(lambda: t.state.last_hand) is None:
        assert time.monotonic() < deadline, "the first hand did not end"
        time.sleep(0.05)
    page = stack.page(browser, width=360, height=640)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.wait_for_selector(".felt")
        page.wait_for_selector(".score-sheet tr[data-hand='1'], .sheet tr[data-hand='1']", state="attached")
        assert page.locator(".hand-end").count() == 0, page.inner_text(".hand-end")
        # a hand that ends while the page watches still gets its pause panel
        page.wait_for_selector(".hand-end[data-hand='2']", timeout=60000)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
