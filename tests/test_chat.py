"""Table chat end to end: a real Mosquitto with the project's ACL, a real referee.

The promises (protocol/README.md "Chat"): seated players write, everyone watching reads;
an account without a seat is refused in words, a spectator cannot publish at all; size and
rate limits answer in words and an honest table plays on; a line is durable before it is
relayed, survives a SIGKILL of the referee and is in the replay export for every audience;
chat never arrives on a seat topic; the retained log goes with the table.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from typing import Any
from collections.abc import Callable

import msgpack
import pytest

from summon.clients.bots import make_bot
from summon.clients.director import close_table, create_table
from summon.clients.replay import load, steps
from summon.clients.sdk import BotClient
from summon.protocol.chat import MAX_CHARS
from summon.protocol.messages import Chat, encode
from summon.protocol.topics import Topics
from summon.referee.service import Referee, RefereeConfig
from tests.helpers import run_in_thread
from tests.mosquitto import password
from tests.secbroker import Raw

pytestmark = pytest.mark.broker
T = Topics()
SEATS = ["north", "east", "south", "west"]
SUMMON = [sys.executable, "-m", "summon.clients.cli"]


def new_table_id() -> str:
    return f"chat-{uuid.uuid4().hex[:8]}"


class Client:
    """One account's raw MQTT 5 connection (the broker binds client id = username, so a
    user has exactly one), recording every decoded message it receives."""

    def __init__(self, port: int, user: str, *subscriptions: str) -> None:
        self.user = user
        self.raw = Raw(port, user, user, password(user), v5=True)
        assert self.raw.connect() == "Success"
        for topic in subscriptions:
            assert self.raw.subscribe(topic) != ["no SUBACK"]
        self.seen: list[tuple[str, Any]] = []

    def say(self, table: str, text: str = "", preset: str | None = None, payload: bytes | None = None) -> str:
        body = payload if payload is not None else encode(Chat(text=text, preset=preset))
        return self.raw.publish(T.chat(table, self.user), body)

    def wait(self, pred: Callable[[str, Any], bool], timeout: float = 15.0) -> Any:
        """The first message (seen before or arriving now) for which ``pred(topic, msg)`` holds."""
        for topic, m in self.seen:
            if pred(topic, m):
                return m
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                got = self.raw.messages.get(timeout=min(left, 0.2))
            except Exception:
                continue
            m = msgpack.unpackb(got.payload, raw=False) if got.payload else None
            self.seen.append((got.topic, m))
            if pred(got.topic, m):
                return m
        raise AssertionError(f"{self.user}: expected message did not arrive; saw {[t for t, _ in self.seen][-10:]}")

    def line(self, n: int, timeout: float = 15.0) -> dict:
        return self.wait(lambda t, m: m is not None and m.get("type") == "chat_line" and m["n"] == n, timeout)

    def error(self, code: str, timeout: float = 15.0) -> dict:
        return self.wait(lambda t, m: m is not None and m.get("type") == "error" and m["code"] == code, timeout)

    def close(self) -> None:
        self.raw.close()


def seated(mosquitto, user: str, table: str) -> Client:
    return Client(mosquitto.port, user, T.public_all(table), T.seat_all(table, user))


def make_table(referee, players=SEATS, **config) -> str:
    tid = new_table_id()
    referee.call(lambda: referee.create_table("dragon", players, {"max_hands": 1, **config}, seed=3, table_id=tid))
    routed(referee, tid)
    return tid


def routed(referee, tid: str, timeout: float = 15.0) -> None:
    """Until the referee holds ``tid`` and the broker granted its subscriptions to the table.

    Why: on PostgreSQL a referee is a fleet of one and subscribes to each table's chat and
    moves itself (referee/fleet.py ``own``), holding the table's states back until the
    moves' SUBACK; its chat subscription, sent first, is granted by then.  A chat line sent
    before that reached nobody (the PostgreSQL runs failed now and then on a loaded
    machine).  A player sees the table's state first, so only a test can be that early."""
    deadline = time.monotonic() + timeout
    while not referee.call(lambda: tid in referee.tables and tid not in referee._gates):
        assert time.monotonic() < deadline, f"the referee never held {tid} with its subscriptions granted"
        time.sleep(0.02)


# --- relay, readers, the seat rule --------------------------------------------------------------

