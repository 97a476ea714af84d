"""The referee's inbox (referee/ratelimit.py ``RateLimitedInbox``) never loses a message to
an exception of its own bookkeeping, taking or putting.

Taking (``get_nowait`` in ``Referee.main_loop`` and ``_gather``): everything ``get`` does
that may raise -- the notice windows' clock (``_due_notice``) -- runs before an item leaves
the queue, and ``queue.Queue.get`` does nothing that can raise after its ``_get``: the take
is atomic already; the first test pins it.

Putting (from ``LoopLink._read``, inside the referee's ``pump``): the checks call back into
the referee (``needless``, ``on_junk``, ``unmetered``) and the limiter's clock.  One that
raised rose out of ``_read`` after the whole read had been acknowledged to the broker: the
message and every later one of that read were lost, and the referee's loop stopped.  Now a
message the checks could not judge is queued as it came (the referee handles it), and the
error is logged.  Over a real Mosquitto, as the referee reads.
"""

from __future__ import annotations

import logging
import queue
import time

import pytest

from summon.protocol.looplink import Caught, LoopLink, Subscription
from summon.protocol.mqtt import Incoming, Link
from summon.referee.ratelimit import Limited, RateLimitedInbox, RateLimiter
from tests.mosquitto import Mosquitto

MOVE = "summon/v1/t/ia/move/north"


class Clock:
    """A clock that can be told to fail."""

    def __init__(self) -> None:
        self.now = 100.0
        self.fail = False

    def __call__(self) -> float:
        if self.fail:
            raise RuntimeError("a broken clock (simulated)")
        return self.now


def test_a_take_whose_bookkeeping_raises_leaves_the_item_queued() -> None:
    """The notice window's clock raises while a message waits: ``get_nowait`` raises, and the
    message is still first in line (and the window still open); the next take returns it,
    then the notice with its true count."""
    clock = Clock()
    inbox = RateLimitedInbox(RateLimiter(rate=1, burst=1, clock=clock))
    inbox.put(Incoming(MOVE, b"a", False))  # spends north's one token
    inbox.put(Incoming(MOVE, b"dropped", False))  # over budget: opens a window
    clock.now += 5  # the window is due
    clock.fail = True
    with pytest.raises(RuntimeError):
        inbox.get_nowait()
    assert inbox.qsize() == 1 and len(inbox._windows) == 1
    clock.fail = False
    first = inbox.get_nowait()
    assert isinstance(first, Limited) and first.dropped == 1  # the due notice first, as always
    assert inbox.get_nowait().payload == b"a"
    with pytest.raises(queue.Empty):
        inbox.get_nowait()


def failing_once(what: str) -> object:
    state = {"left": 1}

    def check(*args: object) -> bool:
        if state["left"]:
            state["left"] -= 1
            raise RuntimeError(f"a bug in {what} (simulated)")
        return False
    return check


@pytest.mark.parametrize("hook", ["needless", "unmetered", "clock"])
def test_a_read_whose_put_raises_loses_no_message(mosquitto: Mosquitto, hook: str, caplog) -> None:
    """North sends five moves; the referee's link reads them (mostly in one read) into a rate
    limited inbox whose check raises on the first: all five are queued, in order, and
    ``pump`` raised nothing.  Before: ``pump`` raised, and what the read held after the
    first was acknowledged to the broker and lost."""
    clock = Clock()
    limiter = RateLimiter(rate=0.001 if hook == "unmetered" else 1000, burst=1 if hook == "unmetered" else 1000,
                          clock=clock)
    inbox = RateLimitedInbox(limiter)
    if hook == "needless":
        inbox.needless = failing_once("needless")  # type: ignore[assignment]
    elif hook == "unmetered":
        inbox.unmetered = failing_once("unmetered")  # type: ignore[assignment]
        limiter.allow("north", 0)  # north's one token spent: the next ones ask ``unmetered``
    subs = (Subscription("summon/v1/t/+/move/+", sub_id=7),)  # what it brings is Caught: ``needless`` asked
    link = LoopLink(mosquitto.url("referee"), "referee", subscriptions=subs, mqtt_version=5, inbox=inbox).start()
    sender = Link(mosquitto.url("north"), "north", mqtt_version=5).start()
    try:
        if hook == "clock":
            real = clock.__call__
            calls = {"n": 0}

            def once() -> float:  # the limiter's clock raises on the first message's check
                calls["n"] += 1
                if calls["n"] == 1:
                    raise RuntimeError("a broken clock (simulated)")
                return real()
            limiter.clock = once
        for i in range(5):
            sender.publish(MOVE, b"m%d" % i)
        sender.publish_wait(MOVE, b"m5")
        got: list[object] = []

        def done() -> bool:
            if hook == "unmetered":
                return inbox.dropped_total >= 5 and any(isinstance(m, Incoming) for m in got)
            return len([m for m in got if isinstance(m, Incoming)]) >= 6
        deadline = time.monotonic() + 10
        with caplog.at_level(logging.ERROR, logger="summon.referee"):
            while not done() and time.monotonic() < deadline:
                link.pump(0.05)
                while not inbox.empty():
                    got.append(inbox.get_nowait())
        payloads = [m.payload for m in got if isinstance(m, Incoming)]
        if hook == "unmetered":  # past the budget: the first (not judged) is queued; the rest asked, and dropped
            assert payloads[:1] == [b"m0"] and inbox.dropped_total == 5
        else:
            assert payloads == [b"m%d" % i for i in range(6)]
        assert any("queued unchecked" in r.getMessage() for r in caplog.records)
    finally:
        sender.close()
        link.close()


def test_a_caught_copy_whose_check_raises_is_queued() -> None:
    inbox = RateLimitedInbox(RateLimiter(rate=0, burst=0))
    inbox.needless = failing_once("needless")  # type: ignore[assignment]
    inbox.put(Caught(MOVE, b"x", False))
    assert inbox.get_nowait().payload == b"x"
