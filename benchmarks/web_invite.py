"""From an invite link to the table (issue 23's figures): how long a person waits, and how
many clicks it takes from "New table" to the first card played.

Real Mosquitto in dynsec mode (+ edge), the real referee with the dynsec admin and its house
bots, the real ``summon web`` gateway (tests/web/test_web_family.py's ``Family``), headless
Chromium, loopback.

1. *Opening an invite link -> first rendered seat state*, 10 times, each in a fresh browser
   context (nothing cached, no kept credential): a director's Dragon table with one invite
   seat and three computers, so the guest's seat is the last one and the table starts when
   the guest joins.  Measured in the page from navigation start (``performance.timeOrigin``)
   to the frame after the guest's own ``seat_state`` was drawn (``__marks.firstSeat``): the
   page's load, "Your name" (typed and sent by the script, a few ms), ``POST /api/guest`` (the
   gateway -> the referee -> a dynsec account), the MQTT connect as that guest, the table's
   start and its first seat state.
2. *Reopening the same link* (kept credential, same context, a new tab): navigation start ->
   the seat state drawn again; no name asked.
3. *Clicks*: grandma (logged in, on the lobby) makes a Dragon table with one invite seat and
   two computers; the guest opens the link and joins; both play through the page (passing
   at the bidding, like tests/web/test_web_family.py) until the first card is played at the
   table (by anyone).  Each click/tap/choice on a page counts one; typing a name is not a click.

    PYTHONPATH=$PWD python3 benchmarks/web_invite.py [--runs 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summon.clients.web.gateway import SourceLimits  # noqa: E402
from tests.web.conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402
from tests.web.test_web_family import PLAY_PREFS, Family, table_of  # noqa: E402
from tests.web.test_web_invite import gather  # noqa: E402


def seat_drawn(page: Any) -> dict[str, float]:
    page.wait_for_function("() => window.__marks && window.__marks.firstSeat !== null", timeout=30000)
    return page.evaluate("() => window.__marks")


def api_ms(page: Any) -> float:
    return page.evaluate("() => { const r = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/guest'));"
                         " return r ? r.responseEnd - r.startTime : -1; }")


def timings(fam: Family, browser: Any, runs: int) -> tuple[list[float], list[float], list[float], list[float]]:
    first, api, ready, again = [], [], [], []
    for i in range(runs + 1):  # the first run warms Chromium and the referee up; not counted
        _, codes = gather(fam, {"0": "invite"}, {"1": "easy", "2": "easy", "3": "easy"})
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(f"{fam.web.url}#/join/{codes['0']}")
        page.fill("form.join input[name=name]", f"Guest {i}")
        page.click("button[data-key='join-go']")
        m = seat_drawn(page)
        if i:
            first.append(m["firstSeat"])
            ready.append(m["ready"])
            api.append(api_ms(page))
        page.close()
        page = context.new_page()  # the same link again: the kept credential, no name asked
        page.goto(f"{fam.web.url}#/join/{codes['0']}")
        m = seat_drawn(page)
        assert not page.query_selector("form.join")
        if i:
            again.append(m["firstSeat"])
        context.close()
    return first, api, ready, again


class Clicks:
    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []

    def click(self, who: str, page: Any, selector: str, what: str) -> None:
        page.click(selector)
        self.log.append((who, what))

    def choose(self, who: str, page: Any, selector: str, value: str, what: str) -> None:
        page.select_option(selector, value)
        self.log.append((who, what))

    def count(self, who: str) -> int:
        return sum(1 for w, _ in self.log if w == who)


def play_once(page: Any) -> str | None:
    """tests/web/test_web_family.py's move_once, without waiting for the table to move on."""
    if not page.query_selector(".turn.mine"):
        return None
    moves = page.eval_on_selector_all("button[data-move]:not([disabled])", "els => els.map(e => e.dataset.move)")
    for pref in PLAY_PREFS:
        pick = next((m for m in moves if m.startswith(pref)), None)
        if pick:
            seq = page.get_attribute(".status-line", "data-seq")
            page.click(f"button[data-move='{pick}']")
            page.wait_for_function("(s) => { const e = document.querySelector('.status-line'); return !e || e.dataset.seq !== s; }",
                                   arg=seq, timeout=30000)
            return pick
    return None