@pytest.mark.usefixtures("any_store")
def test_seated_players_chat_spectators_read_and_nobody_else_writes(mosquitto, referee):
    tid = make_table(referee)
    north, east = seated(mosquitto, "north", tid), seated(mosquitto, "east", tid)
    mallory = Client(mosquitto.port, "mallory", T.seat_all(tid, "mallory"), T.public_all(tid))
    fan = Client(mosquitto.spectator_port, "spec1", T.public_all(tid))
    try:
        markup = "hello <img src=x onerror=alert(1)> & bye"
        assert north.say(tid, markup) == "Success"
        assert east.say(tid, preset="gl") == "Success"
        for reader in (north, east, mallory, fan):
            one, two = reader.line(1), reader.line(2)
            assert (one["user"], one["seat"], one["text"], one["preset"]) == ("north", 0, markup, None)
            assert (two["user"], two["seat"], two["text"], two["preset"]) == ("east", 1, "Good luck!", "gl")
        # an account with no seat at the table: refused in words, on its own error topic, not relayed
        assert mallory.say(tid, "let me in") == "Success"
        err = mallory.error("chat/not-seated")
        assert err["ref"] == "chat" and err["table"] == tid and "everyone watching can read" in err["detail"]
        assert north.say(tid, "after mallory") == "Success"
        assert fan.line(3)["text"] == "after mallory" and fan.line(3)["user"] == "north"  # mallory's was never n=3
        # a late joiner (a page reload, a spectator arriving) gets the recent chat: the retained log
        late = Client(mosquitto.spectator_port, "spec2", T.chat_log(tid))
        try:
            log = late.wait(lambda t, m: m is not None and m.get("type") == "chat_log" and len(m["lines"]) == 3)
            assert [ln["text"] for ln in log["lines"]] == [markup, "Good luck!", "after mallory"]
        finally:
            late.close()
        # chat never travels on a seat topic: the players' seat topics carried seat states and nothing else
        for player in (north, east):
            seat_topics = [(t, m) for t, m in player.seen if "/seat/" in t]
            assert seat_topics and all(m["type"] == "seat_state" for t, m in seat_topics), seat_topics
            assert not any("hello" in json.dumps(m) for t, m in seat_topics)
    finally:
        for c in (north, east, mallory, fan):
            c.close()


def test_a_spectator_cannot_publish_chat_nor_anyone_in_anothers_name(mosquitto, referee):
    tid = make_table(referee)
    north = seated(mosquitto, "north", tid)
    fan = Raw(mosquitto.spectator_port, "spec1", "spec1", password("spec1"), v5=True)
    assert fan.connect() == "Success"
    try:
        # the spectators' listener has no write line: PUBACK 0x87, nothing reaches the referee
        assert fan.publish(T.chat(tid, "spec1"), encode(Chat(text="spectator here"))) == "Not authorized"
        # on the players' listener the ACL binds the chat topic to its username, as for moves
        assert north.raw.publish(T.chat(tid, "east"), encode(Chat(text="I am east"))) == "Not authorized"
        assert north.say(tid, "really north") == "Success"
        first = north.line(1)
        assert (first["user"], first["text"]) == ("north", "really north")  # the refused two were never relayed
        assert referee.call(lambda: referee.tables[tid].chat_n) == 1
    finally:
        fan.close()
        north.close()


# --- limits -------------------------------------------------------------------------------------

def test_oversized_and_malformed_chat_is_refused_in_words(mosquitto, referee):
    tid = make_table(referee)
    north = seated(mosquitto, "north", tid)
    try:
        north.say(tid, "x" * 1024)
        err = north.error("chat/too-long")
        assert err["ref"] == "chat" and f"at most {MAX_CHARS} characters" in err["detail"] and "1024" in err["detail"]
        north.say(tid, "two\nlines")
        assert "control or formatting" in north.error("chat/bad-text")["detail"]
        north.say(tid, "   ")
        north.error("chat/empty")
        north.say(tid, preset="lol")
        assert "gg" in north.error("chat/unknown-preset")["detail"]
        north.say(tid, payload=encode(Chat(text="y" * 10_000)))  # over the referee's 8 KiB: not even decoded
        assert "8192" in north.error("msg/too-large")["detail"]
        north.say(tid, payload=msgpack.packb({"v": 1, "type": "chat", "text": "hi", "user": "east"}))
        north.error("msg/bad-field")
        exact = "é" * MAX_CHARS  # 300 characters (600 bytes) is within the limit
        north.say(tid, f"  {exact}  ")
        assert north.line(1)["text"] == exact  # trimmed; the refused ones were never numbered
    finally:
        north.close()
    # 64 KiB: the broker itself disconnects the sender (MQTT 5 reason 0x95) before the referee sees it
    big = Raw(mosquitto.port, "north", "north", password("north"), v5=True)
    assert big.connect() == "Success"
    try:
        assert big.publish(T.chat(tid, "north"), encode(Chat(text="z" * 65_536)), timeout=5) == "no PUBACK"
        assert big.disconnects >= 1  # (paho reconnects and re-sends it: disconnected again each time)
    finally:
        big.close()
    assert referee.call(lambda: referee.tables[tid].chat_n) == 1
    assert referee.call(lambda: referee.tables[tid].status) == "playing"


