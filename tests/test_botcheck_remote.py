"""``summon bot-check --broker URL -u BOT`` against a deployment (issue 43 item 3): a real
Mosquitto with the dynamic security plugin and a real referee, started here, are the
deployment; a person registers a bot account there (``bot``), and the bot's author checks
the example bot with that account.  The sandbox table it gets is measured from outside: a
public watcher on the lobby's topics (every table's public topics, gatherings, the status)
never hears of it, and the owner's and the bot's My games and the leaderboard leave it out.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from summon.protocol.messages import (BotAccount, BotRequest, Created, CreateTable, Error, History, MyGames, RefereeStatus,
                                      SandboxRequest)
from summon.protocol.topics import Topics
from summon.referee.dynsec import find_plugin
from tests.helpers import Probe
from tests.test_dynsec import ask_referee, dynsec_referee, rid, start_dynsec_broker

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
ROOT = Path(__file__).resolve().parent.parent
ACCOUNTS = {"referee": "referee", "web": "gateway", "author": "player", "watcher": "player"}
REPLIES = (BotAccount, Error, Created, MyGames)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    broker = start_dynsec_broker(tmp_path_factory.mktemp("sandbox") / "broker", ACCOUNTS)
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def ref(db):
    running = dynsec_referee(db)
    running.ref.history.board_every = 0.0
    yield running.ref
    running.stop()


def ask(probe: Probe, user: str, msg, timeout: float = 15):
    return ask_referee(probe, user, msg, REPLIES, timeout)


@pytest.fixture(scope="module")
def bot(db, ref, tmp_path_factory):
    """A bot account the author registers on the deployment, and its password file."""
    author = Probe(db.url("author"), "author", (T.reply("author"),), mqtt_version=5)
    try:
        made = ask(author, "author", BotRequest(request_id=rid(), name="sandy"))
    finally:
        author.close()
    assert isinstance(made, BotAccount), made
    pw = tmp_path_factory.mktemp("pw") / "sandy.pw"
    pw.write_text(made.password + "\n")
    return made, pw


def bot_check(db, pw: Path, *command: str, timeout: float = 180) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SUMMON_PASSWORD", None)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "summon.clients.cli", "bot-check", "--broker",
                           f"mqtt://127.0.0.1:{db.settings.port}", "-u", "sandy", "-P", str(pw), "--game", "summicard",
                           "--timeout", "120", "--", *command], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    return done, time.monotonic() - started


def test_the_example_bot_passes_at_an_unlisted_sandbox_table(db, ref, bot):
    made, pw = bot
    # a public watcher on what a lobby reads: every table's public topics, gatherings, the status
    watcher = Probe(db.url("watcher"), "watcher", (f"{T.prefix}/t/+/public/#", T.referee_status()), mqtt_version=5)
    try:
        done, took = bot_check(db, pw, sys.executable, "examples/bots/python/bot.py")
        print(f"\nbot-check against the deployment: verdict after {took:.1f} s\n{done.stdout}\n{done.stderr[-2000:]}")
        assert done.returncode == 0, done.stdout + done.stderr
        for name in ("keeps running", "moves accepted", "answers in time", "plays to the end",
                     "its connection is its own"):
            line = next(ln for ln in done.stdout.splitlines() if ln.startswith(name))
            assert " PASS " in line, line
        assert "not checked against a deployment (needs the local checker)" in done.stdout
        assert "reconnect" in done.stdout and "SKIP" in done.stdout
        table = done.stderr.split("sandbox table ")[1].split()[0].rstrip(";")
        assert table.startswith("sandbox-") and len(table) >= 40, table  # random: 128 bits

        # the table was played: the referee holds it, finished, the bot at a seat, the house at the other
        held = ref.tables[table]
        assert held.status == "finished" and held.players[0] == "sandy" and held.players[1] == "computer-2"
        assert not held.game.name.startswith("sandbox")
        watcher.collect(1.0)
        heard = [inc.topic for inc, _ in watcher.seen if table in inc.topic]
        assert heard == [], heard  # not one public message named it
        for _, m in watcher.seen:
            assert table not in repr(m)  # nor did the status or any other table's message

        # not in the bot's My games, not on the bot leaderboard
        me = Probe(db.url("sandy").with_credentials("sandy", made.password), "sandy", (T.reply("sandy"),),
                   mqtt_version=5)
        try:
            games = ask(me, "sandy", History(request_id=rid()))
        finally:
            me.close()
        assert isinstance(games, MyGames), games
        assert all(g["table"] != table for g in games.games) and not games.ratings, games
        status = watcher.wait_for(lambda i, m: isinstance(m, RefereeStatus), 10)
        assert "sandy" not in repr(status)
    finally:
        watcher.close()


def test_a_bot_that_exits_is_reported_with_its_status_and_output(db, ref, bot):
    _, pw = bot
    done, _ = bot_check(db, pw, sys.executable, "-c", "import sys; print('no luck here', file=sys.stderr); sys.exit(1)")
    assert done.returncode == 1, done.stdout + done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("keeps running"))
    assert " FAIL " in line and "exited with status 1" in line, done.stdout
    assert "no luck here" in done.stdout
    for name in ("moves accepted", "answers in time", "plays to the end"):  # nothing it did not do is passed
        assert " FAIL " in next(ln for ln in done.stdout.splitlines() if ln.startswith(name)), done.stdout
    # its table was closed, not left to hold the budget
    time.sleep(1)
    assert all(t.status != "playing" for tid, t in ref.tables.items() if tid.startswith("sandbox-"))


def test_a_bot_may_ask_a_sandbox_but_not_create(db, ref, bot):
    made, _ = bot
    me = Probe(db.url("sandy").with_credentials("sandy", made.password), "sandy", (T.reply("sandy"),),
               mqtt_version=5)
    try:
        bad = ask(me, "sandy", SandboxRequest(request_id=rid(), game="nope"))
        assert isinstance(bad, Error) and bad.code == "game/unknown", bad
        seat = ask(me, "sandy", SandboxRequest(request_id=rid(), game="summicard", seat=5))
        assert isinstance(seat, Error) and "not a seat" in seat.detail, seat
        ok = ask(me, "sandy", SandboxRequest(request_id=rid(), game="summicard", seat=1))
        assert isinstance(ok, Created) and ok.table.startswith("sandbox-"), ok
        assert list(ref.tables[ok.table].players) == ["computer-1", "sandy"]
        no = ask(me, "sandy", CreateTable(request_id=rid(), game="summicard", players=["sandy", ""],
                                          computer={"1": "easy"}))
        assert isinstance(no, Error) and no.code == "auth/forbidden", no  # a bot still does not create tables
    finally:
        me.close()