def clicks(fam: Family, browser: Any) -> Clicks:
    c = Clicks()
    g = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    g.goto(fam.web.url)
    g.fill("input[name=username]", "grandma")
    g.fill("input[name=password]", "grandma-pw")
    g.click("button[data-key='f-login']")
    g.wait_for_selector("text=Logged in as grandma", timeout=20000)
    # -- from "New table" on, every click counts --
    c.click("creator", g, "a[data-key='link:new']", "New table")
    g.wait_for_selector("form.new-table")
    assert g.input_value("select[data-key='nt-seat-2']").startswith("computer:")
    assert g.input_value("select[data-key='nt-seat-3']").startswith("computer:")
    c.choose("creator", g, "select[data-key='nt-seat-1']", "invite", "player 2: Invite someone")
    c.click("creator", g, "button[data-key='nt-start']", "Start")
    g.wait_for_selector("input.invite-url[data-invite='1']", timeout=15000)
    g.context.grant_permissions(["clipboard-read", "clipboard-write"])
    c.click("creator", g, "button[data-key='copy-1']", "Copy link")
    url = g.input_value("input.invite-url[data-invite='1']")
    table = table_of(g)
    guest = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    guest.goto(url)  # a tap on the link in a message: outside the page, not counted
    guest.fill("form.join input[name=name]", "Mom")
    c.click("guest", guest, "button[data-key='join-go']", "Join the table")
    for p in (g, guest):
        p.wait_for_selector(".status-line[data-status='playing']", timeout=20000)
    deadline = time.monotonic() + 120

    def played() -> bool:
        return any(e.move.startswith("play ") for e in fam.table(table).history)

    while not played() and time.monotonic() < deadline:
        for who, p in (("creator", g), ("guest", guest)):
            if played():
                break
            pick = play_once(p)
            if pick:
                c.log.append((who, pick))
        time.sleep(0.05)
    assert played(), "no card was played"
    first = next(e for e in fam.table(table).history if e.move.startswith("play "))
    who = {0: "grandma", 1: "the guest"}.get(first.seat, f"a computer (seat {first.seat + 1})")
    c.log.append(("note", f"first card: {first.move} by {who}"))
    g.context.close()
    guest.context.close()
    return c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        fam = Family(Path(tmp) / "broker", accounts={"boss": "director", "grandma": "player"},
                     limits=SourceLimits(per_source=(1e6, 1e6), overall=(1e6, 1e6)),
                     guests_per_client_min=0, guests_per_min=0, live_guests=0)  # every guest comes from 127.0.0.1
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                first, api, ready, again = timings(fam, browser, args.runs)
                c = clicks(fam, browser)
                browser.close()
        finally:
            fam.stop()

    def row(xs: list[float]) -> str:
        return f"p50 {statistics.median(xs):.0f} ms, max {max(xs):.0f} ms"

    print(f"{args.runs} invite links on loopback, each in a fresh browser context (real dynsec broker, referee, gateway):")
    print(f"  opening the invite link -> first rendered seat state: {row(first)}")
    print(f"     of which the page ready (scripts, config, 'Your name' drawn): {row(ready)}")
    print(f"     of which POST /api/guest (gateway -> referee -> dynsec account): {row(api)}")
    print(f"  reopening the same link (kept credential, new tab) -> seat state: {row(again)}")
    print("clicks from 'New table' to the first card played (one invite seat, two computers):")
    print(f"  creator {c.count('creator')} + guest {c.count('guest')} = {c.count('creator') + c.count('guest')}")
    for who, what in c.log:
        print(f"    {who}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
