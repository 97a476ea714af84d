"""Family night (issue 23): from a link to a game with no operator in the loop, in four real
Chromium contexts, over a real Mosquitto with the dynamic security plugin (and an edge for
the spectator), the real referee (house bots, dynsec admin, open sign-up) and the real
``summon web`` gateway.

- Grandma makes her account on the page (sign-up: open), logs in, and starts a Dragon table
  with two invite seats and a computer: a waiting room with two links to send.
- Mom and Sam open the links: a name is all they type (guests: nobody makes an account for
  them); Mom types ``<b>Mom</b>``, which every page shows as those characters, not bold.
- The table starts by itself; they chat; Sam closes her tab, the house bot takes her seat
  within the quick clock's 10 s, she opens her link again and has her seat back.
- They play the whole hand through the page; at the end all three click "Play again" and
  the next game starts with the next dealer.
- A fourth context watches on the edge, without an account: it sees the table, and may not
  chat.
- No URL any context sent (page loads, the API, the websockets) holds an invite code or a
  password.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from summon.clients.bots import HOUSE_BOTS
from summon.clients.cli import main as cli_main
from summon.clients.embedded_broker import free_port
from summon.clients.web.gateway import Gateway, SourceLimits
from summon.clients.web.server import WebConfig, WebServer
from summon.protocol.mqtt import BrokerUrl
from summon.referee.accounts import Accounts, BrokerSettings, EdgeSettings
from summon.referee.dynsec import find_plugin
from summon.referee.dynsec_dir import DynsecAccounts, migrate_to_dynsec
from summon.referee.service import Referee, RefereeConfig
from tests.mosquitto import launch
from tests.web.test_web_screens import shoot
from tests.refthread import start_referee

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
P = "summon/v1"
GRANDMA_PW = "tea-and-biscuits-42"
SIZES = ("narrow", "desktop")  # the pictures of the new screens: 360 px and 1280 px
PLAY_PREFS = ("pass", "play ", "discard ", "kitty", "nohelp", "summon", "bid ")


class Family:
    """Main broker (dynsec, websockets) + edge + referee + ``summon web`` with its gateway."""

    def __init__(self, root: Path, signup: str = "open", accounts: dict[str, str] | None = None,
                 limits: SourceLimits | None = None, bots_broker: bool = False, **referee: Any) -> None:
        """``signup``: the referee's and the page's sign-up mode; ``accounts``: more accounts
        (user -> role, password ``<user>-pw``) made before the referee starts; ``limits``: the
        gateway's own per-address limits (default: its defaults); ``referee``: more
        RefereeConfig fields (benchmarks/web_invite.py lifts the budgets, and ``limits``);
        ``bots_broker``: config.json names the main broker's mqtt:// address for bots."""
        self.root = root
        self.procs: list[Any] = []
        self.settings = BrokerSettings(port=free_port(), spectator_port=free_port(), websockets_port=free_port(),
                                       run_as_root=True)
        self.edge = EdgeSettings(port=free_port(), websockets_port=free_port())
        out = CliRunner().invoke(cli_main, [
            "broker", "init", str(root), "--port", str(self.settings.port), "--spectator-port",
            str(self.settings.spectator_port), "--websockets-port", str(self.settings.websockets_port),
            "--run-as-root", "--edge", "--edge-port", str(self.edge.port), "--edge-ws-port", str(self.edge.websockets_port)])
        assert out.exit_code == 0, out.output
        Accounts(root).add("referee", "referee", "referee-pw", reload=False)
        migrate_to_dynsec(root)  # the edge's bridge account moves with the others
        acc = Accounts(root)
        self.procs.append(launch(acc.dir.conf, [self.settings.port, self.settings.spectator_port,
                                                self.settings.websockets_port]))
        self.procs.append(launch(acc.dir.edge("edge").conf, [self.edge.port, self.edge.websockets_port]))
        self.accounts = DynsecAccounts(root)
        self.accounts.add("web", "gateway", "web-pw")
        for user, role in (accounts or {}).items():
            self.accounts.add(user, role, f"{user}-pw")
        self.referee = Referee(RefereeConfig(
            broker=BrokerUrl(host="127.0.0.1", port=self.settings.port).with_credentials("referee", "referee-pw"),
            client_id="referee", roles_file=str(acc.dir.roles), accounts_admin=str(root / "secrets" / "summon-admin.pw"),
            signup_mode=signup, signup_codes=str(root / "signup-codes"), **referee), house_bots=HOUSE_BOTS)
        self.thread = start_referee(self.referee)
        gateway = Gateway("127.0.0.1", self.settings.port, "web", "web-pw", limits=limits).start()
        self.web = WebServer(WebConfig(broker=f"ws://127.0.0.1:{self.settings.websockets_port}",
                                       edge=f"ws://127.0.0.1:{self.edge.websockets_port}", guests=True, signup=signup,
                                       bots_broker=f"mqtt://127.0.0.1:{self.settings.port}" if bots_broker else ""),
                             port=0, gateway=gateway).start()

    def table(self, table_id: str) -> Any:
        return self.referee.call(lambda: self.referee.tables.get(table_id))

    def stop(self) -> None:
        self.web.stop()
        self.referee.request_stop()
        self.thread.join(10)
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(5)
            except Exception:
                proc.kill()


