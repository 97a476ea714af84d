"""Hostile case 7: a flooding client is rate-limited per user; every table keeps playing.

No timing is asserted here (benchmarks/security_flood.py prints the latency figures):
the test shows *what happens* -- the flooder gets ``rate/limited`` errors (about one per
second, not one per dropped message), the referee drops the excess before decoding it,
another table keeps advancing during the flood, the other seats at the flooder's own
table keep playing (it then waits only for the flooder), and the flooder's normal moves
are accepted again afterwards.
"""

from __future__ import annotations

import queue

import time
import uuid

import msgpack
import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.protocol.messages import Error, Move, decode, encode
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import Topics
from summon.referee.ratelimit import Limited, RateLimitedInbox, RateLimiter, sender_of
from summon.referee.service import RefereeConfig
from tests.helpers import run_in_thread
from tests.secbroker import Raw, RunningReferee

T = Topics()


# --- the limiter itself, on a fake clock --------------------------------------------------

class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_token_bucket_allows_a_burst_then_the_rate():
    clock = FakeClock()
    lim = RateLimiter(rate=10, burst=5, clock=clock)
    assert [lim.allow("a") for _ in range(7)] == [True] * 5 + [False] * 2
    assert lim.allow("b"), "buckets are per user"
    clock.t += 0.25  # 2.5 tokens back
    assert [lim.allow("a") for _ in range(3)] == [True, True, False]
    clock.t += 100
    assert sum(lim.allow("a") for _ in range(10)) == 5, "never more than the burst saved up"
    assert all(RateLimiter(0, 1).allow("x") for _ in range(1000)), "rate 0 = no limit"


def test_accepted_moves_give_their_token_back():
    clock = FakeClock()
    lim = RateLimiter(rate=1, burst=2, clock=clock)
    for _ in range(100):  # a fast bot: every message is an accepted move
        assert lim.allow("bot")
        lim.refund("bot")
    assert lim.allow("bot") and lim.allow("bot") and not lim.allow("bot")
    lim.refund("nobody")  # unknown users: nothing to refund, no error


def test_sender_is_read_from_the_topic_without_decoding():
    assert sender_of("summon/v1/t/tab/move/north") == "north"
    assert sender_of("summon/v1/ctl/director/request") == "director"
    assert sender_of("summon/v1/presence/east") == "east"
    assert sender_of("summon/v1/t/tab/public/state") is None


def test_inbox_drops_over_budget_messages_and_queues_one_notice_per_interval():
    clock = FakeClock()
    inbox = RateLimitedInbox(RateLimiter(rate=1, burst=3, clock=clock), notice_interval=1.0)
    flood = Incoming("summon/v1/t/tab/move/mallory", b"\xc1", False)
    for _ in range(1000):
        inbox.put(flood)
    inbox.put(Incoming("summon/v1/t/tab/move/north", b"ok", False))
    inbox.put(("call", None))  # Referee.call work items pass straight through
    items = [inbox.get_nowait() for _ in range(inbox.qsize())]
    assert items[:3] == [flood] * 3
    assert items[3].topic.endswith("/north") and items[4] == ("call", None)
    assert len(items) == 5 and inbox.dropped_total == 997, "no notice before the window closes"
    with pytest.raises(queue.Empty):
        inbox.get_nowait()
    clock.t += 1.0  # the window closes: the flood has stopped, the loop's next get reports it
    notice = inbox.get_nowait()
    assert isinstance(notice, Limited) and notice.user == "mallory"
    assert notice.dropped == 997, "the notice counts every message dropped in its window (issue 15, item 17)"
    slow = RateLimitedInbox(RateLimiter(rate=0.001, burst=1, clock=clock), notice_interval=1.0)
    slow.put(flood)  # the one token: accepted
    slow.put(flood)  # dropped: opens a window
    clock.t += 0.3
    slow.put(flood)  # dropped, same window
    clock.t += 0.7
    slow.put(flood)  # dropped as the window closes: it carries the notice at once
    got = [slow.get_nowait() for _ in range(slow.qsize())]
    assert got == [flood, Limited("mallory", flood.topic, 3)] and slow.dropped_total == 3


