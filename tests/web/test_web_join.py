"""The invite link's page side (#/join/<code>), in a real Chromium over a real broker and
referee, with the gateway's answer made by the test (tests/web/test_web_family.py runs the
real gateway and the referee's guest accounts):

- the code leaves the address bar at once and is never kept: localStorage holds the
  credential under the code's SHA-256;
- "Your name", then the page logs in with the credential the gateway answered, as a guest
  (its own table's topics only, no `+` subscriptions) and shows the table;
- opening the same link again reconnects without asking the name; a refused credential
  (the table is over) is forgotten, in words;
- the gateway's refusals are shown in words.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from summon.clients.web.gateway import GatewayAnswer
from summon.clients.web.server import WebConfig, WebServer
from tests.mosquitto import password
from tests.web.test_web_dragon import BOTS

pytestmark = pytest.mark.broker
CODE = "Zm9vYmFyLWludml0ZS1jb2RlLTEyMzQ"


class Answers:
    """The gateway, as the test says: a guest account for CODE, refusals for anything else."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.user = "east"
        self.calls: list[dict[str, Any]] = []  # the guest requests (what seats someone)
        self.lookups: list[dict[str, Any]] = []  # the invite page's "who invited you" look-ups (seat nobody)

    def call(self, op: str, fields: dict[str, Any], client: str) -> GatewayAnswer:
        (self.calls if op == "guest" else self.lookups).append(fields)
        if op == "guest" and fields["invite"] == CODE:
            return GatewayAnswer(200, {"user": self.user, "password": password(self.user), "table": self.table,
                                       "seat": 1, "name": fields["name"]})
        return GatewayAnswer(403, {"error": "guest/bad-invite", "detail": "no such invitation"})

    def close(self) -> None:
        pass


def test_an_invite_link_asks_a_name_once_and_reconnects_after(stack, browser):
    bots = {u: k for u, k in BOTS.items() if u != "east"}
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, bots, seed=5)
    answers = Answers(table)
    web = WebServer(WebConfig(broker=stack.broker.ws_url(), guests=True), port=0, gateway=answers).start()  # type: ignore[arg-type]
    urls: list[str] = []
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.on("request", lambda r: urls.append(r.url))
        page = context.new_page()
        page.goto(f"{web.url}#/join/{CODE}")
        assert page.evaluate("location.hash") == "#/join"
        page.wait_for_selector("form.join input[name=name]")
        assert CODE not in page.evaluate("location.href + JSON.stringify(history.state)")
        page.fill("form.join input[name=name]", "<b>Mom</b>")
        page.click("button[data-key='join-go']")
        page.wait_for_selector(".status-line", timeout=15000)
        assert answers.calls == [{"invite": CODE, "name": "<b>Mom</b>"}]
        assert all(set(f) == {"invite"} for f in answers.lookups), answers.lookups  # a look-up carries the code only
        assert page.evaluate("location.hash") == f"#/table/{table}"
        assert page.evaluate("window.summon.link.guest.name") == "<b>Mom</b>"
        assert "Playing as <b>Mom</b> (guest)" in page.inner_text("main") or "<b>Mom</b>" in page.inner_text("nav")
        assert not page.query_selector("nav b, main b")
        kept = page.evaluate("localStorage.getItem('summon.guests')")
        assert CODE not in kept and hashlib.sha256(CODE.encode()).hexdigest() in kept
        topics = page.evaluate("() => [...window.summon.link.topicsSeen]")
        assert topics and all(f"/t/{table}/" in t or "/ctl/east/" in t for t in topics), topics
        page.close()

        # the same link again, in the same browser: no name asked, the same seat
        page = context.new_page()
        page.goto(f"{web.url}#/join/{CODE}")
        page.wait_for_selector(".status-line", timeout=15000)
        assert page.evaluate("location.hash") == f"#/table/{table}" and len(answers.calls) == 1
        assert page.query_selector("form.join") is None
        page.close()

        # a refused link says why, in words
        page = context.new_page()
        page.goto(f"{web.url}#/join/other-code")
        page.fill("form.join input[name=name]", "Sam")
        page.click("button[data-key='join-go']")
        page.wait_for_selector("form.join ~ .error, .error", timeout=10000)
        assert "no longer valid" in page.inner_text(".error")

        # a kept credential that no longer opens anything (the guest was deleted) is forgotten
        answers.user = "nobody-here"
        page.evaluate("(k) => { const m = JSON.parse(localStorage.getItem('summon.guests')); m[k].password = 'wrong'; "
                      "localStorage.setItem('summon.guests', JSON.stringify(m)); }", hashlib.sha256(CODE.encode()).hexdigest())
        page.goto(f"{web.url}#/join/{CODE}")
        page.wait_for_selector("text=This invitation has ended", timeout=15000)
        assert page.evaluate("localStorage.getItem('summon.guests')") == "{}"
        assert not [u for u in urls if CODE in u or password("east") in u], urls
        context.close()
    finally:
        web.stop()


