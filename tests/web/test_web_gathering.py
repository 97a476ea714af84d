"""The waiting room and "Open tables to join", in a real Chromium over a real Mosquitto,
with the referee's side played by the test (retained `gathering` / `referee_status`, the
answers to `sit` and `invites`, as GUESTS.md says; tests/web/test_web_family.py runs the
real referee):

- the lobby lists a gathering with an open seat; "Sit here" sends `sit` on my own request
  topic, and `seated` opens the table's waiting room;
- the creator's waiting room asks `invites` once, then shows one link per invite seat,
  `<page>#/join/<code>`, with "Copy link"; nobody presses start;
- names typed by people (`<b>Mom</b>`) are text; no table id or seat number in the main view.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from summon.clients.web.server import WebConfig, WebServer
from summon.protocol.codec import pack, unpack
from tests.secbroker import Raw
from tests.mosquitto import password
from tests.web.pages import login
from tests.web.test_web_screens import shoot

pytestmark = pytest.mark.broker
P = "summon/v1"


def msg(type_: str, **fields: Any) -> bytes:
    return pack({"v": 1, "type": type_, **fields})


def gathering(table: str, creator: str, seats: list[dict[str, Any]]) -> bytes:
    return msg("gathering", table=table, game="dragon", title="Summon the Dragon", creator=creator, state="waiting",
               seats=seats, expires=time.time() + 86400)


def request_of(referee: Raw, user: str, type_: str) -> dict[str, Any]:
    m = referee.wait_message(lambda m: m.topic == f"{P}/ctl/{user}/request" and unpack(m.payload).get("type") == type_)
    return unpack(m.payload)


def test_open_tables_sit_here_and_the_creators_invite_links(mosquitto_ws, browser, out):
    referee = Raw(mosquitto_ws.port, "referee", "referee", password("referee"))
    assert referee.connect() == "Success"
    referee.subscribe(f"{P}/ctl/+/request")
    web = WebServer(WebConfig(broker=mosquitto_ws.ws_url(), guests=True), port=0).start()
    try:
        seats = [{"seat": 0, "kind": "person", "name": "grandma", "level": None},
                 {"seat": 1, "kind": "invite", "name": "<b>Mom</b>", "level": None},
                 {"seat": 2, "kind": "open", "name": None, "level": None},
                 {"seat": 3, "kind": "computer", "name": None, "level": "normal"}]
        referee.publish(f"{P}/t/gx1/public/gathering", gathering("gx1", "grandma", seats), retain=True)
        mine = [{"seat": 0, "kind": "person", "name": "north", "level": None},
                {"seat": 1, "kind": "invite", "name": None, "level": None},
                {"seat": 2, "kind": "invite", "name": None, "level": None},
                {"seat": 3, "kind": "computer", "name": None, "level": "normal"}]
        referee.publish(f"{P}/t/gx2/public/gathering", gathering("gx2", "north", mine), retain=True)
        referee.publish(f"{P}/referee/status", msg("referee_status", status="online", tables=0, gatherings=[
            {"table": "gx1", "game": "dragon", "title": "Summon the Dragon", "creator": "grandma", "open": [2],
             "waiting": 0, "seated": ["grandma", "<b>Mom</b>"], "expires": time.time() + 86400},
            {"table": "gx2", "game": "dragon", "title": "Summon the Dragon", "creator": "north", "open": [],
             "waiting": 2, "seated": ["north"], "expires": time.time() + 86400}]), retain=True)

        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        login(page, web.url, "north")
        page.wait_for_selector("ul.tables.open button[data-table='gx1']", timeout=15000)
        row = page.inner_text("ul.tables.open li[data-table='gx1']")
        assert "grandma is gathering players" in row and "<b>Mom</b>" in row and "1 open seat" in row
        assert not page.query_selector("main b") and "gx1" not in page.inner_text("main")
        assert page.query_selector("ul.tables.mine a[data-table='gx2']"), "my own gathering is not in Your tables"
        shoot(page, "lobby-open-tables", out, ("narrow", "desktop"))

        # Sit here -> `sit` on my request topic -> `seated` opens the waiting room
        page.click("ul.tables.open button[data-table='gx1']")
        sit = request_of(referee, "north", "sit")
        assert (sit["table"], sit["seat"]) == ("gx1", 2)
        referee.publish(f"{P}/ctl/north/reply", msg("seated", request_id=sit["request_id"], table="gx1", seat=2))
        page.wait_for_function("() => location.hash === '#/table/gx1'", timeout=10000)
        page.wait_for_selector("ol.gather-seats li[data-seat='1']")
        assert "<b>Mom</b>" in page.inner_text("ol.gather-seats") and not page.query_selector("ol.gather-seats b")
        assert "Computer (normal)" in page.inner_text("ol.gather-seats")
        # a seat the creator opened to bots too (kind "anyone", issue 43) says so, in words
        opened = [*seats[:2], {**seats[2], "name": "north"}, {"seat": 3, "kind": "anyone", "name": None, "level": None}]
        referee.publish(f"{P}/t/gx1/public/gathering", gathering("gx1", "grandma", opened), retain=True)
        page.wait_for_selector("ol.gather-seats li[data-seat='3'][data-kind='anyone']", timeout=10000)
        assert page.inner_text("ol.gather-seats li[data-seat='3']") == "Open seat: a person or a bot can sit"
        assert not page.query_selector("button[data-key^='sit-']"), "offered a second seat at a table I sit at"

        # my own gathering: the page asks for its invite links once, and shows them
        page.goto(f"{web.url}#/table/gx2")
        asked = request_of(referee, "north", "invites")
        assert asked["table"] == "gx2"
        referee.publish(f"{P}/ctl/north/reply", msg("invites", request_id=asked["request_id"], table="gx2",
                                                    invites={"1": "code-one", "2": "code-two"}))
        page.wait_for_selector("input.invite-url[data-invite='2']", timeout=10000)
        urls = [page.input_value(f"input.invite-url[data-invite='{s}']") for s in (1, 2)]
        assert urls == [f"{web.url}#/join/code-one", f"{web.url}#/join/code-two"]
        text = page.inner_text("main")
        assert "Waiting for 2 more players" in text and "starts by itself" in text and "gx2" not in text
        assert page.query_selector("button[data-key='copy-1']") and page.query_selector("button[data-key='gather-cancel']")
        assert not page.query_selector("button[data-key^='sit-']"), "the creator is offered a seat at their own table"
        shoot(page, "waiting-room-links", out, ("narrow", "desktop"))
        extra = [m for m in referee.drain(0.5) if m.topic == f"{P}/ctl/north/request" and unpack(m.payload)["type"] == "invites"]
        assert not extra, "the invite links were asked for more than once"

        # it starts by itself: a `started` gathering and the table's first state turn the room into the table
        page.click("button[data-key='gather-cancel']")
        close = request_of(referee, "north", "close")
        assert close["table"] == "gx2"
        referee.publish(f"{P}/t/gx2/public/gathering", pack({**unpack(gathering("gx2", "north", mine)), "state": "cancelled"}),
                        retain=True)
        page.wait_for_selector("text=cancelled before it started", timeout=10000)
        assert not errors, errors
    finally:
        for t in ("gx1", "gx2"):
            referee.publish(f"{P}/t/{t}/public/gathering", b"", retain=True)
        referee.publish(f"{P}/referee/status", b"", retain=True)
        referee.close()
        web.stop()