def test_retained_messages_are_never_dropped_and_kept_small():
    """Issue 25: a retained message must reach the referee to be deleted, past any budget
    (15,000 x 65 KB of them were dropped unread and stayed on the broker); what the inbox
    keeps of one is bounded: a presence notice up to what the referee reads, elsewhere one
    byte ("not empty")."""
    clock = FakeClock()
    inbox = RateLimitedInbox(RateLimiter(rate=1, burst=1, clock=clock, byte_rate=10, byte_burst=10), notice_interval=1.0)
    big = b"j" * 65_000
    inbox.put(Incoming("summon/v1/presence/mallory", big, True))  # within the budget (of 1 message)
    for i in range(100):  # past it
        inbox.put(Incoming(f"summon/v1/t/junk {i}/move/mallory", big, True))
    inbox.put(Incoming("summon/v1/t/tab/move/mallory", b"", True))  # a deletion echoed back: nothing to do
    items = [inbox.get_nowait() for _ in range(inbox.qsize())]
    assert len(items) == 101 and inbox.dropped_total == 0  # no way to delete them here: all queued
    assert len(items[0].payload) == 8193
    assert all(it.retain and it.payload == b"j" for it in items[1:])
    # the referee's deleter: past the budget a junk message is deleted at once, never queued
    deleted: list[str] = []
    inbox.on_junk = lambda topic: deleted.append(topic) or True
    for i in range(100):
        inbox.put(Incoming(f"summon/v1/t/junk {i}/move/mallory", big, True))
    assert inbox.qsize() == 0 and len(deleted) == 100 and inbox.junk_deleted == 100
    inbox.put(Incoming("summon/v1/presence/mallory", big, True))  # past the budget: a notice is dropped
    assert inbox.qsize() == 0 and inbox.dropped_total == 1


# --- against the real broker -----------------------------------------------------------------

@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_flooder_is_rate_limited_and_every_table_keeps_playing(mosquitto):
    running = RunningReferee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee",
                                           directors=frozenset({"director"}), rate_limit=50, rate_burst=100))
    ref = running.ref
    own, other = f"fl-{uuid.uuid4().hex[:8]}", f"fl-{uuid.uuid4().hex[:8]}"
    clients = [BotClient(make_bot("random", i), mosquitto.url(u), u, table=own)
               for i, u in enumerate(["east", "south", "west"], 1)]
    clients += [BotClient(make_bot("random", i), mosquitto.url(u), u, table=other)
                for i, u in enumerate(["p1", "p2", "p3", "p4"])]
    for c in clients:
        run_in_thread(lambda c=c: c.run(timeout=240))
    opened: list[Raw] = []
    try:
        # mallory sits at seat 0 of its own table; east (seat 1) bids first
        create_table(mosquitto.url("director"), "director", "dragon", ["mallory", "east", "south", "west"],
                     {"max_hands": 1}, seed=4, table=own)
        create_table(mosquitto.url("director"), "director", "dragon", ["p1", "p2", "p3", "p4"],
                     {}, seed=5, table=other)  # long: still playing after the flood
        flooder = Raw(mosquitto.port, "x", "mallory", "mallory-secret")
        opened.append(flooder)
        assert flooder.connect() == "Success"
        flooder.subscribe(T.seat_all(own, "mallory"))
        time.sleep(0.5)
        before = {t: ref.call(lambda t=t: ref.tables[t].seq) for t in (own, other)}
        assert ref.call(lambda: ref.tables[other].status) == "playing"
        junk = [encode(Move(seq=0, move="pass")), b"\xc1", msgpack.packb({"v": 1, "type": "move"})]
        sent, start = 0, time.monotonic()
        while time.monotonic() - start < 3.0:  # as fast as paho can send, QoS 0
            for _ in range(200):
                flooder.client.publish(T.move(own, "mallory"), junk[sent % 3], qos=0)
                sent += 1
            time.sleep(0.001)
        rate = sent / (time.monotonic() - start)
        after = {t: ref.call(lambda t=t: ref.tables[t].seq) for t in (own, other)}
        # the flooder's own client is slow to read while it floods, and the referee may still
        # be reading the flood's tail: wait for the notice itself (no speed assumed), then
        # collect what else is on its way
        errors: list = []

        def collect(messages) -> None:
            errors.extend(decode(m.payload) for m in messages if m.topic == T.seat_error(own, "mallory"))

        def limited_now() -> list:
            return [e for e in errors if isinstance(e, Error) and e.code == "rate/limited"]

        deadline = time.monotonic() + 60
        while not limited_now() and time.monotonic() < deadline:
            collect(flooder.drain(0.5))
        collect(flooder.drain(1.0))
        limited = limited_now()
        dropped = ref.inbox.dropped_total  # type: ignore[attr-defined]
        print(f"\nflood: {sent} messages at {rate:,.0f}/s; referee dropped {dropped} unread; "
              f"{len(limited)} rate/limited errors; answered {len(errors) - len(limited)}; "
              f"inbox max depth {ref.inbox.max_size}")  # type: ignore[attr-defined]
        assert rate > 1000, "not a flood"
        assert limited, "the flooder was not told it is rate-limited"
        assert limited[0].table == own and "dropped" in limited[0].detail
        elapsed = time.monotonic() - start  # the referee may still read the flood's tail after it ends
        assert len(limited) <= elapsed + 1, "one notice per second at most, not one per dropped message"
        assert dropped > sent / 2, "most of the flood must be dropped before decoding"
        assert len(errors) - len(limited) <= 100 + 50 * elapsed, "only the budget is decoded and answered"
        assert after[other] > before[other], "another table stopped during the flood"
        # at the flooder's own table the other seats played; it waits only for the flooder
        # (seat 0), whose moves drown in its own flood until it calms down
        assert after[own] >= 3 and ref.call(lambda: list(ref.tables[own].game.to_move(ref.tables[own].state))) == [0]
        flooder.close()
        opened.remove(flooder)
        # afterwards the flooder's (now normal) moves are accepted: its bot finishes the game
        mallory = BotClient(make_bot("random", 9), mosquitto.url("mallory"), "mallory", table=own)
        mallory.run(timeout=240)
        assert ref.call(lambda: ref.tables[own].status) == "finished"
        assert running.thread.is_alive()
    finally:
        for raw in opened:  # a flooder left connected would fight the next "mallory" client
            raw.close()
        for c in clients:
            c.request_stop()
        time.sleep(0.5)
        running.stop()


