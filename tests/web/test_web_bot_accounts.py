"""A person registers a bot from the page (issue 43 item 1), in real Chromium, over a real
Mosquitto with the dynamic security plugin, the real referee (dynsec admin) and the real
``summon web``; the bot is the Python example (examples/bots/python/bot.py), started as its
own process with the name and the password the page showed.

Gran types a bot's name under "Your bots" and clicks "Register a bot": the page shows the
password once (with the settings a bot reads), lists the bot, and forgets the password when
she has copied it.  She seats the bot at a New table by its account name; the example bot
logs in with what the page showed and its move is accepted; the table marks its seat
"(bot)".  A new password replaces the old one; "Delete" removes it from the broker.

Figures (printed): the steps and seconds from "Register a bot" to the bot's first accepted move.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from summon.referee.dynsec import find_plugin
from tests.test_dynsec import wait_until
from tests.web.test_web_family import Family
from tests.web.test_web_newtable import move_once

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]


@pytest.fixture
def family(tmp_path):
    f = Family(tmp_path / "broker", accounts={"gran": "player"}, bots_broker=True)
    try:
        yield f
    finally:
        f.stop()


def broker_bots(family: Family) -> dict[str, Any]:
    """Every registered bot account, as the broker has them (the referee's admin connection)."""
    got: dict[str, Any] = {}
    done = threading.Event()

    def finished(result: Any, error: Any) -> None:
        got.update(result=result, error=error)
        done.set()

    family.referee.guests.worker.submit(lambda a: a.owned_bots(), finished)  # type: ignore[union-attr]
    assert done.wait(20) and got["error"] is None, got
    return got["result"]


def shown_env(page: Any) -> dict[str, str]:
    """The settings the page shows beside a new password (``NAME=value`` lines)."""
    env = page.inner_text("[data-key='bot-secret'] pre.bot-env")
    return dict(line.split("=", 1) for line in env.splitlines())


def shown_password(page: Any) -> str:
    return shown_env(page)["SUMMON_PASSWORD"]


def test_gran_registers_a_bot_that_plays_at_her_table_then_deletes_it(family, browser):
    url = family.web.url
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    bot: subprocess.Popen[bytes] | None = None
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("form.login")  # drawn by the page's script: as tests/web/pages.py login
        page.fill("input[name=username]", "gran")
        page.fill("input[name=password]", "gran-pw")
        page.click("button[data-key='f-login']")
        page.wait_for_selector(".conn-online")  # the log-in itself (30 s: a loaded CI run missed 15)
        page.wait_for_selector("text=Logged in as gran", timeout=15000)
        assert not page.query_selector(".bot-board")  # no rated bot yet: no leaderboard
        family.referee.history.board_every = 0.0  # the leaderboard at once after a game, not 30 s later
        page.wait_for_selector("text=Your bots", timeout=15000)
        page.wait_for_selector(".bots >> text=None yet.", timeout=15000)

        # -- register: a name, one click; the password is shown once ---------------------------
        steps = 0
        page.fill("input[data-key='bot-name']", "granbot")
        steps += 1
        t0 = time.monotonic()
        page.click("button[data-key='bot-register']")
        steps += 1
        page.wait_for_selector("[data-key='bot-secret']", timeout=15000)
        t_shown = time.monotonic() - t0
        password = shown_password(page)
        assert len(password) >= 32 and "SUMMON_USER=granbot" in page.inner_text("[data-key='bot-secret']")
        page.wait_for_selector("li.bot[data-user='granbot']", timeout=15000)
        assert "(bot)" in page.inner_text("li.bot[data-user='granbot']")
        assert set(broker_bots(family)) == {"granbot"} and broker_bots(family)["granbot"][0] == "gran"
        assert password not in page.evaluate("() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")

        # -- the bot runs elsewhere with what the page showed (all three settings: summon web
        # --bots-broker puts the broker's address there) -----------------------------------------
        shown = shown_env(page)
        assert shown == {"SUMMON_BROKER": f"mqtt://127.0.0.1:{family.settings.port}", "SUMMON_USER": "granbot",
                         "SUMMON_PASSWORD": password}, shown
        env = {**os.environ, **shown, "PYTHONPATH": str(ROOT)}
        bot = subprocess.Popen([sys.executable, str(ROOT / "examples/bots/python/bot.py")], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        page.click("button[data-key='bot-copied']")  # copied: the page forgets it
        steps += 1
        page.wait_for_selector("[data-key='bot-secret']", state="detached")
        assert password not in page.inner_text("body")

        # -- gran seats it at a New table by its account name ------------------------------------
        page.click("a[data-key='link:new']")
        page.wait_for_selector("form.new-table")
        page.fill("input[name=max_hands]", "1")
        page.dispatch_event("input[name=max_hands]", "change")
        page.select_option("select[data-key='nt-seat-1']", "account")
        page.fill("input[data-key='nt-account-1']", "granbot")
        page.dispatch_event("input[data-key='nt-account-1']", "input")
        page.click("button[data-key='nt-start']")
        steps += 5  # New table, a seat's "account", its name, (max hands typed), start
        page.wait_for_selector(".status-line", timeout=15000)
        table_id = page.evaluate("() => decodeURIComponent(location.hash.split('/')[2])")
        table = family.referee.tables[table_id]
        assert table.players[1] == "granbot" and "granbot" in table.bots

        gran_moves = [0]

        def bot_moved() -> bool:
            gran_moves[0] += move_once(page) is not None  # gran plays when it is her turn (the bot is seat 2, after the dealer)
            return any(h.user == "granbot" and not h.flags for h in table.history)

        wait_until(bot_moved, 30)
        t_moved = time.monotonic() - t0
        # the table marks the bot's seat
        page.wait_for_selector("text=granbot (bot)", timeout=15000)
        print(f"\nbot account figures: {steps} steps on the page; password shown {t_shown:.2f} s after "
              f"'Register a bot'; first accepted move of the bot {t_moved:.2f} s after it")

        # -- the game to its end: the bot's first rated game, then the lobby's bot leaderboard ----
        def over() -> bool:
            gran_moves[0] += move_once(page) is not None
            return table.status != "playing"

        wait_until(over, 120)
        t_rated = time.monotonic() - t0
        page.goto(f"{url}#/")
        row = page.wait_for_selector(".bot-board[data-game='dragon'] tr[data-user='granbot']", timeout=20000)
        assert "granbot (bot)" in row.inner_text()
        assert not page.query_selector(".bot-board tr[data-user='gran']")  # people are rated, not listed
        print(f"bot account figures: its first rated game ended {t_rated:.1f} s after 'Register a bot' "
              f"(gran clicked {gran_moves[0]} moves of her own); "
              f"on the leaderboard {time.monotonic() - t0:.1f} s after it")

        # -- a new password: shown once, the old one stops working --------------------------------
        page.click("button[data-key='renew-granbot']")
        page.wait_for_selector("[data-key='bot-secret']", timeout=15000)
        renewed = shown_password(page)
        assert renewed != password
        page.click("button[data-key='bot-copied']")

        # -- delete: gone from the page and the broker --------------------------------------------
        page.click("button[data-key='forget-bot-granbot']")
        page.wait_for_selector(".bots >> text=None yet.", timeout=15000)
        assert broker_bots(family) == {}
        assert family.referee.roles.role("granbot") is None

        # the French words are there too
        page.evaluate("() => { localStorage.setItem('summon.lang', 'fr'); }")
        page.reload()  # signed in again by the device login the page keeps (js/device.js)
        page.wait_for_selector("text=Vos robots", timeout=15000)
        assert "Enregistrer un robot" in page.inner_text(".bots")
        assert not errors, errors
    finally:
        ctx.close()
        if bot is not None:
            bot.terminate()
            bot.wait(10)
