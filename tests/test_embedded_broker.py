"""The demo's embedded broker (amqtt) answers every SUBSCRIBE, whatever other clients do
meanwhile (issue 47: `summon demo` hung with "the broker has not acknowledged the
subscriptions").

The race, made deterministic: amqtt sends a new client the retained messages matching every
filter in its table, awaiting each send.  Client B is sent an 8 MiB retained message and
reads none of it (a 4 KiB receive buffer), so the broker stays inside that loop; client C
then subscribes to a new filter; B reads everything and subscribes.  amqtt 0.12 alone raised
"dictionary changed size during iteration" there and never answered B (on Debian's Python
3.11.2 the connection stayed open: a silent hang; on 3.11.7 it was closed).
"""

from __future__ import annotations

import socket
import struct
import threading
import time

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from summon.clients.embedded_broker import EmbeddedBroker


def _length(n: int) -> bytes:
    out = b""
    while True:
        byte, n = n % 128, n // 128
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def _string(raw: bytes) -> bytes:
    return struct.pack("!H", len(raw)) + raw


def _packet(kind: int, body: bytes) -> bytes:
    return bytes([kind]) + _length(len(body)) + body


def _paho(client_id: str, port: int) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def _subscribe(client: mqtt.Client, topic_filter: str) -> None:
    acked = threading.Event()
    client.on_subscribe = lambda *args: acked.set()
    client.subscribe(topic_filter, qos=1)
    assert acked.wait(10), f"no SUBACK for {topic_filter}"


def _read_until(sock: socket.socket, enough: int, timeout: float) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while len(data) < enough and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(1 << 20)
        except TimeoutError:
            break
        if not chunk:
            break
        data += chunk
    return data


def test_a_subscribe_made_while_the_broker_sends_another_client_its_retained_backlog_is_acknowledged():
    broker = EmbeddedBroker().start()
    clients: list[mqtt.Client] = []
    sock = socket.socket()
    try:
        a = _paho("a", broker.port)
        clients.append(a)
        _subscribe(a, "x/#")
        big = b"\0" * (8 << 20)
        a.publish("x/big", big, qos=1, retain=True).wait_for_publish(30)

        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", broker.port))
        sock.sendall(_packet(0x10, _string(b"MQTT") + bytes([4, 0x02]) + struct.pack("!H", 60) + _string(b"b")))
        deadline = time.monotonic() + 30
        while len(sock.recv(16, socket.MSG_PEEK)) < 6:  # CONNACK (4 bytes) and the start of the PUBLISH
            assert time.monotonic() < deadline, "the broker never began sending B the retained message"
            time.sleep(0.01)

        c = _paho("c", broker.port)  # meanwhile: a new filter in the broker's table
        clients.append(c)
        _subscribe(c, "y/#")

        # CONNACK, then the whole retained PUBLISH: its length read from its own header (its
        # topic and packet id come on top of the payload), so nothing of it is left unread
        got = _read_until(sock, 4 + 5, 30)
        n, shift, at = 0, 0, 5
        while True:  # MQTT's variable-length "remaining length"
            n |= (got[at] & 0x7F) << shift
            shift += 7
            at += 1
            if not got[at - 1] & 0x80:
                break
        end = at + n
        got += _read_until(sock, end - len(got), 30)
        assert len(got) >= end, f"the retained PUBLISH did not arrive whole ({len(got)} of {end} bytes)"
        sock.sendall(_packet(0x82, struct.pack("!H", 7) + _string(b"z/#") + bytes([1])))
        rest = got[end:]
        suback = rest + _read_until(sock, 5 - len(rest), 10)
        assert suback[:4] == bytes([0x90, 3, 0, 7]), f"no SUBACK for B (got {suback!r})"
    finally:
        sock.close()
        for client in clients:
            client.loop_stop()
            client.disconnect()
        broker.stop()


def test_late_acknowledgements_are_not_shown_but_other_amqtt_warnings_are(caplog):
    """Issue 47 item 7: "Received PUBACK for unknown pending message" lines ended the demo."""
    import logging

    broker = EmbeddedBroker().start()
    try:
        amqtt_log = logging.getLogger("amqtt.mqtt.protocol.handler")
        with caplog.at_level(logging.WARNING, logger="amqtt.mqtt.protocol.handler"):
            amqtt_log.warning("Received PUBACK for unknown pending message Id: '45'")
            amqtt_log.warning("PUBACK waiter with Id '46' already done")
            amqtt_log.warning("Timeout waiting for PUBACK for packet ID 47")
        assert [r.getMessage() for r in caplog.records] == ["Timeout waiting for PUBACK for packet ID 47"]
    finally:
        broker.stop()