def test_a_duplicate_right_after_a_burst_is_answered_or_counted_never_lost(mosquitto):
    """Issue 25, item 8: a bot author saw a duplicate move go unanswered right after a
    400-message burst (2 of 3 runs).  The cause is the rate limiter: the burst of stale
    copies spent the budget (200 saved up), so the duplicate was dropped unread, and its
    only answer is the window's one ``rate/limited`` error, up to a second later, which
    counts it (protocol/README.md, ``rate/limited``).  Checked here as a client sees it:
    every one of the 401 copies is either answered ``move/stale`` or counted in exactly one
    ``rate/limited`` error, and nothing was applied."""
    running = RunningReferee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee",
                                           directors=frozenset({"director"}), rate_limit=5, rate_burst=50))
    # (a small budget, so that the burst spends it however slowly this machine sends)
    table = f"dup-{uuid.uuid4().hex[:8]}"
    north = Raw(mosquitto.port, "n", "north", "north-secret")
    try:
        create_table(mosquitto.url("director"), "director", "dragon", ["north", "east", "south", "west"],
                     {}, seed=4, table=table)
        assert north.connect() == "Success"
        north.subscribe(T.seat_error(table, "north"))
        seq = running.ref.call(lambda: running.ref.tables[table].seq)
        stale = encode(Move(seq=seq + 7, move="pass"))  # a copy of a move for a seq long gone
        for _ in range(400):  # the burst, QoS 1 as a bot sends it
            north.client.publish(T.move(table, "north"), stale, qos=1)
        assert north.publish(T.move(table, "north"), stale) == "Success"  # the duplicate
        answered = counted = 0
        deadline = time.monotonic() + 15
        while answered + counted < 401 and time.monotonic() < deadline:
            try:
                m = north.messages.get(timeout=0.2)
            except queue.Empty:
                continue
            err = decode(m.payload)
            assert isinstance(err, Error) and err.code in ("move/stale", "rate/limited"), err
            if err.code == "move/stale":
                answered += 1
            else:
                counted += int(err.detail.split(": ")[1].split()[0])  # "...: N dropped unread, ..."
                assert err.seq == seq and err.ref is None
        assert answered + counted == 401, (answered, counted)
        assert counted >= 300, (answered, counted)  # the duplicate was among the dropped: it is the last
        assert not any(decode(m.payload).code for m in north.drain(1.2)), "answered twice"
        assert running.ref.call(lambda: running.ref.tables[table].seq) == seq  # nothing applied
    finally:
        north.close()
        running.stop()
