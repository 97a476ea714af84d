"""The inbox's short ways (referee/ratelimit.py ``RateLimitedInbox.put`` and ``get_nowait``,
issue 45: fewer lock round trips per message; ``take``, issue 45 item 5: no ``Empty`` raised
in a pass that finds nothing) do what ``queue.Queue``'s ``put``/``qsize`` and
``RateLimitedInbox.get(False)`` did, step for step.

A speed change, not a behaviour change: these pass on the code before it too.  Each test
runs the same operations on the inbox and on a twin taken the old way
(``RateLimitedInbox.get(False)``, ``queue.Queue.put``), and compares what comes out.
"""

from __future__ import annotations

import queue
import threading

import pytest

from summon.protocol.mqtt import Incoming
from summon.referee.ratelimit import Limited, RateLimitedInbox, RateLimiter

MOVE = "summon/v1/t/fx/move/{}"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def old_get_nowait(inbox: RateLimitedInbox) -> object:
    """The take before: ``get(False)`` through ``queue.Queue.get``."""
    return RateLimitedInbox.get(inbox, False)


def taking(inbox: RateLimitedInbox) -> object:
    """``take`` as ``get_nowait`` says it: ``Empty`` where it returns None."""
    item = inbox.take()
    if item is None:
        raise queue.Empty
    return item


def drain(take, inbox: RateLimitedInbox) -> list[object]:
    out = []
    while True:
        try:
            out.append(take(inbox))
        except queue.Empty:
            return out


def describe(item: object) -> tuple[object, ...]:
    if isinstance(item, Limited):
        return ("limited", item.user, item.topic, item.dropped)
    assert isinstance(item, Incoming)
    return ("msg", item.topic, item.payload, item.retain)


def fill(inbox: RateLimitedInbox, clock: Clock) -> None:
    """Messages from three users, one of them over budget (a window of drops that falls due)."""
    for i in range(6):
        inbox.put(Incoming(MOVE.format("north"), f"n{i}".encode(), False))
        inbox.put(Incoming(MOVE.format("east"), f"e{i}".encode(), False))
    clock.now += 5  # north's window is due: its notice comes first
    inbox.put(Incoming(MOVE.format("south"), b"s", False))


@pytest.mark.parametrize("limited", [False, True])
def test_the_same_items_in_the_same_order(limited: bool) -> None:
    got = []
    for take in (RateLimitedInbox.get_nowait, old_get_nowait, taking):
        clock = Clock()
        inbox = RateLimitedInbox(RateLimiter(rate=1 if limited else 0, burst=3, clock=clock))
        fill(inbox, clock)
        assert inbox.max_size == inbox.qsize() and inbox.unfinished_tasks == inbox.qsize()
        got.append([describe(i) for i in drain(take, inbox)])
        with pytest.raises(queue.Empty):
            take(inbox)
        inbox.put(Incoming(MOVE.format("west"), b"w", False))  # after Empty, as before
        got[-1].append(describe(take(inbox)))
    assert got[0] == got[1] == got[2]
    assert (got[0][0][0] == "limited") is limited  # the due notice first, only when there was one


def test_a_put_wakes_a_waiting_get_and_counts_for_join() -> None:
    """``put`` still notifies ``not_empty`` (a thread blocked in ``get``) and counts an
    unfinished task (``join``/``task_done``), as ``queue.Queue.put`` does."""
    inbox = RateLimitedInbox(RateLimiter(rate=0, burst=0))
    got: list[object] = []
    ready = threading.Event()

    def waiter() -> None:
        ready.set()
        got.append(inbox.get(timeout=30))
        inbox.task_done()

    t = threading.Thread(target=waiter)
    t.start()
    ready.wait()
    inbox.put(Incoming(MOVE.format("north"), b"x", False))
    t.join(30)
    assert not t.is_alive() and len(got) == 1 and got[0].payload == b"x"  # type: ignore[attr-defined]
    inbox.join()  # the put's task was done: returns at once
    assert inbox.max_size == 1


def test_a_bounded_inbox_takes_the_queue_way() -> None:
    """With a ``maxsize`` (no referee makes one) both ways are ``queue.Queue``'s own: a full
    inbox refuses ``put(block=False)``, and a take makes room."""
    inbox = RateLimitedInbox(RateLimiter(rate=0, burst=0))
    inbox.maxsize = 1
    inbox.put(Incoming(MOVE.format("north"), b"1", False))
    with pytest.raises(queue.Full):
        inbox.put(Incoming(MOVE.format("north"), b"2", False), block=False)
    assert inbox.get_nowait().payload == b"1"  # type: ignore[attr-defined]
    inbox.put(Incoming(MOVE.format("north"), b"3", False), block=False)
    assert inbox.get_nowait().payload == b"3"  # type: ignore[attr-defined]


def test_take_finds_a_notice_that_fell_due_while_the_queue_was_empty() -> None:
    """``take`` reads an empty queue without the lock only when no window of drops is open:
    a notice due from an empty queue comes out, as from ``get_nowait``."""
    clock = Clock()
    inbox = RateLimitedInbox(RateLimiter(rate=1, burst=1, clock=clock))
    for _ in range(3):  # one kept, two dropped: north's window opens
        inbox.put(Incoming(MOVE.format("north"), b"n", False))
    assert describe(inbox.take()) == ("msg", MOVE.format("north"), b"n", False)
    assert inbox.take() is None  # the window is open, its notice not due yet
    clock.now += 5
    assert describe(inbox.take()) == ("limited", "north", MOVE.format("north"), 2)
    assert inbox.take() is None and inbox.qsize() == 0
