"""The referee's own MQTT link, byte for byte, against a scripted fake broker (issue 29 item 5).

tests/test_looplink.py runs the link over a real Mosquitto, whose timing decides what is
reached; here the test *is* the broker, as in paho-mqtt's ``tests/lib``: it expects the exact
bytes the MQTT spec says the client sends (written out by hand, never by the encoder under
test) and answers with scripted bytes, so connect, keepalive, DUP resend after a reconnect,
Receive Maximum and hostile packets are each pinned without a broker's timing.

Time is the link's own clock, replaced by a fake one (``looplink.time``), so a keepalive of
ten seconds is tested without waiting and a reconnect's back-off is skipped by advancing it.
"""

from __future__ import annotations

import socket
import threading
import time
import types
from typing import Any
from collections.abc import Callable

import pytest

from summon.protocol import looplink
from summon.protocol.looplink import LoopLink
from summon.protocol.mqtt import BrokerUrl, LinkError, LinkRefused

WAIT = 10.0  # real seconds the fake broker waits for bytes that should come (a failure, not a pace)
QUIET = 0.3  # real seconds of silence that show nothing more was sent


class FakeClock:
    """The link's ``time`` module: ``monotonic`` moves only when the test (or ``sleep``) says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(looplink, "time", types.SimpleNamespace(monotonic=fake.monotonic, sleep=fake.sleep,
                                                                time=time.time))
    return fake


class FakeBroker:
    """A listening socket whose every byte the test writes and checks."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.conn: socket.socket | None = None

    def url(self, **kw: Any) -> BrokerUrl:
        return BrokerUrl(port=self.port, **kw)

    def accept(self) -> None:
        self.server.settimeout(WAIT)
        self.conn, _ = self.server.accept()
        self.conn.settimeout(WAIT)

    def no_connection(self) -> None:
        self.server.settimeout(QUIET)
        with pytest.raises(socket.timeout):
            self.server.accept()

    def expect(self, want: bytes) -> None:
        assert self.conn is not None
        got = b""
        while len(got) < len(want):
            chunk = self.conn.recv(len(want) - len(got))
            if not chunk:
                break
            got += chunk
        assert got == want, f"expected {want.hex(' ')}\n     got {got.hex(' ')}"

    def silent(self) -> None:
        """Nothing more arrives (and the connection stays open)."""
        assert self.conn is not None
        self.conn.settimeout(QUIET)
        try:
            extra = self.conn.recv(4096)
        except TimeoutError:
            extra = None
        finally:
            self.conn.settimeout(WAIT)
        assert extra is None, f"unexpected bytes: {extra.hex(' ') if extra else 'the connection closed'}"

    def expect_closed(self) -> None:
        assert self.conn is not None
        assert self.conn.recv(4096) == b"", "the link should have dropped the connection"
        self.conn.close()
        self.conn = None

    def send(self, data: bytes) -> None:
        assert self.conn is not None
        self.conn.sendall(data)

    def hang_up(self) -> None:
        assert self.conn is not None
        self.conn.close()
        self.conn = None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.server.close()


@pytest.fixture
def broker() -> Any:
    b = FakeBroker()
    yield b
    b.close()