def test_the_code_leaves_the_address_bar_before_the_page_fetches_anything_slow(stack, browser):
    """The code must be gone from the address bar when the page has loaded, however slow what
    it fetches after (config.json, then the games' modules): CI once saw it still there while
    the games' modules were being imported (app.js awaited both before taking the code)."""
    web = WebServer(WebConfig(broker=stack.broker.ws_url(), guests=True), port=0, gateway=Answers("t")).start()  # type: ignore[arg-type]
    try:
        context = browser.new_context(viewport={"width": 360, "height": 740})
        held: list[Any] = []
        # hold config.json (what the page awaits first) unanswered until the test has looked
        context.route("**/config.json", lambda route: held.append(route))
        page = context.new_page()
        page.goto(f"{web.url}#/join/{CODE}", wait_until="domcontentloaded")
        page.wait_for_function("() => location.hash === '#/join'", timeout=5000)
        assert CODE not in page.evaluate("location.href")
        for route in held:
            route.continue_()
        context.unroute("**/config.json")
        page.wait_for_selector("form.join input[name=name]", timeout=15000)
        assert CODE not in page.evaluate("location.href + JSON.stringify(history.state)")
        context.close()
    finally:
        web.stop()


# The page's SHA-256 of the code answers two animation frames late, as it may on a loaded
# machine (crypto.subtle works off the page's thread): any render the page had scheduled
# before (a game's module arriving schedules one) runs while the saved guest is not yet found.
SLOW_DIGEST = """
  const digest = SubtleCrypto.prototype.digest;
  SubtleCrypto.prototype.digest = function (...args) {
    return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))).then(() => digest.apply(this, args));
  };
"""


def test_reopening_a_used_link_never_asks_who_invited(stack, browser):
    """A remembered link gives the seat back without asking api/invitation: the code is used,
    so the gateway refuses it (403 guest/bad-invite, a console error on the page).  Family
    night under load once saw that 403 when Sam reopened her link: the join screen rendered,
    and asked, before the page had found her saved guest (the code's hash is computed
    asynchronously)."""
    bots = {u: k for u, k in BOTS.items() if u != "east"}
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, bots, seed=5)
    answers = Answers(table)
    web = WebServer(WebConfig(broker=stack.broker.ws_url(), guests=True), port=0, gateway=answers).start()  # type: ignore[arg-type]
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        asked: list[str] = []
        failed: list[str] = []
        context.on("request", lambda r: asked.append(r.url) if "api/" in r.url else None)
        context.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        cred = {"user": "east", "password": password("east"), "table": table, "seat": 1, "name": "Sam"}
        saved = json.dumps({hashlib.sha256(CODE.encode()).hexdigest(): cred})
        context.add_init_script(f"localStorage.setItem('summon.guests', {json.dumps(saved)});" + SLOW_DIGEST)
        page = context.new_page()
        page.goto(f"{web.url}#/join/{CODE}")
        page.wait_for_selector(".status-line", timeout=15000)
        assert page.evaluate("location.hash") == f"#/table/{table}"
        assert page.evaluate("window.summon.link.guest.name") == "Sam"
        assert asked == [] and failed == [] and answers.lookups == [], (asked, failed, answers.lookups)

        # a link this device never used still asks who invited, once the lookup found no guest
        with page.expect_request(lambda r: "api/invitation" in r.url, timeout=15000):
            page.goto(f"{web.url}#/join/other-code")
        page.wait_for_selector("form.join input[name=name]")
        context.close()
    finally:
        web.stop()