@pytest.fixture
def family(tmp_path):
    f = Family(tmp_path / "broker")
    try:
        yield f
    finally:
        f.stop()


class Person:
    """One browser context (its own localStorage), its pages, and every URL they requested."""

    def __init__(self, browser: Any, urls: list[str], width: int = 1280) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.urls = urls
        self.errors: list[str] = []
        self.context.on("request", lambda r: self.urls.append(r.url))
        self.page = self.new_page()

    def new_page(self) -> Any:
        page = self.context.new_page()
        page.on("websocket", lambda ws: self.urls.append(ws.url))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page = page
        return page


def look(page: Any, name: str, out: Path) -> None:
    """The screen fits 360 px and 1280 px (nothing sideways); with SUMMON_WRITE_SCREENS=1 its
    pictures are written to docs/screens/web/ (full-page screenshots cost ~1 s each, so a
    plain run only measures)."""
    if os.environ.get("SUMMON_WRITE_SCREENS"):
        shoot(page, name, out, SIZES)
        return
    for w, h in ((360, 740), (1280, 900)):
        page.set_viewport_size({"width": w, "height": h})
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {w} px is {overflow} px too wide"


def hash_of(page: Any) -> str:
    return page.evaluate("location.hash")


def table_of(page: Any) -> str:
    return page.evaluate("decodeURIComponent(location.hash.split('/')[2] || '')")


def move_once(page: Any) -> str | None:
    """If it is this page's turn, click one offered move and wait for the table to move on."""
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


