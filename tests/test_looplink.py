"""The referee's own MQTT link (protocol/looplink.py, protocol/mqttwire.py) over a real Mosquitto.

The referee's whole suite runs over it too; these tests pin what the referee relies on and
what is hard to reach through a referee: order and completeness under load, sizes that need
every remaining-length width, reconnects with publishes in flight, refusals, the will.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summon.protocol import mqttwire as wire
from summon.protocol.looplink import LoopLink
from summon.protocol.mqtt import BrokerUrl, Link, LinkError, LinkRefused
from tests.mosquitto import Mosquitto

PUBLIC = "summon/v1/t/ll/public/state"  # the referee writes it, every player may read it
MOVE = "summon/v1/t/ll/move/north"  # north writes it, the referee reads it


def pump_until(link: LoopLink, cond, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        link.pump(0.02)
        if cond():
            return True
    return cond()


def drain(link: Link, n: int, seconds: float = 15.0) -> list:
    got, deadline = [], time.monotonic() + seconds
    while len(got) < n and time.monotonic() < deadline:
        try:
            got.append(link.inbox.get(timeout=0.1))
        except Exception:
            pass
    return got


# --- the codec ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 127, 128, 16383, 16384, 2097151, 2097152, wire.MAX_REMAINING])
def test_remaining_length_at_every_width(n: int) -> None:
    enc = wire.varint(n)
    assert len(enc) == (1 if n < 128 else 2 if n < 16384 else 3 if n < 2097152 else 4)
    assert wire.varint_at(enc, 0) == (n, len(enc))
    with pytest.raises(wire.WireError):
        wire.varint(wire.MAX_REMAINING + 1)


packets = st.lists(st.tuples(st.text(min_size=1, max_size=40), st.binary(max_size=20000), st.integers(0, 1),
                             st.booleans(), st.integers(1, 65535)), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(packets, st.booleans(), st.integers(1, 5000))
def test_the_parser_cuts_any_chunking_into_the_packets_sent(items, v5, chunk) -> None:
    stream = b"".join(wire.publish(t, p, qos=q, retain=r, mid=m, v5=v5) for t, p, q, r, m in items)
    parser, got = wire.Parser(), []
    for i in range(0, len(stream), chunk):
        got += parser.feed(stream[i:i + chunk])
    assert [k for k, _, _ in got] == [wire.PUBLISH] * len(items)
    for (_kind, flags, body), (t, p, q, r, m) in zip(got, items):
        assert wire.publish_info(flags, body, v5=v5) == (t, p, q, r, m if q else 0)


def test_a_connack_gives_its_reason_and_receive_maximum() -> None:
    assert wire.connack(b"\x00\x04", v5=False).reason == 134  # 3.1.1 "bad user name or password"
    assert wire.connack(b"\x00\x05", v5=False).reason == 135
    props = b"\x22\x00\x0a" + b"\x21\x00\x14" + b"\x12\x00\x03abc"  # alias max, receive max 20, client id
    got = wire.connack(b"\x00\x00" + wire.varint(len(props)) + props, v5=True)
    assert got == wire.Connack(0, 20)


def test_an_overlong_length_is_a_wire_error() -> None:
    with pytest.raises(wire.WireError):
        wire.Parser().feed(b"\x30\xff\xff\xff\xff\x01")
    with pytest.raises(wire.WireError):
        wire.Parser(max_packet=100).feed(b"\x30" + wire.varint(101))


# --- over the broker ------------------------------------------------------------------------
@pytest.mark.parametrize("version", [3, 5])
def test_thousands_of_publishes_arrive_complete_and_in_order(mosquitto: Mosquitto, version: int) -> None:
    """Bursts far over the broker's Receive Maximum, sizes at every remaining-length width."""
    watcher = Link(mosquitto.url("north"), "north", subscriptions=(PUBLIC,), mqtt_version=version).start()
    link = LoopLink(mosquitto.url("referee"), "referee", mqtt_version=version).start()
    try:
        sizes = [0, 100, 200, 20_000, 40_000]
        n = 2000
        for i in range(n):
            link.publish(PUBLIC, i.to_bytes(4, "big") + b"x" * sizes[i % len(sizes)])
        assert pump_until(link, lambda: link.in_flight == 0, 30), f"{link.in_flight} never acknowledged"
        got = drain(watcher, n, 30)
        assert [int.from_bytes(m.payload[:4], "big") for m in got] == list(range(n))
        assert [len(m.payload) - 4 for m in got] == [sizes[i % len(sizes)] for i in range(n)]
    finally:
        link.close()
        watcher.close()


