"""Grandma comes back (issue 42 item 4): staying signed in on a device, in real Chromium,
over a real Mosquitto with the dynamic security plugin, the real referee (dynsec admin) and
the real ``summon web``.

Grandma logs in with her password ("Keep me signed in on this device" is ticked by
default) and opens her table; a NEW TAB of the same browser opens the table's link and is
seated at once, without a password (the old page showed it as watching).  The browser
keeps a device login, never the password.  She signs that device out from "Signed-in
devices": the other tab is dropped and says why, and the next new tab shows the login
form.  "Log out" signs the device out on the broker too.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import pytest

from summon.clients.director import create_table
from summon.protocol.mqtt import BrokerUrl
from summon.referee.dynsec import find_plugin
from tests.test_dynsec import wait_until
from tests.web.pages import shoot, state
from tests.web.test_web_family import Family

KEEP = None if os.environ.get("SUMMON_WRITE_SCREENS") else ()  # the pictures: checked at 360 and 1280 px, kept for docs/ on demand
pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]


@pytest.fixture
def family(tmp_path):
    f = Family(tmp_path / "broker", accounts={"gran": "player", "boss": "director"})
    try:
        yield f
    finally:
        f.stop()


def broker_devices(family: Family, user: str) -> list[dict[str, str]]:
    """``user``'s device logins, as the broker has them (on the referee's own admin connection)."""
    got: dict[str, Any] = {}
    done = threading.Event()

    def finished(result: Any, error: Any) -> None:
        got.update(result=result, error=error)
        done.set()

    family.referee.guests.worker.submit(lambda a: a.devices(user), finished)  # type: ignore[union-attr]
    assert done.wait(20) and got["error"] is None, got
    return got["result"]


def kept(page: Any) -> Any:
    raw = page.evaluate("() => localStorage.getItem('summon.device')")
    return json.loads(raw) if raw else None


def seated(page: Any) -> None:
    page.wait_for_function("""() => { const id = decodeURIComponent(location.hash.split('/')[2]);
        const t = window.summon && window.summon.store.tables.get(id); return !!(t && t.seat); }""", timeout=15000)


def test_grandmas_new_tab_is_grandma_until_she_signs_the_device_out(family, browser, out):
    url = family.web.url
    table = create_table(BrokerUrl(host="127.0.0.1", port=family.settings.port).with_credentials("boss", "boss-pw"),
                         "boss", "dragon", ["gran", "boss", "", ""], {"max_hands": 1},
                         computer={"2": "easy", "3": "easy"})
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    try:
        first = ctx.new_page()
        first.on("pageerror", lambda e: errors.append(str(e)))
        first.goto(url)
        first.wait_for_selector("form.login")
        assert first.is_checked("input[name=keep]"), "keeping the device is the default"
        shoot(first, "login-keep", out, keep=KEEP)
        first.fill("input[name=username]", "gran")
        first.fill("input[name=password]", "gran-pw")
        first.click("button[data-key='f-login']")
        first.wait_for_selector(".conn-online")  # the log-in itself (30 s, as pages.login: loaded CI runs missed 15-20)
        first.wait_for_selector("text=Logged in as gran", timeout=15000)
        first.wait_for_function("() => !!localStorage.getItem('summon.device')", timeout=15000)
        cred = kept(first)
        assert set(cred) == {"user", "login", "secret", "label"} and cred["user"] == "gran"
        assert cred["login"].startswith("gran~") and "gran-pw" not in json.dumps(cred)
        assert [d["login"] for d in broker_devices(family, "gran")] == [cred["login"]]
        # her account lists it, marked as this one
        first.wait_for_selector(f"li.device[data-login='{cred['login']}']", timeout=15000)
        assert "(this one)" in first.inner_text(f"li.device[data-login='{cred['login']}']")
        shoot(first, "signed-in-devices", out, keep=KEEP)

        first.goto(f"{url}#/table/{table}")
        seated(first)

        # -- a new tab, the table's link: seated at once, no password typed ------------------
        second = ctx.new_page()
        second.on("pageerror", lambda e: errors.append(str(e)))
        second.goto(f"{url}#/table/{table}")
        seated(second)
        assert second.evaluate("() => window.summon.link.opts.username") == cred["login"]
        assert second.evaluate("() => window.summon.link.user") == "gran"
        assert not second.query_selector("form.login"), "the new tab asks for the password"
        assert state(second)["seat"] == 0

        # -- she signs that device out from her account -------------------------------------
        first.goto(f"{url}#/")
        first.click(f"li.device[data-login='{cred['login']}'] button")
        first.wait_for_selector("text=None: you type your password each time.", timeout=15000)
        assert broker_devices(family, "gran") == []
        second.wait_for_selector("[data-key='device-ended']", timeout=15000)
        assert "signed out" in second.inner_text("[data-key='device-ended']")
        assert second.query_selector("form.login")
        assert kept(second) is None
        shoot(second, "device-signed-out", out, keep=KEEP)

        third = ctx.new_page()
        third.goto(f"{url}#/table/{table}")
        third.wait_for_selector("form.login", timeout=15000)
        assert kept(third) is None
        assert third.evaluate("() => !window.summon.link || !window.summon.link.user")

        # -- "Log out" signs the device out on the broker too ---------------------------------
        third.fill("input[name=username]", "gran")
        third.fill("input[name=password]", "gran-pw")
        third.click("button[data-key='f-login']")
        third.wait_for_selector(".conn-online")  # the log-in itself (30 s, as pages.login)
        third.wait_for_function("() => !!localStorage.getItem('summon.device')", timeout=15000)
        assert len(broker_devices(family, "gran")) == 1
        third.goto(f"{url}#/")
        third.click("button[data-key='logout']")
        wait_until(lambda: broker_devices(family, "gran") == [], 15)
        assert kept(third) is None
        assert not errors, errors
    finally:
        ctx.close()


def test_without_keeping_nothing_is_kept(family, browser):
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(family.web.url)
        page.wait_for_selector("form.login")
        page.uncheck("input[name=keep]")
        page.fill("input[name=username]", "gran")
        page.fill("input[name=password]", "gran-pw")
        page.click("button[data-key='f-login']")
        page.wait_for_selector(".conn-online")  # the log-in itself (30 s, as pages.login)
        page.wait_for_selector("text=Logged in as gran", timeout=15000)
        page.wait_for_selector("text=None: you type your password each time.", timeout=15000)
        assert kept(page) is None and broker_devices(family, "gran") == []
    finally:
        ctx.close()


def test_closing_the_password_tab_does_not_leave_her_away(family, browser):
    """Two tabs of one person are two connections (the password tab is ``gran``, the new one
    the device login): closing one sends its will, ``offline`` for gran, while she still
    sits in the other.  The open tab sees itself listed away and says ``online`` again (the
    old page left her away until she moved, and a clocked table's house bot took her seat)."""
    url = family.web.url
    table = create_table(BrokerUrl(host="127.0.0.1", port=family.settings.port).with_credentials("boss", "boss-pw"),
                         "boss", "dragon", ["gran", "boss", "", ""], {"max_hands": 1},
                         computer={"2": "easy", "3": "easy"})
    ctx = browser.new_context()
    try:
        first = ctx.new_page()
        first.goto(url)
        first.fill("input[name=username]", "gran")
        first.fill("input[name=password]", "gran-pw")
        first.click("button[data-key='f-login']")
        first.wait_for_selector(".conn-online")  # the log-in itself (30 s, as pages.login)
        first.wait_for_function("() => !!localStorage.getItem('summon.device')", timeout=15000)
        first.goto(f"{url}#/table/{table}")
        seated(first)
        second = ctx.new_page()
        second.goto(f"{url}#/table/{table}")
        seated(second)
        first.close()  # its socket drops: the broker publishes its will, offline for gran
        second.wait_for_function("() => window.summon.link.hereAt !== undefined", timeout=15000)
        second.wait_for_function(f"""() => {{ const t = window.summon.store.tables.get('{table}');
            return !!(t && t.meta && !(t.meta.away || []).some((a) => a.seat === 0)); }}""", timeout=15000)
    finally:
        ctx.close()
