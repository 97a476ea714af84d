"""Retained messages the page cannot read (a tournament whose `pairings` is not a list, a
meta whose `players` is a string...) are ignored and logged, one gate per message type
(js/valid.js): the lobby and the table still show every good message and no error.

The messages are published retained on the test's Mosquitto with the referee's account
(its ACL may write the whole tree), as a broker without our ACL would let anyone.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterator

import msgpack
import pytest

from summon.clients.web.server import WebConfig, WebServer
from tests.helpers import Probe
from tests.web.pages import login

pytestmark = pytest.mark.broker
P = "summon/v1"


def meta(table: str, **over: Any) -> dict[str, Any]:
    return {"v": 1, "type": "meta", "table": table, "game": "dragon", "players": ["p1", "p2", "p3", "p4"],
            "config": {}, "status": "playing", "result": None, "clock": None, **over}


def tour(tid: str, **over: Any) -> dict[str, Any]:
    return {"v": 1, "type": "tournament", "tournament": tid, "name": f"Cup {tid}", "game": "dragon",
            "format": "round-robin", "status": "running", "round": 1, "rounds": 3,
            "standings": [{"rank": 1, "entrant": "NS", "points": 1, "played": 1, "wins": 1, "draws": 0,
                           "losses": 0, "net": 5, "withdrawn": False}],
            "pairings": [{"key": "r1", "table": "tgood", "sides": ["NS", "EW"], "status": "playing", "scores": None}],
            **over}


def state(table: str, **over: Any) -> dict[str, Any]:
    return {"v": 1, "type": "public_state", "table": table, "game": "dragon", "seq": 3, "status": "playing",
            "to_move": [1], "view": {}, "events": [], "clock": None, **over}


GOOD = {
    f"{P}/t/tgood/public/meta": meta("tgood"),
    f"{P}/t/tdone/public/meta": meta("tdone", status="finished",
                                     result={"scores": [7, 3, 7, 3], "winners": [0, 2], "reason": "target"}),
    f"{P}/tour/director/good": tour("good"),
}
BAD = {  # one per way a lobby or table screen used to trip, for every retained kind it renders
    f"{P}/tour/director/bad1": tour("bad1", pairings="not a list"),  # the hostile test's message
    f"{P}/tour/director/bad2": tour("bad2", standings=[{"entrant": {"x": 1}}]),
    f"{P}/tour/director/bad3": tour("bad3", pairings=[{"table": "tgood", "sides": "NS"}]),
    f"{P}/tour/director/bad4": tour("bad4", status=None),
    f"{P}/t/tbad1/public/meta": meta("tbad1", players="p1"),
    f"{P}/t/tbad2/public/meta": meta("tbad2", status="finished", result={"scores": "7-3"}),
    f"{P}/t/tbad3/public/meta": {**meta("tbad3"), "game": None},
    f"{P}/t/tbad4/public/meta": meta("tbad4", house="0"),
    f"{P}/referee/status": {"v": 1, "type": "referee_status", "status": ["online"], "tables": "many"},
    f"{P}/t/tgood/public/state": state("tgood", seq="3", to_move="1"),
    f"{P}/t/tgood/seat/mallory/state": state("tgood", type="seat_state", seat="0", legal="pass"),
}


@pytest.fixture
def web(mosquitto_ws: Any) -> Iterator[WebServer]:
    server = WebServer(WebConfig(broker=mosquitto_ws.ws_url()), port=0).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def publisher(mosquitto_ws: Any) -> Iterator[Probe]:
    probe = Probe(mosquitto_ws.url("referee"), "referee", ())
    try:
        yield probe
    finally:
        probe.close()


def _page(browser: Any) -> tuple[Any, list[str], list[str]]:
    page = browser.new_context().new_page()
    errors: list[str] = []
    warnings: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: (errors if m.type == "error" else warnings if m.type == "warning" else []).append(m.text))
    return page, errors, warnings


def _arrived(page: Any, topics: list[str]) -> None:
    """Wait until every one of ``topics`` reached the page (the thing itself, not a delay),
    then for the render after it."""
    page.wait_for_function("(ts) => !!window.summon && ts.every((t) => window.summon.link.topicsSeen.has(t))",
                           arg=topics, timeout=15000)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def test_the_lobby_ignores_and_logs_what_it_cannot_read(mosquitto_ws, web, publisher, browser):
    for topic, message in {**BAD, **GOOD}.items():
        publisher.publish(topic, msgpack.packb(message), retain=True)
    page, errors, warnings = _page(browser)
    try:
        login(page, web.url, "mallory")
        public_state = f"{P}/t/tgood/public/state"  # subscribed to once the table is open
        _arrived(page, [t for t in (*BAD, *GOOD) if t != public_state])
        assert not errors, errors
        page.wait_for_selector("ul.tables.live [data-table='tgood']")
        assert "p1 & p3 7, p2 & p4 3" in page.inner_text("ul.tables.done [data-table='tdone']")  # each team once
        card = page.inner_text("[data-tournament='good']")
        assert "Cup good" in card and "NS vs EW" in card
        for bad in ("tbad1", "tbad2", "tbad3", "tbad4"):
            assert page.query_selector(f"[data-table='{bad}']") is None, bad
        for bad in ("bad1", "bad2", "bad3", "bad4"):
            assert page.query_selector(f"[data-tournament='{bad}']") is None, bad
        assert "Reaching the game server" in page.inner_text(".referee")
        ignored = [w for w in warnings if "cannot read" in w]
        assert len(ignored) == len(BAD) - 1, "\n".join(warnings)
        assert "tour/director/bad1" in " ".join(ignored) and "(pairings)" in " ".join(ignored)
        assert page.evaluate("() => window.summon.store.ignored.length") == len(BAD) - 1

        # The good message after a bad one is shown; a bad one after a good one leaves it.
        publisher.publish(f"{P}/referee/status", msgpack.packb({"v": 1, "type": "referee_status", "status": "online",
                                                                 "tables": 1}), retain=True)
        page.wait_for_function("() => /game server is on/.test(document.querySelector('.referee').textContent)")
        publisher.publish(f"{P}/referee/status", msgpack.packb({"v": 1, "type": "referee_status", "status": 1}))
        page.wait_for_function("(n) => window.summon.store.ignored.length > n", arg=len(BAD) - 1)
        _arrived(page, [])
        assert "The game server is on" in page.inner_text(".referee")
        assert not errors, errors

        # The table: its malformed public and seat states are refused, the page waits in words.
        page.click("a[data-table='tgood']")
        _arrived(page, [public_state])
        assert "Waiting for the table's state" in page.inner_text("main")
        # A well-formed state whose game view the Dragon screen cannot read: the generic screen.
        publisher.publish(public_state,
                          msgpack.packb(state("tgood", seq=4, view={"hand": 5, "trick": "x", "hand_sizes": 1,
                                                                    "phase": ["play"], "scores": "0"})), retain=True)
        page.wait_for_selector(".status-line[data-seq='4']")
        assert page.query_selector(".game") is not None
        assert any("could not show" in w for w in warnings), warnings
        assert not errors, errors
    finally:
        page.context.close()
