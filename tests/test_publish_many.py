"""``Link.publish_many``: every message arrives, in order, with one wake-up of paho's thread.

Why a test of its own: it holds back paho's socketpair wake-up while it queues (the
referee's six messages per move, issue 14), so a mistake there would show as messages
sent late or never -- a publish_many of many messages must still arrive whole and in order,
and a plain ``publish`` after it must not be stuck behind a lost wake-up.
"""

from __future__ import annotations

import queue

import pytest

from protocol.mqtt import Link
from tests.mosquitto import Mosquitto

P = "summon/v1"


@pytest.mark.broker
def test_publish_many_delivers_every_message_in_order_and_later_publishes_still_go(mosquitto: Mosquitto) -> None:
    topic = f"{P}/t/pm-1/seat/north/state"
    sub = Link(mosquitto.url("north"), "pm-north", subscriptions=(f"{P}/t/+/seat/north/#",)).start()
    pub = Link(mosquitto.url("referee"), "pm-referee").start()
    try:
        pub.publish_many([(topic, b"%d" % i, False) for i in range(200)])
        got = [sub.inbox.get(timeout=10).payload for _ in range(200)]
        assert got == [b"%d" % i for i in range(200)]
        assert pub._client._sockpairW is not None, "paho's wake-up socket was not given back"
        pub.publish(topic, b"after")  # the wake-up was given back: this one is not held
        assert sub.inbox.get(timeout=5).payload == b"after"
        pub.publish_many([])
        pub.publish_many([(topic, b"retained", True)])
        assert sub.inbox.get(timeout=5).payload == b"retained"
        with pytest.raises(queue.Empty):
            sub.inbox.get(timeout=0.2)
    finally:
        pub.publish_many([(topic, b"", True)])
        pub.close()
        sub.close()
