"""A move's publishes framed in one pass give the very packets of one-at-a-time framing.

Why: ``LoopLink.publish_many`` (issue 45 item 3) frames each QoS1 publish as a head
(``mqttwire.qos1_head``) written with its payload straight into the output buffer, and keeps
head and payload apart for a resend.  The packets on the wire, their ids, the Receive Maximum
window and the queue behind it must be exactly those of the path before it: each packet built
whole by ``mqttwire.publish`` and appended (``old_publish`` below, that code verbatim, run on
a twin link).  tests/test_mqttwire_bytes.py holds the same over a socket against bytes
written out from the spec.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from summon.protocol import mqttwire as wire
from summon.protocol.looplink import LoopLink
from summon.protocol.mqtt import BrokerUrl


@dataclass(frozen=True)
class Msg:
    topic: str
    payload: bytes
    retain: bool = False


def old_publish(link: LoopLink, topic: str, payload: bytes, retain: bool) -> int:
    """``LoopLink.publish`` at QoS1 before issue 45 item 3 (204dfe2), on ``link``'s fields:
    its in-flight entries are whole packets (bytes), not (head, payload)."""
    mid = link._mid()
    packet = wire.publish(topic, payload, qos=1, retain=retain, mid=mid, v5=link._v5)
    if link._sock is not None and len(link._unacked) < link._window and not link._queued:
        link._unacked[mid] = packet  # type: ignore[assignment]
        link._out += packet
    else:
        link._queued.append((mid, packet))  # type: ignore[arg-type]
    return mid


def twin(v5: bool, connected: bool, window: int, busy: list[int], pending: list[int], start: int) -> LoopLink:
    """A link in a given state, never connected for real: ``_sock`` stands in for a socket
    (nothing is sent: no ``pump``), ``busy`` ids are in flight, ``pending`` await a SUBACK."""
    link = LoopLink(BrokerUrl(port=1), "twin", mqtt_version=5 if v5 else 3)
    link._sock = object() if connected else None  # type: ignore[assignment]
    link._window = window
    link._next_mid = start
    link._pending_subacks.update(pending)
    return link


def as_bytes(entry: object) -> bytes:
    return entry if isinstance(entry, bytes) else b"".join(entry)  # type: ignore[arg-type]


topics = st.sampled_from(["a/b", "summon/v1/t/n1a2b-17/seat/bot-3/state", "summon/v1/t/x/public/state", "é/ü" * 40])
sizes = st.sampled_from([0, 1, 100, 116, 117, 118, 119, 120, 125, 126, 127, 128, 1000, 16300, 16384, 70000])
msgs = st.lists(st.builds(Msg, topics, sizes.map(lambda n: bytes(range(256)) * (n // 256) + bytes(n % 256)),
                          st.booleans()), min_size=1, max_size=14)


@settings(max_examples=400, deadline=None)
@given(msgs, st.booleans(), st.booleans(), st.integers(1, 12), st.lists(st.integers(1, 65535), max_size=4),
       st.lists(st.integers(1, 65535), max_size=3), st.sampled_from([0, 1, 7, 65530, 65534, 65535]),
       st.integers(0, 5))
def test_publish_many_gives_the_packets_ids_window_and_queue_of_one_at_a_time(
        batch, v5, connected, window, busy, pending, start, before) -> None:
    old, new = twin(v5, connected, window, busy, pending, start), twin(v5, connected, window, busy, pending, start)
    for m in busy:  # publishes already in flight (the same on both, in each one's form)
        old._unacked[m] = wire.publish("x", b"", qos=1, retain=False, mid=m, v5=v5)  # type: ignore[assignment]
        new._unacked[m] = (wire.qos1_head("x", 0, False, m, v5), b"")
    for i in range(before):  # and some sent one at a time before the batch, as the referee's errors are
        old_publish(old, "e/r", b"err%d" % i, False)
        new.publish("e/r", b"err%d" % i)
    for m in batch:
        old_publish(old, m.topic, m.payload, m.retain)
    new.publish_many(batch)
    assert bytes(new._out) == bytes(old._out)
    assert [(k, as_bytes(v)) for k, v in new._unacked.items()] == list(old._unacked.items())
    assert [(k, as_bytes(v)) for k, v in new._queued] == list(old._queued)
    assert new._next_mid == old._next_mid
    # after a reconnect the in-flight ones go again, DUP, then the queue fills the window
    new._out.clear()
    line = [wire.with_dup(as_bytes(p)) for p in new._unacked.values()] + [as_bytes(p) for _, p in new._queued]
    new._resend()
    assert bytes(new._out) == b"".join(line[:window])


@settings(max_examples=200, deadline=None)
@given(topics, sizes, st.booleans(), st.integers(1, 65535), st.booleans())
def test_a_head_and_its_payload_are_the_publish_packet(topic, size, retain, mid, v5) -> None:
    payload = b"p" * size
    packet = wire.publish(topic, payload, qos=1, retain=retain, mid=mid, v5=v5)
    assert wire.qos1_head(topic, size, retain, mid, v5) + payload == packet
    assert wire.with_dup(wire.qos1_head(topic, size, retain, mid, v5)) + payload == wire.with_dup(packet)


@settings(max_examples=300, deadline=None)
@given(st.lists(msgs, min_size=1, max_size=8), st.booleans(), st.booleans(), st.integers(1, 12),
       st.lists(st.integers(1, 65535), max_size=4), st.sampled_from([0, 1, 7, 65530, 65534, 65535]))
def test_a_batch_in_one_publish_many_is_its_moves_one_publish_many_each(moves, v5, connected, window, busy,
                                                                        start) -> None:
    """``Referee._send_batch`` frames a whole group-commit batch in one ``publish_many``
    where it made one per move: the same packets, ids, window and queue (the referee-level
    comparison, Later placeholders and the mover's split included, is tests/test_batch_send.py)."""
    per_move, one = twin(v5, connected, window, busy, [], start), twin(v5, connected, window, busy, [], start)
    for link in (per_move, one):
        for m in busy:
            link._unacked[m] = (wire.qos1_head("x", 0, False, m, v5), b"")
    for move in moves:
        per_move.publish_many(move)
    one.publish_many([m for move in moves for m in move])
    assert bytes(one._out) == bytes(per_move._out)
    assert [(k, as_bytes(v)) for k, v in one._unacked.items()] == [(k, as_bytes(v)) for k, v in per_move._unacked.items()]
    assert [(k, as_bytes(v)) for k, v in one._queued] == [(k, as_bytes(v)) for k, v in per_move._queued]
    assert one._next_mid == per_move._next_mid
