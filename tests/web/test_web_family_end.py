"""A family night that ends as well as it starts (issue 42), in the shape of the family-night
test (tests/web/test_web_family.py: real Mosquitto with dynamic security, the real referee
and ``summon web``, one Chromium context a person) -- the second half of the evening, which
that test (already ~60 s) does not lengthen:

- Grandma logs in (her device kept: "Keep me signed in", the default), makes a Dragon table
  of two hands with two invite links and a computer; the invite page tells Mom and Sam
  "grandma invited you to play Summon the Dragon".  The clicks from "New table" to her
  first card are counted and printed.
- Grandma opens the table in a second tab: seated at once, no password (her device login).
- Sam leaves his tab open and does not move: past the grace the host's page offers "Let the
  computer play for Sam", one click, and the computer plays his cards; Sam takes his seat
  back with one click.
- After the two hands the score sheet has two rows, with names; My games and the replay
  name everyone (Mom, Sam, "Computer 4 (easy)"), never a guest's ``g-...`` account or
  ``computer-4``.
- axe-core runs on each screen of the evening (0 serious or critical, and one h1 each); its
  table is printed with -s, with the page weight of a cold load of the lobby and a table.

Every wait waits for the thing itself (a selector, the referee's state), never a sleep.
"""

from __future__ import annotations

import dataclasses
import re
import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from summon.referee.dynsec import find_plugin
from tests.web.test_web_axe import AXE, axe, report
from tests.web.test_web_family import Family, Person, look, move_once, table_of, wait_until

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]


class Guest(Person):
    """A ``Person`` whose context lets the test inject axe-core (the page's CSP refuses an
    injected script, as it should): otherwise the same."""

    def __init__(self, browser: Any, urls: list[str], width: int = 1280) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
        self.urls = urls
        self.errors: list[str] = []
        self.clicks = 0
        self.context.on("request", lambda r: self.urls.append(r.url))
        self.page = self.new_page()

    def act(self, how: str, selector: str, *value: str) -> None:
        """One thing the person does on the page (a click, a choice, a number typed): counted."""
        self.clicks += 1
        getattr(self.page, how)(selector, *value)


