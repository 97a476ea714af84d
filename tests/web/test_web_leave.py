"""The host lets the computer play for an idle person, then leaves the table itself, through the
page; the tab's title says whose turn it is (issue 41 F2, referee/seatchange.py).

Before: the page had no such buttons (there were no such requests), and the title said only
"(n) Your turn — Summon" or "Summon", never who the table waits for.
"""

from __future__ import annotations

import pytest

from tests.web.pages import login, open_table, shoot

pytestmark = pytest.mark.broker


def test_the_host_hands_an_idle_seat_to_the_computer_then_leaves(stack, browser, out):
    ref = stack.referee
    # north's own table: east is a person who never comes (seat 1 bids first), two computers
    table = ref.call(lambda: ref.create_table("dragon", ["north", "east", "computer-3", "computer-4"],
                                              {"max_hands": 1}, clock={"grace": 600},
                                              computer={2: "random", 3: "random"}, creator="north")).id
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.wait_for_function("() => document.title === \"east's turn — Summon\"")
        assert not page.query_selector("button[data-key='hand-over']")  # east's turn is younger than 180 s
        # three minutes pass (the referee's turn start, and the page's, moved back instead of waiting)
        ref.call(lambda: ref.tables[table].turn_since.__setitem__(1, ref.tables[table].turn_since[1] - 200))
        page.evaluate("""(id) => { window.summon.store.tables.get(id).seatAt -= 200000;
                                   window.dispatchEvent(new HashChangeEvent("hashchange")); }""", table)
        button = "button[data-key='hand-over'][data-seat='1']"
        page.wait_for_selector(button)
        assert page.inner_text(button) == "Let the computer play for east"
        shoot(page, "hand-over", out)
        page.click(button)
        page.wait_for_selector(".feed .ev-house", timeout=15000)
        assert ref.call(lambda: ref.tables[table].house.get(1)) == "idle"
        page.wait_for_function("() => document.title === 'Your turn — Summon'", timeout=30000)
        page.click("button[data-key='leave']")
        assert page.inner_text(".leave-confirm p") == "Leave this game? The computer will play your cards."
        shoot(page, "leave", out)
        page.click("button[data-key='leave-yes']")
        page.wait_for_function("() => !!document.querySelector('.notice.left') || "
                               "document.querySelector('.status-line').dataset.status !== 'playing'", timeout=15000)
        assert ref.call(lambda: ref.tables[table].house.get(0)) == "left"
        assert page.query_selector("button[data-key='leave']") is None
        page.wait_for_function("() => document.title !== 'Your turn — Summon'", timeout=15000)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_a_person_leaves_a_waiting_table_from_its_waiting_room(stack, browser):
    """Before: a person who took an open seat of a waiting table could not give it back."""
    import uuid

    from summon.protocol.messages import CreateTable, Created, encode
    from summon.protocol.topics import Topics
    from tests.helpers import Probe

    t = Topics()
    south = Probe(stack.broker.url("south"), "south", (t.reply("south"),))
    try:
        rid = uuid.uuid4().hex[:8]
        south.publish(t.request("south"), encode(CreateTable(request_id=rid, game="dragon", players=["south", "", "", ""],
                                                             waiting={"1": "open", "2": "open"}, computer={"3": "easy"})))
        made = south.wait_for(lambda i, m: isinstance(m, Created) and m.request_id == rid, 15)
        assert isinstance(made, Created)
    finally:
        south.close()
    ref = stack.referee
    page = stack.page(browser, 360, 740)
    try:
        login(page, stack.web.url, "north")
        page.evaluate("(id) => { location.hash = '#/table/' + encodeURIComponent(id); }", made.table)
        page.click("button[data-key='sit-1']")
        page.wait_for_selector("button[data-key='gather-leave']", timeout=15000)
        assert ref.call(lambda: ref.gatherings.held[made.table].open_seats()) == [2]
        assert not page.query_selector("button[data-key='sit-2']")  # seated: no second seat offered
        page.click("button[data-key='gather-leave']")
        page.wait_for_selector("button[data-key='sit-1']", timeout=15000)
        assert ref.call(lambda: ref.gatherings.held[made.table].open_seats()) == [1, 2]
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
