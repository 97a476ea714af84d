"""``summon bot-check --broker URL -u BOT`` against a deployment (issue 43 item 3): a real
Mosquitto with the dynamic security plugin and a real referee, started here, are the
deployment; a person registers a bot account there (``bot``), and the bot's author checks
the example bot with that account.  The sandbox table it gets is measured from outside: a
public watcher on the lobby's topics (every table's public topics, gatherings, the status)
never hears of it, and the owner's and the bot's My games and the leaderboard leave it out.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from summon.protocol.messages import (BotAccount, BotRequest, CloseTable, Closed, Created, CreateTable, Error, History,
                                      MyGames, RefereeStatus, SandboxRequest, SeatState)
from summon.protocol.topics import Topics
from summon.referee.dynsec import find_plugin
from tests.helpers import Probe
from tests.test_dynsec import ask_referee, dynsec_referee, rid, start_dynsec_broker

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
ROOT = Path(__file__).resolve().parent.parent
ACCOUNTS = {"referee": "referee", "web": "gateway", "author": "player", "watcher": "player"}
REPLIES = (BotAccount, Error, Created, MyGames, Closed)


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


def bot_check(db, pw: Path, *command: str, timeout: float = 180,
              flags: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SUMMON_PASSWORD", None)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "summon.clients.cli", "bot-check", "--broker",
                           f"mqtt://127.0.0.1:{db.settings.port}", "-u", "sandy", "-P", str(pw), "--game", "summicard",
                           "--timeout", "120", *flags, "--", *command], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    return done, time.monotonic() - started


def answered(verdict: str) -> int:
    """The turns the "moves accepted" row counts (0: none, or the row says something else)."""
    line = next(ln for ln in verdict.splitlines() if ln.startswith("moves accepted"))
    found = re.search(r"-> (\d+) turn\(s\) answered", line)
    return int(found.group(1)) if found else 0


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
        # every turn the bot played was seen (old code logged in as the bot's account too: the bot's
        # login took the checker's over, and it saw 1 of the bot's turns, or none: "it made no move")
        assert answered(done.stdout) == sum(1 for h in held.history if h.user == "sandy") > 1, done.stdout
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
    # its table was closed, not left to hold the budget (its own: another test's may be open)
    table = done.stderr.split("sandbox table ")[1].split()[0].rstrip(";")
    deadline = time.monotonic() + 10
    while ref.tables[table].status == "playing" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ref.tables[table].status == "closed", ref.tables[table].status


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


def test_a_sandbox_has_the_seats_and_options_asked_for(db, ref, bot):
    """issue 43 item 3: ``seats`` and ``config`` make the table the bot will meet (old code:
    unknown fields, refused; the table had the fewest seats and no options)."""
    made, _ = bot
    me = Probe(db.url("sandy").with_credentials("sandy", made.password), "sandy",
               (T.reply("sandy"), f"{T.prefix}/t/+/seat/sandy/state"), mqtt_version=5)
    try:
        ok = ask(me, "sandy", SandboxRequest(request_id=rid(), game="summicard", seat=2, seats=3,
                                             config={"variant": "betting", "chips": 7}))
        assert isinstance(ok, Created) and ok.table.startswith("sandbox-"), ok
        held = ref.tables[ok.table]
        assert list(held.players) == ["computer-1", "computer-2", "sandy"]
        assert held.config["variant"] == "betting" and held.config["chips"] == 7
        # what the bot itself is shown: its seat's state, of a 3-seat betting table with 7 chips each
        state = me.wait_for(lambda i, m: isinstance(m, SeatState) and m.table == ok.table, 10)
        assert state.seat == 2 and state.view["options"]["variant"] == "betting", state.view
        assert state.view["options"]["chips"] == 7 and len(state.view["chips"]) == 3, state.view
        closed = ask(me, "sandy", CloseTable(request_id=rid(), table=ok.table, reason="test done"))
        assert isinstance(closed, Closed), closed  # not left to hold the budget
    finally:
        me.close()


def test_a_sandbox_refuses_a_bad_seat_count_or_option_in_words(db, ref, bot):
    made, _ = bot
    me = Probe(db.url("sandy").with_credentials("sandy", made.password), "sandy", (T.reply("sandy"),),
               mqtt_version=5)
    before = set(ref.tables)
    try:
        for req, words in ((SandboxRequest(request_id=rid(), game="summicard", seats=1), "needs 2..100 seats, not 1"),
                           (SandboxRequest(request_id=rid(), game="dragon", seats=3), "needs 4 seats, not 3"),
                           (SandboxRequest(request_id=rid(), game="summicard", config={"chips": 5000}),
                            "chips must be an integer 1..1000, not 5000"),
                           (SandboxRequest(request_id=rid(), game="summicard", config={"colour": "red"}),
                            "unknown summicard option(s): colour"),
                           (SandboxRequest(request_id=rid(), game="summicard", seat=3, seats=3),
                            "seat 3 is not a seat of a 3-seat Summicard sandbox (0..2)")):
            no = ask(me, "sandy", req)
            assert isinstance(no, Error) and no.code == "table/bad-config" and words in no.detail, (req, no)
    finally:
        me.close()
    assert set(ref.tables) == before  # nothing was made


def test_bot_check_with_seats_plays_a_table_of_that_many(db, ref, bot):
    made, pw = bot
    done, _ = bot_check(db, pw, sys.executable, "examples/bots/python/bot.py",
                        flags=("--seats", "3", "--option", "zero_score=best"))
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("moves accepted", "answers in time", "plays to the end"):
        line = next(ln for ln in done.stdout.splitlines() if ln.startswith(name))
        assert " PASS " in line, line
    table = done.stderr.split("sandbox table ")[1].split()[0].rstrip(";")
    held = ref.tables[table]
    assert held.players[0] == "sandy" and list(held.players[1:]) == ["computer-2", "computer-3"], held.players
    assert answered(done.stdout) == sum(1 for h in held.history if h.user == "sandy") > 1, done.stdout
    assert held.config["zero_score"] == "best" and held.status == "finished"


def test_seats_and_options_need_a_broker():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for flags in (["--seats", "3"], ["--option", "variant=betting"]):
        done = subprocess.run([sys.executable, "-m", "summon.clients.cli", "bot-check", "--games", "summicard", *flags,
                               "--", sys.executable, "-c", "pass"], env=env, capture_output=True, text=True,
                              timeout=60, cwd=ROOT)
        assert done.returncode != 0 and "--seats and --option shape the sandbox table of --broker" in done.stderr, \
            done.stdout + done.stderr


def test_bot_check_option_values_are_typed():
    from summon.clients.cli.bot_check import sandbox_options

    assert sandbox_options(("chips=7", "tie=split", "x=0.5", "y=1e3", "on=true", "n=-2", "v=1.2.3", "w=nan")) == {
        "chips": 7, "tie": "split", "x": 0.5, "y": 1000.0, "on": True, "n": -2, "v": "1.2.3", "w": "nan"}


def test_the_proxy_passes_a_bot_through_to_an_mqtts_broker_and_records_what_it_was_sent(tmp_path):
    """A deployment is mqtts://: the remote checker's proxy speaks TLS to the broker, plain MQTT
    to the bot on 127.0.0.1, and records each PUBLISH delivered to the bot (big ones too:
    TLS records split and join differently from TCP reads)."""
    import queue
    import ssl

    from summon.clients.botcheck.proxy import MqttProxy
    from summon.protocol.mqtt import BrokerUrl, Link
    from tests.secbroker import start_tls_broker

    broker, settings, cert = start_tls_broker(tmp_path, {"referee": "referee", "north": "player"})
    public, move = "summon/v1/t/px/public/state", "summon/v1/t/px/move/north"
    feed: queue.Queue = queue.Queue()
    proxy = MqttProxy("127.0.0.1", settings.tls_port, downstream=True, feed=feed,
                      tls=ssl.create_default_context(cafile=str(cert)))
    referee = Link(broker.url("referee"), "referee", subscriptions=(move,)).start()
    north = Link(BrokerUrl("127.0.0.1", proxy.port, "north", broker.passwords["north"]), "north",
                 subscriptions=(public,), mqtt_version=5).start()
    try:
        payloads = [i.to_bytes(2, "big") + b"y" * (i % 3) * 30_000 for i in range(40)]
        for p in payloads:
            referee.publish(public, p)
        got = []
        while len(got) < len(payloads):
            seen = feed.get(timeout=15)
            if seen.kind == "delivered" and seen.topic == public:
                got.append(seen.payload)
        assert got == payloads
        assert [north.inbox.get(timeout=15).payload for _ in payloads] == payloads  # and the bot got them
        north.publish(move, b"m" * 20_000)  # and what the bot sends reaches the broker
        assert referee.inbox.get(timeout=15).payload == b"m" * 20_000
    finally:
        north.close()
        referee.close()
        proxy.close()
        broker.stop()