def cold_load_kb(browser: Any, url: str, ready: str) -> tuple[float, float, int]:
    """A cold load (a fresh context, nothing cached) of ``url`` until ``ready`` shows: KB on
    the wire of every response's (compressed) bodies, the same with their headers, as
    Chromium counted them; and the number of requests."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        done: list[Any] = []
        page.on("requestfinished", lambda r: done.append(r))
        page.goto(url)
        page.wait_for_selector(ready, timeout=20000)
        page.wait_for_load_state("networkidle")
        bodies = heads = 0
        for r in done:
            sizes = r.sizes()
            bodies += max(0, sizes["responseBodySize"])
            heads += max(0, sizes["responseHeadersSize"])
        return bodies / 1024, (bodies + heads) / 1024, len(done)
    finally:
        ctx.close()


@pytest.fixture
def family(tmp_path):
    f = Family(tmp_path / "broker", accounts={"grandma": "player"})
    try:
        yield f
    finally:
        f.stop()


def seat_of(page: Any) -> Any:
    return page.evaluate("""() => { const id = decodeURIComponent(location.hash.split('/')[2]);
        const t = window.summon && window.summon.store.tables.get(id); return t && t.seat ? t.seat.seat : null; }""")


def test_a_family_night_ends_as_well_as_it_starts(family, browser, out):
    if not AXE.exists():
        pytest.skip("axe-core is not installed: cd tests/web/axe && npm ci")
    started = time.monotonic()
    found: dict[str, list[dict[str, Any]]] = {}
    urls: list[str] = []
    grandma, mom, sam = (Guest(browser, urls) for _ in range(3))
    g = grandma.page

    # -- grandma logs in; her device is kept ---------------------------------------------------
    g.goto(family.web.url)
    g.wait_for_selector("form.login")
    axe(g, "login", found, AXE)
    g.fill("input[name=username]", "grandma")
    g.fill("input[name=password]", "grandma-pw")
    g.click("button[data-key='f-login']")
    g.wait_for_selector(".conn-online")  # the log-in itself (30 s, as pages.login: loaded CI runs missed 15-20)
    g.wait_for_selector("text=Logged in as grandma", timeout=15000)
    g.wait_for_function("() => !!localStorage.getItem('summon.device')", timeout=15000)
    axe(g, "lobby", found, AXE)

    # -- New table: two invites, a computer, two hands; the clock left as it comes -------------
    grandma.act("click", "a[data-key='link:new']")
    g.wait_for_selector("form.new-table")
    grandma.act("fill", "input[name=max_hands]", "2")
    g.dispatch_event("input[name=max_hands]", "change")
    grandma.act("select_option", "select[data-key='nt-seat-1']", "invite")
    grandma.act("select_option", "select[data-key='nt-seat-2']", "invite")
    assert g.input_value("select[data-key='nt-clock']") == "relaxed"   # the default with other people
    # the test's: no move limit, so the host's grace (180 s) applies; the page's "casual" has a
    # minute a move, and past it the referee's own clock plays for Sam: a race with the click
    g.select_option("select[data-key='nt-clock']", "none")
    axe(g, "new table", found, AXE)
    grandma.act("click", "button[data-key='nt-start']")
    g.wait_for_selector("input.invite-url[data-invite='2']", timeout=15000)
    table = table_of(g)
    links = {s: g.input_value(f"input.invite-url[data-invite='{s}']") for s in (1, 2)}
    axe(g, "waiting room", found, AXE)

    # -- the invite page says who and what; a name each, and the table starts -------------------
    m = mom.page
    m.goto(links[1])
    m.wait_for_selector("h1:has-text('grandma invited you to play Summon the Dragon')", timeout=15000)
    axe(m, "invite page", found, AXE)
    m.fill("form.join input[name=name]", "Mom")
    m.click("button[data-key='join-go']")
    s = sam.page
    s.goto(links[2])
    s.wait_for_selector("h1:has-text('grandma invited you')", timeout=15000)
    s.fill("form.join input[name=name]", "Sam")
    s.click("button[data-key='join-go']")
    for p in (g, m, s):
        p.wait_for_selector(".status-line[data-status='playing']", timeout=20000)
    g.wait_for_selector(".hand .card", timeout=15000)
    first_card_clicks = grandma.clicks
    players = list(family.table(table).players)
    guests = [u for u in players if u.startswith("g-")]
    assert len(guests) == 2, players

    # -- grandma's second tab: seated at once, no password -------------------------------------
    again = grandma.context.new_page()
    again.goto(f"{family.web.url}#/table/{table}")
    again.wait_for_function("""() => { const id = decodeURIComponent(location.hash.split('/')[2]);
        const t = window.summon && window.summon.store.tables.get(id); return !!(t && t.seat); }""", timeout=15000)
    assert seat_of(again) == 0 and not again.query_selector("form.login"), "grandma's new tab is not grandma"
    assert again.evaluate("() => window.summon.link.opts.username").startswith("grandma~")
    again.close()

    # -- the hand goes round until it is Sam's turn; Sam does not move ---------------------------
    ref = family.referee
    sam_seat = 2

    def sams_turn() -> bool:
        return ref.call(lambda: sam_seat in ref.tables[table].game.to_move(ref.tables[table].state))

    deadline = time.monotonic() + 90
    while not sams_turn():
        assert time.monotonic() < deadline, "Sam's turn never came"
        if move_once(g) is None and move_once(m) is None:
            wait_until(lambda: bool(g.query_selector(".turn.mine") or m.query_selector(".turn.mine")) or sams_turn(),
                       20, "someone's turn")
    assert not g.query_selector("button[data-key='hand-over']"), "offered before the grace"

    def three_minutes_pass() -> None:   # the turn's start moved back past the grace, instead of waiting
        t = ref.tables[table]
        if t.clock is not None:   # a frozen record: a new one, Sam's turn begun 200 s earlier
            t.clock = dataclasses.replace(t.clock, started=tuple(
                x - 200 if i == sam_seat and x is not None else x for i, x in enumerate(t.clock.started)))
        else:
            t.turn_since[sam_seat] -= 200

    ref.call(three_minutes_pass)
    # the host's page times the grace from its latest seat state (table.js handOver: seatAt),
    # so it must hold the state of Sam's turn before that time is moved back: a state still on
    # its way would set seatAt to now again (a CI run of 7260d8c: no offer in 10 s)
    seq = ref.call(lambda: ref.tables[table].seq)
    g.wait_for_function("""([id, seq]) => { const t = window.summon.store.tables.get(id);
                            return !!(t && t.seat && t.seat.seq >= seq); }""", arg=[table, seq], timeout=15000)
    button = f"button[data-key='hand-over'][data-seat='{sam_seat}']"

    def offered() -> bool:   # the page's grace moved back past 180 s, drawn again: is the offer there?
        g.evaluate("""(id) => { window.summon.store.tables.get(id).seatAt -= 200000;
                                window.dispatchEvent(new HashChangeEvent("hashchange")); }""", table)
        return g.wait_for_selector(button, timeout=2000, state="visible") is not None
    wait_until(lambda: _ok(offered), 15, "the host's offer to hand Sam's seat to the computer")
    assert g.inner_text(button) == "Let the computer play for Sam"
    g.click(button)
    wait_until(lambda: ref.call(lambda: ref.tables[table].house.get(sam_seat)) == "idle", 15, "the computer to take Sam's seat")
    wait_until(lambda: not sams_turn(), 15, "the computer to play Sam's card")
    axe(g, "table", found, AXE)
    # -- Sam is back: one click --------------------------------------------------------------------
    s.wait_for_selector("button[data-key='reclaim']", timeout=15000)
    s.click("button[data-key='reclaim']")
    wait_until(lambda: ref.call(lambda: sam_seat not in ref.tables[table].house), 15, "Sam's seat to come back")

    # -- the rest of the two hands, through the pages ---------------------------------------------
    deadline = time.monotonic() + 240
    while family.table(table).status == "playing":
        assert time.monotonic() < deadline, "the game did not end"
        moved = [move_once(p) for p in (g, m, s)]
        if not any(moved) and family.table(table).status == "playing":
            wait_until(lambda: family.table(table).status != "playing"
                       or any(p.query_selector(".turn.mine") for p in (g, m, s)), 20, "someone's turn")
    g.wait_for_selector(".status-line[data-status='finished']", timeout=15000)
    g.wait_for_selector(".score-sheet table.sheet tbody tr", timeout=15000)
    rows = g.eval_on_selector_all(".score-sheet tbody tr", "rs => rs.map(r => r.textContent)")
    assert len(rows) == 2, rows
    sheet = g.inner_text(".score-sheet")
    assert not re.search(r"g-[0-9a-f]{6}|computer-\d", sheet), sheet
    if not g.evaluate("document.querySelector('.score-sheet').open"):
        g.click(".score-sheet summary")
    axe(g, "score sheet", found, AXE)
    g.eval_on_selector(".score-sheet", "e => e.scrollIntoView()")
    look(g, "family-score-sheet", out)

    # -- My games and the replay name everyone -------------------------------------------------
    g.goto(f"{family.web.url}#/games")
    row = f"li.my-game[data-table='{table}']"
    g.wait_for_selector(row, timeout=15000)
    words = g.inner_text(row)
    assert "Mom" in words and "Sam" in words and re.search(r"Computer 4 \(\w+\)", words), words
    assert not re.search(r"g-[0-9a-f]{6}|computer-\d|seat \d", g.inner_text("main")), g.inner_text("main")
    axe(g, "my games", found, AXE)
    look(g, "family-my-games", out)
    g.set_viewport_size({"width": 1280, "height": 900})
    g.click(f"button[data-key='watch:{table}']")
    g.wait_for_selector(".replay-controls", timeout=15000)
    g.click("button[data-key='replay-last']")
    g.wait_for_selector(".replay-table .final-result", timeout=15000)
    seen = g.inner_text("main")
    assert "Mom" in seen and "Sam" in seen and "Computer 4" in seen, seen
    assert not any(u in seen for u in guests) and not re.search(r"computer-\d|seat \d", seen), seen
    axe(g, "replay", found, AXE)

    # -- figures: the clicks, the page weight, axe per screen -----------------------------------
    weights = {"the lobby": cold_load_kb(browser, family.web.url, "form.login"),
               "a table": cold_load_kb(browser, f"{family.web.url}#/table/{table}", ".status-line")}
    bad = report(found)
    print(f"clicks from New table to grandma's first card: {first_card_clicks} (New table, 2 hands, invite, "
          f"invite, Start; {first_card_clicks - 1} with the default length of a game)")
    for what, (body, total, n) in weights.items():
        print(f"cold load of {what}: {n} requests, {body:.0f} KB of (gzipped) bodies, {total:.0f} KB with headers")
    print(f"family night, second half: {time.monotonic() - started:.1f} s")
    assert not bad, "\n".join(bad)
    for person in (grandma, mom, sam):
        assert not [e for e in person.errors if "WebSocket" not in e], person.errors
        person.context.close()


def _ok(check: Any) -> bool:
    """``check()``, a Playwright timeout read as False (the caller tries again)."""
    try:
        return bool(check())
    except PlaywrightTimeout:
        return False
