"""The cheaper send path frames and queues exactly what the old one did, byte for byte.

Why: issue 45 cut the CPU of framing a move's publishes (a ``Struct`` per topic length and
a frame cached per topic in ``mqttwire.qos1_head``, the head inlined and the packet id
counted in a local in ``LoopLink.publish_many``, ``_fill_window`` counted once).  Bots
written for earlier protocol versions must play unchanged, so nothing on the wire may move:
the old path (benchmarks/send_framing.py, that code verbatim, kept once) runs on a twin
``LoopLink`` writing to a real socket pair, and the bytes that left and still wait, the
in-flight entries, the queue behind the Receive Maximum window and the next packet id are
compared after each step: a first batch, PUBACKs read from the socket (refilling the
window), a second batch whose ids wrap onto ones still in flight or in line (the old path
with the ids in line reserved: it took them again), all acknowledged, and a resend after a
reconnect.  What left is also cut by ``mqttwire.Parser`` and read back.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.send_framing import old_fill_window, old_publish_many, old_qos1_head
from summon.protocol import mqttwire as wire
from summon.protocol.looplink import LoopLink
from summon.protocol.mqtt import BrokerUrl, LinkError


@dataclass(frozen=True)
class Msg:
    topic: str
    payload: bytes
    retain: bool = False


TOPICS = ["a", "summon/v1/t/t0/public/events", "summon/v1/t/n1a2b-17/seat/bot-3/state",
          "é/ü/€/𝄞/" * 9, "t/" + "x" * 300]  # one byte to 300, two-, three- and four-byte UTF-8
BOUNDARIES = (127, 128, 16383, 16384, 2097151, 2097152)  # remaining lengths either side of a varint's 1/2/3/4 bytes


def payload_for(topic: str, remaining: int, v5: bool) -> bytes:
    """A payload that makes a QoS1 PUBLISH to ``topic`` exactly ``remaining`` bytes long
    after its fixed header (topic and its length, packet id, MQTT 5's empty properties)."""
    size = remaining - 2 - len(topic.encode()) - (3 if v5 else 2)
    return (bytes(range(256)) * (size // 256 + 1))[:size]


def boundary_batch(v5: bool, big: bool) -> list[Msg]:
    """Every topic at the 1/2- and 2/3-byte remaining-length boundaries, one topic at the
    3/4-byte ones (2 MiB: only if ``big``),
    retained and not, then small ones (empty payloads, a move's size)."""
    out = []
    for i, remaining in enumerate(BOUNDARIES):
        for j, topic in enumerate(TOPICS if remaining <= 0x4000 else TOPICS[2:3]):
            if remaining > 0x4000 and not big:
                continue
            out.append(Msg(topic, payload_for(topic, remaining, v5), retain=(i + j) % 2 == 0))
    out += [Msg(t, b"", retain=k % 2 == 1) for k, t in enumerate(TOPICS)]
    out += [Msg(t, b"m" * 950) for t in TOPICS]
    return out


def twin(v5: bool, window: int, start: int, pending: set[int], old: bool) -> tuple[LoopLink, socket.socket]:
    """A "connected" link on one end of a socket pair (the other end is returned: nothing
    reaches a broker); ``old``: its window refills the old way."""
    link = LoopLink(BrokerUrl(port=1), "twin", mqtt_version=5 if v5 else 3)
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    theirs.setblocking(False)
    link._sock = ours  # type: ignore[assignment]
    link._window, link._next_mid = window, start
    link._pending_subacks.update(pending)
    if old:
        link._fill_window = lambda: old_fill_window(link)  # type: ignore[method-assign]
    return link, theirs


def drain(link: LoopLink, theirs: socket.socket, got: bytearray) -> None:
    """Send everything the link has, reading it at the other end as it goes."""
    while True:
        link._flush()
        try:
            while chunk := theirs.recv(1 << 20):
                got += chunk
        except BlockingIOError:
            pass
        if not link._out:
            return


def state(link: LoopLink, got: bytearray) -> tuple[Any, ...]:
    """What left, what waits in the buffer, the in-flight entries, the queue, the next id."""
    return bytes(got), bytes(link._out), list(link._unacked.items()), list(link._queued), link._next_mid


def puback(link: LoopLink, theirs: socket.socket, mids: list[int]) -> None:
    """The broker acknowledges ``mids``; the link reads it (refilling its window)."""
    theirs.sendall(b"".join(wire.puback(m) for m in mids))
    link._read()


def old_reserving(link: LoopLink, batch: list[Msg]) -> None:
    """The old path, but with the ids in line reserved as the current one keeps them (the old
    path took them again once the ids wrapped past the line: two publishes with one id;
    test_no_two_publishes_in_flight_or_in_line_share_an_id)."""
    reserved = {m for m, _ in link._queued} - link._pending_subacks
    link._pending_subacks |= reserved
    try:
        old_publish_many(link, batch)
    finally:
        link._pending_subacks -= reserved


def published(stream: bytes, v5: bool) -> list[tuple[str, bytes, bool, int, bool]]:
    """The PUBLISHes in ``stream``, cut by the parser: (topic, payload, retain, id, dup)."""
    out = []
    for kind, flags, body in wire.Parser().feed(stream):
        assert kind == wire.PUBLISH and flags & 0x06 == 0x02  # QoS1
        topic, payload, _, retain, mid = wire.publish_info(flags, body, v5=v5)
        out.append((topic, payload, retain, mid, bool(flags & 0x08)))
    return out


@pytest.mark.parametrize("v5", [False, True], ids=["3.1.1", "5"])
@pytest.mark.parametrize("window", [1, 7, 20, 1000])
@pytest.mark.parametrize("start, pending", [(0, set()), (65530, {65533, 1}), (65534, {2})])
def test_the_send_path_gives_the_old_bytes_ids_window_and_queue_at_every_step(v5, window, start, pending):
    big = window == 7  # the 2 MiB packets once per version and start: enough to cross the 3/4-byte varint
    first = boundary_batch(v5, big)
    second = [Msg(m.topic, m.payload[:300], not m.retain) for m in first[::-1]]
    links = {old: twin(v5, window, start, pending, old) for old in (True, False)}
    got = {old: bytearray() for old in (True, False)}

    def step(what: Any) -> None:
        for old, (link, theirs) in links.items():
            what(old, link, theirs)
            drain(link, theirs, got[old])
        assert state(links[True][0], got[True]) == state(links[False][0], got[False])

    def send(batch: list[Msg]) -> Any:
        return lambda old, link, _: old_reserving(link, batch) if old else link.publish_many(batch)

    step(send(first))
    in_flight = list(links[False][0]._unacked)
    step(lambda old, link, theirs: puback(link, theirs, in_flight[::2]))  # every other one: holes in the ids
    step(lambda old, link, _: setattr(link, "_next_mid", start))  # the ids wrap onto ones still in flight
    step(send(second))
    while links[False][0]._unacked:  # all acknowledged, a window at a time
        acked = list(links[False][0]._unacked)
        step(lambda old, link, theirs: puback(link, theirs, acked))
    step(send(first[:3]))
    step(lambda old, link, _: link._resend())  # a reconnect: what is in flight goes again, DUP
    sent = published(bytes(got[False]), v5)
    expected = first + second + first[:3]
    fresh = [(t, p, r) for t, p, r, _, dup in sent if not dup]
    assert fresh == [(m.topic, m.payload, m.retain) for m in expected[:len(expected) - len(links[False][0]._queued)]]
    assert len(sent) > len(fresh) and all(dup for *_, dup in sent[len(fresh):])  # the resent ones: last, DUP
    for link, theirs in links.values():
        link._sock.close()  # type: ignore[union-attr]
        theirs.close()


def wrap_ids(link: LoopLink, times: int) -> None:
    """Spend ``times`` packet ids as SUBSCRIBEs the broker acknowledged (a fleet's tables
    subscribed and unsubscribed while the publishes waited): the counter moves on as in
    real life, the ids are free again."""
    for _ in range(times):
        link._on_suback(link._mid().to_bytes(2, "big") + b"\x00")


@pytest.mark.parametrize("batched", [True, False], ids=["publish_many", "publish"])
def test_no_two_publishes_in_flight_or_in_line_share_an_id(batched):
    """Ids that wrap past a long line: a new publish must not take the id of one still in
    line.  Before, it did (only ids in flight and SUBSCRIBEs were checked): refilling the
    window then put the second in the first's place in flight, so the first was never sent
    again after a reconnect (and the broker's PUBACK for it settled the other) -- a state
    lost.  Now the ids in line are skipped as the ones in flight are."""
    link, theirs = twin(False, 2, 0, set(), False)
    got = bytearray()

    def send(batch: list[Msg]) -> None:
        if batched:
            link.publish_many(batch)
        else:
            for m in batch:
                link.publish(m.topic, m.payload, m.retain)

    def ids() -> list[int]:
        return list(link._unacked) + [m for m, _ in link._queued]

    send([Msg("a", b"a%d" % i) for i in range(3)])  # ids 1 and 2 in flight, 3 in line
    wrap_ids(link, 65535 - 3)  # ids 4..65535: the counter comes round
    send([Msg("b", b"b%d" % i) for i in range(2)])  # 1 and 2 are in flight; 3 is in line: not that one
    assert len(set(ids())) == len(ids()) == 5, ids()
    assert not link._pending_subacks
    puback(link, theirs, [1, 2])  # a0, a1 acknowledged: a2 and b0 go (before: b0 took a2's place)
    assert len(set(ids())) == len(ids()), ids()
    link._resend()  # a reconnect: every publish not acknowledged is sent again, or waits in line
    waiting = [p for _, p in link._unacked.values()] + [p for _, (_, p) in link._queued]
    assert waiting == [b"a2", b"b0", b"b1"]
    drain(link, theirs, got)
    assert link._queued_ids >= {m for m, _ in link._queued}
    link._sock.close()  # type: ignore[union-attr]
    theirs.close()


def test_publishes_past_every_free_id_raise_instead_of_sharing_one():
    """A line as long as the id space (a link that cannot send for a long while): the
    publish that would need a 65,536th id raises ``LinkError``; before, it reused one."""
    link = LoopLink(BrokerUrl(port=1), "offline", mqtt_version=5)
    link.publish_many([Msg("a", b"") for _ in range(65535)])
    with pytest.raises(LinkError):
        link.publish_many([Msg("a", b"x")])
    with pytest.raises(LinkError):
        link.publish("a", b"y")
    assert len(link._queued) == 65535


def test_a_batch_that_fails_halfway_leaves_what_the_old_path_left():
    """A topic too long for MQTT raises in the middle of a batch: the publishes before it
    are queued and the packet id it took is spent, as before (the id is kept in a local
    while the batch is framed)."""
    batch = [Msg("a/b", b"x"), Msg("c" * 70000, b"y"), Msg("a/b", b"z")]
    links = {old: twin(True, 20, 65534, set(), old) for old in (True, False)}
    got = bytearray()
    for old, (link, _) in links.items():
        with pytest.raises(wire.WireError):
            old_publish_many(link, batch) if old else link.publish_many(batch)
    assert state(links[True][0], got) == state(links[False][0], got)
    assert links[False][0]._next_mid == 1


def test_every_id_in_flight_raises_and_leaves_the_next_id_where_the_old_path_did():
    links = {old: twin(False, 70000, 0, set(), old) for old in (True, False)}
    for old, (link, _) in links.items():
        link._unacked.update((m, (b"", b"")) for m in range(1, 65536))
        with pytest.raises(LinkError):
            old_publish_many(link, [Msg("a", b"")]) if old else link.publish_many([Msg("a", b"")])
    assert links[True][0]._next_mid == links[False][0]._next_mid


def test_the_frames_are_kept_per_topic_in_the_cache_the_referee_trims():
    """A referee sends to the same topics for a whole game: their frames are cached, but a
    referee that plays thousands of games must not keep every topic it ever used: the
    frames live in ``_topic``, the cache ``referee.tablecap.trim_table_caches`` empties
    (tests/test_table_caches.py), not in one of their own that nothing trims."""
    wire._topic.cache_clear()
    wire.qos1_head("a/é", 10, False, 1, True)
    wire.qos1_head("a/é", 200, True, 2, False)
    assert wire._topic.cache_info().currsize == 1 and wire._topic.cache_info().maxsize == 1 << 14
    assert wire.qos1_frames("a/é")[1][2] == wire._str("a/é")
    assert wire._head_structs.cache_info().maxsize == 512


remaining = st.sampled_from([0, 1, 100, 126, 127, 128, 129, 1000, 16382, 16383, 16384, 16385, 70000])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TOPICS + ["z" * 40]), remaining, st.booleans(), st.integers(1, 65535), st.booleans())
def test_a_head_is_the_old_head(topic, rem, retain, mid, v5):
    size = max(rem - 2 - len(topic.encode()) - (3 if v5 else 2), 0)
    assert wire.qos1_head(topic, size, retain, mid, v5) == old_qos1_head(topic, size, retain, mid, v5)


msgs = st.lists(st.builds(Msg, st.sampled_from(TOPICS), st.sampled_from([0, 1, 90, 91, 92, 93, 94, 95, 1000, 16330,
                                                                         16331, 16332, 16333, 16334, 20000])
                          .map(bytes), st.booleans()), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(msgs, min_size=1, max_size=4), st.booleans(), st.sampled_from([1, 2, 7, 20, 1000]),
       st.sampled_from([0, 1, 65000, 65533, 65534, 65535]), st.sets(st.integers(1, 65535), max_size=3),
       st.lists(st.booleans(), max_size=200))
def test_batches_and_acknowledgements_in_any_order_give_the_old_state(batches, v5, window, start, pending, acks):
    """Batches framed one after another, each followed by some of the in-flight ids
    acknowledged (``acks`` picks which), then the window refilled: the same state as the
    old path's after every step (no socket: ``_sock`` stands in, nothing leaves)."""
    links = []
    for _ in range(2):
        link = LoopLink(BrokerUrl(port=1), "twin", mqtt_version=5 if v5 else 3)
        link._sock, link._window, link._next_mid = object(), window, start  # type: ignore[assignment]
        link._pending_subacks.update(pending)
        links.append(link)
    old, new = links
    picks = iter(acks)
    for batch in batches:
        old_publish_many(old, batch)
        new.publish_many(batch)
        acked = [m for m in list(new._unacked) if next(picks, True)]
        for link in links:
            for m in acked:
                del link._unacked[m]
        old_fill_window(old)
        new._fill_window()
        assert state(old, bytearray()) == state(new, bytearray())