def test_a_chat_flood_is_limited_in_words_and_an_honest_table_plays_on(mosquitto, referee):
    noisy = make_table(referee, players=["mallory", "p1", "p2", "p3"])
    honest = new_table_id()
    bots = [BotClient(make_bot("dragon-heuristic", i), mosquitto.url(u), u, table=honest) for i, u in enumerate(SEATS)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in bots]
    mallory = seated(mosquitto, "mallory", noisy)
    try:
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"max_hands": 1}, seed=11, table=honest)
        start = time.monotonic()
        for i in range(300):
            mallory.raw.client.publish(T.chat(noisy, "mallory"), encode(Chat(text=f"spam {i}")), qos=0)
        err = mallory.error("rate/limited")
        assert err["ref"] == "chat" and "at most 6 at once" in err["detail"] and "not sent" in err["detail"]
        for t in threads:
            t.join(120)
        elapsed = time.monotonic() - start
        assert referee.call(lambda: referee.tables[honest].status) == "finished", "the honest table stalled"
        relayed = referee.call(lambda: referee.tables[noisy].chat_n)
        assert 6 <= relayed <= 6 + int(elapsed * 0.5) + 1, (relayed, elapsed)
        assert mallory.line(relayed)["text"].startswith("spam ")
    finally:
        mallory.close()  # (the bots are stopped by conftest's autouse fixture)


# --- durable, restored, replayed, cleared -----------------------------------------------------

def test_chat_survives_a_sigkill_and_is_in_the_replay_export(mosquitto, tmp_path):
    from tests.test_faults import RefereeProcess

    db = tmp_path / "referee.db"
    ref = RefereeProcess(mosquitto, db)
    ref.start()
    ref.wait_up()
    tid = new_table_id()
    north = east = None
    try:
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"max_hands": 1}, seed=5, table=tid)
        north, east = seated(mosquitto, "north", tid), seated(mosquitto, "east", tid)
        north.say(tid, preset="gl")
        east.say(tid, "you too <b>east</b>")
        assert east.line(2)["user"] == "east"  # relayed, so already committed (durable before publish)
        ref.kill()  # SIGKILL: nothing is flushed or said
        ref.start()
        ref.wait_up()
        north.say(tid, "back again")
        third = east.line(3)  # the counter came back from the store: n goes on at 3
        assert (third["user"], third["text"]) == ("north", "back again")
        log = east.wait(lambda t, m: m is not None and m.get("type") == "chat_log" and len(m["lines"]) == 3)
        assert [ln["n"] for ln in log["lines"]] == [1, 2, 3]
        out = tmp_path / "game.json"
        done = subprocess.run([*SUMMON, "replay", "export", tid, "--db", str(db), "--unfinished", "-o", str(out)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        rep = load(out)
        assert [(c.n, c.user, c.text, c.preset) for c in rep.chat] == [
            (1, "north", "Good luck!", "gl"), (2, "east", "you too <b>east</b>", None), (3, "north", "back again", None)]
        data = json.loads(out.read_text())
        for audience, frames in data["frames"].items():  # chat is public: every audience's replay has every line
            said = [f["message"]["text"] for f in frames if f["topic"] == "public/chat"]
            assert said == ["Good luck!", "you too <b>east</b>", "back again"], audience
        assert sum(1 for s in steps(rep, 2) for r in s.received if r.topic == "public/chat") == 3
        shown = subprocess.run([*SUMMON, "replay", "show", str(out), "--as", "south"], capture_output=True, text=True,
                               timeout=120)
        assert shown.returncode == 0 and "chat, east: you too <b>east</b>" in shown.stdout, shown.stderr
    finally:
        for c in (north, east):
            if c is not None:
                c.close()
        ref.stop()


def test_a_forgotten_tables_chat_log_is_cleared_with_its_other_states(mosquitto):
    cfg = RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", directors=frozenset({"director"}),
                        keep_closed_s=0.3)
    ref = Referee(cfg)
    thread = run_in_thread(ref.run)
    assert ref.ready.wait(10)
    north = None
    try:
        tid = make_table(ref)
        north = seated(mosquitto, "north", tid)
        north.say(tid, "gg, stopping here")
        north.wait(lambda t, m: t == T.chat_log(tid) and m is not None)
        close_table(mosquitto.url("director"), "director", tid, "chat lifecycle test")
        north.wait(lambda t, m: t == T.chat_log(tid) and m is None)  # the empty retained publish: deleted
        north.wait(lambda t, m: t == T.public_state(tid) and m is None)
    finally:
        if north is not None:
            north.close()
        ref.request_stop()
        thread.join(10)
    late = Client(mosquitto.spectator_port, "spec1", T.public_all(tid))
    try:
        # nothing retained is left for that table (the broker sends retained messages right after the SUBACK)
        assert late.raw.drain(1.0) == []
    finally:
        late.close()


@pytest.mark.usefixtures("any_store")
def test_a_restarted_referee_numbers_on_from_the_stored_chat(mosquitto, tmp_path):
    """Both stores (SQLite, and PostgreSQL where a restarted referee adopts the table): the
    lines are in the store, and the counter and the log come back from it."""
    cfg = RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", directors=frozenset({"director"}),
                        db=str(tmp_path / "referee.db"))
    tid = new_table_id()
    for run in range(2):
        ref = Referee(cfg)
        thread = run_in_thread(ref.run)
        assert ref.ready.wait(10)
        south = None
        try:
            if run == 0:
                ref.call(lambda: ref.create_table("dragon", SEATS, {"max_hands": 1}, seed=3, table_id=tid))
            routed(ref, tid)  # PostgreSQL: adopted once the old lease expires (ttl 1 s), then subscribed
            south = seated(mosquitto, "south", tid)
            south.say(tid, f"line of run {run}")
            line = south.line(2 * run + 1)
            assert line["text"] == f"line of run {run}"
            south.say(tid, preset="wait")
            assert south.line(2 * run + 2)["text"] == "One moment…"
            stored = ref.call(lambda: [(c.n, c.user, c.text) for c in ref.store.chats(tid)])
            assert stored[-2:] == [(2 * run + 1, "south", f"line of run {run}"), (2 * run + 2, "south", "One moment…")]
            assert len(stored) == 2 * run + 2
        finally:
            if south is not None:
                south.close()
            ref.request_stop()
            thread.join(10)