@pytest.mark.parametrize("version", [3, 5])
def test_it_receives_what_it_subscribed_to_and_acknowledges_it(mosquitto: Mosquitto, version: int) -> None:
    sender = Link(mosquitto.url("north"), "north", mqtt_version=version).start()
    sender.publish_wait(MOVE, b"retained", retain=True)
    link = LoopLink(mosquitto.url("referee"), "referee", subscriptions=("summon/v1/t/+/move/+",),
                    mqtt_version=version).start()
    try:
        assert pump_until(link, lambda: link.inbox.qsize() >= 1)
        first = link.inbox.get_nowait()
        assert (first.topic, first.payload, first.retain) == (MOVE, b"retained", True)
        for i in range(200):
            sender.publish(MOVE, b"m%d" % i)
        got = []
        assert pump_until(link, lambda: (got.extend(iter_inbox(link)), len(got) >= 200)[1])
        assert [m.payload for m in got] == [b"m%d" % i for i in range(200)]
        assert not any(m.retain for m in got)
    finally:
        sender.publish_wait(MOVE, b"", retain=True)
        sender.close()
        link.close()


def iter_inbox(link: LoopLink):
    while not link.inbox.empty():
        yield link.inbox.get_nowait()


def test_publishes_made_while_the_broker_is_down_arrive_after_it_is_back(mosquitto: Mosquitto) -> None:
    link = LoopLink(mosquitto.url("referee"), "referee", subscriptions=("summon/v1/t/+/move/+",)).start()
    watcher = None
    try:
        mosquitto.stop()
        assert pump_until(link, lambda: not link.connected.is_set(), 10)
        for i in range(50):
            link.publish(PUBLIC, b"%d" % i, retain=(i == 49))
        mosquitto.restart()
        assert pump_until(link, lambda: link.connects == 2 and link.in_flight == 0, 20), "no reconnect"
        watcher = Link(mosquitto.url("north"), "north", subscriptions=(PUBLIC,)).start()
        assert drain(watcher, 1)[0].payload == b"49", "the last retained publish reached the new broker"
        watcher.publish(MOVE, b"after")  # the link subscribed again after the reconnect
        assert pump_until(link, lambda: any(m.payload == b"after" for m in iter_inbox(link)))
    finally:
        if watcher is not None:
            watcher.publish_wait(PUBLIC, b"", retain=True)
            watcher.close()
        link.close()


def test_unacknowledged_publishes_are_sent_again_after_a_lost_connection(mosquitto: Mosquitto) -> None:
    watcher = Link(mosquitto.url("north"), "north", subscriptions=(PUBLIC,)).start()
    link = LoopLink(mosquitto.url("referee"), "referee").start()
    try:
        for i in range(30):
            link.publish(PUBLIC, b"%d" % i)
        link._sock.close()  # the connection dies with all 30 queued and none acknowledged
        link._sock = None
        link._lost("test")
        assert link.in_flight == 30
        assert pump_until(link, lambda: link.connects == 2 and link.in_flight == 0, 15)
        got = [m.payload for m in drain(watcher, 30)]
        assert got == [b"%d" % i for i in range(30)]
    finally:
        link.close()
        watcher.close()


def test_a_wrong_password_is_refused_at_once(mosquitto: Mosquitto) -> None:
    bad = mosquitto.url("referee").with_credentials("referee", "wrong")
    started = time.monotonic()
    with pytest.raises(LinkRefused, match="refused 'referee' with the password given: not authorized"):
        LoopLink(bad, "referee").start()
    assert time.monotonic() - started < 5


def test_no_broker_is_a_link_error_naming_it() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LinkError, match="not connected to mqtt://127.0.0.1"):
        LoopLink(BrokerUrl(port=port), "referee").start(timeout=1.0)