def in_thread(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Run ``fn`` (a call that blocks on the broker's answers) while the test answers;
    returns a function that waits for it and gives its result or raises its exception."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)  # daemon: a hung link cannot hang pytest's exit
    thread.start()

    def result() -> Any:
        thread.join(WAIT)
        assert not thread.is_alive(), "the link is still waiting"
        if "error" in box:
            raise box["error"]
        return box.get("result")

    return result


def pump_until(link: LoopLink, cond: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not cond():
        assert time.monotonic() < deadline, "the condition never held"
        link.pump(0.05)


# --- the bytes, written out from the spec (MQTT 3.1.1 section 3, MQTT 5 section 3) ----------
CONNECT_V3 = b"\x10\x0f" b"\x00\x04MQTT\x04" b"\x02" b"\x00\x1e" b"\x00\x03ref"  # clean session, keepalive 30
CONNACK_V3_OK = b"\x20\x02\x00\x00"
CONNACK_V5_OK = b"\x20\x03\x00\x00\x00"  # no properties
SUB_V3 = b"\x82\x08\x00\x01\x00\x03t/#\x01"  # packet id 1, one filter at QoS1
SUBACK_V3 = b"\x90\x03\x00\x01\x01"


def pub_v3(mid: int, dup: bool = False, payload: bytes = b"hi") -> bytes:
    """PUBLISH QoS1 of ``payload`` to a/b (fixed header 0x32, 0x3a with DUP)."""
    return bytes((0x3A if dup else 0x32, 7 + len(payload))) + b"\x00\x03a/b" + mid.to_bytes(2, "big") + payload


def pub_v5(mid: int, dup: bool = False) -> bytes:
    return bytes((0x3A if dup else 0x32, 10)) + b"\x00\x03a/b" + mid.to_bytes(2, "big") + b"\x00" + b"hi"


def puback(mid: int) -> bytes:
    return b"\x40\x02" + mid.to_bytes(2, "big")


def connack_v5_receive_max(n: int) -> bytes:
    return b"\x20\x06\x00\x00\x03\x21" + n.to_bytes(2, "big")  # one property: Receive Maximum


def handshake(broker: FakeBroker, connect: bytes, connack: bytes, sub: bytes | None = None,
              suback: bytes | None = None) -> None:
    broker.accept()
    broker.expect(connect)
    broker.send(connack)
    if sub is not None:
        broker.expect(sub)
        assert suback is not None
        broker.send(suback)


def started(broker: FakeBroker, link: LoopLink, connect: bytes = CONNECT_V3, connack: bytes = CONNACK_V3_OK,
            sub: bytes | None = None, suback: bytes | None = None) -> LoopLink:
    done = in_thread(lambda: link.start(timeout=5))
    handshake(broker, connect, connack, sub, suback)
    done()
    assert link.connected.is_set() and link.connects == 1
    return link


def reconnect(broker: FakeBroker, link: LoopLink, clock: FakeClock, connect: bytes, connack: bytes,
              sub: bytes | None = None, suback: bytes | None = None) -> None:
    """The link noticed the loss; let its back-off pass and answer its next attempt."""
    assert not link.connected.is_set()
    clock.advance(1.01)  # the first retry comes a second after the loss
    done = in_thread(lambda: link.pump(0))
    handshake(broker, connect, connack, sub, suback)
    done()
    assert link.connected.is_set()


# --- connect --------------------------------------------------------------------------------
def test_connect_and_subscribe_are_the_bytes_of_the_spec(broker: FakeBroker, clock: FakeClock) -> None:
    link = LoopLink(broker.url(), "ref", subscriptions=["t/#"])
    try:
        started(broker, link, sub=SUB_V3, suback=SUBACK_V3)
        broker.silent()
    finally:
        link.close()
    broker.expect(b"\xe0\x00")  # close says goodbye: DISCONNECT, so the will is not published


def test_mqtt5_connect_with_credentials_and_a_will(broker: FakeBroker, clock: FakeClock) -> None:
    connect = (b"\x10\x20" b"\x00\x04MQTT\x05"
               b"\xee"  # clean start, will, will QoS1, will retain, password, user name
               b"\x00\x0a" b"\x00"  # keepalive 10, no properties
               b"\x00\x03ref" b"\x00" b"\x00\x01w" b"\x00\x01x"  # client id; will: no properties, topic, payload
               b"\x00\x03ref" b"\x00\x02pw")
    link = LoopLink(broker.url(username="ref", password="pw"), "ref", mqtt_version=5, will=("w", b"x"),
                    keepalive=10)
    try:
        started(broker, link, connect=connect, connack=CONNACK_V5_OK)
    finally:
        link.close()


@pytest.mark.parametrize("version, connack", [(3, b"\x20\x02\x00\x05"), (3, b"\x20\x02\x00\x04"),
                                              (5, b"\x20\x03\x00\x87\x00"), (5, b"\x20\x03\x00\x86\x00")])
def test_refused_credentials_end_it_at_once_and_it_does_not_retry(broker: FakeBroker, clock: FakeClock,
                                                                    version: int, connack: bytes) -> None:
    link = LoopLink(broker.url(username="ref", password="pw"), "ref", mqtt_version=version)
    done = in_thread(lambda: link.start(timeout=5))
    broker.accept()
    broker.conn.recv(4096)  # type: ignore[union-attr]  # the CONNECT (its bytes are pinned above)
    broker.send(connack)
    with pytest.raises(LinkRefused, match="ref"):
        done()
    assert link.refused
    broker.expect_closed()
    link.pump(0)
    broker.no_connection()
    link.close()


def test_a_refusal_that_may_pass_is_retried_until_accepted(broker: FakeBroker, clock: FakeClock) -> None:
    link = LoopLink(broker.url(), "ref")
    done = in_thread(lambda: link.start(timeout=5))
    broker.accept()
    broker.expect(CONNECT_V3)
    broker.send(b"\x20\x02\x00\x03")  # server unavailable
    broker.expect_closed()
    broker.accept()
    broker.expect(CONNECT_V3)
    broker.send(CONNACK_V3_OK)
    done()
    assert link.connects == 1 and link.refused is None
    link.close()


def test_no_connack_within_the_timeout_is_a_link_error(broker: FakeBroker, clock: FakeClock) -> None:
    link = LoopLink(broker.url(), "ref")
    done = in_thread(lambda: link.start(timeout=1))
    broker.accept()
    broker.expect(CONNECT_V3)
    broker.hang_up()
    broker.server.close()  # and every later attempt is refused
    with pytest.raises(LinkError, match="not connected"):
        done()


# --- keepalive ------------------------------------------------------------------------------
def test_a_quiet_link_pings_at_half_the_keepalive_and_drops_an_unanswered_ping(
        broker: FakeBroker, clock: FakeClock) -> None:
    connect = b"\x10\x0f\x00\x04MQTT\x04\x02\x00\x0a\x00\x03ref"  # keepalive 10
    link = started(broker, LoopLink(broker.url(), "ref", keepalive=10), connect=connect)
    try:
        clock.advance(5.0)
        link.pump(0)
        broker.silent()  # not yet: half the keepalive has not passed
        clock.advance(0.01)
        link.pump(0)
        broker.expect(b"\xc0\x00")  # PINGREQ
        broker.send(b"\xd0\x00")  # PINGRESP
        link.pump(0.5)
        clock.advance(4.9)
        link.pump(0)
        broker.silent()  # the answered ping reset nothing it should not: still within the interval
        clock.advance(0.2)
        link.pump(0)
        broker.expect(b"\xc0\x00")
        clock.advance(4.8)  # no PINGRESP this time; the broker was last heard 9.9 s ago
        link.pump(0)
        assert link.connected.is_set()
        clock.advance(0.2)  # more than the keepalive since the broker was last heard
        link.pump(0)
        assert not link.connected.is_set()
        broker.expect_closed()
        reconnect(broker, link, clock, connect, CONNACK_V3_OK)
    finally:
        link.close()


def test_publishing_counts_as_activity_so_no_ping_is_sent(broker: FakeBroker, clock: FakeClock) -> None:
    connect = b"\x10\x0f\x00\x04MQTT\x04\x02\x00\x0a\x00\x03ref"
    link = started(broker, LoopLink(broker.url(), "ref", keepalive=10), connect=connect)
    try:
        for mid in range(1, 4):
            clock.advance(4.0)
            link.publish("a/b", b"hi")
            link.pump(0)
            broker.expect(pub_v3(mid))
            broker.send(puback(mid))
        link.pump(0.5)
        broker.silent()
    finally:
        link.close()


# --- QoS1 survives a lost connection ----------------------------------------------------------
def test_unacknowledged_publishes_go_again_with_dup_and_their_packet_ids_after_a_reconnect(
        broker: FakeBroker, clock: FakeClock) -> None:
    link = started(broker, LoopLink(broker.url(), "ref", subscriptions=["t/#"]), sub=SUB_V3, suback=SUBACK_V3)
    try:
        for _ in range(3):
            link.publish("a/b", b"hi")
        link.pump(0)
        broker.expect(pub_v3(2) + pub_v3(3) + pub_v3(4))  # one send; ids after the SUBSCRIBE's
        broker.send(puback(3))
        broker.hang_up()
        pump_until(link, lambda: not link.connected.is_set())
        assert link.in_flight == 2
        link.publish("a/b", b"hi")  # while disconnected: queued, sent after the resends
        sub6 = b"\x82\x08\x00\x06\x00\x03t/#\x01"  # ids 2, 4, 5 are taken: the new SUBSCRIBE gets 6
        reconnect(broker, link, clock, CONNECT_V3, CONNACK_V3_OK, sub6, b"\x90\x03\x00\x06\x01")
        broker.expect(pub_v3(2, dup=True) + pub_v3(4, dup=True) + pub_v3(5))
        broker.send(puback(2) + puback(4) + puback(5))
        pump_until(link, lambda: link.in_flight == 0)
        broker.silent()
    finally:
        link.close()


def test_incoming_qos1_is_acknowledged_with_its_packet_id(broker: FakeBroker, clock: FakeClock) -> None:
    link = started(broker, LoopLink(broker.url(), "ref", subscriptions=["t/#"]), sub=SUB_V3, suback=SUBACK_V3)
    try:
        broker.send(b"\x33\x0b\x00\x03t/x\x12\x34move")  # QoS1, retained, id 0x1234
        pump_until(link, lambda: not link.inbox.empty())
        msg = link.inbox.get_nowait()
        assert (msg.topic, msg.payload, msg.retain) == ("t/x", b"move", True)
        link.pump(0)
        broker.expect(b"\x40\x02\x12\x34")
    finally:
        link.close()


# --- Receive Maximum --------------------------------------------------------------------------
def test_no_more_publishes_in_flight_than_the_brokers_receive_maximum(broker: FakeBroker, clock: FakeClock) -> None:
    link = LoopLink(broker.url(), "ref", mqtt_version=5)
    connect = b"\x10\x10\x00\x04MQTT\x05\x02\x00\x1e\x00\x00\x03ref"
    started(broker, link, connect=connect, connack=connack_v5_receive_max(2))
    try:
        for _ in range(5):
            link.publish("a/b", b"hi")
        link.pump(0)
        broker.expect(pub_v5(1) + pub_v5(2))
        broker.silent()
        broker.send(b"\x40\x03\x00\x01\x00")  # MQTT 5 PUBACK with reason 0: success
        pump_until(link, lambda: link.in_flight == 4)
        link.pump(0)
        broker.expect(pub_v5(3))
        broker.silent()
        broker.send(puback(2) + puback(3))
        pump_until(link, lambda: link.in_flight == 2)
        link.pump(0)
        broker.expect(pub_v5(4) + pub_v5(5))
        broker.silent()
    finally:
        link.close()


def test_a_batch_framed_in_one_pass_keeps_the_packets_and_the_window(broker: FakeBroker, clock: FakeClock) -> None:
    """``publish_many`` (a move's publishes, issue 45 item 3): the packets and ids five
    ``publish`` calls give, in one send, the window and the queue behind it unchanged."""
    link = LoopLink(broker.url(), "ref", mqtt_version=5)
    connect = b"\x10\x10\x00\x04MQTT\x05\x02\x00\x1e\x00\x00\x03ref"
    started(broker, link, connect=connect, connack=connack_v5_receive_max(3))
    try:
        link.publish("a/b", b"hi")
        link.publish_many([types.SimpleNamespace(topic="a/b", payload=b"hi", retain=False)] * 4)
        link.pump(0)
        broker.expect(pub_v5(1) + pub_v5(2) + pub_v5(3))
        broker.silent()
        broker.send(puback(1) + puback(3))
        pump_until(link, lambda: link.in_flight == 3)
        link.pump(0)
        broker.expect(pub_v5(4) + pub_v5(5))
        broker.hang_up()
        pump_until(link, lambda: not link.connected.is_set())
        reconnect(broker, link, clock, connect, connack_v5_receive_max(3))
        broker.expect(pub_v5(2, dup=True) + pub_v5(4, dup=True) + pub_v5(5, dup=True))
        broker.silent()
    finally:
        link.close()


def test_a_smaller_receive_maximum_after_a_reconnect_bounds_the_resends(broker: FakeBroker, clock: FakeClock) -> None:
    """Regression: the resend after a reconnect sent every unacknowledged publish at once,
    whatever the new CONNACK's Receive Maximum (a broker restarted with a smaller one)."""
    link = LoopLink(broker.url(), "ref", mqtt_version=5)
    connect = b"\x10\x10\x00\x04MQTT\x05\x02\x00\x1e\x00\x00\x03ref"
    started(broker, link, connect=connect, connack=connack_v5_receive_max(5))
    try:
        for _ in range(4):
            link.publish("a/b", b"hi")
        link.pump(0)
        broker.expect(pub_v5(1) + pub_v5(2) + pub_v5(3) + pub_v5(4))
        broker.hang_up()
        pump_until(link, lambda: not link.connected.is_set())
        reconnect(broker, link, clock, connect, connack_v5_receive_max(2))
        broker.expect(pub_v5(1, dup=True) + pub_v5(2, dup=True))
        broker.silent()
        broker.send(puback(1))
        pump_until(link, lambda: link.in_flight == 3)
        link.pump(0)
        broker.expect(pub_v5(3, dup=True))  # sent before the loss, so marked DUP though it waited
        broker.silent()
    finally:
        link.close()


# --- hostile bytes from the broker ------------------------------------------------------------
BAD = {
    "length over four bytes": (3, b"\x30\xff\xff\xff\xff\x7f"),
    "PUBACK one byte short": (3, b"\x40\x01\x00"),
    "PUBLISH topic longer than the packet": (3, b"\x32\x04\x00\x09ab"),
    "MQTT 5 PUBLISH properties past the packet": (5, b"\x32\x08\x00\x03a/b\x00\x02\x7f"),
    "MQTT 5 SUBACK with a five-byte property length": (5, b"\x90\x07\x00\x01\xff\xff\xff\xff\xff"),
}


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
def test_a_malformed_packet_drops_the_connection_and_the_publish_goes_again(
        broker: FakeBroker, clock: FakeClock, bad: tuple[int, bytes]) -> None:
    version, packet = bad
    v5 = version == 5
    connect = b"\x10\x10\x00\x04MQTT\x05\x02\x00\x1e\x00\x00\x03ref" if v5 else CONNECT_V3
    connack = CONNACK_V5_OK if v5 else CONNACK_V3_OK
    link = started(broker, LoopLink(broker.url(), "ref", mqtt_version=version), connect=connect, connack=connack)
    pub = pub_v5 if v5 else pub_v3
    try:
        link.publish("a/b", b"hi")
        link.pump(0)
        broker.expect(pub(1))
        broker.send(packet)
        pump_until(link, lambda: not link.connected.is_set())  # no exception out of pump
        broker.expect_closed()
        assert link.inbox.empty() and link.refused is None
        reconnect(broker, link, clock, connect, connack)
        broker.expect(pub(1, dup=True))
    finally:
        link.close()


def test_a_packet_arriving_in_one_byte_pieces_is_read_whole(broker: FakeBroker, clock: FakeClock) -> None:
    link = started(broker, LoopLink(broker.url(), "ref"))
    try:
        link.publish("a/b", b"hi")
        link.pump(0)
        broker.expect(pub_v3(1))
        for byte in puback(1):
            broker.send(bytes((byte,)))
            link.pump(0.2)
        pump_until(link, lambda: link.in_flight == 0)
        assert link.connected.is_set()
    finally:
        link.close()


def test_a_packet_bigger_than_one_read_is_reassembled_and_kept(broker: FakeBroker, clock: FakeClock) -> None:
    """Big but within MQTT: 1 MiB (four of the link's 256 KiB reads, a 3-byte remaining
    length) arrives whole and the connection stays.  Why the link sets no size limit of its
    own: a retained message over such a limit would be redelivered at every reconnect, so
    dropping the connection for it would loop for ever; the decoder's own limit
    (``MAX_INBOUND_BYTES``, protocol/version.py) refuses what is too big for a message."""
    link = started(broker, LoopLink(broker.url(), "ref", subscriptions=["t/#"]), sub=SUB_V3, suback=SUBACK_V3)
    try:
        payload = bytes(range(256)) * 4096
        body = b"\x00\x03t/x" + payload  # QoS0: no packet id
        n = len(body)
        assert n == 1_048_581
        broker.send(b"\x30" + bytes((n & 0x7F | 0x80, (n >> 7) & 0x7F | 0x80, n >> 14)) + body)
        pump_until(link, lambda: not link.inbox.empty())
        msg = link.inbox.get_nowait()
        assert (msg.topic, msg.payload) == ("t/x", payload)
        assert link.connected.is_set()
        link.pump(0)
        broker.silent()  # QoS0: nothing to acknowledge
    finally:
        link.close()


# --- run-time subscriptions (issue 27: a fleet referee subscribes each table it owns) ---------
SUB_A1 = b"\x82\x08\x00\x01\x00\x03a/1\x01"  # SUBSCRIBE, packet id 1, a/1 at QoS1
UNSUB_A1 = b"\xa2\x07\x00\x02\x00\x03a/1"  # UNSUBSCRIBE (flags 0b0010), packet id 2, a/1


def test_a_run_time_subscribe_calls_back_only_when_the_broker_acknowledged(broker: FakeBroker,
                                                                           clock: FakeClock) -> None:
    link = started(broker, LoopLink(broker.url(), "ref"))
    acks: list[bool] = []
    try:
        link.subscribe("a/1", acks.append)
        link.pump(0)
        broker.expect(SUB_A1)
        link.pump(0.05)
        assert acks == []  # no SUBACK yet: the owner must not publish the table's states
        broker.send(b"\x90\x03\x00\x01\x01")  # granted QoS1
        pump_until(link, lambda: bool(acks))
        assert acks == [True]
        link.unsubscribe("a/1", lambda ok: acks.append(ok))
        link.pump(0)
        broker.expect(UNSUB_A1)
        assert acks == [True]
        broker.send(b"\xb0\x02\x00\x02")  # UNSUBACK, packet id 2
        pump_until(link, lambda: len(acks) == 2)
        assert link.run_time_subscriptions == 0
        link.unsubscribe("a/1")  # not held any more: nothing is sent
        link.pump(0)
        broker.silent()
    finally:
        link.close()


def test_a_refused_run_time_subscription_calls_back_false(broker: FakeBroker, clock: FakeClock) -> None:
    link = started(broker, LoopLink(broker.url(), "ref"))
    acks: list[bool] = []
    try:
        link.subscribe("a/1", acks.append)
        link.pump(0)
        broker.expect(SUB_A1)
        broker.send(b"\x90\x03\x00\x01\x80")  # 0x80: failure
        pump_until(link, lambda: bool(acks))
        assert acks == [False]
    finally:
        link.close()


def test_run_time_subscriptions_go_again_in_one_packet_after_a_reconnect_and_a_waiting_callback_runs(
        broker: FakeBroker, clock: FakeClock) -> None:
    link = started(broker, LoopLink(broker.url(), "ref"))
    acks: list[str] = []
    try:
        link.subscribe("a/1", lambda ok: acks.append("a/1"))
        link.pump(0)
        broker.expect(SUB_A1)
        broker.send(b"\x90\x03\x00\x01\x01")
        pump_until(link, lambda: acks == ["a/1"])
        link.subscribe("a/2", lambda ok: acks.append(f"a/2 {ok}"))
        link.pump(0)
        broker.expect(b"\x82\x08\x00\x02\x00\x03a/2\x01")
        broker.hang_up()  # before its SUBACK: the callback waits for the reconnect's
        pump_until(link, lambda: not link.connected.is_set())
        assert acks == ["a/1"]
        # both filters in one SUBSCRIBE (packet id 3); the reconnect completes on its SUBACK
        reconnect(broker, link, clock, CONNECT_V3, CONNACK_V3_OK,
                  sub=b"\x82\x0e\x00\x03\x00\x03a/1\x01\x00\x03a/2\x01", suback=b"\x90\x04\x00\x03\x01\x01")
        assert acks == ["a/1", "a/2 True"]
    finally:
        link.close()


def test_mqtt5_qos0_subscription_with_an_identifier_tags_what_it_brings(broker: FakeBroker,
                                                                         clock: FakeClock) -> None:
    connect = b"\x10\x10" b"\x00\x04MQTT\x05" b"\x02" b"\x00\x1e" b"\x00" b"\x00\x03ref"
    # packet id 1; properties: Subscription Identifier 7; c/# with options QoS0 + retain as published
    sub = b"\x82\x0b\x00\x01" b"\x02\x0b\x07" b"\x00\x03c/#" b"\x08"
    link = LoopLink(broker.url(), "ref", subscriptions=[looplink.Subscription("c/#", qos=0, sub_id=7)],
                    mqtt_version=5)
    try:
        started(broker, link, connect=connect, connack=CONNACK_V5_OK, sub=sub, suback=b"\x90\x04\x00\x01\x00\x00")
        broker.send(b"\x30\x09\x00\x03c/x\x02\x0b\x07m")  # QoS0, brought by identifier 7
        broker.send(b"\x30\x07\x00\x03c/y\x00n")  # no identifier: another subscription's copy
        pump_until(link, lambda: link.inbox.qsize() == 2)
        first, second = link.inbox.get_nowait(), link.inbox.get_nowait()
        assert isinstance(first, looplink.Caught) and (first.topic, first.payload) == ("c/x", b"m")
        assert not isinstance(second, looplink.Caught) and (second.topic, second.payload) == ("c/y", b"n")
    finally:
        link.close()
