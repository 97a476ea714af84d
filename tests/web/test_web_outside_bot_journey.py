"""An outside bot's whole afternoon, as issue 43's "Tests" asks it in one piece: the
JavaScript example bot (examples/bots/js, mqtt.js and msgpack from npm, started as its own
process) gets its account from the page in real Chromium, enters a swiss tournament by
request on its own connection, plays it to the standings, and then passes
``summon bot-check --broker`` against the same deployment -- with nothing but the lines the
page showed and the password it printed once.

The pieces have their own tests (tests/web/test_web_bot_accounts.py, tests/test_tournament_entry.py,
tests/test_botcheck_remote.py); this one proves they join up for a stranger: no operator
step, no account the runner logs in as, one password from the page for all three.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from summon.clients.tournament.bots import BotFleet
from summon.clients.tournament.runner import Runner
from summon.clients.tournament.spec import parse_spec
from summon.protocol.messages import Tournament
from summon.protocol.mqtt import BrokerUrl
from summon.protocol.topics import Topics
from summon.referee.dynsec import find_plugin
from tests.helpers import Probe
from tests.test_tournament_entry import OutsideBot, js_example_bot
from tests.web.test_web_bot_accounts import shown_env
from tests.web.test_web_family import Family

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ("h1", "h2", "h3")
pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed"),
              pytest.mark.skipif(not (shutil.which("node") and shutil.which("npm")),
                                 reason="Node.js/npm are not installed: the JavaScript example bot cannot run")]


@pytest.fixture
def family(tmp_path):
    f = Family(tmp_path / "broker", accounts={"gran": "player", "director": "director",
                                               **{h: "bot" for h in HOUSE}}, bots_broker=True)
    try:
        yield f
    finally:
        f.stop()


@pytest.fixture(scope="module")
def js_bot(tmp_path_factory) -> list[str]:
    return js_example_bot(tmp_path_factory.mktemp("jsbot"))


class ShownBot(OutsideBot):
    """``OutsideBot`` with the environment the page showed (not the test's own passwords)."""

    def __init__(self, env: dict[str, str], enter: str, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, env={**os.environ, **env, "SUMMON_ENTER": enter},
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[tuple[float, str]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()


def test_a_js_bot_registered_on_the_page_enters_a_swiss_plays_it_out_and_passes_bot_check(family, browser, js_bot,
                                                                                          tmp_path):
    port = family.settings.port
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    bot = None
    fleet = None
    runner = None
    thread = None
    try:
        # -- gran registers the bot on the page; the page shows its settings once -----------------
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(family.web.url)
        page.fill("input[name=username]", "gran")
        page.fill("input[name=password]", "gran-pw")
        page.click("button[data-key='f-login']")
        page.wait_for_selector(".conn-online")  # the log-in itself, as tests/web/pages.py login (30 s: a CI run
        # beside stress-ng did not show "Your bots" within 15 s of the click)
        page.wait_for_selector("text=Your bots", timeout=15000)
        page.wait_for_selector(".bots >> text=None yet.", timeout=15000)  # the list came: the page is connected
        page.fill("input[data-key='bot-name']", "jsbot")
        t0 = time.monotonic()
        page.click("button[data-key='bot-register']")
        page.wait_for_selector("[data-key='bot-secret']", timeout=15000)
        shown = shown_env(page)
        assert shown["SUMMON_USER"] == "jsbot" and shown["SUMMON_BROKER"] == f"mqtt://127.0.0.1:{port}", shown
        page.click("button[data-key='bot-copied']")
        assert not errors, errors

        # -- a director announces a swiss with an entry window; the bot enters on its own --------
        tid = f"js{uuid.uuid4().hex[:6]}"
        window = 12.0  # room for a loaded machine to start node and enter
        spec = parse_spec({"tournament": {"id": tid, "game": "summicard", "format": "swiss", "seed": 11,
                                          "insecure_seed": True},
                           "time": {"no_show": 30}, "entry": {"window": window},
                           "entrant": [{"name": h, "bot": "random"} for h in HOUSE]})

        def url(user: str) -> BrokerUrl:
            return BrokerUrl(host="127.0.0.1", port=port).with_credentials(user, f"{user}-pw")

        fan = Probe(url("gran"), "gran", (Topics().tournament("director", tid),), mqtt_version=5)  # public to all
        fleet = BotFleet().start(url, [(h, "random") for h in HOUSE], pace=0.2)
        runner = Runner(spec, url("director"), "director", tmp_path / "progress.json", mqtt_version=5)
        result: dict = {}
        thread = threading.Thread(target=lambda: result.update(prog=runner.run(timeout=150)), daemon=True)
        thread.start()
        bot = ShownBot(shown, f"director/{tid}", js_bot)
        t_entered = bot.wait_line('"entered"', 60)
        thread.join(150)
        assert not thread.is_alive(), f"the tournament did not finish; the bot said {bot.lines[-20:]}"
        prog = result["prog"]
        assert prog.status == "finished", prog.status
        games = [g for g in prog.games if "jsbot" in g.sides]
        assert len(games) == prog.round and all(g.status == "finished" and not g.forfeited for g in games), games
        final = fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "finished", 15)
        fan.link.close()
        assert isinstance(final, Tournament)
        row = next(r for r in final.standings if r["entrant"] == "jsbot")
        assert row["played"] == len(games), row
        t_standings = time.monotonic() - t0
        bot.stop()
        bot = None

        # -- the same account, the same password: bot-check against this deployment -------------
        pw = tmp_path / "jsbot.pw"
        pw.write_text(shown["SUMMON_PASSWORD"] + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
        env["PYTHONPATH"] = str(ROOT)
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "summon.clients.cli", "bot-check", "--broker",
                               f"mqtt://127.0.0.1:{port}", "-u", "jsbot", "-P", str(pw), "--game", "summicard",
                               "--timeout", "120", "--", *js_bot], env=env, capture_output=True, text=True,
                              timeout=180, cwd=ROOT)
        took = time.monotonic() - started
        assert done.returncode == 0, done.stdout + done.stderr[-2000:]
        for row in ("keeps running", "moves accepted", "answers in time", "plays to the end", "its connection is its own"):
            line = next(ln for ln in done.stdout.splitlines() if ln.startswith(row))
            assert " PASS " in line, line
        print(f"\nFIGURE outside JS bot: registered on the page, entered {t_entered - t0:.1f} s later, "
              f"standings {t_standings:.1f} s after 'Register a bot' ({len(games)} games); entry -> first pairing "
              f"{runner.stats.first_pairing_s:.3f} s after the window closed; bot-check verdict in {took:.1f} s")
    finally:
        ctx.close()
        if runner is not None:
            runner.request_stop()
        if thread is not None:
            thread.join(10)
        if fleet is not None:
            fleet.stop()
        if bot is not None:
            bot.stop()