def test_the_generated_broker_lets_the_referee_keep_1000_publishes_in_flight(mosquitto: Mosquitto) -> None:
    """issue 45: on MQTT 5 Mosquitto sends ``max_inflight_messages`` as its Receive Maximum and
    the link obeys it.  The generated config (referee/brokerconf.py, which the fixture's broker
    runs) left Mosquitto's default, 20: three moves of the referee's output per round trip."""
    from summon.referee.brokerconf import MAX_INFLIGHT

    from summon.referee.brokerconf import Bridge, edge_conf
    from summon.referee.lobbyconf import lobby_conf

    assert "max_inflight_messages 1000" in (mosquitto.directory / "mosquitto.conf").read_text()
    assert "max_inflight_messages 1000" in edge_conf(1885, "/acl", "/passwd", Bridge("edge", "127.0.0.1", 1884, "pw", "x1"))
    assert "max_inflight_messages 1000" in lobby_conf(1886, "/acl", "/passwd", [])
    link = LoopLink(mosquitto.url("referee"), "referee", mqtt_version=5).start()
    try:
        assert link._window == MAX_INFLIGHT == 1000, link._window
    finally:
        link.close()


def test_a_takeover_ends_it_for_good(mosquitto: Mosquitto) -> None:
    link = LoopLink(mosquitto.url("referee"), "referee", mqtt_version=5).start()
    other = Link(mosquitto.url("referee"), "referee-2", mqtt_version=5).start()  # same account: same client id
    try:
        assert pump_until(link, lambda: link.refused is not None, 10)
        with pytest.raises(LinkRefused, match="took this connection over"):
            link.check()
        time.sleep(1.5)
        link.pump(0.1)
        assert other.connected.is_set(), "the one that took over keeps its connection"
    finally:
        other.close()
        link.close()


def test_the_will_is_published_when_the_connection_dies_and_not_on_close(mosquitto: Mosquitto) -> None:
    watcher = Link(mosquitto.url("north"), "north", subscriptions=(PUBLIC,)).start()
    try:
        link = LoopLink(mosquitto.url("referee"), "referee", will=(PUBLIC, b"gone")).start()
        link.close()
        assert drain(watcher, 1, 1.5) == []
        link = LoopLink(mosquitto.url("referee"), "referee", will=(PUBLIC, b"gone")).start()
        link._sock.shutdown(socket.SHUT_RDWR)  # no DISCONNECT: as if killed
        got = drain(watcher, 1, 10)
        assert got and got[0].payload == b"gone"
        link.close()
    finally:
        watcher.close()


def test_wake_cuts_a_wait_short_from_another_thread(mosquitto: Mosquitto) -> None:
    link = LoopLink(mosquitto.url("referee"), "referee").start()
    try:
        threading.Timer(0.2, link.wake).start()
        started = time.monotonic()
        link.pump(5.0)
        assert time.monotonic() - started < 2.0
    finally:
        link.close()


def test_publish_wait_returns_once_acknowledged(mosquitto: Mosquitto) -> None:
    link = LoopLink(mosquitto.url("referee"), "referee").start()
    try:
        assert link.publish_wait(PUBLIC, b"x", retain=True)
        assert link.in_flight == 0
        assert link.publish_wait(PUBLIC, b"", retain=True)
    finally:
        link.close()


def test_over_tls_with_big_records_both_ways(tmp_path) -> None:
    """mqtts://: the same link over TLS (records split and joined differently from TCP reads)."""
    import ssl

    from tests.secbroker import start_tls_broker

    broker, settings, cert = start_tls_broker(tmp_path, {"referee": "referee", "north": "player"})
    tls_url = BrokerUrl("127.0.0.1", settings.tls_port, "referee", broker.passwords["referee"], tls=True)
    north = Link(broker.url("north"), "north", subscriptions=(PUBLIC,)).start()
    link = None
    try:
        started = time.monotonic()
        with pytest.raises(LinkRefused, match="TLS certificate is not trusted"):  # self-signed: refused at once
            LoopLink(tls_url, "referee").start(timeout=10.0)
        assert time.monotonic() - started < 5
        link = LoopLink(tls_url, "referee", subscriptions=("summon/v1/t/+/move/+",),
                        ssl_context=ssl.create_default_context(cafile=str(cert))).start()
        payloads = [i.to_bytes(4, "big") + b"y" * (i % 3) * 30_000 for i in range(300)]
        for p in payloads:
            link.publish(PUBLIC, p)
        assert pump_until(link, lambda: link.in_flight == 0, 30)
        assert [m.payload for m in drain(north, 300, 30)] == payloads
        for i in range(50):
            north.publish(MOVE, b"z" * (i * 1000))
        got: list = []
        assert pump_until(link, lambda: (got.extend(iter_inbox(link)), len(got) >= 50)[1], 20)
        assert [len(m.payload) for m in got] == [i * 1000 for i in range(50)]
    finally:
        if link is not None:
            link.close()
        north.close()
        broker.stop()