def test_a_version_1_store_gains_the_chat_table_and_a_read_only_one_reads_no_chat(tmp_path):
    import sqlite3

    from summon.referee.store import ChatRecord, Store, TableRecord

    path = tmp_path / "v1.db"
    db = sqlite3.connect(path)  # the tables of schema version 1 only
    db.executescript("""
        CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, players TEXT NOT NULL, config TEXT NOT NULL,
                             seed TEXT NOT NULL, created REAL NOT NULL, status TEXT NOT NULL, clock TEXT, result TEXT,
                             finished REAL);
        CREATE TABLE moves (table_id TEXT NOT NULL, seq INTEGER NOT NULL, seat INTEGER NOT NULL, user TEXT NOT NULL,
                            move TEXT NOT NULL, time REAL NOT NULL, spent_ms INTEGER NOT NULL DEFAULT 0,
                            flags TEXT NOT NULL DEFAULT '', PRIMARY KEY (table_id, seq));
        CREATE TABLE seat_events (table_id TEXT NOT NULL, at_seq INTEGER NOT NULL, seat INTEGER NOT NULL,
                                  kind TEXT NOT NULL, reason TEXT, time REAL NOT NULL);
        PRAGMA user_version = 1;""")
    db.execute("INSERT INTO tables VALUES ('old', 'dragon', '[\"a\",\"b\",\"c\",\"d\"]', '{}', '1', 0, 'playing',"
               " NULL, NULL, NULL)")
    db.commit()
    db.close()
    assert Store(str(path), readonly=True).chats("old") == []  # an old file, read as it is
    store = Store(str(path))  # opened for writing: the new table is created, nothing else changes
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert store.table("old") is not None and store.chats("old") == []
    store.append_chat("old", ChatRecord(1, "a", 0, 0, "hi", None, 1.5))
    store.append_chat("old", ChatRecord(2, "b", 1, 0, "Good luck!", "gl", 2.5))
    assert [c.text for c in store.chats("old")] == ["hi", "Good luck!"]
    assert [c.n for c in store.chats("old", last=1)] == [2]
    store.create_table(TableRecord("new", "dragon", ("a", "b", "c", "d"), {}, 1, 0.0))
    store.close()
