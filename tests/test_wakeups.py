"""The loop sleeps until something is due (issue 45, docs/scale.md "Fewer wake-ups").

It used to wake every 0.1 s whatever was due: an idle referee made ten passes a second,
each a kernel sleep and wake-up (~40-120 us of the loop's CPU).  Now the tick notes when
its tickers next have work (a clock's deadline, a house bot's move, an absent player's
grace, the once-a-second sweeps) and ``pump`` waits until then, at most ``MAX_WAIT_S``;
``call()``, ``request_stop()`` and the broker still cut the wait short.

Here: the loop on a fake clock (exact: which waits it makes, and a clock timing out at its
deadline), the seat keeper's due times, and an idle referee over a real Mosquitto (its
passes a second, a prompt ``call()`` and a prompt stop).
"""

from __future__ import annotations

import math
import threading
import time
import types
from typing import Any

import pytest

from summon.referee.service import MAX_WAIT_S, Referee, RefereeConfig
from summon.referee.store import MEMORY, Store
from tests.refthread import start_referee
from tests.test_clock_referee import Recorded

PLAYERS = ["north", "east", "south", "west"]


class FakeClock:
    """``time`` as the service module sees it: it moves only when the loop waits in ``pump``."""

    def __init__(self) -> None:
        self.t = 1000.0

    def monotonic(self) -> float:
        return self.t

    perf_counter = monotonic

    def sleep(self, s: float) -> None:
        self.t += s


class SleepyLink:
    """Stands in for the MQTT link of a referee nobody talks to: each ``pump`` waits out its
    whole timeout on the fake clock (nothing arrives), and the waits are recorded."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.waits: list[float] = []
        self.refused = None
        self.connects = 0
        self.connected = threading.Event()  # not connected: recovery's tick republishes nothing

    def pump(self, timeout: float = 0.0) -> bool:
        self.waits.append(timeout)
        self.clock.t += timeout
        if len(self.waits) > 200:  # a loop that never sleeps would spin here for ever
            raise AssertionError("the loop keeps waking without waiting")
        return False

    def publish(self, topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> None:
        pass

    def publish_many(self, messages: Any) -> None:
        pass

    def flush(self) -> None:
        pass

    def wake(self) -> None:
        pass


def sleepy_referee(monkeypatch: pytest.MonkeyPatch) -> tuple[Referee, SleepyLink, FakeClock]:
    clock = FakeClock()
    monkeypatch.setattr("summon.referee.service.time", types.SimpleNamespace(
        monotonic=clock.monotonic, perf_counter=clock.perf_counter, sleep=clock.sleep, time=time.time))
    ref = Referee(RefereeConfig(directors=frozenset({"director"}), rate_limit=0, rate_bytes=0))
    ref.store = Store(MEMORY)
    ref._link = link = SleepyLink(clock)  # type: ignore[assignment]
    return ref, link, clock


def test_an_idle_loop_sleeps_until_a_clock_runs_out_and_times_it_out_at_its_deadline(monkeypatch):
    ref, link, clock = sleepy_referee(monkeypatch)
    table = ref.create_table("dragon", PLAYERS, {"target": 100}, seed=3, table_id="t", clock={"move": 2.35})
    deadline = table.clock.deadline(1)  # east bids first; nobody moves
    assert deadline == pytest.approx(1002.35)
    ref._status_due = False  # the status after the create: not what is tested here (it would tick at once)
    timed_out: list[float] = []

    def timeout(table: Any, seat: int, now: float) -> None:
        timed_out.append(now)
        ref.request_stop()
    monkeypatch.setattr(ref.seats, "_timeout", timeout)
    ref.main_loop()
    assert timed_out == [deadline]  # at its deadline, not up to a tick (0.1 s) later
    # the start's passes (the bot leaderboard's first computation is posted back), then it
    # waited for the pruner's once-a-second sweep and for the deadline: 6 passes where the
    # fixed 0.1 s tick made 25
    assert len(link.waits) <= 7, link.waits
    assert max(link.waits) == MAX_WAIT_S and sum(link.waits) == pytest.approx(2.35)


def test_an_idle_loop_with_nothing_due_wakes_once_a_second(monkeypatch):
    ref, link, clock = sleepy_referee(monkeypatch)
    for i in range(3):  # untimed tables: nothing of theirs is ever due
        ref.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=f"t{i}")
    ref._status_due = False
    monkeypatch.setattr(ref, "_stop", types.SimpleNamespace(is_set=lambda: clock.t >= 1010.0))
    ref.main_loop()
    assert len(link.waits) <= 15, link.waits  # ten seconds: 13 passes (the fixed tick made 100)
    assert all(w <= MAX_WAIT_S for w in link.waits)


def test_the_seat_keeper_notes_when_its_next_work_is_due():
    r = Recorded()
    table = r.table({"move": 10, "grace": 3})
    seats = r.ref.seats
    start = table.clock.started[1]  # east bids first
    seats.tick(start + 1)
    assert seats.due == start + 10  # east's clock runs out
    seats.offline["north"] = start + 2  # north's connection dropped: its grace runs out first
    seats.tick(start + 3)
    assert seats.due == start + 5
    seats.tick(start + 5)  # the house takes north's seat (north is not to move): the clock next
    assert table.house == {0: "absent"} and seats.due == start + 5
    seats.tick(start + 6)
    assert seats.due == start + 10
    table.house[1] = "left"  # the house holds the seat to move: it plays, and is due again at once
    seats.tick(start + 7)
    assert table.seq == 1 and seats.due == start + 7
    seats.forget("t")
    seats.tick(start + 8)
    assert seats.due == math.inf  # nothing watched


def test_an_absent_players_grace_is_a_due_time():
    r = Recorded()
    table = r.table({"grace": 30})  # no clock: only the grace
    assert table.clock is None
    r.ref.seats.offline["north"] = 100.0
    r.ref.seats.tick(110.0)
    assert r.ref.seats.due == 130.0
    r.ref.seats.tick(130.0)  # the house takes north's seat: due again at once
    assert table.house == {0: "absent"} and r.ref.seats.due == 130.0


@pytest.mark.broker
def test_an_idle_referee_over_mosquitto_sleeps_and_still_answers_and_stops_at_once(mosquitto):
    from summon.clients.bots import HOUSE_BOTS

    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee",
                                directors=frozenset({"director"})), house_bots=HOUSE_BOTS)
    thread = start_referee(ref)
    try:
        for i in range(3):
            ref.call(lambda i=i: ref.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=f"t{i}"))
        time.sleep(1.5)  # the status and the creates' acknowledgements
        passes = [0]
        tick = ref._tick

        def counting() -> None:
            passes[0] += 1
            tick()
        ref._tick = counting  # type: ignore[method-assign]
        time.sleep(4.0)
        assert passes[0] <= 10, f"{passes[0]} loop passes in 4 s"  # the fixed 0.1 s tick: ~40
        assert time.monotonic() - ref.last_tick <= MAX_WAIT_S + 0.5  # it still ticks (/healthz)
        t0 = time.monotonic()
        assert ref.call(lambda: len(ref.tables)) == 3
        assert time.monotonic() - t0 < 0.5  # call() wakes the sleeping loop
    finally:
        t0 = time.monotonic()
        ref.request_stop()
        while not ref._closing and time.monotonic() - t0 < 5.0:  # the loop has ended: shutdown begins
            time.sleep(0.01)
        stopped = time.monotonic() - t0
        thread.join(10)
    assert not thread.is_alive() and stopped < 0.9  # woken, not at its next tick