def wait_until(pred: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_family_night(family, browser, out):
    started = time.monotonic()
    urls: list[str] = []
    grandma, mom, sam, fan = (Person(browser, urls) for _ in range(4))
    g = grandma.page

    # -- Grandma makes her account on the page, which logs her in -------------------------
    g.goto(family.web.url)
    g.wait_for_selector("details.signup-fold")
    g.click("details.signup-fold summary")
    g.fill("form.signup input[name=user]", "grandma")
    g.fill("form.signup input[name=password]", GRANDMA_PW)
    look(g, "signup", out)
    g.click("button[data-key='su-go']")
    g.wait_for_selector("text=Logged in as grandma", timeout=15000)

    # -- a Dragon table: me, an invite, an invite, a computer; the quick clock --------------
    g.click("a[data-key='link:new']")
    g.wait_for_selector("form.new-table")
    g.fill("input[name=max_hands]", "1")
    g.dispatch_event("input[name=max_hands]", "change")
    g.select_option("select[data-key='nt-clock']", "quick")
    g.select_option("select[data-key='nt-seat-1']", "invite")
    g.select_option("select[data-key='nt-seat-2']", "invite")
    assert g.input_value("select[data-key='nt-seat-3']").startswith("computer:")
    look(g, "new-table-invites", out)
    g.click("button[data-key='nt-start']")
    g.wait_for_selector("input.invite-url[data-invite='2']", timeout=15000)
    first = table_of(g)
    links = {int(s): g.input_value(f"input.invite-url[data-invite='{s}']") for s in (1, 2)}
    assert all("#/join/" in u for u in links.values()), links
    codes = {s: u.split("#/join/", 1)[1] for s, u in links.items()}
    main_text = g.inner_text("main")
    assert first not in main_text and "ws://" not in main_text, "the waiting room shows a table id or an address"
    look(g, "waiting-room", out)

    # -- Mom opens her link: the code leaves the address at once; a name is enough ----------
    m = mom.page
    m.goto(links[1])
    assert hash_of(m) == "#/join", "the invite code stays in the address bar"
    m.wait_for_selector("form.join input[name=name]")
    look(m, "join", out)
    m.fill("form.join input[name=name]", "<b>Mom</b>")
    m.click("button[data-key='join-go']")
    m.wait_for_selector(".gather-seat", timeout=15000)
    g.wait_for_selector("li.gather-seat[data-seat='1'].taken", timeout=15000)
    assert "<b>Mom</b>" in g.inner_text("ol.gather-seats") and not g.query_selector("ol.gather-seats b")
    look(m, "waiting-room-guest", out)

    # -- the spectator on the edge, without an account -------------------------------------
    f = fan.page
    f.goto(family.web.url)
    f.wait_for_selector(".conn-online", timeout=15000)

    # -- Sam opens hers: the last seat -> the table starts by itself -----------------------
    s = sam.page
    s.goto(links[2])
    assert hash_of(s) == "#/join"
    s.fill("form.join input[name=name]", "Sam")
    s.click("button[data-key='join-go']")
    for p in (g, m, s):
        p.wait_for_selector(".status-line[data-status='playing']", timeout=20000)
    meta = family.table(first)
    assert meta is not None and meta.players[0] == "grandma" and meta.players[1].startswith("g-")
    assert all("<b>Mom</b>" in p.inner_text("main") for p in (g, s)) and not g.query_selector("main b")

    # -- the fan sees the table on the edge; spectators read the chat and cannot write ------
    f.wait_for_selector(f"ul.tables.live a[data-table='{first}']", timeout=20000)
    f.click(f"ul.tables.live a[data-table='{first}']")
    f.wait_for_selector(".status-line[data-status='playing']", timeout=15000)
    assert f.query_selector(".chat-readonly") and not f.query_selector("form.chat-form")

    # -- they chat ---------------------------------------------------------------------------
    m.fill("form.chat-form input.chat-input", "hello grandma <i>x</i>")
    m.keyboard.press("Enter")
    g.wait_for_selector("li.chat-line:has-text('hello grandma')", timeout=15000)
    line = g.inner_text("li.chat-line:has-text('hello grandma')")
    assert "<b>Mom</b>" in line and "<i>x</i>" in line and not g.query_selector("li.chat-line i, li.chat-line b")

    # -- Sam closes her tab: the house bot takes her seat within the quick clock ------------
    sam_seat = 2
    assert meta.players[2].startswith("g-") and meta.players[2] != meta.players[1]
    s.close()
    g.wait_for_selector("ul.notice.away:has-text('Sam')", timeout=15000)  # the others see she is away
    wait_until(lambda: sam_seat in (family.table(first).house or ()), 25, "the house bot to take Sam's seat")
    s = sam.new_page()
    s.goto(links[2])  # her device remembers her: the seat comes back
    assert hash_of(s) in ("#/join", f"#/table/{first}")
    s.wait_for_selector(".status-line", timeout=20000)
    wait_until(lambda: sam_seat not in (family.table(first).house or ()), 20, "Sam's seat to come back")
    assert not s.query_selector("form.join"), "Sam was asked her name again"

    # -- the whole hand, through the pages ------------------------------------------------
    deadline = time.monotonic() + 240
    while family.table(first).status == "playing" and time.monotonic() < deadline:
        moved = False
        for p in (g, m, s):
            moved = move_once(p) is not None or moved
        if not moved:
            time.sleep(0.05)
    assert family.table(first).status == "finished"
    for p in (g, m, s):
        p.wait_for_selector("button[data-key='rematch']", timeout=15000)

    # -- Play again: one click each; the next game, the next dealer -------------------------
    for p in (g, m, s):
        p.click("button[data-key='rematch']")
    for p in (g, m, s):
        p.wait_for_function("(t) => decodeURIComponent(location.hash.split('/')[2] || '') !== t", arg=first, timeout=20000)
    second = table_of(g)
    assert table_of(m) == second and table_of(s) == second
    old, new = list(family.table(first).players), list(family.table(second).players)
    def people(players: list[str]) -> list[str]:  # a computer seat is renamed after its new seat
        return ["computer" if p.startswith("computer-") else p for p in players]

    assert people(new) == people(old[1:] + old[:1]), (old, new)  # the deal moved on: the next dealer
    for p in (g, m, s):
        p.wait_for_selector(".status-line[data-status='playing']", timeout=20000)

    # -- no code, no password in any URL that left a browser --------------------------------
    secrets = [GRANDMA_PW, *codes.values()]
    secrets += [c["password"] for c in (sam.page.evaluate("() => Object.values(JSON.parse(localStorage.getItem('summon.guests') || '{}'))")
                                         + mom.page.evaluate("() => Object.values(JSON.parse(localStorage.getItem('summon.guests') || '{}'))"))]
    assert len(secrets) == 5 and urls
    leaked = [u for u in urls if any(x in u for x in secrets)]
    assert not leaked, leaked
    for person in (grandma, mom, sam, fan):
        assert not [e for e in person.errors if "WebSocket" not in e], person.errors
        person.context.close()
    print(f"\nfamily night: {time.monotonic() - started:.1f} s; {len(urls)} URLs requested, none with a secret")