@pytest.mark.parametrize("body", [b"\x00\x05abc", b"\x00\x01a"])
def test_a_publish_cut_short_is_a_wire_error(body: bytes) -> None:
    with pytest.raises(wire.WireError):
        wire.publish_info(0x02, body, v5=False)  # QoS1: a packet id should follow the topic


def test_a_connack_with_a_property_cut_short_is_a_wire_error() -> None:
    with pytest.raises(wire.WireError):
        wire.connack(b"\x00\x00\x03\x21\x00", v5=True)  # Receive Maximum without its second byte


def test_a_malformed_packet_from_the_broker_drops_the_connection_and_loses_nothing() -> None:
    """A broker that sends a PUBACK of one byte: the link reconnects and sends again what was
    not acknowledged; nothing raises out of ``pump``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    received: list[bytes] = []

    def serve() -> None:
        for n in range(2):
            conn, _ = server.accept()
            conn.settimeout(5)
            conn.recv(4096)  # CONNECT
            conn.sendall(b"\x20\x02\x00\x00")  # CONNACK: accepted
            if n == 0:
                conn.recv(4096)  # the PUBLISH
                conn.sendall(b"\x40\x01\x00")  # a PUBACK one byte short
                time.sleep(0.5)
                conn.close()
            else:
                received.append(conn.recv(4096))
                time.sleep(0.5)
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    link = LoopLink(BrokerUrl(port=server.getsockname()[1]), "referee").start()
    try:
        link.publish(PUBLIC, b"kept")
        assert pump_until(link, lambda: link.connects == 2 and bool(received), 10)
        parser = wire.Parser()
        (kind, flags, body), = parser.feed(received[0])
        assert kind == wire.PUBLISH and flags & 0x08, "sent again, marked DUP"
        assert wire.publish_info(flags, body, v5=False)[:2] == (PUBLIC, b"kept")
    finally:
        link.close()
        server.close()


def test_start_does_not_time_out_while_a_retained_backlog_is_still_arriving():
    """Issue 25: Mosquitto sends a later filter's SUBACK only after the retained backlog of
    an earlier one; behind ~1 GB of junk the referee's fixed 10 s start failed ("no
    SUBACK") while data kept arriving.  A scripted broker here answers CONNACK, then sends
    a retained message every 0.1 s for 1.5 s before the SUBACK: a start with a 0.5 s
    timeout must wait for it (the timeout counts silence), and a silent broker must still
    time out."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(2)
    port = server.getsockname()[1]

    def broker(backlog: bool) -> None:
        conn, _ = server.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.recv(4096)  # CONNECT
        conn.sendall(b"\x20\x02\x00\x00")  # CONNACK, accepted
        sub = conn.recv(4096)  # SUBSCRIBE: fixed header, remaining length, packet id
        mid = sub[2:4]
        t0 = time.monotonic()
        while backlog and time.monotonic() - t0 < 1.5:
            conn.sendall(wire.publish(MOVE, b"junk", qos=0, retain=True, mid=0, v5=False))
            time.sleep(0.1)
        if backlog:
            conn.sendall(b"\x90\x03" + mid + b"\x01")  # SUBACK, QoS 1 granted
        time.sleep(2.0)
        conn.close()

    try:
        t = threading.Thread(target=broker, args=(True,), daemon=True)
        t.start()
        link = LoopLink(BrokerUrl("127.0.0.1", port), "referee", subscriptions=(MOVE,)).start(timeout=0.5)
        try:
            assert link.connected.is_set() and link.inbox.qsize() >= 10 and link.inbox.get().retain
        finally:
            link.close()
        t.join(5)
        t = threading.Thread(target=broker, args=(False,), daemon=True)
        t.start()
        t0 = time.monotonic()
        with pytest.raises(LinkError, match="no SUBACK"):
            LoopLink(BrokerUrl("127.0.0.1", port), "referee", subscriptions=(MOVE,)).start(timeout=0.5)
        assert time.monotonic() - t0 < 1.5  # silence still ends the start
        t.join(5)
    finally:
        server.close()
