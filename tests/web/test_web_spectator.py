"""An anonymous spectator page on the edge broker follows a table trick by trick; it can
publish nothing that reaches the main broker, and never receives a seat topic."""

from __future__ import annotations

import queue
import time
import uuid
from typing import Any

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.clients.web.server import WebConfig, WebServer
from summon.referee.service import RefereeConfig
from tests.helpers import run_in_thread
from tests.secbroker import RunningReferee
from tests.test_edge_broker import Deployment, is_msg
from tests.web.test_web_screens import shoot

pytestmark = pytest.mark.broker
P = "summon/v1"


class GatedBot:
    """North's bot: it asks the test before each move, so the test can look at the
    spectator's page at every one of north's turns (once per trick)."""

    name = "gated"

    def __init__(self) -> None:
        self.asked: queue.Queue[Any] = queue.Queue()
        self.go: queue.Queue[bool] = queue.Queue()
        self.inner = make_bot("dragon-heuristic", 0)

    def choose(self, view: Any, legal: list[str]) -> str:
        self.asked.put(view)
        self.go.get(timeout=60)
        return self.inner.choose(view, legal)


def test_anonymous_spectator_on_the_edge_follows_trick_by_trick(browser, tmp_path, out):
    dep = Deployment(tmp_path / "broker")
    running = None
    bots: list[BotClient] = []
    web = None
    try:
        running = RunningReferee(RefereeConfig(broker=dep.url("referee"), client_id="referee",
                                               directors=frozenset({"director"}), roles_file=str(dep.accounts.dir.roles)))
        ref = running.ref
        probe = dep.edge_client(f"ready-{uuid.uuid4().hex[:6]}")
        probe.subscribe(f"{P}/referee/status")
        probe.wait(is_msg(f"{P}/referee/status", "referee_status", status="online"), what="the bridge")
        probe.close()
        auditor = dep.main_client("auditor")  # a referee-role account: reads everything on the main broker
        auditor.subscribe(f"{P}/#")
        web = WebServer(WebConfig(edge=f"ws://127.0.0.1:{dep.edge.websockets_port}"), port=0).start()
        table = f"w-{uuid.uuid4().hex[:8]}"
        gate = GatedBot()
        bots = [BotClient(gate, dep.url("north"), "north", table=table)]
        bots += [BotClient(make_bot("dragon-heuristic", i), dep.url(u), u, table=table)
                 for i, u in enumerate(["east", "south", "west"], 1)]
        for b in bots:
            run_in_thread(lambda b=b: b.run(timeout=300))
        create_table(dep.url("director"), "director", "dragon", ["north", "east", "south", "west"],
                     {"max_hands": 1}, table=table, seed=7)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(web.url)  # no login: the page connects to the edge anonymously
        page.wait_for_selector(f"ul.tables.live a[data-table='{table}']", timeout=30000)
        page.click(f"ul.tables.live a[data-table='{table}']")
        tricks_seen = []
        deadline = time.monotonic() + 120
        while ref.call(lambda: ref.tables[table].status) == "playing" and time.monotonic() < deadline:
            try:
                view = gate.asked.get(timeout=0.2)
            except queue.Empty:
                continue
            seq = ref.call(lambda: ref.tables[table].seq)
            page.wait_for_function("(s) => { const e = document.querySelector('.status-line'); "
                                   "return e && Number(e.dataset.seq) === s; }", arg=seq, timeout=30000)
            if view["phase"] == "play":
                tricks_seen.append(view["tricks_played"])
                if view["last_trick"]:
                    shown = page.eval_on_selector_all("section.panel:has(h2:text('Last trick')) .trick .card",
                                                      "cs => cs.map(c => c.textContent)")
                    assert len(shown) == 4, shown
                if view["tricks_played"] == 5:
                    shoot(page, "spectator", out)
            gate.go.put(True)
        page.wait_for_selector(".final-result", timeout=30000)
        assert tricks_seen == list(range(12)), f"north's turns seen on the spectator page: {tricks_seen}"
        # it can publish nothing: the edge drops it, and the main broker never sees it
        marker = f"{P}/t/{table}/move/north"
        page.evaluate("(t) => new Promise((ok) => window.summon.link.client.publish(t, new Uint8Array([0x80]), "
                      "{ qos: 1 }, () => ok()))", marker)
        page.evaluate("(t) => new Promise((ok) => window.summon.link.client.publish(t, new Uint8Array([0x80]), "
                      "{ qos: 1 }, () => ok()))", f"{P}/ctl/director/request")
        seen = auditor.raw.drain(2.0)
        assert not [m for m in auditor.seen + seen if m.topic in (marker, f"{P}/ctl/director/request")
                    and m.payload == b"\x80"], "a spectator's publish reached the main broker"
        topics = page.evaluate("() => [...window.summon.link.topicsSeen]")
        assert topics and not [t for t in topics if "/seat/" in t or "/move/" in t or "/ctl/" in t], topics
        assert page.evaluate("() => window.summon.link.user") is None
        context.close()
        auditor.close()
    finally:
        for b in bots:
            b.request_stop()
        if web is not None:
            web.stop()
        if running is not None:
            running.stop()
        dep.stop()
