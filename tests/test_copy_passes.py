"""A pass whose only input was a fleet's catch-all copies, dropped unread, does not bring the
tick forward (issue 45 item 5, docs/scale.md "A copy-only pass").

In a fleet of R, (R-1)/R of the moves' catch-all copies reach a referee that does not hold
the table, alone, each waking its loop for a pass of its own (``Referee._needless_copy``
drops them in the inbox).  Such a pass used to count as stirred: it pulled the next tick to
within ``TICK_S`` of the last, so a referee with few moves of its own ran a tick for nearly
every copy.  Here, on the fake clock of tests/test_wakeups.py: copies alone leave the tick
at its own due times; a copy that came with anything else (another packet, a copy that was
kept and answered) still stirs it, as before.  And over a real Mosquitto: what
``LoopLink.heard`` counts, which tells the two apart.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from summon.protocol.looplink import Caught, LoopLink
from summon.protocol.messages import decode
from summon.protocol.topics import Topics
from summon.referee.service import MAX_WAIT_S, Referee
from tests.mosquitto import Mosquitto
from tests.test_looplink import pump_until
from tests.test_wakeups import PLAYERS, FakeClock, SleepyLink, sleepy_referee

T = Topics("summon/v1")
GAP_S = 0.05  # a copy every 50 ms: 20 a second, as a member of a fleet of 4 gets at ~27 moves/s a member
SECONDS = 4.0


class CopyLink(SleepyLink):
    """A link that brings a catch-all copy on ``topic`` every ``GAP_S`` (fake clock) and
    nothing else, counting as ``LoopLink._read`` does: ``received`` before the inbox's
    ``put``; with ``heard_too`` each copy comes with another packet (``LoopLink.heard``)."""

    def __init__(self, clock: FakeClock, ref: Referee, topic: str, heard_too: bool = False) -> None:
        super().__init__(clock)
        self.ref, self.topic, self.heard_too = ref, topic, heard_too
        self.next_copy = clock.t + GAP_S
        self.received = self.heard = 0
        self.sent: list[tuple[str, Any]] = []

    def pump(self, timeout: float = 0.0) -> bool:
        self.waits.append(timeout)
        if len(self.waits) > 400:
            raise AssertionError("the loop keeps waking without waiting")
        if self.clock.t + timeout < self.next_copy:
            self.clock.t += timeout
            return False
        self.clock.t = max(self.clock.t, self.next_copy)
        self.next_copy += GAP_S
        self.received += 1
        self.heard += self.heard_too
        self.ref.inbox.put(Caught(self.topic, b"\x80", False))
        return True

    def publish(self, topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> None:
        self.sent.append((topic, decode(payload) if payload else None))

    def publish_many(self, messages: Any) -> None:  # LoopLink.publish_many: each, in order
        for m in messages:
            self.publish(m.topic, m.payload, m.retain)


def copies_at(monkeypatch: pytest.MonkeyPatch, table: str, heard_too: bool = False) -> tuple[Referee, CopyLink, int]:
    """A referee holding table ``t``, as a fleet's (its inbox drops needless copies), fed
    copies of moves at ``table`` for ``SECONDS``; how many ticks it ran."""
    ref, _, clock = sleepy_referee(monkeypatch)
    ref.create_table("dragon", PLAYERS, {"target": 100}, seed=1, table_id="t")  # untimed: nothing of it falls due
    ref._status_due = False
    ref.inbox.needless = ref._needless_copy  # what startup sets in a fleet (store.shared)
    ref._link = link = CopyLink(clock, ref, T.move(table, "east"), heard_too)  # type: ignore[assignment]
    ticks = [0]
    tickers = ref._tickers

    def counted(now: float) -> float:
        ticks[0] += 1
        return tickers(now)
    monkeypatch.setattr(ref, "_tickers", counted)
    end = clock.t + SECONDS
    monkeypatch.setattr(ref, "_stop", type("Stop", (), {"is_set": staticmethod(lambda: clock.t >= end)})())
    ref.main_loop()
    return ref, link, ticks[0]


def test_copies_alone_of_a_held_tables_moves_do_not_bring_the_tick_forward(monkeypatch):
    ref, link, ticks = copies_at(monkeypatch, "t")
    assert ref.inbox.needless_dropped == link.received >= SECONDS / GAP_S - 1  # every copy dropped in the inbox
    # the tick at its own due times (the pruner's once-a-second sweep): ~5, where each copy
    # pulling it to within 0.1 s of the last made one every other copy (~40)
    assert ticks <= SECONDS + 3, ticks
    assert max(link.waits) <= MAX_WAIT_S


def test_a_copy_that_came_with_another_packet_still_brings_the_tick_forward(monkeypatch):
    ref, link, ticks = copies_at(monkeypatch, "t", heard_too=True)
    assert ref.inbox.needless_dropped == link.received
    assert ticks >= SECONDS / 0.1 - 5, ticks  # within TICK_S of the last tick, as every stirred pass


def test_a_copy_of_an_unknown_tables_move_is_answered_and_brings_the_tick_forward(monkeypatch):
    ref, link, ticks = copies_at(monkeypatch, "nope")
    assert ref.inbox.needless_dropped == 0  # not needless: the whole way, as before
    errors = [m for topic, m in link.sent if topic == T.seat_error("nope", "east")]
    assert len(errors) == link.received and {e.code for e in errors} == {"table/unknown"}
    assert ticks >= SECONDS / 0.1 - 5, ticks


def test_heard_counts_what_came_besides_publishes(mosquitto: Mosquitto) -> None:
    """A read that brought publishes only leaves ``heard`` as it was; a PUBACK, a wake-up,
    a lost connection count (``Referee._only_copies`` reads it)."""
    sender = LoopLink(mosquitto.url("east"), "east", mqtt_version=5).start()
    link = LoopLink(mosquitto.url("referee"), "referee", subscriptions=("summon/v1/t/+/move/+",),
                    mqtt_version=5).start()
    try:
        heard = link.heard
        sender.publish(T.move("c", "east"), b"x", qos=0)
        sender.flush()
        assert pump_until(link, lambda: link.received >= 1)
        assert link.heard == heard  # a publish alone
        link.publish(T.public_state("c"), b"s")  # QoS 1: the broker's PUBACK comes back
        assert pump_until(link, lambda: not link.in_flight)
        assert link.heard == heard + 1
        link.wake()
        link.pump(1.0)
        assert link.heard == heard + 2
        link._lost("a test drops it")  # the reconnect that follows counts too
        assert link.heard == heard + 3
        deadline = time.monotonic() + 10
        while link.connects < 2 and time.monotonic() < deadline:
            link.pump(0.05)
        assert link.connects == 2 and link.heard >= heard + 4
    finally:
        sender.close()
        link.close()
